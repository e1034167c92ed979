"""A reply's ``next_call`` repeats the caller's settings -- ``budget`` above all, and the settings that shape the next
page (``length``, ``lines``, ``ignore_case``, ``context``, ``max_matches``, ``records``, ``rows``, ``columns``,
``jq``, ``select``, ``view``, a listing's ``prefix`` and ``limit``) -- so that following it, as the model is told
to, gives pages of the same size and shape. Each read mode is followed to its end by ``next_call`` alone (nothing
added to the call a reply names): every reply, as the MCP face sends it, fits the caller's budget with that longer
``next_call`` measured in, and the pages put together are the plain Python answer, from real data (``fixtures/``).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re

import pytest

from scratchfs.api.contract import window_hits
from scratchfs.engine.structure.html_worker import select_texts, view_text
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import MIN_REPLY_BYTES
from scratchfs.mcp.server import ScopeResolver, run_scratch_tool
from tests.test_budgets import call_args

BUDGET = MIN_REPLY_BYTES
"""The smallest budget a call may give: the fixed part (echoes, next_call) weighs most in it."""
POSITIONS = {"offset", "line", "cursor", "row", "record"}
"""Arguments that say where a page starts (next_call moves them: a row or record read's names the one it goes on
at); every other one is a setting it repeats."""


def follow(store, name: str, args: dict, budget: int = BUDGET, varying: tuple[str, ...] = ()) -> list[dict]:
    """Every reply of a read, following each ``next_call`` exactly as written; checks each reply's size (the text
    the MCP face sends) and that its ``next_call`` repeats every setting the first call gave but ``varying``'s."""
    resolver = ScopeResolver(store, "r", "a")
    settings = {k: v for k, v in {**args, "budget": budget}.items() if k not in POSITIONS | set(varying)}
    call: dict | None = {**args, "budget": budget}
    replies: list[dict] = []
    while call is not None:
        result = run_scratch_tool(resolver, name, call, None)
        text = result.content[0].text
        assert not result.is_error, text
        assert len(text.encode("utf-8")) <= budget, (len(text.encode("utf-8")), budget, call)
        reply = json.loads(text)
        replies.append(reply)
        assert len(replies) < 2000
        if reply["next_call"] is None:
            assert "note" not in reply, reply["note"]  # a next_call is never left out here: the chain is whole
            return replies
        verb, call = call_args(reply["next_call"])
        assert verb == name
        for key, value in settings.items():
            assert call.get(key) == value, (key, value, reply["next_call"])
    return replies


def items(pages: list[dict], name: str) -> list:
    """The items of a structure read's pages in order, an item cut across pages (``part``: pages naming the same
    ``record`` and ``first``) put together (its text, or its JSON text parsed)."""
    out: list = []
    pending: tuple[tuple, str] | None = None

    def flush() -> None:
        if pending is not None:
            try:
                out.append(json.loads(pending[1]))
            except ValueError:
                out.append(pending[1])

    for page in pages:
        if "part" in page:
            at = (page.get("record"), page["first"])
            if pending is not None and pending[0] == at:
                pending = at, pending[1] + page["part"]
            else:
                flush()
                pending = at, page["part"]
        if page[name]:
            flush()
            pending = None
            out.extend(page[name])
    flush()
    return out


def _lines_upto(data: bytes, size: int) -> bytes:
    return data[: data.rindex(b"\n", 0, size) + 1]


@pytest.fixture
def ra(scratch_store):
    """The scope the MCP calls of :func:`follow` read in."""
    return scratch_store.scope("r", "a")


@pytest.fixture(scope="module")
def grep_text(fixture_data) -> bytes:
    return _lines_upto(fixture_data["workspace-grep-stdlib-defs.txt"], 24_000)


def test_a_budget_below_the_smallest_is_one_typed_refusal(scratch_store, ra, grep_text):
    handle = ra.spill(grep_text).handle
    result = run_scratch_tool(ScopeResolver(scratch_store, "r", "a"), "read_handle",
                              {"handle": handle, "budget": 1500}, None)
    assert result.is_error and result.content[0].text.startswith("invalid argument:")
    assert str(MIN_REPLY_BYTES) in result.content[0].text


