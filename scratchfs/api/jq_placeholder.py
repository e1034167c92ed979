"""The refusal of the stub's jq placeholder run as written (``jq="JQ"``, the filter a note leaves for the model's
own): examples that fit what the entry holds, each a whole call that keeps the read's other arguments.

A stub's note writes ``read_handle(handle=..., jq="JQ", slurp=True)`` (a table, JSON lines) or ``jq="JQ"`` (JSON
texts one after another); run as written, the read is refused with filters to put in its place. Each example is a
:class:`~scratchfs.foundation.calls.Call` of the same read -- ``slurp=True`` stays beside a slurp's filters, a
records read's ``record=`` and ``records=`` beside its own, and the tools give each the caller's ``budget``
(:func:`scratchfs.api.contract.keeps_budget`) -- and fits the content: the keys of a JSON object, the first item of
an array, each record's keys of JSON lines, the rows read of a table (jq runs on JSON: over a table's rows only with
``slurp=true``); content jq does not parse (an HTML page, a log, text) gets the reads that fit it instead
(:func:`~scratchfs.api.misfit.holds`). Followed verbatim, no example is refused (tests/test_jq_placeholder.py).
"""

from __future__ import annotations

from scratchfs.api.describe import json_top
from scratchfs.api.jq_inputs import PLACEHOLDER
from scratchfs.api.misfit import holds
from scratchfs.api.shape_aligned import is_aligned
from scratchfs.api.shape_columns import headless_columns
from scratchfs.api.shape_pipes import is_piped
from scratchfs.api.shape_stream import is_stream
from scratchfs.engine.structure import MAX_JQ_DOCUMENT_BYTES, MAX_SLURP_BYTES
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["HEAD_BYTES", "is_placeholder", "placeholder_refusal"]

_SAID = f'jq="{PLACEHOLDER}" is the stub\'s placeholder: write a jq filter in its place'
HEAD_BYTES = 4096
"""Bytes of an entry's start that :func:`placeholder_refusal` reads (``head``), and the jq reads' top level from
(:func:`~scratchfs.api.describe.json_top`): a document's first character, after blanks and a byte order mark."""
_UNITS = {"records": "records", "documents": "documents", "rows": "rows", "arrays": "rows"}


def is_placeholder(filter: object) -> bool:
    """Whether ``filter`` is the stub's jq placeholder (``"JQ"``, blanks around it allowed)."""
    return isinstance(filter, str) and filter.strip() == PLACEHOLDER


def placeholder_refusal(handle: str, kind: str | None, shape: str | None, head: bytes, size: int, *,
                        form: str | None = None, records: tuple[int, int] | None = None, jsonish: bool = False,
                        line_bytes: float = 0.0) -> InvalidArgument:
    """The refusal of ``jq="JQ"`` in a read of ``handle``, an entry stored as ``kind`` with ``shape`` (``head``: its
    first bytes, at least :data:`HEAD_BYTES` of them or all; ``size``: its bytes): a slurp read's (``form``, as
    :func:`~scratchfs.api.misfit.slurp_form` gives it: ``"records"``, ``"documents"``, ``"rows"``, ``"arrays"``), a
    records read's (``records``: its ``(record, records)``), else a jq read's. ``jsonish``: text, a log or content of
    no detected type whose first lines are mostly JSON (read as JSON lines are). Returns the InvalidArgument whose
    advice names the calls to run instead (see the module docstring)."""
    if form is not None:
        advice = _slurped(handle, form)
    elif kind == "jsonl" or jsonish:
        advice = _per_record(handle, size, records or (1, 10))
    elif is_stream(kind, shape):
        advice = Advice.of("jq= runs on each of its documents: their keys, ", Call.of(
            "read_handle", handle=handle, jq="keys"), *_all_at_once(handle, size, "documents"))
    elif kind == "json":
        advice = _document(handle, json_top(head[:HEAD_BYTES]), size)
    elif kind == "csv" or is_aligned(kind, shape) or is_piped(kind, shape) or (
            kind == "text" and headless_columns(shape) is not None):
        advice = Advice.of("jq runs on JSON, and over a table's rows only with slurp=true; its rows: ",
                           Call.of("read_handle", handle=handle, row=1, rows=20),
                           *_all_at_once(handle, size, "rows"))
    else:
        advice = holds(handle, kind, shape, line_bytes, ", which a jq= read does not parse")
    return InvalidArgument(Advice.of(f"{_SAID}; ", advice))


