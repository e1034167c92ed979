"""Where an HTML page's main content starts, as the page marks it with the landmarks of the HTML spec: a ``<main>``
element or an element of ``role="main"`` (WAI-ARIA's main landmark), else its first ``<article>`` -- for a stub's
preview, which shows the start of that content rather than the navigation before it.

Node.js's API pages (headless Chromium's dump) put a sidebar of every module (``role="navigation"``, about 500 bytes
of text) and a table of contents before their ``role="main"`` content: every page's preview was the same module list
(modeltask12). Found by a scan of the page's first bytes (regular expressions, linear: comments, scripts, styles and
other elements of text content passed over), after its ``<body>`` tag and only where text (not only tags, scripts and
styles) stands before the landmark; then told by a parse of the page up to it (:func:`main_open_past`, which a stub
uses alone when the landmark runs past the view's last cut: its text view is then the landmark's, rendered once;
:func:`main_text` renders the landmark by itself too where it ends sooner): the first element
``select=`` of it gives must be the one the scan found (not a ``<main>`` in an attribute's value, nor after an earlier
element of the same id), and the stub shows no text that select does not give (hostile52). Sites' own names
(``id="content"``) are not read: a landmark is the page's own word for its main content."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from scratchfs.engine.structure.html_fields import CONTROL_TAGS, EMBEDDED_TAGS

__all__ = ["MOST_HIDDEN", "MOST_PARSED_TAGS", "MainStart", "main_open_past", "main_start", "main_text"]

_BODY = re.compile(rb"<body(?:\s[^>]*)?>", re.IGNORECASE)
_LANDMARK = re.compile(rb"<main[\s/>]|<[A-Za-z][\w-]*\s[^<>]*?\brole\s*=\s*[\"']?main(?![\w-])", re.IGNORECASE)
_ARTICLE = re.compile(rb"<article[\s/>]", re.IGNORECASE)
_HIDDEN = re.compile(rb"<(?:!--|!\[CDATA\[|!|(script|style|textarea|title|xmp|iframe|noembed|noframes)\b)",
                     re.IGNORECASE)
"""What holds no elements, as libxml2 parses it (a ``<template>``'s and a ``<noscript>``'s content are elements):
a comment, CDATA, a declaration, an element whose content is text."""
_HIDDEN_ENDS = {b"<!--": re.compile(rb"-->"), b"<![CDATA[": re.compile(rb"\]\]>"), b"<!": re.compile(rb">")}
_TEXT = re.compile(rb"(?:^|>)\s*[^\s<]")
_TAG_END = re.compile(rb">")
_ID = re.compile(rb"\sid\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.IGNORECASE)
_PLAIN_ID = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class MainStart:
    """A page's main content: ``body``, the byte after its ``<body>`` tag; ``start``, the byte where the landmark's
    start tag is; ``selector``, a CSS selector of the landmark (``#id`` when it has a plain one, else ``main``,
    ``[role="main"]`` or ``article``); ``element``: how the note names it (``<main>``, ``role="main"``,
    ``<article>``)."""

    body: int
    start: int
    selector: str
    element: str


def main_start(head: bytes) -> MainStart | None:
    """The :class:`MainStart` of a page whose first bytes are ``head``, when a landmark starts in them after its
    ``<body>`` tag with text before it (navigation, a header); ``None`` otherwise (no landmark, none in ``head``,
    nothing shown before it). A ``<main`` in a comment, a script, a style, a ``<textarea>`` (an element whose content
    is text) or CDATA is none; one in an attribute's value may be taken for one (a scan, not a parse):
    :func:`main_text` tells it. ``body`` and ``start`` are byte offsets into ``head``. Linear in ``head``'s bytes
    (each of its regular expressions scans it once; at most :data:`MOST_HIDDEN` comments, scripts, ... passed). Never
    raises (any bytes: a page of none, of no ``<body>``, is ``None``)."""
    body = _BODY.search(head)
    if body is None:
        return None
    found = _outside(head, body.end(), _LANDMARK) or _outside(head, body.end(), _ARTICLE)
    return _landmark(head, body.end(), found[0]) if found is not None and found[1] else None


def _outside(head: bytes, body: int, pattern: re.Pattern) -> tuple[int, bool] | None:
    """``(where, text)``: the first match of ``pattern`` in ``head`` from byte ``body`` on that is not in a comment,
    a script, ... (:data:`_HIDDEN`), and whether text (not only tags, comments, ...) stands before it; ``None``:
    no such match."""
    at = scanned = body
    text, left = False, MOST_HIDDEN
    while True:
        found = pattern.search(head, at)
        if found is None:
            return None
        while scanned <= found.start():  # (what hides markup, from where the last look stopped to the match)
            hidden = _HIDDEN.search(head, scanned, found.start())
            gap_end = hidden.start() if hidden else found.start()
            text = text or _TEXT.search(head[scanned:gap_end]) is not None
            if hidden is None:
                scanned = found.start() + 1
                break
            scanned, left = _hidden_end(head, hidden), left - 1
            if left < 0:  # (a page of comments, scripts, ... each holding a "<main>": no landmark told)
                return None
        if scanned <= found.start() + 1 and _HIDDEN.match(head, found.start()) is None:
            return found.start(), text
        at = max(scanned, found.start() + 1)


def _hidden_end(head: bytes, hidden: re.Match) -> int:
    """The byte after what ``hidden`` (a match of :data:`_HIDDEN`) opens: its end, or ``head``'s."""
    name = hidden.group(1)
    if name is None:
        close = _HIDDEN_ENDS[hidden.group(0)].search(head, hidden.end())
    else:
        close = re.compile(rb"</" + name + rb"\s*>", re.IGNORECASE).search(head, hidden.end())
    return close.end() if close else len(head)


