"""The structure reads of pages (:class:`~scratchfs.api.structured.StructureReads` has them): an HTML page's text
view, searched and read whole, and its elements a CSS selector matches; terminal output's rendered view; the members
of a tar or zip."""

from __future__ import annotations

import html
import json
import re
from typing import TYPE_CHECKING

from scratchfs.api.archive import members_page
from scratchfs.api.misfit import members_misfit, no_element, plain_view, select_misfit, text_misfit, view_misfit
from scratchfs.api.shape_said import cr_ends_said
from scratchfs.api.structure_entry import EntryReads, entry_identity
from scratchfs.api.table_reads import SNIFFED_NO_TABLE
from scratchfs.api.xml_reads import xml_select
from scratchfs.engine.search import Matcher, SearchResult, Sink
from scratchfs.engine.structure import (
    MAX_HTML_BYTES,
    BytesSource,
    ItemPage,
    ReaderSource,
    TextPage,
    check_page,
    html_text,
    select_page,
    text_page,
    view_page,
)
from scratchfs.engine.structure.terminal import PastTheView
from scratchfs.engine.structure.text_search import search_text
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import BadSelector, InvalidArgument, ScratchError
from scratchfs.foundation.text import utf8_partial_tail

if TYPE_CHECKING:
    from scratchfs.api.entries import OpenEntry


