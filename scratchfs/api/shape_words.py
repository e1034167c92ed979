"""The words a shape is written in, for :mod:`scratchfs.api.shape` and its helpers: counts with their noun, sizes
in binary units, the clipping that keeps a shape within :data:`MAX_SHAPE_CHARS` and a name from costing escapes
in the stub's JSON, and the one item that stands for an array's items (:func:`items_template`)."""

from __future__ import annotations

import json
import re
from collections import Counter

from scratchfs.foundation import text as texts
from scratchfs.foundation.text import plural

__all__ = ["MAX_SHAPE_CHARS", "LackedKey", "MixedItems", "clip", "items_template", "key_name", "kib", "mixed_items",
           "plural", "short_name"]

MAX_SHAPE_CHARS = 600
"""Longest shape text, in characters (the stub's preview gives way to it within the 1.5 KiB stub)."""

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def kib(size: int) -> str:
    """A size in bytes in binary units: ``"512 B"``, ``"12 KiB"``, ``"1.5 MiB"``, ``"2.0 GiB"``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KiB"
    if size < 1024**3:
        return f"{size / 1024**2:.1f} MiB"
    return f"{size / 1024**3:.1f} GiB"


def clip(text: str, limit: int = MAX_SHAPE_CHARS) -> str:
    """``text`` (a lone surrogate as its escape) cut to ``limit`` characters, the last an ellipsis when cut."""
    text = texts.utf8_text(text)  # a JSON key or value's lone surrogate as its escape
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short_name(key: object, limit: int = 32) -> str:
    """``str(key)`` with control characters as ``?`` (each would cost six bytes in the stub's JSON), cut to
    ``limit`` characters."""
    text = _CONTROL_RE.sub("?", str(key))
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LackedKey(str):
    """A key of an array's objects that some of them lack: :func:`key_name` writes a ``?`` after it. A key of its
    own, so that ``"a"`` lacked by some items and a key named ``"a?"`` stay two keys."""

    __slots__ = ()


_AMBIGUOUS_RE = re.compile(r'[?,:{}"…]|^\s|\s$|^$')
"""What makes a key's name read as something else in a shape: a ``?`` (the mark of a key some items lack), the
``,`` ``:`` ``{`` ``}`` that separate keys and values, a quote, the ellipsis of a cut, white space at an end,
nothing."""


def key_name(key: object, limit: int = 32, lacked: bool = False) -> str:
    """A JSON key's name in a shape: :func:`short_name`, in JSON quotes when it would read as something else
    (:data:`_AMBIGUOUS_RE`: ``"a?"``, ``"a, b"``, ``""``; or holds a control character: ``"\\u0000"``), then a
    ``?`` when it is a :class:`LackedKey` or ``lacked`` -- so ``{a?, "a?": int}`` tells the key ``a`` some items
    lack from a key named ``a?``."""
    text = str(key)
    if _AMBIGUOUS_RE.search(text) or _CONTROL_RE.search(text):  # (a control character as its JSON escape here)
        name = json.dumps(text if len(text) <= limit else text[: limit - 1] + "…", ensure_ascii=False)
    else:
        name = short_name(text, limit)
    return name + ("?" if lacked or isinstance(key, LackedKey) else "")


_KIND_NOUNS = {dict: "object", list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


class MixedItems:
    """An array's items of several kinds, as a shape says them: ``text`` (``mixed kinds (299 arrays, 1 object)``,
    most frequent first) and ``objects``, the template of its objects (:func:`items_template`), or ``None``."""

    __slots__ = ("objects", "text")

    def __init__(self, text: str, objects: object) -> None:
        self.text, self.objects = text, objects


def mixed_items(items: list) -> MixedItems | None:
    """:class:`MixedItems` when ``items`` are of more than one kind (numbers, whole or not, are one), else ``None``
    (one ``set`` of their types, at C speed, for an array of one kind)."""
    types = set(map(type, items))
    if len(types) < 2 or types == {int, float}:
        return None
    counts = Counter(_KIND_NOUNS.get(type(item), "value") for item in items)
    objects = [item for item in items if isinstance(item, dict)]
    text = "mixed kinds (" + ", ".join(plural(n, kind) for kind, n in counts.most_common()) + ")"
    return MixedItems(text, items_template(objects) if objects else None)


def items_template(items: list) -> object:
    """The item that stands for ``items`` (an array, not empty) in a shape: :func:`mixed_items` when they are of more
    than one kind; else its first item, unless the items are objects that differ in their keys -- then one object
    of every key they hold, in the order first seen, each with its first value, a key some item lacks as a
    :class:`LackedKey` (``{id, name, tags?}``). Set operations at C speed for items that hold the same keys."""
    mixed = mixed_items(items)
    if mixed is not None:
        return mixed
    first = items[0]
    if not isinstance(first, dict):
        return first
    keys, common, merged = first.keys(), set(first), None
    for item in items:
        if item.keys() == keys:
            continue
        common.intersection_update(item.keys())
        if merged is None:
            merged = dict(first)
        for key, value in item.items():
            merged.setdefault(key, value)
    if merged is None:
        return first
    return {key if key in common else LackedKey(key): value for key, value in merged.items()}
