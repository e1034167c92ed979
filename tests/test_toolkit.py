"""The model-facing tools and their JSON contract, in process: text cut to whole UTF-8 characters, byte-exact."""

from __future__ import annotations

import ast
import base64
import json
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from scratchfs import MAX_READ_BYTES, InvalidArgument, NotFound
from scratchfs.api.contract import A_HANDLE_IS_NO_KEY, ScratchTools, error_text, to_json, window_hits
from scratchfs.api.tools import TOOL_SPECS, check_arguments
from scratchfs.foundation.limits import MAX_REPLY_BYTES

from .mcp_support import find_all, match_offsets, window_is_exact

# text with 1-, 2-, 3- and 4-byte characters
TEXT = st.text(alphabet=st.sampled_from("ab \n\té—✓日本語😀\u0301"), max_size=3000)


def piece_bytes(piece: dict) -> bytes:
    """The content bytes a piece shows: a hex dump read back, or the text (U+FFFD where bytes were replaced)."""
    if piece.get("encoding") == "hexdump":
        return b"".join(bytes.fromhex(line[10:57]) for line in piece["data"].split("\n") if line)
    return piece["data"].encode()


@given(text=TEXT, offset=st.integers(0, 12_000), length=st.integers(1, 5000))
def test_range_data_is_whole_characters_and_byte_exact(scratch_scope, text, offset, length):
    data = text.encode()
    offset = min(offset, len(data))
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data).handle
    r = tools.call("read_handle", {"handle": handle, "offset": offset, "length": length})
    # valid UTF-8: never base64
    going = {"remaining"} if r["next_offset"] is not None else set()  # (at the end next_offset null says it)
    past = {"note", "calls"} if data and offset == len(data) else set()  # (from the end: its last bytes named)
    assert set(r) == {"handle", "offset", "length", "size", "next_offset", *going, "next_call", "data", *past}
    tail = max(0, len(data) - 4096)  # (offset 0, the default, left out of the call)
    assert not past or r["calls"][0]["arguments"] == {"handle": handle, **({"offset": tail} if tail else {})}
    assert r["handle"] == handle and r["size"] == len(data)
    assert 0 <= r["offset"] - offset <= 3  # only continuation bytes of a character begun earlier are skipped
    assert r["data"].encode() == data[r["offset"] : r["offset"] + r["length"]]
    end = r["offset"] + r["length"]
    assert r["next_offset"] == (end if end < len(data) else None)
    assert r.get("remaining", 0) == len(data) - end
    assert (r["next_call"] is None) == (r["next_offset"] is None)
    if r["next_call"] is not None:
        assert r["next_call"].startswith(f'read_handle(handle="{handle}", offset={end}, length=')
    if r["length"] and end > offset + length:  # more than asked for: only a range shorter than its first
        assert r["length"] <= 4  # character, which comes whole
        assert len(r["data"]) == 1
    if offset < len(data):
        assert r["next_offset"] is None or r["next_offset"] > offset  # a reader always gets on


S3_SLICE = (129_838, 128 * 1024)
"""The lines of the Rust book's page :func:`test_reading_on_from_next_offset_reassembles_the_content` reads on the S3
backend: from this byte (a line's start), this many bytes and to the end of the line there. Each 1000-byte read is
one ranged GET of the emulator (~20 ms): the whole page's 525 took 9.7 s of the file's time, where the reads above the
blob seam are those of the other backends, which read the whole page (one read of it ends short of a character cut);
this slice's reads end short of a character 5 times."""


def test_reading_on_from_next_offset_reassembles_the_content(scratch_scope, fixture_data, backend):
    data = fixture_data["browser-rust-book.html"]
    if backend == "postgres+s3":
        start, size = S3_SLICE
        data = data[start : data.index(b"\n", start + size) + 1]
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data).handle
    out, offset, cut = bytearray(), 0, 0
    while offset is not None:
        r = tools.read_handle(handle, offset, 1000)
        assert r["offset"] == offset
        out += r["data"].encode()
        offset = r["next_offset"]
        cut += offset is not None and offset - r["offset"] != 1000
    assert bytes(out) == data
    assert cut >= 1  # (a read ended short of a character it would cut: once on the whole page, 5 times on S3's slice)


@given(data=st.binary(max_size=3000), offset=st.integers(0, 3000), length=st.integers(1, 3000))
def test_any_bytes_come_as_text_with_replacements_or_as_a_hex_dump(scratch_scope, data, offset, length):
    """One rule: binary content is a hex dump of exactly the range, unless the range is text (valid UTF-8, no control
    byte but tab, newline, CR: ``"encoding": "text"``); any other content is text, each invalid byte a U+FFFD,
    counted by ``replaced``."""
    offset = min(offset, len(data))
    stub = scratch_scope.spill(data)
    r = ScratchTools(scratch_scope).read_handle(stub.handle, offset, length)
    raw = data[r["offset"] : r["offset"] + r["length"]]
    if r.get("encoding") == "hexdump":
        assert stub.content_type == "binary"
        assert r["offset"] == offset and piece_bytes(r) == raw
    elif r.get("encoding") == "text":  # a range of binary content whose bytes are text
        assert stub.content_type == "binary" and "replaced" not in r
        assert r["data"].encode() == raw and not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", r["data"])
        assert 0 <= r["offset"] - offset <= 3
    else:
        assert "encoding" not in r and stub.content_type != "binary"
        assert r["data"] == raw.decode("utf-8", "replace")
        dropped = len(raw) - len(raw.decode("utf-8", "ignore").encode())
        assert r.get("replaced", 0) == dropped
        assert 0 <= r["offset"] - offset <= 3


