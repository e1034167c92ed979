"""The shape of a compiler's or linter's diagnostics (``cargo build``, ``rustc``, ``ruff check``, ``gcc``, ``clang``,
``mypy``), for :mod:`scratchfs.api.shape`: how many errors and warnings, and each error with where it points and the
line of the output it starts at, so that a model goes to the first error's message and code frame with one line read
(``line=N``) instead of paging through warnings. Such text stays content type ``text``; its shape starts with
:data:`DIAGNOSTICS_SHAPE`.

Two layouts, as the tools write them:

- **blocks** (rustc's human-readable diagnostics, which ruff's ``full`` output format follows): a header
  ``error[E0308]: mismatched types`` (ruff: ``F401 [*] `os` imported but unused``) and on the next line ``--> path:
  line:column``, then the code frame; a header that starts with ``warning`` is a warning, one that starts with
  ``note`` or ``help`` a part of the diagnostic before it, any other (an error, a lint's code) an error;
- **GNU lines** (the GNU Coding Standards' "Formatting Error Messages": gcc, clang, mypy): ``path:line:column:
  error: message``, with ``warning``, ``note`` and ``fatal error`` as severities; gcc's ``In file included from``,
  ``In function`` and ``At top level:`` lines before them. A lint's code in the severity's place (``ruff check
  --output-format concise``, flake8: ``path:1:8: F401 [*] ...``; pylint: ``path:1:0: C0114: ...``) is an error, as
  in blocks. rustc's short format (``cargo build --message-format short``) writes its code after the severity:
  ``src/lib.rs:1:38: error[E0308]: mismatched types: ...`` (told as grep output before; helper devout1).
- **GitHub workflow commands** (``ruff check --output-format github``, ``golangci-lint --out-format github-actions``,
  Biome's ``--reporter github``: the annotations a CI job prints): ``::error file=path,line=1,col=8::message``, with
  ``warning`` and ``notice`` as severities; their comma-separated fields were read as a CSV table of 6 columns (helper
  devout1).

Told only when the output's first line is such a diagnostic, a build tool's progress line (``Compiling``,
``Checking``, any of cargo's status verbs right-aligned to column 12) or gcc's ``In file included from``, ``In
function`` or ``At top level:`` line (a match at the start), or, when one of its first 8 lines within the first 8 KiB
is a compiler's command as ``make`` echoes it (``gcc ...``, ``make[1]: ...``, CMake's ``[ 50%] ...``; after ``mkdir
-p build``, say), one of the next of those lines starts a GNU diagnostic (a match at each of their newlines; nothing
is scanned otherwise),
and at least one diagnostic is found.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from operator import itemgetter

from scratchfs.api.shape_parts import Parts, cargo_status, numbered
from scratchfs.api.shape_words import counts_said, listed_within, plural, short_name
from scratchfs.foundation.text import bitmap_classes

__all__ = ["DIAGNOSTICS_SHAPE", "diagnostics_shape"]

DIAGNOSTICS_SHAPE = "diagnostics"
"""How the shape of a compiler's or linter's diagnostics starts."""

_CODE = rb"(?:\[[\w:-]{1,60}\])?"  # (rustc's short format: error[E0308], warning[clippy::x])
_FIRST_RE = re.compile(rb" {0,16}(?:Compiling|Checking|Building|error|warning)\b|[A-Z]{1,4}\d{2,4} |"
                       rb"::(?:error|warning|notice)[ :]|"  # (GitHub's workflow commands)
                       rb"In file included from |"  # (gcc's and clang's, when the first diagnostic is in a header)
                       rb"[^\s:][^:\r\n]{0,200}:(?:(?:\d+:){1,2} (?:fatal error|error|warning|note)" + _CODE + rb": |"
                       rb"\d+:\d+: [A-Z]{1,4}\d{2,4}:? |"  # (ruff's concise, flake8, pylint)
                       rb" (?:In (?:function|member function|constructor|destructor|instantiation)|At top level:))")
"""How a diagnostics' first line starts (a match at the start, for whether one does: its span is not read). A place's
three forms share its path, read once (``[^:\r\n]{0,200}`` three times cost 0.6 us, once 0.3, on 4 KiB of text)."""
_FIRST_BYTES = 512
_LATER_RE = re.compile(rb"\n(?:In file included from |"  # (a diagnostic's start after make's command lines)
                       rb"[^\s:][^:\r\n]{0,200}:\d+:\d+: (?:fatal error|error|warning): |"
                       rb"[^\s:][^:\r\n]{0,200}: In (?:function|member function|constructor|destructor) )")
_COMMAND_RE = re.compile(bitmap_classes(
    rb"(?:make(?:\[\d{1,4}\])?: |\[ {0,2}\d{1,3}%\] |(?:[^\s/]{0,200}/){0,16}(?:[\w.-]{1,40}-)?"
    rb"(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|cpp|ld|ar|as|nvcc|icc|icpx|mpicc)(?:-\d{1,3})? )"))
"""How a build's first line starts when it is a command ``make`` echoes (``gcc -Wall -c m.c``, ``/usr/bin/cc ...``,
``x86_64-linux-gnu-gcc-12 ...``), its ``make[1]: Entering directory`` or CMake's ``[ 50%] Building C object``: the
mark that the next lines are looked at (a match at the start)."""
_NAMES = rb"(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|cpp|ld|ar|as|nvcc|icc|icpx|mpicc)"  # (_COMMAND_RE's, its order)
_NAME_ENDS = (rb"(?<=[c+gpdrsx\d])(?= )(?:(?<=[/-](?:cc|ld|ar|as))|(?<=[/-](?:gcc|g\+\+|c\+\+|cpp|icc))|"
              rb"(?<=[/-](?:nvcc|icpx))|(?<=[/-](?:clang|mpicc))|(?<=[/-]clang\+\+)|"
              rb"(?<=[c+gpdrsx]-\d)|(?<=[c+gpdrsx]-\d\d)|(?<=[c+gpdrsx]-\d\d\d))")
_COMMAND_LINE_RE = re.compile(rb"(?:(?=([^\n]*))\1\n){0,7}?(?:make(?:\[\d{1,4}\])?: |\[ {0,2}\d{1,3}%\] |" + _NAMES
                              + rb"(?:-\d{1,3})? |(?=(\S*))\2" + _NAME_ENDS + rb" )")
"""Whether one of a sample's first 8 lines may start as :data:`_COMMAND_RE` matches (a match at the start, within
:data:`_PREAMBLE_BYTES`): a necessary condition of it, in one C call. A line's run and the first word's are taken
whole by a lookahead and its backreference, the atomic group of Python 3.10's ``re`` (which has no possessive
quantifier; a plain ``[^\\n]*`` backtracking to fail costs 5.1 against 2.1 us on 4 KiB slices). A compiler's
command's first word (``/usr/bin/x86_64-linux-gnu-gcc-12``: all of ``_COMMAND_RE``'s path, prefix, name and version,
none of them a space) is the line's first run of bytes that are no space, a space after it; it is a name alone, or it
ends with a name after ``/`` or ``-``, or with a name's last byte, ``-`` and a version's digits."""
_PREAMBLE_LINES = 8  # lines a build tool writes before the first diagnostic (make's commands) that are looked past
_PREAMBLE_BYTES = 8192  # (a compiler's command line runs long: its flags)
_BLOCK_RE = re.compile(bitmap_classes(rb"\n([^\s][^\r\n]{0,300})\r?\n *--> ([^\r\n]{1,300})"))
_NOT_ERRORS = (b"warning", b"note", b"help")  # (a block's note or help is a part of the error before it)
_GITHUB_RE = re.compile(rb"\n::(error|warning|notice)(?: ([^\r\n]*?))?::([^\r\n]*)")  # (its fields, its message)
_FIELD_RE = re.compile(rb"(?:^|,)(file|line|col)=([^,]*)")
_PLACE_RE = re.compile(rb"[^\s:][^:\r\n]{0,200}:\d+(?::\d+)?: ")  # (ruff's message repeats the place: left out)
_GNU_FILE = rb"[^\s:][^:\r\n]{0,200}"
_GNU_PLACE, _GNU_SEVERITY = (_GNU_FILE + rb":\d+(?::\d+)?",
                              rb"(?:fatal error|error|warning|note)" + _CODE + rb"|[A-Z]{1,4}\d{2,4}")
_GNU_AFTER = rb"(?:(?<=[a-z\]]): |(?<=\d):? )"
_GNU_RE = re.compile(rb"\n(" + _GNU_PLACE + rb"): (" + _GNU_SEVERITY + rb")" + _GNU_AFTER + rb"([^\r\n]*)")
"""A GNU diagnostic's place, severity (rustc's short format: with its code, ``error[E0308]``) or a lint's code (an
error), and message."""
_CLOCK_RE = re.compile(rb"(?:^|\s|\dT)\d{1,2}:\d\d:\d\d$")
"""A GNU place that is a clock's time (``2026-12-07 19:00:37``, ``2026-12-07T19:00:37``, ``19:00:37``): a log's
``2026-12-07 19:00:37: error: job 97 failed`` lines were told as diagnostics, their hours as files (helper
hostile49)."""
_TALLY_FROM = 50  # (kept diagnostics from which their codes and files are counted: fewer are read in a page)
_TALLY_CODES, _TALLY_FILES = 5, 2
_TALLY_MOST = 2000  # (blocks or annotations counted one at a time: 47,662 took 90 ms of Python, 5,000 took
# 512 KiB of GitHub annotations with a place to 9.7 times plain text's describe, 2,000 to ~7)
_SEVERITY_CODE_RE = re.compile(rb"(\[[\w:-]{1,60}\])$")  # (rustc's error[E0308])
_LINT_RE = re.compile(rb"([A-Z]{1,4}\d{2,4})\b")  # (ruff's F401, pylint's C0114)
_TRAILING_CODE_RE = re.compile(rb"  (\[[a-z][\w-]{0,60}\])\s*$")  # (mypy's error code, two spaces before it)
_GNU_TALLY_RE = re.compile(rb"\n(" + _GNU_FILE + rb"):\d+(?::\d+)?: (" + _GNU_SEVERITY
                           + rb")" + _GNU_AFTER
                           + rb"(?:[^\r\n]*  \[([a-z][\w-]{0,60})\][ \t]*(?=\r?\n|\Z)|[^\r\n]*)")
"""A GNU diagnostic's file, severity and trailing code (mypy's ``  [attr-defined]``), if any."""
_FILE_RE = re.compile(rb"(?::\d+){1,2}$")  # (a place's line and column)
_SEVERITY_OF = {  # (the same lines, the severity their one group: findall counts them at C speed, no tuple a line)
    _GITHUB_RE: re.compile(rb"\n::(error|warning|notice)(?=(?: [^\r\n]*?)?::)"),
}


def diagnostics_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is a compiler's or linter's diagnostics,
    else ``None``: ``"diagnostics, 51 lines: 4 errors, 0 warnings: error[E0425]: cannot find value `z` in this scope
    at src/main.rs:6:20 (line 2), …; line=N reads from one"``.
    ``size`` (the content's bytes) is unused: the other kinds take it. Never raises."""
    marked = _FIRST_RE.match(sample, 0, _FIRST_BYTES) or cargo_status(sample)  # (bounded: 512 KiB of blanks is no
    if not marked and not _after_commands(sample):  # first line)
        return None
    if not complete:
        sample = sample[: sample.rfind(b"\n") + 1]  # whole lines only
    text = b"\n" + sample
    blocks = b"--> " in text and _BLOCK_RE.search(text) is not None
    github = not blocks and b"\n::" in text and _GITHUB_RE.search(text) is not None
    pattern, group = (_BLOCK_RE, 1) if blocks else (_GITHUB_RE, 1) if github else (_GNU_RE, 2)
    if pattern is _GNU_RE and _clocked(text):
        return None
    warning = lambda header: header.startswith(b"warning")  # noqa: E731 (a block's header, a severity: warning[...])
    error = (lambda header: not header.startswith(_NOT_ERRORS)) if blocks else \
        (lambda severity: b"error" in severity or severity[-1:].isdigit())
    gnu = Counter(_GNU_TALLY_RE.findall(text)) if pattern is _GNU_RE else None  # (file, severity, code): one pass
    found = _severities(pattern, text, group, gnu)  # (each distinct severity
    errors = sum(n for item, n in found.items() if error(item))  # distinct one told once: 52,000 ``::error::``
    warnings = sum(n for item, n in found.items() if warning(item))  # lines made 104,000 calls)
    if not errors and not warnings:
        return None
    note = "notice" if github else "note"
    notes = "" if blocks else f", {plural(found[note.encode()], note)}"
    keep = error if errors else warning
    kept = errors or warnings
    tally, tail = _tally(pattern, text, (blocks, github, gnu), keep, kept) if kept >= _TALLY_FROM else (": ", "")
    head = (f"{DIAGNOSTICS_SHAPE}, {plural(lines, 'line')}{scope}: {plural(errors, 'error')}, "
            f"{plural(warnings, 'warning')}{notes}{tally}")
    shown = Parts(pattern, text, group, keep=keep, counted=errors or warnings)
    items = (f"{_told(pattern.match(text, offset), blocks, github)} (line {line:,})"
             for line, offset in numbered(text, ((offset, offset) for offset, _ in shown)))
    return listed_within(head, items, f"; line=N reads from one{tail}", len(shown))


