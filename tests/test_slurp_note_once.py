"""A slurp read's note on its table or records (keys renamed, rows passed over) is said on its first page, not on
every page (advice4: a 3,000-row CSV whose header repeats a name said "the header repeats a name: its rows key column
3 ('name') as 'name_2'" on each of its pages, 70 bytes of JSON a page); the pages still carry next_call to the end
and, together, every row."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools, to_json

CSV = "id,name,name\n" + "".join(f"{i},a{i},b{i}\n" for i in range(3000))
JSONL = "".join(json.dumps({"i": i, "pad": "x" * 40}) + "\n" for i in range(2000)) + '{"i": 2000, "pad": "cut'


def _pages(tools: ScratchTools, arguments: dict) -> list[dict]:
    pages = [tools.call("read_handle", arguments)]
    while pages[-1]["next_call"] is not None:
        verb, args = parse_call(pages[-1]["next_call"])
        pages.append(tools.call(verb, args))
    return pages


@pytest.mark.parametrize(("content", "said", "expected"), [
    (CSV, "the header repeats a name: its rows key column 2 ('name') as 'name_2' (column numbers from 0, as columns= "
          "takes them)",
     [{"id": int(r["id"]), "name": r["name"], "name_2": r["name_2"]}
      for r in csv.DictReader(io.StringIO(CSV.replace("id,name,name", "id,name,name_2")))]),
    (JSONL, "-- passed over: it is not in the array jq was given: it is the last line",
     [{"i": i, "pad": "x" * 40} for i in range(2000)]),
])
def test_a_slurp_note_is_said_on_the_first_page_only(scratch_scope, content, said, expected):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(content, source_tool="t").handle
    pages = _pages(tools, {"handle": handle, "jq": ".[]", "slurp": True, "budget": 4096})
    assert len(pages) > 5
    assert said in pages[0]["note"]
    assert [page.get("note") for page in pages[1:]] == [None] * (len(pages) - 1), pages[1]
    assert all(page["more"] and page["next_call"] for page in pages[:-1]) and not pages[-1]["more"]
    assert [item for page in pages for item in page["results"]] == expected
    assert all(len(to_json(page).encode()) <= 4096 for page in pages)


@pytest.mark.parametrize("name", ["du-ah-python3.tsv", "git-log-format.tsv"])
def test_a_table_with_no_header_line_says_so_in_full_on_the_first_rows_page_only(scratch_scope, name):
    """A rows read of a table with no header line (``du -ah``, ``git log --format``) said its 155-character note
    "the table has no header line (its stub says so): ..." on every page (open10): in full on the first page now,
    in short on the next, each page going on with its next call, the rows together the csv module's."""
    data = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / name).read_bytes()
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="sh").handle
    pages = _pages(tools, {"handle": handle, "row": 1, "rows": 10})
    assert len(pages) >= 3 and "header" not in pages[0]
    assert pages[0]["note"].startswith("the table has no header line (its stub says so): rows are numbered")
    assert [page["note"] for page in pages[1:]] == ["no header line: row 1 is its first line, columns= by number"] * (
        len(pages) - 1), pages[1]
    assert all(page["more"] and page["next_call"] for page in pages[:-1]) and not pages[-1]["more"]
    rows = list(csv.reader(io.StringIO(data.decode(), newline=""), delimiter="\t"))
    assert [row for page in pages for row in page["rows"]] == rows


@pytest.mark.parametrize(("name", "kind"), [("docker-compose-logs-by-hand.txt", "log"),
                                            ("proc-self-status.txt", "text")])
def test_rows_of_text_with_no_table_say_so_in_full_on_the_first_page_only(scratch_scope, name, kind):
    """A rows read of text or a log in which no table was found when it was stored said its 133-byte note "stored as
    log: no table was found ..." on every page: in full on the first page now, in short on the next, each page going
    on with its next call and the rows together every line after the first (read as its header)."""
    data = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / name).read_bytes()
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="sh").handle
    pages = _pages(tools, {"handle": handle, "row": 1, "rows": 10})
    assert len(pages) >= 2
    assert pages[0]["note"].startswith(f"stored as {kind}: no table was found in its first lines")
    assert all(page["note"].startswith(f"stored as {kind}: lines cut, no table") for page in pages[1:]), pages[1]
    assert all(page["more"] and page["next_call"] for page in pages[:-1]) and not pages[-1]["more"]
    assert pages[0]["header"] and sum(len(page["rows"]) for page in pages) == len(data.decode().splitlines()) - 1
