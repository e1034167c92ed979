"""Structure views of one spilled entry for the web inspector: a JSON tree, expanded one node at a time, a CSV
table, paged by rows, and the text of an HTML page. A person sees what the model reads: the table and the text come
from the same functions as the model's structure reads (:attr:`scratchfs.api.scope.Scope.structure`).

* JSON is read through :meth:`scratchfs.api.scope.Scope.read_range` in 64 KiB ranges, at most
  :data:`MAX_STRUCTURE_BYTES` bytes: a JSON document larger than that gets no tree (``InvalidArgument``; its lines,
  ranges and searches still work). It is parsed by the standard library's :mod:`json` (RFC 8259; ``NaN`` and
  ``Infinity`` are refused, since they are not JSON); nodes are addressed by JSON Pointer (RFC 6901: ``""`` the root,
  ``/a/0/b``, ``~0`` for ``~`` and ``~1`` for ``/``). A node's children are listed in pages of at most
  :data:`MAX_CHILDREN`; a scalar child carries its value, a string cut to :data:`MAX_STRING_CHARS` characters
  (``cut`` says so).
* CSV/TSV records are those of the model's ``rows`` read (:meth:`~scratchfs.api.structured.StructureReads.table`:
  the ``csv`` module, the delimiter of :func:`~scratchfs.engine.structure.table_start.detect_delimiter`: tab, ``;`` or
  ``,``): the records that start in the first :data:`MAX_STRUCTURE_BYTES` bytes (``partial`` says when more
  follow), returned in pages of at most :data:`MAX_ROWS`, cells cut to :data:`MAX_CELL_CHARS` characters.
* HTML is the model's ``view="text"`` (:meth:`~scratchfs.api.page_reads.PageReads.text_view`), returned in pages
  of at most :data:`MAX_TEXT_BYTES` bytes of its UTF-8 text (offsets and ``size`` in those bytes, as the model's
  ``view="text"`` counts them), cut on character boundaries; of an entry larger than :data:`MAX_HTML_TEXT_BYTES`
  (which the model's view refuses), the text of its first bytes (``partial`` says so).

Parsed documents are kept in a small cache (:data:`CACHE_DOCUMENTS` of them, by run, agent and handle: a handle's
content never changes), so expanding a tree does not parse the document again.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from decimal import Decimal
from typing import Any

from scratchfs.api.scope import Scope
from scratchfs.engine.structure import MAX_HTML_BYTES
from scratchfs.engine.structure.numbers import CONSTANTS_SAID, exact_float, replace_lone_surrogates
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.collector import CollectorPaused
from scratchfs.foundation.errors import InvalidArgument, NotJson
from scratchfs.foundation.limits import MAX_READ_BYTES
from scratchfs.foundation.text import digits_int, utf8_lead_length, utf8_partial_tail

MAX_STRUCTURE_BYTES = 4 * 1024 * 1024
"""Most content bytes parsed for a structure view."""
MAX_CHILDREN = 500
"""Most children of a JSON node listed per request."""
MAX_STRING_CHARS = 300
"""Longest string value shown in a JSON tree, in characters."""
MAX_ROWS = 500
"""Most CSV rows returned per request."""
MAX_CELL_CHARS = 1000
"""Longest CSV cell returned, in characters."""
MAX_TEXT_BYTES = 65536
"""Most UTF-8 bytes of an HTML entry's text returned per request."""
MAX_HTML_TEXT_BYTES = MAX_HTML_BYTES
"""Most bytes of an HTML entry rendered for its text (the model's bound: the whole text the model reads up to it, the
text of the first bytes of a larger entry)."""
CACHE_DOCUMENTS = 4
"""Parsed documents kept in memory."""

_cache: OrderedDict[tuple[str, str, str, str], Any] = OrderedDict()
_cache_lock = threading.Lock()


def read_bounded(scope: Scope, handle: str, limit: int = MAX_STRUCTURE_BYTES) -> tuple[bytes, int]:
    """The first ``limit`` bytes of a spilled entry and its full size in bytes.

    Raises:
        InvalidArgument: a bad handle. NotFound: no live entry. CorruptBlob, StoreBusy, StorageError: from the store.
    """
    first = scope.read_range(handle, 0, MAX_READ_BYTES)
    parts, size, at = [first.data], first.size, len(first.data)
    while at < min(size, limit):
        piece = scope.read_range(handle, at, min(MAX_READ_BYTES, limit - at))
        if not piece.data:
            break
        parts.append(piece.data)
        at += len(piece.data)
    return b"".join(parts)[:limit], size