def _clocked(text: bytes) -> bool:
    """Whether the first GNU line of ``text`` has a clock's time for its place (:data:`_CLOCK_RE`): a log's."""
    first = _GNU_RE.search(text)
    return first is not None and _CLOCK_RE.search(first[1]) is not None


def _severities(pattern: re.Pattern[bytes], text: bytes, group: int, gnu: Counter[tuple[bytes, ...]] | None
                ) -> Counter[bytes]:
    """How many diagnostics of each severity ``text`` holds: from ``gnu`` (GNU lines' distinct ``(file, severity,
    code)`` counted by :data:`_GNU_TALLY_RE`, the pass the tally reads too: a second pass over 512 KiB of
    ``a:1: error:`` lines took the describe past 13 times plain text's), else one pass of the severity alone, in C."""
    if gnu is not None:
        found: Counter[bytes] = Counter()
        for (_, severity, _), n in gnu.items():
            found[severity] += n
        return found
    counting = _SEVERITY_OF.get(pattern)
    return Counter(counting.findall(text) if counting else map(itemgetter(group - 1), pattern.findall(text)))


def _tally(pattern: re.Pattern[bytes], text: bytes, kinds: tuple[bool, bool, Counter[tuple[bytes, ...]] | None],
           keep: Callable[[bytes], bool], kept: int) -> tuple[str, str]:
    """What many diagnostics are, told before the first of them: ``(" in 98 files; codes: [no-untyped-def] 1,119,
    [no-untyped-call] 1,096, … 20 more; most in jsonpath_ng/_ply/yacc.py (392), …; first: ", ", match=\"CODE\",
    context=\"line\" finds a code's")`` (the shape's words after its counts, and after its read) -- the counts of the
    kept ones (errors, else warnings) by their code as written (:func:`_code_of`) and by file, each most first; a part
    with one value (or none) left out, ``(": ", "")`` when both are. ``kept``: how many there are; when fewer were
    counted (:func:`_counted`), the words say so (``"; the first 5,000 in 98 files; codes: ..."``). 3,506 errors of
    ``mypy --strict`` were listed as their first 4, all ``no-untyped-def``, so that a model asking which kinds of error
    there were paged or guessed codes to count (helper modeltask11)."""
    codes, files, counted = _counted(pattern, text, kinds, keep)
    codes.pop(b"", None)
    files.pop(b"", None)
    first = f"; the first {counted:,}" if counted < kept else ""
    told = [f"{first} in {plural(len(files), 'file')}" if len(files) > 1 else first]
    if len(codes) > 1:
        told.append("codes: " + counts_said(codes, _TALLY_CODES, 40))
    if len(files) > 1:
        told.append("most in " + ", ".join(f"{short_name(name.decode('utf-8', 'replace'), 48)} ({n:,})"
                                         for name, n in files.most_common(_TALLY_FILES)))
    if len(told) == 1 and len(files) < 2:
        return ": ", ""
    return "; ".join(told) + "; first: ", ', match="CODE", context="line" finds a code\'s' if len(codes) > 1 else ""


