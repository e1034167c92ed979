"""Searches with ``context="line"`` (each window the whole line holding its matches, bounded on each side) and line
reads from the end (``line=-N``), against the plain Python answers: ``data.split(b"\\n")`` lines and ``lines[-N:]``."""

from __future__ import annotations

import bisect
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument, ScratchStore
from scratchfs.api.contract import ScratchTools, window_hits
from scratchfs.api.tools import TOOL_SPECS
from scratchfs.api.views import reply_size
from scratchfs.foundation.call_text import parse_call
from scratchfs.foundation.limits import LINE_WINDOW_BYTES, MAX_REPLY_BYTES

from .mcp_support import connect, error_of, one_era, payload, run, scratchfs_params
from .reference import lines_of

B = LINE_WINDOW_BYTES
NEEDLE = b"NEEDLE"


# -- the plain Python answers ---------------------------------------------------------------------------------------


def reference_windows(data: bytes, spans: list[tuple[int, int]]) -> list[dict]:
    """The windows of the matches ``spans`` (``[start, end)``, in order) by the rule of
    :mod:`scratchfs.engine.line_windows`, from the lines of ``data.split(b"\\n")``: ``{line, lo, hi, before, after,
    matches}``."""
    parts = data.split(b"\n")
    starts = [0]
    for part in parts[:-1]:
        starts.append(starts[-1] + len(part) + 1)
    out: list[dict] = []
    for s, e in spans:
        first = bisect.bisect_right(starts, s) - 1
        last = bisect.bisect_right(starts, e - 1) - 1
        text = parts[last][:-1] if last < len(parts) - 1 and parts[last].endswith(b"\r") else parts[last]
        line_start, text_end = starts[first], starts[last] + len(text)
        lo, hi = max(line_start, s - B), max(e, min(text_end, e + B))
        before, after = line_start < lo, text_end > hi
        if out and lo <= out[-1]["hi"]:  # merged, as windows whose context overlaps are
            out[-1].update(hi=max(out[-1]["hi"], hi), after=after)
            out[-1]["matches"].append(s)
        else:
            out.append({"line": first + 1, "lo": lo, "hi": hi, "before": before, "after": after, "matches": [s]})
    return out


def literal_spans(data: bytes, needle: bytes) -> list[tuple[int, int]]:
    out, at = [], data.find(needle)
    while at >= 0:
        out.append((at, at + len(needle)))
        at = data.find(needle, at + len(needle))
    return out


def pattern_spans(data: bytes, pattern: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(pattern, data, re.MULTILINE) if m.end() > m.start()]


MODEL_KEYS = ("line", "row", "data", "replaced", "encoding")  # (a whole line's window as the model gets it)


def modelled(window: dict) -> dict:
    """``window`` (with its offsets: the web inspector's) as the model gets it: a whole line's ``{line, data}`` (and
    ``row``, ``replaced``, ``encoding``), a cut one's (``cut``) whole."""
    return window if "cut" in window else {k: window[k] for k in MODEL_KEYS if k in window}


def line_search(tools: ScratchTools, arguments: dict) -> dict:
    """The search's reply with its windows' offsets (``full_windows``, the web's), checked to be the model's reply
    but for each whole line's window, which the model gets as its line and data (:func:`modelled`) -- of a view's
    search (``view="text"``) too: its note reads on from a window's offset, which ``line=`` does not (hostile42)."""
    full = tools.call("read_handle", arguments, full_windows=True)
    model = full if "view" in arguments else {**full, "windows": [modelled(w) for w in full["windows"]]}
    assert tools.call("read_handle", arguments) == model
    return full


def text_lines(data: bytes) -> list[str]:
    """The lines of ``data`` as a whole line's window shows each: without its ``\\n`` (or ``\\r\\n``), decoded."""
    parts = data.split(b"\n")  # (a \r ends a CRLF line; the last line's, not before a \n, is its own byte)
    return [x.removesuffix(b"\r" if n < len(parts) - 1 else b"").decode("utf-8", "replace")
            for n, x in enumerate(parts)]