def _slurped(handle: str, form: str) -> Advice:
    """A slurp read's examples over the array of all the ``form`` of ``handle``, each with ``slurp=True``."""
    def slurp(filter: str) -> Call:
        return Call.of("read_handle", handle=handle, jq=filter, slurp=True)

    unit = _UNITS.get(form, form)
    advice = Advice.of(f"with slurp=true, . is the array of all its {unit}: how many, ", slurp("length"),
                       "; the first, ", slurp(".[0]"))
    if form == "arrays":  # (no header: each row an array, its columns by number)
        return advice + Advice.of("; the first column of each, ", slurp("map(.[0])"), "; how many rows hold each "
                                  "value of it, ", slurp("group_by(.[0]) | map({value: .[0][0], n: length})"))
    if form == "documents":  # (documents may be any JSON value: no key named)
        return advice
    return advice + Advice.of("; then one key of each, ", slurp("map(.KEY)"), ", or how many hold each value of it, ",
                              slurp("group_by(.KEY) | map({KEY: .[0].KEY, n: length})"),
                              ", with one of the first's keys for KEY")


def _per_record(handle: str, size: int, records: tuple[int, int]) -> Advice:
    """JSON lines' examples: a filter run on each record of a records read (its ``(record, records)``), the
    records whole, and one filter over all of them."""
    first, count = records
    return Advice.of("jq= runs on each record: their keys, ", Call.of(
        "read_handle", handle=handle, record=first, records=count, jq="keys"), "; the records whole, ", Call.of(
        "read_handle", handle=handle, record=first, records=count), *_all_at_once(handle, size, "records"))


def _all_at_once(handle: str, size: int, unit: str) -> list[str | Call]:
    """The slurp read that counts all the ``unit`` of ``handle`` (``size`` bytes), when it is within the slurp
    bound (:data:`~scratchfs.engine.structure.MAX_SLURP_BYTES`), as advice parts; none past it."""
    if size > MAX_SLURP_BYTES:
        return []
    return [f"; or one filter over the array of all its {unit}, e.g. how many: ",
            Call.of("read_handle", handle=handle, jq="length", slurp=True)]


def _document(handle: str, top: str | None, size: int) -> Advice:
    """One JSON document's examples by its ``top`` level (``size`` bytes: past
    :data:`~scratchfs.engine.structure.MAX_JQ_DOCUMENT_BYTES` only path filters run, streamed)."""
    def jq(filter: str) -> Call:
        return Call.of("read_handle", handle=handle, jq=filter)

    streamed = size > MAX_JQ_DOCUMENT_BYTES
    if top == "object" and streamed:
        return Advice.of(f"past {MAX_JQ_DOCUMENT_BYTES // 2**20} MiB only path filters run: what one key holds, ",
                         jq(".KEY"), ", with a key its shape names for KEY")
    if top == "object":
        return Advice.of("it is a JSON object: its keys, ", jq("keys[]"), "; then what one of them holds, ",
                         jq(".KEY"), ", with one of them for KEY; how many keys, ", jq("length"))
    if top == "array" and streamed:
        return Advice.of(f"past {MAX_JQ_DOCUMENT_BYTES // 2**20} MiB only path filters run: its first item, ",
                         jq(".[0]"), "; every item, ", jq(".[]"))
    if top == "array":
        return Advice.of("it is a JSON array: how many items, ", jq("length"), "; the first, ", jq(".[0]"),
                         "; then one key of each, ", jq("map(.KEY)"), ", with one of the first's keys for KEY")
    return Advice.of("the whole document, ", jq("."))
