"""slurp=true: one jq filter over all the records of JSON lines or the rows of a table (agentsim F2/G3), checked
against the plain Python answer (json.loads per line, csv.DictReader)."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import BadRecord, InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import slurp as slurp_module

GROUP = "group_by(.{k}) | map({{k: .[0].{k}, n: length}})"


def follow(tools: ScratchTools, args: dict, budget: int) -> list[dict]:
    pages = [tools.call("read_handle", {**args, "budget": budget})]
    while pages[-1]["next_call"] is not None:
        call = pages[-1]["next_call"]
        assert call.startswith("read_handle(")
        pages.append(tools.call("read_handle", {**args, "cursor": pages[-1]["cursor"] if "cursor" in pages[-1] else
                                                _cursor(call), "budget": budget}))
    return pages


def _cursor(call: str) -> str:
    return call.split('cursor="', 1)[1].split('"', 1)[0]


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _counts(results: list) -> dict:
    (groups,) = results
    return {g["k"]: g["n"] for g in groups}


def test_group_count_of_a_fixture_table_is_csv_dictreaders(tools, scratch_scope, fixture_data):
    data = fixture_data["query-packages-by-month.csv"]
    handle = scratch_scope.spill(data, source_tool="sql").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": GROUP.format(k="month"), "slurp": True})
    want = Counter(row["month"] for row in csv.DictReader(io.StringIO(data.decode())))
    assert _counts(reply["results"]) == dict(want) and reply["read"]["slurp"] is True and reply["next_call"] is None
    rows = tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
    assert rows["results"] == [sum(want.values())]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "dpkg", "é", 'q"t']), st.integers(-5, 5)), min_size=2,
                max_size=60))
def test_group_count_of_json_lines_and_csv_is_pythons(tools, scratch_scope, pairs):
    lines = b"".join(json.dumps({"unit": u, "v": v}).encode() + b"\n" for u, v in pairs)
    handle = scratch_scope.spill(lines, source_tool="log").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": GROUP.format(k="unit"), "slurp": True})
    want = Counter(json.loads(line)["unit"] for line in lines.splitlines())
    assert _counts(reply["results"]) == dict(want)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["unit", "v"])
    writer.writerows(pairs)
    table = out.getvalue().encode()
    handle = scratch_scope.spill(table, source_tool="sql").handle
    if scratch_scope.entry("handle", handle).content_type != "csv":
        return  # (a table the sniffer does not take for one is no slurp read's)
    reply = tools.call("read_handle", {"handle": handle, "jq": GROUP.format(k="v"), "slurp": True})
    want = Counter(row["v"] for row in csv.DictReader(io.StringIO(table.decode())))
    assert _counts(reply["results"]) == dict(want)


def test_a_large_output_pages_as_a_jq_read(tools, scratch_scope):
    lines = b"".join(b'{"id": %d, "pad": "%s"}\n' % (i, b"x" * 40) for i in range(3000))
    handle = scratch_scope.spill(lines, source_tool="log").handle
    pages = follow(tools, {"handle": handle, "jq": ".[] | .id", "slurp": True}, 2048)
    assert len(pages) > 3 and [r for p in pages for r in p["results"]] == list(range(3000))
    assert all(len(json.dumps(p, separators=(",", ":")).encode()) <= 2048 for p in pages)
    assert "slurp=True" in pages[0]["next_call"]
    with pytest.raises(InvalidArgument, match="cursor"):  # a slurp read's cursor is no plain jq read's
        tools.call("read_handle", {"handle": handle, "jq": ".[] | .id", "cursor": _cursor(pages[0]["next_call"])})


def test_a_cut_last_line_fails_as_a_record_read_naming_it(tools, scratch_scope):
    lines = b'{"unit": "a"}\n{"unit": "b"}\n{"unit": "c", "mess'
    handle = scratch_scope.spill(lines, source_tool="log").handle
    with pytest.raises(BadRecord, match=r"record 3\b.*the last record") as bad:
        tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
    assert bad.value.record == 3


def test_content_over_the_bound_is_refused_naming_the_paged_read(tools, scratch_scope, monkeypatch):
    monkeypatch.setattr("scratchfs.api.structured.MAX_SLURP_BYTES", 1000)
    lines = b"".join(b'{"unit": "u%d"}\n' % i for i in range(200))
    handle = scratch_scope.spill(lines, source_tool="log").handle
    with pytest.raises(InvalidArgument, match=r"at most 0 MiB.*record=1, records=10000, jq=") as refused:
        tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
    assert "slurp=true reads" in str(refused.value)
    assert slurp_module.MAX_SLURP_BYTES == 16 * 1024 * 1024


def test_slurp_of_what_is_no_records_or_rows_or_without_jq_is_refused(tools, scratch_scope, fixture_data):
    doc = scratch_scope.spill(fixture_data["api-ec2-service-model.json"], source_tool="api").handle
    with pytest.raises(InvalidArgument, match=r"one JSON document.*jq= alone"):
        tools.call("read_handle", {"handle": doc, "jq": "length", "slurp": True})
    html = scratch_scope.spill(fixture_data["browser-rust-book.html"], source_tool="fetch").handle
    with pytest.raises(InvalidArgument, match=r"slurp=true is for JSON lines and CSV/TSV tables.*select="):
        tools.call("read_handle", {"handle": html, "jq": "length", "slurp": True})
    lines = scratch_scope.spill(b'{"a": 1}\n{"a": 2}\n', source_tool="log").handle
    with pytest.raises(InvalidArgument, match="give jq= too"):
        tools.call("read_handle", {"handle": lines, "slurp": True})
    with pytest.raises(InvalidArgument, match="already the array"):
        tools.call("read_handle", {"handle": lines, "jq": "[inputs]", "slurp": True})
    assert tools.call("read_handle", {"handle": lines, "jq": ".a", "slurp": False})["results"] == [1, 2]


def test_a_table_without_header_slurps_as_arrays(tools, scratch_scope):
    table = b"".join(b"%d,%s\n" % (i, b"ab"[i % 2 : i % 2 + 1]) for i in range(1, 41))
    handle = scratch_scope.spill(table, source_tool="sqlite3").handle
    entry = scratch_scope.entry("handle", handle)
    assert entry.content_type == "csv" and "no header" in entry.shape
    reply = tools.call("read_handle", {"handle": handle, "jq": "[length, .[0], (map(.[1]) | group_by(.) | "
                                       "map(length))]", "slurp": True})
    assert reply["results"] == [[40, ["1", "b"], [20, 20]]]


def test_the_cli_slurps_beside_jq(tmp_path):
    from click.testing import CliRunner

    from scratchfs import ScratchStore
    from scratchfs.cli import main

    with ScratchStore(tmp_path / "s") as store:
        handle = store.scope("r", "a").spill(b'{"u": "x"}\n{"u": "y"}\n{"u": "x"}\n', source_tool="log").handle
    out = CliRunner().invoke(main, ["read-handle", handle, "--root", str(tmp_path / "s"), "--run", "r", "--agent",
                                    "a", "--jq", "map(.u) | group_by(.) | map([.[0], length])", "--slurp"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["results"] == [[["x", 2], ["y", 1]]]


def test_the_mcp_face_slurps(tmp_path):
    from scratchfs import ScratchStore

    from .mcp_support import ERAS, connect, payload, run, scratchfs_params

    with ScratchStore(tmp_path) as store:
        handle = store.scope("run-1", "agent-1").spill(
            b"".join(b'{"unit": "u%d"}\n' % (i % 3) for i in range(30)), source_tool="log").handle

    async def body():
        async with connect(scratchfs_params("mcp", "--root", str(tmp_path), "--run", "run-1", "--agent", "agent-1"),
                           ERAS[-1]) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert listed["read_handle"].input_schema["properties"]["slurp"]["type"] == "boolean"
            reply = payload(await client.call_tool("read_handle", {"handle": handle, "slurp": True,
                                                                   "jq": GROUP.format(k="unit")}))
            assert _counts(reply["results"]) == {"u0": 10, "u1": 10, "u2": 10}

    run(body)


@pytest.mark.alone
def test_a_runaway_filter_is_a_structure_timeout_and_the_worker_goes_on(tmp_path):
    import time

    from scratchfs import ScratchStore, StructureTimeout

    with ScratchStore(tmp_path, pattern_timeout=1.0) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        handle = scope.spill(b"".join(b'{"n": %d}\n' % i for i in range(100)), source_tool="log").handle
        began = time.monotonic()
        with pytest.raises(StructureTimeout):
            tools.call("read_handle", {"handle": handle, "jq": "last(range(1e10))", "slurp": True})
        assert time.monotonic() - began < 5
        reply = tools.call("read_handle", {"handle": handle, "jq": "map(.n) | add", "slurp": True})
        assert reply["results"] == [sum(range(100))]
