"""slurp=true: one jq filter over all the records of JSON lines or the rows of a table (agentsim F2/G3), checked
against the plain Python answer (json.loads per line, csv.DictReader)."""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import slurp as slurp_module
from tests.conftest import FIXTURES

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
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


def plain_number(cell: str) -> int | float | None:
    """The rule written plainly: a cell JSON reads as a number, with nothing around it (json.loads takes spaces,
    NaN and Infinity too), an integer of at most 2**53 in magnitude or a finite double."""
    if cell != cell.strip() or cell in ("NaN", "Infinity", "-Infinity"):
        return None
    try:
        value = json.loads(cell)
    except ValueError:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        return value if abs(value) <= 2**53 else None
    return value if math.isfinite(value) else None


def typed_rows(text: str) -> list[dict]:
    """csv.DictReader's rows, a column whose non-empty cells are all numbers (one at least) read as numbers and its
    empty cells as None."""
    rows = list(csv.DictReader(io.StringIO(text)))
    for name in rows[0] if rows else []:
        cells = [row[name] for row in rows if row[name]]
        if cells and all(plain_number(cell) is not None for cell in cells):
            for row in rows:
                row[name] = plain_number(row[name]) if row[name] else None
    return rows


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
    want = Counter(row["v"] for row in typed_rows(table.decode()))  # (v: a number column)
    assert _counts(reply["results"]) == dict(want)


def test_max_by_over_a_number_column_of_a_real_table_compares_numbers(tools, scratch_scope):
    """An agent developer's read_handle(h, jq="max_by(.size)", slurp=true) answered the row of size "9993": the cells
    were strings, compared as text. A column of numbers is read as numbers; one with a cell that is none (a version,
    43-1) stays strings, "3.134" included."""
    data = (TOOLS / "sqlite-csv-header-sizes.csv").read_bytes()
    handle = scratch_scope.spill(data, source_tool="sqlite3").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": "max_by(.installed_kib)", "slurp": True})
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    biggest = max(rows, key=lambda row: int(row["installed_kib"]))
    assert biggest["installed_kib"] != max(row["installed_kib"] for row in rows)  # text compares otherwise
    assert reply["results"] == [{**biggest, "installed_kib": int(biggest["installed_kib"])}]
    versions = tools.call("read_handle", {"handle": handle, "jq": "map(.version | type) | unique", "slurp": True})
    assert versions["results"] == [["string"]] and any(row["version"] == "3.134" for row in rows)


def test_number_columns_are_decided_over_every_row_not_the_first_chunk(tools, scratch_scope):
    """A slurp read builds its array 1,024 rows at a time (atk27's bound on its size) and decides number columns
    over all the rows first (nu6fix): a column of numbers whose one text cell lies past the first chunk stays text
    in every row, one empty until a later chunk is numbers with null before them, and a headerless table the
    same."""
    n = 2500
    rows = [[str(i), "x" if i == 2100 else str(i * 3), "" if i < 1500 else str(i / 4), "" if i > 10 else "7"]
            for i in range(n)]
    body = "\n".join(",".join(r) for r in rows) + "\n"
    expected = [[int(a), b, None if c == "" else float(c), None if d == "" else int(d)] for a, b, c, d in rows]
    handle = scratch_scope.spill(("a,b,c,d\n" + body).encode(), source_tool="sqlite3").handle
    whole = tools.call("read_handle", {"handle": handle, "jq": "map([.a, .b, .c, .d]) | .[2095:2105], "
                                       ".[1495:1505], .[5:15]", "slurp": True})["results"]
    assert whole == [expected[2095:2105], expected[1495:1505], expected[5:15]]
    types = tools.call("read_handle", {"handle": handle, "jq": "map([.a, .b, .c, .d] | map(type)) | unique",
                                       "slurp": True})["results"]
    assert types == [[["number", "string", "null", "null"], ["number", "string", "null", "number"],
                      ["number", "string", "number", "null"]]]
    bare = scratch_scope.spill(body.encode(), source_tool="sqlite3")
    assert "no header" in bare.shape, bare.shape
    arrays = tools.call("read_handle", {"handle": bare.handle, "jq": ".[2095:2105], .[1495:1505], .[5:15]",
                                        "slurp": True})["results"]
    assert arrays == [expected[2095:2105], expected[1495:1505], expected[5:15]]