def check_windows(data: bytes, reply: dict, spans: list[tuple[int, int]]) -> None:
    """The reply's windows are the reference's: their lines, matches and bytes; a side the bound cut says so (and may
    leave out up to 3 bytes of a character cut there), a side at a line's end shows every byte up to it."""
    want = reference_windows(data, spans)
    got = reply["windows"]
    assert reply["next_offset"] is None, "the whole search fits one reply here"
    assert [w["line"] for w in got] == [w["line"] for w in want]
    assert [[m["offset"] for m in window_hits(w)] for w in got] == [w["matches"] for w in want]
    for shown, ref in zip(got, want, strict=True):
        lo, hi = shown["offset"], shown["offset"] + shown["length"]
        cut = {"before": (True, False), "after": (False, True), "both": (True, True)}.get(shown.get("cut"),
                                                                                        (False, False))
        assert cut == (ref["before"], ref["after"])
        if shown.get("encoding") == "hexdump":  # content classed as binary: every byte, as a hex dump
            assert (lo, hi) == (ref["lo"], ref["hi"])
            continue
        assert (lo == ref["lo"]) if not ref["before"] else (ref["lo"] <= lo <= ref["lo"] + 3)
        assert (hi == ref["hi"]) if not ref["after"] else (ref["hi"] - 3 <= hi <= ref["hi"])
        raw = data[lo:hi]
        assert shown["data"] == raw.decode("utf-8", "replace")
        if "cut" not in shown and b"\n" not in raw:  # (what the model gets of it: line N, its bytes, exactly; its
            whole = data.split(b"\n")[shown["line"] - 1]  # \r when a match takes it in)
            assert raw in (whole, whole.removesuffix(b"\r"))
        assert shown.get("replaced", 0) == len(raw) - len(raw.decode("utf-8", "ignore").encode())


# -- the texts ------------------------------------------------------------------------------------------------------

_bits = st.sampled_from([b"a", b"b ", b"\r", b"\r\n", b"\n", b"\n\n", b"\xc3\xa9", b"\xff", b"\xe2\x82", b"\t",
                         b"NEEDLE", b"NEEDLE\r\n", b"NEE", b"DLE"])
_long = st.builds(lambda n, c: c * n, st.integers(B - 40, 3 * B), st.sampled_from([b"x", b"\xc3\xa9", b"y\xff"]))


@st.composite
def texts(draw) -> bytes:
    """CRLF and LF lines, empty lines, non-UTF-8 bytes, lines longer than the bound around a match, and (often) no
    newline at the end; up to about 20 KB, so that with 4 KiB frames the lines and windows span frames."""
    parts = draw(st.lists(st.one_of(_bits, _bits, _bits, _long, st.binary(max_size=12)), max_size=60))
    return b"".join(parts)[:20_000]


def _tools(store) -> tuple[ScratchTools, object]:
    scope = store.scope("r", "a")
    return ScratchTools(scope), scope


# -- context="line" -------------------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=texts())
def test_line_windows_of_a_substring_equal_the_split_lines(small_frames_store, data):
    tools, scope = _tools(small_frames_store)
    handle = scope.spill(data, source_tool="t").handle
    reply = line_search(tools, {"handle": handle, "match": "NEEDLE", "context": "line", "max_matches": 1000,
                                       "budget": MAX_REPLY_BYTES})
    assert reply_size(reply) <= MAX_REPLY_BYTES
    check_windows(data, reply, literal_spans(data, NEEDLE))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=texts(), pattern=st.sampled_from([rb"NE+DLE", rb"^b", rb"LE\r?\n", rb"\r$", rb"a\nb", rb"\n"]))
def test_line_windows_of_a_pattern_equal_the_split_lines(small_frames_store, data, pattern):
    """Patterns that match at a line's start, take in its end (\\r, \\n) or span two lines: the window shows each
    match whole, its line or lines around it."""
    tools, scope = _tools(small_frames_store)
    handle = scope.spill(data, source_tool="t").handle
    spans = pattern_spans(data, pattern)
    if len(spans) > 300:  # (a reply of 64 KiB holds the windows of a few hundred matches)
        return
    reply = line_search(tools, {"handle": handle, "pattern": pattern.decode(), "context": "line",
                                       "max_matches": 1000, "budget": MAX_REPLY_BYTES})
    check_windows(data, reply, spans)


