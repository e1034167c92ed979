"""The shape of ``strace`` output (``strace -f -o FILE cmd``, ``strace cmd 2> FILE``), for :mod:`scratchfs.api.shape`:
its system calls counted, the failed ones by their error (``ENOENT``, ``EACCES``, ...) and the calls made most, with
the search that finds one error's calls -- ``strace -f python3 -c "import json, email.parser, urllib.request"``, 886
KiB, was ``text, 10,260 lines``, so that "which calls failed, and with what" took a count of each error the model
guessed, or a page of all 1,402 failures (helper modeltask11). Such text stays content type ``text``; its shape
starts with :data:`STRACE_SHAPE`.

The layout (strace(1)): a line a call, ``name(arguments) = result``, a failure's result ``-1 ENOENT (No such file or
directory)``; with ``-f`` each line after its process's id (``8263  `` in a file of ``-o``, ``[pid  8264] `` for the
children on standard error), with ``-t``/``-tt``/``-r`` after a time (``-r``'s right-aligned after blanks); a call
another process interrupts split in two lines, ``read(3, <unfinished ...>`` and ``<... read resumed>...) = 832``; a
signal ``--- SIGCHLD {...} ---``; an exit ``+++ exited with 0 +++``. Told only when the first line is a call (a match at
its start) and nine in ten of the first :data:`~scratchfs.api.shape_words.MOST_LINES` lines are such lines; counted over
the whole sample (``findall`` each, in C)."""

from __future__ import annotations

import re
from collections import Counter

from scratchfs.api.shape_words import counts_said, plural, within_lines

__all__ = ["STRACE_SHAPE", "strace_shape"]

STRACE_SHAPE = "strace output"
"""How the shape of ``strace`` output starts."""

_PID_BRACKETED, _PID_BARE = rb"\[pid {1,7}(\d{1,10})\] ", rb"(\d{1,10}) {1,8}"  # (on standard error; of -o FILE)
_TIME = rb"(?: {0,10}\d{1,10}(?:[:.]\d{1,10}){1,3} {1,8})?"
# (-r's time right-aligned, after blanks: "     0.000210 mmap(", "[pid  6293]      0.000039 execve(": helper hostile49)
_PREFIX = rb"(?:" + _PID_BRACKETED + rb"|" + _PID_BARE + rb")?" + _TIME
# (a call with its result, or its first half: a line a call of other text has neither)
_CALL = rb"[a-z_][a-z0-9_]{0,39}\([^\n]*(?:\) {1,40}= |<unfinished \.\.\.>)"
_FIRST_RE = re.compile(_PREFIX + _CALL)
_LINE_RE = re.compile(rb"\n" + _PREFIX + rb"(?:" + _CALL + rb"|<\.\.\. [a-z_0-9]{1,40} resumed>|--- |\+\+\+ )")
_NAME = rb"[a-z_][a-z0-9_]{0,39}\("
_NAMES_RE = re.compile(rb"\n" + _PREFIX.replace(rb"(\d", rb"(?:\d") + rb"(" + _NAME[:-2] + rb")\(")
_PIDS_RES = tuple(re.compile(rb"\n" + pid + _TIME + _NAME) for pid in (_PID_BRACKETED, _PID_BARE))
"""A call's name, and its process's id in each layout: a newline, :data:`_PREFIX` and its name, one group a
pass, so that ``findall`` gives a list of bytes that :class:`~collections.Counter` and :class:`set` take in C (before,
one pass of 3-tuples taken apart line by line in Python: 512 KiB of ``a() = 0`` lines cost 12 plain texts' describe,
above tests/test_text_kinds_cost.py's bound of 10; helper stracecost1)."""
_FAILED_RE = re.compile(rb"\) {1,40}= -1 (E[A-Z0-9]{1,20}) \([^()\n]{1,80}\)(?: \(INJECTED\))?"
                        rb"(?: <\d{1,10}\.\d{1,9}>)?\r?$", re.MULTILINE)
"""A failed call's result, at its line's end (``-T``'s time after it): a ``read`` or ``write`` of text that holds
strace's lines has ``) = -1 ENOENT (...)`` in its quoted arguments too, no failure (helper hostile49)."""
_MOST = 0.9  # of the lines looked at, strace's
_ERRORS, _CALLED = 6, 5
_FIND = '; match=" = -1 ERRNO", context="line" finds the calls that failed with one'


def strace_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is ``strace`` output, else ``None``:
    ``"strace output, 10,260 lines, 41 processes, 9,812 calls, 1,402 failed: ENOENT 1,150, ENOTTY 174, …; most
    made: newfstatat 2,108, openat 1,426, …; match=" = -1 ERRNO", context="line" finds the calls that failed with
    one"``. ``size`` (the content's bytes) is for the gate's bound of lines. Never raises."""
    end = sample.find(b"\n", 0, 8192)
    if b"(" not in sample[:256] or _FIRST_RE.match(sample, 0, len(sample) if end < 0 else end) is None:
        return None
    head, _, _ = within_lines(sample, size, complete, scope)
    rows = head.count(b"\n") + (not head.endswith(b"\n"))
    if len(_LINE_RE.findall(b"\n" + head)) < _MOST * rows:
        return None
    text = b"\n" + sample
    names = Counter(_NAMES_RE.findall(text))
    pids = set().union(*(found.findall(text) for found in _PIDS_RES))
    failed = Counter(_FAILED_RE.findall(text))
    told = [f"{STRACE_SHAPE}, {plural(lines, 'line')}{scope}"]
    if len(pids) > 1:
        told.append(f"{len(pids):,} processes")
    told.append(f"{plural(sum(names.values()), 'call')}, {sum(failed.values()):,} failed"
                + (": " + counts_said(failed, _ERRORS) if failed else ""))
    shape = ", ".join(told) + "; most made: " + counts_said(names, _CALLED)
    return shape + (_FIND if failed else "")

