"""A table's footer holding a hostile count (helper hostile22): psql's ``(N rows)`` and DuckDB's ``N rows (M shown)``
are read as numbers on the spill's path. A count of 5,000 digits raised ValueError (Python's 4,300-digit limit on
int()) out of the shape -- the spill failed -- and DuckDB's footer searched a long run of digits quadratically
(40,000 digits: 8 s of CPU; a 512 KiB sample's: minutes)."""

from __future__ import annotations

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from tests.cpu_time import best_cpu, best_cpu_and_result

CPU_SECONDS = 1.0
_DUCK = "┌───┬───┐\n│ a │ b │\n│ i │ j │\n├───┼───┤\n│ 1 │ 2 │\n└───┴───┘\n".encode()
_FOOTERS = {
    "psql": b" a | b \n---+---\n 1 | 2\n(" + b"1" * 5000 + b" rows)\n",
    "duckdb-rows": _DUCK + b"1" * 5000 + b" rows\n",
    "duckdb-shown": _DUCK + b"1" * 5000 + b" rows (1 shown)\n",
    "duckdb-columns": _DUCK + b"2 rows " + b"1" * 5000 + b" columns (1 shown)\n",
}


@pytest.mark.parametrize("name", sorted(_FOOTERS))
def test_a_footer_of_thousands_of_digits_is_told_and_read(scratch_scope, name):
    data = _FOOTERS[name]
    stub = scratch_scope.spill(data, source_tool="psql")
    assert stub.content_type == "text" and stub.shape.startswith(("psql table, 2 columns", "DuckDB table, 2 columns"))
    assert ", 1 row" in stub.shape
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "row": 1, "rows": 5})
    assert reply["rows"] == [["1", "2"]]


@pytest.mark.parametrize("footer", [b" rows\n", b" columns (1 shown)\n", b" rows (1 shown)\n"],
                         ids=["rows", "columns", "shown"])
def test_a_footer_of_a_long_run_of_digits_is_read_in_linear_time(footer):
    def cpu(digits: int) -> float:
        sample = _DUCK + b"1" * digits + footer
        return best_cpu(lambda: describe(sample, len(sample), sample.count(b"\n") + 1), runs=1)

    small, large = cpu(10_000), cpu(40_000)
    assert large < CPU_SECONDS and large < 8 * small + 0.05, (small, large)


_ROWS = {"markdown": (b"| a | b |\n|---|---|\n", b"xx | y\n"), "psql": (b" a | b \n---+---\n", b"xxxxx | y\n"),
         "box": (b"+---+---+\n| a | b |\n+---+---+\n", b"| 1 | 2 |\n+---+---+\n")}


@pytest.mark.parametrize("form", sorted(_ROWS))
def test_a_table_past_the_sample_does_not_end_where_the_sample_cuts_a_line(scratch_scope, form):
    """The shape of a table larger than its sample counted its rows up to the sample's last line, cut short: a row
    cut before its first pipe (a border cut before its last +) holds none, so the table was said to end there with
    an exact count ("5,460 rows (the table ends at line 5,462 ...)") -- of a table of 2 MiB, 300,000 rows."""
    head, row = _ROWS[form]
    data = head + row * (2 * 1024 * 1024 // len(row))
    stub = scratch_scope.spill(data, source_tool="t")
    assert stub.content_type == "text" and "2 columns (a, b), ~" in stub.shape and "table ends" not in stub.shape, (
        stub.shape)


def _wide_headers(columns: int) -> bytes:
    """A psql table, then 16 lines of CJK names parted by pipes over a rule whose + do not stand under them: each
    a later header the shape tries."""
    bad = ("日|" * columns).rstrip("|") + "\n" + ("-+" * columns).rstrip("+") + "\n"
    return (" a | b \n---+---\n 1 | 2\n\n" + bad * 16).encode()


def test_wide_names_under_many_pipes_are_placed_in_linear_time():
    """A header's pipes were placed in terminal columns by summing the widths of the wide characters before each
    pipe anew (pipes x characters): 16 such lines after a table, each a later header tried, took 1.5 s of a
    spill's CPU (192 KiB)."""
    def cpu(columns: int) -> float:
        sample = _wide_headers(columns)
        best, shape = best_cpu_and_result(lambda: describe(sample, len(sample), sample.count(b"\n")))
        assert shape.text.startswith("psql table, 2 columns (a, b), 1 row (the table ends at line 3")
        return best

    small, large = cpu(500), cpu(2000)
    assert large < 0.25 and large < 6 * small + 0.02, (small, large)
