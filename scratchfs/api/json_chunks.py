"""A large closed JSON array parsed a piece at a time for its shape (issue 16, helper jsonsample1).

A shape reads an array's item count, the kind of every item (one kind or mixed, and how many of each), every object
item's keys, and a sample of the items merged (:func:`~scratchfs.api.shape_merge.sampled`: the first 4, others
spread evenly, the last). Parsing 512 KiB of ``[[1,2],[3]], ...`` whole builds ~120,000 lists alive at once: in a
long-lived process whose free memory is scattered over a large heap, those allocations and their freeing made describe
2.5-2.9x slower than in a fresh process (``bench/long_lived.py --scatter``). Here the array is parsed in pieces of
about :data:`CHUNK_CHARS` characters cut at its top-level commas, each piece's values dropped before the next is
parsed (so the next reuses the same, recently freed memory), keeping of each item only its kind (a stand-in of its
type) but for objects, kept whole, and the sampled items, parsed again from their pieces. Only arrays of many small
arrays take this path (:func:`array_items`): for others the whole parse was as fast or faster (bench/README.md).

Exact by construction: the array is ``[`` piece ``,`` piece ... ``]``; each piece parsing, wrapped in brackets, to a
non-empty list of values means the whole parses to their concatenation, whatever the cuts (a cut guessed inside a
string or a nested value makes its piece fail to parse: then the rest is parsed as one piece, and if that fails too
the caller parses the whole as before, raising what it raised).
"""

from __future__ import annotations

import bisect
import json

from scratchfs.api.shape_merge import sampled

__all__ = ["CHUNKED_FROM", "CHUNK_CHARS", "array_items"]

CHUNK_CHARS = 4096
"""About the characters of one piece (512 KiB of small arrays, best of 7 in a heap of 1,000,000 objects half freed
at random: whole 43 ms, pieces of 4 KiB 10.1 ms, 16 KiB 11.1 ms, 64 KiB 17.8 ms; fresh: 17.0, 10.3, 10.4, 10.6)."""
CHUNKED_FROM = 32 * 1024
"""Shortest text parsed in pieces (shorter: whole, as its parse builds few containers)."""
_MOST_ITEM_CHARS = 64  # fewer items in the first piece (items of 64 characters or more): parsed whole
_TRIES = 16  # commas looked at for a cut (none at the top level among them: no more cuts)
_STAND_INS = {int: 0, float: 0.0, bool: False, type(None): None, str: "", list: []}
"""An item of each kind that is not kept: a shape reads only its type (the one list is never changed)."""


def _depth(text: str, start: int, end: int) -> int:
    """How far ``text[start:end]`` opens arrays and objects (closers subtracted), strings not told apart."""
    return (text.count("[", start, end) + text.count("{", start, end) - text.count("]", start, end)
            - text.count("}", start, end))


def _cut(text: str, start: int, end: int) -> int:
    """One of the first :data:`_TRIES` commas of ``text`` past :data:`CHUNK_CHARS` after ``start`` (an item's start
    at the top level) that looks to be at the top level (no bracket left open since ``start``, an even count of
    unescaped quotes), else ``end``. A guess: a wrong one makes its piece fail to parse."""
    at = start + CHUNK_CHARS
    if at >= end:
        return end
    depth = 1 + _depth(text, start, at)
    quotes = text.count('"', start, at) - text.count('\\"', start, at)
    for _ in range(_TRIES):
        comma = text.find(",", at, end)
        if comma < 0:
            return end
        depth += _depth(text, at, comma)
        quotes += text.count('"', at, comma) - text.count('\\"', at, comma)
        if depth == 1 and quotes % 2 == 0:
            return comma
        at = comma + 1
    return end  # (large items, or strings full of commas: the rest parsed as one piece)


def _pieces(text: str, end: int, decoder: json.JSONDecoder) -> tuple[list, list[int], list] | None:
    """The items of ``text[1:end]`` (an array's, ``end`` its ``]``) parsed piece by piece: the items kept (objects
    whole, the others their type's stand-in; the first piece's and the last's whole), the start of each piece (its
    first item's number is the count kept before it) and the pieces' bounds; ``None`` if a piece does not parse."""
    kept: list = []
    firsts: list[int] = []
    bounds: list = []
    start, cut = 1, 0
    while cut < end:  # (to ``end`` even past a last comma: an empty last piece is no item, [1,] no JSON)
        cut = _cut(text, start, end)
        if start == 1 and cut == end:  # (no cut: the whole parse, as before)
            return None
        try:
            values = decoder.decode(f"[{text[start:cut]}]")
        except (ValueError, RecursionError):
            if cut == end:
                return None
            cut = end  # (a cut guessed wrong, or a fault: the rest as one piece)
            try:
                values = decoder.decode(f"[{text[start:cut]}]")
            except (ValueError, RecursionError):
                return None
        if not values:  # ([ ,1] or [1,,2]: no item between commas)
            return None
        types = set(map(type, values))
        if start == 1 and (dict in types or list not in types or len(values) < CHUNK_CHARS // _MOST_ITEM_CHARS):
            return None  # (objects: a shape reads every one's keys, all kept; no arrays, or large ones: few
            # containers, cheaper parsed whole -- 439 KiB of strings 1.3 against 3.9 ms, of arrays of 40 ints 4.9/7.1)
        firsts.append(len(kept))
        bounds.append((start, cut))
        if dict in types or start == 1 or cut == end or not types <= _STAND_INS.keys():
            kept.extend(values)
        elif len(types) == 1:  # (one kind: the stand-in repeated, at C speed)
            kept.extend([_STAND_INS[types.pop()]] * len(values))
        else:
            kept.extend(map(_STAND_INS.__getitem__, map(type, values)))
        del values
        start = cut + 1
    return kept, firsts, bounds


def array_items(text: str, decoder: json.JSONDecoder) -> list | None:
    """The items of ``text`` as a shape reads them, when it is a JSON array of at least :data:`CHUNKED_FROM`
    characters (``[`` first, ``]`` last but for JSON's whitespace) that ``decoder`` parses: a list as long as the
    array whose objects, first and last items and :func:`~scratchfs.api.shape_merge.sampled` ones are the array's,
    the others a stand-in of their type; ``None`` otherwise: not such an array, not JSON, or one its pieces would not
    pay for (its first piece holds objects, no arrays or fewer than ``CHUNK_CHARS // 64`` items, or no top-level
    comma is found among the 16 after its first :data:`CHUNK_CHARS`): the caller parses it whole. Never raises (but
    MemoryError)."""
    end = len(text.rstrip(" \t\n\r")) - 1
    if len(text) < CHUNKED_FROM or text[:1] != "[" or end < 1 or text[end] != "]":
        return None
    found = _pieces(text, end, decoder)
    if found is None:
        return None
    kept, firsts, bounds = found
    parsed: dict[int, list] = {}
    for index in sampled(list(range(len(kept)))):
        if kept[index] is not _STAND_INS.get(type(kept[index]), kept):  # (kept whole; None, False, 0, "": as parsed)
            continue
        piece = bisect.bisect_right(firsts, index) - 1
        if piece not in parsed:
            start, cut = bounds[piece]
            parsed[piece] = decoder.decode(f"[{text[start:cut]}]")
        kept[index] = parsed[piece][index - firsts[piece]]
    return kept
