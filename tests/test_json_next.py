"""A JSON object's stub named ``jq="keys"`` when its shape already named every key (``JSON object, 2 keys: data:
array(400) of {id: int, name: str}, total: int``): a call that told the model nothing new. Its note names the read
into the largest value the shape names instead, and that read works and answers what jq answers. The read is chosen
by the code that describes the JSON, from the values (``Shape.next_read``), where a parser once read the shape's
text back."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.engine.structure import BytesSource

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


@pytest.fixture(autouse=True)
def _stream_untimed(monkeypatch):
    """What a streamed top level's shape says of what is read, not how fast: its time bound (0.5 s) cut the stream
    of a 1.7 MiB report after 0 items in a loaded full-suite run ("runs: array(at least 0)")."""
    monkeypatch.setattr("scratchfs.api.shape_json.STREAM_SECONDS", 60.0)


def _named_jq(note: str) -> str:
    found = re.findall(r'jq="((?:[^"\\]|\\.)*)"', note)
    assert len(found) == 1, note
    return json.loads(f'"{found[0]}"')


def test_an_object_whose_shape_names_every_key_is_read_further_than_its_keys(scope):
    doc = {"data": [{"id": i, "name": f"item {i}"} for i in range(400)], "total": 400}
    stub = scope.spill(json.dumps(doc).encode(), source_tool="api.list")
    assert stub.shape.startswith("JSON object, 2 keys: data: array(400) of {id: int, name: str}, total: int")
    assert 'jq="keys' not in stub.note and _named_jq(stub.note) == ".data[0]", stub.note
    assert scope.structure.jq(stub.handle, ".data[0]").items == [doc["data"][0]]


def test_the_fixtures_object_is_read_into_its_largest_key(scope, fixture_data):
    """The EC2 model: version, metadata, operations (298 keys), shapes (428 keys): keys of the shapes, which its
    shape elides, not the four its shape names."""
    stub = scope.spill(fixture_data["api-ec2-service-model.json"], source_tool="api.get")
    assert _named_jq(stub.note) == ".shapes | keys[]", stub.note
    keys = scope.structure.jq(stub.handle, ".shapes | keys[]", budget=65536).items  # (one key a result)
    assert keys == sorted(json.loads(fixture_data["api-ec2-service-model.json"])["shapes"])


def _next_read(doc) -> str | None:
    data = json.dumps(doc).encode()  # (ASCII: a lone surrogate's escape too)
    return describe(data, len(data), data.count(b"\n") + 1).next_read


def test_the_one_object_of_an_array_of_one_is_read_into_not_whole(scope):
    """SARIF (``ruff check --output-format=sarif``): ``runs`` holds one run, the whole report. The note named
    ``jq=".runs[0]"``, which pages the report out as parts of one result (newuser19, 838 KiB of it: some hundred pages
    of 8 KiB); it names the read into that one object's largest value, its first result, which answers as jq does."""
    data = (_TOOLS / "ruff-check-sarif.json").read_bytes()
    stub = scope.spill(data, source_tool="ruff")
    assert stub.shape.startswith("JSON object, 3 keys: $schema: str, runs: array(1) of {results: array(8) of "), \
        stub.shape
    assert _named_jq(stub.note) == ".runs[0].results[0]", stub.note
    assert scope.structure.jq(stub.handle, ".runs[0].results[0]").items == [json.loads(data)["runs"][0]["results"][0]]


def test_shapes_that_do_not_name_every_key_keep_keys():
    """The read is chosen where the shape is written, from the values (nothing parses the shape back): none when
    the shape elides keys, says "at least", was cut, or for an array; never a key whose name the shape shortened."""
    assert _next_read({"a": list(range(300)), **{"a" * n: n for n in range(2, 40)}}) is None  # (39 keys: elided)
    assert _next_read({f"key_{n:02}_{'x' * 26}": list(range(300)) for n in range(12)}) is None  # (past 600 chars)
    assert _next_read({"ab" * 20: [1, 2, 3], "c": "x" * 9000}) == ".c"  # (never the shortened name)
    assert _next_read([1, 2, 3]) is None
    big = json.dumps({"a": 1, "b": "x" * (3 << 20)}).encode()  # (streamed past STREAM_BYTES: "at least")
    streamed = describe(big[:SAMPLE_BYTES], len(big), 1, BytesSource(big))
    assert "at least" in streamed.text and streamed.next_read is None, streamed.text


