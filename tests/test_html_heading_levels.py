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


def test_two_levels_stay_the_two_highest_and_levels_are_added_only_while_they_hold_few():
    call = 'read_handle(handle="h"'
    assert 'select="h1, h2")' in page_reads(call, "HTML; 213 headings (37 h1, 43 h2, 99 h3, 33 h4): h2 K", "x")
    assert 'select="h1, h2, h3")' in page_reads(call, "HTML; 116 headings (1 h1, 1 h2, 80 h3, 31 h4): h1 N", "x")
    assert 'select="h2, h3")' in page_reads(call, "HTML; 3 headings: h2 A | h3 B | h3 C", "x")  # (no counts: listed)
    assert 'select="h1, h2, h3, h4, h5")' in page_reads(call, "HTML; 6 headings (1 h1, 1 h2, 1 h3, 1 h4, 2 h5): h1 A",
                                                        "x")
