"""Shape detection's cost on content that is not of a detector's kind (issue 16, T1): each cheaper gate or shortcut
against the plain answer it stands for, on generated inputs that reach the gate's edge. One section per helper
branch."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.engine.structure import table_start

# --- dctables: the table detectors (_delimited, shape_table, table_start, aligned, pipes, settings, columns) ---

_PIECES = st.sampled_from(["a", "b", "7", " ", ",", ";", "\t", "\n", "\r", "\r\n", "x,y", "1;2", "p\tq", '"'])


def test_dctables_a_delimiter_found_unsteady_is_not_tried_again(monkeypatch):
    """``detect_delimiter``: the header line's delimiter, not steady in the lines after it, is not counted over
    them a second time among the others tried (prose after a line with a comma: each count is 20 lines' work)."""
    tried = []
    steady = table_start._steady
    monkeypatch.setattr(table_start, "_steady", lambda d, line, lines: tried.append(d) or steady(d, line, lines))
    after = "the next line, with two, commas\n" * 8
    assert table_start.detect_delimiter("a line, with one comma", after) == ","
    assert tried == [",", "\t", ";"]


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=12).map("".join).filter(lambda s: "\n" not in s and "\r" not in s),
       st.lists(_PIECES, max_size=40).map("".join), st.sampled_from(table_start.DELIMITERS))
def test_dctables_steady_counts_as_the_plain_loop(line, after, delimiter):
    """``_steady``'s counts at C speed against the loop over the lines it stands for."""
    lines = [piece for piece in re.split(r"\r\n|\r|\n", after)[:20] if piece]
    count = line.count(delimiter)
    plain = count > 0 and 5 * sum(piece.count(delimiter) == count for piece in lines) >= 4 * len(lines)
    assert table_start._steady(delimiter, line, lines) == plain


def _old_first_lines(text: str, head_chars: int, count: int) -> list[str] | None:
    """``aligned_shape``'s first test and first lines as they were: a search a newline, then a search a line."""
    end = -1
    for _ in range(count):
        end = text.find("\n", end + 1, head_chars)
        if end < 0:
            break
    if text.find("  ", 0, end if end >= 0 else head_chars) < 0:
        return None
    firsts, at = [], 0
    for _ in range(count):
        end = text.find("\n", at, at + head_chars)
        firsts.append(text[at : end if end >= 0 else at + head_chars])
        if end < 0:
            break
        at = end + 1
    return firsts


@settings(max_examples=600)
@given(st.lists(st.sampled_from(["a", "  ", " ", "\n", "\r", "b c", "x  y", "\n\n"]), max_size=40).map("".join),
       st.integers(4, 24), st.integers(1, 30))
def test_dctables_aligned_first_lines_as_the_searches(monkeypatch, text, head_chars, quick):
    """The aligned test's first lines, from one split of the text's start when its newlines end them all, against a
    search a line -- the head and that start cut short so that lines cross their ends, a run of 2 spaces on either
    side of them."""
    from scratchfs.api import shape_aligned
    from scratchfs.engine.structure.aligned import MAX_PREAMBLE

    monkeypatch.setattr(shape_aligned, "HEAD_CHARS", head_chars)
    monkeypatch.setattr(shape_aligned, "_QUICK_CHARS", quick)
    assert shape_aligned._first_lines(text) == _old_first_lines(text, head_chars, MAX_PREAMBLE + 1)


def _old_column_patterns(cells: list[str]) -> set[str] | None:
    """``column_patterns`` as it was: every cell's pattern (two substitutions), then their count."""
    found = {table_start.cell_pattern(cell) for cell in cells}
    signless = {pattern[1:] if pattern[:2] in ("+9", "-9") else pattern for pattern in found}
    return signless if len(signless) <= 3 else None


def _old_header_votes(rows: list[list[str]]) -> tuple[int, bool]:
    """``header_votes`` as it was: each column's cells gathered, and each tested, one call a cell."""
    ts, missing = table_start, {"", "-", "na", "n/a", "nan", "null", "none", "nil", "?"}
    body = rows[1:21]
    votes, named = 0, False
    for column in ts.vote_columns(len(rows[0])):
        cell = rows[0][column]
        cells = [row[column] for row in body if column < len(row) and row[column].strip().lower() not in missing]
        if not cells or cell.strip().lower() in missing or (cell[:1] == " " and 2 * sum(
                piece[:1] == " " for piece in cells) < len(cells)):
            continue
        digits = re.search(r"\d", cell) is not None
        if all(map(ts.is_number, cells)):
            votes += 1 if ts.is_number(cell) else -1
            named = named or not digits
            continue
        patterns = _old_column_patterns(cells)
        signless = ts._signless(cell)
        if patterns is not None and all("9" in pattern for pattern in patterns):
            votes += 1 if signless in patterns else 0 if digits else -1
            named = named or not digits
            continue
        if patterns is not None and len(cells) >= 4 and not any(re.fullmatch(r"a(?:[ _-]a)*", p) for p in patterns):
            named = named or (not digits and signless not in patterns)
        if not digits and len(cells) >= 4 and len(set(map(len, cells))) == 1 and not any(
                re.search(r"\d", piece) for piece in cells):
            if len(set(cells)) > 1:
                votes += 1 if len(cell) == len(cells[0]) else -1
            elif cell == cells[0]:
                votes += 1
    return votes, named


