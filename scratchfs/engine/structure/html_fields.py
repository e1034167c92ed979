"""Form controls and embedded content as a CSS select of an HTML page shows them: their start tag, attributes and all.

A select returns each element's text as the text view renders it (:mod:`scratchfs.engine.structure.html_render`),
and a form's controls have no text a model can act on: ``select="form [name]"`` over a settings page (modeltask12)
gave ``["", "", "United KingdomFranceGermany", "", ...]`` -- no field's name, type or value, and a ``<select>``'s
options run together. Here a form and its controls (``<input>``, ``<select>``, ``<textarea>``, ``<button>``, ...) are
its start tag as written in HTML (``<input type="text" name="full_name" required value="Ada Lovelace">``) and then
its text (``<button type="submit" name="action" value="save">Save``); a ``<select>`` (or ``<datalist>``) its start
tag and each option's on a line of its own, indented two spaces (``<option value="uk" selected>United Kingdom``);
and embedded content of no text (an ``<img>``, an ``<iframe>``: :data:`EMBEDDED_TAGS`) its start tag, where it was
``""``. An attribute value is cut to :data:`MOST_VALUE_CHARS` characters (an inline image's
``data:`` address holds megabytes), marked ``...``.

It runs in the HTML worker (loaded by path before :mod:`~scratchfs.engine.structure.html_render`, which imports it);
it imports nothing of ``scratchfs``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CONTROL_TAGS", "EMBEDDED_TAGS", "MOST_VALUE_CHARS", "control_text", "start_tag"]

CONTROL_TAGS = frozenset({"form", "input", "select", "textarea", "button", "option", "datalist"})
"""Elements a select shows as their start tag and their text: a form (its ``action`` and ``method``) and its fields,
whose names and values are their attributes."""
EMBEDDED_TAGS = frozenset({"img", "iframe", "embed", "object", "video", "audio", "source", "track", "area", "canvas",
                           "meta", "link"})
"""Elements of no text a select shows as their start tag (an image's ``src`` and ``alt``): any other element of no
text stays ``""`` -- a page's empty anchors (``<a id="x"></a>``: 7 of the 21 links of a section of Node.js's
``net`` page) would cost their tags' bytes and tell nothing."""
MOST_VALUE_CHARS = 200
"""Most characters of an attribute value a start tag shows (more are cut, marked ``...``)."""
_LISTS = ("select", "datalist")
_BOOLEAN = frozenset({"allowfullscreen", "async", "autofocus", "autoplay", "checked", "compact", "controls", "declare",
                      "default", "defer", "disabled", "formnovalidate", "hidden", "inert", "ismap", "itemscope", "loop",
                      "multiple", "muted", "nohref", "nomodule", "noresize", "noshade", "novalidate", "nowrap", "open",
                      "playsinline", "readonly", "required", "reversed", "selected"})
"""HTML's boolean attributes (WHATWG HTML's index of attributes, and libxml2's ``htmlBooleanAttrs``, whose parser
gives a bare one its name as its value): present means true, so ``selected="selected"`` is shown ``selected``. Any
other attribute keeps its value even when that is its name (``<input name="name" value="value">``)."""


def start_tag(element: Any) -> str:
    """``element``'s start tag as HTML writes it: its name, then each attribute in the page's order, ``name="value"``
    (``&`` and ``"`` escaped; a value of more than :data:`MOST_VALUE_CHARS` characters cut there and ``...`` added),
    or ``name`` alone when its value is empty, or is its name in a boolean attribute (:data:`_BOOLEAN`: ``required``,
    ``selected``). Never raises for an lxml element."""
    parts = [str(element.tag)]
    for name, value in element.attrib.items():
        if value == "" or (value.lower() == str(name).lower() and value.lower() in _BOOLEAN):
            parts.append(str(name))
            continue
        shown = value if len(value) <= MOST_VALUE_CHARS else value[:MOST_VALUE_CHARS] + "..."
        parts.append(f'{name}="{shown.replace("&", "&amp;").replace(chr(34), "&quot;")}"')
    return f"<{' '.join(parts)}>"


def control_text(element: Any, text: str) -> str:
    """What a select shows of ``element`` whose text (as rendered) is ``text``: ``text`` for an element that is no
    form control (:data:`CONTROL_TAGS`) and has text or is no embedded content (:data:`EMBEDDED_TAGS`); else its
    :func:`start_tag` then its text (on the next line when it has several), a ``<select>``'s or ``<datalist>``'s
    options one a line (indented two spaces) instead of their run-together text, a ``<textarea>``'s text as written
    (its lines kept). Never raises."""
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag not in CONTROL_TAGS and (text or tag not in EMBEDDED_TAGS):
        return text
    if tag == "textarea":  # (its text is its value, as written: the renderer ran its lines together)
        text = element.text_content().strip("\n")
    if tag in _LISTS:
        options = [f"  {start_tag(option)}{_spaced(' '.join(option.text_content().split()))}"
                   for option in element.iter("option")]
        return "\n".join([start_tag(element), *options])
    return start_tag(element) + _spaced(text) if tag else text


def _spaced(text: str) -> str:
    return f"\n{text}" if "\n" in text else text
