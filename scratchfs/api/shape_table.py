"""Tables and JSON lines told from a sample, for :mod:`scratchfs.api.shape`: which lines a table is told from, its
rows as the ``csv`` module reads them, their count (exact for a whole content, estimated for a sample), and the
records of JSON lines counted and their keys gathered as the structure reads number them.

Counts agree with the reads: a table's rows are the non-empty records the ``csv`` module reads (a quoted field over
several lines is one row), JSON lines' records are the lines that are not blank -- blank meaning what a
``record=`` read skips, ASCII white space only (:data:`RECORD_BLANKS`). Everything here runs over the sample
describe holds (at most 512 KiB), at C speed.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scratchfs.api import json_unclosed
from scratchfs.api.shape_merge import Merged, merged_items
from scratchfs.api.shape_words import plural
from scratchfs.engine.structure.numbers import LongIntegers
from scratchfs.engine.structure.row_lines import first_lines
from scratchfs.engine.structure.table import FIELD_LIMIT_CHARS
from scratchfs.engine.structure.table_start import DELIMITERS, any_number, data_votes, header_votes, leading_comments
from scratchfs.foundation.csv_rows import csv_reader

__all__ = [
    "HEAD_CHARS",
    "JSONL_HEAD_CHARS",
    "JSON_CLOSERS",
    "MOST_LEADING",
    "RECORD_BLANKS",
    "JsonLines",
    "comment_cut",
    "comments_said",
    "count_records",
    "estimate_records",
    "first_row_is_data",
    "first_table_line",
    "has_header",
    "is_headless",
    "is_json_text",
    "json_kind",
    "json_lines",
    "last_line_fault",
    "mixed_kinds",
    "no_delimited_start",
    "table_head",
    "table_kind",
    "table_lines",
    "tail_fault",
]

HEAD_CHARS = 8192
"""Characters of the start of a text a table is told from (all of the sample when they hold fewer than 2 newlines)."""
JSONL_HEAD_CHARS = 65536
"""Characters of the start of a text whose first lines tell JSON lines (all of the sample when they hold fewer than
2 whole lines)."""
RECORD_BLANKS = " \t\n\r\x0b\x0c"
"""What ``bytes.strip()`` strips: a line of only these is no record to a ``record=`` read."""
_BLANKS_BUT_NEWLINE = RECORD_BLANKS.replace("\n", "").encode()
_MOST_SCANNED = 2_000  # records whose keys and kinds a shape tells (``of the first 2,000`` when the sample holds more)
_MOST_SCANNED_LINES = 4 * _MOST_SCANNED  # lines looked at for them (blank lines between records too)
_PROBE_LINES = 20  # the first lines that tell JSON lines: all JSON, ...
_PROBE_MISS_SHARE = 10  # ... or all but one in this many JSON objects or arrays (a record cut or garbled, a log line)
MOST_LEADING = 3  # most lines not JSON before JSON lines told their first records (a tool's warnings: npm warn ...)
KEY_SCAN_CHARS = 128 * 1024
"""Characters of a sample's records (whole records, from its start) whose keys a JSON-lines shape lists
(``python bench/scan_costs.py``: 1.6-2.0 ms for a 512 KiB sample, 4.5-4.9 ms with the keys of all of it)."""
_TABLE_LINES = 50  # the first lines a table's columns are told from
assert csv.field_size_limit() >= FIELD_LIMIT_CHARS  # (raised by the table module: a sample's field is readable)


def table_head(text: str, whole: Callable[[], str]) -> str:
    """The head a table is told from: the first :data:`HEAD_CHARS` characters of ``text`` or, when those hold fewer
    than 2 line ends (``\\n``; ``\\r`` in text without one) -- a long first row --, ``whole()``: all of the sample
    as text (``text`` may be its start only)."""
    head = text[:HEAD_CHARS]
    end = "\n" if "\n" in head or "\r" not in head else "\r"
    return head if head.find(end, head.find(end) + 1) >= 0 else whole()  # (2 line ends: found, not counted)


def no_delimited_start(text: str) -> bool:
    """Whether ``text`` (a sample's start, as text) starts no table, told from its first line alone: no byte order
    mark, ``sep=`` line or comment line before it, and that line -- ended by ``\\n`` or ``\\r`` within the first
    :data:`HEAD_CHARS` characters, so that a table's head would start with it -- holds none of the delimiters
    (:data:`~scratchfs.engine.structure.table_start.DELIMITERS`), as most text's first line does not; ``False`` when
    it cannot tell."""
    if text.startswith(("\ufeff", "#", "sep=")):
        return False
    end = text.find("\n", 0, HEAD_CHARS)
    cr = text.find("\r", 0, HEAD_CHARS if end < 0 else end)
    end = cr if cr >= 0 else end
    tab, comma, semicolon = DELIMITERS  # (unrolled: no generator a text, every text's cost)
    return end >= 0 and text.find(comma, 0, end) < 0 and text.find(tab, 0, end) < 0 and text.find(semicolon, 0, end) < 0


def first_table_line(head: str) -> str:
    """The first line of ``head``, its end left out (:func:`table_lines`), found without copying the rest."""
    end = head.find("\n")
    cr = head.find("\r", 0, len(head) if end < 0 else end)
    end = cr if cr >= 0 else end
    return head if end < 0 else head[:end]


def table_lines(head: str, limit: int = _TABLE_LINES) -> list[str]:
    """The first ``limit`` lines of ``head`` (the last may be cut), their ends left out: a line ends at ``\\n``,
    ``\\r\\n`` or a lone ``\\r``, as a rows read cuts them (``\\n\\r`` line ends leave an empty line between
    rows; text without ``\\r``, and CRLF text, split at ``\\n`` at C speed: :func:`first_lines`)."""
    return first_lines(head, limit)


def first_row_is_data(rows: list[list[str]]) -> bool:
    """Whether the first of a table's ``rows`` is data like the rows under it rather than a header (as ``du -ah``
    and ``git log --format`` print tab-separated rows, with no header line): more of its columns vote for data
    than for a header (:func:`~scratchfs.engine.structure.table_start.data_votes`)."""
    return data_votes(rows) > 0


def has_header(rows: list[list[str]]) -> bool:
    """Whether the first of a table's ``rows`` is its header, by the types of its cells against those of the rows
    under it, column by column (:func:`~scratchfs.engine.structure.table_start.header_votes`): more columns vote
    for a header than for data, or one of its cells is a name over numbers or typed data -- or, no vote either way,
    it holds no number and no empty cell (``sqlite3 -csv``'s first row of a name and a version over rows of free
    text is data, and so is a wheel's ``RECORD`` line ``__pycache__/x.pyc,,``)."""
    votes, named = header_votes(rows)
    return named or votes < 0 or (votes == 0 and all(rows[0]) and not any_number(rows[0]))


def count_records(text: str, delimiter: str, lines: int) -> int:
    """The non-empty records of a whole CSV text as :mod:`csv` reads them (``lines`` if it cannot). Without quotes,
    carriage returns and NULs a record is a non-empty line, counted from one split (no parse)."""
    if '"' not in text and "\r" not in text and "\x00" not in text:
        parts = text.split("\n")
        if max(map(len, parts)) <= csv.field_size_limit():  # a longer field is an error to the csv module
            return len(parts) - parts.count("")
    try:
        return sum(map(bool, csv_reader(io.StringIO(text, newline=""), delimiter=delimiter)))  # (non-empty rows)
    except csv.Error:
        return lines


def estimate_records(head: str, delimiter: str, size: int, lines: int | None = None) -> int | None:
    """About how many records a content of ``size`` bytes and ``lines`` lines (``None``: not known) holds, from the
    whole lines of ``head`` (its start, a byte order mark left out, ``size`` counted without it): ``None`` when each
    of those lines is one record (the content's line count is then the answer), else the records of those lines
    per line of them, times ``lines`` -- per byte of them, times ``size``, for lines ending in ``\\r`` alone (one
    line to the count) or ``lines`` not known: rows that grow wider down the table (ids of more digits, a cell that
    lengthens) made a count per byte of the first rows 12 times too many (~73,900 of 6,000 rows: the first table of
    tests/test_shape_estimate_rows.py, counted per byte). Quoted fields over several lines, and
    blank lines, make the records fewer than the lines."""
    end = "\n" if "\n" in head or "\r" not in head else "\r"  # (lines ending in \r alone: the line count is 1)
    if end == "\n" and "\r" in head and head.count("\r") - head.count("\r\n") > head.count("\n"):
        end = "\r"  # (most lines end in a lone \r, a quoted field's \n in some: the \n count tells no rows)
    body = head[: head.rfind(end) + 1]
    newlines = body.count(end)
    records = count_records(body, delimiter, -1)
    if records == -1 or (records == newlines and end == "\n") or not body:
        return None
    if end == "\n" and lines is not None:
        return round(records * lines / newlines)
    return round(records * size / len(body.encode("utf-8")))


@dataclass(slots=True)
class JsonLines:
    """What a sample of JSON lines shows: ``first`` (the first record), ``keys`` (the scanned records that are objects
    merged, :func:`~scratchfs.api.shape_merge.merged_items`: every key, a key some lack marked; ``None`` if
    none is an object), ``kinds`` (how many scanned records are of each kind: ``object``,
    ``array``, ``str``, ``number``, ``bool``, ``null``), ``records`` (records in the sample's whole lines, a last one
    that is not JSON left out) and ``lines`` (those lines); ``last``, for a whole content: what its last record is
    when it is not JSON (:func:`last_line_fault`), else ``""``; ``bad``: the numbers (from 1, as ``record=`` reads
    number them) of the scanned records that are not JSON, the content's last aside; ``scanned``: how many were."""

    first: Any
    keys: Merged | None = None
    kinds: Counter = field(default_factory=Counter)
    records: int = 0
    lines: int = 0
    last: str = ""
    bad: list[int] = field(default_factory=list)
    scanned: int = 0


def last_line_fault(line: str, ended: bool, decoder: json.JSONDecoder) -> str:
    """``""`` if ``line`` (a content's last line that is not blank) is a JSON value, else what a JSON-lines shape
    says of it: ``"the last line cut"`` when no newline follows it (a capped stream ends inside a record), or
    ``"the last line not JSON"``; either with ``" (not JSON)"`` after the first."""
    if _is_json(line, decoder):
        return ""
    return "the last line not JSON" if ended else "the last line cut (not JSON)"


def tail_fault(tail: bytes, whole: bool, decoder: json.JSONDecoder) -> str | None:
    """:func:`last_line_fault` of the last line of a content whose last bytes are ``tail`` (``whole``: all of it),
    or ``None`` when ``tail`` holds no line's start (a last line longer than it)."""
    body = tail.rstrip(RECORD_BLANKS.encode())
    start = body.rfind(b"\n") + 1
    if not start and not whole:
        return None
    return last_line_fault(body[start:].decode("utf-8", "replace"), b"\n" in tail[len(body) :], decoder)


_TABLE_KIND = re.compile(r"(?:TSV|CSV(?: with ; separators)?)(?: \(named on a sep=[,;\t|] first line\))?, "
                         r"[\d,]+ columns(, no header)?")
"""How a delimited table's shape starts (:func:`table_kind`), and whether it has no header: all of it words of
ours, before the first of the content's (its column names come after it)."""


def table_kind(delimiter: str, named: str | None, width: int, headed: bool) -> str:
    """How the shape of a table of ``width`` columns split at ``delimiter`` starts (``named``: the separator a
    ``sep=`` first line named, or None; ``headed``: its first line is a header): ``"TSV, 3 columns"``, ``"CSV, 4
    columns, no header"`` -- the words :func:`is_headless` reads back, before any of the content's."""
    kind = {"\t": "TSV", ";": "CSV with ; separators"}.get(delimiter, "CSV") + (
        f" (named on a sep={named} first line)" if named else "")
    return f"{kind}, {plural(width, 'column')}" + ("" if headed else ", no header")


def is_headless(shape: str) -> bool:
    """Whether a delimited table's stored ``shape`` says it has no header line (:func:`table_kind`'s words at its
    start; a column name holding ``", no header, "`` is no such word)."""
    found = _TABLE_KIND.match(shape)
    return found is not None and found.group(1) is not None


def comment_cut(text: str) -> tuple[int, int]:
    """``(characters, lines)`` of the comment lines a table's text starts with, in its first :data:`HEAD_CHARS`:
    those every rows read passes over too (:func:`~scratchfs.engine.structure.table_start.leading_comments`)."""
    return leading_comments(text[:HEAD_CHARS]) if text.startswith("#") else (0, 0)  # (a comment line starts so:
    # most text's head is not copied for it)


def comments_said(comments: int, headed: bool = True) -> str:
    """What a table's shape says of the comment lines before its header -- or, ``headed`` false, before its first
    row (``"; the rows start at line 31, after 30 comment lines ..."``) -- ``""``: none."""
    first = "the header is" if headed else "the rows start at"
    return (f"; {first} line {comments + 1:,}, after {plural(comments, 'comment line')} (line=1, "
            f"lines={comments} reads them)") if comments else ""


def is_json_text(line: str) -> bool:
    """Whether ``line`` is one JSON text (NaN and Infinity as Python writes them read)."""
    return _is_json(line, LongIntegers())


JSON_CLOSERS = {"[": "]", "{": "}"}
"""The closer of a JSON array or object by its opener."""


def _is_json(line: str, decoder: json.JSONDecoder) -> bool:
    """Whether ``line`` is one JSON text; an array or object that does not end with its closer (blanks after it) is
    none, told without parsing it (512 KiB of ``[1,1,`` cut: 18 ms a parse; helper hostilecpu2)."""
    closer = JSON_CLOSERS.get(line[:1])
    if closer is not None and (line.rstrip(" \t\n\r")[-1:] != closer or json_unclosed.never_closed(line)):
        return False
    try:
        decoder.decode(line)
    except (ValueError, RecursionError):
        return False
    return True


def _probed(rows: list[str], decoder: json.JSONDecoder) -> list[Any] | None:
    """The JSON values of ``rows`` (a text's first lines, not blank) if they tell JSON lines, else ``None``: all of
    them JSON values, or -- one or a few not JSON (a record cut or garbled, a log line among the records) -- all but
    one in :data:`_PROBE_MISS_SHARE` of them JSON objects or arrays (a line that is not JSON, or a JSON scalar, is a
    miss: text whose lines start with JSON words, ``true``, ``404``, ``[1]``, is no JSON lines; up to MOST_LEADING
    lines not JSON before the first value are none), 2 at least. Gives up at the first miss past the bound."""
    allowed = len(rows) // _PROBE_MISS_SHARE
    values: list[Any] = []
    bad = scalars = leading = 0
    for row in rows:
        try:
            value = decoder.decode(row)
        except ValueError:  # (RecursionError goes on: the caller's "JSON nested too deeply to parse")
            first = not values and leading < MOST_LEADING  # (a tool's warning lines before its records: a read
            leading, bad = leading + first, bad + (not first)  # passes over them as over bad records, naming them)
            if bad > allowed:
                return None
            continue
        values.append(value)
        scalars += not isinstance(value, (dict, list))
    if (bad or leading) and (bad + scalars > allowed or len(values) < 2):
        return None
    return values


def json_lines(text: str, decoder: json.JSONDecoder, complete: bool) -> JsonLines | None:
    """The records of ``text`` (a sample, starting at its first non-blank character; ``complete``: the whole
    content) if its first whole lines (at most 20 in the first :data:`JSONL_HEAD_CHARS` characters, or in all of
    it when those hold fewer than 2) are 2 or more JSON values and nothing else -- or objects and arrays, all but one
    in 10 of them (:func:`_probed`: the shape names the records that are not JSON) --, else ``None``. Keys are gathered
    from the records of the sample's whole lines in its first :data:`KEY_SCAN_CHARS` characters (at least one
    record; a line that is not JSON adds none: a read names it)."""
    for head in (text[:JSONL_HEAD_CHARS], text):
        rows = head.split("\n", _PROBE_LINES)
        ends = complete and len(head) == len(text) and len(rows) <= _PROBE_LINES  # (at the content's last line)
        rows = rows[:_PROBE_LINES]
        if len(rows) > 1 and (len(head) < len(text) or not complete):
            rows = rows[:-1]  # the last may be cut by the sample's end
        rows = [row for row in rows if row.strip()]
        if len(rows) >= 2 or len(head) == len(text):
            break
    if len(rows) < 2 or (ends and len(rows) < 3 and not _is_json(rows[-1], decoder)):
        return None
    values = _probed(rows[: -1 if ends else None], decoder)  # (the content's last line: below)
    if values is None:
        return None
    body = text if complete else text[: text.rfind("\n") + 1]
    lines = body.count("\n") + (not body.endswith("\n"))  # (the empty rest after the last newline is no line)
    found = JsonLines(values[0], records=_records(body), lines=lines)
    if complete:
        found.last = last_line_fault(_last_record(body), "\n" in text[len(text.rstrip(RECORD_BLANKS)) :], decoder)
        found.records -= bool(found.last)
    scanned = _scanned(body)
    values, bad = _values(scanned, decoder)
    found.scanned, found.bad = len(scanned), [n for n in bad if n <= found.records]
    found.kinds = Counter(map(json_kind, values))
    objects = [value for value in values if isinstance(value, dict)]
    found.keys = merged_items(objects) if objects else None
    return found


_KIND_NOUNS = {"object": "object", "array": "array", "str": "string", "number": "number", "bool": "boolean",
               "null": "null"}
"""The noun of each kind of JSON value (:func:`json_kind`) in a shape's counts."""


def mixed_kinds(found: JsonLines) -> str | None:
    """``None`` when the scanned records are all of one kind, else what a JSON-lines shape says of them:
    ``"records of mixed kinds (300 arrays, 1 object)"``, most frequent first, with ``"of the first N: "`` before the
    counts when fewer records were scanned than the sample holds."""
    if len(found.kinds) < 2:
        return None
    scanned = sum(found.kinds.values())
    of = f"of the first {scanned:,}: " if scanned < found.records else ""
    kinds = ", ".join(plural(n, _KIND_NOUNS[kind]) for kind, n in found.kinds.most_common())
    return f"records of mixed kinds ({of}{kinds})"


def json_kind(value: object) -> str:
    """The kind of a JSON value: ``object``, ``array``, ``str``, ``number``, ``bool`` or ``null``."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "str"
    if isinstance(value, bool):
        return "bool"
    return "null" if value is None else "number"


def _records(body: str) -> int:
    """The lines of ``body`` that are not blank (:data:`RECORD_BLANKS` only), counted at C speed: its blanks but
    newlines deleted, each run of newlines made one (halved a pass: at most 19 over 512 KiB), its newlines counted
    -- where a split and a strip a line cost 30 ms over 512 KiB of ``{}`` lines."""
    squeezed = body.encode("utf-8", "surrogatepass").translate(None, _BLANKS_BUT_NEWLINE)
    while b"\n\n" in squeezed:
        squeezed = squeezed.replace(b"\n\n", b"\n")
    if not squeezed.strip(b"\n"):
        return 0
    return squeezed.count(b"\n") + 1 - squeezed.startswith(b"\n") - squeezed.endswith(b"\n")


def _last_record(body: str) -> str:
    """The last line of ``body`` that is not blank, whole (its blanks around it kept: a vertical tab is no JSON
    blank)."""
    end = len(body.rstrip(RECORD_BLANKS))
    start, stop = body.rfind("\n", 0, end) + 1, body.find("\n", end)
    return body[start : stop if stop >= 0 else len(body)]


def _scanned(body: str) -> list[str]:
    """The first records of ``body`` (its lines that are not blank), as many as fit :data:`KEY_SCAN_CHARS`
    characters (at least one), at most :data:`_MOST_SCANNED` among its first :data:`_MOST_SCANNED_LINES` lines: each
    costs a parse and a merge of its keys, about 1 us, however small."""
    scanned: list[str] = []
    total = 0
    for line in body.split("\n", _MOST_SCANNED_LINES)[:_MOST_SCANNED_LINES]:
        if not line.strip(RECORD_BLANKS):
            continue
        total += len(line) + 1
        if total > KEY_SCAN_CHARS and scanned:
            break
        scanned.append(line)
        if len(scanned) >= _MOST_SCANNED:
            break
    return scanned


def _values(records: list[str], decoder: json.JSONDecoder) -> tuple[list[Any], list[int]]:
    """``(the JSON values of records (lines), the numbers from 1 of those that are not JSON)``: parsed as one array
    (one call of the C parser) unless a record is not JSON, then one by one."""
    try:
        values = json.loads("[" + ",".join(records) + "]", cls=LongIntegers)
        if len(values) == len(records):  # (a record such as '1, 2' would read as two values)
            return values, []
    except (ValueError, RecursionError):
        pass
    values, bad = [], []
    for number, record in enumerate(records, 1):
        try:
            values.append(decoder.decode(record))
        except (ValueError, RecursionError):
            bad.append(number)
    return values, bad
