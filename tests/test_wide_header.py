"""A table whose header alone takes over half a page's budget (10,000 columns, a few names of 2 KB, names of control
characters that JSON escapes to six bytes each): its stub's note named ``row=N, rows=20``, and that very call was
refused (``the header alone takes 78,891 bytes of the 7,867-byte budget; select fewer columns``), naming no call to
make instead (found by running every call a stub advised, hostile6). The note's rows read now names the columns that
fit, and the refusal of a read that names none (or too many) advises the read of the first columns that fit, as a
call. Each test RUNS the advised call and checks its reply."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.api.stub_reads import NARROW_BUDGET, narrowed
from scratchfs.engine.structure import BytesSource, rows_page
from scratchfs.foundation.errors import InvalidArgument, ScratchError, WideHeader


def _csv(header: list[str], rows: int) -> bytes:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    for row in range(rows):
        writer.writerow([f"{row}.{column}" for column in range(len(header))])
    return text.getvalue().encode()


def _row_calls(note: str) -> list[dict]:
    calls = [parse_call(call)[1] for call in re.findall(r'read_handle\((?:[^()"]|"(?:[^"\\]|\\.)*")*\)', note)]
    return [call for call in calls if "row" in call]


WIDE = [
    pytest.param([f"c{i}" for i in range(10_000)], 3, id="10000-columns"),
    pytest.param([f"{i}" + "n" * 2000 for i in range(6)], 40, id="names-of-2-KB"),
    pytest.param(["\\" * 300 + str(i) for i in range(20)], 40, id="escaped-names"),
]


@pytest.mark.parametrize(("header", "rows"), WIDE)
def test_the_rows_read_a_wide_tables_stub_names_is_answered(store, header, rows):
    scope = store.scope("r", "a")
    stub = scope.spill(_csv(header, rows), source_tool="sql.query")
    assert stub.content_type == "csv", stub.shape
    calls = _row_calls(stub.note)
    assert len(calls) == 1, stub.note
    reply = ScratchTools(scope).read_handle(**calls[0])  # (refused before: the header alone over half the budget)
    assert len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()) <= 8192
    named = calls[0]["columns"]
    assert reply["header"] == [header[column] for column in named] and named[0] == 0
    first = reply["rows"][0]
    assert first == [f"{reply['first'] - 1}.{column}" for column in named]


@pytest.mark.parametrize(("header", "rows"), WIDE)
@pytest.mark.parametrize("budget", [None, 2048, 65536])
def test_a_refused_wide_header_advises_a_read_that_works(store, header, rows, budget):
    scope = store.scope("r", "a")
    tools = ScratchTools(scope)
    handle = scope.spill(_csv(header, rows)).handle
    if budget == 65536 and len(header) < 10_000:  # (the header fits half of the largest budget)
        assert tools.read_handle(handle, row=2, rows=5, budget=budget)["header"] == header
        return
    with pytest.raises(InvalidArgument, match="the header alone takes") as refused:
        tools.read_handle(handle, row=2, rows=5, budget=budget)
    calls = [call for call in refused.value.calls if call.verb == "read_handle"]
    if budget == 2048 and len(header[0]) > 512:  # (not even the first name fits: no narrower read to advise)
        assert calls == []
        return
    assert len(calls) == 1, str(refused.value)
    arguments = dict(calls[0].arguments)
    assert arguments["row"] == 2 and arguments.get("budget") == budget
    reply = tools.read_handle(**arguments)
    assert arguments["columns"] == list(range(len(arguments["columns"]))) and len(arguments["columns"]) <= 16
    assert reply["header"] == header[: len(arguments["columns"])]
    assert reply["rows"][0] == [f"1.{column}" for column in range(len(arguments["columns"]))]
    assert len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()) <= (budget or 8192)


def test_a_refused_wide_header_of_columns_named_advises_the_first_of_them(store):
    scope = store.scope("r", "a")
    tools = ScratchTools(scope)
    header = [f"c{i}" + "x" * 200 for i in range(300)]
    handle = scope.spill(_csv(header, 3)).handle
    named = header[100:200]  # (100 names: the most a read takes)
    with pytest.raises(InvalidArgument) as refused:
        tools.read_handle(handle, row=1, rows=2, columns=named)
    (call,) = refused.value.calls
    arguments = dict(call.arguments)
    assert arguments["columns"] == list(range(100, 100 + len(arguments["columns"]))) and arguments["columns"]
    reply = tools.read_handle(**arguments)  # (by number: the names would take the echo's room)
    assert reply["header"] == named[: len(arguments["columns"])]
    assert reply["rows"][0] == [f"0.{column}" for column in arguments["columns"]]


_CELL = st.lists(st.sampled_from(["a", "b", "\t", ";", "#", "\x01", "\x7f", "\\", "é", "sep=,", "\ufeff", " ",
                                  "x" * 50, "\x02" * 20, "\x03" * 300, "y" * 900]), max_size=8).map("".join)


@settings(max_examples=300, deadline=None)
@given(comments=st.lists(st.text(alphabet="#ab,\x01", max_size=30).map(lambda t: "#" + t), max_size=3),
       header=st.lists(_CELL, min_size=1, max_size=80), rows=st.integers(0, 3), first=st.sampled_from(["", "sep=,\n",
                                                                                                        "\ufeff"]))
def test_a_note_narrows_its_rows_read_exactly_when_the_header_does_not_fit(comments, header, rows, first):
    """The note's check of a header that surely fits (a short line with no quote: no rows read, ~50 us saved a CSV
    stub) answers what the rows read itself answers, for headers long and short, of control characters (six bytes
    each in JSON), after comment and sep= lines and a byte order mark."""
    text = first + "".join(line + "\n" for line in comments) + ",".join(header) + "\n" + "1,2\n" * rows
    head = text.encode()
    try:
        rows_page(BytesSource(head), 1, 1, budget_bytes=NARROW_BUDGET, headed=True)
        expected = None
    except WideHeader as exc:
        expected = list(exc.fitting or (0,))
    except (ScratchError, ValueError):
        expected = None
    assert narrowed(head) == expected
