"""What a jq read says when its filter names a key its input does not have: jq gives ``null`` for a missing key, so
``sort_by(-.downloads)`` over a table with no column ``downloads`` failed with "null (null) cannot be negated ...
skip such values", advice that left an empty answer; ``group_by(.severity)`` over JSON lines with no ``severity``
gave one group keyed ``null``, ``select(.level == "ERROR")`` no output, ``.operations.DescribeInstance.input`` (a
misspelling of ``DescribeInstances``) ``[null]``, and no reply said why (modeltask8).

When a read's answer is empty or holds ``null`` (a document's: is empty or all ``null``), or jq failed on ``null``,
the filter's paths are parsed (:func:`input_keys`, no jq run) and their keys looked up: a table's columns, the keys
(at any depth) of the records or documents of its first :data:`SAMPLE_BYTES` (at most :data:`SAMPLE_VALUES`), a
document's keys step by step from its root for a path the filter begins with, and at any depth for the others. A key
found nowhere is named, with the nearest that exist (:mod:`difflib`), in the page's note or first in jq's error.

Only keys read from the input are looked up (a path that starts at ``.``, not at ``$x`` or a value): a key the
filter builds itself (``{s: ...}``, ``with_entries``'s ``key``/``value``) is not, and a filter that can build keys
no parse here tells (``capture``, ``fromjson``, ``reduce``, an assignment, ``{(.k): ...}``, ``..``) is not checked.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from scratchfs.engine.structure import iter_rows
from scratchfs.engine.structure.aligned import Layout
from scratchfs.engine.structure.paging import MIN_BUDGET_BYTES, ContentSource, ItemPage, json_bytes
from scratchfs.engine.structure.row_keys import EXTRA_CELLS, row_keys
from scratchfs.engine.structure.table import UNSPLIT_KEY
from scratchfs.foundation.calls import add_said
from scratchfs.foundation.errors import InvalidArgument, JqFailed
from scratchfs.foundation.text import plural

__all__ = ["MAX_DOCUMENT_BYTES", "SAMPLE_BYTES", "SAMPLE_VALUES", "document_note", "input_keys", "keys_failed",
           "keys_noted", "null_answer", "records_note", "root_path", "rows_note"]

SAMPLE_BYTES = 256 * 1024
"""Bytes from the start of JSON lines (or JSON texts) whose records are sampled for their keys."""
SAMPLE_VALUES = 1000
"""Most records (documents) sampled."""
MAX_DOCUMENT_BYTES = 4 * 1024 * 1024
"""Largest JSON document whose keys are looked up (parsed whole by ``json.loads``, only for an empty or ``null``
answer): its Python objects take 4-10 times its bytes (4.3 for fixtures/api-ec2-service-model.json, more for small
containers), so at most ~40 MiB beside the read's own, as a slurp's reading process grows (README: 90 -> 129 MiB)."""
_MOST_KEYS = 8
"""Most existing keys a note lists."""
_MOST_NODES = 200_000
"""Most values walked for their keys (of a sample or a document)."""
_STRING = r'"(?:[^"\\]|\\.)*"'
_UNSURE = re.compile(r"(?<![.$\w])(?:capture|match|fromjson|fromstream|reduce|foreach|def|setpath|getpath|INDEX|"
                     r"env|input|inputs|modulemeta|builtins|tostream)\b"
                     r"|\$__loc__|\$ENV\b|\.\.|(?<![=!<>])(?:\|=|\+=|-=|\*=|/=|%=|//=|=)(?!=)|[{,]\s*\(")
"""What can build keys no parse here tells, or assigns them: a filter holding it is not checked."""
_BUILT = re.compile(rf"[{{,]\s*(?:\$?([A-Za-z_]\w*)|({_STRING}))\s*[:,}}]")
"""A key an object construction names (``{s: ...}``, ``{"a b": ...}``, ``{$x}``)."""
_ENTRIES = re.compile(r"\b(?:to_entries|with_entries|from_entries)\b")
_KEYWORDS = frozenset({"if", "then", "elif", "else", "and", "or", "not", "try", "catch", "as"})
"""Words after which a ``.`` starts a path from the input (after any other word, a value's: ``$x.a``)."""
_NAME = re.compile(r"[A-Za-z_]\w*")


def _code(filter: str) -> str:
    """``filter`` with each string literal's text blanked (``""``); one left open blanked to the end (one pass: a
    pattern that needs the closing quote tried again from each of many quotes, the square of the filter's length)."""
    return _STRING_OR_REST.sub('""', filter)


_STRING_OR_REST = re.compile(r'"(?:[^"\\]|\\[\s\S])*(?:"|\\?\Z)')


def _chains(filter: str) -> Iterator[tuple[int, list[str | None]]]:
    """Each path from the input in ``filter``: ``(start, steps)``, a key step its key, any other step ``None``."""
    at, n, prev = 0, len(filter), ""
    while at < n:
        c = filter[at]
        if c == '"':
            end = re.compile(_STRING).match(filter, at)
            at, prev = (end.end() if end else n), '"'
            continue
        if c == "." and at + 1 < n and (filter[at + 1] in '"[_' or filter[at + 1].isalpha()):
            start, steps = at, []
            at = _steps(filter, at, steps)
            if _from_input(filter, start, prev):
                yield start, steps
            prev = ")"
            continue
        if not c.isspace():
            prev = c
        at += 1


def _from_input(filter: str, start: int, prev: str) -> bool:
    """Whether the path at ``start`` (``prev``, the last non-blank character before it) reads the input."""
    if prev and (prev in '")]}$' or prev.isdigit()):
        return False
    if prev.isalpha() or prev == "_":
        end = len(filter[:start].rstrip())  # (the word before the path, read backwards: linear in the filter)
        begin = end
        while begin > 0 and (filter[begin - 1].isalnum() or filter[begin - 1] in "_$"):
            begin -= 1
        return filter[begin:end] in _KEYWORDS
    return True


def _steps(filter: str, at: int, steps: list[str | None]) -> int:
    """Read the steps of the path at ``at`` into ``steps``; where it ends."""
    string = re.compile(_STRING)
    while at < len(filter):
        dot = filter[at] == "."
        rest = at + 1 if dot else at
        key = _NAME.match(filter, rest) if dot else None
        quoted = string.match(filter, rest) if dot else None
        if key is not None:
            steps.append(key.group())
            at = key.end()
        elif quoted is not None:
            steps.append(json.loads(quoted.group()))
            at = quoted.end()
        elif rest < len(filter) and filter[rest] == "[":
            inner = re.compile(rf"\[\s*({_STRING})\s*\]").match(filter, rest)
            steps.append(json.loads(inner.group(1)) if inner else None)
            at = inner.end() if inner else _closing(filter, rest)
        elif filter[at] == "?" and steps:
            at += 1
        else:
            break
    return at


def _closing(filter: str, at: int) -> int:
    """Where the bracket opened at ``at`` closes (after it), strings skipped; the end when it never does."""
    depth, string = 0, re.compile(_STRING)
    while at < len(filter):
        c = filter[at]
        if c == '"':
            found = string.match(filter, at)
            at = found.end() if found else len(filter)
            continue
        depth += (c in "[({") - (c in "])}")
        at += 1
        if depth == 0:
            break
    return at


def _uncommented(filter: str) -> str:
    """``filter`` with each comment (``#`` to the line's end, outside a string) blanked, its length kept."""
    return _COMMENT.sub(lambda m: m.group(1) or " " * len(m.group()), filter)


_COMMENT = re.compile(rf"({_STRING_OR_REST.pattern})|#[^\n]*")
"""A string (one left open: to the end, in one pass) or a comment."""


def input_keys(filter: str) -> list[tuple[int, list[str | None]]] | None:
    """The paths from the input ``filter`` names (:func:`_chains`), those whose first key the filter builds itself
    left out (a comment's words are none); ``None`` when it can build keys no parse tells (see the module's words):
    nothing is sure."""
    filter = _uncommented(filter)
    code = _code(filter)
    if _UNSURE.search(code):
        return None
    built = {name or json.loads(text) for name, text in _BUILT.findall(filter)}
    if _ENTRIES.search(code):
        built |= {"key", "value", "k", "v", "name", "Key", "Value", "Name"}
    kept = []
    for start, steps in _chains(filter):
        first = next((step for step in steps if step is not None), None)
        if first is not None and first not in built:
            kept.append((start, steps))
    return kept


def root_path(filter: str) -> list[str | None] | None:
    """The steps of the path ``filter`` begins with (``.a.b.c``, ``.a[0].b``), else ``None``."""
    found = input_keys(filter)
    text = filter.lstrip()
    if not found or found[0][0] != len(filter) - len(text):
        return None
    return found[0][1]


def null_answer(page: ItemPage, every: bool = False) -> bool:
    """Whether ``page`` (a first page) is empty or holds ``null`` -- with ``every``, every output ``null``."""
    if page.part is not None:
        return not every and re.search(r"\bnull\b", str(page.part)) is not None
    if not page.items:
        return not page.more
    if every:
        return all(item is None for item in page.items)
    return any(_nulls(item) for item in page.items)


def _nulls(value: Any) -> bool:
    """Whether ``value`` is or holds ``null`` (its first :data:`_MOST_NODES` values looked at)."""
    stack, seen = [value], 0
    while stack and seen < _MOST_NODES:
        one = stack.pop()
        seen += 1
        if one is None:
            return True
        if isinstance(one, dict):
            stack.extend(one.values())
        elif isinstance(one, list):
            stack.extend(one)
    return False


def _missing(filter: str, known: set[str]) -> list[str]:
    """The keys ``filter``'s paths from the input name that are not in ``known``, in order, once each."""
    found = input_keys(filter) or []
    return list(dict.fromkeys(step for _, steps in found for step in steps if step is not None
                              and step not in known))


def _listed(keys: list[str]) -> str:
    """``keys`` as JSON strings, at most :data:`_MOST_KEYS`, ``…`` after when there are more."""
    shown = ", ".join(json.dumps(key, ensure_ascii=False)[:60] for key in keys[:_MOST_KEYS])
    return shown + (", …" if len(keys) > _MOST_KEYS else "")


def _nearest(key: str, keys: list[str], noun: str) -> str:
    """The keys of ``keys`` nearest ``key`` (difflib), else the first of them, said so."""
    near = difflib.get_close_matches(key, keys, n=3, cutoff=0.6)
    if near:
        return f"nearest: {_listed(near)}"
    return f"{noun}: {_listed(keys)}"


def rows_note(source: ContentSource, layout: Layout | None, filter: str) -> str | None:
    """What a slurp read of a headed table says when ``filter`` names a key no column has (a column's name, as
    :func:`~scratchfs.engine.structure.slurp.row_keys` keys the rows), else ``None``. Reads the header; never raises
    for a table it cannot read (``None``)."""
    try:
        keys, _ = row_keys(next(iter_rows(source, layout=layout, passed=[]), (0, []))[1])
    except Exception:  # (a header that cannot be read: the slurp read itself says so)
        return None
    columns = [key for key in keys if isinstance(key, str)]
    missing = _missing(filter, set(columns) | {EXTRA_CELLS, UNSPLIT_KEY}) if columns else []
    missing = [key for key in missing if not key.startswith(EXTRA_CELLS)]  # (_extra_2: past a header's _extra)
    if not missing:
        return None
    first = json.dumps(missing[0], ensure_ascii=False)
    return (f"no column is named {first}, which the filter names (a missing key is null to jq); "
            f"{_nearest(missing[0], columns, 'the ' + plural(len(columns), 'column'))}")


def _sample(source: ContentSource) -> tuple[list[Any], bool]:
    """The JSON values (records or documents) in the first :data:`SAMPLE_BYTES` of ``source``, at most
    :data:`SAMPLE_VALUES`, one that is not JSON (or nests too deeply to parse) passed over, and whether they are all
    of them."""
    text = source.read(0, min(source.size, SAMPLE_BYTES)).decode("utf-8", "replace")
    decoder, values, at = json.JSONDecoder(), [], 0
    while len(values) < SAMPLE_VALUES:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return values, source.size <= SAMPLE_BYTES
        try:
            value, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):  # (a record nested deeper than the parser goes: passed over too)
            at = text.find("\n", at)
            if at < 0:
                break
            continue
        values.append(value)
    return values, False


