"""The structure read a stub's note names next (:mod:`scratchfs.api.stub`): the one that fits its content type --
``jq=`` over a JSON document (the read its shape's describer chose, :attr:`~scratchfs.api.shape.Shape.next_read`,
else ``keys[]``), the rows of a table (CSV/TSV, aligned by spaces or drawn with pipes) or the records of JSON lines from
the first the preview does not show whole (counted as the engine's rows and records reads count them: a CSV row may span
lines, blank lines are no record), an HTML page's or terminal output's text view -- and the reads by match and by
pattern."""

from __future__ import annotations

import bisect
import codecs
import re
from collections.abc import Iterator

from scratchfs.api.jq_inputs import PLACEHOLDER
from scratchfs.api.shape_aligned import header_line, is_aligned
from scratchfs.api.shape_columns import COLUMNS_BYTES, headless_columns, runs_starts
from scratchfs.api.shape_pipes import is_piped
from scratchfs.api.shape_settings import FIND_KEY, is_settings
from scratchfs.api.shape_stream import is_stream
from scratchfs.api.shape_table import is_headless
from scratchfs.api.shape_terminal import coloured, is_terminal
from scratchfs.api.shape_testrun import failure_reasons
from scratchfs.api.table_footer import footer_cut
from scratchfs.engine.patterns import MAX_LINE_BYTES
from scratchfs.engine.structure import (
    MAX_JQ_DOCUMENT_BYTES,
    MAX_SLURP_BYTES,
    MAX_XML_BYTES,
    BytesSource,
    iter_rows,
    rows_page,
)
from scratchfs.engine.structure.aligned import Layout, headless_layout, source_layout
from scratchfs.engine.structure.aligned_lines import is_row, is_total
from scratchfs.engine.structure.paging import iter_lines
from scratchfs.foundation.calls import render_call
from scratchfs.foundation.errors import BadRecord, ScratchError, WideHeader
from scratchfs.foundation.limits import MAX_STUB_BYTES, REPLY_BUDGET_BYTES

__all__ = [
    "BY_MATCH",
    "BY_PATTERN",
    "FIRST_ITEM",
    "MEMBERS",
    "NARROW_BUDGET",
    "PLACEHOLDERS",
    "ItemsAfter",
    "RowsAfter",
    "after_handle",
    "arrays_said",
    "placeholder_said",
    "rows_after",
    "search_call",
    "structure_call",
    "text_first",
    "text_from",
]


def after_handle(**arguments: object) -> str:
    """What ``render_call("read_handle", handle=..., **arguments)`` writes after the handle's argument and its
    ``", "``: the other arguments and the closing parenthesis (made once, for every note)."""
    return render_call("", **arguments)[1:]


ROWS, RECORDS = 20, 10  # the rows and the records a note's read asks for
_KEYS = after_handle(jq="keys[]")  # a JSON object's keys, one result each (a page of them, then a cursor: "keys"
# is one array, whose JSON past a page is cut into an escaped "part", 2 bytes more a key): its shape names not all
_TEXT_VIEW = after_handle(view="text")  # an HTML page's text, terminal output rendered
PLACEHOLDERS = {"match": "TEXT", "pattern": "REGEX"}
"""What a note writes for the model's own needle and pattern (a search of them finds nothing, saying why)."""


def placeholder_said(name: str, value: str, hit: bool = False) -> str | None:
    """What a search of ``name`` (``"match"``, ``"pattern"``) ``value`` says when ``value`` is the placeholder a
    stub's note writes for it (:data:`PLACEHOLDERS`, or a settings stub's :data:`FIND_KEY`: the stub's call run as
    written) -- ``'match="TEXT" is the stub's placeholder: write what you look for in its place'`` (``KEY``: write a
    key's name in its place), the one sentence of a stored content's search and of a text view's --, else ``None``;
    ``hit``: it found the placeholder's own text, windows the model did not look for."""
    keyed = name == "pattern" and value == FIND_KEY
    if PLACEHOLDERS.get(name) != value and not keyed:
        return None
    where = f", and these windows are where the text {value} itself is" if hit else ""
    what = "a key's name in place of KEY" if keyed else "what you look for in its place"
    return f'{name}="{value}" is the stub\'s placeholder{where}: write {what}'