CELLS = {
    "numbers": st.one_of(st.integers(-2**53 - 2, 2**53 + 2).map(str), st.just(""),
                         st.floats(allow_nan=False, allow_infinity=False).map(repr)),
    "mixed": st.one_of(st.integers(-99, 99).map(str), st.sampled_from(
        ["", "01234", "0", "-0", "1.", ".5", "+1", " 1", "1 ", "NaN", "inf", "-Infinity", "1e400", "1E5", "2e-3",
         "0x10", "1_000", "\u0663", "true", "null", "[1]", "9" * 40, "-9007199254740993", "9007199254740992"])),
    "words": st.sampled_from(["a", "b c", "é", 'q"t', ""]),
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.fixed_dictionaries({"w": CELLS["words"], "n": CELLS["numbers"], "m": CELLS["mixed"]}), min_size=1,
                max_size=30))
def test_the_rows_of_a_table_are_typed_by_column_as_pythons_plain_rule(tools, scratch_scope, rows):
    """Each column of a slurped table is numbers (its empty cells null) when every non-empty cell is a strict JSON
    number (not 01234, NaN, inf, 1e400, an integer past 2**53) and one at least is; else strings, as csv gives them."""
    out = io.StringIO()
    writer = csv.DictWriter(out, ["id", "w", "n", "m"], lineterminator="\n")
    writer.writeheader()
    writer.writerows({"id": f"r{i}", **row} for i, row in enumerate(rows))
    table = out.getvalue()
    handle = scratch_scope.spill(table.encode(), source_tool="sql").handle
    entry = scratch_scope.entry("handle", handle)
    if entry.content_type != "csv" or "no header" in (entry.shape or ""):
        return  # (a table the sniffer does not take for one, with its header, is no such read's)
    pages = follow(tools, {"handle": handle, "jq": ".[]", "slurp": True}, 65536)
    assert [r for page in pages for r in page["results"]] == typed_rows(table)


def test_ragged_rows_are_typed_by_the_cells_they_have():
    """A missing cell neither counts nor is added; cells past the header stay strings; an integer past 2**53, or a
    float JSON reads as infinite, keeps its column strings."""
    rows = [["1", "x", "7", "8"], ["2"], ["", "y", "9007199254740993"], ["-0.5e3", "z", "3", "1e400"]]
    assert slurp_module.type_number_columns(rows, 3) == [0]
    assert rows == [[1, "x", "7", "8"], [2], [None, "y", "9007199254740993"], [-500.0, "z", "3", "1e400"]]
    rows = [["1", "2", "1e400"], ["3"], ["4", "9007199254740992", "5"]]
    assert slurp_module.type_number_columns(rows, None) == [0, 1]
    assert rows == [[1, 2, "1e400"], [3], [4, 9007199254740992, "5"]]


def test_a_large_output_pages_as_a_jq_read(tools, scratch_scope):
    lines = b"".join(b'{"id": %d, "pad": "%s"}\n' % (i, b"x" * 40) for i in range(3000))
    handle = scratch_scope.spill(lines, source_tool="log").handle
    pages = follow(tools, {"handle": handle, "jq": ".[] | .id", "slurp": True}, 2048)
    assert len(pages) > 3 and [r for p in pages for r in p["results"]] == list(range(3000))
    assert all(len(json.dumps(p, separators=(",", ":")).encode()) <= 2048 for p in pages)
    assert "slurp=True" in pages[0]["next_call"]
    with pytest.raises(InvalidArgument, match="cursor"):  # a slurp read's cursor is no plain jq read's
        tools.call("read_handle", {"handle": handle, "jq": ".[] | .id", "cursor": _cursor(pages[0]["next_call"])})


def test_a_cut_last_line_is_left_out_and_named(tools, scratch_scope):
    """A cut last line (an output capped at its size limit), which the stub counts out, is left out of the array, the
    note naming it and the byte read that shows it (before branch jsonlines: the read failed at it, so no slurp read
    worked on the most common real case); a bad record before the last is passed over too, named (it failed the
    read before newuser9's trial)."""
    lines = b'{"unit": "a"}\n{"unit": "b"}\n{"unit": "c", "mess'
    stub = scratch_scope.spill(lines, source_tool="log")
    assert stub.shape.startswith("JSON lines, 2 records, the last line cut"), stub.shape
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": "length", "slurp": True})
    assert reply["results"] == [2] and reply["note"].startswith("record 3 (bytes 28 to 46) is not JSON"), reply
    assert f'-- its bytes: read_handle(handle="{stub.handle}", offset=28, length=19' in reply["note"]
    many = b'{"unit": "a"}\n{\n' + b"".join(b'{"unit": "u%d"}\n' % i for i in range(30))
    handle = scratch_scope.spill(many, source_tool="log").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
    assert reply["results"] == [31] and reply["note"].startswith("1 record could not be read"), reply
    assert "record 2 (bytes 14 to 15) is not JSON" in reply["note"], reply


