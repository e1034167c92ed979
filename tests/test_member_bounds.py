"""Every read inside a tar member stays inside it: a walk back from a member's tail (``line=-N``, ``end=`` its end,
following each ``next_call``) went on past the member's first byte, into its header and the members before it --
a line read had no lower bound. ``offset=`` beside a negative ``line`` is that bound (the member's first byte), and
the next_calls of the walk repeat it and end there (given no ``offset=``, a tar's member is the one whose data
holds byte ``end - 1``); forward line reads, range reads and searches from ``offset=`` with ``end=`` stay within
``[offset, end)`` too. Checked against Python's ``tarfile`` on random archives."""

from __future__ import annotations

import io
import tarfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.api.search_window import window_hits
from tests.archives import call_args, tar_of

_LINE = st.text(alphabet="ab é日\t{}", max_size=120)
_MEMBER = st.tuples(st.lists(_LINE, max_size=40), st.sampled_from(["\n", "\r\n"]), st.booleans()).map(
    lambda t: t[1].join(t[0]).encode() + (t[1].encode() if t[2] and t[0] else b""))
_ARCHIVE = st.lists(_MEMBER, min_size=1, max_size=5)


def _members(raw: bytes) -> list[tuple[int, bytes]]:
    """Each member's data offset and bytes, as Python's tarfile reads them."""
    with tarfile.open(fileobj=io.BytesIO(raw)) as archive:
        return [(info.offset_data, archive.extractfile(info).read()) for info in archive.getmembers()]


def _pages(tools: ScratchTools, call: dict | None, start: int, end: int) -> list[dict]:
    """Every reply of ``call`` and of the next_calls it leads to, each checked to show no byte outside
    ``[start, end)`` and each next_call to keep both bounds."""
    pages: list[dict] = []
    while call is not None:
        reply = tools.call("read_handle", call)
        assert start <= reply["offset"] and reply["offset"] + reply["length"] <= end, (call, reply)
        pages.append(reply)
        assert len(pages) < 400
        call = call_args(reply["next_call"]) if reply["next_call"] else None
        if call is not None:
            assert call["end"] <= end and call.get("offset", start) >= start, call
    return pages


def _shown(raw: bytes, pages: list[dict]) -> bytes:
    return b"".join(raw[page["offset"]: page["offset"] + page["length"]] for page in pages)


# (15 examples by default, 40 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=_ARCHIVE, back=st.integers(1, 7), budget=st.sampled_from([2048, 4096, 65536]))
def test_every_read_in_a_member_shows_its_bytes_alone_and_its_chain_ends_at_its_first_and_last_line(
        scratch_scope, files, back, budget):
    raw = tar_of([(f"m{i}.txt", data) for i, data in enumerate(files)])
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    tools = ScratchTools(scratch_scope)
    for start, data in _members(raw):
        end = start + len(data)
        if not data:  # an empty member has no byte to read: a bound at its start is one typed error
            with pytest.raises(InvalidArgument):
                tools.call("read_handle", {"handle": handle, "offset": start, "line": -back, "end": start})
            continue
        backwards = _pages(tools, {"handle": handle, "offset": start, "line": -back, "lines": back, "end": end,
                                   "budget": budget}, start, end)
        assert _shown(raw, backwards[::-1]) == data  # the walk back: the member, from its last line to its first
        assert backwards[0]["offset"] + backwards[0]["length"] == end and backwards[-1]["offset"] == start
        told = _pages(tools, {"handle": handle, "line": -back, "lines": back, "end": end, "budget": budget}, start,
                      end)  # (no offset=: a tar's member is told by the end=, the walk stops at its first byte)
        assert _shown(raw, told[::-1]) == data
        forwards = _pages(tools, {"handle": handle, "offset": start, "lines": back, "end": end, "budget": budget},
                          start, end)
        assert _shown(raw, forwards) == data
        ranges = _pages(tools, {"handle": handle, "offset": start, "length": 7 * back, "end": end,
                                "budget": budget}, start, end)
        assert _shown(raw, ranges) == data
        for context in (3, "line"):  # a search's windows (its context, a whole line) stay in the member too,
            for sought in ({"match": "a"}, {"pattern": r"\n"}, {"match": "b", "before": end}):  # page after page
                call = {"handle": handle, **sought, "offset": start, "end": end, "context": context,
                        "max_matches": 2}
                found = _matches(tools, call, start, end)
                needle = b"a" if "match" in sought and "before" not in sought else b"b" if "match" in sought else b"\n"
                assert sorted(found) == [i + start for i in range(len(data)) if data[i:i + 1] == needle]
                if context == "line":  # (the model's windows of whole lines: {line, data}, no offsets)
                    _model_lines(tools, call, raw, start, end)


def _matches(tools: ScratchTools, call: dict | None, start: int, end: int) -> list[int]:
    """The match offsets of every page of a search and its next_calls, each window checked within
    ``[start, end)`` (its offsets: the web's ``full_windows``, as a cut window's are the model's too)."""
    found: list[int] = []
    while call is not None:
        reply = tools.call("read_handle", call, full_windows=True)
        for window in reply.get("windows", []):
            assert start <= window["offset"] and window["offset"] + window["length"] <= end, (call, window)
            found += [hit["offset"] for hit in window_hits(window)]
        assert len(found) < 2000
        call = call_args(reply["next_call"]) if reply["next_call"] else None
    return found