def test_a_line_of_3_mb_gives_a_bounded_window_that_says_the_line_goes_on(store):
    """Minified JavaScript: one 3 MB line, matches in the middle and 500 bytes apart; the reply is bounded and its
    windows say that the line goes on before and after."""
    data = b"var a=1;" * 200_000 + b"NEEDLE();" + b"b" * 500 + b"NEEDLE();" + b"c=2;" * 300_000 + b"\n"
    tools, scope = _tools(store)
    handle = scope.spill(data, source_tool="t").handle
    reply = line_search(tools, {"handle": handle, "match": "NEEDLE", "context": "line"})
    assert reply_size(reply) <= store.settings.reply_budget_bytes
    (window,) = reply["windows"]  # two matches 509 bytes apart on one line: one window
    first = data.find(NEEDLE)
    last = data.find(NEEDLE, first + 1)
    assert window["cut"] == "both"
    assert (window["offset"], window["length"]) == (first - B, last + len(NEEDLE) + B - (first - B))
    assert window["line"] == 1 and [m["offset"] for m in window_hits(window)] == [first, last]
    assert reply["next_offset"] is None


@pytest.mark.parametrize(("before", "after", "cut"), [(700, 800, None), (1000, 1000, "both")])
def test_a_small_budget_keeps_one_line_window_and_cuts_it_only_when_it_must(store, before, after, cut):
    """Lines of 1,506 and 2,006 bytes (shorter than the bound) in replies of 2,048 bytes: one window a reply; the
    first line shown whole, the second cut to fit, marked as cut, and the note says which. The model's window of the
    whole line is its line and text (offsets in the web's, ``full_windows``): ~70 bytes fewer, so its reply fits
    the one line without cutting anything and its note is the one of a page of whole windows (naming a number of
    bytes as context=, as the other does: before, it named "a smaller context=", which context="line" has not)."""
    line = b"p" * before + b"NEEDLE" + b"q" * after
    data = (line + b"\n") * 10
    tools, scope = _tools(store)
    handle = scope.spill(data, source_tool="t").handle
    arguments = {"handle": handle, "match": "NEEDLE", "context": "line", "budget": 2048}
    reply = tools.call("read_handle", arguments, full_windows=True)
    model = tools.call("read_handle", arguments)
    assert reply_size(reply) <= 2048 and reply_size(model) <= 2048
    if cut is None:
        assert model["windows"] == [{"line": 1, "data": line.decode()}]
        assert model["note"] == ("the budget (2048 bytes) cut this reply to 1 of max_matches=20 matches; next_call "
                                 "goes on (a larger budget=, up to 65536, or a number of bytes as context= shows "
                                 "more matches a reply); count=true counts them all; before=15070 shows the last "
                                 "ones")
    else:
        assert model == reply
    assert model["next_call"] == reply["next_call"] and model["next_offset"] == reply["next_offset"]
    (window,) = reply["windows"]
    assert window.get("cut") == cut
    assert window["data"].encode() == data[window["offset"] : window["offset"] + window["length"]]
    assert (window["offset"], window["length"]) == (0, len(line)) if cut is None else (
        window["offset"] > 0 and window["length"] < len(line))
    assert reply["next_offset"] == len(line) + 1 + before
    assert 'context="line"' in reply["next_call"]
    assert reply["note"].startswith("the budget (2048 bytes) cut this reply to one match" + (
        "; a" if cut is None else " and its line cut to fit (cut says where); a"))


