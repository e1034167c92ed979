"""``scratch_list(spilled=true)``: a model whose context was cut finds its spilled results again (listhandles1).

``scratch_list`` listed scratchpad notes only and no tool listed a scope's handles: after a fresh ``ScratchTools``
``scratch_list`` said ``entries: []`` over nine thousand lines spilled a moment before. Now ``spilled=true`` pages
``{handle, tool, size, shape, expires_in}`` of this scope's live spilled results, newest first, within the budget.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs.adapter import ScratchTools, tool_definitions
from scratchfs.api.listing import SPILLED_SHAPE_CHARS, SPILLED_TOOL_CHARS
from scratchfs.api.store import ScratchStore
from scratchfs.api.tools import TOOL_SPECS
from scratchfs.api.views import reply_text
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import MAX_TOOL_BYTES, MIN_REPLY_BYTES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _size(reply: dict) -> int:
    return len(reply_text(reply).encode("utf-8"))  # (the text the model receives)


def _pages(tools: ScratchTools, **arguments) -> list[dict]:
    """Every page of ``scratch_list(spilled=true, **arguments)``, each next page read by its reply's next_call's
    cursor."""
    pages = [tools.call("scratch_list", {"spilled": True, **arguments})]
    while pages[-1]["next_call"] is not None:
        assert "spilled=True" in pages[-1]["next_call"]
        cursor = pages[-1]["next_call"].split('cursor="', 1)[1].split('"', 1)[0]
        pages.append(tools.call("scratch_list", {"spilled": True, **arguments, "cursor": cursor}))
        assert len(pages) < 500
    return pages


def test_a_fresh_scratch_tools_lists_the_scopes_spilled_results(tmp_path):
    with ScratchStore(tmp_path) as store:
        stub = store.scope("run", "agent").spill("x\n" * 9000, source_tool="bash")
    with ScratchStore(tmp_path) as store:  # (a fresh session on the same run and agent)
        tools = ScratchTools(store.scope("run", "agent"))
        assert tools.call("scratch_list", {})["entries"] == []  # the notes: none
        reply = tools.call("scratch_list", {"spilled": True})
    assert reply == {"spilled": True, "entries": [{"handle": stub.handle, "tool": "bash", "size": 18_000,
                                                   "shape": stub.shape, "expires_in": 3600}], "next_call": None}


def test_300_spills_page_newest_first_each_once(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        handles = [scope.spill(f"result {i}\n" * 40, source_tool=f"tool-{i}").handle for i in range(300)]
        oldest_first = [e.key for e in scope.list_entries() if e.kind == "handle"]
        pages = _pages(ScratchTools(scope))
    listed = [row["handle"] for page in pages for row in page["entries"]]
    assert sorted(listed) == sorted(handles) and len(listed) == 300  # each once
    assert listed == oldest_first[::-1]  # newest first
    assert len(pages) > 3 and all(_size(page) <= 8192 for page in pages)


def test_limit_and_budget_page_the_same_listing(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        handles = {scope.spill(f"r{i}\n", source_tool="grep").handle for i in range(25)}
        pages = _pages(ScratchTools(scope), limit=4, budget=MIN_REPLY_BYTES)
    assert [len(page["entries"]) for page in pages] == [4] * 6 + [1]
    assert {row["handle"] for page in pages for row in page["entries"]} == handles
    assert "limit=4" in pages[0]["next_call"] and f"budget={MIN_REPLY_BYTES}" in pages[0]["next_call"]


def test_another_agents_spills_and_scratch_notes_are_not_listed(tmp_path):
    with ScratchStore(tmp_path) as store:
        mine = store.scope("run", "me").spill("mine\n" * 100, source_tool="ls").handle
        store.scope("run", "other").spill("theirs\n" * 100, source_tool="ls")
        store.scope("other-run", "me").spill("another run\n" * 100, source_tool="ls")
        store.scope("run", "me").scratch_write("note", "a note")
        reply = ScratchTools(store.scope("run", "me")).call("scratch_list", {"spilled": True})
    assert [row["handle"] for row in reply["entries"]] == [mine]


def test_expired_spills_are_not_listed(tmp_path):
    now = [1_800_000_000.0]
    with ScratchStore(tmp_path, clock=lambda: now[0]) as store:
        scope = store.scope("run", "agent")
        short = scope.spill("short-lived\n", source_tool="ls", ttl=60).handle
        now[0] += 1
        long = scope.spill("long-lived\n", source_tool="ls", ttl=3600).handle
        tools = ScratchTools(scope)
        assert [r["handle"] for r in tools.call("scratch_list", {"spilled": True})["entries"]] == [long, short]
        now[0] += 120
        reply = tools.call("scratch_list", {"spilled": True})
    assert [(r["handle"], r["expires_in"]) for r in reply["entries"]] == [(long, 3600 - 120)]


def test_long_shapes_and_tool_names_are_cut_and_every_page_kept_within_its_budget(tmp_path):
    names = ["api-ec2-service-model.json", "workspace-grep-stdlib-defs.txt", "browser-rust-book.html",
             "query-packages-by-month.csv"]
    long_tool = ("\u00e9\"\\" * MAX_TOOL_BYTES)[:90]  # a long name, quotes and backslashes escaped in JSON
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        for i in range(30):
            scope.spill((FIXTURES / names[i % 4]).read_bytes(), source_tool=long_tool + str(i))
        tools = ScratchTools(scope)
        for budget in (MIN_REPLY_BYTES, 3000, 8192):
            pages = _pages(tools, budget=budget)
            assert all(_size(page) <= budget for page in pages)
            rows = [row for page in pages for row in page["entries"]]
            assert len(rows) == 30 and len({row["handle"] for row in rows}) == 30
    assert all(len(row["shape"]) <= SPILLED_SHAPE_CHARS and len(row["tool"]) <= SPILLED_TOOL_CHARS for row in rows)
    assert any(row["shape"].endswith("\u2026") for row in rows)  # a long shape, cut
    assert any(row["shape"] == "CSV, 4 columns (name, version, month, summary), 4,486 rows" for row in rows)


def test_a_prefix_or_another_listings_cursor_is_refused_with_what_to_do(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        for i in range(3):
            scope.spill(f"r{i}\n", source_tool="ls")
            scope.scratch_write(f"k{i}", "v")
        tools = ScratchTools(scope)
        with pytest.raises(InvalidArgument, match=r"without it"):
            tools.call("scratch_list", {"spilled": True, "prefix": "h_"})
        notes_cursor = scope.scratch_page(limit=1).next_cursor
        with pytest.raises(InvalidArgument, match=r"scratch_list\(spilled=True, limit=1\)"):
            tools.call("scratch_list", {"spilled": True, "limit": 1, "cursor": notes_cursor})
        spilled_cursor = scope.spilled_page(limit=1).next_cursor
        with pytest.raises(InvalidArgument, match="another listing"):
            tools.call("scratch_list", {"limit": 1, "cursor": spilled_cursor})
        with pytest.raises(InvalidArgument, match="spilled"):
            tools.call("scratch_list", {"spilled": "yes"})


def test_every_face_offers_it_in_one_short_sentence():
    assert "`spilled`" in TOOL_SPECS["scratch_list"].description
    assert "spilled results are not listed" not in TOOL_SPECS["scratch_list"].description
    definition = next(d for d in tool_definitions() if d["name"] == "scratch_list")
    assert definition["input_schema"]["properties"]["spilled"]["type"] == "boolean"
