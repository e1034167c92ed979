"""HTML: a readable text view paged by byte offset, and CSS-selector reads returning the text of matching elements.

Libraries: ``lxml`` parses (libxml2's HTML parser: forgiving, C speed), ``inscriptis`` renders the text as a browser
lays it out -- block elements on their own lines, lists with bullets, tables as aligned columns, ``<script>`` and
``<style>`` dropped -- and ``cssselect`` (the selector engine of Scrapy/parsel) turns CSS selectors into XPath over the
same lxml tree, so a selected element's text is rendered by the same renderer as the page. Measured on the 512 KiB
Rust-book fixture: inscriptis 0.1 s (selectolax's ``text()`` takes 6 ms but keeps no layout: every inline element on
its own line, hundreds of blank lines), html2text writes Markdown and is slower still. The text view of a content is
kept in a small cache by the caller's ``cache_key`` (a blob token), so paging does not render it again.

Memory: documents of at most :data:`MAX_HTML_BYTES` are parsed (lxml's tree takes several times the text).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import lxml.etree
import lxml.html
from cssselect import SelectorError
from inscriptis import Inscriptis, get_text
from inscriptis.model.config import ParserConfig

from scratchfs.engine.caches import LRU
from scratchfs.engine.structure.paging import (
    ContentSource,
    ItemPage,
    TextPage,
    check_budget,
    decode_cursor,
    encode_cursor,
    fill_items,
    fill_text,
    read_whole,
)
from scratchfs.foundation import limits
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["MAX_HTML_BYTES", "MAX_SELECTOR_CHARS", "html_text", "select_page", "text_page"]

MAX_HTML_BYTES = 32 * 1024 * 1024
"""Largest HTML document (bytes) parsed for a text view or a selector read."""
MAX_SELECTOR_CHARS = limits.MAX_SELECTOR_CHARS
"""Longest CSS selector, in characters."""

_VIEW_CACHE_BYTES = 64 * 1024 * 1024
_CACHE: LRU[str, bytes] = LRU(8, max_weight=_VIEW_CACHE_BYTES, weigh=len, max_item_weight=_VIEW_CACHE_BYTES)


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def html_text(source: ContentSource, cache_key: str | None = None) -> bytes:
    """The text view of an HTML content as UTF-8 bytes: ``inscriptis.get_text`` of its text (invalid UTF-8 read as
    U+FFFD). Raises InvalidArgument for a document over :data:`MAX_HTML_BYTES`."""
    key = None if cache_key is None else f"html:{cache_key}"
    found = None if key is None else _CACHE.get(key)
    if found is not None:
        return found
    text = _decode(read_whole(source, MAX_HTML_BYTES, "the HTML text view"))
    view = get_text(text).encode("utf-8") if text.strip() else b""
    if key is not None:
        _CACHE.put(key, view)
    return view


def text_page(source: ContentSource, offset: int = 0, *, cursor: str | None = None, budget_bytes: int = 8192,
              cache_key: str | None = None) -> TextPage:
    """One page of the text view of an HTML content, from byte ``offset`` of the view (or from ``cursor``).

    Returns:
        a :class:`TextPage` (``offset``, ``text``, ``cursor``, ``more``, ``extra["size"]``: the view's size in
        bytes) whose compact JSON is at most ``budget_bytes``; pages are cut on UTF-8 character boundaries.

    Raises:
        InvalidArgument: an offset outside the view, a bad cursor or budget, a document over :data:`MAX_HTML_BYTES`.
    """
    budget = check_budget(budget_bytes)
    view = html_text(source, cache_key)
    return page_of_text(view, source.size, offset, cursor, budget)


def page_of_text(view: bytes, size: int, offset: int, cursor: str | None, budget: int) -> TextPage:
    """A page of a rendered ``view`` (bytes) of a content of ``size`` bytes, from ``offset`` or ``cursor``."""
    if cursor is not None:
        (offset,) = decode_cursor(cursor, 1, size)
    offset = check_int(offset, "offset (a byte offset into the text view)", 0, len(view))
    while offset < len(view) and view[offset] & 0xC0 == 0x80:
        offset += 1  # an offset inside a character starts at the next one
    page, end = fill_text(view, offset, budget, TextPage(offset, "", None, {"size": len(view)}))
    page.cursor = encode_cursor((end,), size) if end < len(view) else None
    return page


def _tree(source: ContentSource) -> Any:
    text = _decode(read_whole(source, MAX_HTML_BYTES, "the HTML selector read"))
    if not text.strip():
        return None
    try:
        return lxml.html.document_fromstring(text)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise InvalidArgument(f"the HTML does not parse: {exc}") from None


def select_page(source: ContentSource, selector: str, *, cursor: str | None = None, budget_bytes: int = 8192,
                max_elements: int = 100) -> ItemPage:
    """The text of the elements matching a CSS selector, in document order, one page at a time.

    Args:
        source: the HTML content.
        selector: a CSS 3 selector (``h2``, ``table.prices td``, ``#main > p:nth-of-type(2)``).
        cursor: ``page.cursor`` of the previous page of the same selector.
        budget_bytes: most UTF-8 bytes of the page's compact JSON (256 to 65536).
        max_elements: most elements per page.

    Returns:
        an :class:`ItemPage` named ``elements``: each the element's text as inscriptis renders it (stripped; its
        text content when inscriptis renders none, as for ``<title>``: :func:`element_text`);
        ``extra["matches"]`` the number of matching elements; an element text larger than the page comes as
        ``part`` pieces.

    Raises:
        InvalidArgument: a selector cssselect does not parse (its message), a bad cursor or budget, a document over
            :data:`MAX_HTML_BYTES`.
    """
    budget = check_budget(budget_bytes)
    if not isinstance(selector, str) or not selector.strip() or len(selector) > MAX_SELECTOR_CHARS:
        raise InvalidArgument(f"select must be a CSS selector of 1 to {MAX_SELECTOR_CHARS} characters")
    max_elements = check_int(max_elements, "max_elements", 1)
    index, chars = decode_cursor(cursor, 2, source.size) if cursor is not None else (0, 0)
    tree = _tree(source)
    try:
        found = tree.cssselect(selector) if tree is not None else []
    except (SelectorError, lxml.etree.XPathError) as exc:
        raise InvalidArgument(f"CSS selector {selector[:80]!r} does not parse: {exc}") from None
    config = ParserConfig()

    def items() -> Iterator[tuple[int, Any, bool]]:
        for number in range(index, len(found)):
            yield number, element_text(found[number], config), True

    page = ItemPage("elements", index + 1, extra={"matches": len(found)})
    return fill_items(page, items(), chars, budget, max_elements,
                      lambda number, skip: encode_cursor((number, skip), source.size))


def element_text(element: Any, config: ParserConfig | None = None) -> str:
    """An element's text as inscriptis renders it, stripped of surrounding blank space; when inscriptis renders
    nothing (it drops ``<title>``, ``<script>``, ``<style>`` and other head elements), the element's text content
    (lxml ``text_content()``, comments left out), stripped."""
    text = Inscriptis(element, config or ParserConfig()).get_text().strip()
    return text or element.text_content().strip()
