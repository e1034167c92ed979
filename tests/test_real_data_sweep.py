"""Faults found by a differential sweep of every read over the real outputs (``fixtures/``, slices of
``shared/realdata/``), each reproduced on a fixture slice: every call a stub's note names succeeds, and the reads it
leads to give what plain Python gives."""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from pathlib import Path

import pytest

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import BadRecord

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture
def tools(tmp_path):
    with ScratchStore(root=tmp_path / "store") as store:
        yield ScratchTools(store.scope("run", "agent"))


def _latin1_rows() -> tuple[list[dict], bytes]:
    """The CSV fixture's rows as a JSON array of objects, written in Latin-1 (as a legacy API would send it; a
    character Latin-1 has not is '?'): the rows as Python reads the bytes back, invalid bytes as U+FFFD."""
    text = (FIXTURES / "query-packages-by-month.csv").read_bytes().decode("utf-8")
    rows = [dict(r) for r in csv.DictReader(io.StringIO(text, newline=""))][:400]
    raw = json.dumps(rows, ensure_ascii=False, indent=1).encode("latin-1", "replace")
    assert b"comunica\xe7ao" in raw  # a Latin-1 byte that is no UTF-8
    return json.loads(raw.decode("utf-8", "replace")), raw


def _note_calls(note: str) -> list[dict]:
    calls = re.findall(r'read_handle\((handle="[^"]+"[^)]*)\)', note)
    return [{k.arg: ast.literal_eval(k.value) for k in ast.parse(f"f({c})", mode="eval").body.keywords}
            for c in (c.replace('jq="JQ"', 'jq="length"') for c in calls)]  # (the placeholder of a slurp's filter)


def test_a_latin1_json_document_is_read_by_the_jq_calls_its_stub_names(tools):
    expected, raw = _latin1_rows()
    stub = tools.scope.spill(raw, source_tool="api.get")
    assert stub.content_type == "json"
    calls = _note_calls(stub.note)
    assert any("jq" in c for c in calls)
    for call in calls:  # each succeeds (before: jq=".[0]" raised 'the document is not UTF-8 text')
        tools.call("read_handle", call)
    first = tools.call("read_handle", {"handle": stub.handle, "jq": ".[0]"})
    assert first["results"] == [expected[0]]
    assert "U+FFFD" in first["note"] and "not UTF-8" in first["note"]
    summaries, call = [], {"handle": stub.handle, "jq": ".[].summary", "budget": 2048}
    while True:
        reply = tools.call("read_handle", call)
        summaries += reply["results"]
        if reply["next_call"] is None:
            break
        call = {k.arg: ast.literal_eval(k.value)
                for k in ast.parse(reply["next_call"], mode="eval").body.keywords}
    assert summaries == [row["summary"] for row in expected]
    assert "Client de comunica\ufffdao c/ API de E-mail da FMConsult" in summaries


def test_a_one_line_latin1_document_is_one_record(tools):
    """record=1 over a one-line JSON document in Latin-1 gives it whole, with U+FFFD (before: its UTF-8 error was
    told as 'one JSON document over several lines, which a record= read does not parse')."""
    _, raw = _latin1_rows()
    rows = [row for row in json.loads(raw.decode("latin-1")) if not json.dumps(row, ensure_ascii=False).isascii()]
    one_line = json.dumps(rows[:10], ensure_ascii=False).encode("latin-1")
    assert b"\n" not in one_line and b"\xe7" in one_line
    handle = tools.scope.spill(one_line, source_tool="api.get").handle
    reply = tools.call("read_handle", {"handle": handle, "record": 1})
    assert reply["records"] == [json.loads(one_line.decode("utf-8", "replace"))]
    assert "record 1 is not UTF-8 text" in reply["note"]


def _walk_text(tools, call: dict) -> str:
    texts = []
    while True:
        reply = tools.call("read_handle", call)
        texts.append(reply["text"])
        if reply["next_call"] is None:
            return "".join(texts)
        call = {k.arg: ast.literal_eval(k.value) for k in ast.parse(reply["next_call"], mode="eval").body.keywords}


def test_text_whose_lines_end_in_a_lone_cr_is_not_lost_by_the_read_its_stub_names(tools):
    """Text whose lines end in a lone \\r (classic Mac OS) was "terminal output" (every bare \\r taken for a redraw),
    and its stub named view="text", which drew each line over the last: 65,000 bytes of rows shown as one line. It
    is a table (then: plain text, read by range), as Python's csv module reads a file opened with newline="", and
    the reads its stub names give every row."""
    raw = (FIXTURES / "query-packages-by-month.csv").read_bytes()[:65536]
    raw = raw[:raw.rindex(b"\r\n") + 2].replace(b"\r\n", b"\r")  # classic Mac line ends, 600 rows
    stub = tools.scope.spill(raw, source_tool="sql.query")
    assert stub.content_type == "csv" and not stub.shape.startswith("terminal output"), stub.shape
    names = [line.split(",")[0] for line in raw.decode().split("\r")[1:] if line]
    calls = [call for call in _note_calls(stub.note) if "pattern" not in call and "slurp" not in call]
    assert calls and not [call for call in calls if "view" in call]  # (before: view="text", 1 line of 125 chars)
    assert any("row" in call for call in calls)
    for call in calls:  # a rows read from the first row the preview does not show, a range read from where it stopped
        if "row" in call:
            shown = call["row"] - 1  # (each row a line: the rows before it are whole in the preview)
            assert shown > 0 and all(line in stub.preview for line in raw.decode().split("\r")[1 : shown + 1])
            assert [row[0] for row in _walk(tools, {**call, "rows": 200}, "rows")] == names[shown:]
        else:
            shown = stub.preview + _walk_data(tools, call)
            assert all(name in shown for name in names)


