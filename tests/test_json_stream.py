"""JSON texts one after another -- what `jq .` prints over several inputs (`pip list --format json | jq '.[]'`,
`aws ... | jq '.Items[]'`), each document pretty-printed over many lines -- told as such by the stub, read by jq on
each document and by slurp=true over all of them (helper realworld: such output was stored as "text" with no jq read
named, slurp was refused as "one JSON document ... it sees the whole document", and no read could aggregate it).
Checked against the plain Python answer: the documents parsed one after another by json.JSONDecoder.raw_decode."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.engine.structure import BytesSource, slurp_page
from scratchfs.engine.structure.numbers import CONSTANTS_SAID

STREAM_SHAPE = "JSON texts one after another"
STREAM = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "jq-pip-list-stream.json"


def documents(data: bytes) -> list:
    """The plain answer: the JSON texts of ``data`` one after another (a last one cut short left out)."""
    text, decoder, found, pos = data.decode(), json.JSONDecoder(), [], 0
    while (pos := len(text) - len(text[pos:].lstrip())) < len(text):
        try:
            value, pos = decoder.raw_decode(text, pos)
        except ValueError:
            break
        found.append(value)
    return found


def pages(tools: ScratchTools, args: dict) -> list:
    """Every output of a jq read, following next_call to the end (each page's results; none here is cut in parts)."""
    reply, out = tools.call("read_handle", args), []
    while True:
        assert "part" not in reply
        out += reply["results"]
        if reply["next_call"] is None:
            return out
        name, args = parse_call(reply["next_call"])
        reply = tools.call(name, args)


def test_stub_of_jq_output_names_documents_and_jq_reads(scope):
    data = STREAM.read_bytes()
    docs = documents(data)
    assert len(docs) == 60
    stub = scope.spill(data, source_tool="shell").to_dict()
    assert stub["content_type"] == "json"
    assert stub["shape"].startswith(f"{STREAM_SHAPE} (a stream, as jq prints one; a jq= filter runs on each), "
                                    "60 documents; each: name: str, version: str")
    handle = stub["handle"]
    assert f'read_handle(handle="{handle}", jq="JQ")' in stub["note"]
    assert f'read_handle(handle="{handle}", jq="JQ", slurp=True)' in stub["note"]


def test_jq_on_each_and_slurp_over_all_match_the_documents(scope):
    data = STREAM.read_bytes()
    docs = documents(data)
    tools = ScratchTools(scope)
    handle = scope.spill(data, source_tool="shell").handle
    assert pages(tools, {"handle": handle, "jq": ".name", "budget": 2048}) == [doc["name"] for doc in docs]
    assert pages(tools, {"handle": handle, "jq": "length", "slurp": True}) == [len(docs)]
    assert pages(tools, {"handle": handle, "jq": "map(.version)", "slurp": True}) == [[d["version"] for d in docs]]
    assert pages(tools, {"handle": handle, "jq": ".[]", "slurp": True, "budget": 2048}) == docs


def test_a_stream_cut_short_is_told_and_its_last_document_passed_over(scope):
    data = STREAM.read_bytes()
    cut = data[: data.index(b'"mcp"')]  # (inside the last document, as an output cut at its size limit ends)
    docs = documents(cut)
    assert len(docs) == 59
    stub = scope.spill(cut, source_tool="shell").to_dict()
    assert stub["content_type"] == "json"
    assert "59 documents, then one cut short (not JSON)" in stub["shape"]
    reply = ScratchTools(scope).read_handle(stub["handle"], jq="length", slurp=True)
    assert reply["results"] == [59]
    assert re.match(r"document 60 \(bytes \d+ to \d+\) is not JSON", reply["note"])
    start = int(re.search(r"bytes (\d+) to", reply["note"]).group(1))
    assert cut[start:].startswith(b"{") and cut[:start].rstrip().endswith(b"}")


def test_a_document_before_the_last_that_is_not_json_is_passed_over_and_the_rest_read(scope):
    data = STREAM.read_bytes()
    broken = data.replace(b'"name": "anyio"', b'"name": anyio', 1)  # (a later document parses: no cut last one)
    stub = scope.spill(broken, source_tool="shell").to_dict()
    assert stub["content_type"] == "json"  # (a stream all the same: the stub names the bad one, not the end)
    assert ("59 documents and 1 document not JSON (document 3: slurp=true passes over it, a jq= filter on each "
            "stops there); each: name: str, version: str") in stub["shape"]
    reply = ScratchTools(scope).read_handle(stub["handle"], jq="map(.name) | length", slurp=True)
    assert reply["results"] == [59]
    page = slurp_page(BytesSource(broken), "length", "documents")
    assert page.items == [59]
    bad = page.passed[0]
    start = broken.index(b'{\n  "name": anyio')
    assert (bad.record, bad.offset, broken[bad.offset + bad.length - 1 :][:2]) == (3, start, b"}\n")
    assert re.match(r"1 document is not JSON and not in the array jq was given \(the documents after it are\): "
                    rf"document 3 \(bytes {start} to \d+\) is not JSON: Expecting value at byte", page.extra["note"])


def test_a_concatenated_stream_broken_in_the_middle_drops_no_later_document(scope):
    """slurp2: 2,000 indented documents one after another ({..}{..}), the 501st cut short: the note called it "the
    last one (cut short)", its bytes the whole rest, and 1,499 later documents were dropped without a word."""
    docs = [json.dumps({"n": i}, indent=1) for i in range(2000)]
    docs[500] = docs[500][:-3]
    data = "".join(docs).encode()
    stub = scope.spill(data, source_tool="shell").to_dict()
    assert stub["content_type"] == "json"
    assert "1,999 documents and 1 document not JSON (document 501: slurp=true passes over it" in stub["shape"]
    reply = ScratchTools(scope).read_handle(stub["handle"], jq="[.[] | .n] | length", slurp=True)
    assert reply["results"] == [1999]
    start = len("".join(docs[:500]))
    assert f"document 501 (bytes {start} to {start + len(docs[500]) - 1}) is not JSON" in reply["note"]
    assert "last one" not in reply["note"]
    assert reply["calls"] == [{"tool": "read_handle", "arguments": {"handle": stub["handle"], "offset": start,
                                                                      "length": len(docs[500])}}]


def test_refusals_name_the_stream_and_its_reads(scope):
    handle = scope.spill(STREAM.read_bytes(), source_tool="shell").handle
    with pytest.raises(InvalidArgument, match=r"holds JSON texts one after another .*jq= with slurp=true"):
        ScratchTools(scope).read_handle(handle, record=1)


@pytest.mark.parametrize(("data", "kind", "start"), [
    (b'{"a": 1}\n{"a": 2}\n', "jsonl", "JSON lines"),  # (one document a line: JSON lines, as before)
    (json.dumps({"a": [1, 2]}, indent=2).encode(), "json", "JSON object"),
    (json.dumps([{"a": 1}, {"a": 2}], indent=2).encode(), "json", "JSON array"),
    (b'{\n  "a": 1\n}\nnot json\n', "json", "JSON document"),  # (a line of text after a document: no stream, the
    # document told with it: tests/test_json_part.py)
    (b'{\n  "a": 1\n}\n"a string"\n', "text", "text"),  # (a stream of objects or arrays only)
])
def test_what_is_no_stream_is_told_as_before(data, kind, start):
    shape = describe(data, len(data), data.count(b"\n"))
    assert (shape.content_type, shape.text.split(",")[0].split(" of ")[0][: len(start)]) == (kind, start)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=8), max_size=4),
                          st.lists(st.integers(), max_size=4)), min_size=2, max_size=30),
       st.sampled_from([None, 2, 0]))
