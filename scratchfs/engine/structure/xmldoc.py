"""XML documents: the elements a CSS selector matches, each its tag, line, attributes and text, paged with cursors.

The document is parsed and selected in the structure worker the HTML reads use
(:mod:`scratchfs.engine.structure.html_worker`, operation ``"xml"``: killed at the read's time limit, its address
space capped), by :func:`~scratchfs.engine.structure.xml_select.select_items`: no entity expanded, no DTD, file or
URL read, libxml2's depth limit kept (256 levels). Documents of at most :data:`MAX_XML_BYTES` are parsed; each page
parses the document again (a 28 MiB JUnit report of 500,000 test cases: 0.8 s to parse, 0.2 s to select ``failure``
by local name, 1.6 s a page in all with its read and its trip to the worker; a 14 KiB one, 2-4 ms once a worker
is up, 0.35 s with its start).
"""

from __future__ import annotations

import time
from typing import Any

from scratchfs.engine.structure.paging import (
    ContentSource,
    CursorKey,
    ItemPage,
    in_worker,
    read_whole,
)
from scratchfs.engine.structure.selector_pages import selector_page, selector_start
from scratchfs.foundation import limits
from scratchfs.foundation.errors import BadSelector, InvalidArgument

__all__ = ["MAX_XML_BYTES", "MalformedXml", "xml_select_page"]

MAX_XML_BYTES = 32 * 1024 * 1024
"""Largest XML document (bytes) a selector read parses."""


class MalformedXml(InvalidArgument):
    """An XML document that is not well-formed (libxml2's first error, ``reason``) or nested deeper than libxml2's
    256 levels (``deep``), at ``line`` and ``column`` (from 1; 0: not known), for the reads layer to name the line
    read there as a call with the handle."""

    def __init__(self, reason: str, line: int = 0, column: int = 0, deep: bool = False) -> None:
        where = f" at line {line:,}" + (f", column {column:,}" if column else "") if line else ""
        said = ("is nested more than 256 elements deep, past the XML parser's limit" if deep else
                f"is not well-formed XML{where}: {reason}")
        super().__init__(f"the document {said}")
        self.reason, self.line, self.column, self.deep = reason, line, column, deep

    def __reduce__(self):
        return (type(self), (self.reason, self.line, self.column, self.deep))


def _worker() -> Any:
    """:mod:`scratchfs.engine.structure.html_worker`, imported at the first read (it imports lxml and cssselect)."""
    from scratchfs.engine.structure import html_worker

    return html_worker


def _selected(source: ContentSource, selector: str, page: tuple[int, int, int, int], deadline: float
              ) -> tuple[int, list[dict], int | None]:
    """``(matches, the page's items, the line a document cut short ends at or None)`` of a select run in the worker
    (``page``: index, characters into it, budget, most elements). Raises MalformedXml, BadSelector,
    InvalidArgument, StructureTimeout, StoreBusy."""
    data = read_whole(source, MAX_XML_BYTES, "the XML selector read")
    answer = in_worker(lambda: _worker().run_html("xml", (data, selector, *page), deadline), deadline,
                       "the CSS selector", "a more specific selector (child combinators, attributes: "
                       "testcase > failure, entry[id])")
    if answer[0] == "malformed":
        raise MalformedXml(answer[1], answer[2], answer[3])
    if answer[0] == "deep":
        raise MalformedXml("too deep", answer[1] or 0, 0, deep=True)
    if answer[0] == "selector":
        raise BadSelector(answer[1], selector[:80])
    if answer[0] == "invalid":
        raise InvalidArgument(answer[1])
    return answer[1], answer[2], (answer[3] if len(answer) > 3 else None)


def xml_select_page(source: ContentSource, selector: str, *, cursor: str | None = None, budget_bytes: int = 8192,
                    max_elements: int = 100, timeout: float = limits.PATTERN_TIMEOUT,
                    entry: str | None = None) -> ItemPage:
    """The elements of an XML document matching a CSS selector, in document order, one page at a time.

    Args:
        source: the XML content.
        selector: a CSS 3 selector (``failure``, ``testcase[name="t"] > failure``, ``entry > title``,
            ``atom|entry``): a name without a prefix matches that local name in any namespace.
        cursor: ``page.cursor`` of the previous page of the same selector.
        budget_bytes: most UTF-8 bytes of the page's compact JSON (256 to 65536).
        max_elements: most elements per page.
        timeout: seconds (wall clock) the parse and the selection may take, in a worker killed at the limit.
        entry: the entry's identity its cursors are bound to (with the selector and the size).

    Returns:
        an :class:`ItemPage` named ``elements``, each ``{"tag", "line", "attrs", "text"}``
        (:func:`~scratchfs.engine.structure.xml_select.element_item`: ``attrs`` and ``text`` left out when empty);
        ``extra["matches"]`` the number of matching elements; an element larger than the page comes as ``part``
        pieces of its compact JSON. A document cut short (its first error at its very end: a tool's output capped
        mid-document) is read up to the cut, ``extra["note"]`` saying so and each match the cut may fall in marked
        ``"cut": true``.

    Raises:
        BadSelector (an InvalidArgument): a selector that does not parse or run (a ``prefix|name`` whose prefix the
            root does not declare). MalformedXml (an InvalidArgument): the document is not well-formed or nested past
            256 levels. InvalidArgument: a bad cursor or budget, a document over :data:`MAX_XML_BYTES`, a worker that
            died. StructureTimeout: the read ran past ``timeout``. StoreBusy: no worker came free; nothing was run.
    """
    key = CursorKey(f"xml-select\0{selector}", source.size, entry)
    budget, max_elements, index, chars = selector_start(selector, cursor, budget_bytes, max_elements, key)
    from scratchfs.engine.structure.xml_select import xml_selector_problem  # (lxml, cssselect: at the first read)

    problem = xml_selector_problem(selector)  # (told here, without a worker)
    deadline = time.monotonic() + timeout
    if problem is not None:
        raise BadSelector(problem, selector[:80])
    matches, found, cut = _selected(source, selector, (index, chars, budget, max_elements), deadline)
    extra = {} if cut is None else {
        "note": (f"the document is cut short at line {cut:,} (its root never closes): these are its elements "
                 "before the cut; one marked cut may hold only what came before it")}
    return selector_page(found, matches, (index, chars), cursor, (budget, max_elements), key, extra)
