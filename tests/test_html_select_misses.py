"""A ``select=`` of an HTML page that matches nothing says which of the selector's ids, classes and element names
the page lacks, and the ones it holds like them -- selectors that would hit -- where the reply was ``"matches": 0,
"elements": []`` and nothing else (modeltask12: ``select="#process-memoryusage"`` over Node.js's ``process`` page,
whose id is ``processmemoryusage``). Page: ``fixtures/tools/node-deprecations-dom-head.html`` (the start of
Node.js's deprecations page as headless Chromium renders it)."""

from __future__ import annotations

from pathlib import Path

from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size
from scratchfs.engine.structure.html_misses import MOST_HINT_CHARS

_PAGE = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "node-deprecations-dom-head.html").read_bytes()


def _select(scope, selector: str) -> dict:
    stub = scope.spill(_PAGE, source_tool="browser.get")
    return ScratchTools(scope).call("read_handle", {"handle": stub.handle, "select": selector})


def test_a_missing_id_names_the_ids_like_it_first_those_of_the_same_letters(scratch_scope):
    reply = _select(scratch_scope, "#dep-0001")
    assert reply["matches"] == 0 and reply["elements"] == []
    assert reply["note"].startswith("nothing matches: the page has no id 'dep-0001' (ids like it: #DEP0001, ")
    assert "#dep0001-httpoutgoingmessageprototypeflush" in reply["note"]
    assert reply_size(reply) < 600


def test_a_missing_class_or_element_names_what_the_page_holds(scratch_scope):
    assert "no class 'mak' (classes like it: .mark" in _select(scratch_scope, "h4 .mak")["note"]
    note = _select(scratch_scope, "fieldset > input")["note"]  # (the slice has no form)
    assert note.startswith("nothing matches: the page has no <fieldset> or <input> element (it holds 1 h1, 1 h2, 2 h3, "
                           "12 h4, 2 section, 12 table, 1 button, ")
    assert len(note) <= MOST_HINT_CHARS


def test_names_all_on_the_page_in_no_such_combination_are_said_so_and_a_hit_has_no_note(scratch_scope):
    note = _select(scratch_scope, "h4 > table")["note"]
    assert note.startswith("nothing matches, though the page holds each id, class and element the selector names")
    hit = _select(scratch_scope, "button")
    assert hit["matches"] == 1 and "note" not in hit
    anchor = _select(scratch_scope, "#DEP0001")  # (a heading's anchor: its note names the section's select instead)
    assert anchor["matches"] == 1 and anchor["note"].startswith("the matches are headings (")
    assert _select(scratch_scope, 'a[href="#nowhere"]:contains("x y")')["note"].startswith("nothing matches, though")