def test_content_over_the_bound_is_refused_naming_the_paged_read(tools, scratch_scope, monkeypatch):
    monkeypatch.setattr("scratchfs.api.structured.MAX_SLURP_BYTES", 1000)
    lines = b"".join(b'{"unit": "u%d"}\n' % i for i in range(200))
    handle = scratch_scope.spill(lines, source_tool="log").handle
    with pytest.raises(InvalidArgument, match=r"at most 0 MiB.*record=1, records=10000, jq=") as refused:
        tools.call("read_handle", {"handle": handle, "jq": ".[] | .unit", "slurp": True})  # (tests/test_slurp_advice.py
    # runs each advised read)
    assert "slurp=true reads" in str(refused.value)
    assert slurp_module.MAX_SLURP_BYTES == 16 * 1024 * 1024


def test_the_refusal_s_words_are_true_slurp_reads_each_kind_it_names(tools, scratch_scope):
    """The refusal says slurp=true is for JSON lines, JSON texts one after another, CSV/TSV tables and tables aligned
    by spaces or drawn with pipes under a header line (it said "JSON lines and CSV/TSV tables", yet it read tables
    aligned by spaces)."""
    kinds = {"JSON lines": b'{"a": 1}\n{"a": 2}\n{"a": 3}\n',
             "JSON texts one after another": b'{\n  "a": 1\n}\n{\n  "a": 2\n}\n{\n  "a": 3\n}\n',
             "CSV/TSV tables": b"a,b\n1,x\n2,y\n3,z\n",
             "tables aligned by spaces": (TOOLS / "ps-auxww.txt").read_bytes(),
             "drawn with pipes": b"| a | b |\n|---|---|\n| 1 | x |\n| 2 | y |\n| 3 | z |\n"}
    text = scratch_scope.spill(b"plain words\n", source_tool="shell").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": text, "jq": "length", "slurp": True})
    for kind, data in kinds.items():
        assert kind in str(refused.value)
        handle = scratch_scope.spill(data, source_tool="shell").handle
        reply = tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
        expected = 3 if kind != "tables aligned by spaces" else len(data.decode().splitlines()) - 1
        assert reply["results"] == [expected], kind


def test_a_filter_failing_on_its_input_names_a_next_step_that_works(tools, scratch_scope):
    # 'jq: null (null) cannot be matched, as it is not a string' (74 bytes) said no more (brief rows5, item 3)
    handle = scratch_scope.spill((TOOLS / "ps-auxww.txt").read_bytes(), source_tool="ps").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, "jq": 'map(select(.NOPE | test("x")))', "slurp": True})
    said = str(refused.value)  # (the key no column has is named first, not "skip such values": tests/test_jq_keys.py)
    assert said.startswith('jq: null (null) cannot be matched, as it is not a string -- no column is named "NOPE"')
    assert "fix the key's name" in said and "skip such values" not in said
    for guarded, want in (('map(select(.NOPE // empty | test("x")))', [[]]), ("map(.NOPE) | .[0]", [None])):
        assert tools.call("read_handle", {"handle": handle, "jq": guarded, "slurp": True})["results"] == want


def test_slurp_of_what_is_no_records_or_rows_or_without_jq_is_refused(tools, scratch_scope, fixture_data):
    doc = scratch_scope.spill(fixture_data["api-ec2-service-model.json"], source_tool="api").handle
    with pytest.raises(InvalidArgument, match=r"does not apply to one JSON document.*, jq=\"length\"\)$"):  # (the
        # read without slurp, since replies9)
        tools.call("read_handle", {"handle": doc, "jq": "length", "slurp": True})
    html = scratch_scope.spill(fixture_data["browser-rust-book.html"], source_tool="fetch").handle
    with pytest.raises(InvalidArgument, match=r"slurp=true is for JSON lines, JSON texts one after another, CSV/TSV "
                       r"tables and tables aligned by spaces or drawn with pipes under a header line; .*select="):
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
    assert reply["results"] == [[40, [1, "b"], [20, 20]]]  # (the first column: numbers)


