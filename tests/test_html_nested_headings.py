"""A heading wrapped alone in an element -- GitHub's rendered Markdown puts each in ``<div class="markdown-heading">``
with its anchor -- reads as a heading standing in its section does: the stub's preview and note are the same, and a
select of the heading names the select of its section, the wrapper's following siblings up to the next heading's
wrapper (before, that select gave the heading and its anchor alone: the wrapper had no other sibling). The markup is
GitHub's as it renders a README (``<h2 class="heading-element">`` in ``<div class="markdown-heading">``, an ``<a
class="anchor">`` of an SVG icon after it)."""

from __future__ import annotations

import re

from scratchfs.api.contract import ScratchTools

_WRAPPED = (b"<!DOCTYPE html><html><head><title>thing</title></head><body><article class=\"markdown-body\">"
            b"<div class=\"markdown-heading\"><h2 id=\"install\" class=\"heading-element\">Install</h2>"
            b"<a class=\"anchor\" href=\"#install\"><svg class=\"octicon\"></svg></a></div>"
            b"<p>Run pip install thing.</p><pre>thing --init</pre><p>Then configure it.</p>"
            b"<div class=\"markdown-heading\"><h3 id=\"config\" class=\"heading-element\">Config</h3></div>"
            b"<p>Edit thing.toml.</p>"
            b"<div class=\"markdown-heading\"><h2 id=\"usage\" class=\"heading-element\">Usage</h2></div>"
            b"<p>Call it.</p></article></body></html>") + b"<!-- padding past the inline bound -->" * 200
_FLAT = _WRAPPED.replace(b"<div class=\"markdown-heading\">", b"").replace(b"</div>", b"")


def _section(scope, page: bytes, selector: str) -> tuple[object, dict, dict]:
    stub = scope.spill(page, source_tool="browser.get")
    tools = ScratchTools(scope)
    reply = tools.call("read_handle", {"handle": stub.handle, "select": selector})
    named = re.search(r'select="((?:[^"\\]|\\.)*)"$', reply["note"])
    assert named is not None, reply["note"]
    return stub, reply, tools.call("read_handle", {"handle": stub.handle, "select": named.group(1).replace('\\"', '"')})


def test_a_wrapped_headings_section_select_gives_its_section(scratch_scope):
    _, reply, section = _section(scratch_scope, _WRAPPED, "#install")
    assert reply["note"].endswith('select="div:has(> h2#install), div:has(> h2#install) ~ :nth-child(-n+6)"')
    assert section["elements"] == ["Install", "Run pip install thing.", "thing --init", "Then configure it.",
                                   "Config", "Edit thing.toml."]  # (the h3's section in it; up to the next h2)
    _, _, flat = _section(scratch_scope, _FLAT, "#install")
    assert [text for text in flat["elements"] if text != "[](#install)"] == section["elements"]
    _, _, sub = _section(scratch_scope, _WRAPPED, "h3")  # (a lower heading stops at the next one of any level above)
    assert sub["elements"] == ["Config", "Edit thing.toml."]


def test_a_wrapped_headings_page_previews_and_notes_as_a_flat_one(scratch_scope):
    wrapped, flat = (scratch_scope.spill(page, source_tool="browser.get") for page in (_WRAPPED, _FLAT))
    assert wrapped.preview == flat.preview and wrapped.preview.startswith("Install\n\nRun pip install thing.")
    assert 'select="h2, h3")' in wrapped.note and 'select="h2, h3")' in flat.note


def _github(level: int, slug: str, title: str) -> bytes:
    """A heading as GitHub renders a README's (2024 on): no id on the heading; its anchor, after it in the wrapper,
    holds the id (``user-content-`` and the slug) and an SVG icon."""
    return (f'<div class="markdown-heading" dir="auto"><h{level} tabindex="-1" class="heading-element" dir="auto">'
            f'{title}</h{level}><a id="user-content-{slug}" class="anchor" aria-label="Permalink: {title}" '
            f'href="#{slug}"><svg class="octicon octicon-link" viewBox="0 0 16 16" aria-hidden="true"><path d="M0 0">'
            f'</path></svg></a></div>\n').encode()