def test_slurp_of_any_stream_is_its_documents(scope, values, indent):
    data = "\n".join(json.dumps(v, indent=indent, ensure_ascii=False) for v in values).encode() + b"\n"
    stub = scope.spill(data, source_tool="shell").to_dict()
    if stub["content_type"] == "jsonl":  # (one document a line -- indent None or 0 of a flat value: JSON lines)
        return
    assert stub["content_type"] == "json" and stub["shape"].startswith(STREAM_SHAPE), stub["shape"]
    assert pages(ScratchTools(scope), {"handle": stub["handle"], "jq": ".", "slurp": True}) == [values]


@pytest.mark.parametrize("indent", [2, None])
def test_a_stream_past_the_sample_estimates_its_documents(scope, indent):
    docs = [{"i": i, "name": f"n{i}", "tags": ["a"] * (i % 3)} for i in range(30_000)]
    sep = "\n" if indent else ""  # (one line in all: {..}{..}, as jq -j writes it)
    data = sep.join(json.dumps(d, indent=indent) for d in docs).encode()
    assert len(data) > 512 * 1024  # (past the sample the shape reads)
    shape = scope.spill(data, source_tool="shell").to_dict()["shape"]
    estimate = int(re.search(r"~([\d,]+) documents", shape).group(1).replace(",", ""))
    assert abs(estimate - 30_000) <= 1_500, shape  # (within 5%: its first documents are the shorter ones)


_SEPARATORS = ["", " ", "\n", "\n\n", " \t\r\n  ", "\r\n", "\t"]
_VALUES = st.one_of(st.dictionaries(st.text(max_size=6), st.integers() | st.text(max_size=8) | st.none()
                                    | st.lists(st.integers(), max_size=3), max_size=4),
                    st.lists(st.integers() | st.text(max_size=5) | st.dictionaries(st.text(max_size=3),
                                                                                   st.integers(), max_size=2),
                             max_size=4))


