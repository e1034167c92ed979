"""JSON lines whose records are not all objects of the same keys: the shape described them by the first record's keys
alone ("record keys: a, b" over a content whose other 300 records were arrays), and a key one record in seven held
as if every record had it. Now records of several kinds are counted by kind, and a key some objects lack ends in
``?`` (as a JSON array's items' keys do). Contents: a terminal session recorded in the layout asciinema v2 writes
(a header object, then one ``[time, "o", text]`` array an event), its events the lines of a real ``pytest -v`` run
(``fixtures/tools/pytest-color-v.txt``), and records drawn by hypothesis, checked against a plain count."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import BadRecord
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe

_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_NOUNS = {dict: "object", list: "array", str: "string", int: "number", bool: "boolean", type(None): "null"}


def _cast() -> tuple[bytes, int]:
    """``(content, events)``: an asciinema v2 recording of the real pytest run's lines, a tenth of a second apart."""
    lines = (_FIXTURES / "tools/pytest-color-v.txt").read_text().splitlines(keepends=True)
    header = {"version": 2, "width": 120, "height": 40, "timestamp": 1764770000, "env": {"TERM": "xterm-256color"}}
    events = [[round(0.1 * at, 1), "o", line] for at, line in enumerate(lines)]
    return "".join(json.dumps(record) + "\n" for record in [header, *events]).encode(), len(events)


def test_a_recorded_terminal_session_is_told_an_object_then_arrays(scratch_scope):
    content, events = _cast()
    stub = scratch_scope.spill(content, source_tool="asciinema")
    assert stub.content_type == "jsonl"
    assert stub.shape.startswith(f"JSON lines, {events + 1} records; records of mixed kinds ({events} arrays, 1 "
                                 "object); the objects' keys: version: int, width: int, ")
    assert "record keys" not in stub.shape
    reply = ScratchTools(scratch_scope).read_handle(stub.handle, record=2, records=2)  # the records are what it says
    assert reply["records"] == [[0.0, "o", json.loads(content.split(b"\n")[1])[2]], [0.1, "o", reply["records"][1][2]]]


def test_a_filter_of_the_first_records_keys_fails_naming_how_to_pass_the_others(scratch_scope):
    """A model that aims jq at the header's keys meets an event array: the failure says the records are not all
    objects and how to pass the others over; the way it names reads the header's value alone."""
    content, events = _cast()
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(content, source_tool="asciinema").handle
    with pytest.raises(BadRecord, match=r'jq failed on record 2 .*Cannot index array with string \("width"\) \(a key '
                                        r"looked up in an array, not an object: .* \(\.a\?\) or a filter starting "
                                        r"objects \| passes over the others\)") as failed:
        tools.call("read_handle", {"handle": handle, "record": 2, "jq": ".width"})
    assert failed.value.record == 2
    for way in (".width?", "objects | .width"):
        reply = tools.call("read_handle", {"handle": handle, "record": 1, "records": events + 1, "jq": way})
        assert (reply["results"], reply["more"]) == ([120], False), way


def _shape(records: list) -> str:
    data = "".join(json.dumps(record) + "\n" for record in records).encode()
    shape = describe(data, len(data), data.count(b"\n"))
    assert shape.content_type == "jsonl", shape
    return shape.text


_OBJECTS = st.dictionaries(st.sampled_from("abcde"), st.integers(0, 9), min_size=1)
_RECORDS = st.one_of(_OBJECTS, st.lists(st.integers(0, 9), max_size=3), st.text("xyz", max_size=3),
                     st.integers(0, 99), st.booleans(), st.none())


@settings(max_examples=300, deadline=None)
@given(st.one_of(_OBJECTS, st.lists(st.integers(0, 9), max_size=3)), st.lists(_RECORDS, min_size=2, max_size=60))
def test_the_shape_counts_records_by_kind_and_marks_keys_some_lack(first, rest):
    records = [first, *rest]  # (a first record that is an object or an array: lines of bare numbers are text)
    text = _shape(records)
    kinds = Counter(_NOUNS[type(record)] for record in records)
    objects = [record for record in records if isinstance(record, dict)]
    keys = list(dict.fromkeys(key for record in objects for key in record))
    if len(kinds) > 1:
        counts = ", ".join(f"{n:,} {kind}{'' if n == 1 else 's'}" for kind, n in kinds.most_common())
        assert f"; records of mixed kinds ({counts})" in text, text
        assert ("; the objects' keys: " in text) == bool(objects), text
    elif objects:
        assert "; record keys: " in text, text
    else:
        assert "; first record: " in text and "keys" not in text, text
    described = text.partition("keys: ")[2]
    named = [part.split(":")[0] for part in described.split(", ")] if objects else []
    assert named == [key + ("" if all(key in o for o in objects) else "?") for key in keys], text


# -- JSON arrays whose items are of several kinds ----------------------------------------------------------------

_ITEM_NOUNS = {**_NOUNS, float: "number"}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_RECORDS, st.floats(0, 9)), min_size=1, max_size=40))
def test_an_arrays_items_of_several_kinds_are_counted_by_kind(items):
    """The plain answer: the items' kinds counted (numbers, whole or not, are one kind), most frequent first; an array
    of one kind is described by its item as before ("b: array(3) of int" over ``[1, 2, {"c": null}]`` before)."""
    data = json.dumps({"x": items, "n": 1}).encode()
    text = describe(data, len(data), 1).text
    kinds = Counter(_ITEM_NOUNS[type(item)] for item in items)
    counts = ", ".join(f"{n:,} {kind}{'' if n == 1 else 's'}" for kind, n in kinds.most_common())
    assert (f"x: array({len(items)}) of mixed kinds ({counts})" in text) == (len(kinds) > 1), text
    assert "mixed" in text or len(kinds) == 1, text


def test_a_large_documents_arrays_of_several_kinds_are_told_by_streaming(scratch_scope):
    """Past the 512 KiB sample the top level is read by streaming: an array whose first item is an object and the
    rest arrays was "array(N) of {a, b}"; at the top level "items: {a, b}"."""
    events = [{"version": 2, "width": 80}] + [[i / 10, "o", "x" * 40] for i in range(30_000)]
    stub = scratch_scope.spill(json.dumps(events).encode(), source_tool="api")
    assert stub.shape.startswith("JSON array of ") and stub.shape.endswith("; items of mixed kinds, objects {version, "
                                                                          "width}")
    doc = {"events": events, "n": [1, 2.5] * 1000}
    stub = scratch_scope.spill(json.dumps(doc).encode(), source_tool="api")
    assert "events: array(30001) of mixed kinds, objects {version, width}, n: array(2000) of int" in stub.shape