def test_grep_like_question_on_a_fixture_by_lines(store, fixture_data):
    """The fixture's grep output: the lines holding 'def __init__(self, name' are those of the split lines, whole,
    each in a window of its own (no byte of a neighbouring line), in fewer reply bytes than 80 bytes of context."""
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    tools, scope = _tools(store)
    handle = scope.spill(data, source_tool="workspace.grep").handle
    needle = "def __init__(self, name"
    by_line = tools.call("read_handle", {"handle": handle, "match": needle, "context": "line", "max_matches": 20})
    want = [(i + 1, text) for i, text in enumerate(data.split(b"\n")) if needle.encode() in text]
    assert [(w["line"], w["data"].encode()) for w in by_line["windows"]] == want
    assert len(want) == 13 and by_line["next_call"] is None
    assert all("cut" not in w for w in by_line["windows"])
    by_bytes = tools.call("read_handle", {"handle": handle, "match": needle, "context": 80, "max_matches": 20})
    assert sum(len(window_hits(w)) for w in by_bytes["windows"]) == 13 and by_bytes["next_call"] is None
    assert reply_size(by_line) < reply_size(by_bytes)


def test_line_windows_over_an_html_text_view(store, fixture_data):
    """view="text" with context="line": each window is a whole line of the page's text view (offsets the view's)."""
    page = fixture_data["browser-rust-book.html"]
    tools, scope = _tools(store)
    handle = scope.spill(page, source_tool="browser.get").handle
    text, _ = scope.structure.text_view(handle)
    view = text.encode()
    reply = line_search(tools, {"handle": handle, "view": "text", "match": "ownership", "context": "line",
                                       "max_matches": 5, "budget": MAX_REPLY_BYTES})
    assert reply["view"] == "text" and 'context="line"' in reply["next_call"]
    spans = literal_spans(view, b"ownership")
    want = reference_windows(view, spans)[: len(reply["windows"])]
    assert len(want) >= 3
    for shown, ref in zip(reply["windows"], want, strict=True):
        assert (shown["offset"], shown["offset"] + shown["length"], shown["line"]) == (ref["lo"], ref["hi"],
                                                                                        ref["line"])
        assert shown["data"].encode() == view[ref["lo"] : ref["hi"]]


@pytest.mark.parametrize("bad", ["lines", "LINE", "", -1, 1.5, True, 8193, [1], {"line": 1}, None])
def test_a_bad_context_is_one_error_naming_both_forms(store, bad):
    tools, scope = _tools(store)
    handle = scope.spill(b"a NEEDLE\n", source_tool="t").handle
    with pytest.raises(InvalidArgument, match=r'^context must be an integer from 0 to 8192 .* or "line" '):
        tools.call("read_handle", {"handle": handle, "match": "NEEDLE", "context": bad})
    if bad is not None:  # (None is no context given, to the Python API)
        with pytest.raises(InvalidArgument, match=r'^context must be an integer from 0 to 8192 .* or "line" '):
            scope.search(handle, "NEEDLE", context=bad)
    with pytest.raises(InvalidArgument, match="count cannot be combined with context"):
        tools.call("read_handle", {"handle": handle, "match": "NEEDLE", "context": "line", "count": True})


def test_an_integral_float_context_is_its_integer(store):
    tools, scope = _tools(store)
    handle = scope.spill(b"a NEEDLE b\n", source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, "match": "NEEDLE", "context": 2.0})
    assert reply["windows"][0]["data"] == "a NEEDLE b"
    assert "context=2," in json.dumps(reply) or reply["next_call"] is None


