"""A stub's preview of a page's main landmark, told from one rendering (the view's cuts, then a parse: leftovers11),
against what the note's own ``select=`` of the landmark gives (hostile54): for pages of a grammar of landmarks,
blocks, inline elements, ``<pre>``, tables, lists, ``<br>``, character references, comments, scripts, hidden and
``display:none`` elements and ``<template>``, the preview is the start of that select's text, and never more than the
two renderings gave before (the landmark rendered by itself too)."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.api.html_preview import ViewHead
from scratchfs.engine.structure import html_worker
from scratchfs.foundation.limits import PREVIEW_BYTES

_NAV = b"<html><head><title>t</title></head><body><nav><a href=/>Home</a> links</nav>"


def _select_text(page: bytes, selector: str) -> str:
    """The text of ``selector``'s first match in ``page``, as a select of it renders it."""
    return html_worker.select_texts(page, selector, 0, 0, 10**7, 10)[2][0]


def test_a_line_of_a_no_break_space_is_blank_in_the_preview_as_in_the_select(scratch_scope):
    """A ``<p>&nbsp;</p>`` in a long main landmark is a line of one space in the text view and a blank line in the
    select's text (its lines of spaces left empty): the one-rendering preview showed the view's ``" "`` line, which
    the note's select never gives; it stops before it, as the two renderings stopped."""
    page = _NAV + b"<main>alpha<p>&nbsp;</p>" + b"<p>Foot words here.</p>" * 300
    stub = scratch_scope.spill(page, source_tool="browser.get")
    assert "of the page's main content" in stub.note
    select = json.loads(re.search(r'select=("(?:[^"\\]|\\.)*")', stub.note).group(1))
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "select": select})
    assert reply["elements"][0].startswith("alpha\n\n\n\nFoot words here.")
    assert stub.preview.rstrip("\n") == "alpha"


_WORDS = st.sampled_from(["alpha", "beta gamma", "  ", "\n", "&amp;", "&nbsp;", "&lt;main&gt;", "x&#10;y", "é", "\t",
                          "\u03b4", "&#x2028;", "&emsp;"])
_LEAVES = st.one_of(st.lists(_WORDS, min_size=1, max_size=4).map("".join), st.sampled_from([
    "<br>", "<br/>", "<!-- c <main> -->", "<script>var m='<main>'</script>", "<style>p{}</style>", "<img alt=pic>",
    "<hr>", "<wbr>"]))
_TAGS = st.sampled_from(["p", "div", "span", "b", "pre", "ul", "ol", "li", "table", "tr", "td", "th", "blockquote",
                         "h2", "section", "article", "code", "em", "dl", "dd", "dt", "template", "details", "summary",
                         "nav", "aside", "footer", "textarea", "noscript", "button", "figure", "main"])
_ATTRIBUTES = st.sampled_from(["", " hidden", ' style="display:none"', " class=c", " role=main", " id=m",
                               " aria-hidden=true"])
_FRAGMENTS = st.recursive(_LEAVES, lambda inner: st.tuples(_TAGS, _ATTRIBUTES, st.lists(inner, max_size=4),
                                                           st.booleans()).map(
    lambda t: f"<{t[0]}{t[1]}>" + "".join(t[2]) + (f"</{t[0]}>" if t[3] else "")), max_leaves=12)
_OPENERS = st.sampled_from(["<main>", "<main id=content>", '<div role="main">', "<article>",
                            '<section role=main id="a.b">', "<main hidden>", '<main style="display:none">',
                            "<MAIN class=x>", "<div id=m role=main>", "<td role=main>", "<li role=main>",
                            "<pre role=main>", "<template role=main>", "<p role=main>", "<span role=main>"])
_BEFORE = st.sampled_from(["", "<div><p>Nav.</p>", "<ul><li>Nav", "<pre>nav\n", "<table><tr><td>nav",
                           "<p>Nav.</p><div hidden>", "<div style='display:none'>", "Nav text"])


_PARTS = st.tuples(st.tuples(_BEFORE, _OPENERS, st.lists(_FRAGMENTS, min_size=1, max_size=8).map("".join)).map(
    "".join), st.lists(_FRAGMENTS, min_size=1, max_size=6).map("".join), st.sampled_from([1, 5, 40, 200]),
    st.sampled_from(["", "</main>", "</main><p>Footer after.</p>", "</div><p>Foot</p>" * 30]))
"""A page's parts: its landmark's start, a run of content repeated so many times, its end (the page is built in the
test: its parts' repr stays short)."""


@settings(max_examples=150)
@given(_PARTS)
def test_a_main_preview_is_the_start_of_its_select_s_text(parts):
    """Whatever the landmark holds and wherever it stands, the text a stub previews as the page's main content is
    the start of the text of the select its note names."""
    start, body, times, end = parts
    page = _NAV + (start + body * times + end).encode()
    view = ViewHead(page, len(page), PREVIEW_BYTES)
    if view.main is not None:
        assert _select_text(page, view.main).startswith(view.text.decode()), page


def test_heading_counts_of_a_bytearray_changed_in_place_are_its_new_page_s():
    """``heading_counts`` and ``sample_codec`` reuse the last sample's by identity: a ``bytearray`` changed in place
    is the same object, and got the counts of the page it held before."""
    from scratchfs.api.shape_html import heading_counts, html_shape, sample_codec

    two = b"<body><h1>A</h1><h2>B</h2>" + b"<p>text</p>" * 50
    five = b'<meta charset="koi8-r"><body><h1>A\xe9</h1><h1>C</h1><h2>B</h2><h3>D</h3><h3>E</h3>' + b"<p>text</p>" * 50
    sample = bytearray(two)
    html_shape(sample, "")
    assert heading_counts(sample)[0] == [("1", 1), ("2", 1)] and sample_codec(sample) == "utf-8"
    sample[:] = five
    assert heading_counts(sample)[0] == heading_counts(five)[0] == [("1", 2), ("2", 1), ("3", 2)]
    assert sample_codec(sample) == sample_codec(five) != "utf-8"