def test_a_headless_tables_stub_says_its_slurped_rows_are_arrays_and_its_example_runs(tools, scratch_scope):
    """The stub of ``sqlite3 -csv`` output (no header line) names ``jq="JQ", slurp=True``: its note says the rows
    are arrays, columns by number, with a filter that runs as written (before: nothing said, and the model's first
    filter, ``.[] | select(.descr ...)``, failed on arrays); a table with a header says nothing of it."""
    data = (TOOLS / "sqlite-csv-packages.csv").read_bytes()
    stub = scratch_scope.spill(data, source_tool="sqlite3")
    assert stub.content_type == "csv" and "no header" in stub.shape and 'slurp=True' in stub.note
    said = re.search(r"its rows are arrays, columns by number from 0 \((\.\[\] \| select\(\.\[(\d)\] > 5\))\)",
                     stub.note)
    assert said is not None and stub.note.index(said.group(0)) < stub.note.index("Next: ")
    column = int(said.group(2))
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": f"[{said.group(1)}] | length", "slurp": True})
    rows = list(csv.reader(io.StringIO(data.decode(), newline="")))
    assert reply["results"] == [len(rows)] and all(len(row) > column for row in rows)  # (strings sort after numbers)
    assert len(stub.to_json().encode()) <= 1536
    headed = scratch_scope.spill((TOOLS / "sqlite-csv-header-sizes.csv").read_bytes(), source_tool="sqlite3")
    assert headed.content_type == "csv" and "slurp=True" in headed.note and "arrays" not in headed.note


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


# (no `alone` mark: 5 s is five times the 1 s limit; a runaway not stopped runs on without end)
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
    assert reply["note"] == ("the header repeats a name: its rows key column 2 ('name') as 'name_2', column 3 "
                             "('version') as 'version_2' (column numbers from 0, as columns= takes them)")


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
    with pytest.raises(InvalidArgument, match=r"at most 0 MiB.*by row 400 .*count=True") as refused:
        tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
    (count,) = refused.value.calls  # (the count read the refusal names, run: the lines less the header's)
    assert tools.call("read_handle", dict(count.arguments))["lines"] == 401
    fits = header + (b",".join([b"1"] * 50) + b"\n") * 20  # 20 rows: a 210 KB array
    handle = scratch_scope.spill(fits, source_tool="sql").handle
    assert tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})["results"] == [20]


@pytest.mark.parametrize(("filter", "column"), [(".[] | .column_3_", 3), ('map(."column 7 $(x)")', 7)])
def test_a_huge_arrays_refusal_names_the_rows_read_of_the_filters_column(tools, scratch_scope, monkeypatch, filter,
                                                                         column):
    """The refusal of a table whose rows make too large an array said 'read pages of its rows instead (row=1,
    rows=10000, columns= the ones needed)': words, no call a face could run, where the refusal of a content too
    large for slurp names the rows read of the filter's column (found running the calls refusals advise, hostile6).
    It now names the same read, as a call; run, it gives that column."""
    monkeypatch.setattr(slurp_module, "MAX_ARRAY_BYTES", 256 * 1024)
    names = [f"column_{i}_" if i != 7 else "column 7 $(x)" for i in range(50)]
    header = ",".join(name + "n" * 190 if i != 7 else name for i, name in enumerate(names)).encode() + b"\n"
    table = header + b"".join(b",".join(b"%d.%d" % (row, i) for i in range(50)) + b"\n" for row in range(400))
    handle = scratch_scope.spill(table, source_tool="sql").handle
    name = names[column] + ("n" * 190 if column != 7 else "")
    filter = filter.replace(".column_3_", "." + name) if column != 7 else filter
    with pytest.raises(InvalidArgument, match=r"by row \d+ .*read pages of its rows instead") as refused:
        tools.call("read_handle", {"handle": handle, "jq": filter, "slurp": True})
    (call,) = refused.value.calls
    assert dict(call.arguments)["columns"] == [name]
    reply = tools.call("read_handle", dict(call.arguments))
    assert reply["header"] == [name] and reply["rows"][:2] == [[f"0.{column}"], [f"1.{column}"]]


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
