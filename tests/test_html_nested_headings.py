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