def _walk(tools, call: dict, field: str) -> list:
    items = []
    while call is not None:
        reply = tools.call("read_handle", call)
        items += reply[field]
        call = _call_of(reply["next_call"]) if reply["next_call"] else None
    return items


def _walk_data(tools, call: dict) -> str:
    datas = []
    while call is not None:
        reply = tools.call("read_handle", call)
        datas.append(reply["data"])
        call = _call_of(reply["next_call"]) if reply["next_call"] else None
    return "".join(datas)


def test_progress_bars_stay_terminal_output_and_their_stub_names_the_text_view(tools):
    """Lines redrawn after a bare \\r (a progress bar: 10%\\r20%\\r...100%\\n; tqdm; curl) are terminal output,
    whether or not a newline ends them, and view="text" shows their last state only -- or the preview does, when
    that text is all in it (one bar of 142 KB redraws: its last state, the note naming no further read)."""
    bar = "\u2588".encode()
    tqdm = b"".join(b"\r%3d%%|%s%s| %d/100 [00:%02d<00:%02d]" % (p, bar * (p // 10), b" " * (10 - p // 10), p,
                                                                 p // 10, 10 - p // 10) for p in range(101))
    percent = (b"".join(b"%d%%\r" % p for p in range(10, 100, 10)) + b"100%\n") * 300
    steps = b"".join(b"step %d\n" % i + b"".join(b"\r[%3d%%]" % p for p in range(0, 101, 10)) + b"\n"
                     for i in range(300))
    for data in (percent, steps, tqdm * 30 + b"\n", tqdm * 30):
        stub = tools.scope.spill(data, source_tool="build")
        assert stub.content_type == "log" and stub.shape.startswith("terminal output"), stub.shape
        assert "overwritten lines" in stub.shape
        if "preview shows all of it as a terminal shows it" in stub.note:  # (the text view's text whole in it)
            shown = stub.preview
        else:
            (call,) = [call for call in _note_calls(stub.note) if call.get("view") == "text"]
            shown = _walk_text(tools, call)
        assert "100%" in shown and "50%" not in shown, shown[:200]


def _call_of(text: str) -> dict:
    return {k.arg: ast.literal_eval(k.value) for k in ast.parse(text, mode="eval").body.keywords}


def _fixture_rows(count: int) -> list[dict]:
    text = (FIXTURES / "query-packages-by-month.csv").read_bytes().decode("utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))[:count]


@pytest.mark.parametrize("budget", [2048, 8192])
def test_a_jq_records_read_gives_every_record_before_a_bad_one(tools, budget):
    """JSON lines (the CSV fixture's rows) with some records cut short, as a capped or interleaved output leaves
    them: each is a BadRecord, and the records before it on its page still come first (before: the page that met
    it raised at once, and the records between the last page's end and the bad one were shown by no read); the page
    that ends before it names it in its note and its next_call reads on after it (before: it failed on it)."""
    rows = _fixture_rows(600)
    lines = [json.dumps(row, ensure_ascii=False).encode() for row in rows]
    cut = set(range(149, 600, 173))  # records 150, 323, 496
    lines = [line[: len(line) // 2] if n in cut else line for n, line in enumerate(lines)]
    handle = tools.scope.spill(b"\n".join(lines) + b"\n", source_tool="api.get").handle
    names, call, bad = [], {"handle": handle, "record": 1, "jq": ".name", "budget": budget}, []
    while call is not None:
        try:
            reply = tools.call("read_handle", call)
        except BadRecord as exc:
            bad.append(exc.record)
            call = _call_of(str(exc).rsplit("read on after it: ", 1)[1])
            continue
        names += reply["results"]
        bad += [int(n) for n in re.findall(r"record (\d+) \(bytes \d+ to \d+\) is not JSON", reply.get("note", ""))]
        call = _call_of(reply["next_call"]) if reply["next_call"] else None
    assert names == [row["name"] for n, row in enumerate(rows) if n not in cut]
    assert bad == [n + 1 for n in sorted(cut)]


@pytest.mark.parametrize("jq_filter", [None, ".summary"])
def test_latin1_json_lines_are_read_as_their_stub_says_with_u_fffd(tools, jq_filter):
    """JSON lines written in Latin-1: the stub calls them JSON lines and names record=1; every record reads, each
    byte of no UTF-8 character as U+FFFD and a note saying so (before: each such record was a BadRecord, the first
    page's among them, so the stub's own call failed)."""
    rows = _fixture_rows(600)
    rows.insert(0, rows.pop(next(n for n, r in enumerate(rows) if "comunica\u00e7ao" in r["summary"])))
    raw = b"".join(json.dumps(row, ensure_ascii=False).encode("latin-1", "replace") + b"\n" for row in rows)
    stub = tools.scope.spill(raw, source_tool="api.get")
    assert stub.content_type == "jsonl"
    for call in _note_calls(stub.note):
        tools.call("read_handle", call)
    expected = [json.loads(line) for line in raw.decode("utf-8", "replace").splitlines()]
    call = {"handle": stub.handle, "record": 1, "records": 100, **({"jq": jq_filter} if jq_filter else {})}
    got, notes = [], set()
    while call is not None:
        reply = tools.call("read_handle", call)
        got += reply["results" if jq_filter else "records"]
        notes.add(reply.get("note"))
        call = _call_of(reply["next_call"]) if reply["next_call"] else None
    assert got == ([row["summary"] for row in expected] if jq_filter else expected)
    assert "Client de comunica\ufffdao c/ API de E-mail da FMConsult" in str(got)
    assert any(n and "record 1 is not UTF-8 text" in n and "U+FFFD" in n for n in notes)

