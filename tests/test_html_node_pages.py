"""Node.js's API pages as headless Chromium dumps them (``fixtures/tools/node-process-dom-head.html``, the start of
``process.html``), read as a model reads them (modeltask12's faults): a code block of two flavours (CommonJS and ES
modules, a toggle showing one) ran together on one line in the text view and a select's text."""

from __future__ import annotations

from pathlib import Path

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
