"""Where a jq read over content that is not JSON throughout says it stopped, and the calls it names (helper replies8,
from the closing note of 2026-12-06's first stop): JSON lines whose first record starts like no JSON (``{oops``) were
refused by our scan of the first bytes in 73 B naming no call; a bad record ended by its newline (``{oops`` then
``\\n``) was named one line late (jq's ``column 0``: the newline it counts before it reports), so a bad LAST record
was advised ``record=N+1``, past the last, and one cut at the end "put a ? after the failing step"; a parse error
far into a long line after the first named ``line=L, lines=5``, whose read may end before the byte. Every call a
reply names is followed and asserted to answer."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument, NotJson
from tests.following import outputs_to_end

GOOD = [json.dumps({"n": i}) + "\n" for i in range(300)]


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _jq_all(tools: ScratchTools, handle: str) -> tuple[list, list[str]]:
    """The outputs of ``jq=".n"`` page by page up to the page or refusal that meets the parse error, and the texts
    (notes, refusals) that name it."""
    out, said, arguments = [], [], {"handle": handle, "jq": ".n"}
    while True:
        try:
            reply = tools.call("read_handle", arguments)
        except InvalidArgument as exc:
            return out, [*said, str(exc)], list(exc.calls)
        out += reply["results"]
        if "not JSON" in (reply.get("note") or ""):
            said.append(reply["note"])
            calls = [c["arguments"] for c in reply.get("calls", [])]
            if reply["next_call"] is None:
                return out, said, calls
        if reply["next_call"] is None:
            return out, said, []
        _, arguments = parse_call(reply["next_call"])


@pytest.mark.parametrize("bad", ["{oops", "[}", "{1: 2}", "tru"])
@pytest.mark.parametrize("where", [0, 150])
def test_a_record_that_starts_like_no_json_names_the_records_read_that_passes_over_it(tools, scratch_scope, bad,
                                                                                      where):
    """At the start our scan refused it as a document, with no offset and no call; in the middle jq named the line
    after it. Both name record K, jq=".n", which gives every other record's output."""
    data = ("".join(GOOD[:where]) + bad + "\n" + "".join(GOOD[where:])).encode()
    stub = scratch_scope.spill(data, source_tool="log")
    assert stub.content_type == "jsonl", stub.shape
    out, said, calls = _jq_all(tools, stub.handle)
    assert out == list(range(where)), said
    assert f"not JSON at line {where + 1:,}" in said[-1], said
    call = calls[0] if not isinstance(calls[0], dict) else None
    arguments = dict(call.arguments) if call is not None else calls[0]
    assert arguments == {"handle": stub.handle, "record": where + 1, "jq": ".n"}, said
    assert outputs_to_end(tools, arguments) == list(range(where, 300))


def test_our_scan_s_refusal_carries_the_byte_it_stopped_at(scratch_scope):
    from scratchfs.engine.structure.jsonscan import refuse_unlike_json
    from scratchfs.engine.structure.paging import BytesSource

    with pytest.raises(NotJson) as refused:
        refuse_unlike_json(BytesSource(b" \n\n{ oops\n"))
    assert (refused.value.offset, refused.value.line, refused.value.by_jq) == (5, None, False)  # (line: jq's)


@pytest.mark.parametrize("tail", ["{oops\n", "{oops", '{"n": oops}\n', '{"n":\n', '{"n": 1,}\r\n\n  \n'])
def test_a_broken_last_record_names_no_record_past_it(tools, scratch_scope, tail):
    """Its advice named record=N (or N + 1, past the last), refused as the last record, or "put a ?": it says the
    record is the last and no record follows it, and every call the read names answers."""
    data = ("".join(GOOD) + tail).encode()
    stub = scratch_scope.spill(data, source_tool="log")
    out, said, calls = _jq_all(tools, stub.handle)
    assert out == list(range(300)), said
    assert "record 301 (line 301), the last, is not JSON and no record follows it" in said[-1], said
    assert "put a ?" not in said[-1] and "record=30" not in said[-1] and "next_call" not in said[-1], said
    for call in calls:
        tools.call("read_handle", call if isinstance(call, dict) else dict(call.arguments))


def test_the_page_that_names_a_failure_is_the_one_that_reaches_it(tools, scratch_scope):
    """A first page of 1,000 outputs (its most) named the broken 2,001st record's error "on output 1,001: this page
    ends before it": the failure belongs to the page that reaches it, which names output 2,001 and, the record being
    the last, ends the read (a next_call would only meet its refusal)."""
    data = ("".join(json.dumps({"n": i}) + "\n" for i in range(2000)) + "{oops\n").encode()
    handle = scratch_scope.spill(data, source_tool="log").handle
    first = tools.call("read_handle", {"handle": handle, "jq": ".n"})
    assert first["results"] == list(range(1000)) and "note" not in first, first.get("note")
    second = tools.call("read_handle", parse_call(first["next_call"])[1])
    assert second["results"] == list(range(1000, 2000)), second["first"]
    assert "on output 2,001: this page ends before it, and so does the read" in second["note"], second["note"]
    assert second["next_call"] is None


