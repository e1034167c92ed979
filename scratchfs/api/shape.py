"""What an output looks like, told cheaply: its content type and a one- or two-line shape a model can plan from.

Detection reads only a sample -- the first :data:`SAMPLE_BYTES` of the content, which the writer keeps while it
streams -- plus the totals the writer counts anyway (size, lines), so it never holds the whole content and costs a few
milliseconds whatever the size. When the content is larger than the sample, the shape says so (``in the first
512 KiB``). Parsing runs at C speed (``json``, ``csv``, ``re``).

Content types: ``json``, ``jsonl``, ``csv`` (also tab-separated), ``html``, ``xml``, ``log``, ``text``, ``binary``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass

SAMPLE_BYTES = 512 * 1024
"""Bytes of the start of a content that shape detection looks at."""
MAX_SHAPE_CHARS = 300
"""Longest shape text, in characters."""
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
_WS_RE = re.compile(rb"\s+")
_XML_ROOT_RE = re.compile(rb"<([A-Za-z_][\w.:-]*)")
# anchored on a literal newline (the text is searched with one prepended), which the engine finds at C speed
_LOG_LINE_RE = re.compile(
    rb"\n[ \t]*(?:\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}|"
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
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _utf8(sample: bytes, complete: bool) -> str | None:
    """The sample as text, or None if it is not UTF-8 (a sequence cut by the sample's end is forgiven)."""
    try:
        return sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not complete and exc.start >= len(sample) - 3 and exc.reason == "unexpected end of data":
            return sample[: exc.start].decode("utf-8", "replace")
        return None


def describe(sample: bytes, size: int, lines: int) -> Shape:
    """Detect the content type and shape of a content from its first bytes.

    Args:
        sample: the first bytes of the content (at most :data:`SAMPLE_BYTES` are looked at).
        size: the whole content's size, in bytes.
        lines: the whole content's line count (``\\n`` count, plus one for an unterminated last line).
    """
    sample = sample[:SAMPLE_BYTES]
    complete = len(sample) >= size
    scope = "" if complete else f" (in the first {_kib(len(sample))} of {_kib(size)})"
    if size == 0:
        return Shape("text", "empty")
    text = None if b"\x00" in sample[:65536] else _utf8(sample, complete)
    if text is None:
        return Shape("binary", _binary(sample, size))
    stripped = text.lstrip("\ufeff \t\r\n")
    first = stripped[:1]
    if first in ("{", "["):
        found = _json(stripped, complete, size, lines, scope)
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
    found = None if is_log else _delimited(text, complete, lines, scope)
    if found is not None:
        return found
    return _plain(sample, size, lines, scope, is_log)


def _binary(sample: bytes, size: int) -> str:
    kind = next((name for magic, name in _MAGIC if sample.startswith(magic)), None)
    head = sample[:8].hex(" ")
    return f"binary, {_kib(size)}" + (f", {kind}" if kind else "") + (f"; starts with {head}" if head else "")


def _value(value: object) -> str:
    if isinstance(value, dict):
        return f"object({len(value)} keys)"
    if isinstance(value, list):
        return f"array({len(value)})"
    if isinstance(value, str):
        return "str" if len(value) < 200 else f"str({_kib(len(value.encode('utf-8')))})"
    if value is None:
        return "null"
    return type(value).__name__


def _keys(obj: dict, limit: int = 12) -> str:
    items = [f"{_name(k)}: {_value(v)}" for k, v in list(obj.items())[:limit]]
    more = f", … {len(obj) - limit} more" if len(obj) > limit else ""
    return ", ".join(items) + more


def _json(text: str, complete: bool, size: int, lines: int, scope: str) -> Shape | None:
    decoder = json.JSONDecoder()
    if complete:
        try:
            value = json.loads(text)
        except ValueError:
            return _jsonl(text, decoder, complete, lines, scope)
        if isinstance(value, dict):
            return Shape("json", _clip(f"JSON object, {_plural(len(value), 'key')}: {_keys(value)}"))
        if isinstance(value, list):
            return Shape("json", _clip(f"JSON array of {_plural(len(value), 'item')}{_items(value)}"))
        return Shape("json", _clip(f"JSON {_value(value)}"))
    jsonl = _jsonl(text, decoder, complete, lines, scope)
    if jsonl is not None:
        return jsonl
    head = text[:_PARTIAL_JSON_CHARS]
    if len(head) < len(text):
        scope = f" (in the first {_kib(len(head.encode('utf-8')))} of {_kib(size)})"
    return _partial_json(head, decoder, scope)


def _items(items: list) -> str:
    first = items[0] if items else None
    if isinstance(first, dict):
        return "; first item: object with keys " + ", ".join(_name(k) for k in list(first)[:12])
    if first is not None:
        return f"; first item: {_value(first)}"
    return ""


def _jsonl(text: str, decoder: json.JSONDecoder, complete: bool, lines: int, scope: str) -> Shape | None:
    head = text[:65536]
    rows = head.split("\n", 20)[:20]
    if len(rows) > 1 and (len(head) < len(text) or not complete):
        rows = rows[:-1]  # the last may be cut by the sample's end
    rows = [row for row in rows if row.strip()]
    if len(rows) < 2:
        return None
    try:
        values = [decoder.decode(row) for row in rows]
    except ValueError:
        return None
    first = values[0]
    keys = f"; first record keys: {', '.join(_name(k) for k in list(first)[:12])}" if isinstance(first, dict) else ""
    return Shape("jsonl", _clip(f"JSON lines, {_plural(lines, 'record')}{keys}"))


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
    if count == 0 and opening == "{":
        return Shape("json", _clip(f"JSON object{scope}; its first value is larger than the sample"))
    if opening == "{":
        listed = ", ".join(seen[:12]) + (f", … {len(seen) - 12} more" if len(seen) > 12 else "")
        return Shape("json", _clip(f"JSON object, at least {_plural(count, 'key')}{scope}: {listed}"))
    first = f"; {seen[0]}" if seen else ""
    return Shape("json", _clip(f"JSON array, at least {_plural(count, 'item')}{scope}{first}"))


def _delimited(text: str, complete: bool, lines: int, scope: str) -> Shape | None:
    head = text[:8192]  # the first lines tell a table
    first_line = head.split("\n", 1)[0]
    delimiter = "\t" if first_line.count("\t") >= 1 and first_line.count("\t") >= first_line.count(",") else ","
    if first_line.count(delimiter) < 1:
        return None
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
        count = f"~{_plural(lines - (1 if looks_like_header else 0), 'row')} (by line count)"
    kind = "TSV" if delimiter == "\t" else "CSV"
    named = f"{width} columns ({columns})" if looks_like_header else f"{width} columns, no header"
    return Shape("csv", _clip(f"{kind}, {named}, {count}"))


def _html(sample: bytes, size: int, scope: str) -> str:
    title = _TITLE_RE.search(sample)
    name = _WS_RE.sub(b" ", title.group(1)).strip().decode("utf-8", "replace") if title else ""
    visible = _WS_RE.sub(b" ", _TAG_RE.sub(b" ", _SCRIPT_RE.sub(b" ", sample))).strip()
    share = 1 - len(visible) / max(1, len(sample))
    titled = f'title "{_name(name, 80)}", ' if name else "no title, "
    return _clip(f"HTML, {titled}~{_kib(len(visible))} of text in {_kib(len(sample))} ({share:.0%} markup){scope}")


def _head_rows(head: bytes) -> int:
    """Non-empty lines in ``head`` (which starts with a newline)."""
    return max(1, head.count(b"\n") + (not head.endswith(b"\n")) - head.count(b"\n\n"))


def _is_log(sample: bytes) -> bool:
    """Most of the first lines start with a timestamp or a log level (a log, whatever commas it has)."""
    head = b"\n" + sample[:4096]  # the first lines tell a log or grep output
    return len(_LOG_LINE_RE.findall(head)) >= 0.5 * _head_rows(head)


def _plain(sample: bytes, size: int, lines: int, scope: str, is_log: bool) -> Shape:
    if len(sample) < size:
        sample = sample[: sample.rfind(b"\n") + 1] or sample  # whole lines only
    rows = sample.split(b"\n")
    if len(rows) > 1 and not rows[-1]:
        rows.pop()  # the empty rest after a final newline
    longest = max(map(len, rows)) if rows else 0
    blank = (sample.count(b"\n\n") + sample.startswith(b"\n")) / max(1, len(rows))
    head = b"\n" + sample[:4096]  # the first lines tell a log or grep output
    head_rows = _head_rows(head)
    kind = "log" if is_log else "text"
    extra = ""
    if not is_log and len(_GREP_RE.findall(head)) >= 0.8 * head_rows:
        files = len(set(_GREP_RE.findall(b"\n" + sample)))
        extra = f", grep-style path:line: output ({_plural(files, 'file')} in {'the sample' if scope else 'all'})"
    text = f"{kind}, {_plural(lines, 'line')}, longest {longest:,} bytes, {blank:.0%} blank{extra}{scope}"
    return Shape(kind, _clip(text))


__all__ = [
    "GREP_LINE_PATTERN",
    "MAX_SHAPE_CHARS",
    "SAMPLE_BYTES",
    "Shape",
    "describe",
]