@given(text=TEXT, needle=st.sampled_from(["a", "日本", "é", "😀", "b\n"]), context=st.integers(0, 40))
@example(text="a,a\na\n", needle="a", context=3)  # (a header's matches and a row's in one window: found in a run)
def test_match_windows_are_whole_characters_around_every_match(scratch_scope, text, needle, context):
    data = text.encode()
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    found, offset = [], 0
    while offset is not None:
        r = tools.read_handle(handle, offset, match=needle, context=context, max_matches=7)
        going = r["next_offset"] is not None  # (a finished search says neither more nor remaining)
        assert set(r) - {"note", "calls"} == {"handle", "match", "size", "next_offset", "next_call", "windows"} | (
            {"more", "remaining"} if going else set())
        rows = any("row" in window or any("row" in hit for hit in window.get("matches", ()))
                   for window in r["windows"])  # (text a table's shape: api.search_rows says rows, of a window's
        # first match or of one in its matches: 'a,a\na\n' matches in the header and in row 1 in one window)
        assert ("note" in r) == (not r["windows"] or rows)  # (a miss says where it looked: api.miss_hints)
        assert r["match"] == needle and r.get("more", False) == going
        found += r["windows"]
        offset = r["next_offset"]
    assert match_offsets(found) == find_all(data, needle.encode())
    for w in found:
        assert set(w) - {"match_offset", "match_length", "matches", "row"} == {"line", "offset", "length", "data"}
        assert window_is_exact(w, data)
        assert window_hits(w)[0]["offset"] - w["offset"] <= context
        for m in window_hits(w):
            assert m["line"] == data[: m["offset"]].count(b"\n") + 1


def test_line_reads_and_pattern_searches_through_the_tool(scratch_scope, fixture_data):
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    r = tools.call("read_handle", {"handle": handle, "line": 100, "lines": 3})
    assert r["data"].encode() == b"".join(data.splitlines(keepends=True)[99:102])
    assert (r["first_line"], r["lines"], r["next_line"], r["cut"]) == (100, 3, 103, False)
    assert r["total_lines"] == data.count(b"\n") + (not data.endswith(b"\n"))
    assert r["next_call"] == f'read_handle(handle="{handle}", line=103, lines=3)'
    found = tools.call("read_handle", {"handle": handle, "pattern": r"class \w+Error\b", "context": 0,
                                       "max_matches": 1000})
    want = [m.start() for m in re.finditer(rb"class \w+Error\b", data, re.M)]
    got = match_offsets(found["windows"])
    assert got == want[: len(got)] and got
    assert found["pattern"] == r"class \w+Error\b" and "ignore_case" not in found
    loud = tools.call("read_handle", {"handle": handle, "match": "CLASS ", "ignore_case": True, "max_matches": 1})
    assert loud["ignore_case"] is True and window_hits(loud["windows"][0])[0]["offset"] == data.find(b"class ")
    with pytest.raises(InvalidArgument):
        tools.call("read_handle", {"handle": handle, "line": 1, "match": "x"})


def test_a_search_window_gives_each_fact_once(scratch_scope, fixture_data):
    """A window of one match that is the window itself (context=0) is {line, offset, length, data}: no match_offset
    equal to its offset, no one-item matches repeating them (176 bytes of fields for 47 of data before); one match
    inside context gives its start and length beside the window; several matches are listed, each once."""
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    want = [(m.start(), m.end()) for m in re.finditer(rb"class \w+Error\b", data)]
    bare = tools.call("read_handle", {"handle": handle, "pattern": r"class \w+Error\b", "context": 0})["windows"]
    assert [set(w) for w in bare] == [{"line", "offset", "length", "data"}] * len(bare)
    assert [(w["offset"], w["offset"] + w["length"]) for w in bare] == want[: len(bare)]
    assert [w["line"] for w in bare] == [data[:start].count(b"\n") + 1 for start, _ in want[: len(bare)]]
    one = tools.call("read_handle", {"handle": handle, "pattern": r"class \w+Error\b", "context": 9,
                                     "max_matches": 1})["windows"][0]
    assert set(one) == {"line", "offset", "length", "match_offset", "match_length", "data"}
    assert (one["match_offset"], one["match_offset"] + one["match_length"]) == want[0]
    assert one["offset"] == want[0][0] - 9 and one["length"] == want[0][1] - want[0][0] + 18
    merged = tools.call("read_handle", {"handle": handle, "match": "Error", "context": 200, "max_matches": 2}
                        )["windows"][0]
    assert set(merged) == {"line", "offset", "length", "matches", "data"}
    assert [m["offset"] for m in window_hits(merged)] == find_all(data, b"Error")[:2]
    assert window_hits(one) == [{"offset": want[0][0], "length": want[0][1] - want[0][0], "line": one["line"]}]
    assert window_hits(bare[1]) == [{"offset": want[1][0], "length": want[1][1] - want[1][0],
                                     "line": bare[1]["line"]}]


