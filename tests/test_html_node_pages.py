"""Node.js's API pages as headless Chromium dumps them (``fixtures/tools/node-process-dom-head.html``, the start of
``process.html``), read as a model reads them (modeltask12's faults): a code block of two flavours (CommonJS and ES
modules, a toggle showing one) ran together on one line in the text view and a select's text; a select of a
heading's anchor (``#processmemoryusage``) gave its ``#`` and named no read of the section under it."""

from __future__ import annotations

import json
from pathlib import Path

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import html_worker

_PAGE = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "node-process-dom-head.html").read_bytes()


def test_each_flavour_of_a_code_block_and_its_copy_button_ends_a_line():
    view = html_worker.view_text(_PAGE).decode()
    assert "import process from 'node:process';\nconst process = require('node:process');\ncopy\n" in view
    assert "';const" not in view and ");copy" not in view
    _, matches, texts, _, _ = html_worker.select_texts(_PAGE, "pre", 0, 0, 4000, 2)
    assert matches == 14
    assert texts[0] == "import process from 'node:process';\nconst process = require('node:process');\ncopy"
    assert "// Process exit event with code: 0\nconst process = require('node:process');" in texts[1]


def test_a_pre_of_one_code_or_of_spans_keeps_its_lines_as_written():
    page = (b"<pre><code>a\nb</code></pre><pre><span>x</span><span>y</span></pre>"
            b"<pre><code>one</code>\n<code>two</code></pre>")
    assert html_worker.view_text(page).decode().split() == ["a", "b", "xy", "one", "two"]
    assert html_worker.view_text(page).decode().count("\n\n") <= 3


def test_a_select_of_a_heading_anchor_names_the_select_of_its_section(scratch_scope):
    tools = ScratchTools(scratch_scope)
    stub = scratch_scope.spill(_PAGE, source_tool="browser.get")
    anchor = tools.call("read_handle", {"handle": stub.handle, "select": "#event-beforeexit"})
    assert anchor["elements"] == ["[#](#event-beforeexit)"]
    section = 'h4:has(#event-beforeexit), h4:has(#event-beforeexit) ~ :nth-child(-n+9)'
    assert f"select={json.dumps(section)}" in anchor["note"]
    read = tools.call("read_handle", {"handle": stub.handle, "select": section})
    assert read["matches"] == 7
    assert read["elements"][0] == "Event: 'beforeExit'#"
    assert read["elements"][1] == "Added in: v0.11.12"
    assert read["elements"][-1].startswith("import process from 'node:process';\n\nprocess.on('beforeExit'")
    assert not any("disconnect" in element for element in read["elements"])  # (the next <h4>'s section)


def test_a_heading_section_stops_at_a_higher_heading_and_a_heading_of_no_id_gets_a_search():
    page = b"<h2 id=a>A</h2><p>one</p><h3>B</h3><p>two</p><h2>C</h2><p>three</p>"
    _, _, texts, _, note = html_worker.select_texts(page, "#a", 0, 0, 4000, 10)
    assert texts == ["A"]
    assert 'select="#a, #a ~ :nth-child(-n+4)"' in note
    assert html_worker.select_texts(page, "#a, #a ~ :nth-child(-n+4)", 0, 0, 4000, 10)[2] == ["A", "one", "B", "two"]
    assert 'view="text", match="B"' in html_worker.select_texts(page, "h3", 0, 0, 4000, 10)[4]
    assert html_worker.select_texts(page, "p", 0, 0, 4000, 10)[4] is None  # (no heading: no note)
    assert html_worker.select_texts(page, "h2, h3", 0, 0, 4000, 10)[4] is not None


def test_the_stub_previews_the_main_content_and_says_the_navigation_was_skipped(scratch_scope):
    stub = scratch_scope.spill(_PAGE, source_tool="browser.get")
    assert stub.preview.startswith("Process#\n\nSource Code: lib/process.js\n\nThe process object provides")
    assert "About this documentation" not in stub.preview  # (the sidebar's module list: the preview before)
    assert "main content (role=\"main\"), its navigation before it skipped (34,428 bytes of the page)" in stub.note
    assert f'Next: read_handle(handle="{stub.handle}", select="#apicontent") | ' in stub.note
    assert f'read_handle(handle="{stub.handle}", view="text", offset=0)' in stub.note
    tools = ScratchTools(scratch_scope)
    main = tools.call("read_handle", {"handle": stub.handle, "select": "#apicontent"})
    assert main["part"].startswith(stub.preview.rsplit("\n", 1)[0])  # (the select reads on from the same text)
    view = tools.call("read_handle", {"handle": stub.handle, "view": "text", "offset": 0})
    assert view["text"].startswith("Skip to content\nNode.js\n  * About this documentation")


def test_a_landmark_is_previewed_only_after_text_and_by_the_spec_s_names():
    from scratchfs.api.html_preview import view_head

    def head(page: bytes) -> tuple[str, str | None]:
        told = view_head(page, len(page), 400)
        return told.fit(400)[0].rstrip("\n"), told.main

    nav = b"<html><body><nav><a href=/>Home</a> <a href=/a>About</a></nav>"
    assert head(nav + b"<main><p>Body text.</p></main></body></html>") == ("Body text.", "main")
    assert head(nav + b'<div role="main" id="c"><p>Body.</p></div>') == ("Body.", "#c")
    assert head(nav + b"<article><h1>T</h1><p>x</p></article>") == ("T\n\nx", "article")
    assert head(b"<body><script>var a = 1;</script><main><p>Only.</p></main>") == ("Only.", None)  # (no text before)
    assert head(nav + b'<div id="content"><p>Site named.</p></div>')[1] is None  # (a site's name: no landmark)


def test_a_heading_whose_id_is_duplicated_gets_a_search_not_a_select_of_both_sections():
    """``#a`` matches every element of that id: the select the note named covered both headings' sections (``x1``
    and ``a1``); with the id (its own or an anchor's in it) on another element too, the note names the text view's
    search for the heading's text, as for a heading with no id."""
    own = b"<body><div><h2 id=a>A</h2><p>x1</p></div><h2 id=a>A2</h2><p>a1</p><h2>B</h2>"
    inner = b"<body><h2><a id=a>#</a>A</h2><p>x1</p><h2><a id=a>#</a>A2</h2><p>a1</p><h2>B</h2>"
    for page in (own, inner):
        note = html_worker.select_texts(page, "#a", 0, 0, 4000, 10)[4]
        assert note is not None and "select=" not in note and 'view="text", match=' in note, note
    unique = b"<body><h2 id=a>A</h2><p>x1</p><h2 id=b>A2</h2><p>a1</p><h2>B</h2>"  # (a unique id: its section's select)
    assert 'select="#a, #a ~ :nth-child(-n+2)"' in html_worker.select_texts(unique, "#a", 0, 0, 4000, 10)[4]