def _counted(pattern: re.Pattern[bytes], text: bytes, kinds: tuple[bool, bool, Counter[tuple[bytes, ...]] | None],
             keep: Callable[[bytes], bool]) -> tuple[Counter[bytes], Counter[bytes], int]:
    """The kept diagnostics' counts by code and by file, and how many were counted. ``kinds``: ``(blocks, github,
    gnu)``, ``gnu`` GNU lines' distinct ``(file, severity, trailing code)`` already counted in C
    (:data:`_GNU_TALLY_RE`: 27,594 lines in 20 ms, where a match at a time took 60), all of them counted; blocks and
    GitHub annotations one match at a time, the first :data:`_TALLY_MOST`."""
    codes: Counter[bytes] = Counter()
    files: Counter[bytes] = Counter()
    counted = 0
    blocks, _, gnu = kinds
    if gnu is not None:
        for (where, severity, trailing), n in gnu.items():
            if keep(severity):
                codes[_code_of(severity, trailing and b"  [" + trailing + b"]")] += n
                files[where] += n
                counted += n
        return codes, files, counted
    for match in pattern.finditer(text):
        found = match.groups()
        if blocks:
            header, where = found
            severity, _, message = header.partition(b": ")
        else:
            severity, fields, message = found
            place = _PLACE_RE.match(message)
            where = dict(_FIELD_RE.findall(fields or b"")).get(b"file", place[0] if place else b"")
            message = message[place.end() :] if place else message
        if keep(severity):
            codes[_code_of(severity, message)] += 1
            files[_FILE_RE.sub(b"", where.strip())] += 1
            counted += 1
            if counted == _TALLY_MOST:
                break
    return codes, files, counted


