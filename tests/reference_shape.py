"""Reference copy, for differential tests only (issue 16): ``scratchfs/api/shape.py`` as it was at 7867ff0, before
its CPU work. Not to be edited, but where the intended answer changed (each such place says why).

What an output looks like, told cheaply: its content type and a one- or two-line shape a model can plan from.

Detection reads only a sample -- the first :data:`SAMPLE_BYTES` of the content, which the writer keeps while it
streams -- plus the totals the writer counts anyway (size, lines), so it never holds the whole content and costs a few
milliseconds whatever the size. When the content is larger than the sample, the shape says so (``in the first
512 KiB``). Parsing runs at C speed (``json``, ``csv``, ``re``).

The shape names the structure a model needs to aim a structure read: JSON key paths a few levels deep with the
keys of array items and the counts (``items: array(710) of {id: int, name: str, …}``); JSON-lines record keys and
types; CSV columns and row count; an HTML page's title and headings. The top level of a JSON document larger than
the sample is described whole by streaming it (:func:`scratchfs.engine.structure.toplevel.top_level`, about 100 MB/s,
bounded memory) when the caller passes the stored content (``source``), up to :data:`STREAM_BYTES` and about
:data:`STREAM_SECONDS` (a larger document's shape says how much it read).

Content types: ``json``, ``jsonl``, ``csv`` (also tab-separated), ``html``, ``xml``, ``log``, ``text``, ``binary``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from typing import Any

from scratchfs.api.shape_stream import json_stream
from scratchfs.engine.seekable import FormatError
from scratchfs.engine.structure.paging import ContentSource
from scratchfs.engine.structure.toplevel import TopEntry, TopLevel, top_level

SAMPLE_BYTES = 512 * 1024
"""Bytes of the start of a content that shape detection looks at."""
MAX_SHAPE_CHARS = 600
"""Longest shape text, in characters (the stub's preview gives way to it within the 1.5 KiB stub)."""
STREAM_BYTES = 8 * 1024 * 1024
"""Most bytes of a large JSON document streamed to describe its top level (past it the shape says "at least")."""
STREAM_SECONDS = 0.5
"""About the most time spent streaming a large JSON document for its top level (past it: "at least")."""
_PARTIAL_JSON_CHARS = 128 * 1024  # a JSON document larger than the sample is parsed this far for its top level

_MAGIC = (
    (b"\x89PNG", "PNG image"), (b"\x1f\x8b", "gzip"), (b"PK\x03\x04", "zip"), (b"%PDF", "PDF"),
    (b"\x28\xb5\x2f\xfd", "zstd"), (b"\x7fELF", "ELF"), (b"\xff\xd8\xff", "JPEG image"), (b"GIF8", "GIF image"),
    (b"SQLite format 3\x00", "SQLite database"),
)
_HTML_RE = re.compile(rb"<!doctype\s+html|<html[\s>]", re.IGNORECASE)
_TITLE_RE = re.compile(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_SCRIPT_RE = re.compile(rb"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(rb"<[^>]*>")
_HEADINGS = 12  # most headings an HTML shape lists
_HEADING_RE = re.compile(rb"<h([1-3])\b[^>]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
_WS_RE = re.compile(rb"\s+")
_XML_ROOT_RE = re.compile(rb"<([A-Za-z_][\w.:-]*)")
# anchored on a literal newline (the text is searched with one prepended), which the engine finds at C speed
_LOG_LINE_RE = re.compile(
    rb"\n[ \t]*(?:[\w.-]{0,63}[-_]\d{1,4} +\| |\[pod/[\w.-]{1,253}/[\w.-]{1,63}\] )?"
    rb"(?:\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}|"
    rb"\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)\b)"
)


@dataclass(frozen=True, slots=True)
class Shape:
    """``content_type`` (one of the module's types) and ``text`` (the shape, at most :data:`MAX_SHAPE_CHARS`)."""

    content_type: str
    text: str


# "path:line:" after a newline. The path is taken atomically (a lookahead's capture, then the backreference): it
# cannot hold a colon, so giving back characters never finds one, and without this each line that is not a match
# costs up to 400 steps of useless backtracking (40% of the regex's time on real output, issue 16).
GREP_LINE_PATTERN = rb"\n(?=([^:\n]{1,400}))\1:\d+[:-]"
_GREP_RE = re.compile(GREP_LINE_PATTERN)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def _kib(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KiB"
    if size < 1024**3:
        return f"{size / 1024**2:.1f} MiB"
    return f"{size / 1024**3:.1f} GiB"


def _clip(text: str, limit: int = MAX_SHAPE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _name(key: object, limit: int = 32) -> str:
    text = _CONTROL_RE.sub("?", str(key))  # control characters would cost six bytes each in the stub's JSON
    mark = "?" if isinstance(key, _Lacked) else ""  # (changed on purpose, branch structfix: a key some records lack)
    return (text if len(text) <= limit else text[: limit - 1] + "…") + mark


def _utf8(sample: bytes, complete: bool) -> str | None:
    """The sample as text, or None if it is not UTF-8 (a sequence cut by the sample's end is forgiven)."""
    try:
        return sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not complete and exc.start >= len(sample) - 3 and exc.reason == "unexpected end of data":
            return sample[: exc.start].decode("utf-8", "replace")
        return None


TEXT_PROBE_BYTES = 64 * 1024
"""Bytes of the start of a content that decide whether it is text."""
MAX_ODD_SHARE = 0.30
"""Most share of odd bytes (invalid UTF-8, control bytes other than tab, newlines, form feed, backspace and escape)
text may hold: a stray NUL, Latin-1 letters or a few broken sequences leave a log a log."""
MAX_NUL_SHARE = 0.01
"""Most share of NUL bytes text may hold (binary formats are full of them)."""
_NOT_ODD_CONTROL = bytes(b for b in range(256) if not ((b < 0x20 and b not in b"\t\n\r\f\b\x1b\x0b") or b == 0x7F))


def is_text(sample: bytes) -> bool:
    """The one rule of what is text (every face shows text as text and only binary as a hex dump): no binary magic
    number, at most :data:`MAX_NUL_SHARE` NUL bytes and at most :data:`MAX_ODD_SHARE` odd bytes (invalid UTF-8 and
    control bytes) in the first :data:`TEXT_PROBE_BYTES`."""
    probe = sample[:TEXT_PROBE_BYTES]
    if not probe:
        return True
    if any(probe.startswith(magic) for magic, _ in _MAGIC):
        return False
    if probe.count(0) > MAX_NUL_SHARE * len(probe):
        return False
    cut = len(probe) - len(probe.rstrip(bytes(range(0x80, 0x100)))) if len(probe) < len(sample) else 0
    body = probe[: len(probe) - min(cut, 3)]  # a character cut by the probe's end is not odd
    invalid = len(body) - len(body.decode("utf-8", "ignore").encode("utf-8"))
    controls = len(body.translate(None, _NOT_ODD_CONTROL))
    return invalid + controls <= MAX_ODD_SHARE * len(body)


def describe(sample: bytes, size: int, lines: int, source: ContentSource | None = None) -> Shape:
    """Detect the content type and shape of a content from its first bytes.

    Args:
        sample: the first bytes of the content (at most :data:`SAMPLE_BYTES` are looked at).
        size: the whole content's size, in bytes.
        lines: the whole content's line count (``\\n`` count, plus one for an unterminated last line).
        source: the whole content (``size``, ``read(offset, length)``), optional: a JSON document larger than the
            sample then has its top level described whole, by streaming (see the module docstring).

    Never raises for any content; a ``source`` that fails to read gives the shape from the sample.
    """
    sample = sample[:SAMPLE_BYTES]
    complete = len(sample) >= size
    scope = "" if complete else f" (in the first {_kib(len(sample))} of {_kib(size)})"
    if size == 0:
        return Shape("text", "empty")
    if not is_text(sample):
        return Shape("binary", _binary(sample, size))
    text = _utf8(sample, complete) or sample.decode("utf-8", "replace")
    stripped = text.lstrip("\ufeff \t\r\n")
    first = stripped[:1]
    if first in ("{", "["):
        found = _json(stripped, complete, size, lines, scope, source)
        if found is not None:
            return found
    if first == "<":
        if _HTML_RE.search(sample, 0, 4096):
            return Shape("html", _html(sample, size, scope))
        root = _XML_ROOT_RE.search(sample.lstrip(), 0, 4096) if not stripped.startswith("<!--") else None
        if stripped.startswith("<?xml") or root:
            name = root.group(1).decode("utf-8", "replace") if root else "?"
            if stripped.startswith("<?xml"):
                later = _XML_ROOT_RE.search(sample, sample.find(b"?>") + 2)
                name = later.group(1).decode("utf-8", "replace") if later else name
            return Shape("xml", _clip(f"XML, root <{_name(name)}>, {_kib(size)}, {_plural(lines, 'line')}"))
    is_log = _is_log(sample)
    found = None if is_log else _delimited(text, complete, size, lines, scope)
    if found is not None:
        return found
    return _plain(sample, size, lines, scope, is_log)


def _binary(sample: bytes, size: int) -> str:
    kind = next((name for magic, name in _MAGIC if sample.startswith(magic)), None)
    head = sample[:8].hex(" ")
    return f"binary, {_kib(size)}" + (f", {kind}" if kind else "") + (f"; starts with {head}" if head else "")


def _value(value: object) -> str:
    if isinstance(value, dict):
        return f"object({_plural(len(value), 'key')})"  # (htmlsel: "object(1 key)")
    if isinstance(value, list):
        return f"array({len(value)})"
    if isinstance(value, str):
        return "str" if len(value) < 200 else f"str({_kib(len(value.encode('utf-8')))})"
    if value is None:
        return "null"
    return type(value).__name__


def _tree(value: object, depth: int, width: int) -> str:
    """``value`` described ``depth`` levels down, listing at most ``width`` keys per object (an object with more
    keys -- a map -- shows its first value described and the next few keys by name)."""
    if isinstance(value, dict):
        if depth <= 0 or not value:
            return _value(value)
        if len(value) <= width:
            return "{" + ", ".join(f"{_name(k)}: {_tree(v, depth - 1, width)}" for k, v in value.items()) + "}"
        key, first = next(iter(value.items()))
        names = "".join(f", {_name(k, 24)}" for k in list(value)[1 : max(2, width // 2)])
        return f"object({len(value)} keys: {_name(key)}: {_tree(first, depth - 1, width)}{names}, …)"
    if isinstance(value, list):
        if not value or depth <= 0:
            return _value(value)
        return f"array({len(value)}) of {_tree(value[0], depth - 1, width)}"
    return _value(value)


def _fitted(head: str, value: object) -> str:
    """``head`` + the deepest description of ``value`` that fits :data:`MAX_SHAPE_CHARS` (an object's outer braces
    dropped)."""
    text = ""
    for depth, width in ((5, 8), (4, 8), (4, 6), (3, 8), (3, 6), (3, 4), (2, 8), (2, 4), (1, 12), (1, 6), (0, 0)):
        body = _tree(value, depth, width)
        if body.startswith("{") and body.endswith("}"):
            body = body[1:-1]
        text = f"{head}{body}"
        if len(text) <= MAX_SHAPE_CHARS:
            return text
    return _clip(text)


def _json(text: str, complete: bool, size: int, lines: int, scope: str, source: Any = None) -> Shape | None:
    decoder = json.JSONDecoder()
    if complete:
        try:
            value = json.loads(text)
        except ValueError:  # changed: JSON texts one after another are told so (helper realworld, 2026-12-04)
            found = _jsonl(text, decoder, complete, lines, scope)
            stream = json_stream(text, decoder, complete, size) if found is None else None
            return Shape(*stream) if stream is not None else found
        if isinstance(value, dict):
            return Shape("json", _fitted(f"JSON object, {_plural(len(value), 'key')}: ", value))
        if isinstance(value, list):
            head = f"JSON array of {_plural(len(value), 'item')}"
            return Shape("json", _fitted(f"{head}; first item: ", value[0]) if value else head)
        return Shape("json", _clip(f"JSON {_value(value)}"))
    jsonl = _jsonl(text, decoder, complete, lines, scope)
    if jsonl is not None:
        return jsonl
    stream = json_stream(text[: _PARTIAL_JSON_CHARS * 4], decoder, False, size)  # changed: as above (realworld)
    if stream is not None:
        return Shape(*stream)
    if source is not None:
        found = _streamed(source)
        if found is not None:
            return found
    head = text[:_PARTIAL_JSON_CHARS]
    if len(head) < len(text):
        scope = f" (in the first {_kib(len(head.encode('utf-8')))} of {_kib(size)})"
    return _partial_json(head, decoder, scope)


def _streamed(source: ContentSource) -> Shape | None:
    """The top level of a large JSON document, read whole by streaming (ijson)."""
    try:
        top = top_level(source, STREAM_BYTES, STREAM_SECONDS)
    except (OSError, FormatError, ValueError):
        return None
    if top is None or top.kind not in ("object", "array"):
        return None
    return Shape("json", _top_text(top, source.size))


def _entry_text(entry: TopEntry) -> str:
    if entry.kind == "object":
        names = ", ".join(_name(n) for n in entry.names[:6])
        more = ", …" if entry.count > len(entry.names[:6]) else ""
        return f"object({_plural(entry.count, 'key')}: {names}{more})" if entry.count else "object(0 keys)"
    if entry.kind == "array":
        if entry.names:
            names = ", ".join(_name(n) for n in entry.names[:8])
            return f"array({entry.count}) of {{{names}{', …' if len(entry.names) >= 8 else ''}}}"
        return f"array({entry.count}) of {entry.item_kind}" if entry.item_kind else f"array({entry.count})"
    if entry.kind == "str":
        return "str" if entry.count < 200 else f"str({_kib(entry.count)})"
    return entry.kind


def _top_text(top: TopLevel, size: int) -> str:
    least = "" if top.complete else "at least "
    scope = "" if top.complete else f" (in the first {_kib(top.read_bytes)} of {_kib(size)})"
    if top.kind == "array":
        items = top.entries[0] if top.entries else None
        first = ""
        if items is not None and items.names:
            first = "; items: {" + ", ".join(_name(n) for n in items.names[:8]) + "}"
        elif items is not None and items.item_kind:
            first = f"; first item: {items.item_kind}"
        return _clip(f"JSON array of {least}{_plural(top.count, 'item')}{scope}{first}")
    text = f"JSON object, {least}{_plural(top.count, 'key')}{scope}: "
    listed = ""
    for count, entry in enumerate(top.entries):
        part = f"{_name(entry.key)}: {_entry_text(entry)}"
        more = f", … {top.count - count} more" if count < top.count else ""
        if len(text) + len(listed) + len(part) + 2 + len(more) > MAX_SHAPE_CHARS:
            return _clip(text + listed + more)
        listed += (", " if listed else "") + part
    extra = f", … {top.count - len(top.entries)} more" if top.count > len(top.entries) else ""
    return _clip(text + listed + extra)


def _items(items: list) -> str:
    first = items[0] if items else None
    if isinstance(first, dict):
        return "; first item: object with keys " + ", ".join(_name(k) for k in list(first)[:12])
    if first is not None:
        return f"; first item: {_value(first)}"
    return ""


def _jsonl(text: str, decoder: json.JSONDecoder, complete: bool, lines: int, scope: str) -> Shape | None:
    # Changed on purpose (branch csvjsonl, fault 4): the count is the records a record= read numbers (lines that are
    # not blank, ASCII white space as bytes.strip() strips it) -- exact for a whole content, the line count scaled by
    # the sample's share of records otherwise -- and the keys are gathered from the records of the sample's whole
    # lines in its first 128 Ki characters, not the first 20. A first record too long for the first 64 Ki
    # characters is looked for in all of the sample (as a table's first rows are, fault 2).
    head = text[:65536]
    rows = head.split("\n", 20)[:20]
    if len(rows) > 1 and (len(head) < len(text) or not complete):
        rows = rows[:-1]  # the last may be cut by the sample's end
    rows = [row for row in rows if row.strip()]
    if len(rows) < 2 and len(head) < len(text):
        rows = text.split("\n", 20)[:20]
        if len(rows) > 1 and not complete:
            rows = rows[:-1]
        rows = [row for row in rows if row.strip()]
    # Changed on purpose (atk26): the content's last line among the first 20 may be cut (not JSON) when 2 lines before
    # it are JSON, and a whole content's last record that is not JSON is counted out and told ('the last line cut
    # (not JSON)' without a newline after it, else 'the last line not JSON').
    ends = complete and len(text.split("\n", 20)) <= 20 and len(head) == len(text)
    if ends and len(rows) >= 3:
        try:
            decoder.decode(rows[-1])
        except (ValueError, RecursionError):
            rows = rows[:-1]
    if len(rows) < 2:
        return None
    try:
        values = [decoder.decode(row) for row in rows]
    except ValueError:
        return None
    whole_lines = text.split("\n")
    if not complete:
        whole_lines = whole_lines[:-1]  # the part after the last newline may be cut
    elif whole_lines[-1] == "":
        whole_lines.pop()
    records = [line for line in whole_lines if line.strip(" \t\n\r\x0b\x0c")]
    last = ""
    if complete:
        try:
            json.loads(records[-1])
        except (ValueError, RecursionError):
            ended = text.rstrip(" \t\x0b\x0c\r").endswith("\n")
            last = ", the last line not JSON" if ended else ", the last line cut (not JSON)"
        count = _plural(len(records) - bool(last), "record") + last
    elif len(records) == len(whole_lines):
        count = _plural(lines, "record")
    else:
        count = "~" + _plural(round(lines * len(records) / max(1, len(whole_lines))), "record")
    first = values[0]
    merged: dict = {}
    scanned, total = [], 0
    for record in records:  # keys from the records in the first 128 Ki characters (at least one): ~4 ms, not ~15
        total += len(record) + 1
        if total > 128 * 1024 and scanned:
            break
        scanned.append(record)
    # Changed on purpose (branch structfix): a key some of the scanned objects lack is marked '?' (as a JSON array's
    # items' are), and records of more than one kind (objects and arrays, or scalars) are counted by kind, most
    # frequent first, the objects' keys after: the first record's kind or keys alone described records most of
    # which were something else ("record keys: a, b" over 300 arrays).
    kinds: dict = {}
    objects = []
    for record in scanned:  # the keys of the sample's records, in order of first appearance
        try:
            value = json.loads(record, parse_constant=lambda name: json.loads("x"))
        except (ValueError, RecursionError):
            continue
        kind = ("object" if isinstance(value, dict) else "array" if isinstance(value, list) else "string"
                if isinstance(value, str) else "boolean" if isinstance(value, bool) else "null" if value is None
                else "number")
        kinds[kind] = kinds.get(kind, 0) + 1
        if isinstance(value, dict):
            objects.append(value)
            for key, item in value.items():
                merged.setdefault(key, item)
    merged = {(key if all(key in o for o in objects) else _Lacked(key)): item for key, item in merged.items()}
    if len(kinds) > 1:
        shown = len(records) - bool(last)
        scanned_count = sum(kinds.values())
        of = f"of the first {scanned_count:,}: " if scanned_count < shown else ""
        ranked = sorted(kinds.items(), key=lambda kind: -kind[1])
        head = f"JSON lines, {count}; records of mixed kinds ({of}{', '.join(_plural(n, k) for k, n in ranked)})"
        return Shape("jsonl", _fitted(f"{head}; the objects' keys: ", merged) if merged else _clip(head))
    if not isinstance(first, dict):
        return Shape("jsonl", _clip(f"JSON lines, {count}; first record: {_value(first)}"))
    return Shape("jsonl", _fitted(f"JSON lines, {count}; record keys: ", merged))


class _Lacked(str):
    """A key some records lack, written with a '?' after its name (branch structfix)."""

    __slots__ = ()


def _partial_json(text: str, decoder: json.JSONDecoder, scope: str) -> Shape | None:
    """Top-level keys (or items) of a JSON document cut by the sample's end, each value parsed at C speed."""
    ws = re.compile(r"\s*")
    opening = text[0]
    pos = 1
    seen: list[str] = []
    count = 0
    while True:
        pos = ws.match(text, pos).end()
        if pos >= len(text) or text[pos] in "}]":
            break
        try:
            if opening == "{":
                key, pos = decoder.raw_decode(text, pos)
                pos = ws.match(text, pos).end()
                if text[pos : pos + 1] != ":":
                    return None
                pos = ws.match(text, pos + 1).end()
                try:
                    value, pos = decoder.raw_decode(text, pos)
                except ValueError:
                    kind = {"{": "object", "[": "array", '"': "str"}.get(text[pos : pos + 1], "value")
                    seen.append(f"{_name(key)}: {kind} (runs past the sample)")
                    count += 1
                    break
                seen.append(f"{_name(key)}: {_value(value)}")
            else:
                value, pos = decoder.raw_decode(text, pos)
                if count == 0:
                    seen.append(_items([value])[2:])
            count += 1
        except (ValueError, IndexError):
            break
        pos = ws.match(text, pos).end()
        if text[pos : pos + 1] != ",":
            break
        pos += 1
    if text[pos : pos + 1] in "}]" and text[(end := ws.match(text, pos + 1).end()) : end + 1] not in ("", "{", "["):
        return None  # (changed, newuser8: text after the document's end is no JSON -- dmesg's "[    0.000000] ...")
    if count == 0 and opening == "{":
        return Shape("json", _clip(f"JSON object{scope}; its first value is larger than the sample"))
    if opening == "{":
        listed = ", ".join(seen[:12]) + (f", … {len(seen) - 12} more" if len(seen) > 12 else "")
        return Shape("json", _clip(f"JSON object, at least {_plural(count, 'key')}{scope}: {listed}"))
    first = f"; {seen[0]}" if seen else ""
    return Shape("json", _clip(f"JSON array, at least {_plural(count, 'item')}{scope}{first}"))


def _delimited(text: str, complete: bool, size: int, lines: int, scope: str) -> Shape | None:
    # Changed on purpose (branch csvjsonl, faults 2 and 3): a head of fewer than 2 newlines (a long first row) gives
    # way to all of the sample; a first line that is JSON is no table (JSON lines with a line that is not JSON); the
    # rows of a sample are estimated from the records per byte of the head's whole lines when those are fewer than
    # its lines (quoted fields over several lines, blank lines), else still from the line count.
    head = text[:8192]  # the first lines tell a table
    if head.count("\n") < 2:
        head = text
    first_line = head.split("\n", 1)[0]
    delimiter = "\t" if first_line.count("\t") >= 1 and first_line.count("\t") >= first_line.count(",") else ","
    if first_line.count(delimiter) < 1:
        return None
    if first_line.removeprefix("\ufeff")[:1] in ("{", "["):  # (a byte order mark is no part of the line)
        try:
            json.loads(first_line.removeprefix("\ufeff"))
            return None
        except (ValueError, RecursionError):
            pass
    sample_lines = head.split("\n", 50)[:50]
    if len(head) < len(text) or not complete or not head.endswith("\n"):
        sample_lines = sample_lines[:-1] or sample_lines  # the last may be cut
    try:
        rows = list(csv.reader(io.StringIO("\n".join(sample_lines[:50])), delimiter=delimiter))
    except csv.Error:
        return None
    rows = [row for row in rows if row]
    if len(rows) < 2:
        return None
    width = len(rows[0])
    if width < 2 or any(len(row) != width for row in rows[1:-1]):
        return None
    header = rows[0]
    looks_like_header = all(cell and not cell.replace(".", "").replace("-", "").isdigit() for cell in header)
    columns = ", ".join(_name(c, 24) for c in header[:16]) + (f", … {width - 16} more" if width > 16 else "")
    if complete:
        try:
            records = sum(1 for row in csv.reader(io.StringIO(text), delimiter=delimiter) if row)
        except csv.Error:
            records = lines
        count = _plural(records - (1 if looks_like_header else 0), "row")
    else:
        body = head[: head.rfind("\n") + 1]
        try:
            records = sum(1 for row in csv.reader(io.StringIO(body), delimiter=delimiter) if row)
        except csv.Error:
            records = -1
        if records in (-1, body.count("\n")) or not body:
            count = f"~{_plural(lines - (1 if looks_like_header else 0), 'row')} (by line count)"
        else:
            # Changed on purpose (branch hostile6): per line of the head's whole lines times the content's line
            # count, not per byte times its size (rows that grow wider down a table made it 12 times too many)
            estimate = round(records * lines / body.count("\n"))
            count = f"~{_plural(estimate - (1 if looks_like_header else 0), 'row')} (estimated from the sample)"
    kind = "TSV" if delimiter == "\t" else "CSV"
    named = f"{width} columns ({columns})" if looks_like_header else f"{width} columns, no header"
    return Shape("csv", _clip(f"{kind}, {named}, {count}"))


def _html(sample: bytes, size: int, scope: str) -> str:
    title = _TITLE_RE.search(sample)
    name = _WS_RE.sub(b" ", title.group(1)).strip().decode("utf-8", "replace") if title else ""
    visible = _WS_RE.sub(b" ", _TAG_RE.sub(b" ", _SCRIPT_RE.sub(b" ", sample))).strip()
    share = 1 - len(visible) / max(1, len(sample))
    titled = f'title "{_name(name, 80)}", ' if name else "no title, "
    text = f"HTML, {titled}~{_kib(len(visible))} of text in {_kib(len(sample))} ({share:.0%} markup){scope}"
    headings = [(level.decode(), _WS_RE.sub(b" ", _TAG_RE.sub(b"", body)).strip().decode("utf-8", "replace"))
                for level, body in _HEADING_RE.findall(sample)]
    headings = [(level, body) for level, body in headings if body]
    if not headings:
        return _clip(text)
    text += f"; {_plural(len(headings), 'heading')}: "
    listed: list[str] = []
    for count, (level, body) in enumerate(headings):
        item = f"h{level} {_name(body, 48)}"
        if listed and listed[-1] == item:
            continue  # a heading repeated right after itself (a page title over its first section)
        more = f" … {len(headings) - count} more" if count < len(headings) else ""
        if len(listed) == _HEADINGS or len(text) + len(" | ".join([*listed, item])) + len(more) + 3 > MAX_SHAPE_CHARS:
            return _clip(text + " | ".join(listed) + more)
        listed.append(item)
    return _clip(text + " | ".join(listed))


def _head_rows(head: bytes) -> int:
    """Non-empty lines in ``head`` (which starts with a newline)."""
    return max(1, head.count(b"\n") + (not head.endswith(b"\n")) - head.count(b"\n\n"))


def _is_log(sample: bytes) -> bool:
    """Most of the first lines start with a timestamp or a log level (a log, whatever commas it has)."""
    bom = 3 if sample.startswith(b"\xef\xbb\xbf") else 0  # changed: a byte order mark hid the first line (2026-12-02)
    head = b"\n" + sample[bom : bom + 4096]  # the first lines tell a log or grep output
    return len(_LOG_LINE_RE.findall(head)) >= 0.5 * _head_rows(head)


def _plain(sample: bytes, size: int, lines: int, scope: str, is_log: bool) -> Shape:
    if len(sample) < size:
        sample = sample[: sample.rfind(b"\n") + 1] or sample  # whole lines only
    rows = sample.split(b"\n")
    if len(rows) > 1 and not rows[-1]:
        rows.pop()  # the empty rest after a final newline
    longest = max(map(len, rows)) if rows else 0
    blank = sum(not row.strip(b"\r") for row in rows) / max(1, len(rows))  # changed: empty lines counted in pairs,
    # a blank CRLF line (a lone \r) not counted (2026-12-03)
    bom = 3 if sample.startswith(b"\xef\xbb\xbf") else 0  # changed: a byte order mark hid the first line (2026-12-02)
    head = b"\n" + sample[bom : bom + 4096]  # the first lines tell a log or grep output
    head_rows = _head_rows(head)
    kind = "log" if is_log else "text"
    extra = ""
    if not is_log and len(_GREP_RE.findall(head)) >= 0.8 * head_rows:
        files = len(set(_GREP_RE.findall(b"\n" + sample)))
        extra = f", grep-style path:line: output ({_plural(files, 'file')} in {'the sample' if scope else 'all'})"
    text = f"{kind}, {_plural(lines, 'line')}, longest {_plural(longest, 'byte')}, {blank:.0%} blank{extra}{scope}"
    return Shape(kind, _clip(text))


__all__ = [
    "GREP_LINE_PATTERN",
    "MAX_NUL_SHARE",
    "MAX_ODD_SHARE",
    "MAX_SHAPE_CHARS",
    "SAMPLE_BYTES",
    "STREAM_BYTES",
    "TEXT_PROBE_BYTES",
    "Shape",
    "describe",
    "is_text",
]