BY_MATCH, BY_PATTERN = after_handle(match=PLACEHOLDERS["match"]), after_handle(pattern=PLACEHOLDERS["pattern"])
MEMBERS = after_handle(view="members")  # a tar's or a zip's every member, page by page (scratchfs.api.archive)
_BY_ITEMS = after_handle(jq=".[]")  # a JSON array past the jq bound: a path read, streamed
_BY_KEY = after_handle(jq=".KEY[]")  # a JSON object past it: the items of a key its shape names, streamed
FIRST_ITEM = after_handle(jq=".[0]")  # a JSON array within it, its first item not shown whole (ItemsAfter)
_EACH = after_handle(jq=PLACEHOLDER)  # JSON texts one after another: one filter run on each document (jq: a stream)
_SLURP = after_handle(jq=PLACEHOLDER, slurp=True)  # one jq filter over the array of all the rows (objects by name)
_FIND_KEY = after_handle(pattern=FIND_KEY, context="line")  # settings: the line of a key, no more (shape_settings)
_REASONS = after_handle(pattern="^E ", context="line")  # pytest's failures: each E line (their reasons), no more


def search_call(content_type: str | None, shape: str | None, head: bytes, longest: int) -> str:
    """The search a note names (after the handle) for a content whose longest line holds at most ``longest`` bytes:
    by match when a line may be longer than :data:`~scratchfs.engine.patterns.MAX_LINE_BYTES` (a pattern search
    refuses such a line); pytest's output whose ``head`` holds its failures' ``E`` lines
    (:func:`~scratchfs.api.shape_testrun.failure_reasons`): the search of those lines, every failure's reason in one
    call (1.3 KB for 5 failures, where a read of one failure's traceback was 3 KB); else by the placeholder pattern."""
    if longest > MAX_LINE_BYTES:
        return BY_MATCH
    return _REASONS if failure_reasons(content_type, shape, head) else BY_PATTERN


ARRAYS_SAID = "; with slurp=true its rows are arrays, columns by number from 0 (.[] | select(.[1] > 5))"
"""What a note says of a table with no header line whose slurp read it names (:func:`arrays_said`)."""


def arrays_said(content_type: str | None, shape: str | None, by_structure: str | None) -> str:
    """What a note adds after what its preview shows when ``by_structure`` (the structure read it names,
    :func:`structure_call`) is a slurp over a table with no header line (``content_type`` ``"csv"``, ``shape``
    saying "no header"): :data:`ARRAYS_SAID`, that each row is an array (no object by name: ``.name`` fails, ``.[1]``
    reads), so that the model's first filter is right; else ``""``."""
    headless = content_type == "csv" and shape is not None and is_headless(shape)
    return ARRAYS_SAID if headless and by_structure is not None and _SLURP in by_structure else ""


def text_first(content_type: str | None, shape: str | None) -> str | None:
    """How a note names the text view first (:func:`text_from`), ``None`` for not first: ``"raw"`` for terminal
    output and coloured text, whose bytes are full of escapes (6 bytes of JSON each, and every redraw of a line),
    where the view renders them; ``"html"`` for an HTML page, whose preview shows markup and whose view its text."""
    if content_type == "html":
        return "html"
    return "raw" if is_terminal(content_type, shape) or coloured(shape) else None


def text_from(covered: int, form: str = "raw") -> str:
    """The text view's read (after the handle's argument) from where a preview of bytes ``0-covered`` stops, of a
    ``form`` :func:`text_first` gives: ``raw_offset=`` starts it at the rendered line holding that stored byte (the
    line a raw preview cut, whole); an HTML page's from its text's start (its view is paged by offset into the text,
    which no stored byte names)."""
    return after_handle(view="text", raw_offset=covered) if covered and form == "raw" else _TEXT_VIEW


