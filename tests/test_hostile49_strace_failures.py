"""hostile49: a trace's failed calls are its calls whose result is a failure, not every `` = -1 ENOENT`` in a line.

``strace -s 4096 cat in.txt`` of a file holding strace lines (a tool that reads or writes a log, a test's output)
prints that text inside its ``read`` and ``write`` calls' quoted arguments. ``shape_strace`` counted each
``) = -1 ENOENT `` anywhere in the sample: 20 failed calls where 14 failed (and ``grep -c`` counts 16 lines). A call's
result ends its line (strace(1): ``= -1 ENOENT (No such file or directory)``, then ``-T``'s ``<0.000012>``); the
count now reads it there."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from scratchfs.api.shape_strace import strace_shape

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def _failures(data: bytes) -> Counter:
    """Each line's own result when it is a failure: its last ``= -1 ERRNO (words)``, at the line's end."""
    found = Counter()
    for line in data.decode().splitlines():
        result = re.search(r"= -1 (E[A-Z0-9]+) \([^()]*\)(?: <[\d.]+>)?$", line)
        if result:
            found[result[1]] += 1
    return found


def test_failures_quoted_in_arguments_are_not_counted():
    data = (_TOOLS / "strace-cat-of-a-trace.txt").read_bytes()
    assert data.count(b") = -1 ENOENT (") > 14  # (the trace's text, read and written, holds more)
    errors = _failures(data)
    assert errors == {"ENOENT": 14}
    shape = strace_shape(data, data.count(b"\n"), True, "")
    assert "14 failed: ENOENT 14;" in shape


def test_a_result_after_its_time_and_an_injected_one_are_counted():
    trace = (b'openat(AT_FDCWD, "a", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000012>\n'
             b'openat(AT_FDCWD, "b", O_RDONLY) = -1 EACCES (Permission denied) (INJECTED)\n'
             b'write(1, "x) = -1 EPERM (y)\\n", 15) = -1 EAGAIN (Resource temporarily unavailable)\n'
             b'<... read resumed>"z) = -1 EIO (w)", 14) = 14\n'
             b'read(3, "a) = -1 EIO (b)"..., 4096) = 4096\n')
    assert "3 failed: ENOENT 1, EACCES 1, EAGAIN 1;" in strace_shape(trace, 5, True, "")