def test_the_read_is_chosen_from_the_values_where_the_parser_failed(scope):
    """What the text parser got wrong: an array of mixed kinds (its ``, objects {...}`` split as a key of its own:
    the count of keys disagreed, so keys), an array described without its items (read whole, though its items are
    objects), an object described without its keys (read whole, its keys unknown), a listed object ranked below a
    smaller array (its count is not in its text)."""
    deep = {"k": {"k": {"k": {"k": {"k": {"k": 1}}}}}}
    for doc, read in (({"a": [1, {"c": None}, 2]}, ".a[0]"),
                      ({"top": [[deep] * 3] * 30, "n": 1}, ".top[0]"),
                      ({"meta": {f"k{i}": deep for i in range(14)}, "n": 1}, ".meta | keys[]"),
                      ({"small": [1, 2], "meta": {"a": 1, "b": 2, "c": 3}}, ".meta")):
        doc = {**doc, "pad": "x" * 9000}  # (a preview that does not show it all)
        stub = scope.spill(json.dumps(doc).encode(), source_tool="t")
        assert _named_jq(stub.note) == read, (stub.shape, stub.note)
        got = scope.structure.jq(stub.handle, read, budget=65536).items
        assert got == _outputs_at(doc, read)


def test_a_streamed_object_is_read_into_its_largest_key(scope):
    """A document over the 512 KiB sample, its top level streamed whole: the read is chosen from what the stream
    read (an array of objects: its first item), and it works."""
    doc = {"total": 9000, "items": [{"id": i, "name": f"item number {i}", "tags": ["a", "b"]} for i in range(9000)]}
    data = json.dumps(doc).encode()
    assert len(data) > SAMPLE_BYTES
    stub = scope.spill(data, source_tool="api.list")
    assert stub.shape.startswith("JSON object, 2 keys: total: int, items: array(9000) of {id, name, tags}"), stub.shape
    assert _named_jq(stub.note) == ".items[0]", stub.note
    assert scope.structure.jq(stub.handle, ".items[0]").items == [doc["items"][0]]


def test_a_streamed_objects_array_of_one_object_is_read_for_what_its_keys_hold(scope):
    """A SARIF report over the sample (its top level streamed: the run's values not read): ``.runs[0]`` paged the
    whole report out as parts of one result (newuser19: 838 KiB, some hundred pages of 8 KiB). The note names what
    each key of the run holds, a few bytes, which answers as jq does."""
    doc = json.loads((_TOOLS / "ruff-check-sarif.json").read_bytes())
    doc["runs"][0]["results"] = doc["runs"][0]["results"] * 200
    data = json.dumps(doc, indent=2).encode()
    assert len(data) > SAMPLE_BYTES
    stub = scope.spill(data, source_tool="ruff")
    assert ", runs: array(1) of {results, tool}, " in stub.shape, stub.shape
    assert _named_jq(stub.note) == ".runs[0] | map_values(type)", stub.note
    assert scope.structure.jq(stub.handle, ".runs[0] | map_values(type)").items == [
        {"results": "array", "tool": "object"}]


_NAMES = st.one_of(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True),
                   st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), min_size=1, max_size=12))
_VALUES = st.one_of(
    st.integers(), st.none(), st.text(max_size=40),
    st.lists(st.integers(), min_size=1, max_size=40),
    st.lists(st.fixed_dictionaries({"id": st.integers(), "tag": st.text(max_size=8)}), min_size=1, max_size=40),
    st.dictionaries(_NAMES, st.integers(), min_size=1, max_size=30),
)


def _outputs_at(doc: dict, named: str) -> list:
    """What jq outputs for ``named`` (``.key``, ``."key"``, then ``[0]`` or `` | keys[]``) over ``doc``, by Python:
    the value, its first item, or its keys sorted, one output each."""
    found = re.fullmatch(r'\.(?:([A-Za-z_][A-Za-z0-9_]*)|("(?:[^"\\]|\\.)*"))(\[0\]| \| keys\[\])?', named)
    assert found is not None, named
    value = doc[found.group(1) or json.loads(found.group(2))]
    return [value[0]] if found.group(3) == "[0]" else sorted(value) if found.group(3) else [value]


@given(doc=st.dictionaries(_NAMES, _VALUES, min_size=1, max_size=8), pad=st.integers(9000, 12000))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_read_a_note_names_answers_as_jq_does(scope, doc, pad):
    """Any object of a few keys, made large by one long string: the note's jq read is keys, or one that runs and
    whose answer is the value at the path it names (its first item, or its keys, sorted, as jq gives them)."""
    doc = {**doc, "zz_padding": "x" * pad}
    stub = scope.spill(json.dumps(doc, ensure_ascii=False).encode(), source_tool="t")
    named = _named_jq(stub.note)
    got = scope.structure.jq(stub.handle, named, budget=65536).items
    if named == "keys[]":
        assert got == sorted(doc) and _next_read(doc) is None
        return
    assert got == _outputs_at(doc, named)