def _landmark(head: bytes, body: int, start: int) -> MainStart:
    """The :class:`MainStart` of the landmark whose start tag is at byte ``start`` of ``head``."""
    end = _TAG_END.search(head, start)
    tag = head[start : end.end() if end else len(head)]
    name = tag[1:].split(None, 1)[0].split(b">")[0].split(b"/")[0].lower()
    element = "<main>" if name == b"main" else "<article>" if name == b"article" else 'role="main"'
    ident = _ID.search(tag)
    plain = next((part for part in ident.groups() if part is not None), b"").decode("ascii", "replace") if ident else ""
    selector = f"#{plain}" if _PLAIN_ID.fullmatch(plain) else {"<main>": "main", "<article>": "article"}.get(
        element, '[role="main"]')
    return MainStart(body, start, selector, element)


MOST_HIDDEN = 2048
"""Most comments, scripts, ... (:data:`_HIDDEN`) a scan for a landmark passes (a Python step each: 512 KiB of
``<!--<main>-->`` took 43 ms); a landmark after more keeps the text view's preview."""
MOST_PARSED_TAGS = 6144
"""Most tags (``<``) of a page's start parsed to tell its landmark (:func:`main_text`): libxml2 takes about 2 µs a
tag; a landmark after more keeps the text view's preview."""
_MARK = "data-scratchfs-landmark"
_NAME = re.compile(rb"<[A-Za-z][\w-]*")


