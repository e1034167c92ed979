"""Cheaper gates of shape detection (issue 16's T1, the describecost helpers: describe of a small spill made cheaper
with every answer the same), each against the code it stands for -- a copy of the code before it -- on generated
inputs that reach the gate's edge, and shown taken. One section a helper, named for its branch."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import shape_diagnostics, shape_log
from scratchfs.api.shape_diagnostics import diagnostics_shape

# --- dckinds: the kinds told by lines (shape_kinds' detectors) and the logs -------------------------------------------


def old_after_commands(sample: bytes) -> bool:
    """``shape_diagnostics._after_commands`` before its gate (``git show 3dc382ed:scratchfs/api/shape_diagnostics.py``):
    a match of ``_COMMAND_RE`` at each of the first lines' starts."""
    d = shape_diagnostics
    commanded = d._COMMAND_RE.match(sample) is not None
    at = sample.find(b"\n", 0, d._PREAMBLE_BYTES)
    for _ in range(d._PREAMBLE_LINES):
        if at < 0:
            return False
        if commanded and d._LATER_RE.match(sample, at, at + d._FIRST_BYTES):
            return True
        commanded = commanded or d._COMMAND_RE.match(sample, at + 1, d._PREAMBLE_BYTES) is not None
        at = sample.find(b"\n", at + 1, d._PREAMBLE_BYTES)
    return False


def _command_lines(sample: bytes) -> list[int]:
    """The first 8 lines of ``sample`` (newlines within 8 KiB) that ``_COMMAND_RE`` matches at the start of."""
    d = shape_diagnostics
    starts, at = [0], sample.find(b"\n", 0, d._PREAMBLE_BYTES)
    while at >= 0 and len(starts) < d._PREAMBLE_LINES:
        starts.append(at + 1)
        at = sample.find(b"\n", at + 1, d._PREAMBLE_BYTES)
    return [n for n, start in enumerate(starts) if d._COMMAND_RE.match(sample, start, d._PREAMBLE_BYTES)]


_WORDS = st.sampled_from([b"gcc", b"g++", b"cc", b"c++", b"clang", b"clang++", b"cpp", b"ld", b"ar", b"as", b"nvcc",
                          b"icc", b"icpx", b"mpicc", b"xgcc", b"clan", b"lang", b"ing", b"has", b"pp", b"c", b"+",
                          b"-", b"/", b"/usr/bin/", b"x86_64-linux-gnu-", b"./", b"-12", b"-1", b"-123", b"-1234",
                          b"2024-01-01", b"make", b"make[1]: ", b"make: ", b"[", b"[ 50%] ", b"[100%] ", b"%] ", b" ",
                          b"  ", b"\t", b"\r", b":", b"12", b"x", b"-Wall", b"m.c", b"\n"])
_DIAGNOSTICS = st.sampled_from([b"\nm.c:3:5: error: x", b"\nm.c:3:5: warning: y", b"\nIn file included from a.h:1,",
                                b"\nm.c: In function 'main':", b"\nm.c:3: error: z", b"\n"])
_LINE = st.lists(_WORDS, max_size=8).map(b"".join)


@settings(max_examples=3000, deadline=None)
@example(b"as soon\nas x")  # (prose: a line that starts "as " is one that _COMMAND_RE matches)
@example(b"x\n" * 7 + b"/usr/bin/x86_64-linux-gnu-gcc-12 -c m.c\nm.c:3:5: error: x\n")  # (the 8th line)
@example(b"x\n" * 8 + b"gcc -c m.c\nm.c:3:5: error: x\n")  # (the 9th: no command looked at)
@given(st.lists(st.one_of(_LINE, _DIAGNOSTICS), max_size=14).map(b"\n".join))
def test_dckinds_command_lines_gate_is_necessary(sample):
    """Lines made of compilers' names, their paths, prefixes and versions, make's and CMake's marks, near misses
    (``xgcc``, ``clan``, ``-1234``, a date) and diagnostics: whenever ``_COMMAND_RE`` matches one of the first 8
    lines' starts, the gate (``_COMMAND_LINE_RE``, one match) matches too, and ``_after_commands`` answers as it did
    without the gate."""
    if _command_lines(sample):
        assert shape_diagnostics._COMMAND_LINE_RE.match(sample, 0, shape_diagnostics._PREAMBLE_BYTES)
    assert shape_diagnostics._after_commands(sample) == old_after_commands(sample)


def test_dckinds_grep_output_stops_at_the_gate(monkeypatch):
    """Grep output (``path:12:def f():``, no line a compiler's command) is no build: told so by the gate alone, no
    match of ``_COMMAND_RE`` at a line's start; a build's output still passes it to them and is told."""
    grep = b"".join(b"./lib/m%d.py:%d:def f%d(x):\n" % (n, n, n) for n in range(40))
    build = b"mkdir -p build\n/usr/bin/gcc-12 -Wall -c m.c\nm.c:3:5: error: 'y' undeclared\n"
    calls = []
    real = shape_diagnostics._COMMAND_RE

    class Counted:
        def match(self, *args):
            calls.append(args[1:])
            return real.match(*args)

    monkeypatch.setattr(shape_diagnostics, "_COMMAND_RE", Counted())
    assert diagnostics_shape(grep, 40, True, "") is None
    assert calls == []
    assert diagnostics_shape(build, 3, True, "") == ("diagnostics, 3 lines: 1 error, 0 warnings, 0 notes: error: 'y' "
                                                     "undeclared at m.c:3:5 (line 3); line=N reads from one")
    assert len(calls) == 2


