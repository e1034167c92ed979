"""What the kinds of text told by their lines (a unified diff, YAML, Markdown, a file listing:
``scratchfs.api.shape_kinds``) cost on the worst text a hostile or unlucky tool gives: 512 KiB of short lines of what
each reads in Python (``#`` headings, ``---`` documents, ``- `` entries, one-line diffs, ``ls -R`` sections, fences
and headings in turn). Before, each was read whole: 65,000 fenced blocks between ATX headings took 56 s (each heading
compared with every fence), a YAML stream of 131,000 ``---`` documents 0.7 s, 58,000 ``ls -R`` sections 0.13 s; 512
KiB of ``{}`` JSON texts 0.17 s, of ``[]`` JSON lines 60 ms. Now each kind reads at most the sample's first
:data:`~scratchfs.api.shape_words.MOST_LINES` lines, and says so; what it says of them is what it says of those lines
alone. JSON lines are counted at C speed, and their keys and kinds told from at most their first 2,000 records; JSON
texts one after another parsed up to 5,000, then counted from their bytes."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.shape import describe
from scratchfs.api.shape_words import MOST_LINES, kib, within_lines
from tests.cpu_time import best_cpu

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SIZE = 512 * 1024


def fill(unit: bytes, size: int = SIZE) -> bytes:
    return (unit * (size // len(unit) + 1))[:size]


HOSTILE = {
    "fenced blocks between headings": fill(b"```\n## a\n"),
    "tilde fences and headings": fill(b"~~~\n# a\n\n"),
    "ATX headings": fill(b"# x\n"),
    "ATX headings, some indented, after a diff's lines": b"++a\n@@ -1 +1 @@\n+y\n" + fill(b"# h\n  # c\n"),
    "headings between blank lines": fill(b"## h\n\n"),
    "links and headings": fill(b"\n# a](b\n"),
    "CRLF headings": fill(b"\r\n## a\r\n\r\n"),
    "YAML documents of one key": fill(b"---\na: 1\n  b: 2\n"),
    "YAML documents named by kind": fill(b"---\nkind: x\n  name: y\n"),
    "YAML, then bare document markers": b"a:\n  b: 1\nc: 2\n" + fill(b"---\n"),
    "YAML nested keys": fill(b"a:\n  b: 1\n"),
    "YAML keys of 120 characters": fill(b"a" * 120 + b":\n  " + b"b" * 119 + b": 1\n"),
    "YAML, then lines of words": b"a:\n  b: 1\nc:\n" + fill(b"k" * 60 + b" " + b"v" * 59 + b"x\n"),
    "one-line diffs": fill(b"--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n"),
    "one-line git diffs": fill(b"diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"),
    "a git log -p of one-line commits": fill(b"commit 0123456789abcdef\n--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n"),
    "hunk headers of huge counts": b"--- a/x\n+++ b/x\n" + fill(b"@@ -1,999999999999 +1,999999999999 @@\n"),
    "a hunk of 170,000 context lines": b"--- a\n+++ b\n@@ -1,999999 +1,999999 @@\n" + fill(b" x\n"),
    "ls -R sections": fill(b"\n\n./a:\nf\n")[2:],
    "ls -lR sections": fill(b"\n\n./a:\ntotal 0\n")[2:],
    "find paths of /": fill(b"/\n"),
    "find paths of ./": fill(b"./\n"),
    # JSON lines and JSON texts one after another of tiny records: each was split, stripped, parsed and merged
    "JSON lines of []": fill(b"[]\n"),
    "JSON lines of {} between blank lines": fill(b"{}\n \n"),
    "JSON texts {}{}{} on one line": fill(b"{}"),
    # a git log -p --graph's patches, told from its lines with the graph taken off (shape_gitlog, branch kinds3)
    "a git log -p --graph of one-line commits": fill(b"* commit 0123456789abcdef\n| Author: a\n| diff --git a/x b/x\n"
                                                     b"| --- a/x\n| +++ b/x\n| @@ -1 +1 @@\n| -a\n| +b\n"),
    "a git log -p --oneline --graph of one-line commits": fill(b"* 0123456 s\n| diff --git a/x b/x\n| --- a/x\n"
                                                               b"| +++ b/x\n| @@ -1 +1 @@\n| -a\n| +b\n"),
    "a git log --graph of commits with a hunk header": fill(b"* commit 0123456789abcdef\n| Author: a\n| @@ -\n"),
    # hunks' lines that read as a --graph's commits (shape_gitlog._fakes, branch kinds4: a look back from each line
    # to the hunk header took 7.9 s over one hunk of 37,000 such lines)
    "a git log -p --graph whose hunks' lines read as commits": fill(b"* commit 0123456789abcdef\n| Author: a\n| @@ "
                                                                    b"-1,3 +1,3 @@\n|  * 0123456 s\n| -* 0123456 s\n"
                                                                    b"| +a\n|  x\n"),
    "one hunk of lines that read as a --graph's commits": b"* commit 0123456789abcdef\n| Author: a\n| @@ -1,999999 "
                                                          b"+1,999999 @@\n" + fill(b"|  * 0123456 s\n"),
    "one hunk of lines that read as a --oneline --graph's": b"* 0123456 s\n| @@ -1,999999 +1,999999 @@\n"
                                                           + fill(b"|  * 0123457 s\n"),
    # coloured lines erased by \r ESC[K (shape_terminal.colours_removed, branch kinds3), and one long line holding one
    "coloured lines each erased and written again": fill(b"\x1b[1mBuilding\x1b[0m [==>  ] 1/9\r\x1b[Kerror: x\n"),
    "one long line erased at its start": b"\r\x1b[K" + fill(b"\x1b[31mx\x1b[0m "),
    # logfmt's and klog's levels (shape_log, since branch kinds3): every line a match, of each key and letter
    "logfmt lines of every level key and value": fill(b'lvl="eror" level=warn t=2026-12-05T00:00 level=fatal\n'),
    "logfmt level= runs": fill(b"level=level=level=error "),
    "klog error lines": fill(b"E1205 05:33:56.724479 1 a.go:1] x\nW1205 05:33:56.724479 1 a.go:1] y\n"),
    "klog headers over a word of 4,000 colons": fill(b"E1205 05:33:56.724479 1 " + b":1" * 2000 + b"\n"),
    # a git diff --stat's lines (shape_diffstat, hostile35: a path's padding of 4,000 spaces took 1.2 s, a lazy path
    # then " +" tried at every split; 58,000 one-line files with totals 42 ms) and certificates' (shape_certs: each
    # Certificate: line looked 40 lines on for a subject, 76 ms)
    "diffstat lines padded by 4,000 spaces": b" a | 1 +\n" + fill(b" a" + b" " * 4000 + b"\n"),
    "diffstat lines of one file each, then totals": b" a | 1 +\n" * 58_000 + b" 58000 files changed, 1 insertion(+)\n",
    "diffstat lines of a binary file each, then totals": b" a | Bin 0 -> 1 bytes\n" * 23_800 + b" 1 file changed\n",
    "Certificate: lines": fill(b"Certificate:\n"),
    "Certificate: lines after a subject": b"Certificate:\n    Data:\n        Subject: CN=a\n" + fill(b"Certificate:\n"),
    "certificates of one line each": b"Certificate:\n    Data:\n        Subject: CN=a\n" + fill(b"Certificate:\n    "
                                                                                          b"Data:\n  Subject: CN=a\n"),
    # objdump -d's symbols and sections (shape_disasm, hostile35: three matches in Python a symbol's line, 45 ms;
    # every section's name joined into the shape's head, 31 ms)
    "objdump symbols of one line each": b"\nx:     file format elf64-x86-64\n\nDisassembly of section .text:\n"
                                        + fill(b"0000 <a>:\n"),
    "objdump symbols of each kind": b"\nx:     file format elf64-x86-64\n\nDisassembly of section .text:\n"
                                    + fill(b"0000 <a>:\n0000 <a@plt>:\n0000 <.a>:\n"),
    "objdump sections": b"\nx:     file format elf64-x86-64\n" + fill(b"\nDisassembly of section .a:\n"),
    # Java stack traces (shape_log, branch javalog1): one-frame traces, every other line an exception's; a trace's
    # lines under java.util.logging's records
    "Java traces of one frame": fill(b"x\n\tat a(\n"),
    "Java causes of one frame under SEVERE records": fill(b"Dec 06, 2026 3:11:09 PM A m\nSEVERE: x\nCaused by: y\n"
                                                         b"\tat a(\n"),
    # git blame's and SQL dumps' shapes (hostile37: each space of a line's 200 tried as its author's end, 0.7 s; each
    # table filled but not created compared with a set of every created one made again for it, 0.84 s)
    "git blame lines of 200 spaces after their hash": b"54fb8ee20 (Seed m 2026-12-01 00:30:56 +0000 1) x\n"
                                                      + fill(b"54fb8ee20 (" + b" " * 198 + b"\n"),
    # python -X importtime's lines (shape_importtime, modeltask7): one-letter imports, top-level and nested
    "importtime lines of one-letter imports": b"import time: self [us] | cumulative | imported package\n" + fill(
        b"import time:         1 |          1 |   a\nimport time:         1 |          2 | b\n"),
    "importtime names of 4,000 spaces": b"import time: self [us] | cumulative | imported package\n" + fill(
        b"import time: 1 | 1 | " + b" " * 4000 + b"\n"),
    # strace's calls (shape_strace, stracecost1: each line's 3-tuple of findall taken apart in Python, 12 plain
    # texts' describe for 65,536 calls; 10 for 30,000 processes' ids), failed calls and interrupted ones
    "strace calls of no arguments": fill(b"a() = 0\n"),
    "strace calls of 30,000 processes": b"".join(b"%d  a() = 0\n" % (10_000 + i) for i in range(30_000))
                                        + fill(b"1  a() = 0\n", SIZE - 450_000),
    "strace calls of 26,000 processes on standard error": b"".join(b"[pid %d] a() = 0\n" % (10_000 + i)
                                                                for i in range(26_000)),
    "strace calls failed": fill(b"a() = -1 ENOENT (x)\n"),
    "strace calls timed and interrupted": fill(b"1 0.1 a(<unfinished ...>\n1 0.1 <... a resumed>) = 0\n"),
    "an SQL dump of 5,000 tables created and 5,000 others filled": b"BEGIN TRANSACTION;\n" + b"".join(
        b"CREATE TABLE t%d(a);\n" % i for i in range(5000)) + b"".join(b"INSERT INTO u%d VALUES(1);\n" % i
                                                                       for i in range(5000)),
}


def cpu(data: bytes) -> float:
    """The least CPU time of this thread over 3 descriptions of ``data`` (one over 2 s is enough to tell): the
    thread's, not the process's, which counts the threads an earlier test of this worker left running (a store's
    sweeper, frame threads) -- the clean-clone CI of 10:40 UTC failed a git log bound so, passing alone. A bound of
    this CPU time as a ratio to plain text's, both measured by the test, is not marked ``alone`` (tests/alone.py): a
    test on the other worker runs on the other core and leaves this thread's CPU time as it is, where a wall-clock
    bound counts the time the thread waited for a core."""
    return best_cpu(lambda: describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))), most=2.0)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_sample_of_short_lines_of_a_kind_costs_a_few_plain_texts(name):
    """At most 10 times the description of 512 KiB of real text (grep output: about 2 ms): 20 ms, the bound of a
    spill's shape; before, 56 s for fenced blocks between headings, 0.1 to 0.7 s for the others."""
    plain = (FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes()[:SIZE]
    assert cpu(HOSTILE[name]) < 10 * cpu(plain) + 0.005


_SCOPE_RE = re.compile(r" \(in the first [\d.]+ [KM]i?B of [\d.]+ [KM]i?B\)")
_UNITS = [b"# t\n\ntext\n\n", b"## s\n\n```\n# c\n```\n\n", b"---\nkind: Pod\nmetadata:\n  name: p\n",
          b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n", b"\n\n./d:\nf\ng\n",
          b"./a/b\n", b"- a: 1\n  b: 2\n", b"Setext\n======\n\n", b"x\n"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_UNITS), min_size=1, max_size=4), st.integers(1, 3))
