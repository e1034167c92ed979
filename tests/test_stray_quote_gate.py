"""perfshape1: a CSV's stray-quote check (``first_runaway``, run by every table's shape) looked at every cell of every
record whose longest cell was 10 times the table's width -- a row with a long description, most rows of the
fixtures' package CSV: 127 us of a 4 KiB slice's describe, 14 ms over the whole file (3.9x a strict ``csv`` read
of it). A record read from fewer than RUNAWAY_LINES lines holds no runaway cell and is now passed over without a
look at its cells. The boundary tests pass before and after (what is found is the same); the ratio failed before."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs.engine.structure.stray_quotes import RUNAWAY_LINES, first_runaway, well_quoted
from tests.cpu_time import best_cpu

CSV = Path(__file__).resolve().parent.parent / "fixtures" / "query-packages-by-month.csv"


def _table(rows_after: int, end: str) -> str:
    """A 4-column table whose third record opens a quote never closed, ``rows_after`` rows after it (swallowed)."""
    rows = ["a,b,c,d", "x,1,2,3", 'y,1,2,"stray', *(f"r{n},1,2,3" for n in range(rows_after))]
    return end.join(rows) + end


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_a_runaway_cell_at_the_fewest_lines_is_found_and_one_line_fewer_is_not(end):
    assert first_runaway(_table(RUNAWAY_LINES - 1, end), ",", 4) == (2, 2, RUNAWAY_LINES)
    assert first_runaway(_table(RUNAWAY_LINES, end), ",", 4) == (2, 2, RUNAWAY_LINES + 1)
    assert first_runaway(_table(RUNAWAY_LINES - 2, end), ",", 4) is None


def test_real_multi_line_cells_after_long_one_line_records_are_no_stray_quote():
    long_rows = [f'p{n},1.0,2026-11,"{"a long description of the package, " * 4}"' for n in range(30)]
    cell = '"' + "\n".join(f"line {n}, of a real description" for n in range(12)) + '"'
    text = "\n".join(["name,version,month,summary", *long_rows, f"q,1.0,2026-11,{cell}", *long_rows]) + "\n"
    assert first_runaway(text, ",", 4) is None


def test_the_check_of_a_real_csv_costs_about_a_strict_read_of_it():
    # measured (thread CPU, best of 7): 14.1 ms against a 3.6 ms strict read before (3.9x), 4.2 ms after (1.1x)
    text = CSV.read_text(encoding="utf-8")

    assert first_runaway(text, ",", 4) is None
    assert best_cpu(lambda: first_runaway(text, ",", 4)) < 2.5 * best_cpu(lambda: well_quoted(text, ","))