def _cached(scope: Scope, handle: str, view: str, parse: Any) -> Any:
    key = (scope.run_id, scope.agent_id, handle, view)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    value = parse()
    with _cache_lock:
        _cache[key] = value
        while len(_cache) > CACHE_DOCUMENTS:
            _cache.popitem(last=False)
    return value


def _parse_json(scope: Scope, handle: str) -> tuple[Any, str | None, str | None]:
    """The document, its first lone surrogate escape (``None``: none; each such escape is read as U+FFFD) and its
    first ``NaN``, ``Infinity`` or ``-Infinity`` (as Python's ``json`` writes them: read, each a ``Decimal`` the tree
    gives as its text; ``None``: none)."""
    constants: list[str] = []
    constant = lambda name: constants.append(name) or Decimal(name)  # noqa: E731
    data, size = read_bounded(scope, handle)
    if size > MAX_STRUCTURE_BYTES:
        raise InvalidArgument(f"the entry is {size:,} bytes, more than the {MAX_STRUCTURE_BYTES:,} a JSON tree "
                              "parses; read it by lines or search it")
    try:
        text, escape = replace_lone_surrogates(data.decode("utf-8-sig"))  # no UTF-8 carries a lone surrogate
        with CollectorPaused():  # (a tree of up to MAX_STRUCTURE_BYTES: the collector would cost more than the parse)
            try:
                return json.loads(text, parse_constant=constant, parse_float=_real), escape, next(iter(constants), None)
            except ValueError as exc:  # (an integer past int()'s digits: parsed again, each integer by the hook)
                if isinstance(exc, json.JSONDecodeError) or _TOO_MANY_DIGITS not in str(exc):
                    raise
            constants.clear()
            document = json.loads(text, parse_constant=constant, parse_float=_real, parse_int=_integer)
            return document, escape, next(iter(constants), None)
    except UnicodeDecodeError:
        raise NotJson("the entry is not UTF-8 text, so not JSON") from None
    except ValueError as exc:
        raise NotJson(f"the entry is not JSON: {exc}") from None
    except RecursionError:
        raise InvalidArgument("the entry's JSON is nested too deeply to show as a tree") from None


_TOO_MANY_DIGITS = "integer string conversion"
"""Words of the ValueError ``int()`` raises past ``sys.get_int_max_str_digits`` (4,300 digits), which ``json``
lets through: a valid JSON integer, which the tree gives as its text."""


def _integer(literal: str) -> int | Decimal:
    """An integer: an ``int``, or a ``Decimal`` (its text kept) for one of more digits than ``int()`` converts."""
    try:
        return int(literal)
    except ValueError:
        return Decimal(literal)


def _real(literal: str) -> float | Decimal:
    """A number with a point or an exponent: a ``float`` when it is exactly the number written, else a ``Decimal``
    (``1e400`` is no float, ``1.00000000000000000001`` no 1.0: the tree gives their text)."""
    value = float(literal)
    return value if exact_float(value, literal) else Decimal(literal)