def test_a_key_of_a_lone_surrogate_is_spilled_and_never_named(scope):
    """``{"\\ud800": [...]}`` is JSON in ASCII bytes; its key, a lone surrogate, was named in the note's jq and the
    note's budget, encoding it as UTF-8, raised UnicodeEncodeError: the spill itself failed (found by helper
    hostile4). The note names another key's read, or keys."""
    doc = {"\ud800": [{"id": i} for i in range(50)], "a\udfffb": {"k": 1}, "pad": "x" * 10000}
    stub = scope.spill(json.dumps(doc).encode(), source_tool="t")
    assert _named_jq(stub.note) == ".pad", stub.note
    assert _next_read({"\ud800": [{"id": 1}] * 50, "b": 1}) is None


_ANY_NAMES = st.one_of(_NAMES, st.text(max_size=12), st.sampled_from(
    ["a.b", "with space", "", "$__loc__", "and", "if", "reduce", "__loc__", "a: b", "a, b", "\\(1)", "nul\x00"]))


@given(doc=st.dictionaries(_ANY_NAMES, _VALUES, min_size=1, max_size=6), pad=st.integers(9000, 10000))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_key_a_note_names_reads_its_value(scope, doc, pad):
    """Keys of any text (control characters, quotes, jq's words, lone surrogates: the JSON text then in ASCII):
    the spill succeeds and the note's read answers the value at the path it names."""
    doc = {**doc, "zz_padding": "x" * pad}
    stub = scope.spill(json.dumps(doc).encode(), source_tool="t")
    named = _named_jq(stub.note)
    got = scope.structure.jq(stub.handle, named, budget=65536).items
    if named == "keys[]":
        assert got == sorted(doc)
        return
    assert got == _outputs_at(doc, named)


def test_an_object_holding_the_largest_array_is_read_into_not_passed_over_for_one_with_more_keys(scope):
    """An API response (modeltask1: ``{"status", "request_id", "data": {"store", "products": [3,000]},
    "pagination": {page, pages, total}}``): the note named ``jq=".pagination"`` -- three numbers, ranked above
    ``data`` by its key count (3 against 2) though ``data`` holds the 3,000 products the response is about. It names
    the read into them, their first item, which answers as jq does."""
    doc = {"status": "ok", "request_id": "req-1",
           "data": {"store": {"id": 12, "name": "Central"},
                    "products": [{"id": i, "sku": f"KX-{i}", "pricing": {"list": i / 4, "currency": "USD"}}
                                 for i in range(3000)]},
           "pagination": {"page": 1, "pages": 1, "total": 3000}}
    stub = scope.spill(json.dumps(doc).encode(), source_tool="sh")
    assert "data: {store: {id: int, name: str}, products: array(3000) of " in stub.shape, stub.shape
    assert _named_jq(stub.note) == ".data.products[0]", stub.note
    assert scope.structure.jq(stub.handle, ".data.products[0]").items == [doc["data"]["products"][0]]
    assert _next_read({"data": {"a": 1, "b": 2}, "meta": {"x": 1, "y": 2, "z": 3}, "pad": "x" * 9000}) == ".meta"


def test_a_streamed_object_is_read_into_its_largest_value_by_its_bytes_not_its_key_count(scope):
    """The same response over the 512 KiB sample (719 KB, its top level streamed: ``data: object(2 keys: store,
    products)``): ``.pagination`` was named for its 3 keys. ``data`` spans nearly every byte: the note names what
    each of its keys holds (a few bytes, where ``.data`` is some ninety pages), and a small listed object beside
    a larger array is still read whole."""
    doc = {"status": "ok",
           "data": {"store": {"id": 12}, "products": [{"id": i, "sku": f"KX-{i:06}", "tags": ["new", "eco"],
                                                       "pricing": {"list": i / 4, "currency": "USD"}}
                                                      for i in range(9000)]},
           "pagination": {"page": 1, "pages": 1, "total": 9000}}
    data = json.dumps(doc).encode()
    assert len(data) > SAMPLE_BYTES
    stub = scope.spill(data, source_tool="sh")
    assert "data: object(2 keys: store, products), pagination: object(3 keys: " in stub.shape, stub.shape
    assert _named_jq(stub.note) == ".data | map_values(type)", stub.note
    assert scope.structure.jq(stub.handle, ".data | map_values(type)").items == [{"store": "object",
                                                                                  "products": "array"}]
    small = {"meta": {"a": 1, "b": 2}, "items": [{"id": i, "name": f"item {i}"} for i in range(30000)]}
    big = json.dumps(small).encode()
    assert len(big) > SAMPLE_BYTES
    assert describe(big[:SAMPLE_BYTES], len(big), 1, BytesSource(big)).next_read == ".items[0]"