def structure_call(call: str, content_type: str | None, shape: str | None, size: int,
                   next_read: str | None, top: str | None = None) -> str | None:
    """The structure reads (each after ``call``, the ``read_handle(handle=...`` start, but the first) a note names for a
    content of ``size`` bytes, ``None`` for none (terminal output, coloured text, an HTML page: their text view comes
    first, :func:`text_from`); a table aligned by spaces' or drawn with pipes' rows and one jq over all of them; a JSON
    document's ``next_read`` (the jq filter its shape's describer chose) or ``keys[]``, past
    :data:`~scratchfs.engine.structure.MAX_JQ_DOCUMENT_BYTES` a path that streams; JSON texts one after another's
    filter run on each; an XML document's ``select=`` of ``next_read`` (the CSS selector its shape's describer
    chose: :mod:`scratchfs.api.shape_xml`; none past :data:`~scratchfs.engine.structure.MAX_XML_BYTES`); a table's
    or JSON lines' ``slurp=true`` within its bound -- their rows or records read, which depends on the preview, is
    :class:`RowsAfter`'s. ``top``: a JSON document's top level, ``"array"`` or ``"object"``
    (:attr:`~scratchfs.api.shape.Shape.top`, handed over by its describer: never read back from ``shape``'s words)."""
    if text_first(content_type, shape):
        return None  # colours, cursor moves, progress bars, an HTML page's markup: the text view, named first
    if is_settings(content_type, shape):  # key = value lines: a search for a key, its name in the pattern
        return _FIND_KEY
    if is_aligned(content_type, shape) or is_piped(content_type, shape):  # a table aligned by spaces or drawn with
        return _SLURP  # pipes: (its rows: RowsAfter) one jq over all of them
    if content_type == "json" and size > MAX_JQ_DOCUMENT_BYTES:  # past the jq bound only paths stream
        return {"array": _BY_ITEMS, "object": _BY_KEY}.get(top or "")
    if content_type == "json" and next_read is not None:  # every key named: not jq="keys[]"
        return after_handle(jq=next_read)
    if content_type == "xml":  # the elements its shape's describer chose: a JUnit report's failures, else the
        return None if next_read is None or size > MAX_XML_BYTES else after_handle(select=next_read)  # repeated
        # ones (shape_xml)
    if content_type == "json" and top == "array":
        return FIRST_ITEM  # (an array's keys are its indices: its first item shows what they hold)
    if is_stream(content_type, shape):  # documents one after another: a filter runs on each, its shape names
        return _EACH if size > MAX_SLURP_BYTES else f"{_EACH} | {call}, {_SLURP}"  # their keys; slurp=true: one
    if content_type in ("csv", "jsonl"):  # (their rows or records: RowsAfter) and one jq over all of them
        return _SLURP if size <= MAX_SLURP_BYTES else None  # -- to count, group or find the largest
    return _KEYS if content_type == "json" else None


_BOM = codecs.BOM_UTF8
_JSON_SPACE = b" \t\r\n"  # (RFC 8259's whitespace)
_JSON_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|"|[][{},]', re.DOTALL)  # a string (a lone ": cut short), a
# bracket (a string's run of plain bytes taken at once, Friedl's unrolled loop: not a byte per alternation)


class ItemsAfter:
    """The read a note names in place of :data:`FIRST_ITEM` for a JSON array opened at the start of ``head`` (the
    content's first bytes, after a UTF-8 BOM and whitespace): ``jq=".[K:][]"``, the items after the ``K`` a preview
    shows whole, paged with a next_call, as a table's rows and JSON lines' records are read from the first the preview
    does not show whole (:class:`RowsAfter`). ``jq=".[0]"`` repeated what such a preview showed (the first of 8
    records, say) and ended with no next_call. The top level is scanned once, as far as a stub's preview reaches."""

    __slots__ = ("closed", "ends", "total")

    def __init__(self, head: bytes) -> None:
        text = head[: MAX_STUB_BYTES + 1]  # (the byte after the longest preview's: does a number end there?)
        start = len(text) - len(text.removeprefix(_BOM).lstrip())
        self.ends: list[int] = []  # where each top-level item ends, the byte after its last
        self.closed: int | None = None if text[start : start + 1] == b"[" else 0  # (0: no array, no read)
        self.total: int | None = None  # the array's items, when its end is in the head
        depth, items, after = 0, 0, start  # (items: the top level's commas so far, plus one; after: its last one's end)
        for token in _JSON_TOKENS.finditer(text, start) if self.closed is None else ():
            kind = token.group()[:1]
            if token.group() == b'"':  # a string the head cuts: what follows is in it, no bracket nor comma
                return
            if kind in (b"[", b"{"):
                depth += 1
                items += depth == 1
                after = token.end() if depth == 1 else after
            elif kind in (b"]", b"}"):
                depth -= 1
                if depth == 0:  # (the array ends: no item follows it; a number, true, false or null before it
                    self._scalar(text, after, token.start(), items)  # ends where its bytes do)
                    self.closed, self.total = token.start(), items
                    return
                if depth == 1:
                    self.ends.append(token.end())
            elif depth == 1 and kind == b",":
                self._scalar(text, after, token.start(), items)
                items, after = items + 1, token.end()
            elif depth == 1 and len(token.group()) > 1:  # a string, whole with its closing quote
                self.ends.append(token.end())
        if depth == 1:  # the head ends in the top level: a scalar there is whole if a space after it says so
            self._scalar(text, after, len(text), items)

    def _scalar(self, text: bytes, after: int, stop: int, items: int) -> None:
        """Record the end of the number, true, false or null between bytes ``after`` and ``stop`` (a comma, the
        array's ``]`` or the head's end), when the item there has none yet: the byte after its last, not the
        comma's -- a preview ending between them (``[1, 2, 3`` of ``[1, 2, 3 , 4]``) shows it whole. One the head's
        end cuts (no whitespace after it there: ``[1, 2, 3`` may go on ``4``) gets none."""
        item = text[after:stop].rstrip(_JSON_SPACE)
        if len(self.ends) < items and item.strip(_JSON_SPACE) and (stop < len(text) or after + len(item) < stop):
            self.ends.append(after + len(item))

    def call(self, covered: int) -> str | None:
        """The read's arguments after the handle's (``jq=".[8:][]")``), ``None`` when the preview of bytes
        ``0-covered`` shows no item whole (the first item's read shows one) or the end of the array, ``""`` when it
        shows every item but the ``]`` after them (no read of items is left to name; the head holds the ``]``)."""
        if self.closed is not None and self.closed < covered:
            return None
        shown = bisect.bisect_right(self.ends, covered)
        return ("" if shown == self.total else after_handle(jq=f".[{shown}:][]")) if shown else None


