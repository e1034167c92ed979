"""Advice for a structure read that does not fit what an entry holds: a jq filter over content that is not JSON
(an HTML page, a log, text; jq over a CSV table or binary data is refused before it runs, by
:func:`scratchfs.api.structure_entry.check_kind`, in :func:`refusal`'s words), ``view="text"`` over JSON, rows of text.
The engine's error says what failed (jq's parse error); these messages add what the entry is, by the content type
and shape decided at spill time (:func:`scratchfs.api.shape.describe`, kept in the entry's index row), and the
reads that fit it -- the text view only for what it renders (an HTML page, terminal output, a kind of text told
with its colours removed: :func:`~scratchfs.api.shape_terminal.coloured`), never for plain text or a log without
escape sequences.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TypeVar

from scratchfs.api.jq_failure import LONG_COLUMN_BYTES, bytes_around
from scratchfs.api.jq_inputs import PLACEHOLDER
from scratchfs.api.shape import SAMPLE_BYTES, binary_format
from scratchfs.api.shape_aligned import is_aligned
from scratchfs.api.shape_binary import compressed_format
from scratchfs.api.shape_columns import headless_columns
from scratchfs.api.shape_json import ARRAY_SHAPE
from scratchfs.api.shape_pipes import is_piped, piped_noun
from scratchfs.api.shape_said import GREP_SAID, cr_ends_said, plain_said
from scratchfs.api.shape_stream import is_stream
from scratchfs.api.shape_terminal import coloured, is_terminal
from scratchfs.api.shape_words import short_name
from scratchfs.api.shape_xml import selectable
from scratchfs.api.table_reads import headless
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument, NotJson
from scratchfs.foundation.limits import DEFAULT_READ_BYTES, MIN_REPLY_BYTES
from scratchfs.foundation.text import plural

_WHAT = {"html": "an HTML page", "csv": "a CSV/TSV table", "log": "log output", "text": "text",
         "xml": "XML", "binary": "binary data", "json": "one JSON document", "jsonl": "JSON lines"}
_EXAMPLES: dict[str, tuple[tuple[str, dict[str, object]], ...]] = {
    "csv": (("row= (rows with the header, e.g. ", {}), ("row=1", {"row": 1}),
            ("; columns= picks some)", {}), (" or jq= with slurp=true (all rows at once)", {})),
    "csv headless": (("row= (e.g. ", {}), ("row=1", {"row": 1}), ("; columns=[0, 2] picks some, by number)", {}),
                     (" or jq= with slurp=true (all rows at once, each an array of its cells)", {})),
    "binary": (("offset= and length= (byte ranges; its first ones: ", {}),
               (f"offset=0, length={DEFAULT_READ_BYTES}", {"offset": 0, "length": DEFAULT_READ_BYTES}), (")", {})),
    "json": (("jq= (e.g. ", {}), ('jq="keys[]"', {"jq": "keys[]"}), (", then a path into what one of them holds)", {})),
    "json array": (("jq= (e.g. ", {}), ('jq=".[0]"', {"jq": ".[0]"}), (", its first item; .[N:M][] some of them)", {})),
    "jsonl": (("record= (e.g. ", {}), ("record=1", {"record": 1}), ("; jq= with it filters each record)", {})),
    "xml": (("select= (each element a CSS selector matches, its tag, attributes and text; e.g. the root's children: ",
             {}), ('select=":root > *"', {"select": ":root > *"}), (")", {}))}
"""The reads that fit a kind, in words split at their examples, each example's arguments written as words (where no
handle is known) and as data: an example is a call that runs on any content of its kind (``keys[]`` on an object or
an array; one whose shape says it is an array, ``"json array"``: its items, not the numbers ``keys[]`` lists)."""
_FITS = {"html": 'view="text" (the page\'s readable text) or select= (the text of the elements a CSS selector '
                 'matches, e.g. select="h2")',
         "terminal": 'view="text" (rendered as a terminal shows it)',
         **{kind: "".join(text for text, _ in parts) for kind, parts in _EXAMPLES.items()}}
"""The reads that fit a kind, as a model reads them (:data:`_EXAMPLES` joined, for the kinds that have examples)."""
_SLURP_FOR = ("slurp=true is for JSON lines, JSON texts one after another, CSV/TSV tables and tables aligned by spaces "
              "or drawn with pipes under a header line")

T = TypeVar("T")
_SELECTOR_CHARS = 60  # most characters of a selector a refusal echoes
_DRAWN_OTHERWISE = re.compile(rb"[\x1b\x08\r]")  # an escape, a backspace, a \r: what a terminal shows otherwise
_TAG = re.compile(rb"<[A-Za-z][A-Za-z0-9-]*[\s/>]")  # an HTML element's start tag
_TAG_SCAN_BYTES = 1 << 20  # bytes scanned for a tag at a time


def what_it_holds(content_type: str | None, shape: str | None = None) -> str:
    """What an entry of ``content_type`` and ``shape`` (its stored shape text, ``None``: unknown) holds, as a noun
    phrase: ``"an HTML page"``, ``"terminal output"`` (a log of escape sequences or overwritten lines), ``"log
    output"``, ``"text (grep-style path:line: output)"``, ``"binary data (gzip)"`` (the format its shape names),
    ``"content of no detected type"``..."""
    if is_terminal(content_type, shape):
        return "terminal output"
    if content_type == "binary" and binary_format(shape) is not None:
        return f"binary data ({binary_format(shape)})"
    if is_aligned(content_type, shape):
        return "a table aligned by spaces"
    if content_type == "text" and headless_columns(shape) is not None:
        return f"text in {plural(headless_columns(shape) or 0, 'column')} aligned by spaces with no header line"
    if is_piped(content_type, shape):
        return piped_noun(shape)
    if is_stream(content_type, shape):
        return "JSON texts one after another (a stream of documents, as jq prints them)"
    what = _WHAT.get(content_type or "", "content of no detected type")
    said = plain_said(shape) if content_type == "text" else None
    return f"{what} ({GREP_SAID})" if said is not None and said.grep else what


def _viewed(kind: str, handle: str) -> Advice:
    """The reads of an HTML page (``kind`` ``"html"``) or terminal output of ``handle`` that show its text, as calls
    (a face writes them its own way: the CLI as commands)."""
    text = Call.of("read_handle", handle=handle, view="text")
    if kind == "terminal":
        return Advice.of("its text rendered as a terminal shows it, ", text)
    return Advice.of("its readable text, ", text, ", or the text of the elements a CSS selector matches, e.g. ",
                     Call.of("read_handle", handle=handle, select="h2"))


def fitting_reads(content_type: str | None, line_bytes: float = 0.0, shape: str | None = None,
                  handle: str | None = None, slurp: Advice | None = None) -> str | Advice:
    """The ``read_handle`` arguments that fit an entry of ``content_type`` (``None``: not detected) and ``shape``
    (``view="text"`` for an HTML page, terminal output and a coloured kind of text alone), as a phrase ending in the
    reads that fit every entry: lines (byte ranges when its lines average ``line_bytes`` bytes, more than a default
    read, as a one-line JSON document's do, or when it is binary data: the stub's rule) and searches (UTF-16 text:
    its reads with ``encoding=``, and ``iconv`` for a structure read). With
    ``handle``, the text views' reads are calls of it (:class:`~scratchfs.foundation.calls.Advice`); ``slurp``, the
    slurp read of a refused jq read (:func:`~scratchfs.api.jq_failure.rows_slurped`), leads a table's reads in
    place of the words "jq= with slurp=true"."""
    kind = "terminal" if is_terminal(content_type, shape) or coloured(shape) else content_type or ""
    tabled = is_aligned(content_type, shape) or is_piped(content_type, shape) or (  # (read as a table's rows;
        slurp is not None and content_type == "text" and headless_columns(shape) is not None)  # text in columns with
    # no header line too, for a jq read, which is given its slurp read only when a rows read splits its cells)
    if handle is not None and kind in ("html", "terminal") and not tabled and not is_stream(content_type, shape):
        by = "byte range (offset=, length=)" if line_bytes > DEFAULT_READ_BYTES else "lines (line=, lines=)"
        return Advice.of("read ", _viewed(kind, handle), f"; or read it by {by} or by search (match=, pattern=)")
    table = kind == "csv" or tabled  # (aligned by spaces or drawn with pipes: read as a table's rows)
    kind = "json array" if kind == "json" and (shape or "").startswith(ARRAY_SHAPE) else kind
    rows = "csv headless" if headless(content_type, shape) or (table and content_type == "text" and headless_columns(
        shape) is not None) else "csv"  # (a table with no header line: rows of cells)
    fits: str | Advice | None = (_fits(rows if table else kind, handle, slurp is None or not table)
                                 if kind != "xml" or selectable(kind, shape) else None)
    if table and slurp is not None:
        fits = Advice.of(slurp, "; or read it with ", fits)
    elif not table and is_stream(content_type, shape):
        fits = "jq= (a filter run on each document) or jq= with slurp=true (one filter over the array of them all)"
    if content_type == "binary" and compressed_format(shape):  # (compressed bytes hold no text)
        return Advice.of("read it with ", fits, "; no search (match=, pattern=) finds text in its compressed bytes")
    wide = {"UTF-16LE text": "utf-16le", "UTF-16BE text": "utf-16be"}.get(binary_format(shape) or "")
    if wide:  # (UTF-16 text: its reads as text, and where a structure read of it can be had)
        return Advice.of("read it as text, ", Call.of("read_handle", handle=handle, encoding=wide) if handle else
                         f'encoding="{wide}"', " (byte ranges, lines and match=, each with that encoding); no jq= or "
                         "rows read decodes UTF-16: convert it where it came from (iconv -f UTF-16 -t UTF-8)")
    if content_type == "binary":
        return Advice.of("read it with ", fits, " or by search (match=, pattern=)")
    by = "byte range (offset=, length=)" if line_bytes > DEFAULT_READ_BYTES else "lines (line=, lines=)"
    if table and slurp is not None:
        return Advice.of(fits, f", or by {by} or by search (match=, pattern=)")
    return Advice.of(*(["read it with ", fits, ", or "] if fits else ["read it "]),
                     f"by {by} or by search (match=, pattern=)")


def _fits(kind: str, handle: str | None, slurp: bool = True) -> str | Advice | None:
    """:data:`_FITS`'s reads of ``kind``, their examples whole calls of ``handle`` (``read_handle(handle="h_...",
    row=1)``, as every other refusal names its calls; a long one, past
    :data:`~scratchfs.foundation.limits.LONG_CALL_BYTES`, in its words: :meth:`Call.shown_when_long`); ``None``: none
    of its own. ``slurp`` false: a table's reads without the words of its slurp read (a refusal naming it as a
    call)."""
    if handle is None or kind not in _EXAMPLES:
        return _FITS.get(kind)
    parts: list[str | Call] = []
    for text, arguments in _EXAMPLES[kind] if slurp else _EXAMPLES[kind][:-1]:
        parts.append(Call.of("read_handle", handle=handle, **arguments).shown_when_long(text) if arguments else text)
    return Advice.of(*parts)


def holds(handle: str, content_type: str | None, shape: str | None, line_bytes: float, why: str,
          slurp: Advice | None = None) -> Advice:
    """The one phrase of every refusal of a read that does not fit an entry: ``"<handle> holds <what it holds>
    (content type <type>)<why>: <the reads that fit>"`` (:func:`what_it_holds`, :func:`fitting_reads` by ``shape``
    and ``line_bytes``, a table's led by ``slurp``, a refused jq read's slurp read); ``why`` says what does not fit,
    e.g. ``", which a row= read does not parse"``."""
    return Advice.of(f"{handle} holds {what_it_holds(content_type, shape)} (content type {content_type or 'unknown'})"
                     f"{why}: ", fitting_reads(content_type, line_bytes, shape, handle, slurp))


def jq_misfit(handle: str, content_type: str | None, exc: InvalidArgument, line_bytes: float = 0.0,
              shape: str | None = None, size: int = 0, slurp: Advice | None = None) -> str | Advice | None:
    """The message for a jq read of ``handle`` that failed with ``exc``: when jq could not parse the document
    (:class:`~scratchfs.foundation.errors.NotJson`: not JSON, not UTF-8) and the entry's stored content type is not
    ``json`` or ``jsonl``, what the entry holds and the reads that fit it, then the error's own message; for a
    document nested past jq's depth limit (stored as any type: shape detection calls it text), that it is JSON
    nested too deeply and the reads that fit; for an entry stored as JSON that jq cannot parse (cut short, or broken
    further on than its spill's shape read), jq's message and the read that shows where (:func:`_broken_json`, by
    the entry's ``size`` in bytes and ``line_bytes``, its average line length); else ``None`` (the error stands as
    it is: a filter's own error); ``shape``: the entry's, as :func:`what_it_holds` takes it; ``slurp``: the slurp
    read of the filter, which leads the reads of a table (CSV/TSV, aligned by spaces or drawn with pipes:
    :func:`fitting_reads`)."""
    if not isinstance(exc, NotJson):
        return None
    if exc.too_deep:  # a JSON document all the same (its stub's shape says so), whatever type it was given
        return (f"{handle} holds JSON nested too deeply for jq to parse (jq reads at most 10,000 levels): "
                f"{fitting_reads(None, line_bytes)}. ({exc})")
    if content_type in ("json", "jsonl"):
        return _broken_json(handle, exc, size, line_bytes) if exc.by_jq else None
    said = holds(handle, content_type, shape, line_bytes, ", which jq cannot parse as JSON", slurp)
    if not said.calls:  # (text, a log: the read of its start, as a call -- not the syntax of one alone)
        start = Call.of("read_handle", handle=handle, offset=0, length=DEFAULT_READ_BYTES) if (
            line_bytes > DEFAULT_READ_BYTES) else Call.of("read_handle", handle=handle, line=1, lines=50)
        said = Advice.of(said, "; its start: ", start)
    return Advice.of(said, f". ({exc})")


_LAST_LINES = 20
"""Lines a refusal's read of a cut document's end shows (``line=-20, lines=20``)."""


def _broken_json(handle: str, exc: NotJson, size: int, line_bytes: float) -> Advice:
    """jq's parse error ``exc`` over an entry stored as JSON of ``size`` bytes (its start parsed when it was
    spilled), with the read that shows where the parse failed: when jq met the end (a tool's output cut short), its
    last lines -- its last bytes when those lines may not fit half a default read (``line_bytes``, the average,
    :data:`_LAST_LINES` less one times, and the last one's length, jq's column: a minified document on one line,
    whose last lines are all of it, or a long last line after short ones, whose line read ends before the end) --,
    else, on line 1 or past :data:`~scratchfs.api.jq_failure.LONG_COLUMN_BYTES` bytes into a later line, the bytes
    around the byte jq stopped at (:func:`~scratchfs.api.jq_failure.bytes_around`; ``offset``, mapped from jq's
    line and column over the bytes jq read; on line 1 without it, ``column - 1``, jq counting bytes from 1: a
    minified document is one line, and a line read of a long line shows its start), else the line jq names, else a
    search."""
    if exc.at_end:
        last_lines = (_LAST_LINES - 1) * line_bytes + (exc.column if exc.column is not None else line_bytes)
        if line_bytes > DEFAULT_READ_BYTES or last_lines > DEFAULT_READ_BYTES // 2:  # (read by byte range)
            where: Call = Call.of("read_handle", handle=handle, offset=max(0, size - DEFAULT_READ_BYTES))
            last = "bytes"
        else:
            where, last = Call.of("read_handle", handle=handle, line=-_LAST_LINES, lines=_LAST_LINES), "lines"
        words = f"the document ends before its JSON does (an output cut short?); its last {last}: "
    elif exc.column is not None and (exc.line == 1 or (exc.offset is not None and exc.column > LONG_COLUMN_BYTES)):
        at = max(0, exc.column - 1) if exc.offset is None else exc.offset
        where = bytes_around(handle, at)
        words = f"the document is not valid JSON at byte {at:,}, so jq reads none of it; the bytes around it: "
    else:
        where = Call.of("read_handle", handle=handle, line=exc.line, lines=5) if exc.line is not None else Call.of(
            "read_handle", handle=handle, pattern="REGEX")
        words = "the document is not valid JSON there, so jq reads none of it; the text there: "
    return Advice.of(f"{exc}: {words}", where)


def text_misfit(handle: str, content_type: str | None, line_bytes: float = 0.0, shape: str | None = None) -> Advice:
    """The refusal of ``view="text"`` for an entry of ``content_type`` (not HTML, terminal output or text), in the
    words of every refusal (:func:`holds`): what it holds and the reads that fit it (jq= for JSON, record= for JSON
    lines, row= for CSV; ``line_bytes``, ``shape``: :func:`fitting_reads`)."""
    return holds(handle, content_type, shape, line_bytes, ', which view="text" does not render (it renders HTML pages '
                 "and terminal output)")


def plain_view(read: Callable[[int, int], bytes], content_type: str | None, shape: str | None) -> bool:
    """Whether ``view="text"`` of an entry would show it as it is, nothing rendered: text or a log (``content_type``)
    whose ``shape`` names neither terminal output nor lines ended by a lone ``\\r``, and whose first
    :data:`~scratchfs.api.shape.SAMPLE_BYTES` (the bytes its shape was told from; ``read(offset, length)`` reads
    them) hold no escape, backspace or ``\\r``. Never raises but as ``read`` does."""
    if content_type not in ("text", "log") or is_terminal(content_type, shape) or cr_ends_said(shape):
        return False
    return not _DRAWN_OTHERWISE.search(read(0, SAMPLE_BYTES))


def view_misfit(handle: str, content_type: str | None, shape: str | None, line_bytes: float = 0.0) -> Advice:
    """The refusal of ``view="text"`` (a page, a ``raw_offset``, a search) of an entry :func:`plain_view` finds
    would show as it is: what it holds and the reads that fit it."""
    return holds(handle, content_type, shape, line_bytes, ', which view="text" would show as it is: it renders HTML '
                 "pages and terminal output (escape sequences, \\r redraws, backspaces), and this holds none")


def no_element(read: Callable[[int, int], bytes], size: int, bound: int) -> bool:
    """Whether the first ``bound`` bytes of a content of ``size`` bytes (``read(offset, length)`` reads them) hold no
    HTML start tag (``<p>``, ``<div class=...``): a CSS select of it would match only the elements an HTML parser
    makes up around text (``html``, ``body``, ``p``) and give its whole text as one. Never raises but as ``read``
    does."""
    at, end = 0, min(size, bound)
    while at < end:
        chunk = read(at, min(_TAG_SCAN_BYTES + 64, end - at))  # (64: a tag name across the chunk's edge)
        if _TAG.search(chunk):
            return False
        at += _TAG_SCAN_BYTES
    return True


def members_misfit(handle: str, content_type: str | None, shape: str | None, line_bytes: float = 0.0) -> Advice:
    """The refusal of ``view="members"`` for an entry that is no tar or zip: what it holds and the reads that fit."""
    return holds(handle, content_type, shape, line_bytes, ', which view="members" does not list (it lists the '
                 "members of a tar or zip archive)")


def select_misfit(handle: str, content_type: str | None, shape: str | None, line_bytes: float, selector: str) -> Advice:
    """The refusal of a CSS select of ``selector`` in an entry of text, a log or binary data that holds no HTML
    element (:func:`no_element`, or none the selector matched): what it holds and the reads that fit it."""
    shown = json.dumps(short_name(selector, _SELECTOR_CHARS), ensure_ascii=False)  # (a long one kept the reads that
    return holds(handle, content_type, shape, line_bytes, f", in which select={shown} found no HTML element")  # fit
    # from the reply: 1,000 characters of é echoed as 6,000 bytes of \u escapes past its 2,048-byte cap)


def slurp_form(handle: str, kind: str | None, shape: str | None, filter: str | None = None,
               top: str | None = None) -> str:
    """A slurp read's form of an entry stored as ``kind`` (of ``shape``): ``"records"`` (JSON lines), ``"rows"``,
    ``"arrays"`` (a table, no header), ``"documents"`` (JSON texts, as ``jq -s``). Raises InvalidArgument for others,
    naming them -- for one JSON document, the read of jq ``filter`` without slurp (the stub's placeholder ``JQ``:
    a read to write a filter from, by the document's ``top`` level: an array's first item, else its keys)."""
    if kind == "jsonl" or is_stream(kind, shape):
        return "records" if kind == "jsonl" else "documents"
    if is_aligned(kind, shape) or is_piped(kind, shape):
        return "rows"
    if kind == "csv":
        return "arrays" if headless(kind, shape) else "rows"
    if kind == "json":  # (before the placeholder's refusal, whose examples are for an array of records or rows)
        own = bool(filter) and filter.strip() != PLACEHOLDER  # (else the stub's placeholder: a filter to write)
        read = Call.of("read_handle", handle=handle, jq=filter if own else ".[0]" if top == "array" else "keys[]")
        if len(str(read).encode("utf-8")) > MIN_REPLY_BYTES // 2:  # (a filter of up to 4 KiB, which a tool error
            read = read.shown("the same call without slurp")  # cut inside it: the CLI still writes it whole)
        raise InvalidArgument(Advice.of(
            "slurp=true does not apply to one JSON document (it joins records, rows or JSON texts into one array); "
            "without it, jq= sees the whole document: " + ("" if own else f'write your filter for "{PLACEHOLDER}", '
                                                           "e.g. "), read))
    if kind == "binary" and compressed_format(shape):  # (no search finds text in compressed bytes)
        raise InvalidArgument(f"{_SLURP_FOR}; {handle} is stored as binary, "
                              f"{binary_format(shape)}-compressed: read its bytes (offset=, length=); no search "
                              "(match=, pattern=) finds text in compressed bytes")
    if kind == "text" and headless_columns(shape) is not None:
        return "arrays"  # (a table aligned by spaces with no header line: split as the reads split it, or refused)
    other = ["; or read ", _viewed("html", handle)] if kind == "html" else [
        "; or read its elements by CSS selector, e.g. the root's children: ",
        Call.of("read_handle", handle=handle, select=":root > *")] if selectable(kind, shape) else []
    raise InvalidArgument(Advice.of(f"{_SLURP_FOR}; {handle} is stored as {kind or 'unknown'}"
                                    ": search it (match=, pattern=, count=true) or read its " + (
                                        "bytes (offset=, length=)" if kind == "binary" else "lines"), *other))


def refusal(handle: str, content_type: str | None, read: str, how: str = "", line_bytes: float = 0.0,
            shape: str | None = None, slurp: Advice | None = None) -> Advice:
    """The refusal of a ``read=`` read (``"jq"``, ``"record"``, ``"row"``, ``"select"``) of ``handle`` that does not
    fit what it holds (``how``: e.g. ``" over several lines"``), naming what it is and the reads that fit
    (:func:`what_it_holds`, :func:`fitting_reads` by ``shape`` and ``line_bytes``; a table's led by ``slurp``, the
    slurp read of a refused jq read)."""
    return holds(handle, content_type, shape, line_bytes, f"{how}, which a {read}= read does not parse", slurp)


def columns_misfit(handle: str, read: str, shape: str | None) -> Advice | None:
    """The refusal of a rows read (``read``: ``"row="``, ``"slurp=true"``) of text whose ``shape`` says its first
    lines stand in columns aligned by spaces with no header line (:func:`~scratchfs.api.shape_columns.columns_said`)
    but whose cells are not parted by runs of spaces alone (:func:`~scratchfs.api.shape_columns.runs_starts`),
    naming, as calls, the reads that work on it: its lines, and a pattern over its columns (a column's value: the
    words before it skipped); ``None`` for any other shape."""
    count = headless_columns(shape)
    if count is None:
        return None
    return Advice.of(
        f"{handle} holds text whose lines stand in {plural(count, 'column')} aligned by spaces, with no header line, "
        f"and some cell of its first lines holds a space: a {read} read, which splits such lines at runs of spaces, "
        "would cut it. Read its lines: ", Call.of("read_handle", handle=handle, line=1, lines=50),
        "; or find the lines whose third column (two words skipped before it) is VALUE: ",
        Call.of("read_handle", handle=handle, pattern=r"^\s*(?:\S+\s+){2}VALUE(?:\s|$)", context="line"))


def explained_jq(handle: str, content_type: str | None, read: Callable[[], T], line_bytes: float = 0.0,
                 shape: str | None = None, size: int = 0, slurp: Advice | None = None) -> T:
    """``read()`` (a jq read of ``handle``, an entry of ``size`` bytes).

    Raises:
        InvalidArgument: as ``read`` raises it; NotJson, one raised because the document is not JSON, with
            :func:`jq_misfit`'s message by ``content_type`` and ``shape``, the entry's (and ``line_bytes``, its
            average line length, and ``slurp``, the filter's slurp read: :func:`fitting_reads`). Other errors pass
            unchanged."""
    try:
        return read()
    except InvalidArgument as exc:
        advice = jq_misfit(handle, content_type, exc, line_bytes, shape, size, slurp)
        if advice is None:
            raise
        raise told_not_json(exc, advice) from None


def told_not_json(exc: NotJson, advice: str | Advice) -> NotJson:
    """``exc`` (a document jq cannot parse) told as ``advice`` (:func:`jq_misfit`'s), its fields kept."""
    return NotJson(advice, by_jq=exc.by_jq, line=exc.line, at_end=exc.at_end, too_deep=exc.too_deep,
                   column=exc.column, offset=exc.offset)


__all__ = ["columns_misfit", "explained_jq", "fitting_reads", "holds", "jq_misfit", "members_misfit", "no_element",
           "plain_view", "refusal", "select_misfit", "slurp_form", "text_misfit", "told_not_json", "view_misfit",
           "what_it_holds"]