@st.composite
def broken_streams(draw):
    """``(text, pieces)``: JSON texts (objects, arrays; compact or indented) one after another with mixed blanks
    between them (none too), some broken -- cut short anywhere, a stray byte after the opening bracket, or one in
    place of the closing one --, in the middle or at the end; ``pieces``: ``(start, end, value or None when broken,
    whether it starts a line, not after a cut array's ``[`` or ``,``)`` by characters."""
    values = draw(st.lists(_VALUES, min_size=1, max_size=12))
    broken = draw(st.sets(st.integers(0, len(values) - 1), max_size=3))
    text, pieces = draw(st.sampled_from(_SEPARATORS)), []
    for i, value in enumerate(values):
        sep = draw(st.sampled_from(_SEPARATORS)) if i else ""
        doc = json.dumps(value, indent=draw(st.sampled_from([None, 1, 2])), ensure_ascii=draw(st.booleans()))
        if i in broken:
            how = draw(st.sampled_from(["cut", "after", "instead"]))
            doc = (doc[: draw(st.integers(1, len(doc) - 1))] if how == "cut" else
                   doc[0] + "@" + doc[1:] if how == "after" else doc[:-1] + "@")
        told = "\n" in sep and text.rstrip(" \t\r\n")[-1:] not in ("[", ",")  # (after a cut '[' or ',' it reads
        text += sep  # as the array's item, as jq reads it)
        pieces.append((len(text), len(text) + len(doc.rstrip(" \t\r\n")), None if i in broken else value,
                       told or not i))  # (a broken one's blanks at its end: no part of it)
        text += doc
    return text + draw(st.sampled_from(_SEPARATORS)), pieces


@settings(max_examples=300, deadline=None)
@given(broken_streams())
def test_slurp_of_a_stream_with_broken_documents_reads_past_each(stream):
    """slurp2: a document that is not JSON, in the middle or at the end, is never taken for the end: jq is given
    every document that parses after it (checked against the plain answer: the intact documents, each parsed by
    json.JSONDecoder.raw_decode where it was written), and each broken one is named with its byte range."""
    text, pieces = stream
    data = text.encode()
    page = slurp_page(BytesSource(data), ".", "documents", budget_bytes=65536)
    chars = [len(text[:i].encode()) for i in range(len(text) + 1)]  # (character -> byte offset)
    bad = [(b.offset, b.offset + b.length) for b in page.passed or []]
    assert len(bad) == len(page.passed or []) <= 10
    if any(value is None for *_, value, _ in pieces):
        assert page.extra["note"].count(" -- passed over") == len(bad)

    named = {at for low, high in bad for at in range(low, high)}

    def covered(start, end):  # (by one bad document, or more side by side: a '}[' in a key's text splits one)
        return all(chars[i] in named for i in range(start, end) if not text[i].isspace())

    for start, end, value, on_a_line in pieces:
        if value is None:
            assert covered(start, end), (text, bad)  # (every broken document named)
            continue
        assert json.JSONDecoder().raw_decode(text, start) == (value, end)  # (the plain answer: it parses there)
        assert not any(chars[start] == low for low, _ in bad)  # (no intact document called bad)
        if on_a_line:
            assert not covered(start, end), (text, bad)  # (taken in by a bad one only on the same line)
    expected = [value for start, end, value, _ in pieces if value is not None and not covered(start, end)]
    assert page.items == [expected]


def test_a_jq_read_stopped_by_a_broken_document_names_the_slurp_read_that_goes_past_it(scope):
    """slurp2: a jq read of JSON texts stops at one that is not JSON (jq reads nothing past it): its note names the
    slurp read of the same filter on each document, which gives the outputs of every document that parses."""
    docs = [json.dumps({"n": i}, indent=1) for i in range(300)]
    docs[100] = docs[100][:-3]
    handle = scope.spill("".join(docs).encode(), source_tool="shell").handle
    tools = ScratchTools(scope)
    reply = tools.read_handle(handle, jq=".n")
    assert "jq reads nothing past it" in reply["note"]
    slurp = {"tool": "read_handle", "arguments": {"handle": handle, "jq": ".[] | (.n)", "slurp": True}}
    assert slurp in reply["calls"]
    assert pages(tools, slurp["arguments"]) == [i for i in range(300) if i != 100]