def test_a_search_cut_by_the_budget_says_so(scratch_scope, fixture_data):
    """max_matches=1000 came back as 52 windows, more:true and no note (agentsim E1): a reply holding fewer matches
    than asked for while more follow says the budget cut it and how to go on; one stopped by max_matches does not."""
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    cut = tools.call("read_handle", {"handle": handle, "match": "def ", "context": 0, "max_matches": 1000})
    shown = sum(len(window_hits(w)) for w in cut["windows"])
    assert cut["more"] and shown < 1000 and shown < data.count(b"def ")
    assert cut["note"] == (f"the budget (8192 bytes) cut this reply to {shown} of max_matches=1000 matches; "
                           "next_call goes on (a larger budget=, up to 65536, shows more matches a reply); count=true "
                           f"counts them all; before={len(data)} shows the last ones")
    # (newuser8: the last of 106 errors took three forward pages, where before=<size> gives them in one reply)
    last = tools.call("read_handle", {"handle": handle, "match": "def ", "context": 0, "max_matches": 3,
                                      "before": len(data)})
    assert [h["offset"] for w in last["windows"] for h in window_hits(w)] == [
        i for i in range(len(data)) if data.startswith(b"def ", i)][-3:]
    assert len(to_json(cut).encode()) <= 8192
    wide = tools.call("read_handle", {"handle": handle, "match": "def ", "context": 30, "max_matches": 1000,
                                      "budget": 4096})
    assert wide["note"].endswith("(a larger budget=, up to 65536, or a smaller context= shows more matches a reply); "
                                 f"count=true counts them all; before={len(data)} shows the last ones")
    # near matches share a window (agentsim2 counted 12 windows where the note said 14 matches): the note says both
    windows, matches = len(wide["windows"]), sum(len(window_hits(w)) for w in wide["windows"])
    assert windows < matches and f"cut this reply to {matches} of max_matches=1000 matches in {windows} windows;" \
        in wide["note"], wide["note"]
    assert "4096 bytes" in wide["note"]
    whole = tools.call("read_handle", {"handle": handle, "match": "def ", "context": 0, "max_matches": 3})
    assert whole["more"] and "note" not in whole


def _lines_of(data: bytes, starts: list[int]) -> int:
    """How many lines hold at least one of these match starts (grep -c's count)."""
    return len({data.count(b"\n", 0, start) for start in starts})


@given(text=TEXT, needle=st.sampled_from(["a", "日本", "é", "b\n", "\n"]))
def test_count_is_the_plain_answer(scratch_scope, text, needle):
    """A model paged 50 KB of windows to count 286 commits (agentsim C1): count=true gives the number of matches and
    of the lines they start in, for the whole content, with no window."""
    data = text.encode()
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    r = tools.call("read_handle", {"handle": handle, "match": needle, "count": True})
    starts = find_all(data, needle.encode())
    assert (r["matches"], r["lines"]) == (len(starts), _lines_of(data, starts))
    assert (r["offset"], r["next_offset"], r["next_call"], r["size"]) == (0, None, None, len(data))
    assert "remaining" not in r  # (the end: next_offset null says it)
    assert "windows" not in r and "note" not in r


def test_a_pattern_that_matches_only_empty_text_says_why_it_found_nothing(scratch_scope, fixture_data):
    """atk27: pattern="^" with count=true over 100,000 lines answered matches 0, lines 0 and nothing else (searches
    skip empty matches, as the README says, but a model counting lines that way reads 0 as the answer). A count or
    search that finds nothing with a pattern that matches empty text says so and names patterns that count lines;
    one that matches no empty text, or finds something, adds no note."""
    whole = fixture_data["workspace-grep-stdlib-defs.txt"]
    data = whole[:whole.index(b"\n", 64 * 1024) + 1]  # (a pattern matching empty text at every byte is skipped a
    # byte at a time: 64 KiB of lines, not 512, keeps ten searches well inside the 5 s time bound on a loaded box)
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    for pattern in ("^", "$", r"\b", "(?m)^", "(?:zzz)?"):
        for extra in ({"count": True}, {}):
            r = tools.call("read_handle", {"handle": handle, "pattern": pattern, **extra})
            assert r.get("matches", 0) == 0 and not r.get("windows"), (pattern, r)
            if pattern == "(?:zzz)?":  # (it matches non-empty text too: none here, and its empty matches skipped)
                assert "matches empty text" in r["note"] and 'pattern="^."' in r["note"], (pattern, r)
            else:  # (only empty strings: where, and the pattern with a byte after, empty_places)
                assert "matches only empty strings" in r["note"], (pattern, r)
                assert r["calls"][0]["arguments"]["pattern"].endswith("[\\s\\S]"), (pattern, r)
    lines = tools.call("read_handle", {"handle": handle, "pattern": "^.", "count": True})
    assert lines["lines"] == sum(1 for line in data.split(b"\n") if line) and "note" not in lines
    none = tools.call("read_handle", {"handle": handle, "pattern": "^zzz", "count": True})
    assert none["matches"] == 0 and "note" not in none


