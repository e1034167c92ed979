"""What an output looks like, told cheaply: its content type and a one- or two-line shape a model can plan from.

Detection reads only a sample -- the first :data:`SAMPLE_BYTES` of the content, which the writer keeps while it
streams -- plus the totals the writer counts anyway (size, lines), so it never holds the whole content and costs a few
milliseconds whatever the size. When the content is larger than the sample, the shape says so (``in the first
512 KiB``). Parsing runs at C speed (``json``, ``csv``, ``re``).

The shape names the structure a model needs to aim a structure read: JSON key paths a few levels deep with the
keys of array items and the counts (``items: array(710) of {id: int, name: str, …}``); JSON-lines record keys and
types; CSV columns and row count; an HTML page's title and headings. The top level of a JSON document larger than
the sample is described whole by streaming it (:func:`scratchfs.engine.structure.toplevel.top_level`,
bounded memory) when the caller passes the stored content (``source``), up to :data:`STREAM_BYTES` and about
:data:`~scratchfs.api.shape_json.STREAM_SECONDS` (a larger document's shape says how much it read): JSON's shapes are
:mod:`scratchfs.api.shape_json`'s.

Content types: ``json``, ``jsonl``, ``csv`` (and TSV, ``;``-separated), ``html``, ``xml``, ``log``, ``text``, ``binary``
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from scratchfs.api.json_part import described_part, may_follow_text
from scratchfs.api.shape_aligned import aligned_shape
from scratchfs.api.shape_binary import FORMATS, STARTS, TAR_MAGIC_AT, binary_kind, binary_shape
from scratchfs.api.shape_columns import columns_said
from scratchfs.api.shape_html import html_shape, sample_codec
from scratchfs.api.shape_json import STREAM_BYTES, json_lines_shape, json_shape
from scratchfs.api.shape_kinds import coloured_head, coloured_kind, told_by_lines
from scratchfs.api.shape_listing import GREP_MOST_FILES, grep_files_said
from scratchfs.api.shape_log import Told, java_trace_lines, log_lines, log_told, text_told
from scratchfs.api.shape_markdown import markdown_shape
from scratchfs.api.shape_pipes import pipes_shape
from scratchfs.api.shape_result import Shape
from scratchfs.api.shape_rows import ragged_said, table_rows
from scratchfs.api.shape_said import browser_decodes_said, not_utf8_clause, plain_head
from scratchfs.api.shape_settings import settings_shape, tab_keyed
from scratchfs.api.shape_stream import STREAM_SHAPE
from scratchfs.api.shape_syslog import syslog_told
from scratchfs.api.shape_table import (
    JSONL_HEAD_CHARS,
    MOST_LEADING,
    comment_cut,
    comments_said,
    count_records,
    estimate_records,
    first_table_line,
    has_header,
    is_json_text,
    no_delimited_start,
    table_head,
    table_kind,
    table_lines,
)
from scratchfs.api.shape_terminal import (
    TERMINAL_SHAPE,
    bare_crs,
    colours_removed,
    last_drawn,
    lone_cr_line_ends,
    terminal_controls,
)
from scratchfs.api.shape_utf8 import not_utf8_room
from scratchfs.api.shape_utf8 import read_as as encoding_said
from scratchfs.api.shape_words import (
    MAX_SHAPE_CHARS,
    clip,
    column_names,
    first_of,
    kib,
    plural,
    scoped,
    shape_limit,
    within,
)
from scratchfs.api.shape_xml import xml_shape
from scratchfs.api.table_footer import csv_footer, footer_said
from scratchfs.engine.structure.numbers import CONSTANTS_SAID, LongIntegers, constant_literals
from scratchfs.engine.structure.paging import ContentSource
from scratchfs.engine.structure.stray_quotes import RUNAWAY_LINES, first_runaway, lines_past_records, well_quoted
from scratchfs.engine.structure.table_start import COMMENT_HEAD_CHARS, detect_delimiter, named_separator
from scratchfs.foundation import text as texts
from scratchfs.foundation.limits import SAMPLE_BYTES, TEXT_PROBE_BYTES  # (defined there: read without loading this)
from scratchfs.foundation.text import GREP_LINE_PATTERN, GREP_RUN_PATTERN, grep_runs, grep_tally, line_stats

_HTML_RE = re.compile(rb"<!doctype\s+html|<html[\s>]", re.IGNORECASE)
_FRAGMENT_RE = re.compile(rb"<(?:head|body|div|p|span|table|section|article|main|nav|header|footer|form|ul|ol|dl|h[1-6]"
                          rb"|pre|a|img|br|hr|script|style|meta|link|template|iframe|button|input|label"
                          rb"|tr|td|th|thead|tbody|tfoot|caption|li|dt|dd|blockquote|code|em|strong|b|i|small)[\s/>]",
                          re.I)
"""An HTML fragment's first tag (``document.body.innerHTML``, a widget's markup, ``sqlite3 -html``'s rows, each
``<TR>`` with no ``<table>``): HTML, not an XML root."""
_XML_ROOT_RE = re.compile(rb"<([A-Za-z_][\w.:-]*)")
_XML_PROLOG_RE = re.compile(rb"(?:\s+|<\?.*?\?>|<!--.*?-->|<!DOCTYPE(?:[^\[>]|\[[^\]]*\])*>)*", re.S | re.I)
"""What may come before an XML document's root element: blanks, the declaration and processing instructions
(``<?...?>``), comments, a doctype (with its internal subset)."""
_XML_PROLOG_BYTES = 64 * 1024  # (a prolog longer than this -- a licence in a comment is a few KiB -- names no root)


_NEWLINE_PAIR = re.compile(b"\n\n")  # (its search is twice as fast as count or ``in`` of the two bytes)
_GREP_HINT_RE = re.compile(rb":\d+[:-]")  # each grep line holds one (its ":" found first): under 0.8 a line: none

def _utf8(sample: bytes, complete: bool) -> str | None:
    """The sample as text, or None if it is not UTF-8 (a sequence cut by the sample's end is forgiven)."""
    try:
        return sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not complete and exc.start >= len(sample) - 3 and exc.reason == "unexpected end of data":
            return sample[: exc.start].decode("utf-8", "replace")
        return None


MAX_ODD_SHARE = 0.30
"""Most share of odd bytes (invalid UTF-8, control bytes other than tab, newlines, form feed, backspace and escape)
text may hold: a stray NUL, Latin-1 letters or a few broken sequences leave a log a log."""
MAX_NUL_SHARE = 0.01
"""Most share of NUL bytes text may hold (binary formats are full of them)."""
_NOT_ODD_CONTROL = bytes(b for b in range(256) if not ((b < 0x20 and b not in b"\t\n\r\f\b\x1b\x0b") or b == 0x7F))
_HIGH_BYTES = bytes(range(0x80, 0x100))
_BLANKS = "\ufeff \t\r\n"  # what may precede the first character that tells a type
# Bytes that hold more than the 8,192 characters a table is told from (4 bytes at most each, and the 3 dropped after
# a character the cut may split): a sample cut from a larger content that is neither JSON nor blank is decoded this far.
_HEAD_TEXT_BYTES = 4 * (8192 + 4)


def is_text(sample: bytes) -> bool:
    """The one rule of what is text (every face shows text as text and only binary as a hex dump): no binary magic
    number, at most :data:`MAX_NUL_SHARE` NUL bytes and at most :data:`MAX_ODD_SHARE` odd bytes (invalid UTF-8 and
    control bytes) in the first :data:`TEXT_PROBE_BYTES`."""
    return _probe(sample)[0]


def _probe(sample: bytes) -> tuple[bool, str | None]:
    """:func:`is_text`, and the sample as text when the probe was all of it and valid UTF-8 (else ``None``)."""
    probe = sample[:TEXT_PROBE_BYTES]
    if not probe:
        return True, None
    if (probe.startswith(STARTS) or probe[TAR_MAGIC_AT : TAR_MAGIC_AT + 5] == b"ustar") and \
            binary_kind(probe) is not None:  # (a format's magic number: gzip, PNG, a tar, UTF-16 text...)
        return False, None
    if probe.find(0) >= 0 and probe.count(0) > MAX_NUL_SHARE * len(probe):  # find (memchr) stops at the first NUL
        return False, None
    if probe.isascii():  # ASCII is valid UTF-8: only control bytes can be odd
        return _few_odd(probe, 0), None
    cut = len(probe) - len(probe.rstrip(_HIGH_BYTES)) if len(probe) < len(sample) else 0
    body = probe[: len(probe) - min(cut, 3)]  # a character cut by the probe's end is not odd
    try:
        decoded, invalid = body.decode("utf-8"), 0
    except UnicodeDecodeError:
        decoded, invalid = None, texts.invalid_utf8_bytes(body)
    return _few_odd(body, invalid), decoded if len(body) == len(sample) else None


def _few_odd(data: bytes, odd: int) -> bool:
    """``odd`` + the control bytes of ``data`` <= ``MAX_ODD_SHARE * len(data)``; the end (as many bytes as could all
    be odd with the answer still yes) is counted only when the rest does not decide -- of data over 8 KiB (below, the
    copy of its start costs what the shorter count saves: at 16 KiB, 5.0 against 5.9 us)."""
    most = MAX_ODD_SHARE * len(data)
    cut = len(data) - max(0, min(len(data), int(most) - odd)) if len(data) > 8192 else len(data)  # end: data[cut:]
    odd += len(data[:cut].translate(None, _NOT_ODD_CONTROL))
    return odd + len(data) - cut <= most or odd + len(data[cut:].translate(None, _NOT_ODD_CONTROL)) <= most


def describe(sample: bytes, size: int, lines: int, source: ContentSource | None = None) -> Shape:
    """Detect the content type and shape of a content from its first bytes.

    Args:
        sample: the first bytes of the content (at most :data:`SAMPLE_BYTES` are looked at).
        size: the whole content's size, in bytes.
        lines: the whole content's line count (``\\n`` count, plus one for an unterminated last line).
        source: the whole content (``size``, ``read(offset, length)``), optional: a JSON document larger than the
            sample then has its top level described whole, by streaming (see the module docstring).

    Never raises for any content (JSON nested deeper than the parser goes is ``text``: "JSON nested too deeply to
    parse"); a ``source`` that fails to read gives the shape from the sample."""
    sample = sample[:SAMPLE_BYTES]
    complete = len(sample) >= size
    if size == 0:
        return Shape("text", "empty")
    textual, text = _probe(sample)
    if not textual:
        return Shape("binary", binary_shape(sample, size))
    if text is None and not complete and len(sample) > _HEAD_TEXT_BYTES:  # only JSON reads past the head's text
        head_text = sample[:_HEAD_TEXT_BYTES].decode("utf-8", "replace")[:-3]  # (a character cut at its end dropped)
        start = head_text[:256].lstrip(_BLANKS)
        text = head_text if len(start) >= 8 and start[0] not in "{[" else None
    if text is None:  # (the probe's text is the sample's when the probe was all of it)
        text = _utf8(sample, complete) or sample.decode("utf-8", "replace")
    odd = texts.invalid_utf8_bytes(sample if complete else sample[:-3]) if "\ufffd" in text else 0  # (not UTF-8)
    read_as = encoding_said(text, sample) if odd else ""
    room = MAX_SHAPE_CHARS - not_utf8_room(odd, complete, sample, read_as)
    found = _described_in(room, sample, size, lines, source, text, odd, read_as)
    said = _constants_said(text) if found.content_type in ("json", "jsonl") else ""  # (looked for in JSON only)
    if not said:
        return found
    found = _described_in(room - len(said), sample, size, lines, source, text, odd, read_as)  # (rare: said after)
    return replace(found, text=found.text + said)


def _described_in(room: int, sample: bytes, size: int, lines: int, source: ContentSource | None, text: str,
                  odd: int, read_as: str) -> Shape:
    """:func:`_described` within ``room`` characters of shape (leaving room for what is said after it: the
    ``_not_utf8`` words' "... N more", the NaN tokens' sentence)."""
    if room >= shape_limit():  # (no narrower than shapes are already, as when all is UTF-8: no context, 3 us)
        return _described(sample, size, lines, source, text, odd, read_as)
    with within(room):
        return _described(sample, size, lines, source, text, odd, read_as)


def _constants_said(text: str) -> str:
    """What a JSON shape of ``text`` ends with when it holds ``NaN`` or ``Infinity`` outside its strings, as
    Python's ``json`` writes them (not standard JSON: :data:`~scratchfs.engine.structure.numbers.PYTHON_CONSTANTS`),
    else ``""``."""
    if "NaN" not in text and "Infinity" not in text:  # (C-speed finds: most text holds neither)
        return ""
    return f"; {CONSTANTS_SAID}" if constant_literals(text)[0] is not None else ""


def _described(sample: bytes, size: int, lines: int, source: ContentSource | None, text: str, odd: int,
               read_as: str) -> Shape:
    """:func:`describe` of a text ``sample`` read as ``text``, of which ``odd`` bytes are not UTF-8."""
    complete = len(sample) >= size
    scope = "" if complete else first_of(len(sample), size)
    found = _structured(sample, text, complete, size, lines, scope, source)
    if found is not None:  # (a table's, JSON's, a page's: its bytes that are not UTF-8 counted after it)
        return found if not odd else _not_utf8(found, odd, sample, complete, read_as)
    bom = 3 if sample.startswith(b"\xef\xbb\xbf") else 0  # (a byte order mark is no part of the first line)
    head = b"\n" + sample[bom : bom + 4096]  # the first lines tell a log or grep output
    crs = bare_crs(sample) if b"\r" in sample else 0  # (counted once: the terminal test's and the lone \r line ends')
    terminal = terminal_controls(sample, complete, crs) if b"\x1b" in sample or crs or b"\b" in sample else ""
    plain = colours_removed(sample[bom:], complete) if terminal else None  # (its text, when colours are all)
    kind = coloured_kind(sample[bom:], lines, complete, scope, size - bom, plain) if terminal else None
    if terminal and kind is None:  # (a log whose only controls are colours is a log, told so)
        return _coloured_log(sample[bom:], plain, (size - bom, lines, scope, complete), (odd, read_as)) or _plain(
            sample, size, lines, scope, True, (head, 0), terminal, odd, read_as)
    if kind := kind or told_by_lines(sample[bom:], lines, complete, scope, size - bom):  # (a diff's, YAML's...)
        return _not_utf8(Shape("text", kind), odd, sample, complete, read_as) if odd else Shape("text", kind)
    head_rows = _head_rows(head) if (logs := log_lines(head)) else 0  # (0 until needed: none is never half a row)
    is_log = logs > 0 and logs >= 0.5 * (head_rows - java_trace_lines(head))  # most start with a timestamp or a log
    # level (a Java stack trace's lines under a record are the record's)
    piped = None if is_log else pipes_shape(text, complete, lines)  # (before CSV: a cell may hold commas)
    found = None if is_log or piped else _delimited(text, lambda: _utf8(sample, complete) or sample.decode(
        "utf-8", "replace"), complete, size, lines)
    aligned = piped or (None if is_log or found is not None else aligned_shape(text, complete, lines))
    keyed = not piped and (found is not None or aligned is not None) and tab_keyed(sample[bom:])  # (Key:<tab>value,
    settings = settings_shape(sample[bom:], lines, complete, scope, size - bom) if keyed else None  # /proc/*/status,
    if settings is not None:  # cpuinfo, lscpu: two columns to a table's rule; settings when they read as such)
        return _not_utf8(Shape("text", settings), odd, sample, complete, read_as) if odd else Shape("text", settings)
    if found is not None or aligned is not None:
        found = found or Shape("text", aligned)
        return found if not odd else _not_utf8(found, odd, sample, complete, read_as)
    settings = None if is_log else settings_shape(sample[bom:], lines, complete, scope, size - bom)
    if settings is not None:  # (key = value lines: none of the kinds above, tried last as the rarest)
        return _not_utf8(Shape("text", settings), odd, sample, complete, read_as) if odd else Shape("text", settings)
    return _plain(sample, size, lines, scope, is_log, (head, head_rows), odd=odd, read_as=read_as, crs=crs)


def _coloured_log(sample: bytes, plain: bytes | None, told: tuple[int, int, str, bool], odd: tuple[int, str]
                  ) -> Shape | None:
    """The shape of terminal output whose only controls are colours and links (``colours_removed``) and whose text
    without them (the same lines) is a log: the log's, after the words that say it is coloured (``"coloured (938
    escape sequences; view="text" shows it without them): log, 60 lines, ..., 3 ERROR (first at line 10)"``).
    ``plain``: ``colours_removed(sample)``; ``told``: the content's size, lines, scope and completeness."""
    head, (size, lines, scope, complete) = b"\n" + (plain or b"")[:4096], told
    if plain is None or not (logs := log_lines(head)) or logs < 0.5 * _head_rows(head):
        return None
    found = _plain(plain, len(plain) if complete else size, lines, scope, True, (head, 0), odd=odd[0], read_as=odd[1])
    return Shape("log", clip(coloured_head(sample) + found.text))


def _structured(sample: bytes, text: str, complete: bool, size: int, lines: int, scope: str,
                source: ContentSource | None) -> Shape | None:
    """The shape of JSON (or JSON lines), an HTML page or an XML document, else ``None``."""
    stripped = text[:256].lstrip(_BLANKS)  # the start after blanks, without copying the whole text for it
    stripped = _lstrip_blanks(text) if len(stripped) < 8 and len(text) > 256 else stripped
    first = stripped[:1]
    parted = lambda: described_part(  # noqa: E731 - (text lines around one JSON document: json_part)
        sample, size, source, lambda part, whole, n, src: _part_shape(part, whole, n, lines, scope, src))
    if first in ("{", "[") and not complete and source is not None and (found := parted()) is not None:
        return found  # (a large document's top level is streamed past its end: text lines after it told first)
    if first in ("{", "["):
        try:
            found = json_shape(_lstrip_blanks(text), complete, size, lines, scope, source)
        except (RecursionError, MemoryError):  # nested deeper than the C parser goes: a spill never fails for it
            found = Shape("text", f"JSON nested too deeply to parse, {kib(size)}, {plural(lines, 'line')}")
        if found is not None:
            return found
    if (first in ("{", "[") or may_follow_text(sample)) and (found := parted()) is not None:
        return found
    if first not in ("{", "[", "<", "") and _json_after_first_line(text):  # a line before JSON lines (a log line)
        try:
            found = json_lines_shape(_lstrip_blanks(text), LongIntegers(), complete,
                                     lines, source)
        except (RecursionError, MemoryError):
            found = None
        if found is not None:
            return found
    if first == "<":
        page = _HTML_RE.search(sample, 0, 4096)  # (a fragment, not a page, may be a README whose logo's <p> starts it)
        if page or _FRAGMENT_RE.match(stripped.encode("utf-8", "replace")):
            markdown = None if page else markdown_shape(sample, lines, complete, scope, size)
            return Shape("text", markdown) if markdown else Shape("html", html_shape(sample, scope))
        root = xml_root(sample)
        if stripped.startswith("<?xml") or root is not None:
            told, selector = xml_shape(sample, complete, size, lines, root)
            return Shape("xml", clip(told), selector)
    return None


def _part_shape(part: str, whole: bool, size: int, lines: int, scope: str, source: ContentSource | None
                ) -> Shape | None:
    """:func:`json_shape` of a JSON document's ``part`` after text lines, ``None`` when it nests deeper than the C
    parser goes (a text line, then 50,000 lines of ``[[[[[[[[[[``: the RecursionError escaped the spill)."""
    try:
        return json_shape(part, whole, size, lines, scope, source)
    except (RecursionError, MemoryError):
        return None


def _json_after_first_line(text: str) -> bool:
    """Whether one of the lines of ``text`` after its first (at most :data:`~scratchfs.api.shape_table.MOST_LEADING`
    in all before it, blank ones aside) opens a JSON object or array (JSON lines after a tool's warning lines may be
    JSON lines: :func:`~scratchfs.api.shape_table.json_lines` decides)."""
    if text.find("{", 0, JSONL_HEAD_CHARS + 257) < 0 and text.find("[", 0, JSONL_HEAD_CHARS + 257) < 0:
        return False  # (no line's first character can open one: a third of 4 KiB texts, 0.1 against 1.3 us)
    pos = 0
    for _ in range(MOST_LEADING):
        end = text.find("\n", pos, JSONL_HEAD_CHARS)
        if end < 0:
            return False
        head = text[end + 1 : end + 257]
        line = head.lstrip(_BLANKS)
        if line[:1] in ("{", "["):
            return True
        pos = end + 1 + len(head) - len(line)
    return False


def _not_utf8(found: Shape, odd: int, sample: bytes, complete: bool, read_as: str = "") -> Shape:
    """``found`` with its count of ``odd`` bytes that are not UTF-8 after it (:func:`not_utf8_clause`: ``"; 3 bytes
    not UTF-8 (shown as U+FFFD) in the first 512 KiB"`` unless ``complete``), its text clipped to leave room for it.
    An HTML page that a browser decodes otherwise (:func:`~scratchfs.engine.structure.html_codec.page_codec`:
    windows-1252, a declared charset) says so: its text view decodes it that way (the other reads show those bytes
    as U+FFFD)."""
    codec = sample_codec(sample) if found.content_type == "html" else "utf-8"
    said = not_utf8_clause(odd, 0 if complete else len(sample),
                           read_as if codec == "utf-8" else browser_decodes_said(codec))
    room = MAX_SHAPE_CHARS - len(said)  # (a text cut to make room names no longer every key: no next read)
    kept = found.next_read if len(found.text) <= room else None
    return Shape(found.content_type, clip(found.text, room) + said, kept, found.top)


def xml_root(sample: bytes) -> str | None:
    """The name of the root element of the XML document that ``sample`` starts (after a UTF-8 byte order mark): the
    first tag after the prolog (:data:`_XML_PROLOG_RE`), never a tag inside a comment or a doctype; ``None`` when
    something else follows the prolog (text, an unclosed comment) or the prolog runs past
    :data:`_XML_PROLOG_BYTES`. Never raises."""
    head = sample[:_XML_PROLOG_BYTES].removeprefix(b"\xef\xbb\xbf")
    root = _XML_ROOT_RE.match(head, _XML_PROLOG_RE.match(head).end())
    return None if root is None else root.group(1).decode("utf-8", "replace")


def binary_format(shape: str | None) -> str | None:
    """The format a binary entry's stored ``shape`` names (``"gzip"``, ``"PNG image"``, ``"tar"``: one of
    :data:`~scratchfs.api.shape_binary.FORMATS`, told by its first bytes at spill time), or ``None`` (no such
    shape, or no format named). Never raises."""
    if not shape or not shape.startswith("binary, "):
        return None
    named = shape.split(";", 1)[0].split(", ")[2:]
    return named[0] if named and named[0] in FORMATS else None


def _delimited(text: str, whole: Callable[[], str], complete: bool, size: int, lines: int) -> Shape | None:
    """A table's shape; ``whole()`` gives all of the sample as text (``text`` may be its start only)."""
    if no_delimited_start(text):  # (a first line with no delimiter: most text stops here)
        return None
    bom = text.startswith("\ufeff")  # a byte order mark is no part of the first column's name
    named = named_separator(text[:10].split("\n", 1)[0])  # a first line 'sep=;' names it; the table follows
    cut = bom + (text.find("\n") + 1 - bom if named else 0)
    skip, comments = comment_cut(text[cut:])  # (comment lines before the header: a data source's, a licence's)
    cut += skip
    text, size, lines = text[cut:], size - 3 * bom - (cut - bom), lines - bool(named) - comments
    head = table_head(text, lambda: whole()[cut:])  # the first lines tell a table
    text = head if len(head) > len(text) else text
    first_line = first_table_line(head)  # (a line ends at \n, \r\n or a lone \r, as a rows read's)
    after = text[len(first_line) : len(first_line) + COMMENT_HEAD_CHARS].lstrip("\r\n")  # (as a rows read's)
    delimiter = named or detect_delimiter(first_line, after)  # (the rows read's rule)
    if first_line.count(delimiter) < 1 or (first_line[:1] in ("{", "[") and is_json_text(first_line)):
        return None  # (JSON lines with a line that is not JSON are no table)
    sample_lines = table_lines(head)
    if len(head) < len(text) or not complete or not head.endswith("\n"):
        sample_lines = sample_lines[:-1] or sample_lines  # the last may be cut
    table = table_rows(sample_lines, delimiter)
    if table is None or (delimiter == ";" and not all(map(str.strip, table.rows[0]))):  # (lines of code ending in
        return None  # ";": a header with no empty name tells a table)
    if delimiter == "\t" and not any(row[0] for row in table.rows):  # (lines indented by a tab, ldd's: a first
        return None  # column empty on every line is no column)
    header = table.rows[0]
    width, headed = len(header), has_header(table.rows)
    columns = ", ".join(column_names(header, 16)) + (f", … {width - 16} more" if width > 16 else "")
    records = count_records(text, delimiter, lines) if complete else lines
    if complete:
        footer = csv_footer(whole()[cut:], delimiter)  # (a last line of totals: no row)
        count = plural(records - headed - (footer is not None), "row") + ("" if footer is None else footer_said(
            bool(named) + comments + footer[0] + 1, footer[1]))
    else:
        estimate = estimate_records(head, delimiter, size, lines)
        count = (f"~{plural(lines - headed, 'row')} (by line count)" if estimate is None
                 else f"~{plural(estimate - headed, 'row')} (estimated from the sample)")
    ragged = ragged_said(table, bool(named) + comments, headed, complete and len(sample_lines) >= lines)
    kind = table_kind(delimiter, named, width, headed) + (f" ({columns})" if headed else "")
    quote = _stray_quote("\n".join(sample_lines), text if 2 * records < lines else None, delimiter, width,
                         headed, bool(named) + comments, lambda: whole()[cut:])
    return Shape("csv", clip(f"{kind}, {count}{comments_said(comments, headed)}{ragged}",
                             shape_limit() - len(quote)) + quote)


def _stray_quote(head: str, whole: str | None, delimiter: str, width: int, headed: bool, before: int,
                 sample: Callable[[], str]) -> str:
    """What a table's shape says of a quote that opens a field and never closes where it should
    (:mod:`~scratchfs.engine.structure.stray_quotes`: its cell holds lines of rows), told from ``head`` (its first
    lines) or, when given, ``whole`` (all of a whole content, whose records are fewer than half its lines): the row
    and line it opens on (``before``: lines before the table's first) and the line read that shows it raw; ``""``:
    none. A head whose last record is cut inside a quoted field (or one that holds a stray quote) is told from
    ``sample()`` (the sample's text from the table's start) up to :data:`_PAST_HEAD_CHARS` past the head: a real
    multi-line cell that closes past the head's end is no stray quote, and one opened in the head's last lines
    has its lines after them."""
    if whole is not None and well_quoted(whole, delimiter):  # (its multi-line cells real ones: no row read in
        return ""  # Python, 6.5 ms over 480 KiB of package descriptions)
    past = lines_past_records(head, delimiter) if whole is None else 0  # (one strict pass: well quoted or None)
    if whole is None and past is not None and past < RUNAWAY_LINES - 1:  # (no record of that many lines: none
        return ""  # runs away, no Python loop over the head's rows)
    found = first_runaway(head if whole is None else whole, delimiter, width)
    if whole is None and (found or past is None):  # (cut inside a quoted field: C speed)
        longer = sample()[: len(head) + _PAST_HEAD_CHARS]
        longer = longer[: max(len(head), longer.rfind("\n"))]  # (whole lines: the last may be cut)
        found = first_runaway(longer, delimiter, width) if len(longer) > len(head) else found
    if not found:
        return ""
    record, line, held = found
    line += before + 1
    return (f"; row={record + (not headed)} (line {line:,}) opens a quote that runs over the {plural(held - 1, 'line')}"
            f" after it{'' if whole else ' or more'}, rows read as one cell of it -- a stray quote? line={line}, "
            "lines=5 reads them raw")


_PAST_HEAD_CHARS = 65536
"""Characters past a table's head its stray quote is told from (:func:`_stray_quote`: ~2 ms of rows parsed)."""


def _lstrip_blanks(text: str) -> str:
    """``text.lstrip(_BLANKS)``, at C speed over a long run of blanks (``lstrip`` given characters looks each one up,
    10 ns a character): ``lstrip()`` of every space finds the run, ``count`` checks it is of blanks only."""
    for _ in range(4):  # (a byte order mark ends a run of spaces: a few are passed over so)
        stripped = text.lstrip()
        run = len(text) - len(stripped)
        if sum(text.count(blank, 0, run) for blank in " \t\r\n") != run:
            break  # (another space in the run, U+2028 say: the exact strip below)
        text = stripped.removeprefix("\ufeff")
        if len(text) == len(stripped):
            return text
    return text.lstrip(_BLANKS)


def _head_rows(head: bytes) -> int:
    """Non-empty lines in ``head`` (which starts with a newline)."""
    pairs = head.count(b"\n\n") if _NEWLINE_PAIR.search(head) else 0  # (count is 0 iff none: a search finds none
    return max(1, head.count(b"\n") + (not head.endswith(b"\n")) - pairs)  # at twice count's speed)


def _known_rows(head: bytes, sample: bytes, rows: int, empty: int) -> int:
    """``_head_rows(head)``, told by ``line_stats(sample)``'s ``rows`` and ``empty`` when ``head`` is ``b"\n" +
    sample`` and no row is blank: then no two newlines meet in ``head``, which holds a newline more than ``sample``
    and ends in one when it does, so its rows are ``rows + 1`` (no newline counted again)."""
    if not empty and len(head) == len(sample) + 1 and head.endswith(sample):  # (blank rows: empty or \r only)
        return rows + 1
    return _head_rows(head)


_NOTHING_TOLD = Told("", None)  # (what grep output's shape takes from its lines' events: nothing)


def _plain(sample: bytes, size: int, lines: int, scope: str, is_log: bool, known: tuple[bytes, int],
           terminal: str = "", odd: int = 0, read_as: str = "", crs: int | None = None) -> Shape:
    """A text or log's shape; ``known`` is ``(b"\n" + sample[:4096], its _head_rows or 0 if not counted)``;
    ``terminal``: what makes it terminal output (:func:`terminal_controls`), or ``""``; ``odd``: bytes of the
    sample that are no UTF-8 character (a legacy encoding's letters: every read shows each as U+FFFD), ``read_as``
    what names the encoding that reads them (:func:`~scratchfs.api.shape_utf8.read_as`); ``crs``: the sample's
    :func:`~scratchfs.api.shape_terminal.bare_crs` if counted (none in it: none in its whole lines either)."""
    cut = len(sample) - sample.rfind(b"\n") - 1 if len(sample) < size else 0  # a line running past the sample
    if cut and cut < len(sample):
        sample = sample[: len(sample) - cut]  # whole lines only
    rows, longest, empty = line_stats(sample, crs)  # (none bare in it: none in its whole lines)
    blank = empty / max(1, rows)
    head, head_rows = known
    if len(sample) < 4096 and len(head) != len(sample) + 1:  # the whole lines are fewer than the head
        head = b"\n" + sample
        head_rows = 0
    shown = last_drawn(sample) if terminal else sample  # (grep --color=always: its lines as a terminal shows them)
    kind = "log" if is_log else "text"
    if terminal:
        head, head_rows = b"\n" + shown[:4096], 0
    hints = 0 if is_log and not terminal else len(_GREP_HINT_RE.findall(head))  # (none is never 0.8 of 1 row)
    threshold = 0.8 * (head_rows or _known_rows(head, sample, rows, empty)) if hints else 1
    grep = grep_runs(head) if hints >= threshold else (0, set())
    lone_cr = 0 if terminal or crs == 0 or b"\r" not in sample else lone_cr_line_ends(sample)
    head_text = plain_head(TERMINAL_SHAPE if terminal else kind, lines, max(longest, cut), blank,
                           at_least=bool(cut) and cut >= longest, odd=odd, read_as=read_as, controls=terminal,
                           lone_cr=lone_cr, grep=grep[0] >= threshold)
    if grep[0] >= threshold:  # grep output says its files, not what a log's or a text's events would (those are
        told = _NOTHING_TOLD  # not told: 5-10 us of scans a grep output's shape never showed, nor its note read)
        extra = grep_files_said(head_text, *grep_tally(shown, GREP_MOST_FILES), "the sample" if scope else "all")
    else:
        told = syslog_told(shown, log_told(shown)) if is_log else text_told(shown)  # (syslog's programs, dpkg's)
        extra = told.said
    if not (is_log or extra or terminal or lone_cr):  # (a table with no header line: shape_columns)
        extra = columns_said(sample, len(sample) >= size)
    text = scoped(f"{head_text}{extra}", scope)
    first_error = told.first_error if extra == told.said and not terminal else None  # (grep output's: none)
    return Shape(kind, clip(text), first_error=first_error)


__all__ = ["GREP_LINE_PATTERN", "GREP_RUN_PATTERN", "MAX_NUL_SHARE", "MAX_ODD_SHARE", "MAX_SHAPE_CHARS",
           "SAMPLE_BYTES", "STREAM_BYTES", "STREAM_SHAPE", "TERMINAL_SHAPE", "TEXT_PROBE_BYTES", "Shape",
           "describe", "is_text"]
