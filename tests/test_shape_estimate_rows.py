"""A table too large for the shape's sample, whose rows span lines (a quoted field holding a line end) and grow wider
down the table (a cell that lengthens, ids of more digits): its shape said ``~73,927 rows (estimated from the
sample)`` of 6,000, the first rows' count per byte times the size (found feeding hostile tables to the shape,
hostile6). The estimate is now the first rows' count per line times the content's line count, which the spill
counts exactly. Each test counts the rows as the ``csv`` module does and checks the shape's figure against it."""

from __future__ import annotations

import csv
import io
import re

import pytest

from scratchfs.api.shape import describe


def _table(rows: int, pad, lines_per_row: int) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "note", "pad"])
    for row in range(rows):
        writer.writerow([row, "\n".join(["line"] * lines_per_row), pad(row)])
    return out.getvalue().encode()


@pytest.mark.parametrize(("rows", "pad", "lines_per_row"), [
    (6000, lambda row: "z" * (row // 8), 2),  # (rows 1 to 750 KiB wide: the sample holds the narrow ones)
    (40000, lambda row: str(row) * 3, 3),  # (ids of more digits)
    (30000, lambda row: "z" * (30 - row // 1000), 2),  # (rows that narrow)
])
def test_the_estimated_rows_of_a_table_whose_rows_change_width(rows, pad, lines_per_row):
    content = _table(rows, pad, lines_per_row)
    truth = sum(1 for _ in csv.reader(io.StringIO(content.decode(), newline=""))) - 1
    assert truth == rows
    shape = describe(content, len(content), content.count(b"\n")).text
    found = re.search(r"~([0-9,]+) rows \(estimated from the sample\)", shape)
    assert found is not None, shape  # (the sample is not all of it)
    assert abs(int(found.group(1).replace(",", "")) - rows) <= rows // 100, shape