def _code_of(severity: bytes, message: bytes) -> bytes:
    """A diagnostic's code as the output writes it, so that a search for it finds its lines and no other's: rustc's
    ``error[E0308]``'s ``[E0308]``, a lint's code in the severity's place (``F401``), mypy's trailing
    ``[attr-defined]`` (``attr-defined`` alone, or ``misc``, is also found in paths and messages), a lint's code that
    starts the message (ruff's full and GitHub formats), else ``b""``."""
    found = _SEVERITY_CODE_RE.search(severity) or _LINT_RE.match(severity) or _TRAILING_CODE_RE.search(message) \
        or _LINT_RE.match(message)
    return found[1] if found else b""



def _after_commands(sample: bytes) -> bool:
    """Whether one of the first :data:`_PREAMBLE_LINES` lines of ``sample`` (within :data:`_PREAMBLE_BYTES`) is a
    build's command (:data:`_COMMAND_RE`) and one of those after it starts a GNU diagnostic, as ``make`` writes each
    command before what the compiler says -- after the commands of a rule that makes no object first (``mkdir -p
    build``, ``echo``): a match at each line's start."""
    if _COMMAND_LINE_RE.match(sample, 0, _PREAMBLE_BYTES) is None:  # (none of the lines is a command: 2 us, where
        return False  # a match of _COMMAND_RE at each line's start took 10 on 4 KiB of grep output)
    commanded = _COMMAND_RE.match(sample) is not None
    at = sample.find(b"\n", 0, _PREAMBLE_BYTES)
    for _ in range(_PREAMBLE_LINES):
        if at < 0:
            return False
        if commanded and _LATER_RE.match(sample, at, at + _FIRST_BYTES):
            return True
        commanded = commanded or _COMMAND_RE.match(sample, at + 1, _PREAMBLE_BYTES) is not None
        at = sample.find(b"\n", at + 1, _PREAMBLE_BYTES)
    return False