def test_a_parse_error_far_into_a_long_line_after_the_first_names_the_bytes_around_it(tools, scratch_scope):
    """A document on three lines, its third 2.2 MB: jq's parse error there named line=3, lines=5 (a read that ends
    before the byte); it names the 200 bytes around the byte where jq stopped, which show it."""
    body = json.dumps({"items": [{"n": i, "name": "x" * 20} for i in range(60_000)]})
    doc = ("{\n\"head\": 1,\n\"data\": " + body + "\n}\n").replace('{"n": 50000,', '{"n": 50000,,', 1).encode()
    stub = scratch_scope.spill(doc, source_tool="fetch")
    assert stub.content_type == "json", stub.shape
    with pytest.raises(NotJson) as refused:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".head"})
    at = doc.index(b'50000,,') + len(b'50000,')  # (the second comma: where jq's parser stopped)
    assert refused.value.offset == at and f"at byte {at:,}" in str(refused.value), refused.value
    (call,) = refused.value.calls
    assert dict(call.arguments) == {"handle": stub.handle, "offset": at - 100, "length": 200}
    shown = tools.call("read_handle", dict(call.arguments))["data"]
    assert '{"n": 50000,,' in shown, shown



@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from([b"a", b"\n", b"bc", b"\r\n"]), max_size=80), line=st.integers(1, 50),
       column=st.integers(0, 6), chunk=st.integers(1, 9))
def test_jq_s_line_and_column_map_to_the_byte_the_plain_split_finds(monkeypatch, parts, line, column, chunk):
    """The byte a jq parse error names (line L's first byte + column - 1), against the plain answer of a split at
    newlines, with the MiB counting window shrunk to a few bytes (its walk and bisection)."""
    from scratchfs.engine.structure import jsondoc, row_jump

    monkeypatch.setattr(row_jump, "WINDOW_BYTES", chunk)
    data = b"".join(parts)
    lines = data.split(b"\n")
    got = jsondoc._stopped_at(f"parse error: Invalid literal at line {line}, column {column}", data)
    if line > len(lines):
        assert got is None
    else:
        assert got == max(0, sum(len(text) + 1 for text in lines[: line - 1]) + column - 1)


@pytest.mark.parametrize("start", [b"\xef\xbb\xbf", b" \n\n", b"\r\n"])
def test_a_first_record_our_scan_refuses_after_a_bom_or_blank_lines_is_record_1(tools, scratch_scope, start):
    data = start + b"{oops\n" + "".join(GOOD).encode()
    stub = scratch_scope.spill(data, source_tool="log")
    with pytest.raises(NotJson) as refused:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".n"})
    (call,) = refused.value.calls
    assert dict(call.arguments) == {"handle": stub.handle, "record": 1, "jq": ".n"}, refused.value
    assert outputs_to_end(tools, dict(call.arguments)) == list(range(300))


@pytest.mark.parametrize(("tail", "after"), [
    ('{"s": "cut\n123\n', [123]),  # (jq: at EOF, line 303: the string runs to the end)
    ('{"s": "cut\n123', [123]),
    ('{"n": 1\n[2]\n', [[2]]),  # (an object missing its brace: the next line's [ is where jq stops)
    ('{"s": "cut\n123\n{"n": 7}\n"x"\n', [123, {"n": 7}, "x"]),  # (in the middle: jq stops at line 303's n)
    ('{"n": 1\r\n\r\n\n[2]\r\n\n', [[2]]),
    ('"open\n{"n": 7}\n', [{"n": 7}]),  # (a whole string to a lenient parse: "open\n{")
    ('{"s": "' + "x" * 100_000 + '"\n[2]\n', [[2]]),  # (a long record: its line starts 100 KB back)
])
def test_a_record_cut_inside_a_string_names_its_own_record_not_the_one_jq_stops_in(tools, scratch_scope, tail,
                                                                                    after):
    """hostile11: jq reads a string cut short on across the line ends after it (it refuses the raw newlines only
    where the string ends, at the next quote), so its parse error names a later line than the broken record's
    (row_jump.broken_start finds where it starts; tests/test_jsonl_cut_records.py). Past those: CRLF and blank
    lines, and a long record -- its line begun 100 KB back, past the 64 KiB look-back: record 302 (``[2]``, good
    JSON) was called "the last, ... the outputs before it are all the filter gives", lost without a word. Each
    names record 301, whose records read passes over it, naming it, and gives every good record after it."""
    data = ("".join(GOOD) + tail).encode()
    stub = scratch_scope.spill(data, source_tool="log")
    assert stub.content_type == "jsonl", stub.shape
    out, said, calls = _jq_all(tools, stub.handle)
    assert out == list(range(300)), said
    arguments = [call if isinstance(call, dict) else dict(call.arguments) for call in calls]
    assert arguments == [{"handle": stub.handle, "record": 301, "jq": ".n"}], said
    dot = outputs_to_end(tools, {**arguments[0], "jq": "."})
    assert dot == after