def _all_keys(values: list[Any]) -> tuple[set[str] | None, list[str]]:
    """Every key of an object in ``values`` at any depth, and the keys of the objects among ``values`` themselves, in
    order; ``None`` for the first when :data:`_MOST_NODES` values were walked before the end (a key not seen may be in
    the rest: none is said missing)."""
    known: set[str] = set()
    top = list(dict.fromkeys(key for value in values if isinstance(value, dict) for key in value))
    stack, seen = list(values), 0
    while stack and seen < _MOST_NODES:
        one = stack.pop()
        seen += 1
        if isinstance(one, dict):
            known.update(one)
            stack.extend(one.values())
        elif isinstance(one, list):
            stack.extend(one)
    return (None if stack else known), top


def records_note(source: ContentSource, filter: str, noun: str = "record") -> str | None:
    """What a jq read of JSON lines (``noun`` ``"record"``) or JSON texts (``"document"``), one by one or slurped,
    says when ``filter`` names a key none of the sampled ones has at any depth (:func:`_sample`), else ``None``."""
    if input_keys(filter) is None:
        return None
    values, whole = _sample(source)
    known, top = _all_keys(values)
    missing = _missing(filter, known) if top and known is not None else []
    if not missing:
        return None
    which = f"no {noun} has" if whole else f"none of the first {len(values):,} {noun}s has"
    return (f"{which} the key {json.dumps(missing[0], ensure_ascii=False)}, which the filter names (a missing key is "
            f"null to jq); {_nearest(missing[0], top, 'their keys')}")


