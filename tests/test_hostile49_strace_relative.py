"""hostile49: ``strace -r``'s output is told by its calls as ``-t``'s is.

``strace -r`` writes each call after its relative time, right-aligned in a field of blanks (``     0.000210
mmap(...)``; with ``-f`` on standard error ``[pid  6293]      0.000039 execve(...)``): such a trace was told ``text,
31 lines``, its leading blanks no prefix the shape read. Real fixture: ``fixtures/tools/strace-f-r-stderr.txt``
(``strace -f -r sh -c '/bin/true; ls /nonexist' 2> FILE``, ls's own error line written into it)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from scratchfs.api.shape import describe
from scratchfs.api.shape_strace import STRACE_SHAPE

_TRACE = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "strace-f-r-stderr.txt"


def test_a_relative_timed_trace_is_told_by_its_calls():
    data = _TRACE.read_bytes()
    lines = data.decode().splitlines()
    calls = Counter(found[1] for line in lines
                    if (found := re.match(r"(?:\[pid +\d+\] )? *\d+\.\d+ ([a-z_][a-z0-9_]*)\(", line)))
    pids = {found[1] for line in lines if (found := re.match(r"\[pid +(\d+)\]", line))}
    failed = Counter(found[1] for line in lines if (found := re.search(r"= -1 (E[A-Z0-9]+) \([^()]*\)$", line)))
    assert sum(calls.values()) > 200 and len(pids) == 3 and sum(failed.values()) == 38
    shape = describe(data, len(data), len(lines)).text
    top = ", ".join(f"{name} {n:,}" for name, n in failed.most_common(2))
    assert shape.startswith(f"{STRACE_SHAPE}, {len(lines)} lines, 3 processes, {sum(calls.values())} calls, 38 "
                            f"failed: {top}")
    assert "most made: " + ", ".join(f"{name} {n}" for name, n in calls.most_common(2)) in shape


def test_a_trace_of_relative_times_alone():
    trace = b'     0.000000 execve("/usr/bin/true", ["true"], 0x7ffe13cd6d38 /* 35 vars */) = 0\n' \
            b'     0.000246 access("/etc/ld.so.preload", R_OK) = -1 ENOENT (No such file or directory)\n' \
            b'     0.000193 exit_group(0)             = ?\n     0.000331 +++ exited with 0 +++\n'
    assert describe(trace, len(trace), 4).text == (f"{STRACE_SHAPE}, 4 lines, 3 calls, 1 failed: ENOENT 1; most made: "
                                                   'execve 1, access 1, exit_group 1; match=" = -1 ERRNO", '
                                                   'context="line" finds the calls that failed with one')