def test_past_most_bad_documents_the_rest_is_one_named_to_the_end():
    """slurp2: a walk passes over at most MOST_BAD documents one by one (each a BadRecord held); past them the rest
    is one, named with its bytes to the end -- not dropped without a word."""
    from scratchfs.engine.structure.jsontexts import MOST_BAD, walk_documents

    text = '{"x": 1}' + "{@}" * (MOST_BAD + 5) + '{"y": 2}'
    walked = list(walk_documents(text))
    bad = [b for _, _, b in walked if b is not None]
    assert len(bad) == MOST_BAD + 1 and [text[s:e] for s, e, b in walked if b is None] == ['{"x": 1}']
    assert bad[-1].offset + bad[-1].length == len(text) and "the rest is read as one" in str(bad[-1])


@pytest.mark.parametrize(("good_lines", "bad_lines"), [(3, 1), (15, 1), (19, 3)])
def test_json_lines_with_bad_records_are_not_taken_for_a_stream(good_lines, bad_lines):
    """Documents one a line with records that are not JSON among them are read as JSON lines (or lines of text, too
    few to tell), whose record reads name each bad one -- not as JSON texts one after another with documents passed
    over: a stream's bad documents are taken only after one that spans lines (the clean-clone CI at 8a2a4b8 failed
    four record-read tests on this)."""
    good = b"".join(json.dumps({"a": i}).encode() + b"\n" for i in range(1, good_lines + 1))
    data = good + b'{"a": oops}\n' * bad_lines + good
    shape = describe(data, len(data), data.count(b"\n"))
    assert shape.content_type in ("jsonl", "text") and "one after another" not in shape.text, shape


def test_a_jq_read_whose_first_page_meets_a_broken_document_names_the_slurp_read(scope):
    """newuser9: a filter with no output before a broken document in the middle of JSON texts (``select(.n == 200)``
    over 300 documents, the 101st not JSON) was refused as a single document: "the document is not valid JSON there,
    so jq reads none of it", no way past it named -- though jq read the 100 before it and slurp=true reads those
    after. It names the slurp read of the same filter on each document, which finds the answer."""
    docs = [json.dumps({"n": i}, indent=1) for i in range(300)]
    docs[100] = docs[100].replace('"n"', "n", 1)
    handle = scope.spill("\n".join(docs).encode(), source_tool="shell").handle
    tools = ScratchTools(scope)
    with pytest.raises(InvalidArgument) as err:
        tools.read_handle(handle, jq="select(.n == 200)")
    message = str(err.value)
    assert "reads none of it" not in message and "jq reads nothing past it" in message
    call = f'read_handle(handle="{handle}", jq=".[] | (select(.n == 200))", slurp=True)'
    assert call in message
    name, args = parse_call(call)
    assert tools.call(name, args)["results"] == [{"n": 200}]


@pytest.mark.parametrize(("data", "shape", "bad"), [
    (b'{"a":1}\n{"a":NaN}\n{"a":3}\n{"a":4}\n', None, 2),  # (one a line: lines whose record 2 the reads name)
    (b'[1]\n[Infinity]\n[2]\n', None, 2),
    (b'{\n "a": 1\n}\n{\n "a": NaN\n}\n{\n "a": 3\n}\n', STREAM_SHAPE, 2),  # (over lines: a stream, document 2)
    (b'{\n "a": 1\n}\n{\n "a": 2\n}\n{"a": -Infinity, "b": [1]}\n{\n "a": 3\n}\n', STREAM_SHAPE, 3),
])
def test_a_nan_in_a_later_document_is_a_document_not_json_and_the_spill_stores_it(scope, data, shape, bad):
    """hostile17: a NaN or Infinity in any JSON text after the first made every spill of it fail with
    AttributeError ('ValueError' object has no attribute 'pos'): the describe's decoder refused the constant through
    its parse_constant hook, a ValueError naming no place, where the stream's walk read the place of a
    JSONDecodeError. jsonnan1: such a text (as Python's json writes it) is JSON now, read as jq reads it, said."""
    stub = scope.spill(data, source_tool="shell").to_dict()
    tools = ScratchTools(scope)
    assert stub["content_type"] in ("json", "jsonl") and stub["shape"].endswith(CONSTANTS_SAID), stub["shape"]
    if shape == STREAM_SHAPE:
        assert stub["shape"].startswith(shape) and "passes over" not in stub["shape"], stub["shape"]
        reply = tools.read_handle(stub["handle"], jq=".a")
        assert len(reply["results"]) == data.count(b'"a"') and reply["note"] == f"the document {CONSTANTS_SAID}"
        return
    reply = tools.read_handle(stub["handle"], record=1, records=10)
    assert reply["as_text"] == [bad - 1] and len(reply["records"]) == len(data.splitlines())
    assert reply["records"][bad - 1] == data.splitlines()[bad - 1].decode()  # (as its text: strict JSON has no NaN)
