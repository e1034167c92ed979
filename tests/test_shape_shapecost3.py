"""Shortcuts of shape detection (issue 16's S2, "shapecost3": describe made cheaper with the same answers), each
against the code it stands for -- a copy of the code before it -- on generated inputs, and shown taken.

- ``detect_delimiter`` reads the lines after a header line only when that line holds two kinds of delimiter or
  more: with one kind (or none), no other is in the line, so none can be steadier (``_steady`` needs it there) --
  a JSON fragment's first line of commas, a CSV header of commas.
- A table's stray quote is told from its head in one strict ``csv`` pass (``lines_past_records``): every quote
  closed and no record over ``RUNAWAY_LINES - 1`` lines is no stray quote, without ``first_runaway``'s loop over
  the head's rows in Python.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import shape
from scratchfs.engine.structure import stray_quotes, table_start
from scratchfs.engine.structure.row_lines import first_lines
from scratchfs.engine.structure.stray_quotes import first_runaway, well_quoted
from scratchfs.engine.structure.table_start import COMMENT_HEAD_CHARS, DELIMITERS, detect_delimiter


def old_detect_delimiter(first_line: str, after: str | None = None) -> str:
    """``detect_delimiter`` of text before the shortcut (``git show 0df8d931:scratchfs/engine/structure/
    table_start.py``)."""
    tab, comma, semicolon = DELIMITERS
    tabs, commas, semicolons = first_line.count(tab), first_line.count(comma), first_line.count(semicolon)
    found = "\t" if tabs and tabs >= commas else ";" if semicolons > commas else ","
    if after is None or not (tabs or commas or semicolons):
        return found
    lines = list(filter(None, first_lines(after[:COMMENT_HEAD_CHARS], 21)[:-1][:20]))
    steady = table_start._steady  # (unchanged)
    if not lines or steady(found, first_line, lines):
        return found
    return next((other for other in DELIMITERS if other != found and steady(other, first_line, lines)), found)


_LINE = st.text(alphabet="a,;\t", max_size=12)


@settings(max_examples=1500, deadline=None)
@example("a,b", "a;b\n1;2\n3;4\n")
@example("a,b;c", "x;y\n1;2\n3;4\n")
@given(_LINE, st.lists(_LINE, max_size=25).map("\n".join))
def test_the_delimiter_is_the_old_rules(first_line, after):
    """Header lines of commas, semicolons and tabs, one kind or several, over lines of them: the old rule's
    delimiter."""
    assert detect_delimiter(first_line, after) == old_detect_delimiter(first_line, after)


class _Unread(str):
    def __getitem__(self, key):
        raise AssertionError("the lines after the header were read")


def test_a_header_of_one_delimiter_reads_no_line_after_it():
    """A first line of commas only (a CSV header, a JSON fragment's ``"name":"x",``) is comma-separated whatever
    follows: the lines after it are not split for it."""
    assert detect_delimiter('  "name":"x",', _Unread("a;b\n1;2\n")) == ","
    assert detect_delimiter("id\tname", _Unread("1,2,3\n")) == "\t"
    assert detect_delimiter("a,b\tc", "1\t2\n3\t4\n5\t6\n") == "\t"  # (two kinds: the lines after still tell)


def old_stray_quote(head, whole, delimiter, width, headed, before, sample):
    """``shape._stray_quote`` before the shortcut (``git show 0df8d931:scratchfs/api/shape.py``)."""
    if whole is not None and well_quoted(whole, delimiter):
        return ""
    found = first_runaway(head if whole is None else whole, delimiter, width)
    if whole is None and (found or not well_quoted(head, delimiter)):
        longer = sample()[: len(head) + shape._PAST_HEAD_CHARS]
        longer = longer[: max(len(head), longer.rfind("\n"))]
        found = first_runaway(longer, delimiter, width) if len(longer) > len(head) else found
    if not found:
        return ""
    record, line, held = found
    line += before + 1
    return (f"; row={record + (not headed)} (line {line:,}) opens a quote that runs over the "
            f"{shape.plural(held - 1, 'line')} after it{'' if whole else ' or more'}, rows read as one cell of it -- "
            f"a stray quote? line={line}, lines=5 reads them raw")


_CELL = st.sampled_from(["a", "", "12", '"x,y"', '"q', '"multi\nline"', '"a""b"', 'b"c', '"' + "l\n" * 10 + '"',
                         "5\"", '"' + "r,s,t\n" * 11])


@settings(max_examples=1500, deadline=None)
@example([["a", "b", "c"], ['"open', "x", "y"], *([["1", "2", "3"]] * 12)], ",", 20)
@given(st.lists(st.lists(_CELL, min_size=1, max_size=4), min_size=1, max_size=30), st.sampled_from([",", ";"]),
       st.integers(0, 40))
def test_a_stray_quote_is_told_as_it_was(cells, delimiter, past):
    """Rows of quoted cells, cells over lines (10 and more too), quotes left open and stray: what the shape says of
    a stray quote in the head (``whole`` None) or in all of a whole content is the old code's."""
    lines = [delimiter.join(row) for row in cells]
    head = "\n".join(lines[:past] if past < len(lines) else lines)
    rest = "\n".join(lines)
    width = max(2, len(cells[0]))
    for whole in (None, rest):
        assert shape._stray_quote(head, whole, delimiter, width, True, 0, lambda: rest) == old_stray_quote(
            head, whole, delimiter, width, True, 0, lambda: rest)


def test_a_well_quoted_head_of_short_records_reads_no_row_in_python(monkeypatch):
    """The package CSV's head (a quoted summary a row, none over a line) is no stray quote, told by one strict pass:
    ``first_runaway`` (a loop over its rows) is not called."""
    head = "\n".join(f'pkg{i},1.{i}.0,2026-11,"A summary, with a comma ({i})"' for i in range(40))
    monkeypatch.setattr(shape, "first_runaway", lambda *a: (_ for _ in ()).throw(AssertionError("looped")))
    assert shape._stray_quote(head, None, ",", 4, False, 0, lambda: head) == ""
    assert stray_quotes.lines_past_records(head, ",") == 0
    assert stray_quotes.lines_past_records('a,"b\nc"\n"open', ",") is None  # (a quote left open: strict refuses)
    assert stray_quotes.lines_past_records('a,"b\nc\nd"\ne', ",") == 2
