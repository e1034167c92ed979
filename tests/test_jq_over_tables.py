"""jq without slurp over a table's rows (CSV/TSV, aligned by spaces) is refused: jq runs over them only with
slurp=true, as one array. The refusal said so in words alone ("jq= with slurp=true (all rows at once)"), so a model
that wrote ``jq='select(.summary|test("MCP")) | .name'`` had to rebuild the call (and learn that its filter, written
for one row, needs ``.[] |`` before it). It now names the whole call: the same handle, the filter on each row
(``.[] | FILTER``; as it is when it already takes the array: ``length``, ``map(...)``), slurp=true, the caller's
budget kept; within a tool error's cap. JSON lines need none of this: jq runs on each record."""

from __future__ import annotations

import csv
import io
import json

import pytest

from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import MIN_REPLY_BYTES

ROWS = [{"name": f"pkg{i}", "summary": f"{'An MCP' if i % 3 == 0 else 'A'} tool {i}", "stars": str(i)}
        for i in range(40)]
MCP = [row["name"] for row in ROWS if "MCP" in row["summary"]]
FILTER = 'select(.summary|test("MCP")) | .name'


def _table(form: str) -> bytes:
    if form == "aligned":
        lines = [f"{'name':<8} {'summary':<16} stars"] + [
            f"{r['name']:<8} {r['summary'].replace(' ', '_'):<16} {r['stars']}" for r in ROWS]
        return ("\n".join(lines) + "\n").encode()
    out = io.StringIO()
    writer = csv.DictWriter(out, ["name", "summary", "stars"], delimiter="\t" if form == "tsv" else ",")
    writer.writeheader()
    writer.writerows(ROWS)
    return out.getvalue().encode()


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _refused(tools, given):
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", given)
    return caught.value


@pytest.mark.parametrize("form", ["csv", "tsv", "aligned"])
@pytest.mark.parametrize("budget", [None, 2048])
def test_jq_without_slurp_over_a_table_names_the_slurp_call_that_runs_it(tools, scratch_scope, form, budget):
    handle = scratch_scope.spill(_table(form), source_tool="t").handle
    given = {"handle": handle, "jq": FILTER, **({} if budget is None else {"budget": budget})}
    exc = _refused(tools, given)
    [call] = [call for call in exc.advice.calls if dict(call.arguments).get("slurp")]
    arguments = dict(call.arguments)
    assert arguments == {"handle": handle, "jq": f".[] | {FILTER}", "slurp": True,
                         **({} if budget is None else {"budget": budget})}
    assert str(call) in str(exc) and "your filter on each row" in str(exc)
    assert not error_text(exc).endswith("...")
    assert tools.call("read_handle", arguments)["results"] == MCP  # and the call named does what was meant


@pytest.mark.parametrize(("filter", "slurped", "want"), [
    ("length", "length", [len(ROWS)]),  # (written for the array: kept; per row it would be each one's key count)
    ("map(.name) | length", "map(.name) | length", [len(ROWS)]),
    (".[0].name", ".[0].name", ["pkg0"]),
    (".", ".[]", [{**row, "stars": int(row["stars"])} for row in ROWS]),  # (every row; numbers read as numbers)
    (".stars | tonumber", ".[] | .stars | tonumber", list(range(40))),
])
def test_the_call_keeps_a_filter_written_for_the_array(tools, scratch_scope, filter, slurped, want):
    handle = scratch_scope.spill(_table("csv"), source_tool="t").handle
    exc = _refused(tools, {"handle": handle, "jq": filter})
    [call] = [call for call in exc.advice.calls if dict(call.arguments).get("slurp")]
    assert dict(call.arguments)["jq"] == slurped
    read = tools.call("read_handle", {**dict(call.arguments), "budget": 65536})
    assert read["results"] == want


def test_a_long_filter_is_named_in_words_within_the_error_cap(tools, scratch_scope):
    handle = scratch_scope.spill(_table("csv"), source_tool="t").handle
    filter = "select(" + " or ".join(f'.name == "{"é" * 20}{i}"' for i in range(40)) + ") | .name"
    exc = _refused(tools, {"handle": handle, "jq": filter})
    assert 'the same call with ".[] | " before your filter, and slurp=true' in str(exc)
    assert len(str(exc).encode()) < MIN_REPLY_BYTES and not error_text(exc).endswith("...")
    [call] = [call for call in exc.advice.calls if dict(call.arguments).get("slurp")]
    assert dict(call.arguments)["jq"] == f".[] | {filter}"  # (kept whole as data: a face writes it whole)


def test_jq_over_json_lines_runs_on_each_record(tools, scratch_scope):
    handle = scratch_scope.spill("".join(json.dumps(row) + "\n" for row in ROWS).encode(), source_tool="t").handle
    assert tools.call("read_handle", {"handle": handle, "jq": FILTER})["results"] == MCP
