"""JSON lines with a record cut or garbled (a capped or interleaved output), as a new user met them (2026-12-04):

1. one bad line among the first 20 (a log line, a cut line) made the stub 'text, 1,000 lines': no record= or jq read
   offered. Now the first 20 lines tell JSON lines when all but one in 10 of them are JSON objects or arrays (a
   line before the records that is no JSON too), and the shape names the bad records ("1 record not JSON (record
   10)"); text whose lines start with JSON words stays text (test_structure_misfit, test_stub_shape).
2. a record read whose page starts at a bad record raised (the record=1 a stub names, when record 1 was the cut
   one). Now such a page passes over it and the bad records right after it, and gives the records that follow on
   the same page, its note naming the first with the byte read that shows it (as a rows page passes over rows it
   cannot read) -- but a bad record that is the content's last (a cut last line) still raises, saying so: there is
   nothing after it to give. Over plain text a record read stays a misfit (test_structure_misfit).
3. slurp=true failed at a cut last line that the stub itself counts out. Now it runs over the records the stub
   counts, its note naming the last line left out.
"""

from __future__ import annotations

import ast
import json
import re

import pytest

from scratchfs import BadRecord, NotJson
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe

_CUT = b'{"name": "broken, "uid": '


def _lines(bad: tuple[int, ...], count: int = 1000, line: bytes = _CUT) -> bytes:
    lines = [json.dumps({"name": f"u{i}", "uid": i, "shell": "/bin/sh"}).encode() for i in range(count)]
    for number in bad:
        lines[number - 1] = line
    return b"\n".join(lines) + b"\n"


def _call(text: str) -> dict:
    node = ast.parse(text, mode="eval").body
    return {k.arg: ast.literal_eval(k.value) for k in node.keywords}


@pytest.mark.parametrize(("bad", "said"), [
    ((10,), "1 record not JSON (record 10)"),
    ((501,), "1 record not JSON (record 501)"),
    ((1,), "1 record not JSON (record 1)"),
    ((4, 8), "2 records not JSON (records 4, 8)"),
    ((30, 300), "2 records not JSON (records 30, 300)"),
    ((3, 300, 600, 900), "4 records not JSON (records 3, 300, 600, …)"),
])
def test_the_shape_names_the_records_that_are_not_json(bad, said):
    data = _lines(bad)
    shape = describe(data, len(data), data.count(b"\n"))
    assert shape.content_type == "jsonl", shape
    assert shape.text.startswith(f"JSON lines, 1,000 records, {said}; record keys: name: str"), shape


@pytest.mark.parametrize("line", [b"2026-12-04 10:00:00 INFO export started", b"# exported by tool 1.2",
                                  b"WARNING: 3 rows skipped"])
@pytest.mark.parametrize("at", [1, 7])
def test_a_log_line_among_the_first_records_leaves_json_lines(line, at):
    data = _lines((at,), line=line)
    shape = describe(data, len(data), data.count(b"\n"))
    assert shape.content_type == "jsonl", shape
    assert shape.text.startswith(f"JSON lines, 1,000 records, 1 record not JSON (record {at}); record keys: "), shape


@pytest.mark.parametrize("data", [
    _lines((3, 9, 15)),  # 3 of the first 20: more than 1 in 10
    _lines((2, 5, 8, 11, 14)),
    b"".join(b"%d\n" % i for i in range(18)) + b"[1] Done  make\n" * 300,  # numbers and job lines: no objects
    b"[1] Done  sleep 10\n" * 300,
    b'[1] {"a": 1}\n' * 30,
    b"null\nnull\nnot json\n" * 10,
    b'{"a": 1}\n' + b"export done\n" * 30,
])
def test_lines_mostly_not_json_objects_are_no_json_lines(data):
    assert describe(data, len(data), data.count(b"\n")).content_type != "jsonl"


def test_the_reads_a_stub_names_work_when_the_first_record_is_bad(scratch_scope):
    data = _lines((1,))
    stub = scratch_scope.spill(data, source_tool="api.list")
    tools = ScratchTools(scratch_scope)
    calls = [c for c in stub.note.split("Next: ")[1].rstrip(".").split(" | ") if "record=" in c]
    assert calls, stub.note
    named = _call(calls[0])  # (from the first record the preview does not show whole: no line is blank here)
    lines = data.splitlines()
    assert named["record"] > 1 and lines[named["record"] - 1].decode() not in stub.preview, stub.note
    for call, first in ((named, named["record"]), ({**named, "record": 1}, 2)):  # (record=1: the bad one passed over)
        got, notes = [], []
        while call:
            reply = tools.read_handle(**call)
            got += reply["records"]
            notes.append(reply.get("note", ""))
            call = reply["next_call"] and _call(reply["next_call"])
        assert got == [json.loads(line) for line in lines[first - 1 :]]
    assert notes[0].startswith("record 1 (bytes 0 to 25) is not JSON"), notes[0]
    see = _call(notes[0].split(" -- its bytes: ")[1].split(" -- ")[0])
    assert tools.read_handle(**see)["data"].encode() == _CUT + b"\n"


