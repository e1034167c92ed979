"""Structure reads of one scope: reads that follow the structure of an output instead of its bytes -- a jq filter
over a JSON document, records of JSON lines, rows of CSV/TSV with their header, the text of an HTML page and the
text of the elements a CSS selector matches, the rendered view of terminal output. The engine readers
(:mod:`scratchfs.engine.structure`) do the work over the entry's blob and page within a byte budget; each page
carries a ``cursor`` that resumes exactly where it stopped. This module holds the reads of JSON, JSON lines and
tables; :mod:`scratchfs.api.page_reads` those of pages, terminal views and archives.
"""

from __future__ import annotations

from scratchfs.api.bad_records import many_bad, mostly_json, seeing_passed, way_past
from scratchfs.api.describe import json_top
from scratchfs.api.jq_failure import (
    failed_at,
    failed_page,
    first_is_object,
    records_not_array,
    rows_slurped,
    slurped_array,
)
from scratchfs.api.jq_inputs import refuse_inputs
from scratchfs.api.jq_keys import document_note, keys_failed, keys_noted, null_answer, records_note, rows_note
from scratchfs.api.jq_placeholder import HEAD_BYTES, is_placeholder, placeholder_refusal
from scratchfs.api.json_part import PartSource, around_said, further_json, told_part
from scratchfs.api.misfit import columns_misfit, explained_jq, jq_misfit, refusal, slurp_form, told_not_json
from scratchfs.api.page_reads import PageReads
from scratchfs.api.past_last import past_last
from scratchfs.api.shape_aligned import header_line, is_aligned
from scratchfs.api.shape_columns import COLUMNS_BYTES, headless_columns, runs_starts
from scratchfs.api.shape_pipes import is_piped, piped_noun
from scratchfs.api.shape_stream import is_stream
from scratchfs.api.slurp_advice import paged_instead
from scratchfs.api.structure_entry import entry_identity
from scratchfs.api.table_footer import footer_cut
from scratchfs.api.table_reads import SNIFFED_NO_TABLE, headless, noted_rows, table_like
from scratchfs.engine.caches import LRU
from scratchfs.engine.structure import (
    MAX_SLURP_BYTES,
    ItemPage,
    ReaderSource,
    check_page,
    iter_rows,
    jq_page,
    jsondoc,
    records_page,
    rows_page,
    slurp_page,
)
from scratchfs.engine.structure.aligned import Layout, headless_layout, source_layout
from scratchfs.engine.structure.paging import MIN_BUDGET_BYTES, json_bytes
from scratchfs.engine.structure.table import UNSPLIT_KEY
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice, Call, add_said, calls_json
from scratchfs.foundation.errors import BadRecord, InvalidArgument, NotJson, PastLast, SlurpTooLarge, WideHeader
from scratchfs.foundation.limits import MAX_LINES
from scratchfs.foundation.text import plural


def _filter_on_text(exc: InvalidArgument, handle: str, kind: str | None, src: ReaderSource | None,
                    entry: tuple[float, str | None, Advice | None]) -> None:
    """Raise, for ``exc``, a jq filter's failure on the first value of text (``kind`` text, a log, binary data)
    whose first word parses as JSON -- ``find -printf '%s %p'``'s sizes, ``404 not found`` --, the refusal of jq
    over content that is no JSON (:func:`~scratchfs.api.misfit.jq_misfit`, ``entry`` its line bytes, shape and
    slurp read): ``split(" ")`` over such text failed with 'split input and separator must be strings' and jq's
    advice to skip such values, where jq cannot parse its next line. Returns when its lines around the start are
    mostly JSON, or ``exc`` is a parse error, or ``src`` is ``None`` (JSON told around other text), or ``kind`` is
    another (the filter's own error stands)."""
    if src is None or kind not in SNIFFED_NO_TABLE or isinstance(exc, NotJson) or mostly_json(src, 0, 0):
        return
    failed = str(exc).split("; ")[0]  # (jq's words, not its advice: no value to skip makes text JSON)
    first = NotJson(f"jq parsed its first word as a JSON value, and the filter failed on it -- {failed}", by_jq=True)
    advice = jq_misfit(handle, kind, first, entry[0], entry[1], src.size, entry[2])
    if advice is not None:
        raise told_not_json(first, advice) from None