def document_note(source: ContentSource, filter: str) -> str | None:
    """What a jq read of a JSON document (at most :data:`MAX_DOCUMENT_BYTES`) says when ``filter`` begins with a path
    one of whose keys is missing at its step (:func:`root_path`), or names a key no object of it has, else
    ``None``. Parses the document; never raises (``None``)."""
    if source.size > MAX_DOCUMENT_BYTES or input_keys(filter) is None:
        return None
    try:
        document = json.loads(source.read(0, source.size))
    except ValueError:
        return None
    steps, value, walked = root_path(filter) or [], document, ""
    for step in steps:
        if step is None or not isinstance(value, dict):
            break
        if step not in value:
            keys = list(value)
            return (f"{walked or '.'} has no key {json.dumps(step, ensure_ascii=False)}, which the filter names "
                    f"(a missing key is null to jq); {_nearest(step, keys, 'its ' + plural(len(keys), 'key'))}")
        value, walked = value[step], f"{walked}.{step}" if _NAME.fullmatch(step) else f"{walked}[{json.dumps(step)}]"
    known, _ = _all_keys([document])
    missing = _missing(filter, known) if known is not None else []
    if not missing:
        return None
    return (f"no object of this document has the key {json.dumps(missing[0], ensure_ascii=False)}, which the filter "
            f"names (a missing key is null to jq); {_nearest(missing[0], sorted(known), 'its keys')}")