@pytest.mark.parametrize("length", [None, 3000, 700])
def test_range_pages_keep_length_and_budget(scratch_store, ra, grep_text, length):
    handle = ra.spill(grep_text).handle
    args = {"handle": handle} if length is None else {"handle": handle, "length": length}
    pages = follow(scratch_store, "read_handle", args)
    assert "".join(p["data"] for p in pages).encode() == grep_text
    if length == 700:  # a length under what the budget holds: every page but the last is that long
        assert {p["length"] for p in pages[:-1]} == {700}


@pytest.mark.parametrize(("line", "lines"), [(1, 7), (3, 400)])
def test_line_pages_keep_lines_and_budget(scratch_store, ra, grep_text, line, lines):
    handle = ra.spill(grep_text).handle
    pages = follow(scratch_store, "read_handle", {"handle": handle, "line": line, "lines": lines}, varying=("lines",))
    skipped = b"".join(grep_text.splitlines(keepends=True)[: line - 1])
    assert "".join(p["data"] for p in pages).encode() == grep_text[len(skipped):]
    if lines == 7:
        assert all(p["lines"] == 7 for p in pages[:-1])
    else:  # a page the budget cut short of its lines asks next for what is left of the range asked (no more):
        # the range asked ends at a page's end, no page reaching past it
        asked = b"".join(grep_text.splitlines(keepends=True)[line - 1 : line - 1 + lines])
        ends = set(itertools.accumulate(len(p["data"].encode()) for p in pages))
        assert len(asked) in ends
        assert all(call_args(p["next_call"])[1]["lines"] < lines for p in pages[:2])


@pytest.mark.parametrize(("what", "expected"), [
    ({"match": "SELF", "ignore_case": True, "context": 30, "max_matches": 3}, rb"(?i)self"),
    ({"match": "def __init__", "context": 0}, rb"def __init__"),
    ({"pattern": r"class \w+\(", "context": 80, "max_matches": 50}, rb"class \w+\("),
    ({"pattern": r"^\./site-packages/WERKZEUG/(debug|routing)/", "ignore_case": True, "max_matches": 7},
     rb"(?im)^\./site-packages/werkzeug/(debug|routing)/"),
])
def test_search_pages_keep_their_settings(scratch_store, ra, grep_text, what, expected):
    handle = ra.spill(grep_text).handle
    pages = follow(scratch_store, "read_handle", {"handle": handle, **what})
    found = [(m["offset"], m["length"]) for p in pages for w in p["windows"] for m in window_hits(w)]
    assert found == [(m.start(), m.end() - m.start()) for m in re.finditer(expected, grep_text)]
    assert len(found) > 3  # several pages' worth, so that next_call is followed
    assert all(p.get("ignore_case", False) == what.get("ignore_case", False) for p in pages)


def test_rows_pages_keep_rows_columns_and_budget(scratch_store, ra, fixture_data):
    data = _lines_upto(fixture_data["query-packages-by-month.csv"], 30_000)
    table = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    handle = ra.spill(data).handle
    pages = follow(scratch_store, "read_handle", {"handle": handle, "row": 5, "rows": 9,
                                                  "columns": ["summary", "name"]})
    assert items(pages, "rows") == [[row[3], row[0]] for row in table[5:] if row]
    assert all(len(p["rows"]) <= 9 and p["header"] == ["summary", "name"] for p in pages)


@pytest.fixture(scope="module")
def ec2(fixture_data) -> dict:
    return json.loads(fixture_data["api-ec2-service-model.json"])


def test_records_pages_keep_records_jq_and_budget(scratch_store, ra, ec2):
    operations = list(ec2["operations"].values())[:40]
    handle = ra.spill(b"".join(json.dumps(op).encode() + b"\n" for op in operations)).handle
    pages = follow(scratch_store, "read_handle", {"handle": handle, "records": 6})
    assert items(pages, "records") == operations  # some longer than a page: in parts
    pages = follow(scratch_store, "read_handle", {"handle": handle, "record": 3, "records": 4,
                                                  "jq": "{name, uri: .http.requestUri}"})
    assert items(pages, "results") == [{"name": op["name"], "uri": op["http"]["requestUri"]}
                                       for op in operations[2:]]


def test_jq_pages_keep_jq_and_budget(scratch_store, ra, ec2):
    doc = {"shapes": dict(list(ec2["shapes"].items())[:150])}
    handle = ra.spill(json.dumps(doc).encode()).handle
    pages = follow(scratch_store, "read_handle", {"handle": handle, "jq": ".shapes | to_entries[] | "
                                                  "[.key, .value.type, (.value.members // {} | keys)]"})
    assert items(pages, "results") == [[k, v["type"], sorted(v.get("members", {}))] for k, v in doc["shapes"].items()]


