"""The shape of a JSON document larger than the sample, for :mod:`scratchfs.api.shape`: its top level as
:func:`~scratchfs.engine.structure.toplevel.top_level` read it by streaming, in words."""

from __future__ import annotations

from dataclasses import replace

from scratchfs.api.shape_words import LONG_STRING_CHARS, clip, first_of, key_name, kib, plural, shape_limit
from scratchfs.engine.structure.toplevel import TopEntry, TopLevel

__all__ = ["LISTED_KEYS", "top_shape"]

LISTED_KEYS = 6
"""Keys of an object inside the top level that its shape lists at most (``object(9 keys: a, b, c, d, e, f, …)``)."""


def _item_names(entry: TopEntry) -> str:
    """The keys of an array's objects, ``?`` after one some item lacks: ``{id, name, tags?}``."""
    common = entry.common if entry.common is not None else set(entry.names)
    names = ", ".join(key_name(n, lacked=n not in common) for n in entry.names[:8])
    return f"{{{names}{', …' if len(entry.names) >= 8 else ''}}}"


def _entry_text(entry: TopEntry) -> str:
    if entry.cut:  # the scan stopped inside it: what was read, at least
        return f"{entry.kind} (runs past the scan)" if entry.kind not in ("object", "array") else \
            _entry_text(replace(entry, cut=False)).replace("(", "(at least ", 1)
    if entry.kind == "object":
        names = ", ".join(key_name(n) for n in entry.names[:LISTED_KEYS])
        more = ", …" if entry.count > len(entry.names[:LISTED_KEYS]) else ""
        return f"object({plural(entry.count, 'key')}: {names}{more})" if entry.count else "object(0 keys)"
    if entry.kind == "array":
        if entry.mixed:  # (the first item's kind or keys are not the others')
            return f"array({entry.count}) of mixed kinds, " + (f"objects {_item_names(entry)}" if entry.names else
                                                                 f"the first {entry.item_kind}")
        if entry.names:
            return f"array({entry.count}) of {_item_names(entry)}"
        return f"array({entry.count}) of {entry.item_kind}" if entry.item_kind else f"array({entry.count})"
    if entry.kind == "str":
        return "str" if entry.count < LONG_STRING_CHARS else f"str({kib(entry.count)})"
    return entry.kind


def top_shape(top: TopLevel, size: int) -> tuple[str, bool]:
    """The shape text of a JSON document's top level read by streaming (:func:`~scratchfs.engine.structure.toplevel.
    top_level`) of a content of ``size`` bytes: an object's keys and what each holds, an array's count and its
    items' keys (or kind), within :func:`~scratchfs.api.shape_words.shape_limit` characters; and whether it names
    every key of an object (and no more are said to follow)."""
    least = "" if top.complete else "at least "
    scope = "" if top.complete else first_of(top.read_bytes, size)
    if top.kind == "array":
        items = top.entries[0] if top.entries else None
        first = ""
        if items is not None and items.mixed:
            first = "; items of mixed kinds, " + (f"objects {_item_names(items)}" if items.names else
                                                  f"the first {items.item_kind}")
        elif items is not None and items.names:
            first = f"; items: {_item_names(items)}"
        elif items is not None and items.item_kind:
            first = f"; first item: {items.item_kind}"
        return clip(f"JSON array of {least}{plural(top.count, 'item')}{scope}{first}"), False
    text = f"JSON object, {least}{plural(top.count, 'key')}{scope}: "
    listed = ""
    for count, entry in enumerate(top.entries):
        part = f"{key_name(entry.key)}: {_entry_text(entry)}"
        more = f", … {top.count - count} more" if count < top.count else ""
        if len(text) + len(listed) + len(part) + 2 + len(more) > shape_limit():
            return clip(text + listed + more), False
        listed += (", " if listed else "") + part
    extra = f", … {top.count - len(top.entries)} more" if top.count > len(top.entries) else ""
    whole = text + listed + extra
    return clip(whole), not extra and len(whole) <= shape_limit()
