"""Every ``next:`` command the command line prints reads on exactly when pasted into ``/bin/sh`` -- ``dash`` on
Debian and Ubuntu, which reads no ANSI-C ``$'...'``: a needle with a newline (``--match $'end\\nline'``) was
written so, and pasted into sh searched for ``$end\\x0aline``, silently no match; a root with a newline or a byte
that is not UTF-8 named no store. And a command over 2,000 characters (a 2,900-character pattern) was cut in its
middle, `` … (N characters left out) … `` inside its quotes: pasted, its next page searched another pattern."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

import scratchfs
from scratchfs.cli.shell import shell_command

CHECKOUT = Path(scratchfs.__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "scratchfs"]


def _pages(first: list, run: dict) -> list[dict]:
    """The JSON reply of ``first``, then of every ``next:`` command it prints, pasted into /bin/sh as it is."""
    done = subprocess.run(first, **run)
    pages = []
    while True:
        assert done.returncode == 0, done.stderr
        pages.append(json.loads(done.stdout))
        err = done.stderr.decode("utf-8")
        assert err.count("\n") <= 1, err  # (one line)
        if "next: " not in err:
            return pages
        done = subprocess.run(["/bin/sh", "-c", err.split("next: ", 1)[1].strip()], **run)
        assert len(pages) < 20


def _offsets(pages: list[dict]) -> list[int]:
    """The match offsets of the pages' windows (a window of one match names it by ``match_offset`` or its own)."""
    return [m["offset"] for page in pages for w in page["windows"]
            for m in w.get("matches", [{"offset": w.get("match_offset", w["offset"])}])]


def test_a_needle_root_and_scope_of_any_bytes_read_on_pasted_into_sh(tmp_path):
    root = os.fsencode(tmp_path) + b"/st \n\xff 'q' \"$(touch pwned)\" `touch pwned`\n"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path)}
    run = {"env": env, "cwd": tmp_path, "capture_output": True, "timeout": 120}
    scope = ["--root", root, "--run", "r'$(touch pwned)`x`", "--agent", "a\"b c%s\\"]
    # 20 lines, a third of a needle's matches a page: each reads on over 3 pages, 2 of them pasted, the second pasted
    # from what the first printed (40 lines, 3 a page: 46 commands, 58 s of the suite's time on 2 loaded cores; 4 a
    # page: 18 commands, 9 s of CPU)
    data = b"".join(b"line %d it's $(x) `y` %%s \\ end\n" % i for i in range(20))
    spilled = subprocess.run([*COMMAND, "spill", "-", *scope], input=data, check=True, **run)
    handle = json.loads(spilled.stdout)["handle"]
    for needle in (b" end\nline 1", b"end\n", b"\\ end\n", b"%s \\"):
        most = -(-data.count(needle) // 3)
        pages = _pages([*COMMAND, "read-handle", handle, "--match", needle, "--max-matches", str(most), "--context",
                        "0", *scope], run)
        assert _offsets(pages) == [m.start() for m in re.finditer(re.escape(needle), data)], needle
        assert {page["match"].encode() for page in pages} == {needle}
        assert len(pages) >= 3, (needle, len(pages))
    assert not (tmp_path / "pwned").exists()


def test_a_long_pattern_s_next_command_is_printed_whole(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path)}
    run = {"env": env, "cwd": tmp_path, "capture_output": True, "timeout": 120}
    scope = ["--root", str(tmp_path / "st"), "--run", "r", "--agent", "a"]
    data = b"".join(b"line %d\n" % i for i in range(30))
    spilled = subprocess.run([*COMMAND, "spill", "-", *scope], input=data, check=True, **run)
    handle = json.loads(spilled.stdout)["handle"]
    pattern = "(?:line|" + "|".join(f"zz{i}" for i in range(500)) + ")"
    pages = _pages([*COMMAND, "read-handle", handle, "--pattern", pattern, "--max-matches", "10", "--context", "0",
                    *scope], run)
    assert {page["pattern"] for page in pages} == {pattern} and len(pages) == 3
    assert _offsets(pages) == [
        m.start() for m in re.finditer(rb"line", data)]


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.binary(min_size=1, max_size=12).filter(lambda w: b"\0" not in w), min_size=1, max_size=4))
def test_every_word_of_a_printed_command_reaches_sh_s_program_as_its_bytes(words):
    """Any words (quotes, $(), backquotes, %, backslashes, newlines -- a last one too --, bytes not UTF-8): the
    command pasted into /bin/sh gives its program exactly those bytes."""
    with patch("scratchfs.cli.shell.program", lambda: "printf '%s\\0'"):
        command = shell_command([os.fsdecode(word) for word in words], True)
    assert "\n" not in command
    done = subprocess.run(["/bin/sh", "-c", command], capture_output=True, timeout=30, check=True)
    assert done.stdout.split(b"\0")[:-1] == words
