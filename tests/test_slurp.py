"""slurp=true: one jq filter over all the records of JSON lines or the rows of a table (agentsim F2/G3), checked
against the plain Python answer (json.loads per line, csv.DictReader)."""

from __future__ import annotations

import codecs
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
from tests.conftest import FIXTURES

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


def test_a_joins_repeated_column_names_lose_no_cell(tools, scratch_scope):
    """``sqlite3 -header -csv`` of a self-join (fixtures/tools/sqlite-csv-join-repeated-names.csv) has the header
    'name,version,name,version,month': the rows were keyed by name, so the later 'name' overwrote the first, and half
    the pairs' packages were gone from every slurp answer without a word (atk27). Now the n-th column of a repeated
    name is keyed name_n and the note says so."""
    data = (FIXTURES / "tools" / "sqlite-csv-join-repeated-names.csv").read_bytes()
    handle = scratch_scope.spill(data, source_tool="sqlite3").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": "map([.name, .name_2, .version_2])", "slurp": True})
    rows = list(csv.reader(io.StringIO(data.decode())))
    assert rows[0] == ["name", "version", "name", "version", "month"]
    assert reply["results"] == [[[r[0], r[2], r[3]] for r in rows[1:]]]
    assert reply["note"] == ("the header repeats a name: its rows key column 3 ('name') as 'name_2', column 4 "
                             "('version') as 'version_2'")


def test_a_column_named_extra_keeps_its_cell_beside_cells_past_the_header(tools, scratch_scope):
    """A header with a column '_extra' and a row longer than the header: the cells past it were put under '_extra',
    over the column's own cell (atk27)."""
    table = b"_extra,b\n" + b"".join(b"x%d,y%d\n" % (i, i) for i in range(40)) + b"x,y,z\n"
    handle = scratch_scope.spill(table, source_tool="sqlite3").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": ".[-1]", "slurp": True})
    assert reply["results"] == [{"_extra": "x", "b": "y", "_extra_2": ["z"]}]
    assert "under '_extra_2'" in reply["note"]


def test_row_keys_are_unique_and_the_header_s_own_where_they_can_be():
    assert slurp_module.row_keys(["id", "id", "id_2", "id"]) == (["id", "id_3", "id_2", "id_4"], "_extra")
    assert slurp_module.row_keys(["a", "_extra", "_extra_2"]) == (["a", "_extra", "_extra_2"], "_extra_3")
    assert slurp_module.row_keys([]) == ([], "_extra")


def test_a_long_repeated_name_s_note_stays_within_the_budget(tools, scratch_scope):
    name = "é" * 700
    table = ",".join([name] * 40).encode() + b"\n" + b"".join(b",".join([b"%d" % i] * 40) + b"\n" for i in range(60))
    handle = scratch_scope.spill(table, source_tool="sqlite3").handle
    pages = follow(tools, {"handle": handle, "jq": ".[:2][]", "slurp": True}, 2048)
    assert all(len(json.dumps(p, ensure_ascii=False, separators=(",", ":")).encode()) <= 2048 for p in pages)
    assert "(and 36 more columns)" in pages[0]["note"] and len(pages[0]["note"].encode()) < 1024


def test_json_lines_with_a_byte_order_mark_slurp_as_their_record_read_reads_them(tools, scratch_scope):
    """JSON lines written with a UTF-8 byte order mark (PowerShell's Out-File -Encoding utf8): a record read reads
    record 1 without it, the slurp read refused 'record 1 is not JSON' (atk27)."""
    lines = codecs.BOM_UTF8 + b"".join(b'{"unit": "u%d"}\n' % (i % 3) for i in range(30))
    handle = scratch_scope.spill(lines, source_tool="log").handle
    first = tools.call("read_handle", {"handle": handle, "record": 1, "records": 1})["records"]
    reply = tools.call("read_handle", {"handle": handle, "jq": GROUP.format(k="unit"), "slurp": True})
    assert first == [{"unit": "u0"}] and _counts(reply["results"]) == {"u0": 10, "u1": 10, "u2": 10}