@settings(max_examples=1000, deadline=None)
@example([8191, 100, 200], 8300)  # (the 4th newline the last byte looked at: fewer than 4 ...)
@example([8191, 100, 200, 300], 8300)  # (... or not)
@example([8192, 100, 200, 300], 8300)  # (one past the end looked at: not counted)
@given(st.lists(st.integers(0, 8300), max_size=6), st.integers(8192, 8400))
def test_dckinds_minified_gate_counts_as_the_count_did(newlines, size):
    """Samples of 8 KiB or more with 0 to 6 newlines placed anywhere, about the 8 KiB looked at's end too: the
    ``memchr``-stopped look (``_fewer_newlines``) says what ``count(b"\\n", 0, 8192) <= 3`` said, and the shape is
    the same as before."""
    from scratchfs.api import shape_encoded

    unit = b"var a=function(b){return b+1},c="
    sample = bytearray(unit * (size // len(unit) + 1))[:size]
    for at in newlines:
        sample[min(at, size - 1)] = 10
    sample = bytes(sample)
    assert shape_encoded._fewer_newlines(sample, 8192, 4) == (sample.count(b"\n", 0, 8192) <= 3)
    old = shape_encoded._minified(sample, 9, True, "") if sample.count(b"\n", 0, 8192) <= 3 else None
    assert shape_encoded.encoded_shape(sample, 9, True, "") == old


def old_log_lines(head: bytes) -> int:
    """``shape_log.log_lines`` before (3dc382ed): ``in`` for ``[pod/``, the patterns' indentation a captured group."""
    prefixed = (b"|" in head and b" | " in head) or (b"[" in head and b"[pod/" in head)
    return len((shape_log.LOG_LINE_RE if prefixed else shape_log.PLAIN_LOG_LINE_RE).findall(head))


def old_java_trace_lines(head: bytes) -> int:
    """``shape_log.java_trace_lines`` before (3dc382ed): no look for a tab first."""
    if b"\n\tat " not in head:
        return 0
    return head.count(b"\n\tat ") + head.count(b"\n\t... ") + head.count(b"\nCaused by: ")


_LOG_PIECES = st.sampled_from([
    b"\n", b" ", b"  ", b"\t", b"2026-12-05 00:34:34,123 ", b"[2026-12-05T00:34", b"00:34:34", b"Dec  5 00:34",
    b"Dec 06, 2026 3:11:09 PM ", b"ERROR", b"WARN ", b"INFO", b"INFOx", b"E1205 05:33:56.724479 ",
    b'time="2026-12-05T05:34', b"level=info ", b"lvl=x ", b"web-1  | ", b"web-1 |", b" | ", b"|", b"[pod/api-7/c] ",
    b"[pod/", b"[po", b"[", b"\tat com.x.Y.m(Y.java:1)", b"\t... 3 more", b"Caused by: ", b"at ", b"x", b"12"])


@settings(max_examples=2000, deadline=None)
@example(b"\n  [pod/a/b] 2026-12-05 00:34 x\n  ERROR y\n\tat a.B.c(")
@example(b"\nweb-1  | INFO x\n\t\tat y\n\tat z")
@given(st.lists(_LOG_PIECES, max_size=60).map(lambda pieces: b"\n" + b"".join(pieces)))
def test_dckinds_log_lines_and_java_lines_count_as_before(head):
    """Heads of log lines (timestamps, levels, klog's and logfmt's starts), indented or not, behind docker compose's
    and kubectl's prefixes or near misses of them (`` |`` alone, ``[pod/`` cut), Java frames and tabs elsewhere:
    :func:`log_lines` and :func:`java_trace_lines` count what they counted."""
    assert shape_log.log_lines(head) == old_log_lines(head)
    for public, counted in shape_log._COUNTED_RES.items():  # (the same matches, no group)
        assert counted.groups == 0
        assert [m.span() for m in counted.finditer(head)] == [m.span() for m in public.finditer(head)]
    assert shape_log.java_trace_lines(head) == old_java_trace_lines(head)


def old_v8_gate(sample: bytes) -> bool:
    """``shape_log._v8_traces``' gate before (3dc382ed): ``bytes.find`` of a frame's start in the last 4 KiB."""
    return sample.find(b"\n    at ", max(0, len(sample) - 4096)) >= 0


@settings(max_examples=1000, deadline=None)
@example(4000, 4090, 96)  # (a frame's start on the 4 KiB tail's first byte ...)
@example(4000, 4089, 96)  # (... and one byte before it)
@given(st.integers(0, 6000), st.integers(0, 6000), st.integers(0, 120))
def test_dckinds_v8_gate_finds_what_find_found(before, at, after):
    """An error's line and a V8 frame (``    at f (/a.js:2:3)``) placed anywhere in a text of up to 12 KiB, about the
    edge of the 4 KiB tail looked at: the gate answers as ``bytes.find`` did, and the traces said are the same as
    the old gate's (none when it found none)."""
    filler = b"xyz  at \n" * 700
    sample = filler[:at] + b"\nError: bad\n    at f (/a.js:2:3)\n" + filler[:after] + b"w" * before
    frame = sample[-4096:] if len(sample) > 4096 else sample
    assert (shape_log._V8_HINT_RE.search(sample, max(0, len(sample) - 4096)) is not None) == old_v8_gate(sample)
    told = shape_log._v8_traces(sample)
    assert (told[0] != "") == (b"\n    at f" in frame)
