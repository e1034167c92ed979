"""``bound`` -- where a read, a search or a count stops: ``end``, else the content's size -- is one definition
(:class:`scratchfs.api.results.Bounded`), where four result types each wrote it (Slice, LineSlice, Matches,
MatchCount): a change to one would leave the others behind."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scratchfs.api.counting import MatchCount
from scratchfs.api.results import LineSlice, Matches, Slice


def test_every_result_type_takes_bound_from_one_definition():
    definitions = {vars(kind).get("bound") for kind in (Slice, LineSlice, Matches, MatchCount)}
    assert definitions == {None}, definitions  # (none defines its own)
    assert Slice.bound is LineSlice.bound is Matches.bound is MatchCount.bound


@given(size=st.integers(0, 10**12), end=st.none() | st.integers(0, 10**12))
def test_bound_is_end_else_size(size, end):
    sl = Slice("h_" + "a" * 24, 0, b"", size, None, end=end)
    assert sl.bound == (size if end is None else end)