_CELL_PIECES = st.sampled_from(["a", "Bc", "7", "42", "+", "-", "+3", "-1.5", " ", ".", "/", "_", "é", "٣", "\x00",
                                "\t", "NA", "null", "x y", "2026-10", "1.0.0b1"])
_CELLS = st.lists(_CELL_PIECES, max_size=4).map("".join)


@settings(max_examples=800)
@given(st.lists(_CELLS, max_size=24), st.sampled_from([0, 3, 10]))
def test_dctables_column_patterns_as_each_cells_pattern(monkeypatch, cells, long_cells):
    """``column_patterns``: its test of the characters that are no letter or digit (free text: more than 3 sets of
    them; made of cells of any length) and its runs made by a translation, against each cell's pattern -- signs
    before a number, blanks around a cell, non-ASCII digits and NULs among them."""
    monkeypatch.setattr(table_start, "_LONG_CELLS", long_cells)
    assert table_start.column_patterns(cells) == _old_column_patterns(cells)


@settings(max_examples=800)
@given(st.text(st.sampled_from("aZ09 .-+\x00\t"), max_size=40))
def test_dctables_ascii_patterns_as_the_two_substitutions(text):
    assert table_start._ascii_patterns(text) == re.sub(r"[A-Za-z]+", "a", re.sub(r"[0-9]+", "9", text))


_ROWS = st.integers(1, 5).flatmap(lambda width: st.tuples(
    st.lists(_CELLS, min_size=width, max_size=width),
    st.lists(st.lists(_CELLS, min_size=width, max_size=width), max_size=22),
    st.lists(st.tuples(st.integers(0, 21), st.integers(-1, 1)), max_size=2))).map(
        lambda told: [told[0], *[row[: len(row) + grow] if grow < 0 else row + ["7"] * grow if at == n else row
                                 for n, row in enumerate(told[1]) for at, grow in [*told[2], (-1, 0)][:1]]])


@settings(max_examples=800)
@given(_ROWS)
def test_dctables_header_votes_as_the_cell_by_cell_vote(rows):
    """``header_votes``: a column's cells taken by one transpose when every row is as wide as the first (rows of
    one width, and one row a cell wider or narrower, generated), missing values left out at C speed, numbers told
    without a call a cell -- the votes and the name as the loop over cells gave them."""
    assert table_start.header_votes(rows) == _old_header_votes(rows)


def _old_plain_rows(lines: list[str], delimiter: str):
    """``table_rows`` of lines without quotes as it was: each line's count, test and split a step of a loop."""
    from scratchfs.api import shape_table

    text = "\n".join(lines)
    starts = [at for at, line in enumerate(lines) if line]
    present = [lines[at] for at in starts]
    if len(present) > 2 and any(line.count(delimiter) != present[0].count(delimiter) for line in present[1:-1]) \
            and not (5 * sum(delimiter in line for line in present[1:]) >= 4 * (len(present) - 1) and
                     shape_table._may_be_ragged(text, delimiter, present[0].split(delimiter), len(present))):
        return None
    rows = [line.split(delimiter) for line in present]
    if len(rows) < 2 or len(rows[0]) < 2:
        return None
    if any(len(row) != len(rows[0]) for row in rows[1:-1]) and not shape_table._ragged_table(rows):
        return None
    return rows, starts


@settings(max_examples=800)
@given(st.lists(st.lists(st.sampled_from(["a", "7", "x y", ",", ";", "\t", "|", ", ", " "]), max_size=5).map(
    "".join), max_size=14), st.sampled_from([",", ";", "\t", "|"]))
def test_dctables_plain_table_rows_as_the_loop(lines, delimiter):
    """``table_rows`` of lines with no quote, CR or NUL (split, not parsed): its counts, cells and starts taken at C
    speed against the loop over lines -- ragged rows, empty lines, lines of the delimiter alone generated."""
    from scratchfs.api.shape_table import table_rows

    found = table_rows(lines, delimiter)
    assert (None if found is None else (found.rows, found.starts)) == _old_plain_rows(lines, delimiter)