def keys_failed(exc: InvalidArgument, said: Callable[[], str | None]) -> InvalidArgument:
    """``exc`` again, or, when it is jq's failure on ``null`` (:class:`JqFailed`) and ``said()`` names a key the
    filter reads that the input lacks, that failure saying so first, in place of the advice to skip the
    ``null`` values (which would skip every value). ``said`` is called only for such a failure."""
    if not isinstance(exc, JqFailed) or not _NULL.search(exc.reason):
        return exc
    note = said()
    if note is None:
        return exc
    return JqFailed(f"jq: {exc.reason} -- {note}; fix the key's name (skipping the nulls would skip every value)",
                    exc.reason, exc.keyed)


_NULL = re.compile(r"\bnull\b")


def keys_noted(page: ItemPage, note: str | None, budget: int, reread: Callable[[int], ItemPage]) -> ItemPage:
    """``page`` (a first page, of ``budget`` bytes of JSON) with ``note`` after its own, read again by ``reread``
    (the same read within the bytes given) when the note would not fit beside it; ``page`` when ``note`` is
    ``None``."""
    if note is None:
        return page
    room = json_bytes(note) + len(',"note":; ')
    if json_bytes(page.to_dict()) + room > budget:
        page = reread(max(MIN_BUDGET_BYTES, budget - room))
    add_said(page.extra, note)
    return page
