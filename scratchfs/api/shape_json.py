"""JSON's shapes: one document (its top level; a large one's streamed from the stored content), JSON lines (records
counted, keys merged, records that are not JSON named) and documents one after another, for
:func:`scratchfs.api.shape.describe`."""

from __future__ import annotations

import json
from typing import Any

from scratchfs.api import json_unclosed
from scratchfs.api.json_chunks import array_items
from scratchfs.api.json_next import array_read, object_read, top_read
from scratchfs.api.shape_merge import MixedItems, fitted, fitted_with, items_template, value_word
from scratchfs.api.shape_partial import partial_json
from scratchfs.api.shape_result import Shape
from scratchfs.api.shape_stream import json_stream
from scratchfs.api.shape_table import json_lines, mixed_kinds, tail_fault
from scratchfs.api.shape_top import top_shape
from scratchfs.api.shape_words import clip, first_of, plural
from scratchfs.engine.seekable import FormatError
from scratchfs.engine.structure.numbers import LongIntegers
from scratchfs.engine.structure.paging import ContentSource
from scratchfs.engine.structure.toplevel import FEED_TAIL_BYTES, top_level
from scratchfs.foundation.collector import CollectorPaused

__all__ = ["ARRAY_SHAPE", "STREAM_BYTES", "STREAM_SECONDS", "json_lines_shape", "json_shape"]

ARRAY_SHAPE = "JSON array"
"""How the shape of a JSON document whose top level is an array starts (``"JSON array of 826 items; ..."``, ``"JSON
array, at least 40 items..."`` of one larger than its sample)."""

STREAM_BYTES = 2 * 1024 * 1024
"""Most bytes of a large JSON document streamed to describe its top level (past it the shape says "at least"):
the scan decodes ~150 MB/s holding the GIL while two cores compress ~450 MB/s (bench/README.md, S1 and the bound)."""
STREAM_SECONDS = 0.5
"""About the most time spent streaming a large JSON document for its top level (past it: "at least")."""
_PARTIAL_JSON_CHARS = 128 * 1024  # a JSON document larger than the sample is parsed this far for its top level


def json_shape(text: str, complete: bool, size: int, lines: int, scope: str, source: Any = None) -> Shape | None:
    """The shape of ``text`` (a content's sample decoded; ``complete``: all of it; ``size`` bytes and ``lines`` lines
    in all; ``scope``: what to add when the sample is not all of it; ``source``: the stored content, streamed for a
    large document's top level) if it is one JSON document, JSON lines or JSON documents one after another, else
    ``None``. Never raises (but RecursionError and MemoryError, as the parser raises them). The garbage collector is
    paused throughout (:class:`~scratchfs.foundation.collector.CollectorPaused`): a parse builds a container for every
    array or object, and the collector walked them all again and again; the values are dropped before it resumes,
    so it never walks them (a closed 512 KiB array of small arrays: 44 ms in a test process, 18 now)."""
    with CollectorPaused():
        return _json_shape(text, complete, size, lines, scope, source)


def _json_shape(text: str, complete: bool, size: int, lines: int, scope: str, source: Any) -> Shape | None:
    """:func:`json_shape`, the collector paused."""
    decoder = LongIntegers()  # NaN and Infinity as Python writes them read: numbers.PYTHON_CONSTANTS
    if complete:
        try:
            if json_unclosed.never_closed(text):
                raise ValueError("its first document not closed")
            value = array_items(text, decoder)  # (a large array parsed a piece at a time: json_chunks)
            value = decoder.decode(text) if value is None else value
        except ValueError as exc:  # JSON lines, or documents one after another over many lines (jq's output)
            found = json_lines_shape(text, decoder, complete, lines)
            # (a first document that does not parse is no stream's: not parsed again -- 18 ms of 512 KiB of `[1,1,`)
            after = isinstance(exc, json.JSONDecodeError) and exc.msg == "Extra data"
            stream = json_stream(text, decoder, complete, size) if found is None and after else None
            return Shape(*stream) if stream is not None else found
        if isinstance(value, dict):  # (the read past keys chosen from the value, as its text was written)
            text, fit = fitted_with(f"JSON object, {plural(len(value), 'key')}: ", value)
            return Shape("json", text, object_read(value, fit), "object")
        if isinstance(value, list):
            head = f"{ARRAY_SHAPE} of {plural(len(value), 'item')}"
            if not value:
                return Shape("json", head, top="array")
            template = items_template(value)  # (a sample of the items merged, or their kinds counted)
            first = array_read(len(value), len(text), type(value[0]).__name__)
            if isinstance(template, MixedItems):
                head = f"{head}, {template.text}"
                return Shape("json", fitted(f"{head}; the objects: ", template.objects) if template.objects
                             else clip(head), first, "array")
            return Shape("json", fitted(f"{head}; items: ", template), first, "array")
        return Shape("json", clip(f"JSON {value_word(value)}"))
    jsonl = json_lines_shape(text, decoder, complete, lines, source)
    if jsonl is not None:
        return jsonl
    part = text[:_PARTIAL_JSON_CHARS * 4]  # (not one document's top level: one unclosed parses to no stream)
    stream = None if json_unclosed.never_closed(part) else json_stream(part, decoder, False, size)
    if stream is not None:
        return Shape(*stream)
    if source is not None:
        found = _streamed(source)
        if found is not None:
            return found
    head = text[:_PARTIAL_JSON_CHARS]
    if len(head) < len(text):
        scope = first_of(len(head.encode("utf-8")), size)
    found = partial_json(head, decoder, scope)  # (its text opens the document: "{" or "[")
    return None if found is None else Shape("json", found, top=_TOPS.get(head[:1]))