def test_the_walk_back_of_the_brief_stops_at_the_member_s_first_line(scratch_scope):
    """``line=-2, end=`` b.log's end walked back through b.log's header into a.log (hexdumps of the header):
    with ``offset=`` b.log's first byte, its pages are b.log's lines alone, the last next_call null."""
    a, b = b"".join(b"a line %d\n" % i for i in range(5)), b"".join(b"b line %d\n" % i for i in range(5))
    raw = tar_of([("a.log", a), ("b.log", b)])
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    (_, _), (start, _) = _members(raw)
    end = start + len(b)
    pages = _pages(ScratchTools(scratch_scope), {"handle": handle, "offset": start, "line": -2, "lines": 2,
                                                 "end": end}, start, end)
    assert [page["data"] for page in pages] == ["b line 3\nb line 4\n", "b line 1\nb line 2\n", "b line 0\n"]
    assert pages[0]["next_call"] == f'read_handle(handle="{handle}", offset={start}, line=-2, lines=2, end={end - 18})'
    assert pages[-1]["next_call"] is None


@pytest.mark.parametrize("sep", ["\n", "\r\n"])
@pytest.mark.parametrize("offset", [True, False])
def test_a_walk_back_through_lines_longer_than_the_budget_stops_at_the_member_too(scratch_scope, sep, offset):
    """Lines longer than the budget are shown by their last bytes first, the bytes before them next: that walk
    stops at the member's first byte as well (with offset= or told by end=), and shows every byte once."""
    files = [("a", ("é" * 1500 + "x" * 2500).encode()), ("b", sep.join(["y" * 3000, "é" * 2000, "z"]).encode()),
             ("c", b"")]
    raw = tar_of(files)
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    tools = ScratchTools(scratch_scope)
    for start, data in _members(raw)[:2]:
        end = start + len(data)
        pages = _pages(tools, {"handle": handle, "line": -2, "lines": 2, "end": end, "budget": 2048,
                               **({"offset": start} if offset else {})}, start, end)
        assert len(pages) > 2 and _shown(raw, pages[::-1]) == data


def test_the_member_of_a_tail_read_is_found_reading_many_small_members_headers_at_once():
    """bounds.member_start walks every header before the member: one range read each took 3.1 s for 20,000 small
    members; it reads ahead after a near header (and not after a large member's, whose data it skips)."""
    from scratchfs.api.bounds import member_start
    from scratchfs.api.results import Slice

    small = [(f"m{i}".encode() + b"\n") * 3 for i in range(300)]
    raw = tar_of([(f"f{i}", data) for i, data in enumerate([*small, b"x" * 200_000, b"last\n"])])
    members = _members(raw)
    reads: list[tuple[int, int]] = []

    def read(at: int, length: int) -> Slice:
        reads.append((at, length))
        return Slice("h", at, raw[at : at + length], len(raw), None, length)

    for index in (0, 150, 299, 300, 301):
        offset, data = members[index]
        reads.clear()
        assert member_start(read, offset + len(data)) == offset
        assert len(reads) <= 3 + (index + 1) // 16, (index, len(reads))
        assert sum(length for at, length in reads if at > members[300][0]) <= 2 * 16 * 1024  # (the large one's data
        # skipped, not read ahead through)


def _model_lines(tools: ScratchTools, call: dict | None, raw: bytes, start: int, end: int) -> None:
    """Every page of a bounded ``context="line"`` search as the model gets it is the web's (``full_windows``): its
    whole lines' windows keep their offsets, as a window starting at the search's offset inside a line (a page
    after one that showed some of its matches) would otherwise say it is its whole line."""
    while call is not None:
        reply = tools.call("read_handle", call)
        assert reply == tools.call("read_handle", call, full_windows=True)
        assert all(start <= w["offset"] <= w["offset"] + w["length"] <= end for w in reply["windows"])
        call = call_args(reply["next_call"]) if reply["next_call"] else None


def test_a_page_of_a_members_line_from_inside_it_says_where_it_starts(scratch_scope):
    """A member of one line of three matches, max_matches=2: the first page shows the line with all three (the
    third is in the bytes it shows: leftovers6), and a search from the third match (its offset, the search's lower
    bound) shows the line from there, "a". Before, the model's window of it was {line: 1, data: "a"} -- a whole
    line's form, so the line seemed to be "a"; now it keeps its offset (514, the member's third byte) as every
    window of a bounded search does."""
    raw = tar_of([("m0.txt", b"aaa")])
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    (start, _), = _members(raw)
    tools = ScratchTools(scratch_scope)
    call = {"handle": handle, "match": "a", "offset": start, "end": start + 3, "context": "line", "max_matches": 2}
    first = tools.call("read_handle", call)
    assert first["windows"] == [{"line": 1, "offset": start, "length": 3, "matches": [
        {"offset": start + n, "length": 1, "line": 1} for n in range(3)], "data": "aaa", "encoding": "text"}]
    assert first["next_call"] is None
    second = tools.call("read_handle", {**call, "offset": start + 2})
    assert second["windows"] == [{"line": 1, "offset": start + 2, "length": 1, "data": "a", "encoding": "text"}]