def test_a_parse_error_on_line_1_after_a_byte_order_mark_names_its_own_byte(tools, scratch_scope):
    """hostile11: jq's columns of line 1 leave the byte order mark out, so a minified document's error was placed
    3 bytes before the byte (``not valid JSON at byte 2,288,913`` of a comma at 2,288,916)."""
    body = json.dumps({"items": [{"n": i, "name": "x" * 20} for i in range(60_000)]})
    doc = b"\xef\xbb\xbf" + body.replace('{"n": 50000,', '{"n": 50000,,', 1).encode()
    stub = scratch_scope.spill(doc, source_tool="fetch")
    assert stub.content_type == "json", stub.shape
    with pytest.raises(NotJson) as refused:
        tools.call("read_handle", {"handle": stub.handle, "jq": ".items[0]"})
    at = doc.index(b"50000,,") + len(b"50000,")
    assert refused.value.offset == at and f"at byte {at:,}" in str(refused.value), refused.value
    (call,) = refused.value.calls
    assert dict(call.arguments) == {"handle": stub.handle, "offset": at - 100, "length": 200}


@pytest.mark.parametrize(("tail", "after"), [
    ('{"s": "cut\n123\n', [123]),
    ('{"s": "cut\n123\n{"n": 7}\n', [123, {"n": 7}]),
])
def test_a_record_cut_inside_a_string_after_a_byte_not_utf8_is_named_too(tools, scratch_scope, tail, after):
    """hostile11: a byte that is not UTF-8 anywhere before (jq is given the text with U+FFFD for it, so its parse
    error has no byte of the content) left the cut record unplaced: record 303 (``123``, good JSON) was called "the
    last, ... all the filter gives", or the records read began past it -- lost without a word. The record is found
    from the first byte of jq's line instead."""
    data = b'{"b": "\xff"}\n' + ("".join(GOOD) + tail).encode()
    stub = scratch_scope.spill(data, source_tool="log")
    assert stub.content_type == "jsonl", stub.shape
    out, said, calls = _jq_all(tools, stub.handle)
    assert out == [None, *range(300)], said
    arguments = [call if isinstance(call, dict) else dict(call.arguments) for call in calls]
    assert arguments == [{"handle": stub.handle, "record": 302, "jq": ".n"}], said
    assert outputs_to_end(tools, {**arguments[0], "jq": "."}) == after


_CUT = [b'{"s": "cut', b'{"n": 1', b'{"a": [1, 2', b'"open', b'{"s": "' + b"x" * 70_000]  # (the last: past 64 KiB)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.integers(0, 40), bad=st.sampled_from(_CUT), after=st.lists(st.sampled_from(
    [b"123", b"[2]", b'"x"', b'{"n": 7}', b"true"]), min_size=1, max_size=4), crlf=st.booleans(),
    foreign=st.booleans(), blank=st.booleans())
def test_every_good_record_around_one_cut_short_is_read_by_the_calls_named(tools, scratch_scope, where, bad, after,
                                                                          crlf, foreign, blank):
    """hostile11: JSON lines with one record cut short (a string, a bracket; a long one) among good ones, CRLF or
    blank lines, a byte not UTF-8 before it or not: the outputs of jq=".", then of the call its refusal names,
    are every good record in order, the cut one passed over -- none lost, none twice."""
    end = b"\r\n" if crlf else b"\n"
    good = [b'{"b": "\xff"}'] if foreign else []
    good += [json.dumps({"n": i}).encode() for i in range(where)]
    lines = [*good, bad, *([b""] if blank else []), *after]
    stub = scratch_scope.spill(b"".join(g + end for g in [json.dumps({"n": -1}).encode()] * 20 + lines),
                               source_tool="log")
    assume(stub.content_type == "jsonl")
    out, said, calls = [], [], []
    arguments = {"handle": stub.handle, "jq": "."}
    while True:
        try:
            reply = tools.call("read_handle", arguments)
        except InvalidArgument as exc:
            said, calls = [str(exc)], [dict(call.arguments) for call in exc.calls]
            break
        out += reply["results"]
        if reply["next_call"] is None:
            said, calls = [reply.get("note") or ""], [c["arguments"] for c in reply.get("calls") or []]
            break
        arguments = parse_call(reply["next_call"])[1]
    records = [call for call in calls if "record" in call]
    assert len(records) == 1, said
    expected = [json.loads(g.decode("utf-8", "replace")) for g in [json.dumps({"n": -1}).encode()] * 20 + good]
    assert out == expected, said
    assert records[0]["record"] == 21 + len(good), said
    assert outputs_to_end(tools, records[0]) == [json.loads(a) for a in after], said
