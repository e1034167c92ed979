"""The jq read a JSON object's stub names next, from its shape: ``keys`` tells nothing its shape does not when the
shape names every key (``JSON object, 3 keys: data: array(300) of {id: int}, total: int, meta: {a: int}``), so the
note then names a read that goes further: into the largest value the shape names (``.data[0]``, an array of
objects' first item; ``.data``, an array of scalars; ``.meta | keys``, an object whose keys its shape elides;
``.meta``, one whose keys it lists; ``.text``, a long string when no key holds an array or an object).
"""

from __future__ import annotations

import json
import re

_HEAD_RE = re.compile(r"JSON object, ([0-9,]+) keys?: ")
_COUNT_RE = re.compile(r"(?:array|object)\(([0-9,]+)")
_PLAIN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_OPEN, _CLOSE = "({[", ")}]"
_SURROGATE = re.compile("[\ud800-\udfff]")


def next_jq(shape: str | None) -> str | None:
    """The jq filter that reads further than ``keys`` into the JSON object ``shape`` describes, when the shape names
    every one of its keys (a shape that says ``at least``, elides keys with ``…`` or was cut gives ``None``: then
    ``keys`` lists what it does not). A key whose name the shape shortened or replaced a character of is never
    named. Never raises."""
    head = _HEAD_RE.match(shape or "")
    if head is None:
        return None
    entries = _split(shape[head.end():])
    if entries is None or len(entries) != int(head.group(1).replace(",", "")):
        return None
    best: tuple[int, str] | None = None
    for entry in entries:
        if entry.startswith("…"):
            return None  # (an elided rest: keys tells it)
        named = _entry(entry)
        if named is None:
            continue
        name, value = named
        filter_, rank = _read_of(_path(name), value)
        if filter_ is not None and (best is None or rank > best[0]):
            best = (rank, filter_)
    return None if best is None else best[1]


def _split(text: str) -> list[str] | None:
    """``text`` split at its top-level ``", "`` (not inside brackets or a quoted name); ``None`` when its brackets
    do not close (a shape cut short)."""
    parts, depth, start, quoted, at = [], 0, 0, False, 0
    while at < len(text):
        char = text[at]
        if quoted:
            if char == "\\":
                at += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif depth == 0 and text.startswith(", ", at):
            parts.append(text[start:at])
            start = at + 2
        at += 1
    if depth or quoted:
        return None
    parts.append(text[start:])
    return parts


def _entry(entry: str) -> tuple[str, str] | None:
    """``(key, what it holds)`` of a shape's ``key: value`` entry (a quoted name read as JSON); ``None`` for a name
    alone (a key of the same kind as the one before), a name shortened (``…``), with a character replaced or a lone
    surrogate."""
    if entry.startswith('"'):
        try:
            name, end = json.JSONDecoder().raw_decode(entry)
        except ValueError:
            return None
        rest = entry[end:]
    else:
        name, sep, value = entry.partition(": ")
        rest = f": {value}" if sep else ""
    if not rest.startswith(": ") or not isinstance(name, str) or "…" in name or "?" in name or _SURROGATE.search(name):
        return None  # (a lone surrogate, "\\ud800" in the JSON text: no UTF-8 note can name it, nor jq read it back)
    return name, rest[2:]


def _path(name: str) -> str:
    return f".{name}" if _PLAIN_RE.match(name) else f".{json.dumps(name, ensure_ascii=False)}"


def _read_of(path: str, value: str) -> tuple[str | None, int]:
    """The read into a value the shape describes as ``value``, and its rank (its items or keys, the larger first;
    a string after every container)."""
    counted = _COUNT_RE.match(value)
    count = int(counted.group(1).replace(",", "")) if counted else 0
    if value.startswith("array(") and count:
        return (f"{path}[0]" if "{" in value or "array(" in value[6:] else path), count + 2  # (items of scalars: all)
    if value.startswith("object(") and count:
        return (f"{path} | keys" if "…" in value else path), count + 2
    if value.startswith("{"):
        return path, 2
    if value.startswith("str("):
        return path, 1
    return None, 0


__all__ = ["next_jq"]
