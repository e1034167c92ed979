"""Whether a table's first line is its header follows the evidence a person reads it by: the types of its cells
against those of the rows under it, column by column (``table_start.header_votes``). Before, any cell that was a
number (``1.0``, ``2024``, ``2026-10``: digits with dots and dashes) or empty made the line "no header", and its
columns were then chosen by number: a pivot's ``letter,2026-10,2026-11,2026`` (``sqlite3 -header -csv``), a
``2024,count`` over names and counts, pandas' ``,a,b`` (an index column with no name), quantiles ``0.5,0.9`` as
column names. And a first line of data over rows of coordinates or two-letter codes (tzdata's ``zone.tab`` and
``iso3166.tab`` after their comments) was taken for the header."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def shape_of(data: bytes) -> str:
    found = describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n")))
    assert found.content_type == "csv", found.text
    return found.text


def test_a_pivot_whose_header_names_months_and_a_year_is_read_with_its_header(tmp_path):
    data = (TOOLS / "sqlite-csv-pivot-by-month.csv").read_bytes()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        stub = scope.spill(data, source_tool="sqlite3")
        assert stub.shape == "CSV, 4 columns (letter, 2026-10, 2026-11, 2026), 12 rows", stub.shape
        page = tools.read_handle(handle=stub.handle, row=1, rows=2, columns=["letter", "2026-10"])
        assert page["header"] == ["letter", "2026-10"] and page["rows"] == [["0", "6"], ["1", "13"]]


def test_headers_holding_numbers_are_headers_and_data_over_codes_is_none():
    counts = "".join(f"{name},{n * 7}\n" for n, name in enumerate(["alice", "bob", "carol", "dave", "erin"]))
    assert shape_of(("2024,count\n" + counts).encode()).startswith("CSV, 2 columns (2024, count), 5 rows")
    quantiles = "".join(f"/api/{path},{n}.5,{n * 3}.25\n" for n, path in enumerate(["a", "b", "c", "d"]))
    assert shape_of(("endpoint,0.5,0.9\n" + quantiles).encode()).startswith("CSV, 3 columns (endpoint, 0.5, 0.9)")
    pandas = "".join(f"{n},{n * 1.5},{n * 2}\n" for n in range(6))  # (as DataFrame.to_csv writes its index)
    assert shape_of((",a,b\n" + pandas).encode()).startswith("CSV, 3 columns (\"\", a, b), 6 rows")
    assert shape_of(("1.0,b\n" + "".join(f"x{n},{n}\n" for n in range(5))).encode()).startswith(
        "CSV, 2 columns (1.0, b), 5 rows")
    zone = "".join(f"{code}\t+{4230 + n}-{131 + n:05d}\tEurope/C{code}\n" for n, code in enumerate(
        ["AD", "AE", "AF", "AG", "AI", "AL"]))
    assert shape_of(zone.encode()).startswith("TSV, 3 columns, no header, 6 rows")
    iso = "".join(f"{code}\t{name}\n" for code, name in [("AD", "Andorra"), ("AE", "United Arab Emirates"),
                                                           ("AF", "Afghanistan"), ("AG", "Antigua & Barbuda"),
                                                           ("AI", "Anguilla")])
    assert shape_of(iso.encode()).startswith("TSV, 2 columns, no header, 5 rows")


REAL = {  # every real table in fixtures/: whether its first line is its header (read by a person)
    "du-ah-python3.tsv": False, "git-log-format.tsv": False, "sqlite-csv-packages.csv": False,
    "sqlite-csv-header-sizes.csv": True, "sqlite-csv-join-repeated-names.csv": True, "distro-info-ubuntu.csv": True,
    "numpy-umath-cos-head.csv": True, "sqlite-csv-pivot-by-month.csv": True, "../query-packages-by-month.csv": True,
}


def test_every_real_table_of_the_fixtures_has_the_header_a_person_reads():
    for name, headed in REAL.items():
        text = shape_of((TOOLS / name).read_bytes())
        assert ("no header" not in text) == headed, (name, text)


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9).filter(
    lambda word: word not in ("na", "nan", "null", "none", "nil"))  # (missing values, as header_votes reads them)
KINDS = ("count", "price", "date", "word")


def cell(kind: str, draw) -> str:
    if kind == "count":
        return str(draw(st.integers(0, 99_999)))
    if kind == "price":
        return f"{draw(st.integers(0, 999))}.{draw(st.integers(0, 99)):02d}"
    if kind == "date":
        return f"2026-{draw(st.integers(1, 12)):02d}-{draw(st.integers(1, 28)):02d}"
    return draw(WORD)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=2, max_size=6), st.integers(1, 30), st.booleans(), st.data())
def test_a_header_of_names_over_typed_rows_is_one_and_a_row_like_them_is_none(kinds, count, headed, data):
    """Rows of counts, prices, dates and words; over them either a header -- a name for each column, a year or a
    quantile for some number columns, at least one word over a column of numbers or dates -- or none (the first
    line a row like the others). Words over words alone are no evidence either way: such a first line is a header,
    as before."""
    rows = [[cell(kind, data.draw) for kind in kinds] for _ in range(count + 1)]
    if headed:
        typed = [at for at, kind in enumerate(kinds) if kind != "word"]
        if not typed:
            return
        named = data.draw(st.sampled_from(typed))
        header = [data.draw(WORD) if at == named or kind != "count" or data.draw(st.booleans())
                  else data.draw(st.sampled_from(["2024", "2025", "0.5", "0.99"])) for at, kind in enumerate(kinds)]
        rows = [header, *rows[1:]]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    text = shape_of(out.getvalue().encode())
    if headed or any(kind != "word" for kind in kinds):
        assert ("no header" not in text) == headed, (rows[:3], text)
