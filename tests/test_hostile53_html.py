"""A select that matched nothing names the ids, classes and elements the page lacks (html_misses); an id or class
written as an attribute selector, ``[id='h7']`` or ``div[class~=note]``, was not looked for: over the Rust book
(which has no id ``h7``) the note said "nothing matches, though the page holds each id, class and element the
selector names", telling the model the id is there. Those are now looked for as ``#h7`` and ``.note`` are."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure.html_misses import selector_names

PAGE = Path(__file__).resolve().parent.parent / "fixtures" / "browser-rust-book.html"


@pytest.mark.parametrize(("select", "lacks"), [
    ("[id='h7']", "no id 'h7'"),
    ('[ID="processmemoryusage"]', "no id 'processmemoryusage'"),
    ("div[class~=notethere]", "no class 'notethere'"),
    ("main [class='chapterx']", "no class 'chapterx'"),
])
def test_an_attribute_selector_of_an_id_or_class_the_page_lacks_says_so(scope, select, lacks):
    tools = ScratchTools(scope)
    handle = scope.spill(PAGE.read_bytes(), source_tool="browser").handle
    reply = tools.read_handle(handle, select=select)
    assert reply["matches"] == 0
    assert reply["note"].startswith("nothing matches: the page has " + lacks), reply["note"]


def test_only_an_exact_or_word_match_of_id_or_class_is_named():
    """A prefix (``^=``), a part (``*=``), a case-blind flag or another attribute names no id or class: a page may
    lack the whole value and still match."""
    assert selector_names("[id='a'] [class~=b] [class=c]") == [("#", "a"), (".", "b"), (".", "c")]
    assert selector_names("[id^=a] [class*=b] [id=c i] [data-id=d] [class|=e]") == []


@pytest.mark.parametrize("select", ["[data-nowhere=y]", ":checked", "[lang|=xx]"])
def test_a_selector_naming_no_id_class_or_element_is_not_said_to_be_held(scope, select):
    """Such a selector's miss said the page "holds each id, class and element the selector names" (none)."""
    tools = ScratchTools(scope)
    handle = scope.spill(PAGE.read_bytes(), source_tool="browser").handle
    note = tools.read_handle(handle, select=select)["note"]
    assert note.startswith("nothing matches: the selector names no id, class or element to look for"), note
