"""A ``select=`` read's element text keeps the boundaries the page shows, as the text view does (the same renderer,
given the element's context): a table row's cells between `` | `` (a new user's ``select="table tr"`` on a rustdoc
page read ``usize -> vecslice::repeat and Vec::with_capacity`` where the text view showed ``usize -> vec |
slice::repeat ...``), a table body's rows on lines of their own, a ``<br>`` a line break, a list's items on lines
of their own, a block's paragraphs apart and none indented but the first unindented (the first line was stripped,
the others kept the block's indent) -- while inline elements (``<span>``, ``<a>``, ``<code>``) join with no space
added. A list item selected alone is its text, without a bullet (an ``<ol>``'s item read ``* first``). The text of
code in a ``<pre>`` keeps its lines and indentation, in the text view and in a ``select="pre code"`` (inscriptis
gave an inline element inside a ``<pre>`` collapsed white space: the Rust book's every code block was one line).
What is aimed at is a browser's ``innerText`` (cells there are between tabs; lxml's ``text_content()`` runs them
together): checked against headless Chromium when it is installed. Pages: ``fixtures/browser-rust-book.html`` and a
small rustdoc-like page made here."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import BytesSource
from scratchfs.engine.structure.html import html_text, select_page

_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

_RUSTDOC = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Vec in std::vec - Rust</title></head>
<body class="rustdoc struct"><main><section id="main-content" class="content">
<h1>Struct <span class="struct">Vec</span></h1>
<div class="docblock"><p>A contiguous growable array type, written as <code>Vec&lt;T&gt;</code>, short for
&#8216;vector&#8217;.</p><p>Use <a href="#method.with_capacity"><code>Vec::with_capacity</code></a> whenever
possible.</p>
<table><thead><tr><th>Conversion</th><th>Ways</th></tr></thead>
<tbody><tr><td><code>usize -&gt; vec</code></td>
<td><a href="../primitive.slice.html#method.repeat"><code>slice::repeat</code></a>
and <a href="#method.with_capacity"><code>Vec::with_capacity</code></a></td></tr>
<tr><td><code>&amp;[T] -&gt; vec</code></td>
<td><a href="#method.from"><code>From</code></a><br><code>to_vec</code></td></tr>
</tbody></table>
<div class="example-wrap"><pre class="rust rust-example-rendered"><code><span class="kw">let </span>\
<span class="kw-2">mut </span>vec = Vec::new();
vec.push(<span class="number">1</span>);
<span class="kw">for </span>x <span class="kw">in </span><span class="kw-2">&amp;</span>vec {
    <span class="macro">println!</span>(<span class="string">"{x}"</span>);
}</code></pre></div>
<ol class="steps"><li>Allocate the buffer</li><li>Push <code>1</code></li></ol>
<ul class="notes"><li>Fast</li><li>Growable<ul><li>amortized</li></ul></li></ul>
</div></section></main></body></html>"""


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _elements(page: bytes, selector: str) -> list[str]:
    return select_page(BytesSource(page), selector, timeout=30.0).items


def _view_lines(page: bytes) -> list[str]:
    return [line.strip() for line in html_text(BytesSource(page), None, 30.0).decode().splitlines()]


def test_a_rows_cells_stay_apart_as_the_text_view_shows_them(tools, scratch_scope):
    handle = scratch_scope.spill(_RUSTDOC.encode(), source_tool="browser").handle
    reply = tools.call("read_handle", {"handle": handle, "select": "table tr"})
    assert reply["elements"] == ["Conversion | Ways", "usize -> vec | slice::repeat and Vec::with_capacity",
                                 "&[T] -> vec\n| From\n  to_vec"]
    assert "usize -> vec | slice::repeat and Vec::with_capacity" in _view_lines(_RUSTDOC.encode())
    body = _elements(_RUSTDOC.encode(), "tbody")
    assert body == ["usize -> vec | slice::repeat and Vec::with_capacity\n\n&[T] -> vec\n| From\n  to_vec"]
    assert _elements(_RUSTDOC.encode(), "td")[3] == "From\nto_vec"  # a <br> is a line break


