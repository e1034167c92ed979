"""HTML: a readable text view paged by byte offset, and CSS-selector reads returning the text of matching elements.

Libraries: ``lxml`` parses (libxml2's HTML parser: forgiving, C speed), ``inscriptis`` renders the text as a browser
lays it out -- block elements on their own lines, lists with bullets, ``<script>`` and ``<style>`` dropped; but tables
one row a line, cells between `` | ``, not padded to aligned columns (a layout table's padding made ``pydoc``'s pages 7
to 20 times their text: :func:`~scratchfs.engine.structure.html_render.parser_config`; a row with a cell of several
lines or holding a table cell by cell on lines of its own, so a nested table is told from the row around it), every
Unicode space a space (a search for a no-break space seeks one: :func:`view_spaces`) -- and ``cssselect`` (the
selector engine of Scrapy/parsel) turns CSS selectors into XPath over the same lxml tree, so a selected element's text
is rendered by the same renderer as the page. Measured on the 512 KiB Rust-book fixture: inscriptis 0.1 s (selectolax's
``text()`` takes 6 ms but keeps no layout: every inline element on its own line, hundreds of blank lines), html2text
writes Markdown and is slower still. The text view of a content is kept in a small cache by the caller's ``cache_key``
(a blob token), so paging does not render it again; so are the element texts a select run rendered past its page, so
that its next pages do not parse the page again.

Time and memory: documents of at most :data:`MAX_HTML_BYTES` are parsed (lxml's tree takes several times the text).
The parse, the selection and the rendering run in a worker process killed at the read's time limit (the store's
``pattern_timeout``; :mod:`scratchfs.engine.structure.html_worker`): a selector that runs away
(``div:nth-child(2n) span``, quadratic in lxml's XPath) raises ``StructureTimeout``. A selector
that does not parse is refused here, without a worker. The text view runs no program of the caller's and takes
time linear in the page (inscriptis: 0.13-0.15 s of CPU a MiB on the Rust-book fixture, 0.54-0.55 s on a page of
nested ``div``s; ``python bench/structure_workers.py``), so it is given :data:`VIEW_SECONDS_PER_MIB` beyond the
time limit for each MiB of the page: a 32 MiB page is not refused on a loaded host for being large.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from scratchfs.engine.caches import LRU
from scratchfs.engine.structure.html_codec import view_spaces
from scratchfs.engine.structure.paging import (
    ContentSource,
    CursorKey,
    ItemPage,
    TextPage,
    check_budget,
    decode_cursor,
    encode_cursor,
    fill_text,
    in_worker,
    read_whole,
)
from scratchfs.engine.structure.selector_pages import selector_page, selector_start
from scratchfs.foundation import limits
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import BadCursor, BadSelector, InvalidArgument

__all__ = ["MAX_HTML_BYTES", "MAX_SELECTOR_CHARS", "SELECT_SECONDS_PER_MIB", "VIEW_SECONDS_PER_MIB", "html_text",
           "select_page", "text_page", "view_spaces"]


def _worker() -> Any:
    """:mod:`scratchfs.engine.structure.html_worker`, imported at the first HTML read, not with this module: it
    imports ``lxml``, ``cssselect`` and ``inscriptis``, which every process that reads no HTML (a CLI command, an MCP
    server's start) paid for at its start (``tests/test_start_imports.py``)."""
    from scratchfs.engine.structure import html_worker

    return html_worker


MAX_HTML_BYTES = 32 * 1024 * 1024
"""Largest HTML document (bytes) parsed for a text view or a selector read."""
MAX_SELECTOR_CHARS = limits.MAX_SELECTOR_CHARS
"""Longest CSS selector, in characters."""

VIEW_SECONDS_PER_MIB = 1.0
"""Seconds the text view is given beyond the time limit for each MiB of the page (about twice inscriptis's slowest
measured rate, 0.55 s of CPU a MiB of nested ``div``s, for a host under load)."""

SELECT_SECONDS_PER_MIB = 1.0
"""Seconds a CSS select is given beyond the time limit for each MiB of the page: the element it matches may hold the
whole page, rendered as the text view renders it (``select="body"`` of a 4.6 MiB page took 3.4-5 s, at the 5 s limit:
past some 5 MiB, no select of a page's main element could answer); a runaway selector is still stopped, this much
later."""

_VIEW_CACHE_BYTES = 64 * 1024 * 1024
_CACHE: LRU[str, bytes] = LRU(8, max_weight=_VIEW_CACHE_BYTES, weigh=len, max_item_weight=_VIEW_CACHE_BYTES)


def html_text(source: ContentSource, cache_key: str | None = None,
              timeout: float = limits.PATTERN_TIMEOUT) -> bytes:
    """The text view of an HTML content as UTF-8 bytes: ``inscriptis.get_text`` of its text, tables unpadded
    (:func:`~scratchfs.engine.structure.html_render.parser_config`; decoded as a browser
    decodes it: :func:`~scratchfs.engine.structure.html_worker.page_text`), rendered in a worker process killed
    after ``timeout`` seconds plus :data:`VIEW_SECONDS_PER_MIB` a MiB of the page (wall clock;
    :mod:`scratchfs.engine.structure.html_worker`). Raises InvalidArgument for a document over
    :data:`MAX_HTML_BYTES`, a worker that died or a page nested too deeply to parse or render whole (never a cut
    view), StructureTimeout past ``timeout``, StoreBusy when no worker could be had (all busy until the limit, or
    none could be started)."""
    key = None if cache_key is None else f"html:{cache_key}"
    found = None if key is None else _CACHE.get(key)
    if found is not None:
        return found
    _worker()  # (its first import, before the clock of the time limit starts)
    start = time.monotonic()
    data = read_whole(source, MAX_HTML_BYTES, "the HTML text view")
    deadline = start + timeout + VIEW_SECONDS_PER_MIB * len(data) / (1024 * 1024)
    view = _in_worker("view", (data,), deadline, "the HTML text view", "a range, lines or pattern read of the page")
    if key is not None:
        _CACHE.put(key, view)
    return view


def _in_worker(operation: str, args: tuple, deadline: float, what: str, advice: str) -> Any:
    """:func:`~scratchfs.engine.structure.html_worker.run_html`'s answer. Raises StructureTimeout (past
    ``deadline``), InvalidArgument (the worker died, the page too deep, a library's error on the page: its one-line
    message; BadSelector, one: on the selector), StoreBusy (every worker stayed busy until ``deadline``, or none
    could be started: out of descriptors or memory; the read was not run)."""
    answer = in_worker(lambda: _worker().run_html(operation, args, deadline), deadline, what, advice)
    if isinstance(answer, tuple) and answer[0] == "deep":
        raise InvalidArgument(f"the page is nested too deeply for {what} (elements more than 2,048 levels deep, or "
                              "deeper than the renderer's recursion goes); read it by range, lines or match instead")
    if isinstance(answer, tuple) and answer[0] == "invalid":
        raise InvalidArgument(answer[1])
    if isinstance(answer, tuple) and answer[0] == "selector":  # (a select's: its selector is args[1])
        raise BadSelector(answer[1], args[1][:80])
    return answer


def text_page(source: ContentSource, offset: int = 0, *, cursor: str | None = None, budget_bytes: int = 8192,
              cache_key: str | None = None, timeout: float = limits.PATTERN_TIMEOUT,
              entry: str | None = None) -> TextPage:
    """One page of the text view of an HTML content, from byte ``offset`` of the view (or from ``cursor``, bound to
    ``entry``, the entry's identity: :class:`~scratchfs.engine.structure.paging.CursorKey`).

    Returns:
        a :class:`TextPage` (``offset``, ``text``, ``cursor``, ``more``, ``extra["size"]``: the view's size in
        bytes) whose compact JSON is at most ``budget_bytes``; pages are cut on UTF-8 character boundaries.

    Raises:
        InvalidArgument: an offset outside the view, a bad cursor (of another entry or read, edited, or not at a
            character start of the view) or budget, a document over :data:`MAX_HTML_BYTES`.
        StructureTimeout: rendering the view took longer than ``timeout`` seconds (:func:`html_text`).
        StoreBusy: every worker process stayed busy until the time limit, or none could be started (out of
            descriptors or memory); nothing was run: retry.
    """
    budget = check_budget(budget_bytes)
    view = html_text(source, cache_key, timeout)
    return page_of_text(view, CursorKey("html-text\x000", source.size, entry), offset, cursor, budget)  # (no start)


def page_of_text(view: bytes, key: CursorKey, offset: int, cursor: str | None, budget: int) -> TextPage:
    """A page of a rendered ``view`` (bytes) from ``offset`` or ``cursor`` (bound to ``key``). Raises
    InvalidArgument: a bad offset, or a cursor not made with ``key`` or not at a character start of the view."""
    if cursor is not None:
        (offset,) = decode_cursor(cursor, 1, key)
        if offset >= len(view) or view[offset] & 0xC0 == 0x80:
            raise BadCursor(f"cursor {cursor[:40]!r} is not at a character of this text view: start the read "
                            "again without a cursor")
    offset = check_int(offset, "offset (a byte offset into the text view)", 0, len(view))
    while offset < len(view) and view[offset] & 0xC0 == 0x80:
        offset += 1  # an offset inside a character starts at the next one
    page, end = fill_text(view, offset, budget, TextPage(offset, "", None, {"size": len(view)}))
    page.cursor = encode_cursor((end,), key) if end < len(view) else None
    return page


@dataclass(frozen=True, slots=True)
class _Selected:
    """The whole texts of the elements ``start`` on (0-based) that one select run rendered, of its ``matches``."""

    start: int
    texts: tuple[str, ...]
    matches: int

    def text_of(self, number: int) -> str | None:
        at = number - self.start
        return self.texts[at] if 0 <= at < len(self.texts) else None


_AHEAD_CHARS = 4 * 1024 * 1024
"""Most characters of element texts a select run renders past its page, for the next pages."""
_SELECTED: LRU[str, _Selected] = LRU(16, max_weight=16 * _AHEAD_CHARS, weigh=lambda run: sum(map(len, run.texts)),
                                     max_item_weight=16 * _AHEAD_CHARS)
"""Each select read's last run (by blob token and selector): its next pages are cut from it, the page is not parsed
again (:func:`~scratchfs.engine.structure.html_worker.cut_page`)."""


def _select(source: ContentSource, selector: str, page: tuple[int, int, int, int], deadline: float,
            cache_key: str | None) -> tuple[int, list[str], str | None]:
    """The matches, the page's texts and, when nothing matched, the worker's hint (what the page lacks of the
    selector and holds like it) of a select run in a worker (``page``: index, characters into it, budget,
    most elements); the whole texts it rendered -- the page's and those after it, up to :data:`_AHEAD_CHARS`
    characters -- are kept under ``cache_key`` and the selector (:data:`_SELECTED`)."""
    data = read_whole(source, MAX_HTML_BYTES, "the HTML selector read")
    if not data.strip():  # (a page blank but for Unicode spaces is told blank in the worker, as its text is decoded)
        return 0, [], None
    ahead = (_AHEAD_CHARS, max(0.0, deadline - time.monotonic()) / 2)
    _, matches, texts, whole, hint = _in_worker("select", (data, selector, *page, ahead), deadline, "the CSS selector",
                                          "a more specific selector (ids, classes, child combinators)")
    if cache_key is not None and whole:
        _SELECTED.put(f"select:{cache_key}:{selector}", _Selected(page[0], whole, matches))
    return matches, texts, hint


def select_page(source: ContentSource, selector: str, *, cursor: str | None = None, budget_bytes: int = 8192,
                max_elements: int = 100, timeout: float = limits.PATTERN_TIMEOUT,
                entry: str | None = None, cache_key: str | None = None) -> ItemPage:
    """The text of the elements matching a CSS selector, in document order, one page at a time.

    Args:
        source: the HTML content.
        selector: a CSS 3 selector (``h2``, ``table.prices td``, ``#main > p:nth-of-type(2)``).
        cursor: ``page.cursor`` of the previous page of the same selector.
        budget_bytes: most UTF-8 bytes of the page's compact JSON (256 to 65536).
        max_elements: most elements per page.
        timeout: seconds (wall clock) the parse, the selection and the rendering of the page's elements may take,
            in a worker process killed at the limit (:mod:`scratchfs.engine.structure.html_worker`), plus
            :data:`SELECT_SECONDS_PER_MIB` a MiB of the page.
        entry: the entry's identity its cursors are bound to (:class:`~scratchfs.engine.structure.paging.CursorKey`;
            with the selector and the size): a cursor of another entry or read is refused.
        cache_key: names the content (a blob token): the texts a run rendered (:func:`_select`) are kept under it,
            and a page with a ``cursor`` inside them is cut from them without a run.

    Returns:
        an :class:`ItemPage` named ``elements``: each the element's text as inscriptis renders it (stripped; its
        text content when inscriptis renders none, as for ``<title>``:
        :func:`~scratchfs.engine.structure.html_render.element_text`; a link, ``<a href>``,
        is ``[text](href)``); ``extra["matches"]`` the number of matching
        elements; an element text larger than the page comes as ``part`` pieces; when none matched,
        ``extra["note"]`` says which of the selector's ids, classes and names the page lacks and those it holds
        like them (:func:`~scratchfs.engine.structure.html_misses.miss_hint`).

    Raises:
        BadSelector (an InvalidArgument): a selector that cssselect does not parse or lxml cannot run (one line
            naming the selector: e.g. an attribute value holding a control character, which no XPath literal holds; a
            ``:contains()`` text may hold any character). InvalidArgument: an error a library raised on the page
            (one line), a bad cursor (edited, of another entry or read, or past the last match) or budget, a
            document over :data:`MAX_HTML_BYTES`, a worker that died, a page nested too deeply to parse whole.
        StructureTimeout: the read ran past ``timeout``.
        StoreBusy: every worker process stayed busy until the time limit, or none could be started (out of
            descriptors or memory); nothing was run: retry.
    """
    key = CursorKey(f"select\0{selector}", source.size, entry)
    budget, max_elements, index, chars = selector_start(selector, cursor, budget_bytes, max_elements, key)
    problem = _worker().selector_problem(selector)  # a selector that does not compile is told here, without a worker
    deadline = time.monotonic() + timeout + SELECT_SECONDS_PER_MIB * source.size / (1024 * 1024)
    if problem is not None:
        raise BadSelector(problem, selector[:80])
    kept = None if cache_key is None or cursor is None else _SELECTED.get(f"select:{cache_key}:{selector}")
    texts = None if kept is None else _worker().cut_page(kept.text_of, index, chars, budget, max_elements, kept.matches)
    matches, hint = 0 if kept is None else kept.matches, None
    if texts is None:
        matches, texts, hint = _select(source, selector, (index, chars, budget, max_elements), deadline, cache_key)
    return selector_page(texts, matches, (index, chars), cursor, (budget, max_elements), key,
                         None if hint is None else {"note": hint}, texts=True)