# -- line=-N --------------------------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=texts(), back=st.integers(1, 70), count=st.integers(1, 70))
def test_lines_from_the_end_equal_the_last_split_lines(small_frames_store, data, back, count):
    """``line=-N, lines=K`` reads ``lines[-N:][:K]`` (from the first line when N passes it, as tail -n does, and the
    reply says so); ``first_line`` is the positive number; ``total_lines`` is the stub's ``lines``."""
    tools, scope = _tools(small_frames_store)
    stub = scope.spill(data, source_tool="t")
    ref = lines_of(data)
    want = ref[-back:][:count]
    first = max(1, len(ref) - back + 1)
    got = scope.read_handle(stub.handle, line=-back, lines=count)
    assert got.total_lines == len(ref) == stub.lines
    assert got.first_line == first
    assert got.data == b"".join(want)
    assert got.offset == sum(len(x) for x in ref[: first - 1])
    reply = tools.call("read_handle", {"handle": stub.handle, "line": -back, "lines": count,
                                       "budget": MAX_REPLY_BYTES})
    assert reply_size(reply) <= MAX_REPLY_BYTES
    assert reply["first_line"] >= first and reply["total_lines"] == len(ref)
    shown = data[reply["offset"] : reply["offset"] + reply["length"]]
    tail = reply["next_line"] is None and len(shown) < len(b"".join(want))  # (cut from the front, as tail is)
    assert b"".join(want).endswith(shown) if tail else shown == b"".join(want)[: len(shown)]
    assert reply.get("encoding") == "hexdump" or reply["data"] == shown.decode("utf-8", "replace")
    assert ("note" in reply) == (back > len(ref) and not tail)
    first = reply["first_line"] if tail else first
    at_line = reply["offset"] == sum(len(x) for x in ref[: first - 1])  # (else the last line's last bytes)
    if back > len(ref) and not tail:
        lines = f"{len(ref)} line" + ("" if len(ref) == 1 else "s")
        assert reply["note"] == f"line=-{back} is before the first line ({lines}): read from line 1, as tail -n does"
    if reply["next_call"] is not None:  # the rest of the page, else the lines before (line=-N before end=)
        _, arguments = parse_call(reply["next_call"])
        following = tools.call("read_handle", arguments)
        if reply["next_line"] is not None:  # it did not ask up to the end: it reads on from where it stopped
            assert following["offset"] == reply["offset"] + reply["length"]
        elif at_line:  # the lines just before the first one read, as many as asked (all that are left)
            assert arguments["end"] == reply["offset"] and arguments["line"] < 0
            earlier = b"".join(ref[max(0, first - 1 - count) : first - 1])
            shown_before = data[following["offset"] : following["offset"] + following["length"]]
            # all of them when they fit the budget, else their last lines whole, or the last one's last bytes, cut
            # from the front as tail is (a 34 kB line of \xff bytes, 6 JSON bytes each as \ufffd: Hypothesis 6.170.29)
            assert following["offset"] + following["length"] == reply["offset"] and shown_before
            assert earlier.endswith(shown_before) and following["first_line"] >= max(1, first - count)
            if following["offset"] == sum(len(x) for x in ref[: max(0, first - 1 - count)]):
                assert following["first_line"] == max(1, first - count) and shown_before == earlier
            assert following["next_line"] is None  # (it reached the first line read: it goes back in its turn)
    else:
        assert first == 1 and at_line  # line 1 was read: nothing is before it


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=texts(), wide=st.sampled_from([b"", "\u00e9\u20ac\U0001f600".encode() * 900, b"\x00\xff\"\\" * 1500]),
       back=st.integers(1, 40), budget=st.sampled_from([2048, 3000, 8192, MAX_REPLY_BYTES]))
