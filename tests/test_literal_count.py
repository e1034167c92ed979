"""count=true of a substring at C speed (scratchfs.engine.literal_count): the matches and lines it counts are the
plain Python answer -- the occurrences a ``bytes.find`` loop reports, resuming after each, and the lines holding
them -- over contents stored in small frames (every seam between frames crossed by some occurrences), from any
start; a count stopped by its time bound goes on from its next_offset to the same total. A dense needle
(``match="e"``) over tens of MiB is counted whole within the bound (before: one Python step a match, and the count
stopped at the bound)."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.literal_count import counts_fast
from scratchfs.engine.search import LiteralMatcher, count
from tests.seekable_file import seekable_reader

_PIECES = [b"e", b"a", b"b", b"\n", b"ab", b"ba", b"abe", b"xyz", b"\r\n", b"e" * 40]
_NEEDLES = [b"e", b"ab", b"abe", b"ba", b"eab", b"ee", b"aba", b"a\n", b"xyz\r\n"]


def _content(pieces: list[bytes], size: int, shift: int) -> bytes:
    """``size`` bytes: ``shift`` bytes of ``x``, then ``pieces`` repeated (frames of 4 KiB: seams at every
    alignment, crossed by some occurrences)."""
    body = b"".join(pieces)
    return (b"x" * shift + body * (size // len(body) + 1))[:size]


def _python_count(data: bytes, needle: bytes, start: int) -> tuple[int, int]:
    """``(matches, lines holding a match's start)``: a ``bytes.find`` loop from ``start``, resuming after each."""
    starts, at = [], data.find(needle, start)
    while at >= 0:
        starts.append(at)
        at = data.find(needle, at + len(needle))
    return len(starts), len({data.count(b"\n", 0, at) for at in starts})


# (40 examples by default, 150 before: each writes its content in frames; their cases are drawn anew each run;
# SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=60), size=st.integers(9000, 40_000),
       shift=st.integers(0, 4096), needle=st.sampled_from(_NEEDLES), start=st.integers(0, 40_000))
def test_a_count_is_the_plain_python_answer_across_frame_seams(tmp_path, pieces, size, shift, needle, start):
    data = _content(pieces, size, shift)
    start = min(start, len(data) // 3)
    with seekable_reader(tmp_path, data) as (reader, line_of_frame):
        got = count(reader, LiteralMatcher(needle), start, line_of_frame, time.monotonic() + 60)
    assert got == (*_python_count(data, needle, start), None)
    if counts_fast(needle):  # (every occurrence a match: bytes.count's answer too)
        assert got[0] == data.count(needle, start)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=60), size=st.integers(9000, 40_000),
       shift=st.integers(0, 4096), needle=st.sampled_from(_NEEDLES))
def test_a_count_stopped_by_its_bound_goes_on_from_next_offset_to_the_same_total(tmp_path, pieces, size, shift,
                                                                               needle):
    data = _content(pieces, size, shift)
    matches, lines, calls, offset = 0, 0, 0, 0
    with seekable_reader(tmp_path, data) as (reader, line_of_frame):
        while offset is not None:
            found, held, after = count(reader, LiteralMatcher(needle), offset, line_of_frame, 0.0)  # (past at once)
            assert after is None or after > offset
            matches, lines, calls, offset = matches + found, lines + held, calls + 1, after
    total, total_lines = _python_count(data, needle, 0)
    assert matches == total and total_lines <= lines <= total_lines + calls - 1  # (a line split by a stop: twice)


@pytest.mark.parametrize("needle", [b"e", b"abe", b"a\n"])
def test_which_needles_the_fast_count_takes(needle):
    assert counts_fast(needle) is (needle != b"a\n")
    assert not counts_fast(b"ee") and not counts_fast(b"abab") and counts_fast(b"def ")


@pytest.mark.alone
@pytest.mark.scratch_store(pattern_timeout=4.0)
def test_a_dense_match_over_tens_of_mib_is_counted_whole_within_the_bound(scratch_scope, fixture_data):
    text = fixture_data["workspace-grep-stdlib-defs.txt"]
    data = text * (40 * 2**20 // len(text) + 1)
    handle = scratch_scope.spill(data, source_tool="grep").handle
    began = time.monotonic()
    reply = ScratchTools(scratch_scope).read_handle(handle, match="e", count=True)
    assert reply.get("next_offset") is None and reply["matches"] == data.count(b"e"), reply
    assert reply["lines"] == data.count(b"\n") - sum(b"e" not in line for line in data.split(b"\n")[:-1])
    assert time.monotonic() - began < 4.0