def test_a_pattern_count_over_a_fixture_and_its_refusals(scratch_scope, fixture_data):
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    for pattern, flags in ((r"^\./[^:]*:\d+:\s*class ", 0), (r"def _\w+", 0), ("ERROR", re.I)):
        starts = [m.start() for m in re.finditer(pattern.encode(), data, re.M | flags) if m.end() > m.start()]
        r = tools.call("read_handle", {"handle": handle, "pattern": pattern, "ignore_case": bool(flags),
                                       "count": True})
        assert (r["matches"], r["lines"], r["next_call"]) == (len(starts), _lines_of(data, starts), None)
        assert len(to_json(r).encode()) < 400
    late = tools.call("read_handle", {"handle": handle, "match": "def ", "offset": 100_000, "count": True})
    assert late["matches"] == data.count(b"def ", 100_000) and late["offset"] == 100_000
    for bad in ({"context": 0}, {"max_matches": 5}, {"line": 3}, {"jq": "."}):
        with pytest.raises(InvalidArgument, match="count cannot be combined with"):
            tools.call("read_handle", {"handle": handle, "match": "def", "count": True, **bad})
    with pytest.raises(InvalidArgument, match="count counts the matches of match="):
        tools.call("read_handle", {"handle": handle, "count": True})
    with pytest.raises(InvalidArgument) as refused:  # the text view is not counted: the refusal names what works
        tools.call("read_handle", {"handle": handle, "match": "def", "count": True, "view": "text"})
    assert str(refused.value).endswith('terminal output as rendered) is not counted: list the view\'s matches '
                                       '(view="text", context=0, max_matches=1000), or count the stored content (no '
                                       'view), where markup or escape sequences may split the text; the count alone: '
                                       f'read_handle(handle="{handle}", match="def", count=True)'), str(refused.value)


def test_a_count_the_time_bound_stops_says_how_far_it_got_and_counts_on(scratch_store_factory, fixture_data):
    """A count runs within the store's pattern_timeout; one that cannot finish says how far it got, and following
    its next_call adds up to the plain answer."""
    data = fixture_data["workspace-grep-stdlib-defs.txt"] * 40
    store = scratch_store_factory("slow", pattern_timeout=0.002)
    scope = store.scope("r", "a")
    handle = scope.spill(data).handle
    tools = ScratchTools(scope)
    args = {"handle": handle, "match": "class ", "count": True}
    replies = [tools.call("read_handle", args)]
    while replies[-1]["next_call"] is not None:
        node = ast.parse(replies[-1]["next_call"], mode="eval").body
        replies.append(tools.call("read_handle", {k.arg: ast.literal_eval(k.value) for k in node.keywords}))
    assert len(replies) > 1 and sum(r["matches"] for r in replies) == data.count(b"class ")
    first = replies[0]
    assert first["note"].startswith(f"counted bytes 0-{first['next_offset']} of {len(data)} in the time bound")
    assert [r["offset"] for r in replies[1:]] == [r["next_offset"] for r in replies[:-1]]
    assert first["remaining"] == len(data) - first["next_offset"] and replies[-1]["next_offset"] is None


def test_a_page_of_jq_over_records_explains_its_record_and_first(scratch_scope):
    """Pages of jq over records carried `record` and `first` that no tool description explained (agentsim G1/G3):
    read_handle's description said what they are, on every turn; the page that carries them says it now (its note),
    and its values are what it says."""
    data = b"".join(b'{"n": %d, "tags": ["a", "b", "c"]}\n' % i for i in range(1, 400))
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    page = tools.call("read_handle", {"handle": handle, "record": 7, "records": 3, "jq": "select(.n > 8) | .tags[]"})
    assert (page["record"], page["first"], page["results"]) == (9, 1, ["a", "b", "c"] * 3)  # (records 9 to 11: 7
    # and 8 give nothing, passed over, not counted)
    assert "`record`: the first output's record; `first`: its number among that record's outputs" in page["note"]
    assert '"record": 12' in json.dumps(page) or "record=12" in page["next_call"]
    plain = tools.call("read_handle", {"handle": handle, "record": 7, "records": 2})
    assert plain["first"] == 7 and [r["n"] for r in plain["records"]] == [7, 8]