def main_text(head: bytes, landmark: MainStart, most: int, chars: int) -> str | None:
    """The start of the text ``select=landmark.selector`` gives of the page whose first bytes are ``head`` -- its first
    match's, as the HTML worker renders it, about its first ``chars`` characters (its text's end may be cut short) --
    when that first match is the landmark :func:`main_start` found (told by a mark put in its start tag: not one in
    an attribute's value, nor after an earlier element of the same id or selector); else ``None``, also when more
    than :data:`MOST_PARSED_TAGS` tags stand before the landmark. The page is cut ``most`` bytes after the landmark's
    start, parsed and the landmark's element, cut after its first ``chars`` characters, rendered (inscriptis) as
    the worker renders it, in this process. Never raises (but MemoryError): a library's error, a page too deep, is
    ``None``."""
    from scratchfs.engine.structure import html_worker  # (lxml, inscriptis: imported at the first HTML spill)
    from scratchfs.engine.structure.html_render import element_text, parser_config

    named = _NAME.match(head, landmark.start)
    if named is None or head.count(b"<", 0, landmark.start + most) > MOST_PARSED_TAGS:
        return None
    page = head[: named.end()] + f" {_MARK}".encode() + head[named.end() : landmark.start + most]
    try:
        tree = html_worker.parse_page(html_worker.page_text(page))
        found = html_worker.compile_selector(landmark.selector)(tree)
        if not found or found[0].get(_MARK) is None:
            return None
        del found[0].attrib[_MARK]
        _cut_after(found[0], chars)
        return element_text(found[0], parser_config())
    except MemoryError:
        raise
    except Exception:  # (a page too deep for this thread, a library's error on odd input: no main preview)
        return None


def main_open_past(head: bytes, landmark: MainStart, end: int, most: int) -> bool | None:
    """Whether the text view of the page whose first bytes are ``head`` as if its body held its main content alone,
    rendered from ``head`` cut at byte ``end`` (past the landmark's start), is the start of what ``select=`` of the
    landmark gives -- told by one parse of the page cut there, no rendering: ``True`` when the select's first match
    is the landmark :func:`main_start` found (a mark in its start tag, as :func:`main_text` tells it) and it is still
    open at the cut (nothing of the page follows it there: the view's text is all its own), rendered as the view
    renders it (not in a ``<pre>``, nor a table's row or cell or a list item, which a select renders in their
    context); ``False`` when it is the landmark but ends before the cut or stands in such a context (its own text,
    :func:`main_text`, bounds the view's); ``None`` when it is not, or is a form control or embedded content (a
    ``<form role="main">``, whose select shows its start tag before its text), or more than
    :data:`MOST_PARSED_TAGS` tags stand in ``head`` before ``landmark.start + most`` (as :func:`main_text` counts
    them), or a library fails on the page. Never raises (but MemoryError)."""
    from scratchfs.engine.structure import html_worker  # (lxml, inscriptis: imported at the first HTML spill)

    named = _NAME.match(head, landmark.start)
    if named is None or head.count(b"<", 0, landmark.start + most) > MOST_PARSED_TAGS:
        return None
    page = head[: named.end()] + f" {_MARK}".encode() + head[named.end() : max(end, named.end())]
    try:
        tree = html_worker.parse_page(html_worker.page_text(page))
        found = html_worker.compile_selector(landmark.selector)(tree)
        if not found or found[0].get(_MARK) is None or found[0].tag in CONTROL_TAGS or found[0].tag in EMBEDDED_TAGS:
            return None  # (a form control's select shows its start tag first: the preview would not be its start)
        element = found[0]
        if element.tag in _CONTEXTS or next(element.iterancestors("pre", "listing", "xmp", "plaintext"), None) is not \
                None:
            return False
        while element is not None and element.getparent() is not None:  # (anything after it, up to the root)
            if (element.tail or "").strip() or element.getnext() is not None:
                return False
            element = element.getparent()
        return True
    except MemoryError:
        raise
    except Exception:  # (a page too deep for this thread, a library's error on odd input: no main preview)
        return None


_CONTEXTS = ("thead", "tbody", "tfoot", "tr", "td", "th", "li")
"""Elements a select renders in their context (:func:`~scratchfs.engine.structure.html_render.element_text`)."""


def _cut_after(element: Any, chars: int) -> None:
    """Take out of ``element`` what follows its first ``chars`` characters of text (its descendants' texts and
    tails, in document order): the element after them, and what follows it in each of its ancestors up to
    ``element``."""
    held = len(element.text or "")
    for inner in element.iterdescendants():
        if held >= chars:
            break
        held += len(inner.text or "") + len(inner.tail or "")
    else:
        return
    node = inner
    while node is not element:
        parent = node.getparent()
        for later in list(node.itersiblings()):
            parent.remove(later)
        node = parent
    inner.getparent().remove(inner)
