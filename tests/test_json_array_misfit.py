"""A row= or record= read of one JSON document is refused naming the jq read that fits it. For every document the
example was ``jq="keys[]"`` -- an object's keys, but of an array (``sqlite3 -json``'s rows: helper modeltask2, acting
as the model, asked for ``record=1, records=2`` of one) only the numbers 0 to N-1, a page of indexes before any item
is seen. A document whose shape says it is an array now names its first item, ``jq=".[0]"``, and a slice's form;
an object keeps ``keys[]`` (fixtures/tools/, fixtures/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


@pytest.mark.parametrize("arguments", [{"record": 1, "records": 2}, {"row": 1}])
def test_a_json_array_refusing_rows_or_records_names_its_first_item(scratch_scope, arguments):
    data = (_TOOLS / "sqlite-json-sizes.json").read_bytes()
    items = json.loads(data)
    tools = ScratchTools(scratch_scope)
    stub = scratch_scope.spill(data, source_tool="sqlite3 -json")
    assert stub.shape.startswith("JSON array of 60 items")
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": stub.handle, **arguments})
    assert (f'read it with jq= (e.g. read_handle(handle="{stub.handle}", jq=".[0]"), its first item; .[N:M][] some '
            "of them)") in str(refused.value)
    (call,) = [c for c in refused.value.calls if dict(c.arguments).get("jq")]
    assert tools.call("read_handle", dict(call.arguments))["results"] == [items[0]]
    assert tools.call("read_handle", {"handle": stub.handle, "jq": ".[0:2][]"})["results"] == items[:2]


def test_a_json_object_refusing_rows_still_names_its_keys(scratch_scope):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(json.dumps({"rows": [1, 2], "meta": {"n": 2}}, indent=1), source_tool="q").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, "row": 1})
    assert f'jq= (e.g. read_handle(handle="{handle}", jq="keys[]"), then a path into' in str(refused.value)
