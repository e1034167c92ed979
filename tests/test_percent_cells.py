"""A slurp read of a table whose jq filter names a column of percentages (``cov%``, ``Use%``: ``"17%"`` is text to
jq) says so and names the filter that gives the number (helper modeltask6: ``sort_by(.["cov%"])`` over ``python -m
trace --summary`` put the ``100%`` modules first, and the model took the first for the least covered)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools

TOOLS = Path(__file__).parent.parent / "fixtures" / "tools"


def _slurp(scope, name: str, jq: str) -> dict:
    stub = scope.spill((TOOLS / name).read_bytes(), source_tool="sh")
    return ScratchTools(scope).call("read_handle", {"handle": stub.handle, "jq": jq, "slurp": True})


def _rows(name: str, column: int) -> list[tuple[str, float]]:
    lines = (TOOLS / name).read_text().splitlines()[1:]
    return [(line.split()[2 if column == 1 else 0], float(line.split()[column].rstrip("%"))) for line in lines]


def test_a_filter_sorting_by_a_column_of_percentages_is_told_it_sorts_text_and_how_to_get_the_number(scratch_scope):
    """trace's ``cov%``: the page's note names the column and ``rtrimstr("%") | tonumber``; that filter, which the
    note gives, finds the least covered module, where the text order's first was one of 100%."""
    page = _slurp(scratch_scope, "trace-summary.txt", 'sort_by(.["cov%"]) | .[0].module')
    note = page.get("note", "")
    assert '"cov%" holds percentages as text' in note and '(.["cov%"] | rtrimstr("%") | tonumber)' in note, page
    rows = _rows("trace-summary.txt", 1)
    assert page["results"] != [min(rows, key=lambda row: row[1])[0]]  # (what the note warns of: the text order)
    told = _slurp(scratch_scope, "trace-summary.txt", 'min_by(.["cov%"] | rtrimstr("%") | tonumber) | .module')
    assert told["results"] == [min(rows, key=lambda row: row[1])[0]], told


@pytest.mark.parametrize(("name", "jq"), [("df-h.txt", 'map(select(."Use%" > "5%")) | length'),
                                          ("df-total.txt", "max_by(.[\"Use%\"]).Filesystem")])
def test_df_use_percent_named_by_any_form_of_path_is_told(scratch_scope, name, jq):
    page = _slurp(scratch_scope, name, jq)
    assert '"Use%" holds percentages as text' in page.get("note", ""), page


@pytest.mark.parametrize(("name", "jq"), [("trace-summary.txt", "map(.lines) | add"),
                                          ("df-h.txt", "map(.Size)"), ("ps-auxww.txt", "max_by(.RSS) | .PID")])
def test_a_filter_naming_no_column_of_percentages_gets_no_such_note(scratch_scope, name, jq):
    """No word where it does not apply: a column of plain numbers (``lines``, ``RSS``), sizes (``Size``), or a
    filter that names none."""
    page = _slurp(scratch_scope, name, jq)
    assert "percentages" not in page.get("note", ""), page


@pytest.mark.parametrize("jq", ['map(select(.Name|startswith("scratchfs/api/")))|sort_by(.Cover|rtrimstr("%")|tonumber)'
                                '|.[:5]',
                                'min_by(.["Cover"] | sub("%"; "") | tonumber).Name',
                                'map(select((."Cover"[:-1] | tonumber) < 20)) | length'])
def test_a_filter_that_already_turns_the_percentages_into_numbers_gets_no_such_note(scratch_scope, jq):
    """helper leftovers8: ``sort_by(.Cover|rtrimstr("%")|tonumber)`` over ``coverage report -m`` was still told that
    sort_by compares the column as text (~250 bytes a read, about a filter that compares numbers)."""
    page = _slurp(scratch_scope, "coverage-report-m.txt", jq)
    assert "results" in page and "percentages" not in page.get("note", ""), page


@pytest.mark.parametrize("jq", ['sort_by(.Cover) | .[0].Name', 'sort_by(.Cover|rtrimstr("%")) | .[0].Name',
                                'map(select(.Stmts > 0 and (.Miss|tonumber) >= 0 and .Cover < "50%")) | length',
                                '[.[] | {n: .Name, c: .Cover}] | map(tonumber? // .c)'])
def test_a_filter_comparing_the_percentages_as_text_anywhere_is_still_told(scratch_scope, jq):
    """The note stays where one use of the column is text -- a ``tonumber`` elsewhere in the filter is not this
    path's; ``rtrimstr("%")`` alone leaves text ("100" before "17")."""
    page = _slurp(scratch_scope, "coverage-report-m.txt", jq)
    assert '"Cover" holds percentages as text' in page.get("note", ""), page