def test_a_real_pages_rows_are_its_text_views_lines():
    page = (_FIXTURES / "browser-rust-book.html").read_bytes()
    rows = _elements(page, "table tr")
    assert rows[0] == "Ferris | Meaning"
    lines = set(_view_lines(page))
    assert "Length | Signed | Unsigned" in rows
    assert all(row in lines for row in rows if "\n" not in row), [row for row in rows if row not in lines]


def test_blocks_and_list_items_keep_their_lines_and_inline_elements_join():
    page = _RUSTDOC.encode()
    assert _elements(page, "ol.steps li") == ["Allocate the buffer", "Push 1"]  # no bullet, no "* "
    assert _elements(page, "ol.steps") == ["1. Allocate the buffer\n2. Push 1"]
    assert _elements(page, "ul.notes > li")[1].splitlines() == ["Growable", "  * amortized"]
    paragraphs = _elements(page, "div.docblock > p")
    assert paragraphs[0] == "A contiguous growable array type, written as Vec<T>, short for ‘vector’."
    assert paragraphs[1] == "Use Vec::with_capacity whenever possible."
    block = _elements(page, "div.docblock")[0].splitlines()
    assert block[:3] == [paragraphs[0], "", paragraphs[1]]  # paragraphs apart, none indented
    assert _elements(page, "h1") == ["Struct Vec"]


def test_code_in_a_pre_keeps_its_lines_in_the_view_and_in_a_select():
    code = 'let mut vec = Vec::new();\nvec.push(1);\nfor x in &vec {\n    println!("{x}");\n}'
    page = _RUSTDOC.encode()
    assert _elements(page, "pre code") == [code]
    assert _elements(page, "pre") == [code]
    assert _shown_in_view(code, page)
    book = (_FIXTURES / "browser-rust-book.html").read_bytes()
    hello = 'fn main() {\n    println!("Hello, world!");\n}'
    assert hello in _elements(book, "pre code")
    assert _shown_in_view(hello, book)


def _shown_in_view(code: str, page: bytes) -> bool:
    """Whether the text view shows the lines of ``code`` one under the other, indented as the block holding them."""
    view = html_text(BytesSource(page), None, 30.0).decode()
    first = next(line for line in view.splitlines() if line.strip() == code.splitlines()[0])
    indent = first[: len(first) - len(first.lstrip())]
    return "\n".join(indent + line for line in code.splitlines()) in view


_WORD = st.text(st.sampled_from("abcxyz:->&<"), min_size=1, max_size=6).filter(lambda w: w.strip() == w)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(_WORD, min_size=1, max_size=4), min_size=1, max_size=4))
def test_any_tables_rows_read_by_select_as_the_view_writes_them(rows):
    import html

    cells = "".join("<tr>" + "".join(f"<td><code>{html.escape(c)}</code></td>" for c in row) + "</tr>"
                    for row in rows)
    page = f"<html><body><table>{cells}</table></body></html>".encode()
    assert _elements(page, "tr") == [" | ".join(row) for row in rows]
    assert _elements(page, "tr") == _view_lines(page)


_CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_CHROMIUM is None, reason="no headless Chromium to compare innerText with")
def test_element_texts_are_a_browsers_inner_text_with_the_views_cell_separator(tmp_path):
    selectors = ["table tr", "tbody", "td", "ol.steps li", "ul.notes > li", "pre code", "div.docblock > p", "h1"]
    script = ("<script>document.body.setAttribute('data-out', JSON.stringify(" + json.dumps(selectors) + ".map(s => "
              "Array.from(document.querySelectorAll(s), e => e.innerText))));</script>")
    path = tmp_path / "page.html"
    path.write_text(_RUSTDOC.replace("</body>", script + "</body>"), encoding="utf-8")
    dom = subprocess.run([_CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", path.as_uri()],
                         capture_output=True, text=True, timeout=60).stdout
    import lxml.html

    browser = json.loads(lxml.html.document_fromstring(dom).find("body").get("data-out"))
    for selector, texts in zip(selectors, browser, strict=True):
        ours = _elements(_RUSTDOC.encode(), selector)
        # the view writes a row of one line with " | " between cells (innerText: a tab), a row of several lines cell
        # by cell, and a nested list's items with bullets (innerText: none)
        want = [" ".join(t.replace("\t", " | ").split()) for t in texts]
        got = [" ".join(t.replace("\n| ", " | ").replace("* ", "").split()) for t in ours]
        assert want == got, selector
