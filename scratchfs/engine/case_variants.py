"""Case variants of characters, as Python's ``re`` reads them under ``re.IGNORECASE`` over text (``str``), and
their bytes: what a case-blind search over UTF-8 or UTF-16 bytes must also find for a character (the search engine
runs bytes patterns, whose ``re.IGNORECASE`` folds ASCII letters only).

The variants are derived once, with public means only: characters are grouped by what ``str.lower``,
``str.upper``, ``str.casefold`` and ``str.title`` map them to (and the first character of each), and within a group
``v`` is a variant of ``c`` when ``re.fullmatch(re.escape(c), v, re.IGNORECASE)`` -- ``re`` itself decides (``σ``:
``Σ ς σ``; ``i``: ``I i İ ı``; ``ß``: ``ß ẞ``; ``k``: ``K k K``).
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

__all__ = ["CASED_BELOW", "alternation", "cased_within", "utf8_ranges", "variants"]

CASED_BELOW = 0x20000
"""Code points below which every character with a case mapping lies (the highest, U+1E943 ADLAM SMALL LETTER SHA,
as of Unicode 15; ``tests/test_case_variants.py`` scans all of them)."""


def _mapped(char: str) -> set[str]:
    """What the public case mappings make of ``char`` (itself left out)."""
    return {char.lower(), char.upper(), char.casefold(), char.title()} - {char}


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, ...]]:
    """Every character with a variant -> all its variants (itself included), sorted by code point."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for code in range(CASED_BELOW):
        char = chr(code)
        for form in _mapped(char):
            for key in (form, form[0]):
                parent[root(key)] = root(char)
    groups: dict[str, list[str]] = {}
    for key in list(parent):
        if len(key) == 1:
            groups.setdefault(root(key), []).append(key)
    table: dict[str, tuple[str, ...]] = {}
    for members in groups.values():
        for char in members:
            same = re.compile(re.escape(char), re.IGNORECASE)
            found = tuple(sorted((v for v in members if same.fullmatch(v)), key=ord))
            if len(found) > 1:
                table[char] = found
    return table


def variants(char: str) -> tuple[str, ...]:
    """The characters ``re.fullmatch(re.escape(char), v, re.IGNORECASE)`` holds for over text (``char`` itself
    included), sorted by code point: ``("Σ", "ς", "σ")`` for ``"σ"``; ``(char,)`` for one without case. The
    first call of a process builds the table of every cased character (about 0.17 s). Never raises."""
    return _table().get(char, (char,))


def cased_within(low: int, high: int) -> list[str]:
    """The characters from code point ``low`` to ``high`` (both included) that have variants besides themselves.
    Never raises (``low`` past ``high``: none)."""
    cased = _cased()
    return cased[bisect.bisect_left(cased, chr(low)):bisect.bisect_right(cased, chr(high))]


@lru_cache(maxsize=1)
def _cased() -> list[str]:
    return sorted(_table())


def utf8_ranges(low: int, high: int) -> list[list[tuple[int, int]]]:
    """The UTF-8 encodings of code points ``low`` to ``high`` (surrogates left out) as byte-range sequences: each a
    list of ``(first, last)`` byte ranges, one per byte, whose product is a run of those encodings (the split of
    Russ Cox's "Regular Expression Matching in the Wild" / Go's ``utf8`` range compiler). Never raises."""
    out: list[list[tuple[int, int]]] = []
    pending = [(low, high)]
    while pending:
        lo, hi = pending.pop()
        if lo > hi:
            continue
        if lo <= 0xDFFF and hi >= 0xD800:  # (no surrogate has an encoding)
            pending += [(0xE000, hi), (lo, 0xD7FF)]
            continue
        edge = next((e for e in (0x7F, 0x7FF, 0xFFFF) if lo <= e < hi), None)
        if edge is not None:  # (one length of encoding at a time)
            pending += [(edge + 1, hi), (lo, edge)]
            continue
        split = _split(lo, hi)
        if split is not None:
            pending += [(split, hi), (lo, split - 1)]
            continue
        first, last = chr(lo).encode("utf-8"), chr(hi).encode("utf-8")
        out.append(list(zip(first, last, strict=True)))
    return out


def _split(lo: int, hi: int) -> int | None:
    """Where a range of one encoding length must split for its byte ranges to multiply out to it, or ``None``."""
    for bits in (6, 12, 18):
        mask = (1 << bits) - 1
        if lo & ~mask != hi & ~mask:
            if lo & mask:
                return (lo | mask) + 1
            if hi & mask != mask:
                return hi & ~mask
    return None


def alternation(chars: set[str] | frozenset[str], encoding: str = "utf-8", more: tuple[str, ...] = ()) -> str:
    """A bytes-pattern (``re`` syntax, ASCII text) matching any one of ``chars`` encoded in ``encoding``, each byte
    written ``\\xHH`` (no case folding applies to it), those sharing all but their last byte written as one class:
    ``(?:\\xc3[\\x89\\xa9])`` for ``{"É", "é"}``; ``more``: ways written already, tried after them. ``""`` for
    none. Raises UnicodeEncodeError for a character ``encoding`` cannot encode (a lone surrogate: its callers refuse
    one first)."""
    tails: dict[bytes, set[int]] = {}
    for char in chars:
        data = char.encode(encoding)
        tails.setdefault(data[:-1], set()).add(data[-1])
    ways = []
    for head in sorted(tails):
        last = sorted(tails[head])
        written = "".join(f"\\x{b:02x}" for b in head)
        ways.append(written + (f"\\x{last[0]:02x}" if len(last) == 1 else "[" + _ranges(last) + "]"))
    ways += more
    return "(?:" + "|".join(ways) + ")" if ways else ""


def _ranges(values: list[int]) -> str:
    """Sorted byte values as class items: runs of three or more as ``\\xLL-\\xHH``."""
    out, i = [], 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        out.append(f"\\x{values[i]:02x}" + (f"-\\x{values[j]:02x}" if j > i else ""))
        i = j + 1
    return "".join(out)
