"""Structure reads of one scope: reads that follow the structure of an output instead of its bytes -- a jq filter
over a JSON document, records of JSON lines, rows of CSV/TSV with their header, the text of an HTML page and the
text of the elements a CSS selector matches, the rendered view of terminal output. The engine readers
(:mod:`scratchfs.engine.structure`) do the work over the entry's blob and page within a byte budget; each page
carries a ``cursor`` that resumes exactly where it stopped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from scratchfs.api.archive import members_page
from scratchfs.api.bad_records import mostly_json, seeing_passed, way_past
from scratchfs.api.entries import reading
from scratchfs.api.jq_failure import failed_at, failed_page, slurped_array
from scratchfs.api.jq_inputs import refuse_inputs
from scratchfs.api.misfit import (
    columns_misfit,
    explained_jq,
    jq_misfit,
    members_misfit,
    no_element,
    plain_view,
    refusal,
    select_misfit,
    slurp_form,
    text_misfit,
    told_not_json,
    view_misfit,
)
from scratchfs.api.past_last import past_last
from scratchfs.api.shape import binary_format
from scratchfs.api.shape_aligned import header_line, is_aligned
from scratchfs.api.shape_columns import COLUMNS_BYTES, headless_columns, runs_starts
from scratchfs.api.shape_said import cr_ends_said
from scratchfs.api.shape_stream import is_stream
from scratchfs.api.slurp_advice import paged_instead
from scratchfs.api.table_reads import SNIFFED_NO_TABLE, headless, noted_rows, table_like
from scratchfs.engine.caches import LRU
from scratchfs.engine.search import Matcher, SearchResult, Sink
from scratchfs.engine.segments import token_of
from scratchfs.engine.structure import (
    MAX_HTML_BYTES,
    MAX_SLURP_BYTES,
    BytesSource,
    ItemPage,
    ReaderSource,
    TextPage,
    check_page,
    html_text,
    iter_rows,
    jq_page,
    jsondoc,
    records_page,
    rows_page,
    select_page,
    slurp_page,
    text_page,
    view_page,
)
from scratchfs.engine.structure.aligned import Layout, headless_layout, source_layout
from scratchfs.engine.structure.table import UNSPLIT_KEY
from scratchfs.engine.structure.terminal import PastTheView
from scratchfs.engine.structure.text_search import search_text
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import (
    BadRecord,
    BadSelector,
    InvalidArgument,
    PastLast,
    SlurpTooLarge,
    WideHeader,
)
from scratchfs.foundation.limits import MAX_LINES
from scratchfs.foundation.text import utf8_partial_tail

if TYPE_CHECKING:
    from scratchfs.api.entries import OpenEntry
    from scratchfs.api.scope import Scope


def entry_identity(handle: str, blob: str) -> str:
    """What an entry's structure cursors are bound to (a reader's ``entry``,
    :class:`~scratchfs.engine.structure.paging.CursorKey`): its handle and its blob token -- 120 random bits, never
    shown to a model, that no other entry has and that a TTL refresh keeps (a segment entry's location is left out:
    only the token names the blob)."""
    return f"{handle}/{token_of(blob)}"


class StructureReads:
    """The structure reads of one scope (see the module docstring); ``scope.structure`` hands one out.

    Every read raises InvalidArgument for content nested too deeply to parse (beyond Python's recursion limit).

    Attributes:
        size: bytes of the entry the last read of this object opened (``None`` before the first), so that a caller
            that reports the size does not look the entry up again.
        content_type: the stored content type of that entry (``None`` before the first read or when not detected).
        shape: the stored shape of that entry (``None`` before the first read or when not detected).
    """

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.size: int | None = None
        self.content_type: str | None = None
        self.shape: str | None = None
        self.line_bytes = 0.0  # the entry's average line length, bytes: what the reads that fit it are (misfit)

    def _page(self, handle: str, read: Callable[[ReaderSource, str, str | None], Any],
              given: OpenEntry | None = None) -> Any:
        """Open the entry (unless the caller has: ``given``), run ``read(source, blob token, content type)`` over
        it, map damaged data to CorruptBlob and content nested deeper than Python's JSON parser and encoder go (a
        ``RecursionError``) to InvalidArgument. The reads pass :func:`entry_identity` of the blob token to the
        readers, which bind their cursors to it."""
        scope = self.scope
        handle = checks.check_handle(handle)
        with (nullcontext(given) if given is not None else
              scope.store.entries.open(scope.run_id, scope.agent_id, "handle", handle)) as opened, reading(handle):
            self.size, self.content_type, self.shape = opened.entry.size, opened.entry.content_type, opened.entry.shape
            self.line_bytes = opened.entry.size / max(1, opened.entry.lines)
            try:
                return read(ReaderSource(opened.reader, opened.entry.size), opened.entry.blob,
                            opened.entry.content_type)
            except RecursionError:
                raise InvalidArgument(f"{handle} holds JSON nested too deeply to read by its structure; "
                                      "read it by bytes or lines") from None

    def _fits(self, content_type: str | None, read: str, handle: str) -> None:
        check_kind(content_type, read, handle, self.line_bytes, self.shape)

    def _timeout(self) -> float:
        """Seconds a jq filter, a CSS selector read or an HTML text view may run: the store's ``pattern_timeout``."""
        return self.scope.store.settings.pattern_timeout

    def jq(self, handle: str, filter: str, *, cursor: str | None = None, budget: int = 8192,
           call_budget: int | None = None) -> ItemPage:
        """One page of the outputs of jq ``filter`` over the JSON document (``results``), within ``budget`` bytes
        of JSON; a page that ends before an output the filter fails on says which and how to read on, as does the
        refusal of the page that starts at it (:mod:`scratchfs.api.jq_failure`: a call with ``call_budget``, the
        reply budget the caller gave). Raises InvalidArgument (a malformed document -- NotJson -- or filter, with
        the parser's message; a step of the filter that fails on the page's first output, JqFailed; a document
        over the memory bound; a CSV entry: :func:`check_kind`; content not JSON of another stored type -- HTML, a
        log, text, binary data --, NotJson, naming what it holds and the reads that fit it:
        :func:`scratchfs.api.misfit.jq_misfit`), StructureTimeout
        (the filter ran past ``pattern_timeout``), NotFound, CorruptBlob."""
        if not isinstance(filter, str) or not filter.strip():
            raise InvalidArgument(Advice.of("jq is empty: jq's filter of the whole document is \".\": ", Call.of(
                "read_handle", handle=handle, jq=".", budget=call_budget)))
        refuse_inputs(filter)
        check_page(cursor, budget)

        def read(src: ReaderSource, blob: str, kind: str | None) -> ItemPage:
            self._fits(kind, "jq", handle)
            jsonl = src if kind == "jsonl" else None  # (where a parse error's record is)
            try:
                page = explained_jq(handle, kind, lambda: jq_page(src, filter, cursor, budget, cache_key=blob,
                                                                  timeout=self._timeout(),
                                                                  entry=entry_identity(handle, blob)),
                                    self.line_bytes, self.shape, src.size)
            except InvalidArgument as exc:  # (a streamed page fails whole: its first output is not the failing one)
                streamed = src.size > jsondoc.MAX_JQ_DOCUMENT_BYTES
                raise failed_at(exc, handle, filter, None if streamed else cursor, call_budget,
                                jsonl=jsonl, stream=is_stream(kind, self.shape)) from None
            if page.failure is not None and kind in SNIFFED_NO_TABLE and not mostly_json(src, 0, 0):
                # text whose first words parse as JSON ('404 not found', find -ls's inode numbers): no stream of
                # JSON documents, refused here rather than on the page that meets the parse error
                advice = jq_misfit(handle, kind, page.failure, self.line_bytes, self.shape, src.size)
                if advice is not None:  # (so page.failure is NotJson)
                    raise told_not_json(page.failure, advice)
            return failed_page(page, handle, filter, call_budget, jsonl=jsonl)

        return self._page(handle, read)

    def records(self, handle: str, record: int = 1, records: int = 50, *, jq: str | None = None,
                cursor: str | None = None, budget: int = 8192, call_budget: int | None = None) -> ItemPage:
        """A page of the records of JSON lines (numbered from 1) from ``record`` (or ``cursor``), or of their ``jq``
        outputs, streamed record by record: at most ``records`` records, fewer when the page's ``budget`` (bytes of
        its JSON) fills first (``cursor`` then resumes at the first record not shown). A record that is not JSON is
        passed over, the page's ``note`` naming it and the byte read that shows it (with ``call_budget``, the reply
        budget the caller gave, when given): after the page's first record the page ends before it, its cursor going
        on after it; at the page's start (of JSON lines, or of text whose lines around it are mostly JSON) the page
        reads on after it and the bad records right after it
        (:func:`~scratchfs.engine.structure.jsonl.records_page`'s ``pass_first``). Raises BadRecord (the record
        the read starts at is not JSON and is the entry's last -- a cut last line --, or ``jq`` fails on it: the
        message gives the byte read that shows it and the read that goes on after it, both with ``call_budget``,
        or says it is the last record), InvalidArgument (also a CSV entry, :func:`check_kind`; a JSON document over
        several lines; a record that is not JSON in an entry not stored as JSON lines whose lines around it are
        mostly not JSON either -- text, a log, binary data --, naming what it holds and the reads that fit:
        :func:`~scratchfs.api.misfit.refusal`; an argument of the wrong type or range), StructureTimeout (``jq`` ran
        past ``pattern_timeout``), NotFound, CorruptBlob."""
        if isinstance(jq, str):
            refuse_inputs(jq)
        check_page(cursor, budget, record=record, records=records)

        def read(src: ReaderSource, blob: str, kind: str | None) -> ItemPage:
            self._fits(kind, "record", handle)

            def page_of(pass_first: bool) -> ItemPage:
                page = records_page(src, record, records, jq=jq, cursor=cursor, budget_bytes=budget,
                                    timeout=self._timeout(), entry=entry_identity(handle, blob), pass_first=pass_first)
                return page if page.passed is None else seeing_passed(page, handle, call_budget)

            try:  # (JSON lines: a page that starts at a bad record passes over it and reads on)
                return page_of(kind == "jsonl")
            except BadRecord as exc:
                if not exc.not_json or kind == "jsonl":
                    raise
                if kind == "json":  # (one line is one record: whole)
                    how = " over several lines"
                elif mostly_json(src, exc.offset, exc.offset + exc.length):
                    return page_of(True)  # (JSON lines the sniffer did not tell: read as JSON lines are)
                else:
                    how = ", not JSON lines"
                raise InvalidArgument(refusal(handle, kind, "record", how, self.line_bytes, self.shape)) from None

        try:
            return self._page(handle, read)
        except BadRecord as exc:
            raise self._past(handle, exc, records, jq, call_budget) from None
        except PastLast as exc:  # (a record past the last: the call reading the last ones)
            raise past_last(exc, handle, records, jq=jq, budget=call_budget) from None

    def _past(self, handle: str, bad: BadRecord, records: int, jq: str | None, call_budget: int | None
              ) -> BadRecord:
        """``bad`` (raised by a read of ``handle`` through :meth:`_page`) saying how to read past it
        (:func:`way_past`), or that it is the last record: it ends at the entry's end (:attr:`size`)."""
        last = bad.offset + bad.length >= (self.size or 0)
        return BadRecord(Advice.of(bad, "; ", way_past(handle, bad, records, jq, call_budget, last)), bad.record,
                         bad.offset, bad.length, not_json=bad.not_json)

    def slurp(self, handle: str, filter: str, *, cursor: str | None = None, budget: int = 8192,
              call_budget: int | None = None) -> ItemPage:
        """One page of the outputs of jq ``filter`` run once over the array of all the records of JSON lines, or of
        all the rows of a CSV/TSV table (objects keyed by its header; arrays when its stub found no header line;
        strings, but numbers in a column of numbers, :func:`~scratchfs.engine.structure.slurp.type_number_columns`):
        :func:`~scratchfs.engine.structure.slurp.slurp_page`, paged as :meth:`jq` pages. Raises InvalidArgument (a
        content over :data:`~scratchfs.engine.structure.slurp.MAX_SLURP_BYTES`, or a table whose rows make an array
        over :data:`~scratchfs.engine.structure.slurp.MAX_ARRAY_BYTES`, naming the per-record or per-row read that
        works; an entry that is no JSON lines or table -- a JSON document, text, a log, HTML, binary data
        --, naming the reads that fit; what ``jq`` raises), StructureTimeout (the filter ran past
        ``pattern_timeout``), NotFound, CorruptBlob. A record of JSON lines that is not JSON, a row that cannot be
        read, a document that is not JSON: passed over, the page's note naming each with the byte read that shows
        it."""
        if not isinstance(filter, str) or not filter.strip():
            raise InvalidArgument("slurp=true runs a jq filter over all records or rows: give jq= too "
                                  '(e.g. jq="group_by(.unit) | map({unit: .[0].unit, n: length})")')
        check_page(cursor, budget)

        def read(src: ReaderSource, blob: str, kind: str | None) -> ItemPage:
            form = slurp_form(handle, kind, self.shape, filter)  # (one JSON document: the read without slurp)
            refuse_inputs(filter, slurping=True)
            if src.size > MAX_SLURP_BYTES:
                raise InvalidArgument(Advice.of(
                    f"slurp=true reads at most {MAX_SLURP_BYTES // 2**20} MiB of content (it holds every record or "
                    f"row at once); {handle} is {src.size / 2**20:.1f} MiB: page it instead: ",
                    paged_instead(handle, filter, form)))
            layout = self._layout(src, handle, blob) if is_aligned(kind, self.shape) else self._headless(
                src, kind, handle, blob, "slurp=true")  # (split by it, not CSV)
            blob = blob if layout is None else f"{blob}:aligned"
            try:
                page = slurp_page(src, filter, form, cursor=cursor, budget_bytes=budget, cache_key=blob,
                                  timeout=self._timeout(), entry=entry_identity(handle, blob), layout=layout)
            except SlurpTooLarge as exc:  # (the paged read that does what the filter did, as a call)
                raise InvalidArgument(Advice.of(exc, ": ", paged_instead(handle, filter, form))) from None
            except InvalidArgument as exc:
                if cursor is None:  # (a filter written for one record, run on the array of all of them)
                    exc = slurped_array(exc, handle, filter, call_budget)
                raise failed_at(exc, handle, filter, cursor, call_budget, slurp=True) from None
            page = failed_page(page, handle, filter, call_budget, slurp=True)
            return page if page.passed is None else seeing_passed(page, handle, call_budget)

        return self._page(handle, read)

    def rows(self, handle: str, row: int = 1, rows: int = 50, *, columns: list[str | int] | None = None,
             cursor: str | None = None, budget: int = 8192, call_budget: int | None = None) -> ItemPage:
        """A page of the rows of CSV/TSV (numbered from 1 after the header) from ``row`` (or ``cursor``): at most
        ``rows``, fewer when the page's ``budget`` (bytes of its JSON) fills first; always with the header,
        quoted multi-line fields counted as one row; ``columns`` by name or 0-based number. An entry stored as text,
        a log or binary data (whose first lines make a table: :func:`table_like`) is read too, its page saying so
        (``note``); so does a page of a table whose stub found no header line (its first row is the header).
        A row that cannot be read (a field or line past the bound, CSV the ``csv`` module refuses) after the
        page's first is passed over: the page's ``note`` names it and the byte read that shows it (with
        ``call_budget``, the reply budget the caller gave), and its cursor goes on after it.
        Raises BadRecord (an InvalidArgument: the row the read starts at cannot be read; the message names its
        bytes and the read that goes on after it), InvalidArgument (also a JSON or JSON-lines entry:
        :func:`check_kind`; text, a log or binary data whose first lines make no table; a header that cannot be
        read), NotFound, CorruptBlob."""

        def read(src: ReaderSource, blob: str, kind: str | None) -> ItemPage:
            self._fits(kind, "row", handle)
            layout = self._layout(src, handle, blob) if is_aligned(kind, self.shape) else self._headless(
                src, kind, handle, blob, "row=")
            if cursor is None and layout is None:  # (a cursor is bound to this entry and read: its first page
                self._table_fits(src, kind, handle, Call.of(  # passed the check); the same lines, by lines
                    "read_handle", handle=handle, line=row, lines=min(rows, MAX_LINES), budget=call_budget))
            headed = not headless(kind, self.shape) and (layout is None or layout.headed)  # (no header: its first
            # line is row 1, as the stub counts it)
            try:
                page = rows_page(src, row, rows, columns=columns, cursor=cursor, budget_bytes=budget,
                                 entry=entry_identity(handle, blob), layout=layout, headed=headed)
            except WideHeader as exc:  # (the read of the first columns that fit, as a call)
                raise _narrower(exc, handle, row, rows, call_budget) from None
            except BadRecord as exc:  # (the row the read starts at)
                on = ("it is the last row" if exc.offset + exc.length >= src.size else Advice.of("read on after it: ",
                      Call.of("read_handle", handle=handle, row=exc.record + 1, rows=rows, columns=columns,
                              budget=call_budget, cursor=exc.cursor)))
                raise BadRecord(Advice.of(exc, "; ", on), exc.record, exc.offset, exc.length, exc.cursor,
                                exc.not_json) from None
            page = page if page.passed is None else seeing_passed(page, handle, call_budget)
            return noted_rows(page, kind, layout, headed, cursor is None)

        check_page(cursor, budget, row=row, rows=rows)
        try:
            return self._page(handle, read)
        except PastLast as exc:  # (a row past the last: the call reading the last ones)
            raise past_last(exc, handle, rows, columns=columns, budget=call_budget) from None

    def _layout(self, src: ReaderSource, handle: str, blob: str) -> Layout:
        """The layout of an entry whose shape says it is a table aligned by spaces, told again from its first lines
        as the shape was (:func:`~scratchfs.engine.structure.aligned.source_layout`, its header past the preamble
        the shape names), kept per entry (:data:`_LAYOUTS`) for the next pages. Raises InvalidArgument if they
        make none (they did at spill time: the entry is not what its shape says)."""
        header = header_line(self.shape)
        key = f"{entry_identity(handle, blob)}\0{header}"
        layout = _LAYOUTS.get(key) or source_layout(src, header)
        if layout is None:
            raise InvalidArgument(f"{handle}'s first lines make no table aligned by spaces, though its shape says "
                                  "so; read its lines instead")
        _LAYOUTS.put(key, layout)
        return layout

    def _headless(self, src: ReaderSource, kind: str | None, handle: str, blob: str, read: str) -> Layout | None:
        """The layout of text whose shape says its first lines stand in columns aligned by spaces with no header
        line (:func:`~scratchfs.api.shape_columns.runs_starts` of the bytes the shape was told from, 0.1-0.3 ms:
        ``python bench/layout_cost.py``), kept
        per entry (:data:`_LAYOUTS`) for the next pages, else ``None``. Raises InvalidArgument (naming the reads
        that work, as calls: :func:`columns_misfit`) when its cells are not parted by runs of spaces alone
        (``read``: the read refused, ``"row="``)."""
        if kind != "text" or headless_columns(self.shape) is None:
            return None
        key = f"{entry_identity(handle, blob)}\0headless"
        layout = _LAYOUTS.get(key)
        if layout is None:
            starts = runs_starts(src.read(0, COLUMNS_BYTES))
            if starts is None:
                raise InvalidArgument(columns_misfit(handle, read, self.shape))
            layout = headless_layout(starts)
            _LAYOUTS.put(key, layout)
        return layout

    def _table_fits(self, src: ReaderSource, kind: str | None, handle: str, lines: Call | None = None) -> None:
        """Refuse rows of text, a log or binary data (in which no table was found at spill time) whose first
        records are not those of a table (:func:`table_like`), naming ``lines``, the line read of the same lines
        (a row read's), when given."""
        if kind in SNIFFED_NO_TABLE and not table_like(src):
            said = refusal(handle, kind, "row", ", not a table", self.line_bytes, self.shape)
            raise InvalidArgument(said if lines is None else Advice.of(said, "; the same lines: ", lines))

    def text(self, handle: str, offset: int = 0, *, cursor: str | None = None, budget: int = 8192,
             raw_offset: int | None = None) -> TextPage:
        """A page of the text view (``view="text"``): the readable text of an HTML page, or terminal output rendered
        as a person sees it; ``offset`` is a byte offset into the view. ``raw_offset`` (terminal output only;
        ``offset`` is then ignored): the page starts at the rendered line holding this byte of the stored output --
        where a search found a match. Raises InvalidArgument (a content with no text view, a ``raw_offset`` past the
        end or given for an HTML page), StructureTimeout (rendering an HTML page ran past ``pattern_timeout``),
        NotFound, CorruptBlob."""
        check_page(cursor, budget)

        def read(src: ReaderSource, blob: str, content_type: str | None) -> TextPage:
            if raw_offset is not None and cursor is None and content_type == "html":
                raise InvalidArgument("raw_offset is for terminal output's text view; an HTML page's text view is "
                                      "paged by offset into the text")
            if content_type == "html":
                return text_page(src, offset, cursor=cursor, budget_bytes=budget, cache_key=blob,
                                 timeout=self._timeout(), entry=entry_identity(handle, blob))
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

        return self._page(handle, read)

    def members(self, handle: str, *, cursor: str | None = None, budget: int = 8192) -> ItemPage:
        """A page of the members of a tar or zip (``view="members"``), each ``{name, offset, length, read}`` (its
        data's byte offset and length, the range call that reads it; a compressed zip member's ``compressed`` and
        ``size`` instead of ``read``), within ``budget`` bytes of JSON: :func:`~scratchfs.api.archive.members_page`.
        Raises InvalidArgument (no tar or zip, a cursor not of this read), NotFound, CorruptBlob."""
        return self._page(handle, lambda src, blob, kind: members_page(
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
            text = html_text(src, cache_key=blob, timeout=self._timeout())
            return search_text(text, matcher, *search, sink_class), len(text)

        return self._page(handle, read, opened)

    def select(self, handle: str, selector: str, *, cursor: str | None = None, budget: int = 8192) -> ItemPage:
        """The text of the HTML elements a CSS ``selector`` matches (``elements``), in document order. Raises
        InvalidArgument (BadSelector: a bad selector, with how to write one and the text view's call; JSON, JSON
        lines, a table or XML, which an HTML parser would read as what they are not -- XML's ``<title>`` or
        ``<body>`` moved as a page's -- :func:`check_kind`; text, a log or binary data in which the selector
        finds no element, naming what it holds), StructureTimeout (the read ran past ``pattern_timeout``),
        NotFound, CorruptBlob."""
        if not isinstance(selector, str) or not selector.strip():
            raise InvalidArgument(Advice.of("select is empty: a CSS selector names the elements to read (\"p\", "
                                            "\"h2\"); the whole page's readable text: ",
                                            Call.of("read_handle", handle=handle, view="text")))
        check_page(cursor, budget)

        def read(src: ReaderSource, blob: str, kind: str | None) -> ItemPage:
            self._fits(kind, "select", handle)
            if kind in SNIFFED_NO_TABLE and cursor is None and no_element(src.read, src.size, MAX_HTML_BYTES):
                # (a select of no element gives its body, its whole text; told on the first page: a cursor's
                # passed, and up to MAX_HTML_BYTES are not scanned again each page)
                raise InvalidArgument(select_misfit(handle, kind, self.shape, self.line_bytes, selector))
            try:
                page = select_page(src, selector, cursor=cursor, budget_bytes=budget, timeout=self._timeout(),
                                   entry=entry_identity(handle, blob), cache_key=blob)
            except BadSelector as exc:  # (a selector that does not compile: how to write one, and the text)
                raise BadSelector(Advice.of(f"{exc}; a CSS selector names the elements to read (\"h2\", \"table "
                                            "td\", \"a[href]\"); the whole page's readable text: ",
                                            Call.of("read_handle", handle=handle, view="text")), exc.selector) from None
            if kind in SNIFFED_NO_TABLE and cursor is None and not page.items and page.part is None and \
                    page.cursor is None:  # (text holding an HTML page's part is read; text with no element is not)
                raise InvalidArgument(select_misfit(handle, kind, self.shape, self.line_bytes, selector))
            return page

        return self._page(handle, read)

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
                return html_text(src, cache_key=blob, timeout=self._timeout()).decode("utf-8"), False
            head = src.read(0, max_bytes)
            head = head[: len(head) - utf8_partial_tail(head)]  # no character cut in two
            return html_text(BytesSource(head), timeout=self._timeout()).decode("utf-8"), True

        return self._page(handle, read)

    def table(self, handle: str, max_bytes: int) -> tuple[list[list[str]], bool]:
        """The records of a CSV/TSV entry that start in its first ``max_bytes`` bytes, the header first (of a table
        with no header line, :func:`headless`: its columns' numbers from 0, as ``columns=`` takes them), parsed as
        :meth:`rows` parses them (same delimiter rule, quoted multi-line fields one record, blank lines skipped), and
        whether records were left out past ``max_bytes`` (a row of a table aligned by spaces whose cells cannot be
        told for certain: one cell, its whole line). Raises InvalidArgument (not valid CSV; an entry stored as
        what no rows read parses, :func:`check_kind`), NotFound, CorruptBlob."""
        max_bytes = checks.check_int(max_bytes, "max_bytes", 0)

        def read(src: ReaderSource, blob: str, kind: str | None) -> tuple[list[list[str]], bool]:
            self._fits(kind, "row", handle)
            layout = self._layout(src, handle, blob) if is_aligned(kind, self.shape) else self._headless(
                src, kind, handle, blob, "row=")
            if layout is None:
                self._table_fits(src, kind, handle)
            records: list[list[str]] = []
            headed = not headless(kind, self.shape) and (layout is None or layout.headed)
            partial = False
            for start, cells in iter_rows(src, layout=layout, headed=headed):
                partial = start >= max_bytes
                if partial:
                    break
                records.append([cells[UNSPLIT_KEY]] if isinstance(cells, dict) else cells)
            if not headed:  # (its columns' numbers, as columns= names them)
                records.insert(0, list(map(str, range(max(map(len, records), default=0)))))
            return records, partial

        return self._page(handle, read)


_REFUSED = {"json": {"row", "select"}, "jsonl": {"row", "select"}, "csv": {"jq", "record", "select"},
            "html": {"row", "record"}, "xml": {"row", "record", "select"}}
# (record= on a JSON document is read: a document on one line is one record; over several lines, its first line is
# no JSON and the read says to use jq=. Every read of text, a log or binary data is tried: it may be JSON lines or a
# table the sniffer did not take for one -- a line cut short, a header alone, a CSV whose first column is a
# timestamp, a table holding a NUL -- or a part of an HTML page; rows, records and select= then refuse what their
# parse shows is not one, and jq's parse error is explained.)
_LAYOUTS: LRU[str, Layout] = LRU(64)
"""The layouts of the tables aligned by spaces read last, by entry (telling one again reads its first lines and
costs 0.04-0.7 ms, most over 0.2 ms: ``python bench/layout_cost.py``)."""


def check_kind(content_type: str | None, read: str, handle: str, line_bytes: float = 0.0,
               shape: str | None = None) -> None:
    """Refuse a structure read (``read``: ``"jq"``, ``"record"``, ``"row"`` or ``"select"``) that does not fit the
    entry's stored content type (decided at spill time from its start, :func:`scratchfs.api.shape.describe`): rows
    of JSON, records of a table, jq over a table, rows or records of an HTML page or of XML, a CSS select of what is
    no HTML page would parse it as what it is not; so would any read of binary data whose shape names its format
    (gzip, a PNG image: :func:`~scratchfs.api.shape.binary_format`). A read of text, a log, other binary data or
    content of unknown type (``None``) is tried, and its parse decides (:class:`StructureReads` refuses what it
    shows does not fit). Raises InvalidArgument naming what the entry is and the reads that fit (by ``shape``, its
    stored shape, and ``line_bytes``, its average line length: :func:`scratchfs.api.misfit.refusal`); returns None
    otherwise."""
    if (content_type in _REFUSED and read in _REFUSED[content_type]) or (
            content_type == "binary" and binary_format(shape) is not None):  # gzip, PNG...: no page, table or JSON
        raise InvalidArgument(refusal(handle, content_type, read, line_bytes=line_bytes, shape=shape))


def _narrower(exc: WideHeader, handle: str, row: int, rows: int, budget: int | None) -> InvalidArgument:
    """The refusal of a rows read whose header takes too much of its budget, advising the same read of the first
    columns that fit (by number: a call naming them echoes few bytes), when one does."""
    if not exc.fitting:
        return exc
    return InvalidArgument(Advice.of(exc, "; the first that fit: ", Call.of(
        "read_handle", handle=handle, row=row, rows=rows, columns=list(exc.fitting), budget=budget)))


__all__ = ["StructureReads", "check_kind", "entry_identity"]