class PageReads(EntryReads):
    """The reads of pages, terminal views and archives of one scope's entries (see the module docstring)."""

    def text(self, handle: str, offset: int = 0, *, cursor: str | None = None, budget: int = 8192,
             raw_offset: int | None = None) -> TextPage:
        """A page of the text view (``view="text"``): the readable text of an HTML page, or terminal output rendered
        as a person sees it; ``offset`` is a byte offset into the view. ``raw_offset`` (terminal output only;
        ``offset`` is then ignored): the page starts at the rendered line holding this byte of the stored output --
        where a search found a match. Raises InvalidArgument (a content with no text view, a ``raw_offset`` that is
        no integer of at least 0, past the end or given for an HTML page), StructureTimeout (rendering an HTML page
        ran past ``pattern_timeout``), NotFound, CorruptBlob."""
        check_page(cursor, budget, budget_name="budget")
        if raw_offset is not None:
            checks.check_int(raw_offset, "raw_offset", 0)  # (before any read at it: a negative one reads no frame)

        def read(src: ReaderSource, blob: str, content_type: str | None) -> TextPage:
            if raw_offset is not None and cursor is None and content_type == "html":
                raise InvalidArgument(self.html_raw_offset(handle, src, blob, raw_offset))
            if content_type == "html":
                return text_page(src, offset, cursor=cursor, budget_bytes=budget, cache_key=blob,
                                 timeout=self.time_limit(), entry=entry_identity(handle, blob))
            # text of no escape: the view is the text itself (told on the first page: a cursor's passed, and its
            # first SAMPLE_BYTES are not read again each page)
            if cursor is None and plain_view(src.read, content_type, self.shape):
                raise InvalidArgument(view_misfit(handle, content_type, self.shape, self.line_bytes))
            if content_type in ("log", "text", None):
                try:
                    return view_page(src, offset, cursor=cursor, budget_bytes=budget, raw_offset=raw_offset,
                                     entry=entry_identity(handle, blob), cr_ends_lines=cr_ends_said(self.shape))
                except PastTheView as past:  # (the read of its end, as a call: the engine knows no handle)
                    raise InvalidArgument(Advice.of(f"{past.reason}: ", Call.of(
                        "read_handle", handle=handle, view="text", raw_offset=past.raw_at))) from None
            raise InvalidArgument(text_misfit(handle, content_type, self.line_bytes, self.shape))

        return self.over_entry(handle, read)

    def html_raw_offset(self, handle: str, src: ReaderSource, blob: str, raw_offset: int) -> Advice:
        """The refusal of ``raw_offset`` for an HTML page, whose text view is paged by offset into its text: the
        search of the view for the words of the page at that byte (its first text of at least 3 characters within
        4 KiB, up to a line end or a run of spaces, at most 60 characters), when the view holds them, else for the
        placeholder ``match="TEXT"``. Raises nothing of its own (a view that cannot be rendered names the
        placeholder)."""
        words = _words_at(src.read(raw_offset, 4096))
        try:
            found = words is not None and words.encode() in html_text(src, cache_key=blob, timeout=self.time_limit())
        except ScratchError:
            found = False
        which = f"at byte {raw_offset:,} of the page" if found else "you look for (in place of TEXT)"
        return Advice.of("raw_offset is for terminal output's text view; an HTML page's text view is paged by offset "
                         f"into its text, not into the page's bytes: search the view for the words {which}, ",
                         Call.of("read_handle", handle=handle, view="text", match=words if found else "TEXT"),
                         ", then read on from a match with view=\"text\", offset=<its offset>")

    def members(self, handle: str, *, cursor: str | None = None, budget: int = 8192) -> ItemPage:
        """A page of the members of a tar or zip (``view="members"``), each ``{name, offset, length, read}`` (its
        data's byte offset and length, the range call that reads it; a compressed zip member's ``compressed`` and
        ``size`` instead of ``read``), within ``budget`` bytes of JSON: :func:`~scratchfs.api.archive.members_page`.
        Raises InvalidArgument (no tar or zip, a cursor not of this read), NotFound, CorruptBlob."""
        return self.over_entry(handle, lambda src, blob, kind: members_page(
            src.read, src.size, handle, cursor, budget, entry_identity(handle, blob),
            lambda: members_misfit(handle, kind, self.shape, self.line_bytes)))

    def text_search(self, handle: str, view: str, matcher: Matcher, search: tuple[int, int, int, int],
                    sink_class: type[Sink] = Sink, opened: OpenEntry | None = None) -> tuple[SearchResult, int]:
        """``(the matches, the view's size)`` of ``matcher`` in the text view of an HTML page (``view="text"``),
        ``search`` = ``(offset, context, max_matches, cap)`` as :func:`~scratchfs.engine.search.search` takes them
        (and ``sink_class``: :class:`~scratchfs.engine.line_windows.LineSink` for windows of whole lines),
        over the view's bytes (:func:`~scratchfs.engine.structure.text_search.search_text`): offsets and lines are
        the view's. The view is rendered once and kept (:func:`~scratchfs.engine.structure.html_text`): a next search
        costs a search of its bytes. Raises InvalidArgument (``view`` not ``"text"``; an offset past the view's end;
        not an HTML page -- terminal output's view is searched over its stored bytes by
        :func:`~scratchfs.api.view_search.view_search`), PatternTimeout, PatternTooLong, StructureTimeout (rendering
        ran past ``pattern_timeout``), NotFound, CorruptBlob. ``opened``: the entry when the caller has it open
        (:func:`~scratchfs.api.view_search.view_search`, which opened it to learn its content type)."""
        if view != "text":
            raise InvalidArgument(f'view must be "text", not {json.dumps(view)[:40]}')

        def read(src: ReaderSource, blob: str, content_type: str | None) -> tuple[SearchResult, int]:
            if content_type in ("log", "text", None):  # (searched over its stored bytes: api.view_search)
                raise InvalidArgument("the text view of terminal output is searched over its stored bytes "
                                      "(scratchfs.api.view_search.view_search), not rendered here")
            if content_type != "html":
                raise InvalidArgument(text_misfit(handle, content_type, self.line_bytes, self.shape))
            text = html_text(src, cache_key=blob, timeout=self.time_limit())
            return search_text(text, matcher, *search, sink_class), len(text)

        return self.over_entry(handle, read, opened)

    def select(self, handle: str, selector: str, *, cursor: str | None = None, budget: int = 8192) -> ItemPage:
        """The text of the HTML elements a CSS ``selector`` matches (``elements``), in document order; of an XML
        document, each element's tag, line, attributes and text (:func:`~scratchfs.api.xml_reads.xml_select`).
        Raises InvalidArgument (BadSelector: a bad selector, with how to write one and the text view's call; JSON,
        JSON lines or a table, which an HTML parser would read as what they are not --
        :func:`~scratchfs.api.structure_entry.check_kind`; text, a log or binary data in which the selector finds no
        element, naming what it holds; XML that is not well-formed, naming the lines there), StructureTimeout (the
        read ran past ``pattern_timeout``), NotFound, CorruptBlob."""
        if not isinstance(selector, str) or not selector.strip():
            raise InvalidArgument(Advice.of("select is empty: a CSS selector names the elements to read (\"p\", "
                                            "\"h2\"); the whole page's readable text: ",
                                            Call.of("read_handle", handle=handle, view="text")))
        check_page(cursor, budget, budget_name="budget")

        def read(src: ReaderSource, blob: str, kind: str | None) -> ItemPage:
            self.check_fits(kind, "select", handle)
            if kind == "xml":
                return xml_select(handle, src, selector, cursor, budget, (self.time_limit(),
                                                                          entry_identity(handle, blob)))
            if kind in SNIFFED_NO_TABLE and cursor is None and no_element(src.read, src.size, MAX_HTML_BYTES):
                # (a select of no element gives its body, its whole text; told on the first page: a cursor's
                # passed, and up to MAX_HTML_BYTES are not scanned again each page)
                raise InvalidArgument(select_misfit(handle, kind, self.shape, self.line_bytes, selector))
            try:
                page = select_page(src, selector, cursor=cursor, budget_bytes=budget, timeout=self.time_limit(),
                                   entry=entry_identity(handle, blob), cache_key=blob)
            except BadSelector as exc:  # (a selector that does not compile: how to write one, and the text)
                raise BadSelector(Advice.of(f"{exc}; a CSS selector names the elements to read (\"h2\", \"table "
                                            "td\", \"a[href]\"); the whole page's readable text: ",
                                            Call.of("read_handle", handle=handle, view="text")), exc.selector) from None
            if kind in SNIFFED_NO_TABLE and cursor is None and not page.items and page.part is None and \
                    page.cursor is None:  # (text holding an HTML page's part is read; text with no element is not)
                raise InvalidArgument(select_misfit(handle, kind, self.shape, self.line_bytes, selector))
            return page

        return self.over_entry(handle, read)

    def text_view(self, handle: str, max_bytes: int = MAX_HTML_BYTES) -> tuple[str, bool]:
        """The whole text view of an HTML entry -- the text whose pages :meth:`text` returns (``inscriptis``), for a
        person to read what the model reads (the web inspector) -- and whether it was cut: an entry over ``max_bytes``
        bytes (1 to :data:`~scratchfs.engine.structure.MAX_HTML_BYTES`, over which the model's ``view="text"``
        refuses it) is rendered from its first ``max_bytes`` bytes, cut on a character boundary (True). Raises
        InvalidArgument (not an HTML entry; ``max_bytes`` out of range), StructureTimeout (rendering ran past
        ``pattern_timeout``), NotFound, CorruptBlob."""
        max_bytes = checks.check_int(max_bytes, "max_bytes", 1, MAX_HTML_BYTES)

        def read(src: ReaderSource, blob: str, content_type: str | None) -> tuple[str, bool]:
            if content_type != "html":
                raise InvalidArgument(f"the text view of a page is for HTML entries; this is {content_type}")
            if src.size <= max_bytes:
                return html_text(src, cache_key=blob, timeout=self.time_limit()).decode("utf-8"), False
            head = src.read(0, max_bytes)
            head = head[: len(head) - utf8_partial_tail(head)]  # no character cut in two
            return html_text(BytesSource(head), timeout=self.time_limit()).decode("utf-8"), True

        return self.over_entry(handle, read)


_TEXT_NODE = re.compile(r">([^<>]+)<")
_WORDS = re.compile(r"\S+(?: \S+)*")


def _words_at(data: bytes) -> str | None:
    """The first words of the page's text in ``data`` (bytes of its source from some offset): the text of its first
    text node holding 3 characters or more, entities decoded, up to a line end, a tab or a run of spaces (which a
    text view may render otherwise), cut at a space to at most 60 characters; ``None`` when there is none."""
    for node in _TEXT_NODE.finditer(data.decode("utf-8", "ignore")):
        words = _WORDS.search(html.unescape(node[1]))
        if words is not None and len(words[0]) >= 3:
            text = words[0]
            return text if len(text) <= 60 else text[:60].rsplit(" ", 1)[0]
    return None


__all__ = ["PageReads"]
