"""Text whose lines end in a lone ``\\r`` (classic Mac OS; Excel's "CSV (Macintosh)" export) with no newline at all:
before, rows of dates and numbers and logs of timestamped lines were "terminal output, N overwritten lines" (their
pieces agree position by position as a counter's redraws do), and the stub's way on, ``view="text"``, drew every
line over the last: the model was shown the last row of a table of hundreds. A sample with no newline whose pieces
each end in their ``\\r`` (not a redraw's ``\\r`` before each state, as tqdm and curl write it) is lines; its shape
says how many end so, since line reads count ``\\n``. Progress output stays terminal output."""

from __future__ import annotations

import csv
import io
import json
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe


def _dated_rows(count: int) -> bytes:
    rng = random.Random(5)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r")
    writer.writerow(["date", "region", "sales", "units"])
    for i in range(count):
        writer.writerow([f"2020-{i // 28 % 12 + 1:02d}-{i % 28 + 1:02d}", rng.choice(["north", "south"]),
                         f"{rng.randrange(100, 999)}.{rng.randrange(100):02d}", rng.randrange(10, 99)])
    return out.getvalue().encode()


def _timestamped_log(count: int) -> bytes:
    rng = random.Random(6)
    return b"".join(b"2024-05-01 12:%02d:%02d INFO request %d served in %d ms\r" % (i // 60 % 60, i % 60, i,
                                                                                     rng.randrange(1, 99))
                    for i in range(count))


def _note_calls(note: str) -> list[dict]:
    return [parse_call(text)[1] for text in re.findall(r"read_handle\([^)]*\)", note)]


def test_a_macintosh_csv_of_dates_and_numbers_is_a_table_read_whole_by_rows(scratch_scope):
    """300 dated rows (Excel's Macintosh CSV): a table, and its rows read from row 1 by next_call are the csv
    module's rows once each (before: terminal output whose text view showed the last row alone)."""
    data = _dated_rows(300)
    stub = scratch_scope.spill(data, source_tool="sql.export")
    assert stub.content_type == "csv" and stub.shape.startswith("CSV, 4 columns (date, region, sales, units), 300 rows")
    tools = ScratchTools(scratch_scope)
    call, seen = {"handle": stub.handle, "row": 1, "rows": 100}, []
    while call:
        reply = tools.read_handle(**call)
        seen += reply["rows"]
        call = reply["next_call"] and _note_calls(reply["next_call"])[0]
    expected = list(csv.reader(io.StringIO(data.decode(), newline="")))[1:]
    assert [list(r.values()) if isinstance(r, dict) else r for r in seen] == expected


def test_a_log_whose_lines_end_in_a_lone_cr_is_no_terminal_output(scratch_scope):
    """A timestamped log of 300 lines ending in \\r: a log, whose shape counts its 300 lines ending so and says
    line reads do not count them; the stub offers no text view (which would draw each line over the last), and the
    range reads its note names give every byte back."""
    data = _timestamped_log(300)
    stub = scratch_scope.spill(data, source_tool="app.logs")
    assert not stub.shape.startswith("terminal output") and "overwritten" not in stub.shape, stub.shape
    assert "300 lines ending in a lone \\r, which line reads do not count" in stub.shape, stub.shape
    calls = _note_calls(stub.note)
    assert calls and all("view" not in call for call in calls), stub.note
    tools = ScratchTools(scratch_scope)
    call, got = next(c for c in calls if "offset" in c), bytearray(data[: calls[0]["offset"]])
    while call:
        reply = tools.read_handle(**call)
        got += reply["data"].encode()
        call = reply["next_call"] and _note_calls(reply["next_call"])[0]
    assert bytes(got) == data
    json.dumps(stub.to_dict())  # (the shape's \r is text: a backslash and an r)


def test_progress_output_that_never_wrote_a_newline_stays_terminal_output():
    """A redraw's \\r comes before the state it draws (tqdm, curl): a bar, a counter and curl's meter with no
    newline at all are still terminal output, whole or cut by the sample."""
    bar = "\u2588".encode()
    tqdm = b"".join(b"\r%3d%%|%s%s| %d/100" % (p, bar * (p // 10), b" " * (10 - p // 10), p) for p in range(101))
    counter = b"".join(b"\r%d bytes" % (i * 104857) for i in range(2000))
    for data in (tqdm * 30, counter, counter * 40):
        shape = describe(data, len(data), 1)
        assert shape.text.startswith("terminal output") and "overwritten lines" in shape.text, shape


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=60),
                min_size=4, max_size=300))
def test_lines_each_ended_by_a_lone_cr_are_never_terminal_output(lines):
    """Any printable lines, each ended by a lone \\r and with no newline: never terminal output, and when they are
    text, their shape counts every line ending so."""
    data = "\r".join(lines).encode() + b"\r"
    shape = describe(data, len(data), 1)
    assert not shape.text.startswith("terminal output"), shape
    if shape.text.startswith(("text, ", "log, ")):  # (plain text; an aligned table's shape says otherwise)
        assert f"{len(lines):,} lines ending in a lone \\r" in shape.text, shape


def test_the_text_view_of_lines_ending_in_a_lone_cr_shows_every_line(scratch_scope):
    """``view="text"`` of such a log drew each line over the last (terminal rendering: a \\r returns the cursor) and
    showed the last line alone, ``more: false`` (a new user's trial): now each \\r ends a line in the view, paging by
    next_call gives every line once, and ``raw_offset=`` starts at the line holding that stored byte."""
    data = _timestamped_log(1500)
    stub = scratch_scope.spill(data, source_tool="app.logs")
    tools = ScratchTools(scratch_scope)
    call, text = {"handle": stub.handle, "view": "text"}, ""
    while call:
        reply = tools.read_handle(**call)
        text += reply["text"]
        call = reply["next_call"] and _note_calls(reply["next_call"])[0]
    assert text == data.decode().replace("\r", "\n")  # (each line once, in order, each ended)
    at = data.index(b"request 1234 ")
    reply = tools.read_handle(stub.handle, view="text", raw_offset=at + 5)
    assert reply["text"].startswith(data[data.rindex(b"\r", 0, at) + 1 : at].decode()), reply["text"][:80]
