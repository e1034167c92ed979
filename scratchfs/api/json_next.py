"""The jq read a JSON object's stub names next, chosen by the code that describes the object, from the parsed values
(:func:`object_read`) or the streamed top level (:func:`top_read`), and handed over as
:attr:`~scratchfs.api.shape.Shape.next_read` -- nothing reads a shape's text back for it. ``keys`` tells nothing the
shape does not when the shape names every key (``JSON object, 3 keys: data: array(300) of {id: int}, total: int,
meta: {a: int}``), so the note then names a read that goes further: into the largest value (most items or keys; a
long string after every container): ``.data[0]``, an array's first item when its items hold arrays or objects;
``.data``, an array of scalars; ``.meta | keys[]``, an object whose keys the shape does not list; ``.meta``, one whose
keys it lists -- or, when it holds a value larger than its keys, the read into that value (an API's
``{"data": {"store": {...}, "products": [3,000 items]}, "pagination": {3 keys}}``: ``.data.products[0]``, not
``.pagination``) --; ``.text``, a string of 200 characters or more; into the one object of an array of one (SARIF's
``runs``: the whole report), its largest value (``.runs[0].results[0]``), or, its values not read (a top level
streamed), what each holds (``.runs[0] | map_values(type)``). A key whose name the shape does not show whole and as
it is (shortened, a character replaced by ``?``, a lone surrogate no UTF-8 note can carry) is never named.
"""

from __future__ import annotations

import json
import re

from scratchfs.api.shape_top import LISTED_KEYS
from scratchfs.api.shape_words import LONG_STRING_CHARS, key_name
from scratchfs.engine.structure.toplevel import TopEntry, TopLevel

__all__ = ["ITEM_READ_CHARS", "SHORT_STRINGS", "WHOLE_OBJECT_CHARS", "array_read", "object_read", "top_read"]

_PLAIN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _path(key: object) -> str | None:
    """The jq path of a top-level key, ``None`` when the shape does not show its name whole and as it is."""
    if not isinstance(key, str) or _SURROGATE.search(key):
        return None  # (a lone surrogate, "\\ud800" in the JSON text: no UTF-8 note can name it, nor jq read it back)
    shown = key_name(key)
    if "…" in shown or "?" in shown:  # (shortened, or a character replaced: the model could not tell the key)
        return None
    return f".{key}" if _PLAIN_RE.match(key) else f".{json.dumps(key, ensure_ascii=False)}"


def _best(reads: list[tuple[str, int]]) -> str | None:
    """The read of the highest rank (the first of equal ranks: ``max`` keeps the first), ``None`` for none."""
    return max(reads, key=lambda read: read[1])[0] if reads else None


def object_read(value: dict, fit: tuple[int, int] | None) -> str | None:
    """The read further than ``keys`` into ``value``, a JSON object whose shape was written by
    :func:`~scratchfs.api.shape_merge.fitted_with` with ``fit``, the ``(depth, width)`` it described it at (``None``:
    no description fitted whole); ``None`` when that shape does not name every key of ``value`` (then ``keys`` lists
    what it does not). Never raises."""
    best = _object_best(value, fit)
    if best is None:
        return None
    item = _followed(value, best[0]) if best[0].endswith("[0]") else None
    big = item is not None and _longer_than(item, ITEM_READ_CHARS)
    return best[0] + SHORT_STRINGS if big else best[0]


def _longer_than(item: object, chars: int) -> bool:
    """Whether ``item``'s JSON text (as ``json.dumps(item, ensure_ascii=False)`` writes it) is over ``chars``
    characters, written a piece at a time until it is: a 400 KiB first item was written whole to be measured (3.9 ms
    on the spill path), where its first KiB tells."""
    written = 0
    for piece in json.JSONEncoder(ensure_ascii=False).iterencode(item):
        written += len(piece)
        if written > chars:
            return True
    return False


_STEP_RE = re.compile(r'\.(?:([A-Za-z_][A-Za-z0-9_]*)|("(?:[^"\\]|\\.)*"))|\[0\]')


def _followed(value: object, read: str) -> object:
    """The value the path ``read`` (``.a.b[0]``, ``."k y"[0]``: what :func:`_object_best` writes) names in
    ``value``, ``None`` if it names none."""
    for step in _STEP_RE.finditer(read):
        if step[0] == "[0]":
            value = value[0] if isinstance(value, list) and value else None
        else:
            key = step[1] if step[1] is not None else json.loads(step[2])
            value = value.get(key) if isinstance(value, dict) else None
    return value