class _Unsure(str):
    """Text that does not say it is ASCII: a detector's ASCII gate passes it on to the test the gate stands for."""

    def isascii(self) -> bool:
        return False


@settings(max_examples=500)
@given(st.lists(st.sampled_from(["a b", "x", "\n", "  ", "|", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n",
                                 "+---+---+\n| a | b |\n+===+===+\n| 1 | 2 |\n"]), max_size=14).map("".join),
       st.integers(8, 90), st.booleans())
def test_dctables_pipes_gate_as_the_first_lines_test(monkeypatch, text, head_chars, complete):
    """``pipes_shape``: ASCII text with no pipe in its head is no table drawn with pipes -- the same answer as the
    test of its first lines, with the head cut short so that pipes fall on either side of its end."""
    from scratchfs.api import shape_pipes

    monkeypatch.setattr(shape_pipes, "HEAD_CHARS", head_chars)
    lines = text.count("\n") + 1
    assert shape_pipes.pipes_shape(text, complete, lines) == shape_pipes.pipes_shape(_Unsure(text), complete, lines)


class _EveryLine:
    """A first count of settings' lines that never stops the test (the test the gate stands for)."""

    @staticmethod
    def findall(head: bytes) -> list[bytes]:
        return [b"\n"] * 64


@settings(max_examples=600)
@given(st.lists(st.sampled_from([b"key = value", b"  indented: x", b"./a.py:12:def f():", b"<td>1</td>", b"# note",
                                 b"Model name:\tx", b"\tx = 1", b"_k=v", b"", b"{", b"a.b.c: 4", b"Name:  y",
                                 b"plain words", b" - item"]),
                min_size=0, max_size=14).map(lambda lines: b"\n" + b"\n".join(lines) + b"\n"))
def test_dctables_settings_gate_as_the_count_of_lines(monkeypatch, head):
    """``_reads_as_settings``: fewer than 8 lines starting as a setting's can (a blank, a letter or ``_`` after the
    newline) stop it before its count of lines that may be settings -- the same answer as that count, on heads of
    around 8 such lines among grep output, tags and comments."""
    from scratchfs.api import shape_settings

    gated = shape_settings._reads_as_settings(head)
    monkeypatch.setattr(shape_settings, "_MAYBE_START_RE", _EveryLine)
    assert gated == shape_settings._reads_as_settings(head)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["#", "# c\n", "a,b\n", "\n", " ", "\r\n", "1,2\n", "#x,y\n"]), max_size=12).map(
    "".join))
def test_dctables_comment_cut_gate_as_leading_comments(text):
    """``comment_cut``: text not starting with ``#`` starts with no comment line -- the same answer as
    ``leading_comments`` of its head."""
    from scratchfs.api.shape_table import HEAD_CHARS, comment_cut

    assert comment_cut(text) == table_start.leading_comments(text[:HEAD_CHARS])


def _old_data_votes(rows: list[list[str]]) -> int:
    """``data_votes`` as it was: a column's cells' patterns one at a time, stopped at the first that says no."""
    body = rows[1:21]
    if len(body) < 4:
        return 0
    votes = 0
    for column in table_start.vote_columns(len(rows[0])):
        patterns: set[str] = set()
        for row in body:
            if column >= len(row):
                continue
            pattern = table_start.cell_pattern(row[column])
            patterns.add(pattern)
            if "9" not in pattern or len(patterns) > 3:
                break
        else:
            votes += 1 if table_start.cell_pattern(rows[0][column]) in patterns else -1
    return votes


_TYPED_PIECES = st.sampled_from(["7", "42", "1.0", "2026-10", "4.0K", "a", " ", "x9", "+3", "٣", "\x00", "-", ":"])
_TYPED_ROWS = st.integers(1, 4).flatmap(lambda width: st.lists(st.lists(
    st.lists(_TYPED_PIECES, min_size=1, max_size=3).map("".join), min_size=width - 1, max_size=width + 1),
    min_size=1, max_size=24).map(lambda rows: [[*row, *["9"] * (width - len(row))] if at == 0 else row
                                               for at, row in enumerate(rows)]))


@settings(max_examples=800)
@given(_TYPED_ROWS)
def test_dctables_data_votes_as_the_cell_by_cell_vote(rows):
    """``data_votes``: a column's patterns made at once (ASCII cells with no NUL) against one at a time -- columns
    of numbers, sizes, dates, versions and words, rows narrower than the first, non-ASCII digits and NULs."""
    assert table_start.data_votes(rows) == _old_data_votes(rows)