def _told(found: re.Match[bytes] | None, blocks: bool, github: bool = False) -> str:
    """One diagnostic as ``"<header> at <where>"`` (a GitHub annotation's where: its ``file:line:col``, if given)."""
    if found is None:
        return ""
    if blocks:
        header, where = found[1], found[2]
    elif github:
        message = found[3].split(b"%0A", 1)[0]  # (its first line: %0A is its newline)
        place = _PLACE_RE.match(message)
        header = found[1] + b": " + (message[place.end() :] if place else message)
        fields = dict(_FIELD_RE.findall(found[2] or b""))  # (in any order: a command's properties are a map)
        where = b":".join(_unescaped(fields[key]) for key in (b"file", b"line", b"col") if key in fields)
        if not where:  # (an annotation without a file)
            return short_name(header.decode("utf-8", "replace").strip(), 72)
    else:
        header, where = found[2] + (b" " if found[2][-1:].isdigit() else b": ") + found[3], found[1]
    return (f"{short_name(header.decode('utf-8', 'replace').strip(), 72)} at "
            f"{short_name(where.decode('utf-8', 'replace').strip(), 48)}")


def _unescaped(value: bytes) -> bytes:
    """A workflow command's property value as it was before its escapes (``%2C`` a comma, ``%3A`` a colon, ``%25`` a
    percent sign, read last; a line end's ``%0A`` kept: a shape is one line)."""
    for escape, byte in ((b"%2C", b","), (b"%3A", b":"), (b"%25", b"%")):
        value = value.replace(escape, byte)
    return value