def test_a_line_cut_by_the_cap_is_cut_on_a_character(scratch_scope):
    data = ("é" * 40_000 + "\n").encode()  # one line of 80,001 bytes
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    r = tools.read_handle(handle, line=1, lines=1, budget=MAX_REPLY_BYTES)
    assert r["cut"] is True and r["length"] % 2 == 0 and r["next_offset"] == r["length"] > 60_000
    assert r["data"] == "é" * (r["length"] // 2)
    assert len(to_json(r).encode()) <= MAX_REPLY_BYTES
    assert r["next_line"] == 1  # the cut line goes on: by the cursor, from where it stops
    assert r["next_call"] == f'read_handle(handle="{handle}", offset={r["length"]}, lines=1, budget={MAX_REPLY_BYTES})'
    rest = tools.call("read_handle", {"handle": handle, "offset": r["next_offset"], "lines": 1, "budget": 65536})
    assert rest["first_line"] == 1 and rest["offset"] == r["length"]
    assert (rest["data"].encode() == data[r["length"] :]) and rest["next_call"] is None


def test_scratchpad_tools_round_trip(scratch_scope, scratch_clock):
    tools = ScratchTools(scratch_scope)
    written = tools.call("scratch_write", {"key": "plan", "value": "1) lire 2) écrire", "ttl": 60})
    assert written == {"key": "plan", "size": len("1) lire 2) écrire".encode()), "ttl": 60,
                       "expires_at": round(scratch_clock.now + 60)}
    assert isinstance(written["ttl"], int) and isinstance(written["expires_at"], int)  # (whole seconds)
    tools.call("scratch_write", {"key": "blob", "value": base64.b64encode(b"\x00\xff\xfe").decode(),
                                 "encoding": "base64"})
    assert tools.call("scratch_read", {"key": "plan"})["data"] == "1) lire 2) écrire"
    blob = tools.call("scratch_read", {"key": "blob"})  # binary: a hex dump
    assert blob["encoding"] == "hexdump" and blob["data"] == "00000000  00 ff fe" + " " * 39 + "  |...|"
    part = tools.call("scratch_read", {"key": "plan", "offset": 3, "length": 5})
    version = scratch_scope.scratch_read_range("plan", 0, 1).version  # the next call names the value read
    assert part == {"key": "plan", "offset": 3, "length": 5, "size": 18, "next_offset": 8, "remaining": 10,
                    "next_call": f'scratch_read(key="plan", offset=8, length=5, version="{version}")', "data": "lire "}
    listed = tools.call("scratch_list", {"prefix": "pl"})
    assert listed == {"prefix": "pl", "entries": [{"key": "plan", "size": 18, "expires_in": 60,
                                                   "preview": "1) lire 2) écrire"}],
                      "next_call": None}  # the cursor is in next_call only (alone only when next_call does not fit)
    scratch_clock.advance(61)
    assert [e["key"] for e in tools.call("scratch_list")["entries"]] == ["blob"]
    assert tools.call("scratch_delete", {"key": "blob"}) == {"key": "blob", "deleted": True}
    again = tools.call("scratch_delete", {"key": "blob"})  # says why nothing was deleted: deleted already
    assert again["deleted"] is False and again["note"].startswith("nothing deleted: key 'blob' was deleted at ")


def test_large_scratch_values_are_read_in_capped_pieces(scratch_scope):
    value = "x" * (MAX_READ_BYTES + 10)
    tools = ScratchTools(scratch_scope)
    tools.scratch_write("big", value)
    first = tools.scratch_read("big", budget=MAX_REPLY_BYTES)
    assert first["next_offset"] == first["length"] and len(to_json(first).encode()) <= MAX_REPLY_BYTES
    version = scratch_scope.scratch_read_range("big", 0, 1).version
    assert first["next_call"] == (f'scratch_read(key="big", offset={first["length"]}, '
                                  f'budget={MAX_REPLY_BYTES}, version="{version}")')
    rest = tools.scratch_read("big", offset=first["next_offset"], budget=MAX_REPLY_BYTES, version=version)
    assert rest["data"] == "x" * (len(value) - first["length"]) and rest["next_offset"] is None
    small = tools.scratch_read("big")  # the default budget: 8 KiB of JSON
    assert len(to_json(small).encode()) <= 8192 < len(to_json(small).encode()) + 100


@pytest.mark.parametrize(("name", "args", "message"), [
    ("read_handle", {}, "'handle' is a required property"),
    ("read_handle", {"handle": "h_" + "a" * 24, "offset": "10"}, 'offset: "10" is not of type \'integer\''),
    ("read_handle", {"handle": "h_" + "a" * 24, "offset": -1}, "offset: -1 is less than the minimum of 0"),
    ("read_handle", {"handle": "h_" + "a" * 24, "length": 10**9}, "length: 1000000000 is greater than the maximum"),
    ("read_handle", {"handle": "h_" + "a" * 24, "bogus": 1}, "unknown argument 'bogus'; read_handle takes handle, "),
    ("read_handle", {"handle": "h_" + "a" * 24, "match": ""}, "match is empty: empty text is found everywhere"),
    ("scratch_write", {"key": "k", "value": 3}, "value: 3 is not of type 'string'; scratch_write stores text"),
    ("scratch_write", {"key": "k", "value": {"a": [True, None], "b": "é"}},  # (JSON, as the model wrote it: before,
     'value: {"a": [true, null], "b": "é"} is not of type \'string\'; scratch_write stores text: give JSON '  # Python's
     "encoded as one string"),  # {'a': [True, None], ...})
    ("read_handle", {"handle": "h_" + "a" * 24, "lines": None}, "lines: null is not of type 'integer'"),
    ("scratch_write", {"key": "k", "value": "v", "ttl": 0}, "ttl: 0 is less than the minimum of 1.0"),
    ("scratch_write", {"key": "k", "value": "v", "ttl": 1e-7}, "ttl: 1e-07 is less than the minimum of 1.0"),
    ("scratch_write", {"key": "k", "value": "v", "encoding": "hex"}, "encoding: 'hex' is not one of"),
    ("scratch_list", [], "must be a JSON object"),
    ("no_such_tool", {}, "unknown tool 'no_such_tool'; the tools are read_handle, scratch_delete, "),
    ("read_handl", {}, "unknown tool 'read_handl' (did you mean 'read_handle'?); the tools are read_handle, "),
    ("Scratch_Write", {}, "unknown tool 'Scratch_Write' (did you mean 'scratch_write'?); the tools are "),
])
def test_bad_arguments_are_invalid_argument_errors_naming_the_value(name, args, message):
    with pytest.raises(InvalidArgument) as info:
        check_arguments(name, args)
    assert message in str(info.value)
    assert error_text(info.value).startswith("invalid argument: ")


@pytest.mark.parametrize(("name", "given", "meant"), [
    ("read_handle", "lenght", "length"), ("read_handle", "max_match", "max_matches"),
    ("read_handle", "Offset", "offset"),
    ("read_handle", "regex", "pattern"), ("read_handle", "query", "match"), ("read_handle", "start", "offset"),
    ("read_handle", "case_insensitive", "ignore_case"), ("read_handle", "selector", "select"),
    ("scratch_write", "vaule", "value"), ("scratch_list", "prefx", "prefix"), ("scratch_read", "keys", "key"),
])
def test_an_unknown_argument_name_is_told_with_the_one_meant_and_every_one_the_tool_takes(name, given, meant):
    """A model that wrote {"lenght": 100} or {"regex": "..."} was told "Additional properties are not allowed ('lenght'
    was unexpected)": neither the name meant nor the names the tool takes (found by the newuser helper, trying the
    tools as a model would). The refusal names both, within a few hundred bytes."""
    args = {"handle": "h_" + "a" * 24} if name == "read_handle" else {"key": "k", "value": "v"}
    args = {k: v for k, v in args.items() if k in TOOL_SPECS[name].input_schema["properties"]}
    with pytest.raises(InvalidArgument) as info:
        check_arguments(name, {**args, given: 1})
    text = error_text(info.value)
    known = ", ".join(TOOL_SPECS[name].input_schema["properties"])
    assert text == (f"invalid argument: {name}: unknown argument {given!r} (did you mean {meant!r}?); "
                    f"{name} takes {known}")
    assert len(text.encode()) < 400


def test_many_unknown_argument_names_are_named_five_and_counted():
    args = {"handle": "h_" + "a" * 24, **{f"zz{i}": i for i in range(1000)}}
    with pytest.raises(InvalidArgument) as info:
        check_arguments("read_handle", args)
    assert "unknown arguments 'zz0', 'zz1', 'zz2', 'zz3', 'zz4' and 995 more; read_handle takes handle, offset" in str(
        info.value)


def test_store_errors_keep_their_kind(scratch_scope):
    tools = ScratchTools(scratch_scope)
    with pytest.raises(NotFound) as info:
        tools.call("read_handle", {"handle": "h_" + "a" * 24})
    assert error_text(info.value) == ("not found: no handle 'h_aaaaaaaaaaaaaaaaaaaaaaaa' in this scope "
                                      f"(run {scratch_scope.run_id!r}, agent {scratch_scope.agent_id!r}); copy the "
                                      "handle whole from the stub that gave it (another run's or agent's is not read "
                                      "here), or run the tool that made it again if its result expired over an hour "
                                      "ago")  # (how to go on: no handle near it, none gone in the last hour)
    handle = scratch_scope.spill("abc").handle
    with pytest.raises(InvalidArgument, match="length= applies to range reads"):
        tools.call("read_handle", {"handle": handle, "match": "b", "length": 3})
    with pytest.raises(InvalidArgument, match="past the end"):
        tools.call("read_handle", {"handle": handle, "offset": 4})
    assert check_arguments("read_handle", {"handle": handle, "offset": 2.0}) == {"handle": handle, "offset": 2}


def test_every_tool_has_a_schema_a_model_can_follow():
    assert set(TOOL_SPECS) == {"read_handle", "scratch_write", "scratch_read", "scratch_list", "scratch_delete"}
    for spec in TOOL_SPECS.values():
        assert spec.input_schema["type"] == "object" and spec.input_schema["additionalProperties"] is False
        assert len(spec.description) > 80
        for name, prop in spec.input_schema["properties"].items():
            assert prop.get("description"), f"{spec.name}.{name} has no description"
        json.dumps(spec.input_schema)
    read = TOOL_SPECS["read_handle"].description
    assert "next_call" in read and "match" in read and str(MAX_READ_BYTES) in read


def test_the_tool_definitions_say_each_thing_once_in_under_12000_bytes():
    """The definitions go with every request a model makes: they were 14,496 bytes of compact JSON, the budget's
    default and cap said three times per tool (its schema, its description, the tool's), read_handle's modes told
    in its description and again in each argument's. Each argument's description no longer repeats the default or
    the bound its schema gives, and the whole stays well under 12,000 bytes."""
    from scratchfs.adapter import tool_definitions

    assert len(json.dumps(tool_definitions(), separators=(",", ":"))) < 12_000
    for spec in TOOL_SPECS.values():
        for name, prop in spec.input_schema["properties"].items():
            for bound in ("default", "maximum"):
                value = prop.get(bound)
                if isinstance(value, int) and not isinstance(value, bool) and value > 1:
                    assert str(value) not in prop["description"], f"{spec.name}.{name} repeats its {bound}"


@pytest.mark.parametrize(("name", "args", "what"), [
    ("read_handle", {"jq": "\ud800"}, "jq"),
    ("read_handle", {"select": "p\udfff"}, "select"),
    ("read_handle", {"row": 1, "columns": ["a", "\ud800"]}, "columns"),
    ("read_handle", {"jq": ".", "cursor": "\ud800"}, "cursor"),
    ("read_handle", {"match": "\ud800"}, "match"),
    ("read_handle", {"pattern": "a\ud800"}, "pattern"),
    ("scratch_write", {"key": "k", "value": "v\ud800"}, "value"),
    ("scratch_list", {"prefix": "\ud800"}, "prefix"),
    ("scratch_list", {"cursor": "\ud800"}, "cursor"),
    ("scratch_read", {"key": "\ud800"}, "key"),
])
def test_a_lone_surrogate_in_any_text_argument_is_one_invalid_argument(scratch_scope, name, args, what):
    handle = scratch_scope.spill(b'{"a": 1}\n').handle
    args = {"handle": handle, **args} if name == "read_handle" else args
    with pytest.raises(InvalidArgument) as info:
        ScratchTools(scratch_scope).call(name, args)
    assert f"{what} is not valid UTF-8 text" in str(info.value)
    if name == "read_handle" and what in {"jq", "select", "columns", "cursor"}:  # the method, without call(), too
        with pytest.raises(InvalidArgument, match=f"{what} is not valid UTF-8 text"):
            ScratchTools(scratch_scope).read_handle(**args)


def test_each_tool_description_names_only_arguments_its_schema_takes():
    """scratch_read's and scratch_list's descriptions said "`length`, `lines`, `max_matches` and `context` are
    requests" (read_handle's budget paragraph, shared): arguments they do not take, in the text a model reads on
    every call. Every backquoted word of a description that is an argument of some tool is one of its own."""
    every = {name for spec in TOOL_SPECS.values() for name in spec.input_schema["properties"]}
    for spec in TOOL_SPECS.values():
        named = set(re.findall(r"`([a-z_]+)`", spec.description)) & every
        assert named <= set(spec.input_schema["properties"]), (spec.name, named - set(spec.input_schema["properties"]))


def test_lines_from_an_offset_inside_a_character_start_at_the_next_one_as_a_range_read(scratch_scope):
    """A line read from a byte offset inside a character began with U+FFFD (``replaced: 1``), where a range read from
    the same offset starts at the next character (its ``offset`` says so): both now start there, every offset."""
    data = "héllo wörld ünïcode ✓ 日本語 🙂\n".encode() * 400
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    for offset in range(48):
        by_lines = tools.read_handle(handle, offset=offset, lines=1)
        by_range = tools.read_handle(handle, offset=offset, length=64)
        start = offset
        while start < len(data) and data[start] & 0xC0 == 0x80:
            start += 1
        assert by_lines["offset"] == by_range["offset"] == start and "replaced" not in by_lines
        assert by_lines["data"].encode() == data[start : data.index(b"\n", start) + 1]
        assert by_range["data"].encode() == data[start : start + by_range["length"]]


def test_a_search_whose_context_is_cut_to_fit_says_so(scratch_scope):
    """match= with context=8192 came back one match a reply, its context cut to about 3.8 KB a side, and nothing said
    so (254 calls over a page for what a smaller context reads in a few). The reply's note says it, with the way on."""
    data = (("lorem ipsum dolor sit amet " * 300) + "needle ").encode() * 20
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    wide = tools.read_handle(handle, match="needle", context=8192, max_matches=1000)
    assert len(wide["windows"]) == 1 and len(to_json(wide).encode()) <= 8192
    assert re.fullmatch(r"context cut to [\d,]+ bytes a side to fit the budget, one match a reply; a smaller context= "
                        r"shows more matches a reply", wide["note"])
    narrow = tools.read_handle(handle, match="needle", context=100)
    assert len(narrow["windows"]) == 20 and "note" not in narrow


@pytest.mark.parametrize("given", [" {h} ", "{h}\n", '"{h}"', 'handle="{h}"', "{H}", "`{h}`"])
def test_a_handle_copied_with_what_surrounds_it_is_refused_naming_the_handle(scratch_scope, given):
    """A handle copied with a blank, its quotes, its 'handle=' or in capitals was refused "not a handle (expected
    'h_' and 24 letters ...)" without the handle it held, which the model then had to find itself (found by the
    newuser helper). The refusal names it; the call with it reads."""
    handle = scratch_scope.spill("x" * 100).handle
    with pytest.raises(InvalidArgument) as info:
        check_arguments("read_handle", {"handle": given.format(h=handle, H=handle.upper())})
    assert str(info.value).endswith(f"; did you mean {handle!r} (the handle alone, as the stub gives it)?")
    assert ScratchTools(scratch_scope).call("read_handle", {"handle": handle})["size"] == 100


@pytest.mark.parametrize("given", ["h_x", "h_" + "a" * 25, f"h_{'a' * 24} h_{'b' * 24}", "x" * 5000 + "h_" + "a" * 24])
def test_a_text_holding_no_one_handle_gets_no_handle_named(given):
    with pytest.raises(InvalidArgument) as info:
        check_arguments("read_handle", {"handle": given})
    assert "did you mean" not in str(info.value)


def test_a_handle_and_a_scratchpad_key_taken_for_each_other_are_told_apart(scratch_scope):
    """scratch_read(key="h_...") of a spilled result was 'not found: no key ... in this scope', and
    read_handle(handle="notes") of the model's own note 'not a handle (expected ...)': neither said which tool reads
    it (found by the newuser helper, calling the tools as a model mixes them up). Each refusal names the other tool;
    scratch_delete's note and the CLI's scratch-delete line stay as they were."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill("x" * 100).handle
    with pytest.raises(NotFound) as info:
        tools.call("scratch_read", {"key": handle})
    assert type(info.value) is NotFound and str(info.value) == (
        f"no key '{handle}' in this scope (run {scratch_scope.run_id!r}, agent {scratch_scope.agent_id!r}); this is "
        f'the handle of a spilled result, not a scratchpad key: read it with read_handle(handle="{handle}")')
    with pytest.raises(NotFound) as info:
        tools.call("scratch_read", {"key": "notes"})
    assert str(info.value).endswith(f"agent {scratch_scope.agent_id!r}); another agent's keys are not read "
                                    "here; scratch_list lists the keys of this scope")
    tools.call("scratch_write", {"key": "notes", "value": "v"})
    with pytest.raises(InvalidArgument) as info:
        tools.call("read_handle", {"handle": "notes"})
    assert str(info.value) == ("not a handle (expected 'h_' and 24 letters a-z or digits 2-7): 'notes'; a scratchpad "
                               "value is read with scratch_read(key=\"notes\")")
    with pytest.raises(InvalidArgument) as info:  # a handle cut short is no key
        tools.call("read_handle", {"handle": handle[:-1]})
    assert "scratch_read" not in str(info.value)
    assert tools.call("scratch_delete", {"key": handle}) == {"key": handle, "deleted": False,
                                                             "note": A_HANDLE_IS_NO_KEY.format(delete="scratch_delete")}


def test_a_scratchpad_key_shaped_as_a_handle_of_nothing_is_not_said_to_be_a_handle(scratch_scope):
    """scratch_read(key="h_...") of a text shaped as a handle said 'this is the handle of a spilled result: read it
    with read_handle(handle="h_...")' whether or not any result had that handle (hostile2 helper: a handle with a
    character changed, one of another agent), so the call it named failed in turn. It says that only of a live
    handle of the scope; another is said to be neither key nor handle, naming the handle of the scope one or two
    characters from it (never another agent's)."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill("x" * 100).handle
    other = scratch_scope.store.scope(scratch_scope.run_id, "someone-else").spill("y" * 100).handle
    typo = handle[:-1] + ("a" if handle[-1] != "a" else "b")
    where = f"in this scope (run {scratch_scope.run_id!r}, agent {scratch_scope.agent_id!r})"
    with pytest.raises(NotFound) as info:
        tools.call("scratch_read", {"key": typo})
    assert str(info.value) == (f"no key {typo!r} (nor handle) {where}; did you mean {handle!r}, a handle of this "
                               "scope one or two characters away?")
    for nothing in (other, other[:-1] + ("a" if other[-1] != "a" else "b")):
        with pytest.raises(NotFound) as info:
            tools.call("scratch_read", {"key": nothing})
        assert str(info.value) == f"no key {nothing!r} (nor handle) {where}"


def test_a_handle_copied_with_a_character_changed_is_not_found_naming_the_one_of_this_scope(scratch_scope):
    """A model that copies a handle's 24 random letters with one wrong was told "no handle ... in this scope" and
    nothing more (found by the newuser helper). The refusal names the live handle of the same scope one or two
    characters away; another agent's, or none close, is never named (a scope sees only its own)."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill("x" * 100).handle
    other = scratch_scope.store.scope(scratch_scope.run_id, "someone-else").spill("y" * 100).handle
    for typo in (handle[:-1] + ("a" if handle[-1] != "a" else "b"), handle[:5] + handle[6:] + "q"):
        with pytest.raises(NotFound) as info:
            tools.call("read_handle", {"handle": typo})
        assert str(info.value).endswith(f"; did you mean {handle!r}, a handle of this scope one or two characters "
                                        "away?"), str(info.value)
    far = handle[:2] + "".join("a" if c != "a" else "b" for c in handle[2:])
    with pytest.raises(NotFound) as info:
        tools.call("read_handle", {"handle": far})
    assert "did you mean" not in str(info.value)
    near_other = other[:-1] + ("a" if other[-1] != "a" else "b")
    with pytest.raises(NotFound) as info:
        tools.call("read_handle", {"handle": near_other})
    assert "did you mean" not in str(info.value) and other not in str(info.value)


def test_read_handle_of_a_scratchpad_key_shaped_as_a_handle_names_scratch_read(scratch_scope):
    """read_handle(handle="h_...") of a key the model wrote with scratch_write, shaped as a handle, said only 'no
    handle ... in this scope', never that the text is a key of this scope (leftovers1 helper): it names the
    scratch_read call that reads it, and the NotFound's meant is that key; a handle that is no key is told as
    before (no scratch_read named)."""
    tools = ScratchTools(scratch_scope)
    key = "h_" + "abcdefghijklmnopqrstuvwx"
    tools.call("scratch_write", {"key": key, "value": "v"})
    with pytest.raises(NotFound) as info:
        tools.call("read_handle", {"handle": key})
    assert str(info.value) == (
        f"no handle '{key}' in this scope (run {scratch_scope.run_id!r}, agent {scratch_scope.agent_id!r}); this is "
        f'a scratchpad key, not the handle of a spilled result: read it with scratch_read(key="{key}")')
    assert info.value.meant == ("scratch", key) and not info.value.elsewhere
    assert info.value.fact.endswith(": it is a scratchpad key")
    assert tools.call("scratch_read", {"key": key})["data"] == "v"
    with pytest.raises(NotFound) as info:
        tools.call("read_handle", {"handle": "h_" + "a" * 24})
    assert "scratch_read" not in str(info.value) and info.value.meant is None