_ROWS_REACH = MAX_STUB_BYTES + 16 * 1024  # bytes of a table's start its rows are read in for a note: a preview
# shows at most MAX_STUB_BYTES, and a row that runs past this reach from before the preview's end is cut by it (the
# read starts there) -- where the rows read would read a whole 512 KiB sample in its 256 KiB chunks


def rows_after(content_type: str | None, head: bytes, size: int, shape: str | None) -> RowsAfter | None:
    """The :class:`RowsAfter` of a table (CSV/TSV, text whose shape says it is a table aligned by spaces or drawn
    with pipes, or text
    whose shape says its first lines stand in columns with no header line, when a rows read splits them:
    :func:`~scratchfs.api.shape_columns.runs_starts` of the bytes that read tells it from) or of JSON lines, else
    ``None`` (``head``: the content's first bytes, at least
    :data:`~scratchfs.api.shape_columns.COLUMNS_BYTES` of them or all; ``size``: all of its bytes)."""
    if content_type in ("csv", "jsonl"):
        return RowsAfter(content_type, head, size, shape)
    if is_aligned(content_type, shape):  # (its layout told again from its first lines, as a rows read tells it)
        return RowsAfter("csv", head, size, shape, aligned=True)
    if is_piped(content_type, shape):  # (its rows read as a rows read reads them, by its layout)
        layout = source_layout(BytesSource(head), piped=True)
        return None if layout is None else RowsAfter("csv", head, size, shape, layout=layout)
    told = runs_starts(head[:COLUMNS_BYTES]) if content_type == "text" and headless_columns(shape) is not None else None
    if told is not None:  # (no header: row 1 its first line, or the one after ls -l's total; split at runs of spaces,
        return RowsAfter("csv", head, size, shape, aligned=True, headed=False, layout=headless_layout(*told))  # as
    return None  # the rows read splits it -- cells holding spaces refuse it: no row=)


NARROW_BUDGET = REPLY_BUDGET_BYTES - 1024
"""The budget (bytes) of the page a note's rows read is checked against: a reply's, less what its other fields may
take."""


def narrowed(head: bytes, headed: bool = True, layout: Layout | None = None) -> list[int] | None:
    """The columns (by number, from 0) a note's rows read names for a table whose start is ``head``: ``None`` (all
    of them) when its header fits a page of the default reply budget, else the first that fit (at most 16, at
    least one) -- a read of a header of 10,000 columns is refused, naming this one; ``headed`` false (no header
    line): ``None``; ``layout``: a table drawn with pipes, read by it. Raises nothing."""
    if not headed or (layout is None and _fits_surely(head)):  # (the rows read below added ~50 us a CSV stub:
        return None  # bench/shape_calls.py)
    try:
        rows_page(BytesSource(head), 1, 1, budget_bytes=NARROW_BUDGET, layout=layout)
    except WideHeader as exc:
        return list(exc.fitting or (0,))
    except (ScratchError, ValueError):
        pass  # (a table the reader refuses: its rows read says why)
    return None