class StructureReads(PageReads):
    """The structure reads of one scope (see the module docstring); ``scope.structure`` hands one out. The reads of
    pages, terminal views and archives are :class:`~scratchfs.api.page_reads.PageReads`'s, the entry each opens
    :class:`~scratchfs.api.structure_entry.EntryReads`'s."""

    def jq(self, handle: str, filter: str, *, cursor: str | None = None, budget: int = 8192,
           call_budget: int | None = None) -> ItemPage:
        """One page of the outputs of jq ``filter`` over the JSON document (``results``), within ``budget`` bytes
        of JSON; a page that ends before an output the filter fails on says which and how to read on, as does the
        refusal of the page that starts at it (:mod:`scratchfs.api.jq_failure`: a call with ``call_budget``, the
        reply budget the caller gave). Raises InvalidArgument (a malformed document -- NotJson -- or filter, with
        the parser's message; a step of the filter that fails on the page's first output, JqFailed; a document
        over the memory bound; a CSV entry: :func:`~scratchfs.api.structure_entry.check_kind`; content not JSON of
        another stored type -- HTML, a log, text, binary data --, NotJson, naming what it holds and the reads that fit
        it: :func:`scratchfs.api.misfit.jq_misfit`), StructureTimeout (the filter ran past ``pattern_timeout``),
        NotFound, CorruptBlob."""
        if not isinstance(filter, str) or not filter.strip():
            raise InvalidArgument(Advice.of("jq is empty: jq's filter of the whole document is \".\": ", Call.of(
                "read_handle", handle=handle, jq=".", budget=call_budget)))
        refuse_inputs(filter)
        check_page(cursor, budget, budget_name="budget")

        def read(src: ReaderSource, blob: str, kind: str | None) -> ItemPage:
            if is_placeholder(filter):  # (before check_fits: a table's refusal names the rows read, as a call)
                raise self._placeholder(src, kind, handle, blob)
            columns = self._columns(src, kind, handle, blob)  # (text in columns with no header line, None: whose
            # cells a rows read would cut -- no slurp read named for it)
            slurp = None if columns is None else rows_slurped(handle, filter, call_budget,
                                                              headless(kind, self.shape) or columns)
            self.check_fits(kind, "jq", handle, slurp)  # (a table's: the jq read it takes, as a call)
            jsonl = src if kind == "jsonl" else None  # (where a parse error's record is)
            part = told_part(self.shape, src) if kind == "json" else None  # (text lines around the JSON)
            said = None if part is None or cursor is not None else around_said(handle, part)  # (told once)
            room = budget if said is None else max(  # (the page leaves room for what it says)
                MIN_BUDGET_BYTES, budget - json_bytes({"note": str(said), "calls": calls_json(said)}))
            json_src = src if part is None else PartSource(src, part)

            def run(room: int) -> ItemPage:  # (failed_page: the page says where its filter fails and how to go on)
                return failed_page(explained_jq(handle, kind, lambda: jq_page(
                    json_src, filter, cursor, room, cache_key=blob, timeout=self.time_limit(),
                    entry=entry_identity(handle, blob)), self.line_bytes, self.shape, src.size, slurp),
                    handle, filter, call_budget, jsonl=jsonl)
            try:
                page = run(room)
            except InvalidArgument as exc:  # (a streamed page fails whole: its first output is not the failing one)
                _filter_on_text(exc, handle, kind, src if part is None else None, (self.line_bytes, self.shape, slurp))
                exc = further_json(exc, handle, src) if part is None and kind != "json" else exc
                if cursor is None:  # (a filter for the array of the records; a key the input lacks)
                    exc = self._first_failed(exc, handle, filter, call_budget, json_src, kind)
                streamed = src.size > jsondoc.MAX_JQ_DOCUMENT_BYTES
                raise failed_at(exc, handle, filter, None if streamed else cursor, call_budget,
                                jsonl=jsonl, stream=is_stream(kind, self.shape)) from None
            if page.failure is not None and kind in SNIFFED_NO_TABLE and not mostly_json(src, 0, 0):
                # text whose first words parse as JSON ('404 not found', find -ls's inode numbers): no stream of
                # JSON documents, refused here, not on the page that meets the parse error
                advice = jq_misfit(handle, kind, page.failure, self.line_bytes, self.shape, src.size, slurp)
                if advice is not None:  # (so page.failure is NotJson)
                    raise told_not_json(page.failure, advice)
            if cursor is None:  # (a key the filter names that the input lacks)
                page = keys_noted(page, self._keys_said(json_src, kind, filter, page), room, run)
            if said is not None:
                add_said(page.extra, said)
            return page

        return self.over_entry(handle, read)

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
        or says it is the last record), InvalidArgument (also a CSV entry,
        :func:`~scratchfs.api.structure_entry.check_kind`; a JSON document over several lines; a record that is not JSON
        in an entry not stored as JSON lines whose lines around it are mostly not JSON either -- text, a log, binary
        data --, naming what it holds and the reads that fit: :func:`~scratchfs.api.misfit.refusal`; an argument of the
        wrong type or range), StructureTimeout (``jq`` ran past ``pattern_timeout``), NotFound, CorruptBlob."""
        if isinstance(jq, str):
            refuse_inputs(jq)
        check_page(cursor, budget, budget_name="budget", record=record, records=records)

        def read(src: ReaderSource, blob: str, kind: str | None) -> ItemPage:
            self.check_fits(kind, "record", handle)
            if is_placeholder(jq):
                raise self._placeholder(src, kind, handle, blob, records=(record, records))

            def page_of(pass_first: bool, room: int = budget) -> ItemPage:
                page = records_page(src, record, records, jq=jq, cursor=cursor, budget_bytes=room,
                                    timeout=self.time_limit(), entry=entry_identity(handle, blob),
                                    pass_first=pass_first)
                if jq is not None and cursor is None and room == budget and null_answer(page):
                    page = keys_noted(page, records_note(src, jq), budget, lambda less: page_of(pass_first, less))
                if page.passed is None:
                    return page
                page = seeing_passed(page, handle, call_budget)  # (the read of the rest: said on a read's first page)
                return page if cursor is not None else many_bad(page, src, handle, kind, jq, call_budget)

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
            return self.over_entry(handle, read)
        except BadRecord as exc:
            raise self._past(handle, exc, records, jq, call_budget) from None
        except PastLast as exc:  # (a record past the last: the call reading the last ones)
            raise past_last(exc, handle, records, jq=jq, budget=call_budget) from None

    def _past(self, handle: str, bad: BadRecord, records: int, jq: str | None, call_budget: int | None
              ) -> BadRecord:
        """``bad`` (raised by a read of ``handle`` through :meth:`over_entry`) saying how to read past it
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
        # (cursor and budget: checked by slurp_page, first, before the array is built or either is used, naming budget)

        def read(src: ReaderSource, blob: str, kind: str | None) -> ItemPage:
            top = json_top(src.read(0, HEAD_BYTES)) if kind == "json" else None
            form = slurp_form(handle, kind, self.shape, filter, top)  # (one JSON document: the read without slurp)
            refuse_inputs(filter, slurping=True)
            if is_placeholder(filter) and src.size <= MAX_SLURP_BYTES:  # (past it: the paged reads, said next)
                raise placeholder_refusal(handle, kind, self.shape, b"", src.size, form=form)
            if src.size > MAX_SLURP_BYTES:
                raise InvalidArgument(Advice.of(
                    f"slurp=true reads at most {MAX_SLURP_BYTES // 2**20} MiB of content (it holds every record or "
                    f"row at once); {handle} is {src.size / 2**20:.1f} MiB: page it instead: ",
                    paged_instead(handle, filter, form)))
            layout = self._table_layout(src, kind, handle, blob, "slurp=true")  # (split by it, not CSV)
            blob = blob if layout is None else f"{blob}:aligned"
            cut = footer_cut(src, kind, self.shape)  # (a last line of totals: no row)
            blob = blob if cut is src else f"{blob}:footer"
            def run(room: int) -> ItemPage:
                return slurp_page(cut, filter, form, cursor=cursor, budget_bytes=room, budget_name="budget",
                                  cache_key=blob, timeout=self.time_limit(), entry=entry_identity(handle, blob),
                                  layout=layout)

            def keys() -> str | None:  # (a key the filter names that no row or record has)
                return rows_note(cut, layout, filter) if form == "rows" else records_note(
                    cut, filter, "document" if form == "documents" else "record") if form != "arrays" else None

            try:
                page = run(budget)
            except SlurpTooLarge as exc:  # (the paged read that does what the filter did, as a call)
                raise InvalidArgument(Advice.of(exc, ": ", paged_instead(handle, filter, form))) from None
            except InvalidArgument as exc:
                if cursor is None:  # (a filter written for one record, run on the array of all of them)
                    cells = headless(kind, self.shape) or (layout is not None and not layout.headed)
                    exc = keys_failed(slurped_array(exc, handle, filter, call_budget, cells=cells), keys)
                raise failed_at(exc, handle, filter, cursor, call_budget, slurp=True) from None
            page = failed_page(page, handle, filter, call_budget, slurp=True)
            if cursor is None and null_answer(page):
                page = keys_noted(page, keys(), budget, lambda less: failed_page(run(less), handle, filter,
                                                                               call_budget, slurp=True))
            return page if page.passed is None else seeing_passed(page, handle, call_budget)

        return self.over_entry(handle, read)

    def _keys_said(self, src: ReaderSource, kind: str | None, filter: str, page: ItemPage | None) -> str | None:
        """What a jq read's first ``page`` of ``src`` says of a key ``filter`` names that the input lacks
        (:mod:`scratchfs.api.jq_keys`), when the page's answer is empty or null (no ``page``: jq failed on null),
        else ``None``."""
        if kind == "jsonl" or is_stream(kind, self.shape):
            noun = "record" if kind == "jsonl" else "document"
            return records_note(src, filter, noun) if page is None or null_answer(page) else None
        nulls = page is None or null_answer(page, every=True)  # (a document's, parsed whole: only all null)
        return document_note(src, filter) if kind == "json" and nulls else None

    def _first_failed(self, exc: InvalidArgument, handle: str, filter: str, call_budget: int | None,
                      src: ReaderSource, kind: str | None) -> InvalidArgument:
        """``exc``, raised by the first page of a jq read of ``src``, saying that ``filter`` was written for the
        array of all the records (:func:`~scratchfs.api.jq_failure.records_not_array`), or, failing on null, which
        key it reads that the input lacks (:func:`~scratchfs.api.jq_keys.keys_failed`)."""
        if kind == "jsonl":
            exc = records_not_array(exc, handle, filter, call_budget, first_is_object(src))
        return keys_failed(exc, lambda: self._keys_said(src, kind, filter, None))

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
        :func:`~scratchfs.api.structure_entry.check_kind`; text, a log or binary data whose first lines make no table; a
        header that cannot be read), NotFound, CorruptBlob."""

        def read(src: ReaderSource, blob: str, kind: str | None) -> ItemPage:
            self.check_fits(kind, "row", handle)
            layout = self._table_layout(src, kind, handle, blob, "row=")
            if cursor is None and layout is None:  # (a cursor is bound to this entry and read: its first page
                self._table_fits(src, kind, handle, self._lines_instead(handle, row, rows, call_budget))  # passed it)
            headed = not headless(kind, self.shape) and (layout is None or layout.headed)  # (no header: its first
            # line is row 1, as the stub counts it)
            try:
                page = rows_page(footer_cut(src, kind, self.shape), row, rows, columns=columns, cursor=cursor,
                                 budget_bytes=budget, entry=entry_identity(handle, blob), layout=layout, headed=headed)
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

        check_page(cursor, budget, budget_name="budget", row=row, rows=rows)
        try:
            return self.over_entry(handle, read)
        except PastLast as exc:  # (a row past the last: the call reading the last ones)
            raise past_last(exc, handle, rows, columns=columns, budget=call_budget) from None

    def _placeholder(self, src: ReaderSource, kind: str | None, handle: str, blob: str,
                     records: tuple[int, int] | None = None) -> InvalidArgument:
        """The refusal of the stub's jq placeholder in a jq read (a records read's: ``records``, its ``(record,
        records)``) of ``handle``, whose examples fit what it holds (:func:`placeholder_refusal`): text whose first
        lines are mostly JSON read as JSON lines; text in columns with no header line whose cells hold spaces (no
        rows read splits them) as text."""
        jsonish = (kind is None or kind in SNIFFED_NO_TABLE) and mostly_json(src, 0, 0)
        shape = self.shape
        if not jsonish and kind == "text" and headless_columns(shape) is not None:
            try:
                self._headless(src, kind, handle, blob, "row=")
            except InvalidArgument:
                shape = None  # (its lines and searches: what fits text)
        return placeholder_refusal(handle, kind, shape, src.read(0, HEAD_BYTES), src.size, records=records,
                                   jsonish=jsonish, line_bytes=self.line_bytes)

    def _columns(self, src: ReaderSource, kind: str | None, handle: str, blob: str) -> bool | None:
        """Whether an entry stored as ``kind`` is text whose shape says its first lines stand in columns aligned by
        spaces with no header line, its rows read splitting them (:meth:`_headless`); ``None`` when its cells hold
        spaces (a rows read refuses it)."""
        if kind != "text" or headless_columns(self.shape) is None:
            return False
        try:
            self._headless(src, kind, handle, blob, "slurp=true")
        except InvalidArgument:
            return None
        return True

    def _table_layout(self, src: ReaderSource, kind: str | None, handle: str, blob: str, read: str
                      ) -> Layout | None:
        """The layout a rows read (``read``: ``"row="``, ``"slurp=true"``) of an entry stored as ``kind`` splits
        its lines by: a table aligned by spaces' or drawn with pipes' (:meth:`_layout`), text in columns with no
        header line's (:meth:`_headless`), else ``None`` (CSV)."""
        piped = is_piped(kind, self.shape)
        if piped or is_aligned(kind, self.shape):
            return self._layout(src, handle, blob, piped)
        return self._headless(src, kind, handle, blob, read)

    def _layout(self, src: ReaderSource, handle: str, blob: str, piped: bool = False) -> Layout:
        """The layout of an entry whose shape says it is a table aligned by spaces (``piped``: drawn with pipes),
        told again from its first lines as the shape was (:func:`~scratchfs.engine.structure.aligned.source_layout`,
        its header past the preamble the shape names), kept per entry (:data:`_LAYOUTS`) for the next pages. Raises
        InvalidArgument if they make none (they did at spill time: the entry is not what its shape says)."""
        header = 0 if piped else header_line(self.shape)
        key = f"{entry_identity(handle, blob)}\0{'piped' if piped else header}"
        layout = _LAYOUTS.get(key) or source_layout(src, header, piped)
        if layout is None:
            what = piped_noun(self.shape).split(",")[0].removeprefix("a ") if piped else "table aligned by spaces"
            raise InvalidArgument(f"{handle}'s first lines make no {what}, though its shape says "
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
            told = runs_starts(src.read(0, COLUMNS_BYTES))
            if told is None:
                raise InvalidArgument(columns_misfit(handle, read, self.shape))
            layout = headless_layout(*told)  # (its first row past ls -l's total line, if any)
            _LAYOUTS.put(key, layout)
        return layout

    def _table_fits(self, src: ReaderSource, kind: str | None, handle: str, lines: Advice | None = None) -> None:
        """Refuse rows of text, a log or binary data (in which no table was found at spill time) whose first
        records are not those of a table (:func:`table_like`), ending with ``lines``, the line read a row read's
        refusal names (:meth:`_lines_instead`), when given."""
        if kind in SNIFFED_NO_TABLE and not table_like(src):
            said = refusal(handle, kind, "row", ", not a table", self.line_bytes, self.shape)
            raise InvalidArgument(said if lines is None else Advice.of(said, lines))

    def _lines_instead(self, handle: str, row: int, rows: int, budget: int | None) -> Advice:
        """What the refusal of ``row=row, rows=rows`` over text that holds no table names (with the call's reply
        ``budget``): the line read of the same lines, or, for a row past the entry's last line (the stub's count,
        the last opened), the read of its last ``rows`` lines -- a line past the end is refused in turn."""
        lines = min(rows, MAX_LINES)
        if row <= self.lines:
            return Advice.of("; the same lines: ", Call.of("read_handle", handle=handle, line=row, lines=lines,
                                                           budget=budget))
        return Advice.of(f"; it has {plural(self.lines, 'line')}, its last ones: ", Call.of(
            "read_handle", handle=handle, line=-lines, lines=lines, budget=budget))

    def table(self, handle: str, max_bytes: int) -> tuple[list[list[str]], bool]:
        """The records of a CSV/TSV entry that start in its first ``max_bytes`` bytes, the header first (of a table
        with no header line, :func:`headless`: its columns' numbers from 0, as ``columns=`` takes them), parsed as
        :meth:`rows` parses them (same delimiter rule, quoted multi-line fields one record, blank lines skipped), and
        whether records were left out past ``max_bytes`` (a row of a table aligned by spaces or drawn with pipes whose
        cells cannot be told for certain: one cell, its whole line). Raises InvalidArgument (not valid CSV; an entry
        stored as what no rows read parses, :func:`~scratchfs.api.structure_entry.check_kind`), NotFound,
        CorruptBlob."""
        max_bytes = checks.check_int(max_bytes, "max_bytes", 0)

        def read(src: ReaderSource, blob: str, kind: str | None) -> tuple[list[list[str]], bool]:
            self.check_fits(kind, "row", handle)
            layout = self._table_layout(src, kind, handle, blob, "row=")
            if layout is None:
                self._table_fits(src, kind, handle)
            records: list[list[str]] = []
            headed = not headless(kind, self.shape) and (layout is None or layout.headed)
            partial = False
            for start, cells in iter_rows(footer_cut(src, kind, self.shape), layout=layout, headed=headed):
                partial = start >= max_bytes
                if partial:
                    break
                records.append([cells[UNSPLIT_KEY]] if isinstance(cells, dict) else cells)
            if not headed:  # (its columns' numbers, as columns= names them)
                records.insert(0, list(map(str, range(max(map(len, records), default=0)))))
            return records, partial

        return self.over_entry(handle, read)


_LAYOUTS: LRU[str, Layout] = LRU(64)
"""The layouts of the tables aligned by spaces or drawn with pipes read last, by entry (telling one again reads its
first lines and costs 0.04-0.7 ms, most over 0.2 ms: ``python bench/layout_cost.py``)."""


def _narrower(exc: WideHeader, handle: str, row: int, rows: int, budget: int | None) -> InvalidArgument:
    """The refusal of a rows read whose header takes too much of its budget, advising the same read of the first
    columns that fit (by number: a call naming them echoes few bytes), when one does."""
    if not exc.fitting:
        return exc
    return InvalidArgument(Advice.of(exc, "; the first that fit: ", Call.of(
        "read_handle", handle=handle, row=row, rows=rows, columns=list(exc.fitting), budget=budget)))


__all__ = ["StructureReads"]
