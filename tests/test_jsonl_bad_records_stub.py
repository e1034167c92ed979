"""JSON lines with a record cut or garbled (a capped or interleaved output), as a new user met them: one bad line
among the first 20 made the stub 'text, 1,000 lines' (no record= or jq read offered), while one at record 501 made
'JSON lines, 1,000 records' with no word of it; and the record=1 read a stub names raised when record 1 was the bad
one. Now one line in 10 of the first 20 may be no JSON, the stub names the bad records its sample holds, and a read
started at a bad record passes over it as a page after it does."""

from __future__ import annotations

import ast
import json

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe

_CUT = b'{"name": "broken, "uid": '


def _lines(bad: tuple[int, ...], count: int = 1000) -> bytes:
    lines = [json.dumps({"name": f"u{i}", "uid": i, "shell": "/bin/sh"}).encode() for i in range(count)]
    for number in bad:
        lines[number - 1] = _CUT
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize(("bad", "said"), [
    ((10,), "1 record not JSON (record 10)"),
    ((501,), "1 record not JSON (record 501)"),
    ((1,), "1 record not JSON (record 1)"),
    ((4, 8), "2 records not JSON (records 4, 8)"),
    ((3, 300, 600, 900), "4 records not JSON (records 3, 300, 600, …)"),
])
def test_the_shape_names_the_records_that_are_not_json(bad, said):
    data = _lines(bad)
    shape = describe(data, len(data), data.count(b"\n"))
    assert shape.content_type == "jsonl", shape
    assert shape.text.startswith(f"JSON lines, 1,000 records, {said}; record keys: name: str"), shape


def test_lines_mostly_not_json_are_no_json_lines():
    data = _lines((2, 5, 8, 11, 14))  # 5 of the first 20
    assert describe(data, len(data), data.count(b"\n")).content_type == "text"


def test_the_reads_a_stub_names_work_when_the_first_record_is_bad(scratch_scope):
    data = _lines((1,))
    stub = scratch_scope.spill(data, source_tool="api.list")
    tools = ScratchTools(scratch_scope)
    calls = [c for c in stub.note.split("Next: ")[1].rstrip(".").split(" | ") if "record=" in c]
    assert calls, stub.note
    got, call = [], ast.parse(calls[0], mode="eval").body
    call = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    while call:
        reply = tools.read_handle(**call)
        got += reply["records"]
        nxt = reply["next_call"]
        call = nxt and {k.arg: ast.literal_eval(k.value) for k in ast.parse(nxt, mode="eval").body.keywords}
    assert got == [json.loads(line) for line in data.splitlines()[1:]]