_TOPS = {"{": "object", "[": "array"}
"""A JSON document's top level (:attr:`Shape.top`) by its first character."""


def _streamed(source: ContentSource) -> Shape | None:
    """The top level of a large JSON document, read whole by streaming (ijson)."""
    try:
        top = top_level(source, STREAM_BYTES, STREAM_SECONDS)
    except (OSError, FormatError, ValueError):
        return None
    if top is None or top.kind not in ("object", "array"):
        return None
    text, listed = top_shape(top, source.size)
    first = top.entries[0].kind if top.kind == "array" and top.complete and top.entries else ""
    return Shape("json", text, top_read(top, listed) if top.kind == "object" else array_read(
        top.count, source.size, first), top.kind)


def json_lines_shape(text: str, decoder: json.JSONDecoder, complete: bool, lines: int, source: Any = None
                     ) -> Shape | None:
    """The shape of ``text`` as JSON lines (records counted, their keys merged; a last line cut told from the end of
    ``source``), else ``None``. Never raises."""
    found = json_lines(text, decoder, complete)
    if found is None:
        return None
    if not complete and source is not None:  # a last line cut (a capped stream) is no record: told from the end
        found.last = tail_fault(source.read(max(0, source.size - FEED_TAIL_BYTES), FEED_TAIL_BYTES),
                                source.size <= FEED_TAIL_BYTES, decoder) or ""
    if complete:  # the records a record= read numbers: the lines that are not blank (a last one not JSON aside)
        count = plural(found.records, "record")
    elif found.records == found.lines:  # no blank line in the sample: one record a line
        count = plural(lines - bool(found.last), "record")
    else:
        count = "~" + plural(round(lines * found.records / max(1, found.lines)) - bool(found.last), "record")
    count += f", {found.last}" if found.last else ""
    count += _bad_records(found.bad, found.scanned, found.records)
    mixed = mixed_kinds(found)  # objects and arrays (or scalars): the first record's keys are no record's shape
    if mixed is not None:
        return Shape("jsonl", fitted(f"JSON lines, {count}; {mixed}; the objects' keys: ", found.keys)
                     if found.keys else clip(f"JSON lines, {count}; {mixed}"))
    if not isinstance(found.first, dict):
        return Shape("jsonl", clip(f"JSON lines, {count}; first record: {value_word(found.first)}"))
    return Shape("jsonl", fitted(f"JSON lines, {count}; record keys: ", found.keys))


def _bad_records(bad: list[int], scanned: int, records: int) -> str:
    """What a JSON-lines shape says of the records of its sample that are not JSON (``bad``: their numbers, of the
    first ``scanned``; ``records`` in the sample): a record read passes over each, naming it."""
    if not bad:
        return ""
    named = ", ".join(f"{n:,}" for n in bad[:3]) + (", …" if len(bad) > 3 else "")
    where = "" if scanned >= records else f" of the first {scanned:,}"
    return f", {plural(len(bad), 'record')}{where} not JSON ({'record' if len(bad) == 1 else 'records'} {named})"
