"""Where an HTML page's main content starts, as the page marks it with the landmarks of the HTML spec: a ``<main>``
element or an element of ``role="main"`` (WAI-ARIA's main landmark), else its first ``<article>`` -- for a stub's
preview, which shows the start of that content rather than the navigation before it.

Node.js's API pages (headless Chromium's dump) put a sidebar of every module (``role="navigation"``, about 500 bytes
of text) and a table of contents before their ``role="main"`` content: every page's preview was the same module list
(modeltask12). Found by a scan of the page's first bytes (regular expressions, no parse), after its ``<body>`` tag and
only where text (not only tags, scripts and styles) stands before the landmark. Sites' own names (``id="content"``)
are not read: a landmark is the page's own word for its main content."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MainStart", "main_start"]

_BODY = re.compile(rb"<body(?:\s[^>]*)?>", re.IGNORECASE)
_LANDMARK = re.compile(rb"<main[\s>]|<[A-Za-z][\w-]*\s[^>]*?\brole\s*=\s*[\"']?main\b[^>]*>", re.IGNORECASE)
_ARTICLE = re.compile(rb"<article[\s>]", re.IGNORECASE)
_TAG_END = re.compile(rb">")
_ID = re.compile(rb"\sid\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.IGNORECASE)
_PLAIN_ID = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*")
_HIDDEN = re.compile(rb"<(script|style|template|noscript)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_TEXT = re.compile(rb">[^<]*[^\s<][^<]*<")


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
    nothing shown before it)."""
    body = _BODY.search(head)
    if body is None:
        return None
    found = _LANDMARK.search(head, body.end()) or _ARTICLE.search(head, body.end())
    if found is None or not _TEXT.search(_HIDDEN.sub(b"", head[body.end() - 1 : found.start() + 1])):
        return None
    end = _TAG_END.search(head, found.start())
    tag = head[found.start() : end.end() if end else len(head)]
    name = tag[1:].split(None, 1)[0].rstrip(b">").lower()
    element = "<main>" if name == b"main" else "<article>" if name == b"article" else 'role="main"'
    ident = _ID.search(tag)
    plain = next((part for part in ident.groups() if part is not None), b"").decode("ascii", "replace") if ident else ""
    selector = f"#{plain}" if _PLAIN_ID.fullmatch(plain) else {"<main>": "main", "<article>": "article"}.get(
        element, '[role="main"]')
    return MainStart(body.end(), found.start(), selector, element)