def test_a_sample_of_more_lines_is_told_from_its_first_ones_and_says_how_much(units, spread):
    """A text of more than MOST_LINES lines is described as its first MOST_LINES lines are alone (the same kind,
    parts, lines and counts: each line named is a line of that part), the shape naming how much of the content
    that is in place of nothing."""
    unit = b"".join(units * spread)
    data = (unit * (3 * MOST_LINES // max(1, unit.count(b"\n")) + 1))
    first = within_lines(data, None, True, "")[0]
    assert first.count(b"\n") == MOST_LINES and data.startswith(first)
    lines = data.count(b"\n")
    whole = describe(data, len(data), lines).text
    alone = describe(first, len(first), lines).text
    said = _SCOPE_RE.findall(whole)
    if said:  # (a kind told by its lines: text that is none of them reads the whole sample, as before)
        assert said[-1] == f" (in the first {kib(len(first))} of {kib(len(data))})", said
        whole, alone = _SCOPE_RE.sub("", whole), _SCOPE_RE.sub("", alone)
        listed = whole.split(", … ")[0]  # (the scope takes room: fewer parts may be listed)
        assert alone.startswith(listed) and listed.count(": ") >= 1, (whole, alone)
    else:
        assert not whole.startswith(("unified diff", "YAML", "Markdown", "ls -R", "paths")), whole


@pytest.mark.parametrize("layout", ["* commit {}9abcdef\n| Author: a\n|\n|     s\n", "* {} s\n| @@ -1 +1 @@\n"])
def test_a_graph_log_of_more_lines_is_told_from_its_first_ones_and_says_how_much(layout):
    """A ``git log --graph`` has its graph taken off each line in Python: of more than MOST_LINES lines, its commits
    are counted in the first MOST_LINES (before, in all 512 KiB: 23 ms over one hunk of 35,000 lines, above the
    20 ms bound of a spill's shape), and its shape says so."""
    data = "".join(layout.format(hashlib.sha1(b"%d" % i).hexdigest()[:7]) for i in range(SIZE // 20)).encode()
    first = within_lines(data, None, True, "")[0]
    shape = describe(data, len(data), data.count(b"\n")).text
    commits = first.count(b"* ")
    said = f" {commits:,} commits (in the first {kib(len(first))} of {kib(len(data))})"
    assert shape.startswith("git log") and said in shape, shape


_RECORD_LINES = st.lists(st.sampled_from(["{}", '{"a": 1}', "[1]", "", " ", "\t", "\r", "\x0b", "\x0c", "{}\x0b",
                                          " {} ", "x", '{"b": "\u00e9"}']), max_size=40)


@settings(max_examples=300, deadline=None)
@given(_RECORD_LINES, st.booleans())
def test_json_lines_are_counted_as_the_lines_a_record_read_numbers(rows, ended):
    """The records of JSON lines are the lines not blank (RECORD_BLANKS), the last one whole: counted at C speed
    as a split and a strip count them."""
    text = "\n".join(['{"a": 1}', '{"a": 2}', *rows]) + ("\n" if ended else "")
    data = text.encode()
    shape = describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text
    if not shape.startswith("JSON lines"):
        return
    records = [line for line in text.split("\n") if line.strip(" \t\n\r\x0b\x0c")]
    last = records[-1]
    try:
        json.loads(last)
        fault = False
    except ValueError:
        fault = True
    assert re.match(rf"JSON lines, {len(records) - fault:,} records?[,;]", shape), (shape, records)
    assert ("the last line" in shape) == fault, shape