def _object_best(value: dict, fit: tuple[int, int] | None) -> tuple[str, int] | None:
    """:func:`object_read`'s read and its rank (the items or keys of the value it reads into, 1 for a string)."""
    if fit is None or fit[0] < 1 or len(value) > fit[1]:
        return None
    depth, width = fit[0] - 1, fit[1]  # (how each key's value is described)
    reads = []
    for key, item in value.items():
        path = _path(key)
        if path is None:
            continue
        if isinstance(item, list) and item:
            nested = any(isinstance(one, (dict, list)) for one in item)
            best = _object_best(item[0], (depth, width)) if len(item) == 1 and isinstance(item[0], dict) else None
            inner = None if best is None else best[0]
            reads.append((f"{path}[0]{inner}" if inner is not None and _plain_path(inner)
                          else f"{path}[0]" if nested else path, len(item) + 2))  # (items of scalars: all; the one
            # object of an array of one, SARIF's runs: the read into it, .runs[0].results[0], not the whole of it)
        elif isinstance(item, dict) and item:
            listed = depth >= 1 and len(item) <= width
            inner = _object_best(item, (depth, width)) if listed else None
            if inner is not None and inner[1] > len(item) + 2 and _plain_path(inner[0]):
                reads.append((f"{path}{inner[0]}", inner[1]))  # (an object holding a larger value than its keys:
                # {"data": {"store": {...}, "products": [3,000 items]}} reads .data.products[0], not a smaller
                # object beside it with more keys, .pagination)
            else:
                reads.append((path if listed else f"{path} | keys[]", len(item) + 2))
        elif isinstance(item, str) and len(item) >= LONG_STRING_CHARS:
            reads.append((path, 1))
    return max(reads, key=lambda read: read[1]) if reads else None


def _plain_path(read: str) -> bool:
    """Whether ``read`` is a path alone (``.products[0]``), which a path before it extends."""
    return read.startswith(".") and " " not in read


ITEM_READ_CHARS = 1024
"""Most characters of JSON text of an array's item that the note reads whole (``.installed[0]``); a larger one is read
with its strings cut to 80 characters (:data:`SHORT_STRINGS`): ``pip inspect``'s first package, its README in its
``description``, was a reply of 3,050 bytes, 1,575 so (modelfollow1)."""
SHORT_STRINGS = ' | (.. | strings | select(length > 80)) |= .[:80] + "…"'
"""What follows the read of an array's item over :data:`ITEM_READ_CHARS`: each of its strings over 80 characters
cut to its first 80 and ``…``."""


def array_read(count: int, chars: int, first_kind: str) -> str | None:
    """The read of a top-level JSON array's first item when its ``count`` items average over :data:`ITEM_READ_CHARS`
    of its ``chars`` characters (or bytes) of JSON text and the first is a container (``"object"``, ``"array"``,
    ``"dict"`` or ``"list"``): ``.[0]`` with its strings cut (:data:`SHORT_STRINGS`) -- ``pip inspect | jq
    .installed``'s first package was a reply of 3,041 bytes, 1.6 KB so (modeltask8), as ``.installed[0]`` of the
    object was (modelfollow1); ``None`` otherwise (the note's default, ``.[0]``, read whole)."""
    if count <= 0 or first_kind not in ("object", "array", "dict", "list") or not _long_items(chars, count):
        return None
    return ".[0]" + SHORT_STRINGS


def _long_items(chars: int, count: int) -> bool:
    """Whether ``count`` items of ``chars`` characters of JSON text in all average over :data:`ITEM_READ_CHARS`."""
    return chars > ITEM_READ_CHARS * count


WHOLE_OBJECT_CHARS = 8192
"""Most characters of JSON text of a streamed top-level object whose keys the shape lists that the note reads whole
(``.meta``); a larger one is read for what each key holds (``.data | map_values(type)``)."""


def top_read(top: TopLevel, listed: bool) -> str | None:
    """The read further than ``keys`` into a JSON object's top level read by streaming
    (:func:`~scratchfs.engine.structure.toplevel.top_level`), whose shape (:func:`~scratchfs.api.shape_top.top_shape`)
    named every key when ``listed``, into its largest container by the characters of its JSON text (a long string
    after every container); ``None`` when the shape did not name every key, or the document was not read to its
    end. A listed object past :data:`WHOLE_OBJECT_CHARS` is read for what each key holds: an API's ``{"data":
    {"store", "products": [3,000 items]}, "pagination": {3 keys}}`` reads ``.data | map_values(type)``, where the
    count of keys ranked ``.pagination`` first."""
    if top.kind != "object" or not top.complete or not listed:
        return None
    return _best([read for entry in top.entries if (read := _entry_read(entry)) is not None])


def _item_read(path: str, entry: TopEntry) -> str:
    """The read of the first item of ``entry``, an array of containers: its strings cut when its items average over
    :data:`ITEM_READ_CHARS` characters of JSON text."""
    return f"{path}[0]" + (SHORT_STRINGS if _long_items(entry.chars, entry.count) else "")


def _entry_read(entry: TopEntry) -> tuple[str, int] | None:
    path = _path(entry.key)
    if path is None or entry.cut:
        return None
    if entry.kind == "array" and entry.count == 1 and entry.item_kind == "object" and not entry.cut:
        return f"{path}[0] | map_values(type)", 3  # (the one object of an array of one, SARIF's run: the whole
        # report, pages of parts read whole; what each of its keys holds, a few bytes, for the read into one)
    if entry.kind == "array" and entry.count:
        nested = bool(entry.names) or entry.item_kind in ("object", "array")
        return (_item_read(path, entry) if nested else path), entry.chars + 2
    if entry.kind == "object" and entry.count:
        listed = entry.count <= min(len(entry.names), LISTED_KEYS)
        if listed and entry.chars > WHOLE_OBJECT_CHARS:  # (its keys named, what they hold not read: each one's type,
            return f"{path} | map_values(type)", entry.chars + 2  # a few bytes, where the whole is many pages)
        return (path if listed else f"{path} | keys[]"), entry.chars + 2
    if entry.kind == "str" and entry.count >= LONG_STRING_CHARS:
        return path, 1
    return None
