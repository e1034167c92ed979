"""hostile49: a log whose lines start with a clock's time is no compiler's diagnostics, its hours no files.

A log of ``2026-12-07 00:01:37: error: job 97 failed`` lines (a job runner's, ``ts '%F %T:'``'s) read as GNU
diagnostics of ``path:line:column``: ``diagnostics, 414 lines: 207 errors, 207 warnings, 0 notes in 6 files; most in
2026-12-07 00 (38), 2026-12-07 01 (37)`` -- each hour a file, each minute a line. Text whose first GNU line's place
is a clock's time is no diagnostics now; a compiler's own lines, paths with digits, are told as before."""

from __future__ import annotations

import pytest

from scratchfs.api.shape import describe
from scratchfs.api.shape_diagnostics import DIAGNOSTICS_SHAPE, diagnostics_shape


def _log(stamp: bytes) -> bytes:
    lines = [stamp % (i // 3600, i // 60 % 60, i % 60) + b": %s: job %d\n" % (severity, i)
             for i in range(0, 20000, 97) for severity in (b"error", b"warning")]
    return b"".join(lines)


@pytest.mark.parametrize("stamp", [b"2026-12-07 %02d:%02d:%02d", b"2026-12-07T%02d:%02d:%02d", b"[0.5] %02d:%02d:%02d",
                                   b"%02d:%02d:%02d", b"Building\n%02d:%02d:%02d"])
def test_a_log_of_clock_times_is_no_diagnostics(stamp):
    data = _log(stamp)
    assert diagnostics_shape(data, data.count(b"\n"), True, "") is None
    assert not describe(data, len(data), data.count(b"\n")).text.startswith(DIAGNOSTICS_SHAPE)


def test_diagnostics_of_paths_with_digits_are_told_as_before():
    data = b"".join(b"src/v2/m%d.c:%d:%d: error: bad\n" % (i % 3, i + 10, i % 60) for i in range(60)) + \
        b"lib 2.0/a12.c:12:00: warning: w\n"
    shape = diagnostics_shape(data, 61, True, "")
    assert shape.startswith("diagnostics, 61 lines: 60 errors, 1 warning, 0 notes in 3 files; most in src/v2/m0.c (20)")
