"""An HTML page's shape counts its headings of every level, ``<h1>`` to ``<h6>``, each level's count said, and its
stub's note selects the levels that hold its headings: Node.js's deprecations page, its entries ``<h4>``s
(``DEP0001: ...``) under one ``<h1>``, one ``<h2>`` and two ``<h3>``, was said to hold "4 headings", and the note's
``select="h1, h2"`` gave two, where the model wanted the entries (modeltask12). Page:
``fixtures/tools/node-deprecations-dom-head.html``, the start of that page as headless Chromium renders it."""

from __future__ import annotations

from pathlib import Path

from scratchfs.api.contract import ScratchTools
from scratchfs.api.html_preview import page_reads
from scratchfs.api.shape import describe

_PAGE = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "node-deprecations-dom-head.html").read_bytes()


def test_the_shape_counts_each_level_of_headings_h4_too():
    shape = describe(_PAGE, len(_PAGE), _PAGE.count(b"\n")).text
    assert "; 16 headings (1 h1, 1 h2, 2 h3, 12 h4): h1 Node.js v20.20.2 documentation | h2 Deprecated APIs# |" in shape
    assert "| h4 DEP0001: http.OutgoingMessage.prototype.flush# |" in shape


def test_the_note_selects_the_levels_down_to_where_the_headings_are(scratch_scope):
    stub = scratch_scope.spill(_PAGE, source_tool="browser.get")
    assert f'read_handle(handle="{stub.handle}", select="h1, h2, h3, h4")' in stub.note
    found = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "select": "h1, h2, h3, h4"})
    assert found["matches"] == 16
    assert found["elements"][4] == "DEP0001: http.OutgoingMessage.prototype.flush#"


def _page(title: str, *headings: tuple[int, str]) -> bytes:
    body = "".join(f"<h{level}>{text}</h{level}><p>x</p>" for level, text in headings)
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{body}</body></html>".encode()


def test_two_levels_stay_the_two_highest_and_levels_are_added_only_while_they_hold_few():
    call = 'read_handle(handle="h"'
    many = _page("A", *[(1, "a")] * 37, *[(2, "b")] * 43, *[(3, "c")] * 99, *[(4, "d")] * 33)
    assert 'select="h1, h2")' in page_reads(call, many, "x")
    few_high = _page("N", (1, "n"), (2, "m"), *[(3, "c")] * 80, *[(4, "d")] * 31)
    assert 'select="h1, h2, h3")' in page_reads(call, few_high, "x")
    assert 'select="h2, h3")' in page_reads(call, _page("L", (2, "A"), (3, "B"), (3, "C")), "x")  # (all listed)
    deep = _page("D", (1, "A"), (2, "B"), (3, "C"), (4, "D"), *[(5, "E")] * 9)  # (13: each level's count said)
    assert 'select="h1, h2, h3, h4, h5")' in page_reads(call, deep, "x")


def test_words_that_read_as_counts_in_a_title_or_a_heading_change_no_level(scratch_scope):
    """The levels are the shape's counts handed over, not its words read back: a title and headings that say
    "12 headings (9 h5, 9 h6): " or ": h1 " (which the shape's text then holds) select what the page holds."""
    page = _page("Guide: 12 headings (9 h5, 9 h6): h2: 3", (2, "Notes: h1 tags"), (3, "12 headings (9 h6)"),
                 (3, "h2: 3"), (3, "x" * 4000))
    shape = describe(page, len(page), page.count(b"\n")).text
    assert "12 headings (9 h5, 9 h6): h2: 3" in shape and "h2 Notes: h1 tags" in shape  # (the words are shown)
    stub = scratch_scope.spill(page, source_tool="browser.get")
    assert f'read_handle(handle="{stub.handle}", select="h2, h3")' in stub.note
    many = _page("h1: 1, 99 headings (99 h6)", *[(2, "h6: 50 | 40 headings (1 h1, 1 h2)")] * 3, *[(3, "c")] * 12,
                 (3, "x" * 4000))
    stub = scratch_scope.spill(many, source_tool="browser.get")
    assert f'read_handle(handle="{stub.handle}", select="h2, h3")' in stub.note
