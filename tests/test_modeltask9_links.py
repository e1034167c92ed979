"""A select of links gives each link's target with its text (helper modeltask9).

Asked for "all links to crates.io" in the Rust book, the model read ``select='a[href*="crates.io"]'`` and got
"rand crate", "Crates.io", "crates.io", ...: the elements' text alone, no address; no read gave the href. A matched
``<a href>`` is now ``[text](href)`` (inscriptis's ``display_links``); other elements keep their text as it was."""

from __future__ import annotations

import lxml.html
import pytest

from scratchfs.api.contract import ScratchTools


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def test_a_select_of_links_gives_their_targets(tools, scratch_scope, fixture_data):
    page = fixture_data["browser-rust-book.html"]
    handle = scratch_scope.spill(page, source_tool="browser").handle
    reply = tools.call("read_handle", {"handle": handle, "select": 'a[href*="crates.io"]'})
    links = [(" ".join(a.text_content().split()), a.get("href")) for a in lxml.html.fromstring(page).iter("a")
             if "crates.io" in (a.get("href") or "")]
    assert len(links) >= 4 and reply["matches"] == len(links)
    assert reply["elements"] == [f"[{text}]({href})" for text, href in links]
    assert "[rand crate](https://crates.io/crates/rand)" in reply["elements"]


def test_elements_holding_links_and_anchors_keep_their_text(tools, scratch_scope):
    page = (b'<html><body><p>Use the <a href="https://crates.io/crates/rand">rand crate</a> here.</p>'
            b'<a name="top">Top</a><a href="#top"><img src="x.png"></a></body></html>')
    handle = scratch_scope.spill(page, source_tool="browser").handle
    assert tools.call("read_handle", {"handle": handle, "select": "p"})["elements"] == ["Use the rand crate here."]
    assert tools.call("read_handle", {"handle": handle, "select": "a"})["elements"] == [
        "[rand crate](https://crates.io/crates/rand)", "Top", "[](#top)"]