def test_a_read_from_the_end_goes_back_to_line_1_each_byte_once(small_frames_store, data, wide, back, budget):
    """Following the next_call of ``line=-N`` gives every byte once, back to line 1, and ends (null). The page
    before the last went forwards again, into the lines already read (and ended there); a page the budget cut read
    on to the end and ended; a last line longer than the budget was read on by bytes and ended."""
    data = data[: len(data) // 2] + wide + data[len(data) // 2 :]
    tools, scope = _tools(small_frames_store)
    handle = scope.spill(data, source_tool="t").handle
    call, seen, pages = ("read_handle", {"handle": handle, "line": -back, "lines": back, "budget": budget}), [], 0
    while call is not None and pages <= len(data) + 1:
        reply = tools.call(*call)
        assert reply_size(reply) <= budget
        seen.append((reply["offset"], reply["offset"] + reply["length"]))
        shown = data[seen[-1][0] : seen[-1][1]]
        assert reply.get("encoding") == "hexdump" or reply["data"] == shown.decode("utf-8", "replace")
        call, pages = (parse_call(reply["next_call"]) if reply["next_call"] else None), pages + 1
    assert call is None  # (no loop)
    assert [end for _, end in seen] == [len(data), *(start for start, _ in seen[:-1])]  # each page before the last
    assert seen[-1][0] == 0 or not data


def test_the_last_lines_past_the_64_kib_cap_are_read_back_to_line_1(store):
    """``scope.read_handle(line=-N)`` whose last N lines pass the 64 KiB cap: the last lines within it, whole (its
    first lines left to the read before), and a last line longer than the cap: its last 64 KiB (``inside``), the
    rest of the line the next read. The read was cut at its back, read on to the end and ended there."""
    _, scope = _tools(store)
    data = b"".join(b"%d " % i + b"w" * 20_000 + b"\n" for i in range(8)) + "\u00e9".encode() * 70_000 + b"\n"
    handle = scope.spill(data, source_tool="t").handle
    got = scope.read_handle(handle, line=-3, lines=3)
    assert (got.first_line, got.inside, got.offset + len(got.data)) == (9, True, len(data))
    assert len(got.data) <= 65536 and got.data[0] & 0xC0 != 0x80  # (a character's first byte)
    pages = [got]
    while pages[-1].next_call is not None:
        _, arguments = parse_call(pages[-1].next_call)
        pages.append(scope.read_handle(**arguments))
        assert pages[-1].offset + len(pages[-1].data) == pages[-2].offset and len(pages) < 20
    assert b"".join(p.data for p in reversed(pages)) == data and pages[-1].offset == 0
    assert [p.first_line for p in pages[2:]] == [7, 4, 1]  # (each as many lines as fit in 64 KiB: 3)


def test_the_last_50_lines_of_a_fixture(store, fixture_data):
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    tools, scope = _tools(store)
    handle = scope.spill(data, source_tool="workspace.grep").handle
    ref = lines_of(data)
    reply = tools.call("read_handle", {"handle": handle, "line": -50, "lines": 50, "budget": MAX_REPLY_BYTES})
    assert reply["data"].encode() == b"".join(ref[-50:])
    assert (reply["first_line"], reply["lines"], reply["next_line"]) == (len(ref) - 49, 50, None)
    # a read from the end goes on backwards: the 50 lines before it, then the 50 before those, ... to line 1
    verb, arguments = parse_call(reply["next_call"])
    assert (verb, arguments) == ("read_handle", {"handle": handle, "line": -50, "budget": MAX_REPLY_BYTES,
                                                 "end": reply["offset"]})  # (the 50 lines before the first read)
    before = tools.call("read_handle", arguments)
    assert before["data"].encode() == b"".join(ref[-100:-50]) and before["next_line"] is None
    assert parse_call(before["next_call"])[1] == {**arguments, "end": before["offset"]}
    last = tools.call("read_handle", {"handle": handle, "line": -1, "lines": 1})
    assert last["data"].encode() == ref[-1] and last["first_line"] == len(ref)


@pytest.mark.parametrize("bad", [0, True, 1.5, "-1"])
def test_line_zero_and_other_bad_lines_are_refused(store, bad):
    tools, scope = _tools(store)
    handle = scope.spill(b"a\nb\n", source_tool="t").handle
    with pytest.raises(InvalidArgument, match="line"):
        tools.call("read_handle", {"handle": handle, "line": bad})
    if bad == 0:
        with pytest.raises(InvalidArgument, match=r"^line must be a line number from 1, or negative"):
            scope.read_handle(handle, line=0)


def test_the_last_line_of_an_empty_content(store):
    tools, scope = _tools(store)
    handle = scope.spill(b"", source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, "line": -1})
    assert (reply["data"], reply["first_line"], reply["total_lines"], reply["next_call"]) == ("", 1, 0, None)


def test_the_schema_says_both_forms():
    props = TOOL_SPECS["read_handle"].input_schema["properties"]
    assert props["context"]["anyOf"] == [{"type": "integer", "minimum": 0, "maximum": 8192}, {"const": "line"}]
    assert "minimum" not in props["line"] and "-1 is the last line" in props["line"]["description"]


