"""A slurp read over its size bound advises a paged read that means what its filter meant (helper advice2): the
advised call is RUN and its answer compared with the plain Python answer on the same records or rows. Before, the
slurp's filter was reused per record (``group_by(.unit)`` then failed on every record, ``length`` counted each
record's keys, ``map(.n)`` failed on objects) and a stream of JSON documents was advised a rows read."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.api.slurp_advice import per_record

RECORDS = [{"unit": f"u{i % 4}", "n": i, "tags": ["a"] * (i % 3), "note": "x|y" if i % 5 == 0 else "z"}
           for i in range(120)]


@pytest.fixture
def tools(scratch_scope, monkeypatch):
    monkeypatch.setattr("scratchfs.api.structured.MAX_SLURP_BYTES", 1000)  # (the bound, small: all these are over)
    return ScratchTools(scratch_scope)


def advised(tools: ScratchTools, handle: str, filter: str):
    """The refusal of a slurp read of ``handle`` with ``filter`` and the one call it advises."""
    with pytest.raises(InvalidArgument, match="slurp=true reads at most") as refused:
        tools.call("read_handle", {"handle": handle, "jq": filter, "slurp": True})
    calls = refused.value.advice.calls
    assert len(calls) == 1, str(refused.value)
    return str(refused.value), calls[0]


def run(tools: ScratchTools, call) -> list:
    """Every item the advised read gives, its pages followed (``results``, ``records`` or ``rows``)."""
    assert call.verb == "read_handle"
    args = dict(call.arguments)
    items, pages = [], 0
    while True:
        page = tools.call("read_handle", args)
        items += page.get("results", page.get("records", page.get("rows", [])))
        pages += 1
        if not page.get("more"):
            return items
        cursor = re.search(r'cursor="([^"]+)"', page["next_call"]).group(1)
        args = {**dict(call.arguments), "cursor": cursor}
        for key in ("record", "row"):
            found = re.search(rf"\b{key}=(\d+)", page["next_call"])
            if found:
                args[key] = int(found.group(1))
        assert pages < 100


@pytest.fixture
def jsonl(scratch_scope):
    return scratch_scope.spill(b"".join(json.dumps(r).encode() + b"\n" for r in RECORDS), source_tool="log").handle


@pytest.mark.parametrize(("filter", "plain"), [
    (".[] | select(.n > 100)", [r for r in RECORDS if r["n"] > 100]),
    ("map(.unit)", [r["unit"] for r in RECORDS]),
    ("[.[] | .tags[]]", [t for r in RECORDS for t in r["tags"]]),
    ('.[] | "\\(.note)|\\(.n)"', [f"{r['note']}|{r['n']}" for r in RECORDS]),
    (".[]", RECORDS),
    ("[.[]]", RECORDS),
])
def test_a_filter_per_record_is_advised_as_it_runs_on_each_record(tools, jsonl, filter, plain):
    said, call = advised(tools, jsonl, filter)
    assert run(tools, call) == plain
    assert "on each record" in said or "every record" in said


def test_length_is_advised_as_a_count_read(tools, jsonl, scratch_scope):
    _said, call = advised(tools, jsonl, "length")
    assert dict(call.arguments).get("count") is True
    assert tools.call("read_handle", dict(call.arguments))["lines"] == len(RECORDS)
    gapped = scratch_scope.spill(b"\n\n".join(json.dumps(r).encode() for r in RECORDS) + b"\n  \n",
                                 source_tool="log").handle  # (blank lines are no records)
    assert tools.call("read_handle", dict(advised(tools, gapped, "length")[1].arguments))["lines"] == len(RECORDS)


@pytest.mark.parametrize("filter", ["group_by(.unit) | map({unit: .[0].unit, n: length})", "sort_by(.n) | .[-1]",
                                    "map(.n) | add", "[.[] | .n] | max", ".[] |= 1", "def f: .n; map(f)"])
def test_a_filter_with_no_per_record_meaning_says_so_and_names_the_plain_paged_read(tools, jsonl, filter):
    said, call = advised(tools, jsonl, filter)
    assert "no read of one record at a time does" in said
    assert "jq" not in dict(call.arguments)
    assert run(tools, call) == RECORDS  # (every record, to combine)


CSV_TEXT = "name,2020,port\n" + "".join(f"host{i},{i * 3},{8000 + i}\n" for i in range(150))


@pytest.fixture
def table(scratch_scope):
    return scratch_scope.spill(CSV_TEXT.encode(), source_tool="query").handle


def test_a_table_column_per_row_is_a_columns_read(tools, table):
    plain = [row["name"] for row in csv.DictReader(io.StringIO(CSV_TEXT))]
    for filter in (".[] | .name", "map(.name)", '[.[] | ."name"]'):
        _said, call = advised(tools, table, filter)
        assert dict(call.arguments)["columns"] == ["name"]
        assert [row[0] for row in run(tools, call)] == plain


def test_a_table_filter_per_row_says_a_rows_read_takes_no_jq(tools, table):
    said, call = advised(tools, table, ".[] | select(.port > 8100)")
    assert "a rows read takes no jq filter" in said and "select(.port > 8100)" in said
    assert "jq" not in dict(call.arguments) and len(run(tools, call)) == 150
    said, call = advised(tools, table, "length")
    assert "less 1 for the header" in said
    assert tools.call("read_handle", dict(call.arguments))["lines"] - 1 == 150


def test_documents_are_advised_a_read_of_each_document(tools, scratch_scope):
    docs = [{"a": i, "b": [i] * 3} for i in range(60)]
    handle = scratch_scope.spill("".join(json.dumps(d, indent=2) + "\n" for d in docs).encode(),
                                 source_tool="aws").handle
    _said, call = advised(tools, handle, ".[] | .a")
    assert run(tools, call) == [d["a"] for d in docs]
    _said, call = advised(tools, handle, "group_by(.a)")
    assert "row" not in dict(call.arguments) and run(tools, call) == docs


def test_a_filter_per_record_is_read_from_its_top_level_alone():
    assert per_record('.[] | "a|b"')[0] == '"a|b"'
    assert per_record(".[] | (.a | .b)")[0] == "(.a | .b)"
    assert per_record("map(.a) | map(.b)")[0] is None  # (two maps: no one call)
    assert per_record("[.[] | .a], [.[] | .b]")[0] is None
    assert per_record(".[] # a comment | x")[0] is None
    assert per_record('map("\\(.a))")')[0] == '"\\(.a))"'
