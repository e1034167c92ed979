"""Edges of the structure reads and of the shapes that aim them: a CSV field longer than the ``csv`` module's default
limit, a CSV whose first row is longer than the head a table is told from, rows over several lines in a sample, JSON
lines with blank lines and keys past the first records, and reads that do not fit the stored kind of content."""

from __future__ import annotations

import base64
import csv
import io
import json
import re

import pytest

from scratchfs import BadRecord, InvalidArgument, ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import BytesSource, rows_page, table

from .test_structure_reads import follow

FIELD_LIMIT_CHARS = 16 * 1024 * 1024  # the bound the table module documents


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


# -- 1. a CSV field over 131,072 characters --------------------------------------------------------------------------


def test_a_field_longer_than_the_csv_modules_default_limit_is_read_cut_to_the_budget(tools, scratch_scope,
                                                                                      fixture_data):
    blob = base64.b64encode(fixture_data["browser-rust-book.html"][:150_000]).decode()  # 200,000 characters
    assert len(blob) > 131_072
    data = ("id,name,blob\n" + f'1,page,"{blob}"\n' + "".join(f"{i},n{i},b{i}\n" for i in range(2, 40))).encode()
    handle = scratch_scope.spill(data, source_tool="sql").handle
    replies = follow(tools, {"handle": handle, "row": 1, "rows": 1}, 8192)  # the long row is cut within each reply
    parts = [r for r in replies if "part" in r]
    assert len(parts) >= 200_000 // 8192 and all(r["header"] == ["id", "name", "blob"] for r in replies)
    assert json.loads("".join(r["part"] for r in parts)) == ["1", "page", blob]
    assert [row for r in replies for row in r.get("rows", [])] == [[str(i), f"n{i}", f"b{i}"] for i in range(2, 40)]


