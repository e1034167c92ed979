"""The shape of a JSON document cut by the sample's end (its top-level keys or items as far as the sample holds
them), for :mod:`scratchfs.api.shape`."""

from __future__ import annotations

import json
import re

from scratchfs.api.shape_merge import value_word
from scratchfs.api.shape_words import clip, key_name, plural
from scratchfs.engine.structure.numbers import LongIntegers

__all__ = ["partial_json"]


def _first_item(first: object) -> str:
    """What an array's shape says of its first item ``first``: an object's first 12 keys, else its kind (``null``
    too: a first item that is null is said, not left as an empty clause)."""
    if isinstance(first, dict):
        return "first item: object with keys " + ", ".join(key_name(k) for k in list(first)[:12])
    return f"first item: {value_word(first)}"


_LISTED = 12  # (keys a cut object's shape names; the others are counted)
_BLANKS_RE = re.compile(r"\s*")
_COMMA_RE = re.compile(r"\s*,")  # (JSON blanks, then the comma after an item)
_TRIES = 3  # (most parses of an array's items at once: each may read its whole start to fail at its end)


def _items_skipped(text: str, pos: int, decoder: json.JSONDecoder, opening: str = "[") -> tuple[int, int]:
    """``(items, pos)`` after an array's first item (it ends at ``pos``): 0 and ``pos`` but where ``,`` follows it and
    the items after it up to a later ``,`` parse at once as an array's (at C speed: one Python step an item took 81
    ms over 65,536 of a cut ``[1,1,``; helper hostilecpu2): their count and that ``,``'s position -- as
    :func:`partial_json`'s loop reads them: the same values between the same commas (JSON blanks around them, which
    its ``\\s*`` passes too); where they do not parse (a comma inside a string or an object the sample cuts; a blank
    JSON has not) a comma before the failure is tried, then none. ``opening``: ``{`` for an object's keys after one
    (``decoder`` then one whose objects are lists of pairs, so that a key given twice is counted twice, as the loop
    counts it)."""
    after = _COMMA_RE.match(text, pos)
    if after is None:
        return 0, pos
    start, end = after.end(), len(text)
    for _ in range(_TRIES):
        comma = text.rfind(",", start, end)
        if comma < 0:
            break
        try:
            items = decoder.decode(opening + text[start:comma] + ("]" if opening == "[" else "}"))
        except json.JSONDecodeError as exc:
            end = min(comma, start + max(0, exc.pos - 1))
            continue
        except (ValueError, RecursionError):
            break
        if items:
            return len(items), comma
        break
    return 0, pos


def partial_json(text: str, decoder: json.JSONDecoder, scope: str) -> str | None:
    """The shape text of a JSON document cut by the sample's end (``text``, its start; ``scope``: the words that say
    how much of the content the sample is): its top-level keys (or first item), each value parsed at C speed;
    ``None`` when text follows the document (not JSON)."""
    ws = _BLANKS_RE
    opening = text[0]
    pos = 1
    seen: list[str] = []  # (the first _LISTED keys' words: the rest are counted, not worded)
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
                    seen.append(f"{key_name(key)}: {kind} (runs past the sample)")
                    count += 1
                    break
                if count < _LISTED:
                    seen.append(f"{key_name(key)}: {value_word(value)}")
                if count == _LISTED - 1:  # (the keys past those listed counted at C speed: one Python step a key
                    pairs = LongIntegers(parse_constant=decoder.parse_constant, object_pairs_hook=list)
                    skipped, pos = _items_skipped(text, pos, pairs, "{")  # took 36 ms over 26,000 keys of a cut
                    count += skipped  # {"":0, ...; hostile35)
            else:
                value, pos = decoder.raw_decode(text, pos)
                if count == 0:
                    seen.append(_first_item(value))
                    skipped, pos = _items_skipped(text, pos, decoder)
                    count += skipped
            count += 1
        except (ValueError, IndexError):
            break
        pos = ws.match(text, pos).end()
        if text[pos : pos + 1] != ",":
            break
        pos += 1
    if text[pos : pos + 1] in "}]" and text[(end := ws.match(text, pos + 1).end()) : end + 1] not in ("", "{", "["):
        return None  # text after the document (not another, as jq reads a stream): a log of "[   1] CC x.o" lines
    if count == 0 and opening == "{":
        return clip(f"JSON object{scope}; its first value is larger than the sample")
    if opening == "{":
        listed = ", ".join(seen[:_LISTED]) + (f", … {count - _LISTED:,} more" if count > _LISTED else "")
        return clip(f"JSON object, at least {plural(count, 'key')}{scope}: {listed}")
    first = f"; {seen[0]}" if seen else ""
    return clip(f"JSON array, at least {plural(count, 'item')}{scope}{first}")