@pytest.mark.parametrize("run", [1, 3])
def test_a_record_read_that_starts_at_bad_records_gives_the_records_after_them(scratch_scope, run):
    data = _lines(tuple(range(16, 16 + run)))
    stub = scratch_scope.spill(data, source_tool="logs")
    tools = ScratchTools(scratch_scope)
    reply = tools.read_handle(handle=stub.handle, record=16, records=5)
    assert reply["first"] == 16 + run
    assert reply["records"] == [json.loads(line) for line in data.splitlines()[15 + run : 20 + run]]
    assert reply["note"].startswith("record 16 (bytes "), reply
    assert (f"and {run - 1} more bad records after it (records 17" in reply["note"]) is (run > 1), reply["note"]
    see = _call(reply["note"].split(" -- its bytes: ")[1].split(" -- ")[0])
    assert tools.read_handle(**see)["data"].encode() == _CUT + b"\n"
    on = tools.read_handle(**_call(reply["next_call"]))
    assert on["first"] == 21 + run and "note" not in on


def test_a_filter_failing_on_the_record_a_read_starts_at_still_raises(scratch_scope):
    """(a filter that fails on every record is told at once, not one record a page)"""
    data = _lines((16,))
    stub = scratch_scope.spill(data, source_tool="logs")
    with pytest.raises(BadRecord, match=r"jq failed on record 17"):
        ScratchTools(scratch_scope).read_handle(handle=stub.handle, record=17, jq=".name + 1")
    page = ScratchTools(scratch_scope).read_handle(handle=stub.handle, record=16, records=2, jq=".uid")
    assert page["results"] == [16, 17] and page["note"].startswith("record 16 (bytes "), page


def test_a_cut_last_line_still_fails_a_read_that_starts_at_it(scratch_scope):
    data = _lines(())[:-20]
    stub = scratch_scope.spill(data, source_tool="logs")
    with pytest.raises(BadRecord, match="it is the last record: the content ends with it"):
        ScratchTools(scratch_scope).read_handle(handle=stub.handle, record=1000)


@pytest.mark.parametrize("tail", [b'{"name": "u1000", "ui', b"[output truncated at 1000 lines]\n"])
def test_slurp_runs_over_the_records_the_stub_counts_when_the_last_line_is_cut(scratch_scope, tail):
    data = _lines(()) + tail
    stub = scratch_scope.spill(data, source_tool="logs")
    assert stub.shape.startswith("JSON lines, 1,000 records, the last line "), stub.shape
    tools = ScratchTools(scratch_scope)
    reply = tools.read_handle(handle=stub.handle, jq="[length, (map(.uid) | add)]", slurp=True)
    assert reply["results"] == [[1000, sum(range(1000))]]
    assert reply["note"].startswith(f"record 1001 (bytes {len(data) - len(tail)} to "), reply["note"]
    assert "is not in the array jq was given: it is the last line" in reply["note"], reply["note"]
    see = _call(reply["note"].split(" -- its bytes: ")[1].split(" -- ")[0])
    assert tools.read_handle(**see)["data"].encode() == tail


def test_slurp_passes_over_a_bad_record_before_the_last(scratch_scope):
    """It failed the read (newuser9's trial: the stub's own slurp call, beside its "1 record not JSON", refused)."""
    data = _lines((500,))
    stub = scratch_scope.spill(data, source_tool="logs")
    reply = ScratchTools(scratch_scope).read_handle(handle=stub.handle, jq="length", slurp=True)
    assert reply["results"] == [999] and re.search(r"record 500 \(bytes .* is not JSON", reply["note"]), reply


@pytest.mark.parametrize("leading", [b"WARNING: the --foo flag is deprecated\n",
                                     b"npm warn config production Use `--omit=dev` instead.\nnpm warn exec x\n",
                                     b"WARNING: a\n\nDeprecationWarning: b\n[WARN] c\n"])
def test_json_lines_after_a_tool_s_warning_lines_are_read_as_the_stub_says(scratch_scope, leading):
    """A tool's warning lines before its JSON lines (helper jsonopen1): 2 or 3 of them made the stub 'text' (no
    record= or jq read offered) and a jq read's refusal named a byte range of raw text. Now each is a record not
    JSON the shape names, and the stub's reads and the refusal's give the records."""
    data, tools = leading + _lines(()), ScratchTools(scratch_scope)
    stub = scratch_scope.spill(data, source_tool="tool")
    k = leading.count(b"\n") - leading.count(b"\n\n")
    numbers = ", ".join(map(str, range(1, k + 1)))
    assert stub.shape.startswith(f"JSON lines, {1000 + k:,} records, {k} record{'s' * (k > 1)} not JSON "
                                 f"(record{'s' * (k > 1)} {numbers}); record keys: name: str"), stub.shape
    named = [_call(c) for c in stub.note.split("Next: ")[1].rstrip(".").split(" | ") if "jq=" in c or "record=" in c]
    assert [sorted(c) for c in named] == [["handle", "record", "records"], ["handle", "jq", "slurp"]], stub.note
    reply = tools.call("read_handle", {**named[1], "jq": "length"})
    assert reply["results"] == [1000], reply
    with pytest.raises(NotJson) as refused:
        tools.call("read_handle", {"handle": stub.handle, "jq": "."})
    call = _call(str(refused.value).rsplit("passed over: ", 1)[1])
    assert call == {"handle": stub.handle, "record": 1, "jq": "."}, str(refused.value)
    got = []
    while call:
        reply = tools.call("read_handle", call)
        got += reply["results"]
        call = reply["next_call"] and _call(reply["next_call"])
    assert got == [json.loads(line) for line in _lines(()).splitlines()]