def test_a_table_whose_rows_make_a_huge_array_is_refused_as_it_grows(tools, scratch_scope, monkeypatch):
    """Each row is an object repeating the header's names: 16 MiB of one-character cells under fifty 200-character
    names made a 1,654 MiB array -- 24 s and 3.6 GB of the server's memory -- before jq refused it as 'the
    document is 1654 MiB ... path filters stream', no way a slurp read can take (atk27). The array is now bounded
    as it is built (MAX_ARRAY_BYTES, twice the content bound), and the refusal names the row read."""
    assert slurp_module.MAX_ARRAY_BYTES == 2 * slurp_module.MAX_SLURP_BYTES
    monkeypatch.setattr(slurp_module, "MAX_ARRAY_BYTES", 256 * 1024)
    header = ",".join(f"column_{i}_" + "n" * 190 for i in range(50)).encode() + b"\n"
    table = header + (b",".join([b"1"] * 50) + b"\n") * 400  # 50 KB: a 4 MB array
    handle = scratch_scope.spill(table, source_tool="sql").handle
    with pytest.raises(InvalidArgument, match=r"at most 0 MiB.*by row 400 .*row=1, rows=10000, columns="):
        tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
    fits = header + (b",".join([b"1"] * 50) + b"\n") * 20  # 20 rows: a 210 KB array
    handle = scratch_scope.spill(fits, source_tool="sql").handle
    assert tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})["results"] == [20]


def test_a_slurp_timeout_names_the_paged_reads_not_a_path_read(tmp_path):
    """16 MiB of JSON lines (bench/slurp_memory.py's) with its group count ran past the 5 s limit on a busy machine
    (load 3.8 on 2 cores), and the message said 'try a simpler filter ... or a path read such as .items[3]', neither
    of which helps: jq's reading of the array counts toward the limit (atk27). For an array of 1 MiB or more the
    message now says so, with its size and the paged reads."""
    from scratchfs import ScratchStore, StructureTimeout

    with ScratchStore(tmp_path, pattern_timeout=1.0) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        lines = scope.spill(b"".join(b'{"n": %d, "pad": "%s"}\n' % (i, b"x" * 100) for i in range(10000)),
                            source_tool="log").handle
        with pytest.raises(StructureTimeout, match=r"jq reads the array of all the records \(1\.2 MiB of JSON\).*"
                           r"record=1, records=10000 and a jq filter run on each record.*count=true") as late:
            tools.call("read_handle", {"handle": lines, "jq": "last(range(1e10))", "slurp": True})
        assert ".items[3]" not in str(late.value) and str(late.value).startswith("the jq filter ran past")
        table = scope.spill(b"n,pad\n" + b"".join(b"%d,%s\n" % (i, b"x" * 100) for i in range(10000)),
                            source_tool="sql").handle
        with pytest.raises(StructureTimeout, match=r"all the rows .*row=1, rows=10000 and columns="):
            tools.call("read_handle", {"handle": table, "jq": "last(range(1e10))", "slurp": True})
        small = scope.spill(b"".join(b'{"n": %d}\n' % i for i in range(100)), source_tool="log").handle
        with pytest.raises(StructureTimeout, match=r"was stopped; try a simpler filter \(select early") as late:
            tools.call("read_handle", {"handle": small, "jq": "last(range(1e10))", "slurp": True})
        assert "reads the array" not in str(late.value) and ".items[3]" not in str(late.value)


def test_slurp_of_binary_data_names_byte_ranges_not_lines(tools, scratch_scope):
    """slurp=true over a PNG said 'search it ... or read its lines' (atk27): an image has no lines to read."""
    png = (FIXTURES / "tools" / "git-logo.png").read_bytes()
    handle = scratch_scope.spill(png, source_tool="fetch").handle
    with pytest.raises(InvalidArgument, match=r"stored as binary: search it \(match=, pattern=, count=true\) or read "
                                              r"its bytes \(offset=, length=\)$"):
        tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