_GITHUB = (b'<!DOCTYPE html><html><head><title>thing</title></head><body><article class="markdown-body">'
           + _github(2, "install", "Install") + b'<p dir="auto">Run pip install thing.</p>\n'
           + _github(3, "config", "Config") + b'<p dir="auto">Edit thing.toml.</p>\n'
           + _github(2, "usage", "Usage") + b'<p dir="auto">Call it.</p></article></body></html>'
           + b"<!-- padding past the inline bound -->" * 200)


def test_a_github_heading_s_section_is_named_by_its_anchor_s_id(scratch_scope):
    """GitHub's heading has no id: its anchor beside it in the wrapper has (``user-content-install``). A select of
    ``h2`` over such a README named a search of the text view for "Install" (no id in the heading), never the
    wrapper's section; the wrapper is now named by its anchor's id."""
    _, reply, section = _section(scratch_scope, _GITHUB, "h2")
    assert reply["note"].endswith('select="div:has(> a#user-content-install), div:has(> a#user-content-install) ~ '
                                  ':nth-child(-n+4)"')
    assert section["elements"] == ["Install", "Run pip install thing.", "Config", "Edit thing.toml."]


def test_a_wrapper_of_a_heading_and_its_subheading_is_one_block(scratch_scope):
    """A wrapper holding a heading and a lower one after it (or a self-link of text, ``<a href="#install">#</a>``)
    is the heading's block: its section runs on past the wrapper (before, the select gave the wrapper's headings and
    nothing of the text after them)."""
    for inside in (b'<h2 id="install">Install</h2><h3 id="sub">Sub</h3>',
                   b'<h2 id="install">Install</h2><a class="anchor" href="#install">#</a>'):
        page = _WRAPPED.replace(b'<div class="markdown-heading"><h2 id="install" class="heading-element">Install</h2>'
                                b'<a class="anchor" href="#install"><svg class="octicon"></svg></a>', b"<div>" + inside)
        assert page != _WRAPPED
        _, reply, section = _section(scratch_scope, page, "#install")
        assert reply["note"].endswith('select="div:has(> h2#install), div:has(> h2#install) ~ :nth-child(-n+6)"')
        assert section["elements"][-5:] == ["Run pip install thing.", "thing --init", "Then configure it.", "Config",
                                            "Edit thing.toml."]


def test_a_section_holding_text_outside_elements_is_read_by_the_text_view(scratch_scope):
    """Text directly after a heading's wrapper (or between the section's elements) is no element: a select of
    ``:nth-child`` siblings left it out and gave ``["Install", "pip"]`` of ``Install loose text pip`` (hostile54). The
    note names the text view's search for the heading instead, whose read holds that text."""
    page = (b"<html><body><article class=markdown-body><div class=markdown-heading><h2 id=install>Install</h2>"
            b"</div>loose text<p>pip</p>" + _github(2, "usage", "Usage") + b"<p>use</p></article></body></html>"
            + b"<!-- padding past the inline bound -->" * 200)
    stub = scratch_scope.spill(page, source_tool="browser.get")
    tools = ScratchTools(scratch_scope)
    note = tools.call("read_handle", {"handle": stub.handle, "select": "#install"})["note"]
    assert "select=" not in note.split("the matches are headings", 1)[1], note
    assert note.endswith('view="text", match="Install"'), note
    text = tools.call("read_handle", {"handle": stub.handle, "view": "text", "match": "Install"})
    assert "Install\n\nloose text\n\npip" in text["windows"][0]["data"], text
    flat = page.replace(b"<div class=markdown-heading>", b"").replace(b"</div>", b"", 1)  # (the text after the h2)
    note = tools.call("read_handle", {"handle": scratch_scope.spill(flat, source_tool="browser.get").handle,
                                      "select": "#install"})["note"]
    assert note.endswith('view="text", match="Install"'), note