def test_a_field_past_the_bound_is_refused_naming_the_bound_and_the_byte_read():
    assert getattr(table, "FIELD_LIMIT_CHARS", None) == FIELD_LIMIT_CHARS
    over = FIELD_LIMIT_CHARS + 10
    lines = "\n".join(["x" * 1_000_000] * (over // 1_000_001 + 1))  # a quoted field over many lines of 1 MB
    data = ('a,b\n1,2\n3,"' + lines + '"\n').encode()
    with pytest.raises(InvalidArgument, match=r"field longer than 16,777,216 characters.*offset=8, length=4096"):
        rows_page(BytesSource(data), 2, 1)
    page = rows_page(BytesSource(data), 1, 5)  # the rows before it are read, and the page ends before it, passing
    assert page.items == [["1", "2"]] and page.cursor is None  # over it (before: its cursor then raised)
    assert [(bad.record, bad.offset, bad.length) for bad in page.passed] == [(2, 8, len(data) - 8)]
    assert page.to_dict()["note"].startswith("row 2 (bytes 8 to ") and "no row follows it" in page.to_dict()["note"]
    one_line = b"a,b\n1," + b"y" * (20 * 1024 * 1024) + b"\n"  # a line past the line bound: the same way on
    with pytest.raises(InvalidArgument, match=r"longer than 16,777,216 bytes.*offset=4, length=4096"):
        rows_page(BytesSource(one_line), 1, 1)


# -- 2. a CSV whose first rows are longer than the head ---------------------------------------------------------------


def test_a_table_whose_first_row_is_longer_than_the_head_is_told_a_table(scratch_scope, fixture_data):
    text = fixture_data["query-packages-by-month.csv"].decode()
    header, *body = text.splitlines(keepends=True)[:2000]  # (all of it is larger than the sample)
    first = next(csv.reader([body[0]]))
    long_row = ",".join([first[0], first[1], first[2], '"' + "long summary " * 1000 + '"']) + "\n"  # 13 KB
    data = (header + long_row + "".join(body)).encode()
    rows = [r for r in csv.reader(io.StringIO(data.decode(), newline="")) if r]
    names = ", ".join(rows[0])
    stub = scratch_scope.spill(data, source_tool="sql")
    assert (stub.content_type, stub.shape) == ("csv", f"CSV, 4 columns ({names}), {len(rows) - 1:,} rows")
    big = (data * (600_000 // len(data) + 1)).replace(header.encode(), b"", 1)
    big = header.encode() + big  # larger than the 512 KiB sample: the rows are told from the line count
    stub = scratch_scope.spill(big, source_tool="sql")
    lines = big.count(b"\n")
    assert stub.content_type == "csv"
    assert stub.shape == f"CSV, 4 columns ({names}), ~{lines - 1:,} rows (by line count)"


# -- 3. rows over several lines in a sample ---------------------------------------------------------------------------


def test_rows_of_a_sample_are_estimated_from_its_records_not_its_lines(scratch_scope):
    rows = 60_000
    data = ("id,text\n" + "".join(f'{i:06d},"first line\nsecond line\nthird"\n' for i in range(rows))).encode()
    assert len(data) > 512 * 1024  # a sample: the rows are estimated
    stub = scratch_scope.spill(data, source_tool="sql")
    found = re.fullmatch(r"CSV, 2 columns \(id, text\), ~([\d,]+) rows \(estimated from the sample\)", stub.shape)
    assert found, stub.shape
    assert abs(int(found.group(1).replace(",", "")) - rows) <= rows // 100  # not ~180,000: three lines a row


# -- 4. JSON lines: blank lines, keys past the first records -----------------------------------------------------------


def test_json_lines_count_records_as_record_reads_number_them_with_keys_of_every_record(tools, scratch_scope,
                                                                                         fixture_data):
    operations = list(json.loads(fixture_data["api-ec2-service-model.json"])["operations"].values())[:300]
    records = [{"n": i, **op} if i < 25 else {"n": i, **op, "late": True} for i, op in enumerate(operations)]
    data = "".join(json.dumps(r) + "\n\n" for r in records).encode()  # a blank line after each record
    assert len(data) < 512 * 1024
    stub = scratch_scope.spill(data, source_tool="api")
    keys = list(dict.fromkeys(k for r in records for k in r))
    assert stub.content_type == "jsonl"
    assert stub.shape.startswith(f"JSON lines, {len(records)} records; record keys: n: int, name: str")
    assert stub.shape.endswith(", late?: bool")  # (the first 25 records lack it: a read must not count on it)
    common = set.intersection(*(set(r) for r in records))
    assert all(f"{key}{'' if key in common else '?'}: " in stub.shape for key in keys)
    (last,) = follow(tools, {"handle": stub.handle, "record": len(records), "records": 5}, 65536)
    assert last["records"] == [json.loads(json.dumps(records[-1]))] and last["next_call"] is None
    with pytest.raises(InvalidArgument, match=rf"past the last record \({len(records)}\)"):
        tools.call("read_handle", {"handle": stub.handle, "record": len(records) + 1})
    big = data * 4  # a sample: the line count scaled by the share of records (half the lines are blank)
    stub = scratch_scope.spill(big, source_tool="api")
    found = re.match(r"JSON lines, ~([\d,]+) records; record keys: n: int, ", stub.shape)
    assert found and abs(int(found.group(1).replace(",", "")) - len(records) * 4) <= 4, stub.shape


# -- 5. reads that do not fit the stored kind -------------------------------------------------------------------------


def test_a_read_that_does_not_fit_the_stored_kind_names_the_read_that_does(tools, scratch_scope, fixture_data):
    doc = scratch_scope.spill(fixture_data["api-ec2-service-model.json"], source_tool="api")
    lines = scratch_scope.spill(b"".join(json.dumps({"i": i, "v": [i, i]}).encode() + b"\n" for i in range(900)),
                                source_tool="logs")
    table = scratch_scope.spill(fixture_data["query-packages-by-month.csv"], source_tool="sql")
    assert (doc.content_type, lines.content_type, table.content_type) == ("json", "jsonl", "csv")
    refused = [(doc, {"row": 1}, "jq="), (doc, {"record": 1}, "jq="), (doc, {"record": 3}, "jq="),
               (lines, {"row": 1}, "record="),
               (table, {"record": 1}, "row="), (table, {"jq": "."}, "row=")]
    for stub, args, fits in refused:
        with pytest.raises(InvalidArgument) as caught:
            tools.call("read_handle", {"handle": stub.handle, **args})
        message = str(caught.value)
        assert f"content type {stub.content_type}" in message and f"read it with {fits}" in message, message
    # the reads that fit still answer; a JSON document on one line (between blank lines) is one record
    one = scratch_scope.spill(b"\n  \n" + json.dumps({"k": list(range(300))}).encode() + b"\n\n")
    assert one.content_type == "json"
    assert tools.call("read_handle", {"handle": one.handle, "record": 1})["records"] == [{"k": list(range(300))}]
    assert tools.call("read_handle", {"handle": lines.handle, "record": 2, "records": 1})["records"] == [
        {"i": 1, "v": [1, 1]}]
    assert tools.call("read_handle", {"handle": lines.handle, "jq": ".i"})["results"][:3] == [0, 1, 2]


def test_content_of_unknown_kind_is_read_and_its_parse_decides(tmp_path, fixture_data):
    data = fixture_data["query-packages-by-month.csv"]
    with ScratchStore(tmp_path, detect_shape=False) as store:
        scope = store.scope("run", "agent")
        stub = scope.spill(data, source_tool="sql")
        assert stub.content_type is None
        page = ScratchTools(scope).call("read_handle", {"handle": stub.handle, "row": 1, "rows": 2})
        assert page["rows"] == list(csv.reader(io.StringIO(data.decode(), newline="")))[1:3]


def test_json_lines_cut_short_are_no_table(tools, scratch_scope):
    records = [{"ts": 1_700_000_000 + i, "level": "info", "msg": f"step {i}"} for i in range(15)]
    cut = json.dumps(records[0])[:40]  # a tool's output cut in its last record: 2 commas, as every line has
    stub = scratch_scope.spill("".join(json.dumps(r) + "\n" for r in records) + cut, source_tool="logs")
    # not a table of cells such as '{"ts": 1700000000', nor text: JSON lines cut short (it was text when the cut
    # line was among the first 20)
    assert stub.shape.startswith("JSON lines, 15 records, the last line cut (not JSON); record keys: ts: int")
    assert tools.call("read_handle", {"handle": stub.handle, "record": 1, "records": 15})["records"] == records


def _log_records(count: int) -> bytes:
    return b"".join(json.dumps({"ts": f"2026-12-03T10:{i % 60:02d}:00Z", "msg": f"event {i}", "n": i}).encode()
                    + b"\n" for i in range(count))


@pytest.mark.parametrize("count", [500, 60_000])  # the whole content described, a 512 KiB sample of 3.4 MB
def test_json_lines_whose_last_line_is_cut_say_so_and_count_the_whole_records(tools, scratch_scope, count):
    """NDJSON from a capped stream (``head -c``, a tool's output limit) ends inside a record: its stub said '500
    records' (the line count) though record 500 is not JSON and every read of it fails. The stub counts the whole
    records and says the last line is cut; a last line that is whole but not JSON (a trailer) is told apart, and a
    last record without its newline is no cut."""
    data = _log_records(count)
    cut = scratch_scope.spill(data[:-20], source_tool="logs")
    assert cut.content_type == "jsonl"
    assert cut.shape.startswith(f"JSON lines, {count - 1:,} records, the last line cut (not JSON); record keys: ")
    with pytest.raises(BadRecord, match=f"record {count} .*is not JSON") as bad:  # and no read after it is offered
        tools.call("read_handle", {"handle": cut.handle, "record": count})
    assert "it is the last record: the content ends with it" in str(bad.value) and "read on" not in str(bad.value)
    last = tools.call("read_handle", {"handle": cut.handle, "record": count - 1, "records": 1})["records"]
    assert last == [json.loads(data.splitlines()[count - 2])]
    trailer = scratch_scope.spill(data + b"[output truncated at 1000 lines]\n", source_tool="logs")
    assert trailer.shape.startswith(f"JSON lines, {count:,} records, the last line not JSON; record keys: ")
    for whole in (data, data[:-1]):
        stub = scratch_scope.spill(whole, source_tool="logs")
        assert stub.shape.startswith(f"JSON lines, {count:,} records; record keys: ts: str, msg: str, n: int")


def test_json_lines_of_records_longer_than_the_head_are_json_lines(tools, scratch_scope, fixture_data):
    # records of 100 KB (longer than the 64 KiB head the first records are told from): JSON lines, not one JSON
    # document (which record= would be refused on) nor text
    page = fixture_data["browser-rust-book.html"][:100_000].decode("utf-8", "ignore")
    records = [{"url": f"https://example.org/{i}", "html": page} for i in range(30)]
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    three = "".join(json.dumps(r) + "\n" for r in records[:3]).encode()
    for content, count in ((three, "3 records"), (data, "30 records")):  # whole, a sample of 512 KiB
        stub = scratch_scope.spill(content, source_tool="crawl")
        assert (stub.content_type, stub.shape.split(";")[0]) == ("jsonl", f"JSON lines, {count}")
    reply = tools.call("read_handle", {"handle": stub.handle, "record": 30, "records": 1, "jq": ".url"})
    assert reply["results"] == ["https://example.org/29"]


def test_a_lone_carriage_return_ends_a_row_as_in_pythons_csv_module():
    """The csv module's own words ("do you need to open the file in universal-newline mode?") reached the model; then
    a row holding a lone \\r could not be read. A lone \\r ends a line, as ``open(path, newline="")`` -- the way the
    module asks files opened -- reads it, and a quoted field keeps its \\r."""
    from scratchfs.engine.structure import BytesSource, rows_page

    data = b"a,b\nx,p\rq\n" + b"k,l\n" * 3000
    wanted = [row for row in csv.reader(io.StringIO(data.decode(), newline="")) if row][1:]
    assert rows_page(BytesSource(data), 1, 3).items == wanted[:3] == [["x", "p"], ["q"], ["k", "l"]]
    assert rows_page(BytesSource(b'a,b\nx,"p\rq"\n')).to_dict()["rows"] == [["x", "p\rq"]]  # quoted: a field's


def test_a_byte_offset_given_to_a_structure_read_other_than_the_text_view_is_refused(tools, scratch_scope,
                                                                                     fixture_data):
    # offset=100 beside row=1 (or record=, jq=, select=) used to be dropped without a word: the page of row 1 came
    # back as if it were the one asked for. The text view alone reads from a byte offset.
    spill = {name: scratch_scope.spill(fixture_data[name], source_tool="t").handle for name in fixture_data}
    csv_h, json_h = spill["query-packages-by-month.csv"], spill["api-ec2-service-model.json"]
    html_h = spill["browser-rust-book.html"]
    lines_h = scratch_scope.spill("\n".join(json.dumps({"i": i}) for i in range(3000)), source_tool="t").handle
    for args in ({"handle": csv_h, "row": 1}, {"handle": lines_h, "record": 1}, {"handle": json_h, "jq": ".metadata"},
                 {"handle": html_h, "select": "h1"}, {"handle": lines_h, "record": 1, "jq": ".i"}):
        with pytest.raises(InvalidArgument, match=r"offset cannot be combined with (row|record|jq|select)"):
            tools.call("read_handle", {**args, "offset": 100})
        assert tools.call("read_handle", {**args, "offset": 0})["first"] == 1  # the default, said aloud
    text = tools.call("read_handle", {"handle": html_h, "view": "text", "offset": 100})
    assert text["offset"] == 100 and text["text"]
