"""A column named by digits (``2026``: a year, a port, an id as a header name) can be named on the command line and
in the web API's query (helper advice2): a word the header holds is that column; else digits or ``number:N`` are a
column number. Before, ``--column 2026`` was always column number 2026, so the real pivot's column "2026" could not
be named at all (``no column number 2026``), and advice written as a command wrote a number as digits."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from scratchfs.api.column_words import word_column
from scratchfs.api.store import ScratchStore
from scratchfs.cli import main
from scratchfs.cli.advice import call_command
from scratchfs.foundation.calls import Call
from tests.conftest import FIXTURES

PIVOT = (FIXTURES / "tools" / "sqlite-csv-pivot-by-month.csv").read_bytes()  # header: letter,2026-10,2026-11,2026
SCOPE = ["--run", "r", "--agent", "a"]


@pytest.fixture
def store(tmp_path):
    with ScratchStore(tmp_path / "s") as opened:
        yield opened


def rows(store: ScratchStore, handle: str, *columns: str) -> dict:
    words = [w for column in columns for w in ("--column", column)]
    result = CliRunner().invoke(main, ["read-handle", handle, "--row", "1", "--rows", "50", *words, "--root",
                                       str(store.root), *SCOPE])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def plain(data: bytes, name: str) -> list[str]:
    return [row[name] for row in csv.DictReader(io.StringIO(data.decode()))]


def test_a_column_named_by_digits_in_a_real_pivot_is_named_on_the_command_line(store):
    handle = store.scope("r", "a").spill(PIVOT, source_tool="sqlite3").handle
    page = rows(store, handle, "2026")
    assert page["header"] == ["2026"] and [r[0] for r in page["rows"]] == plain(PIVOT, "2026")
    page = rows(store, handle, "2026-10", "0", "number:3")  # (no header name "0": column number 0, the letter)
    assert page["header"] == ["2026-10", "letter", "2026"]
    assert [r[0] for r in page["rows"]] == plain(PIVOT, "2026-10")


def test_a_name_the_header_holds_wins_and_number_n_is_always_a_number(store):
    data = b"id,0,1\n" + b"".join(b"k%d,%d,%d\n" % (i, i * 10, i * 100) for i in range(5))
    handle = store.scope("r", "a").spill(data, source_tool="sqlite3").handle
    assert rows(store, handle, "0")["header"] == ["0"]  # (the column named "0", number 1)
    assert rows(store, handle, "number:0")["header"] == ["id"]
    assert rows(store, handle, "2")["header"] == ["1"]  # (no name "2": column number 2)
    missing = CliRunner().invoke(main, ["read-handle", handle, "--row", "1", "--column", "number:9", "--root",
                                        str(store.root), *SCOPE])
    assert missing.exit_code == 2 and "no column number 9" in missing.stderr and missing.stderr.count("\n") == 1


def test_advice_written_as_a_command_writes_a_column_number_as_number_n():
    call = Call.of("read_handle", handle="h_" + "a" * 24, row=3, columns=["0", 2])
    assert "--column 0 --column number:2 " in call_command(call, "r", "a", None)
    assert word_column("number:2", ["number:2"]) == "number:2"  # (a header holding the word itself: its name)
    assert word_column("2", ["a", "b"]) == 2 and word_column("2", ["2"]) == "2" and word_column("x", []) == "x"


def test_the_web_api_reads_a_column_word_as_the_command_line_does(store):
    from starlette.testclient import TestClient

    from scratchfs.web import create_app

    handle = store.scope("r", "a").spill(PIVOT, source_tool="sqlite3").handle
    token = "test-token-0123456789abcdef"
    with TestClient(create_app(store, token), headers={"Authorization": f"Bearer {token}"}) as client:
        for column, header in (("2026", "2026"), ("number:0", "letter"), ("2", "2026-11")):
            got = client.get(f"/api/runs/r/agents/a/handles/{handle}/read", params={"row": 1, "columns": column})
            assert got.status_code == 200, got.text
            assert got.json()["header"] == [header]
