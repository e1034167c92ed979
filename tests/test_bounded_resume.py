"""A search bounded by ``end=`` goes on from one rule, in one place (:func:`scratchfs.api.results.bounded_resume`),
for the Python API and the model's reply alike: before, ``Scope.search(offset=, end=)`` returned as ``next_offset``
the first match not shown, while the reply resumed up to the context's reach before it (so the next page shows the
context before its first match, which a bounded page cannot show before its ``offset``). Followed, the Python
API's pages give every match of ``re.finditer`` in the bounds once, as the reply's do."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from tests.reference import find_loop

NEEDLE = b"ab"


@example(parts=[b"ab", b"xxxxxxxx", b"xxxxxxxx", b"ab", b"xxxxxxxx", b"ab"], start=0, stop=40, context=4, most=1)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from([b"ab", b"x", b"xxxxxxxx", b"\n", b"aab"]), min_size=1, max_size=60),
       start=st.integers(0, 30), stop=st.integers(0, 40), context=st.integers(0, 12), most=st.integers(1, 4))
def test_the_python_api_resumes_a_bounded_search_as_the_reply_does(scratch_scope, parts, start, stop, context,
                                                                   most):
    data = b"".join(parts)
    start = min(start, len(data) - 1) if data else 0
    end = min(len(data), start + 1 + stop)
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    offset, seen = start, []
    while offset is not None:
        found = scratch_scope.search(handle, NEEDLE, offset=offset, end=end, context=context, max_matches=most)
        reply = tools.call("read_handle", {"handle": handle, "match": "ab", "offset": offset, "end": end,
                                           "context": context, "max_matches": most})
        assert found.next_offset == reply["next_offset"], (found.next_offset, reply)
        assert found.next_call == reply["next_call"]
        seen += [hit.offset for window in found.windows for hit in window.matches]
        assert found.next_offset is None or found.next_offset > offset
        offset = found.next_offset
    assert seen == [s for s, _n in find_loop(data[:end], NEEDLE, start)]


def test_a_bounded_page_starts_before_the_first_match_left(scratch_scope):
    data = b"".join(b"x" * 30 + b"ab" for _ in range(6))  # matches at 30, 62, 94, ...
    handle = scratch_scope.spill(data).handle
    found = scratch_scope.search(handle, NEEDLE, offset=0, end=len(data), context=10, max_matches=1)
    assert [h.offset for w in found.windows for h in w.matches] == [30]
    assert found.next_offset == 52 and found.first_left == 62  # (10 bytes of context before 62, none shown yet)
    on = scratch_scope.search(handle, NEEDLE, offset=found.next_offset, end=len(data), context=10, max_matches=1)
    assert on.windows[0].offset == 52 and on.windows[0].matches[0].offset == 62