@pytest.fixture(scope="module")
def book(fixture_data) -> bytes:
    return _lines_upto(fixture_data["browser-rust-book.html"], 40_000)


def test_view_pages_keep_view_and_budget(scratch_store, ra, book):
    handle = ra.spill(book).handle
    pages = follow(scratch_store, "read_handle", {"handle": handle, "view": "text"})
    assert "".join(p["text"] for p in pages).encode() == view_text(book)


@pytest.mark.parametrize("selector", ["p", "h2, h3", "code"])
def test_select_pages_keep_select_and_budget(scratch_store, ra, book, selector):
    handle = ra.spill(book).handle
    pages = follow(scratch_store, "read_handle", {"handle": handle, "select": selector})
    status, count, texts, *_ = select_texts(book, selector, 0, 0, 10**9, 10**9)
    assert status == "ok" and count > 5
    assert items(pages, "elements") == texts


def test_scratch_read_pages_keep_length_and_budget(scratch_store, ra, grep_text):
    ra.scratch_write("notes", grep_text[:10_000])
    pages = follow(scratch_store, "scratch_read", {"key": "notes", "length": 1234})
    assert "".join(p["data"] for p in pages).encode() == grep_text[:10_000]
    assert {p["length"] for p in pages[:-1]} == {1234}


@pytest.mark.parametrize("limit", [None, 7])
def test_listing_pages_keep_prefix_limit_and_budget(scratch_store, ra, grep_text, limit):
    lines = grep_text.decode().splitlines()
    for i, line in enumerate(lines[:90]):
        ra.scratch_write(f"defs/{i:03d}", line)
        ra.scratch_write(f"other/{i:03d}", line)
    args = {"prefix": "defs/"} if limit is None else {"prefix": "defs/", "limit": limit}
    pages = follow(scratch_store, "scratch_list", args)
    keys = [e["key"] for p in pages for e in p["entries"]]
    assert keys == [e.key for e in ra.scratch_list("defs/")] and len(keys) == 90
    assert len(pages) > 1 and (limit is None or all(len(p["entries"]) <= limit for p in pages))


def test_python_api_next_call_names_no_budget(ra, grep_text):
    """A read through the Python API has no reply budget: its ``next_call`` names none."""
    handle = ra.spill(grep_text).handle
    assert "budget" not in ra.read_handle(handle, offset=0, length=100).next_call
    with pytest.raises(InvalidArgument):
        ra.read_handle(handle, offset=len(grep_text) + 1)


def test_a_bad_records_ways_on_keep_the_budget(scratch_store, ra, ec2):
    """A read that starts at a bad JSON-lines record passes over it (branch jsonlines; before, its error named the
    byte read that shows it and the read past it): its note names that byte read with the caller's budget, and its
    pages go on as the first call did. One the filter fails on still fails, both ways on with the budget."""
    good = [json.dumps(op) for op in list(ec2["operations"].values())[:12]]
    handle = ra.spill(("\n".join([*good[:5], "{not json", *good[5:]]) + "\n").encode()).handle
    pages = follow(scratch_store, "read_handle", {"handle": handle, "record": 6, "records": 3})
    assert pages[0]["note"].startswith("record 6 (bytes ") and "is not JSON" in pages[0]["note"]
    see = re.findall(r"read_handle\([^)]*\)", pages[0]["note"])[0]
    assert call_args(see)[1]["budget"] == BUDGET
    assert items(pages, "records") == [json.loads(line) for line in good[5:]]
    result = run_scratch_tool(ScopeResolver(scratch_store, "r", "a"), "read_handle",
                              {"handle": handle, "record": 7, "records": 3, "jq": ".name + 1", "budget": BUDGET}, None)
    assert result.is_error and "jq failed on record 7" in result.content[0].text
    see, on = re.findall(r"read_handle\([^)]*\)", result.content[0].text)[:2]
    assert call_args(see)[1]["budget"] == BUDGET and call_args(on)[1] == {"handle": handle, "record": 8,
                                                                           "records": 3, "jq": ".name + 1",
                                                                           "budget": BUDGET}
