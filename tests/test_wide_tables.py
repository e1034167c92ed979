"""A table of thousands of columns costs its shape what a narrow one does (branch wide1). The header vote
(``table_start.header_votes``) looked at every cell of the first 21 rows -- 33 ms for 64 KiB of ``a,`` times 4,000,
18 ms for 1,000 quoted columns (a hostile pass) -- and a shape's column names keyed every column of the header to
name 16 (3 ms at 4,000). Now the vote looks at :data:`~scratchfs.engine.structure.table_start.VOTE_COLUMNS` columns
at most (``vote_columns``), the names at the columns named, and the header's "any number" test runs at C speed;
every fixture's shape, and those of wide tables made from each fixture table, are as main gave them
(``tests/fixture_shapes.json``, recorded by ``python -m tests.fixture_shapes --write`` before the change). Figures:
``python bench/wide_tables.py``."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.shape import describe
from scratchfs.api.shape_table import has_header
from scratchfs.engine.structure import table_start
from scratchfs.engine.structure.row_keys import first_keys, row_keys
from scratchfs.engine.structure.table_start import (
    VOTE_COLUMNS,
    cell_pattern,
    column_patterns,
    header_votes,
    is_number,
    vote_columns,
)
from tests.fixture_shapes import RECORD, cases


def test_every_fixture_and_wide_table_made_from_one_has_the_shape_main_gave_it():
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    now = dict(cases())
    assert sorted(now) == sorted(recorded)
    changed = {name: (recorded[name], now[name]) for name in recorded if now[name] != recorded[name]}
    assert not changed, changed
    assert sum("@wide" in name for name in recorded) >= 30  # (the wide tables are there to be compared)


@pytest.mark.parametrize(("data", "shape"), [  # (the hostile pass's contents; the shapes main gave them)
    (((b"a," * 4000 + b"\n") * 10)[:65536], "CSV, 4,001 columns, no header, 9 rows"),
    (((b"a," * 400 + b"\n") * 100)[:65536], "CSV, 401 columns, no header, 82 rows"),
    ((b"\t".join(b"name%d" % n for n in range(1000)) + b"\n" + (b"\t".join(b"%d" % (7 * n) for n in range(1000))
                                                               + b"\n") * 9),
     "TSV, 1,000 columns (name0, name1, name2, name3, name4, name5, name6, name7, name8, name9, name10, name11, "
     "name12, name13, name14, name15, … 984 more), 9 rows"),
])
def test_a_wide_tables_shape_is_as_before(data, shape):
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    assert describe(data, len(data), lines).text == shape


class _Row(list):
    """A row that records the columns read from it."""

    def __init__(self, cells: list[str], seen: set[int]) -> None:
        super().__init__(cells)
        self.seen = seen

    def __getitem__(self, column):
        self.seen.add(column)
        return super().__getitem__(column)


@pytest.mark.parametrize("cell", ["a", '"a b"', "7", "2026-12-05"])
def test_the_vote_over_4000_columns_looks_at_no_more_columns_than_over_64(cell):
    seen: set[int] = set()
    rows = [_Row([cell] * 4000, seen) for _ in range(21)]
    votes, named = header_votes(rows)
    assert len(seen) <= VOTE_COLUMNS, len(seen)  # (before: every one of the 4,000)
    assert (votes > 0, named) == (True, False)  # (each column one value repeated: data, as before)
    seen.clear()
    assert table_start.data_votes(rows) == (0 if cell[0] in "a\"" else VOTE_COLUMNS)  # (no digit: no vote)
    assert len(seen) <= VOTE_COLUMNS, len(seen)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.text(alphabet="aZ09+-. \t\x00_/:é٣", max_size=8), min_size=1, max_size=22))
def test_column_patterns_are_the_cells_patterns_signs_aside(cells):
    """The column's patterns told in one substitution over it are each cell's (the ASCII path and the other)."""
    found = {pattern[1:] if pattern[:2] in ("+9", "-9") else pattern for pattern in map(cell_pattern, cells)}
    assert column_patterns(cells) == (found if len(found) <= 3 else None)


def test_vote_columns_are_every_column_up_to_the_bound_then_a_spread_sample():
    assert list(vote_columns(VOTE_COLUMNS)) == list(range(VOTE_COLUMNS))
    for width in (VOTE_COLUMNS + 1, 100, 401, 4001, 100_000):
        picked = list(vote_columns(width))
        assert len(picked) == VOTE_COLUMNS and picked == sorted(set(picked))
        assert picked[: VOTE_COLUMNS // 2] == list(range(VOTE_COLUMNS // 2)) and picked[-1] == width - 1
        gaps = [b - a for a, b in zip(picked[VOTE_COLUMNS // 2 :], picked[VOTE_COLUMNS // 2 + 1 :], strict=False)]
        assert max(gaps) - min(gaps) <= 1  # (evenly spread)


_CELLS = st.sampled_from(["", "a", "AD", "id", "name", "7", "-3", "1.5", "2026-10", "1.0.0", "/api/a", "NA", " x",
                          "12%", "count", "a b", "x1"])
_TABLES = st.integers(1, 150).flatmap(lambda width: st.lists(
    st.lists(_CELLS, min_size=width, max_size=width), min_size=2, max_size=22))


@settings(max_examples=300, deadline=None)
@given(_TABLES)
def test_the_bounded_vote_is_the_unbounded_vote_of_the_columns_it_names(rows):
    """Up to the bound it is every column's vote (the vote main gave); past it, the vote of the columns named."""
    picked = list(vote_columns(len(rows[0])))
    narrowed = [[row[column] for column in picked] for row in rows]
    assert header_votes(rows) == header_votes(narrowed)
    assert table_start.data_votes(rows) == table_start.data_votes(narrowed)
    if len(rows[0]) <= VOTE_COLUMNS:
        assert narrowed == rows


@settings(max_examples=300, deadline=None)
@given(_TABLES)
def test_has_header_is_the_rule_it_was(rows):
    votes, named = header_votes(rows)  # (the words of has_header before its test of numbers went to C speed)
    assert has_header(rows) == (named or votes < 0 or (votes == 0 and all(
        cell and not is_number(cell) for cell in rows[0])))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["id", "id_2", "id_3", "name", "_extra", "a", "a_2", ""]), min_size=1, max_size=40),
       st.integers(0, 45))
def test_first_keys_are_the_first_of_row_keys(header, count):
    assert first_keys(header, count) == row_keys(header)[0][:count]