_SURE_LINE_BYTES = (NARROW_BUDGET // 2 - 2) // 9  # a header's line this short takes at most half the budget


def _fits_surely(head: bytes) -> bool:
    """Whether the header of the table ``head`` starts takes at most half of :data:`NARROW_BUDGET` (the most a
    first page lets it) for sure: its compact JSON text takes at most 6 bytes a byte (a control character's
    ``\\u`` escape) and 3 a cell (quotes, comma) -- 9 a byte of its line, plus the brackets -- when no quote lets a
    cell run past its line. The header is the first line after a ``sep=`` line and the ``#`` comment lines, or the
    last of those (:func:`~scratchfs.engine.structure.table_start.leading_comments`): each must be at most
    :data:`_SURE_LINE_BYTES` and hold no quote; ``False`` (the rows read decides) otherwise."""
    lines = head[:8192].split(b"\n", 67)
    for number, line in enumerate(lines[:66]):
        line = line.removeprefix(b"\xef\xbb\xbf") if number == 0 else line
        if len(line) > _SURE_LINE_BYTES or b'"' in line:
            return False
        if not line.startswith(b"#") and not (number == 0 and line.startswith(b"sep=")):
            return number + 1 < len(lines)  # (a whole line: the head goes on after it)
    return False


class RowsAfter:
    """The rows read (a table's, ``content_type`` ``csv``; ``aligned``: a table aligned by spaces; ``layout``: one
    drawn with pipes, whose rows the reads read by it) or the records
    read (``jsonl``) a note names after a preview of ``head`` (the content's first bytes: at least a row past the
    preview, or all of it when ``size`` is no more): from the first row or record the preview does not show whole,
    counted as the engine's reads count them (:func:`~scratchfs.engine.structure.iter_rows`: a quoted field may hold
    line ends, the header is no row unless ``shape`` says "no header" or ``headed`` is false -- text in columns
    with no header line --; a record is a line that is not blank, as a ``record=`` read numbers them). ``leads``: a
    CSV/TSV's with a header, which a note names first (a line read splits a row whose quoted field holds line ends)."""

    __slots__ = ("_known", "_narrowed", "_refused", "_starts", "_walk", "aligned", "head", "headed", "layout", "leads",
                 "shape", "size", "word")

    def __init__(self, content_type: str, head: bytes, size: int, shape: str | None, aligned: bool = False,
                 headed: bool = True, layout: Layout | None = None) -> None:
        self.head, self.size, self.shape, self.aligned, self.layout = head, size, shape, aligned, layout
        self.word = "row" if content_type == "csv" else "record"
        self.headed = headed and not (shape is not None and is_headless(shape))
        self.leads = self.word == "row" and self.headed and not aligned
        self._known: dict[int, int | None] = {}
        self._starts: list[tuple[int, int]] = []  # (number, start) of the rows read so far: _starts_known
        self._walk: Iterator[tuple[int, int]] | None = None
        self._refused = False
        self._narrowed: list[int] | bool | None = False  # (False: not told yet; None: every column fits)

    def first_unshown(self, covered: int) -> int | None:
        """The number (from 1) of the first row or record the preview of bytes ``0-covered`` does not show whole;
        ``None`` when it shows all of them (the rest of the content blank lines). Never raises: a table the reader
        refuses (its header unreadable) gives 1."""
        if self._refused:
            return 1
        if covered not in self._known:
            try:
                found = self._row(covered) if self.word == "row" else self._record(covered)
            except (ScratchError, ValueError):
                self._refused = True  # (for every preview size: the rows read so far end where it refused)
                return 1
            self._known[covered] = found
        return self._known[covered]

    def call(self, covered: int) -> str | None:
        """The read's arguments after the handle's (``row=9, rows=20)``), ``None`` when the preview shows every
        row or record."""
        first = self.first_unshown(covered)
        if first is None:
            return None
        if self.word == "record":
            return after_handle(record=first, records=RECORDS)
        if self._narrowed is False:
            self._narrowed = None if self.aligned else narrowed(self.head[:_ROWS_REACH], self.headed, self.layout)
        return after_handle(row=first, rows=ROWS, columns=self._narrowed)

    def _row(self, covered: int) -> int | None:
        head, whole = self.head, len(self.head) >= self.size
        last = 0  # the number of the last row that starts before the preview's end (0: the header)
        for number, start in self._starts_known():
            if start >= covered:  # the row before it is whole when only line ends lie between
                return max(1, last if head[covered:start].strip(b"\r\n") else number)
            last = number
        if whole and not head[covered:].strip(b"\r\n"):
            return None  # (the preview shows every row)
        return max(1, last)

    def _starts_known(self) -> Iterator[tuple[int, int]]:
        """:meth:`_row_starts`, read once for every preview size tried (the rows read's setup and the rows before
        the preview's end are read again for none)."""
        yield from self._starts
        if self._walk is None:
            self._walk = self._row_starts()
        for found in self._walk:
            self._starts.append(found)
            yield found

    def _row_starts(self) -> Iterator[tuple[int, int]]:
        """``(number, byte offset where it starts)`` of each row after the header, as the engine's rows read
        numbers them: a CSV table's by :func:`~scratchfs.engine.structure.iter_rows` (a row that cannot be read
        passed over, keeping its number), and one drawn with pipes' by its layout; a table aligned by spaces' by its
        lines alone, as that read splits them (after its header line, the one its shape names, up to the first blank
        line, a rule of dashes after rows or a last line of totals: :func:`_aligned_starts`): its layout (told from
        32 KiB of lines, which no stub reads) changes the cells, not where the rows start."""
        head = self.head
        if self.aligned:
            at = 0 if self.layout is None else self.layout.start  # (a table with no header: past ls -l's total)
            for _ in range(header_line(self.shape) + 1 if self.headed else 0):  # (past the header line, if any)
                end = head.find(b"\n", at)
                if end < 0:
                    return
                at = end + 1
            yield from _aligned_starts(head, at, len(head) >= self.size)
            return
        passed: list[BadRecord] = []  # (a row that cannot be read: passed over, as a rows read's pages pass over
        told = 0  # it, its number kept; a row cut at the reach's end is one)
        reach = BytesSource(head[:_ROWS_REACH])  # (all of it: up to its footer, as the rows reads read it)
        reach = footer_cut(reach, "csv", self.shape) if len(head) >= self.size and reach.size == len(head) else reach
        rows = iter_rows(reach, passed=passed, headed=self.headed, layout=self.layout)
        for yielded, (start, _cells) in enumerate(rows):
            yield from ((bad.record, bad.offset) for bad in passed[told:])  # (before it)
            told = len(passed)
            yield yielded + len(passed) + (not self.headed), start  # (as iter_rows numbers them: the header 0)
        yield from ((bad.record, bad.offset) for bad in passed[told:])

    def _record(self, covered: int) -> int | None:
        head, number = self.head, 0
        for start, line in iter_lines(BytesSource(head), 0):
            text = line[len(_BOM) :] if start == 0 and line.startswith(_BOM) else line
            if not text.strip():  # (a blank line is no record: as the engine's record reads skip it)
                continue
            number += 1
            if start + len(line.rstrip()) > covered:  # (it starts after the preview's end, or the end cuts it)
                return number
        return None if len(head) >= self.size else number + 1


def _aligned_starts(head: bytes, at: int, whole: bool) -> Iterator[tuple[int, int]]:
    """``(number, byte offset where it starts)`` of each row of a table aligned by spaces whose lines (in ``head``,
    all of the content when ``whole``) start at byte ``at``, past its header, as a rows read numbers them: up to a
    blank line, a rule of dashes after rows, or a last line of totals
    (:func:`~scratchfs.engine.structure.aligned_lines.rows_end`: a footer, no row); a rule before the rows is no row."""
    number = 0
    while at < len(head):
        end = head.find(b"\n", at)
        end = len(head) if end < 0 else end
        line = head[at:end].decode("utf-8", "replace")
        if not is_row(line):
            if number or not line.strip(" \r"):  # (a blank line, or a rule after rows: the rows end)
                return
        elif is_total(line) and not _next_line(head, end, whole).strip(" \r"):  # (a last line of totals)
            return
        else:
            number += 1
            yield number, at
        at = end + 1


def _next_line(head: bytes, end: int, whole: bool) -> str:
    """The line after the one ending at byte ``end`` of ``head``, as text: ``""`` (a blank line) past its end when
    ``head`` is ``whole`` (the content's end), else ``"?"`` (a line not seen: maybe a row)."""
    if end + 1 >= len(head):
        return "" if whole else "?"
    after = head.find(b"\n", end + 1)
    return head[end + 1 : after if after >= 0 else len(head)].decode("utf-8", "replace")