def _type(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def resolve(document: Any, pointer: str) -> Any:
    """The node of ``document`` at JSON Pointer ``pointer`` (RFC 6901).

    Raises:
        InvalidArgument: a malformed pointer, or one that names no node.
    """
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        raise InvalidArgument(f"a JSON pointer starts with '/' (or is empty for the root): {pointer[:80]!r}")
    node = document
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and (index := digits_int(part)) is not None and index < len(node) \
                and (part == "0" or not part.startswith("0")):
            node = node[index]
        else:
            raise InvalidArgument(f"no node at JSON pointer {pointer[:200]!r}")
    return node


def _child(key: str | int, pointer: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "path": f"{pointer}/{_escape(str(key))}", "type": _type(value)}
    if isinstance(value, (dict, list)):
        out["count"] = len(value)
    elif isinstance(value, str) and len(value) > MAX_STRING_CHARS:
        out["value"], out["cut"] = value[:MAX_STRING_CHARS], True
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
        out["value"], out["text"] = value, str(value)  # the page shows the text: a JavaScript number would round it
    elif isinstance(value, Decimal):  # no double is this number: its nearest (null past a double's range) and text
        out["value"] = float(value) if math.isfinite(float(value)) else None
        out["text"] = str(value)
    else:
        out["value"] = value
    return out


def json_tree(scope: Scope, handle: str, pointer: str = "", offset: int = 0, limit: int = 200) -> dict[str, Any]:
    """One node of a spilled JSON document: ``{handle, path, type, count, offset, children: [{key, path, type,
    count | value, cut?, text?}], next_offset}`` (``count``: children of an object or array; ``text``: the
    decimal digits of an integer beyond 2**53, which a JavaScript number would round, and of a number no double
    is (``1e400``: ``value`` null; ``1.00000000000000000001``: ``value`` its nearest double); ``next_offset``: the
    child index to list next, ``null`` when all were listed; a scalar node has its ``value`` and ``text`` too;
    ``note``: the document holds lone surrogate escapes (``"\\ud800"``), shown as U+FFFD, or NaN or Infinity as
    Python's ``json`` writes them, each ``value`` null and ``text`` its literal).

    Raises:
        InvalidArgument: not JSON (NotJson, one; not UTF-8 text too), larger than :data:`MAX_STRUCTURE_BYTES`, a
            bad pointer, offset (negative, or past the node's children: ``count`` is the last) or limit.
        NotFound, CorruptBlob, StoreBusy, StorageError: from the store.
    """
    if not 1 <= limit <= MAX_CHILDREN:
        raise InvalidArgument(f"limit must be 1 to {MAX_CHILDREN}: {limit}")
    if offset < 0:
        raise InvalidArgument(f"offset must not be negative: {offset}")
    document, escape, constant = _cached(scope, handle, "json", lambda: _parse_json(scope, handle))
    node = resolve(document, pointer)
    result: dict[str, Any] = {"handle": handle, "path": pointer, "type": _type(node)}
    if escape is not None:
        result["note"] = (f"the document holds lone surrogate escapes (e.g. {escape}), which no UTF-8 text can "
                          "carry: the tree shows each as U+FFFD (\ufffd)")
    if constant is not None:  # (value null, text "NaN", as a number no double is)
        said = f"the document {CONSTANTS_SAID}: the tree gives each as its text"
        result["note"] = f"{result['note']}; {said}" if "note" in result else said
    count = len(node) if isinstance(node, (dict, list)) else 0
    if offset > count:  # (at the end: no child, as a read at a content's size has no byte)
        raise InvalidArgument(f"offset {offset} is past the end of the node at {pointer!r}: it has {count:,} "
                              f"children (offsets 0 to {count})")
    if isinstance(node, dict):
        items: list[tuple[str | int, Any]] = list(node.items())[offset : offset + limit]
    elif isinstance(node, list):
        items = list(enumerate(node[offset : offset + limit], start=offset))
    else:
        shown = _child("", pointer, node)
        result.update({key: shown[key] for key in ("value", "text", "cut") if key in shown})
        return {**result, "count": 0, "offset": 0, "children": [], "next_offset": None}
    end = offset + len(items)
    return {**result, "count": len(node), "offset": offset,
            "children": [_child(key, pointer, value) for key, value in items],
            "next_offset": end if end < len(node) else None}


def _parse_csv(scope: Scope, handle: str) -> tuple[list[list[str]], bool]:
    records, partial = scope.structure.table(handle, MAX_STRUCTURE_BYTES)  # as the model's rows read parses it
    return [[cell[:MAX_CELL_CHARS] for cell in row] for row in records], partial


def csv_table(scope: Scope, handle: str, row: int = 0, rows: int = 100) -> dict[str, Any]:
    """A page of a spilled CSV (or TSV) entry: ``{handle, columns, row, rows: [[cell, ...]], total_rows,
    next_row, partial}``. ``columns`` is the first record (of a table whose stub says "no header": its columns'
    numbers, every record a row: :meth:`~scratchfs.api.structured.StructureReads.table`); ``row`` counts data
    records from 0 (after it); ``total_rows`` counts the data records parsed; ``partial``: the entry is larger than
    :data:`MAX_STRUCTURE_BYTES` and only its first records were parsed.

    Raises:
        InvalidArgument: not CSV, a bad row (negative, or past ``total_rows``) or rows. NotFound, CorruptBlob,
            StoreBusy, StorageError: from the store.
    """
    if not 1 <= rows <= MAX_ROWS:
        raise InvalidArgument(f"rows must be 1 to {MAX_ROWS}: {rows}")
    if row < 0:
        raise InvalidArgument(f"row must not be negative: {row}")
    records, partial = _cached(scope, handle, "csv", lambda: _parse_csv(scope, handle))
    body = records[1:]
    if row > len(body):
        raise InvalidArgument(_past_rows(handle, row, len(body), partial))
    page = body[row : row + rows]
    end = row + len(page)
    return {"handle": handle, "columns": records[0] if records else [], "row": row, "rows": page,
            "total_rows": len(body), "next_row": end if end < len(body) else None, "partial": partial}


def _past_rows(handle: str, row: int, count: int, partial: bool) -> str | Advice:
    """Why ``row`` is refused by :func:`csv_table` (``count`` rows parsed, after the header; ``partial``: those of
    the table's first :data:`MAX_STRUCTURE_BYTES` alone): past the last row, or, in a larger table, past the rows
    parsed here -- the table goes on, and the model's rows read (``row=`` counting from 1: ``row + 1``) reads them."""
    last = f"0 to {count - 1}; " if count else ""  # (row=count, the end, is served as an empty page)
    rows = f"(row counts them from 0: {last}row={count} is the end, an empty page)"
    if not partial:
        return f"row {row} is past the last row: the table has {count:,} rows {rows}"
    return Advice.of(f"row {row} is past the rows shown here: the table's first {MAX_STRUCTURE_BYTES // 1048576} MiB "
                     f"hold {count:,} rows {rows}, the inspector parses no more; the table goes on, its rows from "
                     f"row {row} on: ", Call.of("read_handle", handle=handle, row=row + 1))


def _parse_html(scope: Scope, handle: str) -> tuple[bytes, bool]:
    text, partial = scope.structure.text_view(handle, MAX_HTML_TEXT_BYTES)  # the text the model's view="text" pages
    return text.encode("utf-8"), partial


def html_text(scope: Scope, handle: str, offset: int = 0, length: int = MAX_TEXT_BYTES) -> dict[str, Any]:
    """A page of the text of a spilled HTML entry -- the text view the model reads with ``view="text"``
    (:meth:`~scratchfs.api.page_reads.PageReads.text_view`) -- as ``{handle, offset, length, size, next_offset,
    partial, data}``. ``offset``, ``length``, ``size`` and ``next_offset`` count UTF-8 bytes of the text, as the
    model's ``view="text"`` does (its ``size`` and offsets are the same numbers): ``data`` is the text from byte
    ``offset`` (an offset inside a character starts at the next one) up to ``length`` bytes, cut on a character
    boundary (a first character longer than ``length`` is returned whole); ``length`` is the bytes of ``data``.
    ``partial``: the entry is larger than :data:`MAX_HTML_TEXT_BYTES` -- the model's ``view="text"`` refuses it --
    and the text is that of its first :data:`MAX_HTML_TEXT_BYTES` bytes.

    Raises:
        InvalidArgument: a bad offset (negative, or past ``size``) or length, not an HTML entry. NotFound,
            CorruptBlob, StoreBusy, StorageError: from the store.
    """
    if not 1 <= length <= MAX_TEXT_BYTES:
        raise InvalidArgument(f"length must be 1 to {MAX_TEXT_BYTES}: {length}")
    if offset < 0:
        raise InvalidArgument(f"offset must not be negative: {offset}")
    text, partial = _cached(scope, handle, "html", lambda: _parse_html(scope, handle))
    if offset > len(text):  # as the model's view="text" refuses it
        raise InvalidArgument(f"offset {offset} is past the end of the text ({len(text):,} bytes: offsets 0 to "
                              f"{len(text)})")
    while offset < len(text) and text[offset] & 0xC0 == 0x80:
        offset += 1  # inside a character: start at the next one, as the model's view does
    piece = text[offset : offset + length]
    cut = len(piece) - utf8_partial_tail(piece)
    piece = text[offset : offset + (cut or (utf8_lead_length(piece[0]) if piece else 0))]
    end = offset + len(piece)
    return {"handle": handle, "offset": offset, "length": len(piece), "size": len(text),
            "next_offset": end if end < len(text) else None, "partial": partial,
            "data": piece.decode("utf-8")}


__all__ = ["MAX_CHILDREN", "MAX_HTML_TEXT_BYTES", "MAX_ROWS", "MAX_STRUCTURE_BYTES", "MAX_TEXT_BYTES", "csv_table",
           "html_text", "json_tree", "read_bounded", "resolve"]
