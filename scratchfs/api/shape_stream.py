"""A stream of JSON texts one after another -- what ``jq .`` prints over JSON lines, ``aws ... | jq '.Items[]'``,
``kubectl get -o json`` of several objects piped through jq: each document pretty-printed over many lines -- told
from its sample. It is no one JSON document (a parser stops at the second: "Extra data") and no JSON lines (a
document spans lines), but jq reads it as it is, running a filter on each document in turn, so its shape says so and
names what the documents hold (merged as an array's items are, :func:`~scratchfs.api.shape_merge.items_template`)."""

from __future__ import annotations

import json
import re

from scratchfs.api.shape_merge import MixedItems, fitted, items_template
from scratchfs.api.shape_words import clip, plural
from scratchfs.engine.structure.jsontexts import next_document

__all__ = ["STREAM_SHAPE", "is_stream", "json_stream"]

STREAM_SHAPE = "JSON texts one after another"
"""How the shape of a stream of JSON documents starts (the stub names a jq read that runs on each)."""


def is_stream(content_type: str | None, shape: str | None) -> bool:
    """Whether an entry stored as ``content_type`` with ``shape`` is JSON texts one after another."""
    return content_type == "json" and shape is not None and shape.startswith(STREAM_SHAPE)


_BLANKS = re.compile(r"[ \t\r\n]*")
_MOST_BAD = 10
"""Most documents not JSON before others that are in content told as a stream (and fewer than a quarter of those)."""
_MOST_DOCUMENTS = 5_000  # documents parsed from a sample (about 1 us each whatever their size: a sample of more, small
# ones, is counted from their bytes, as one larger than the sample is)


def json_stream(text: str, decoder: json.JSONDecoder, complete: bool, size: int) -> tuple[str, str] | None:
    """``("json", shape)`` when ``text`` (a sample, the whole content when ``complete``; ``size``: the content's bytes)
    is two or more JSON objects or arrays one after another, blanks between them -- the last one may be cut by the
    sample's end when not ``complete`` (then the count is estimated from the sample's documents per byte), or by the
    content's (an output cut at its size limit: no document after it parses; the shape says so) --, else ``None``.
    In a whole content, a document that is not JSON before others that parse
    (:func:`~scratchfs.engine.structure.jsontexts.next_document`) is passed over and named (:func:`_broken`), while
    such documents are fewer than a quarter of those that parse and than :data:`_MOST_BAD`, and a document before it
    spans lines (documents one a line with a bad one among them are JSON lines, whose record reads name it). Parsed
    at C speed (``raw_decode``), at most :data:`_MOST_DOCUMENTS`. Raises RecursionError for a document nested deeper
    than the parser goes (as :func:`json.loads` does)."""
    values: list = []
    pos, end, cut, bad, lined = 0, len(text), False, [], True  # (lined: every document so far on a line of its own)
    while len(values) < _MOST_DOCUMENTS:
        pos = _BLANKS.match(text, pos).end()
        if pos >= end:
            break
        if text[pos] not in "{[":
            return None
        try:
            start = pos
            value, pos = decoder.raw_decode(text, pos)
            lined = lined and text.find("\n", start, pos) < 0
        except ValueError as exc:  # the sample's end cuts its last document; or the content's, a capped output's
            stopped = exc.pos if isinstance(exc, json.JSONDecodeError) else pos  # (a NaN the decoder's hook refused
            later = next_document(text, pos, stopped, decoder) if complete and values else end  # names no place)
            if not values or (later < end and (lined or len(bad) * 4 >= len(values) or len(bad) >= _MOST_BAD)):
                return None  # (no stream: JSON lines with a bad record, read as records that name it, or too many)
            if later < end:  # (one broken in the middle: passed over, the walk goes on, as slurp=true reads it)
                bad.append(len(values) + len(bad) + 1)
                pos = later
                continue
            cut = complete
            break
        values.append(value)
    if len(values) < 2:
        return None
    if bad:
        count = f"{plural(len(values), 'document')} and {_broken(bad)}" + (", then one cut short" if cut else "")
    elif cut:
        count = f"{plural(len(values), 'document')}, then one cut short (not JSON)"
    elif complete and pos >= end:
        count = plural(len(values), "document")
    else:  # a sample: its documents per byte, over the content's bytes
        sampled = len(text[:pos].encode("utf-8", "replace")) or 1
        count = "~" + plural(max(len(values), round(size * len(values) / sampled)), "document")
    head = f"{STREAM_SHAPE} (a stream, as jq prints one; a jq= filter runs on each), {count}"
    template = items_template(values)
    if isinstance(template, MixedItems):
        head = f"{head}, {template.text}"
        return "json", (fitted(f"{head}; the objects: ", template.objects) if template.objects else clip(head))
    return "json", fitted(f"{head}; each: ", template)


def _broken(bad: list[int]) -> str:
    """The documents in the middle of a stream that are not JSON (``bad``: their numbers), as its shape names them:
    slurp=true passes over them, and a jq= filter on each stops at the first."""
    numbers = ", ".join(f"{n:,}" for n in bad[:3]) + (", …" if len(bad) > 3 else "")
    return (f"{plural(len(bad), 'document')} not JSON (document {numbers}: slurp=true passes over "
            f"{'it' if len(bad) == 1 else 'them'}, a jq= filter on each stops there)")
