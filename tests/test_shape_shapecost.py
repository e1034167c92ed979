"""Shortcuts of shape detection (issue 16's T1, "shapecost1": a small spill's describe made cheaper with the same
answers), each against the code it stands for -- a copy of the code before it -- on generated inputs, and shown taken.

- ``table_rows`` of lines with quotes (read by the ``csv`` module) that turn ragged stops reading once more than 1
  in 5 of the most rows its lines can hold are unlike a ragged table's rows (``_ragged_table``'s 4 of 5 with 2
  cells filled, at most one wider): JSON fragments full of commas and quotes read 13 rows of their 50 lines, not
  50, and get the same ``None``.
- ``describe`` enters no ``within`` context (3 us: a generator's context manager) when the room it would set is no
  narrower than the limit already in force -- the usual case, a content all UTF-8, whose shape adds no clause --:
  the shape is the same, written under the same limit.
"""

from __future__ import annotations

import csv
import io

from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import shape, shape_rows
from scratchfs.api.shape_rows import TableRows, table_rows
from scratchfs.api.shape_words import MAX_SHAPE_CHARS, within
from scratchfs.foundation import csv_rows


def old_table_rows(lines: list[str], delimiter: str) -> TableRows | None:
    """``table_rows``' quoted branch before the shortcut (``git show a50879d7:scratchfs/api/shape_table.py``)."""
    text = "\n".join(lines)
    rows: list[list[str]] = []
    starts: list[int] = []
    try:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        line = 0
        ragged = False
        for row in reader:
            if row:
                if not ragged and len(rows) >= 2 and len(rows[-1]) != len(rows[0]):
                    ragged = True
                    if not shape_rows._may_be_ragged(text, delimiter, rows[0], len(lines)) or all(
                            len(under) > len(rows[0]) and under[-1] for under in (rows[1], row)):
                        return None
                rows.append(row)
                starts.append(line)
            line = reader.line_num
    except csv.Error:
        return None
    if len(rows) > 2 and shape_rows._open_quote("\n".join(lines[starts[-1] :]), delimiter):
        del rows[-1], starts[-1]
    if len(rows) < 2 or len(rows[0]) < 2:
        return None
    if any(len(row) != len(rows[0]) for row in rows[1:-1]) and not shape_rows._ragged_table(rows):
        return None
    return TableRows(rows, starts)


_CELLS = st.sampled_from(["a", "", "b c", '"x,y"', '"q', "12", " d", '"a""b"', "name"])


@settings(max_examples=1000, deadline=None)
@example([["a", "a", "a"], ["a", "a", "a"], ["a"], [""]], ",", True)  # (the ragged row the last once a record
# cut at the end is dropped: a table, its rows not read to the end for nothing)
@given(st.lists(st.lists(_CELLS, min_size=1, max_size=5), min_size=1, max_size=50), st.sampled_from([",", ";"]),
       st.booleans())
def test_quoted_lines_make_the_rows_they_made(cells, delimiter, quoted):
    """Lines of 1 to 5 cells, some quoted (a quote left open too: a record over lines), some empty or opened by a
    space: the rows (or ``None``) are the old code's, whichever row the shortcut stops at."""
    lines = [delimiter.join(row) for row in cells] + (['"'] if quoted else [])
    found, old = table_rows(lines, delimiter), old_table_rows(lines, delimiter)
    assert (found and (found.rows, found.starts)) == (old and (old.rows, old.starts))


def test_json_fragments_stop_being_read_once_no_ragged_table_can_hold_them(monkeypatch):
    """50 lines of a JSON document cut at its start (commas and quotes on every line, a ragged row on the third) are
    no table, told after 13 rows: 11 of them unlike a ragged table's rows (one cell filled), of 49 at most under
    the first."""
    lines = ['"a":"b","c":"d","e":"f"', '"g":"h","i":"j","k":"l"', '"m":"n",', *(['  "key":"value",'] * 47)]
    assert old_table_rows(lines, ",") is None
    pulled = []

    def reader(*args, **kwargs):
        rows = csv_rows.csv_reader(*args, **kwargs)

        class Counted:
            def __iter__(self):
                return self

            def __next__(self):
                pulled.append(1)
                return next(rows)

            @property
            def line_num(self):
                return rows.line_num

        return Counted()

    monkeypatch.setattr(shape_rows, "csv_reader", reader)  # (csv.reader, or the NUL-safe one on 3.10)
    assert table_rows(lines, ",") is None
    assert len(pulled) == 13, len(pulled)  # (the old code read all 50)


def test_a_shape_of_utf8_is_written_with_no_context_and_one_not_utf8_within_its_room(monkeypatch):
    """Text all UTF-8 leaves the limit as it is (no context entered); text with bytes that are not UTF-8 narrows it
    by its clause's room, as before; both shapes are what they were (the limit they were written under the same)."""
    rooms: list[int] = []

    def spy(chars: int):
        rooms.append(chars)
        return within(chars)

    monkeypatch.setattr(shape, "within", spy)
    utf8 = b"".join(b"line %d of text \xc3\xa9t\xc3\xa9\n" % n for n in range(40))
    latin1 = utf8.replace(b"\xc3\xa9", b"\xe9")
    assert shape.describe(utf8, len(utf8), 40).text == "text, 40 lines, longest 21 bytes, 0% blank"
    assert rooms == []
    found = shape.describe(latin1, len(latin1), 40).text
    assert len(rooms) == 1 and rooms[0] < MAX_SHAPE_CHARS
    assert found.startswith("text, 40 lines") and "80 bytes not UTF-8" in found, found