# -- the MCP face ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("era", one_era(0))  # (reads of the server, the same under either client era; the
# byte-exact contract test, test_mcp_server.py, runs both)
def test_line_windows_and_the_last_lines_over_stdio(era, tmp_path, fixture_data):
    """``scratchfs mcp`` with the official client: the schema lists both forms of context, a search by lines gives
    the split lines, line=-3 the last three, a bad context is a tool error naming both forms."""
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    with ScratchStore(tmp_path) as store:
        handle = store.scope("run-1", "agent-1").spill(data, source_tool="workspace.grep").handle
    ref = lines_of(data)

    async def body():
        async with connect(scratchfs_params("mcp", "--root", str(tmp_path), "--run", "run-1", "--agent", "agent-1"),
                           era) as client:
            (tool,) = [t for t in (await client.list_tools()).tools if t.name == "read_handle"]
            assert {"const": "line"} in tool.input_schema["properties"]["context"]["anyOf"]
            found = payload(await client.call_tool("read_handle", {"handle": handle, "match": "def __enter__",
                                                                   "context": "line"}))
            want = [(i + 1, t.rstrip(b"\n")) for i, t in enumerate(ref) if b"def __enter__" in t]
            assert want and [(w["line"], w["data"].encode()) for w in found["windows"]] == want
            tail = payload(await client.call_tool("read_handle", {"handle": handle, "line": -3, "lines": 3}))
            assert (tail["data"].encode(), tail["first_line"]) == (b"".join(ref[-3:]), len(ref) - 2)
            bad = error_of(await client.call_tool("read_handle", {"handle": handle, "match": "x", "context": "lines"}))
            assert bad.startswith('invalid argument: context must be an integer from 0 to 8192') and '"line"' in bad

    run(body)


def test_a_line_that_ends_after_the_buffer_did_not_join_the_next_lines_window(small_frames_store):
    """Matches near the end of a 4 KiB frame: two on one line that ends right after the second, one at the start of
    the next line, whose line goes on into the next frame (its end an upper bound until that frame is read): two
    windows, as the split lines say, the second read on into the next frame."""
    data = b"a" * 3900 + b"NEEDLE" + b"b" * 44 + b"NEEDLE" + b"cccc\n" + b"NEEDLE" + b"d" * 5000 + b"\n"
    tools, scope = _tools(small_frames_store)
    handle = scope.spill(data, source_tool="t").handle
    reply = line_search(tools, {"handle": handle, "match": "NEEDLE", "context": "line",
                                       "budget": MAX_REPLY_BYTES})
    check_windows(data, reply, literal_spans(data, NEEDLE))
    assert [w["line"] for w in reply["windows"]] == [1, 2]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=texts(), budget=st.integers(2048, 9000), max_matches=st.integers(1, 30))
def test_paging_line_windows_in_small_budgets_finds_every_match_once(small_frames_store, data, budget, max_matches):
    """Following next_call with context="line" and a small budget: every reply fits it, every window's text is the
    bytes it names, and the matches shown are the substring's, each once, by their offsets in the windows that keep
    them (``full_windows``, the web's). In the model's, a whole line's window is line N's text exactly (a line of
    more matches than max_matches shown again for the rest), and the lines shown are those holding a match."""
    tools, scope = _tools(small_frames_store)
    handle = scope.spill(data, source_tool="t").handle
    spans = literal_spans(data, NEEDLE)
    starts = [0] + [at + 1 for at in range(len(data)) if data[at] == 10]
    for full in (True, False):
        seen: list[int] = []
        lines: set[int] = set()
        offset: int | None = 0
        while offset is not None:
            reply = tools.call("read_handle", {"handle": handle, "match": "NEEDLE", "context": "line",
                                               "offset": offset, "budget": budget, "max_matches": max_matches},
                               full_windows=full)
            assert reply_size(reply) <= budget
            for w in reply["windows"]:
                lines.add(w["line"])
                if "offset" not in w:  # (the model's whole line)
                    assert not full and (w.get("encoding") == "hexdump" or
                                         w["data"] == text_lines(data)[w["line"] - 1])
                    continue
                if w.get("encoding") != "hexdump":
                    assert w["data"] == data[w["offset"] : w["offset"] + w["length"]].decode("utf-8", "replace")
                seen += [m["offset"] for m in window_hits(w)]
            assert reply["next_call"] is None or 'context="line"' in reply["next_call"]
            offset = reply["next_offset"]
        assert lines == {bisect.bisect_right(starts, s) for s, _ in spans}
        if full:
            assert seen == [s for s, _ in spans]
