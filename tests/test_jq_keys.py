"""A jq read whose filter names a key its input does not have answered silently wrong (modeltask8): jq gives null
for a missing key, so ``sort_by(-.downloads)`` over a table with no column ``downloads`` failed with advice to skip
the nulls (which leaves nothing), ``group_by(.severity)`` over JSON lines without it gave one ``null`` group,
``select(.level == "ERROR")`` no output, ``.operations.DescribeInstance.input`` ``[null]``; none said why. Now the
reply names the missing key and the nearest that exist (:mod:`scratchfs.api.jq_keys`); a key the filter builds is
never named."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.api.jq_keys import input_keys, root_path
from scratchfs.api.views import reply_text

_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture
def spilled(scratch_scope):
    tools = ScratchTools(scratch_scope)

    def spill(name: str) -> str:
        return scratch_scope.spill((_FIXTURES / name).read_bytes(), source_tool="x").handle

    return tools, spill


def _read(tools: ScratchTools, **given) -> dict:
    return tools.call("read_handle", given)


def test_a_table_column_no_row_has_is_named_first_in_jqs_error(spilled):
    tools, spill = spilled
    handle = spill("query-packages-by-month.csv")
    with pytest.raises(InvalidArgument) as refused:
        _read(tools, handle=handle, jq="sort_by(-.downloads)", slurp=True)
    message = str(refused.value)
    assert message.startswith("jq: null (null) cannot be negated -- no column is named \"downloads\"")
    assert '"name", "version", "month", "summary"' in message
    assert "skip such values" not in message


def test_a_table_column_no_row_has_is_noted_beside_a_null_answer_within_budget(spilled):
    tools, spill = spilled
    handle = spill("query-packages-by-month.csv")
    for budget in (2048, 2600, 8192):
        reply = _read(tools, handle=handle, jq="map(.downloads)", slurp=True, budget=budget)
        assert reply["note"].startswith('no column is named "downloads"')
        assert len(reply_text(reply).encode()) <= budget
    reply = _read(tools, handle=handle, jq='map(select(.month == "2026-11")) | length', slurp=True)
    assert "note" not in reply  # (a real column, a non-null answer)


def test_records_without_the_key_a_filter_names_say_so(spilled):
    tools, spill = spilled
    handle = spill("tools/dpkg-query-jq.jsonl")
    grouped = _read(tools, handle=handle, jq="group_by(.severity) | map({s: .[0].severity, n: length})", slurp=True)
    assert grouped["results"] == [[{"s": None, "n": 60}]]
    assert grouped["note"].startswith('no record has the key "severity"')
    assert '"package", "version", "kib", "section", "priority", "maintainer"' in grouped["note"]
    errors = _read(tools, handle=handle, jq='select(.level == "ERROR")', record=1)
    assert errors["results"] == [] and errors["note"].startswith('no record has the key "level"')
    typo = _read(tools, handle=handle, jq=".sectoin", record=1)
    assert 'nearest: "section"' in typo["note"]
    typo = _read(tools, handle=handle, jq=".sectoin")  # (a jq read of JSON lines runs on each record too)
    assert 'no record has the key "sectoin"' in typo["note"]


def test_a_documents_missing_key_is_named_at_its_step_with_the_nearest(spilled):
    tools, spill = spilled
    handle = spill("api-ec2-service-model.json")
    reply = _read(tools, handle=handle, jq=".operations.DescribeInstance.input")
    assert reply["results"] == [None]
    assert reply["note"].startswith('.operations has no key "DescribeInstance"')
    assert '"DescribeInstances"' in reply["note"]
    reply = _read(tools, handle=handle, jq=".operations.DescribeInstances.input")
    assert reply["results"] == [{"shape": "DescribeInstancesRequest"}] and "note" not in reply
    with pytest.raises(InvalidArgument) as refused:  # (jq fails on the null: the key named first)
        _read(tools, handle=handle, jq=".operations.DescribeInstance.input | keys")
    assert str(refused.value).startswith('jq: null (null) has no keys -- .operations has no key "DescribeInstance"')


@pytest.mark.parametrize("filter", [
    "map({s: .section}) | map(select(.s == null))",  # (s: built by the filter)
    "map(to_entries[] | select(.key == \"nokey\") | .value)",  # (key/value: with to_entries)
    "map(.kib) | map(select(. == null))",  # (a real key, holding null)
    '.[0] as $r | [$r.nokey]',  # (a path on a variable: not sure it is the input's)
    'map(.package | capture("(?<nokey>x)")) | map(.nokey)',  # (capture builds keys)
])
def test_a_key_the_filter_builds_or_a_real_one_is_never_named(spilled, filter):
    tools, spill = spilled
    reply = _read(tools, handle=spill("tools/dpkg-query-jq.jsonl"), jq=filter, slurp=True)
    assert "has the key" not in reply.get("note", "")


def test_the_paths_a_filter_reads_from_its_input():
    assert input_keys('.a.b | select(.["c d"] == "x") | {s: .e} | .s') == [
        (0, ["a", "b"]), (14, ["c d"]), (37, ["e"])]
    assert input_keys("if .x then .y else $v.z end") == [(3, ["x"]), (11, ["y"])]
    assert input_keys(".a = 1") is None and input_keys("..|.a?") is None
    assert root_path('.operations."DescribeInstances".input') == ["operations", "DescribeInstances", "input"]
    assert root_path("keys | .[0]") is None
