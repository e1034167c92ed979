"""The shape of a JSON document cut by the sample's end (its top-level keys or items as far as the sample holds
them), for :mod:`scratchfs.api.shape`."""

from __future__ import annotations

import json
import re

from scratchfs.api.shape_merge import value_word
from scratchfs.api.shape_words import clip, key_name, plural

__all__ = ["partial_json"]


def _first_item(first: object) -> str:
    """What an array's shape says of its first item ``first``: an object's first 12 keys, else its kind (``null``
    too: a first item that is null is said, not left as an empty clause)."""
    if isinstance(first, dict):
        return "first item: object with keys " + ", ".join(key_name(k) for k in list(first)[:12])
    return f"first item: {value_word(first)}"


def partial_json(text: str, decoder: json.JSONDecoder, scope: str) -> str | None:
    """The shape text of a JSON document cut by the sample's end (``text``, its start; ``scope``: the words that say
    how much of the content the sample is): its top-level keys (or first item), each value parsed at C speed;
    ``None`` when text follows the document (not JSON)."""
    ws = re.compile(r"\s*")
    opening = text[0]
    pos = 1
    seen: list[str] = []
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
                seen.append(f"{key_name(key)}: {value_word(value)}")
            else:
                value, pos = decoder.raw_decode(text, pos)
                if count == 0:
                    seen.append(_first_item(value))
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
        listed = ", ".join(seen[:12]) + (f", … {len(seen) - 12} more" if len(seen) > 12 else "")
        return clip(f"JSON object, at least {plural(count, 'key')}{scope}: {listed}")
    first = f"; {seen[0]}" if seen else ""
    return clip(f"JSON array, at least {plural(count, 'item')}{scope}{first}")
