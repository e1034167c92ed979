"""Finders of patterns that match empty text: the bytes a non-empty match can begin with (:func:`first_bytes`) and
a pattern that finds each place where one can begin (:func:`nonempty_core`), both read from the one parse of the
pattern (:mod:`scratchfs.engine.pattern_syntax`), the finder written in its core syntax.

Why: the search of a pattern that matches empty text reports its non-empty matches only, and each empty match the
engine gives costs a trip through Python (``"(?:)"``, ``"q*"`` ran into the 5 s time limit 5 MB into 64 MiB): the
engine runs only where the finder finds (:class:`scratchfs.engine.patterns.PatternMatcher`). A pattern with no
finder (a backreference to a group captured inside a lookaround) is refused before it runs
(:class:`~scratchfs.foundation.errors.PatternMatchesEmpty`).
"""

from __future__ import annotations

import re

from scratchfs.engine.pattern_syntax import (
    MAX_NESTING,
    MAXREPEAT,
    REPEATS,
    CoreWriter,
    class_members,
    op_name,
    sub_sequences,
    write_core,
)
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["first_bytes", "nonempty_core", "opens_optionally"]

# a loose backreference as CoreWriter writes it, and its group number
_LOOSE_REFS = re.compile(rb"\(\?:(\(\?i:)?\(\?P=g(\d+)\)\)?\|\)")
_GROUP_DEFS = re.compile(rb"\(\?P<g(\d+)>")
_NAMED = re.compile(rb"\(\?P=g(\d+)\)|\(\?\(g(\d+)\)")  # a backreference or conditional as written


def first_bytes(tree) -> frozenset[int] | None:
    """The bytes a non-empty match of the parsed pattern ``tree`` can begin with (a superset: lookarounds and anchors
    are taken to allow anything), or ``None`` when that is not known (a backreference to a group captured inside a
    lookaround). A non-empty match consumes its first byte by its first consuming item, so no non-empty match starts
    at a byte outside this set: the search of a pattern that matches empty text (``x*``, ``(?:ab)*``) runs the engine
    only where one can (an empty set: it never matches non-empty text, as ``\\b`` or ``(?=a)`` alone). A
    backreference consumes no first byte: before the first byte is consumed, every group not inside a lookaround holds
    empty text or nothing."""
    if _looked_around_refs(tree):
        return None
    try:
        return _first_seq(tree, tree.state.flags, 0)[0]
    except RecursionError:  # pragma: no cover - parse bounds the nesting first
        return None


def nonempty_core(tree, reach: int) -> bytes | None:
    """The core syntax (as :func:`write_core` writes it) of a finder: a pattern that matches, at every place where a
    non-empty match of the parsed pattern ``tree`` can begin, a non-empty text, and matches nothing but non-empty
    text; the search of a pattern that matches empty text then runs that pattern only where its finder finds
    (``(?:eq)*`` is found as ``(?:eq){1,}``, ``a*b?`` as ``a{1,}b?|b``). It is a superset -- lookarounds and anchors
    before the first byte are passed over, a repeat of a body that matches empty text is found by the body's first
    non-empty iteration and any more, a backreference matches what its group holds or empty text, a conditional
    either arm -- so no non-empty match starts where it finds nothing. When that finder would be more than 4 times
    as long as the pattern's own core, a shorter one is written: each way found up to its first byte's item only.
    ``None`` only when :func:`first_bytes` is ``None`` (or the pattern is refused by :func:`write_core`). Never
    raises."""
    try:
        if _looked_around_refs(tree):
            return None
        bound = 4 * len(write_core(tree, reach)[0]) + 256
        return _finder(tree, reach, False, bound) or _finder(tree, reach, True, bound)
    except (_Unknown, InvalidArgument, RecursionError, MemoryError):
        return None


def _finder(tree, reach: int, short: bool, bound: int) -> bytes | None:
    """The finder's syntax, or ``None`` if it is longer than ``bound`` bytes (when not ``short``). A backreference or
    conditional naming a group that cannot match empty text is written as it is (``(a)?\\1`` is found as
    ``(a)\\1``): the group holds nothing where the finder passed it over, and in the finder what it holds in the
    match; one the finder does not capture is written loose (empty text, the second arm, or either)."""
    widths = getattr(tree.state, "groupwidths", None) or []  # (the parser's [None, (narrowest, widest), ...])
    solid = frozenset(number for number, width in enumerate(widths) if width and width[0] > 0)
    while True:
        way = _NonEmpty(reach, short, solid).seq(tree, tree.state.flags, 0)
        if way is None or (len(way[0]) > bound and not short):
            return None
        unheld = {int(a or b) for a, b in _NAMED.findall(way[0])} - {int(n) for n in _GROUP_DEFS.findall(way[0])}
        if not unheld & solid:
            return _drop_unheld_refs(way[0])
        solid -= unheld


def opens_optionally(tree) -> bool:
    """Whether the parsed pattern's first item can match empty text (``(a)?\\1``, ``x?y``): ``regex`` then knows no
    byte its matches begin with, and tries it at every byte. Never raises."""
    if not len(tree):
        return False
    op, av = tree[0]
    try:
        return _first_item(op_name(op), av, tree.state.flags, 0)[1]
    except RecursionError:  # pragma: no cover - parse bounds the nesting first
        return False


def _looked_around_refs(tree) -> bool:
    """Whether a backreference or conditional names a group captured inside a lookaround (which may hold text before
    the match's first byte is consumed)."""
    inside: set[int] = set()
    named: set[int] = set()

    def walk(items, around: bool) -> None:
        for op, av in items:
            name = op_name(op)
            if name in ("GROUPREF", "GROUPREF_EXISTS"):
                named.add(av if name == "GROUPREF" else av[0])
            if name == "SUBPATTERN" and around and av[0] is not None:
                inside.add(av[0])
            for sub in sub_sequences(name, av):
                walk(sub, around or name in ("ASSERT", "ASSERT_NOT"))

    walk(tree, False)
    return bool(inside & named)


def _drop_unheld_refs(finder: bytes) -> bytes:
    """A finder's backreferences to groups it does not capture (passed over: they hold empty text or nothing there)
    written as empty text, as ``regex`` compiles no reference to a group it does not have."""
    held = set(_GROUP_DEFS.findall(finder))
    return _LOOSE_REFS.sub(lambda m: m.group(0) if m.group(2) in held else b"", finder)


class _Unknown(Exception):
    """A construct :class:`_NonEmpty` does not look into."""


_Way = tuple[bytes, bool]  # a finder's syntax, and whether it is whole (else a prefix: nothing may follow it)


class _NonEmpty:
    """Writes the finder of :func:`nonempty_core`: each method returns ``(core syntax, whole)``, or ``None`` where the
    part can match only empty text; raises :class:`_Unknown`. ``short``: each way is written up to the item that
    consumes its first byte (a prefix of the match: found wherever the match is)."""

    def __init__(self, reach: int, short: bool, solid: frozenset[int]) -> None:
        self.writer = CoreWriter(reach, loose=True, solid=solid)
        self.short = short

    def rest(self, items, flags: int, depth: int, first: bool) -> _Way:
        """``items`` as written; when short, only the first of them if ``first`` (the one consuming a byte)."""
        if self.short:
            kept = items[:1] if first else []
            return self.writer.seq(kept, flags, depth, 1)[0], len(kept) == len(items)
        return self.writer.seq(items, flags, depth, 1)[0], True

    def seq(self, items, flags: int, depth: int) -> _Way | None:
        """A non-empty match of ``items`` begins with the first item that consumes a byte: either the first item
        that cannot match empty text (then the rest as written), or an earlier one's non-empty match (then the
        rest as written, the items before it matched empty and passed over)."""
        if depth > MAX_NESTING:
            raise _Unknown
        items, ways, lead = list(items), [], b""
        for i, (op, av) in enumerate(items):
            name = op_name(op)
            first, nullable = _first_item(name, av, flags, depth)
            if first is None:
                raise _Unknown
            if not nullable:
                way = self.rest(items[i:], flags, depth, True)
                ways.append((lead + way[0], way[1]))
                break
            if _kept_assertion(name, av):
                lead += self.writer.item(name, av, flags, depth, 1)[0]
                continue
            inner = self.item(name, av, flags, depth)
            if inner is not None and inner[1]:
                after = self.rest(items[i + 1 :], flags, depth, False)
                inner = inner[0] + after[0], after[1]
            if inner is not None:
                ways.append((lead + inner[0], inner[1]))
        return _either(ways)

    def item(self, name: str, av, flags: int, depth: int) -> _Way | None:
        """The non-empty matches of one item that can match empty text."""
        if name in ("AT", "ASSERT", "ASSERT_NOT", "GROUPREF"):
            return None  # zero-width, or (a backreference before the first byte) what an empty group holds
        if name == "SUBPATTERN":  # (its group kept: a backreference after it names what it holds)
            inner = self.seq(av[-1], (flags | av[1]) & ~av[2], depth + 1)
            return inner if inner is None or av[0] is None else (b"(?P<g%d>" % av[0] + inner[0] + b")", inner[1])
        if name == "ATOMIC_GROUP":
            return self.seq(av, flags, depth + 1)
        if name in REPEATS:
            return self.repeat(av, flags, depth)
        if name in ("BRANCH", "GROUPREF_EXISTS"):
            ways = [way for way in (self.seq(sub, flags, depth + 1) for sub in _arms(name, av) if sub is not None)
                    if way is not None]
            return (b"(?:" + b"|".join(way[0] for way in ways) + b")", all(way[1] for way in ways)) if ways else None
        raise _Unknown  # pragma: no cover - every construct the writer knows is above

    def repeat(self, av, flags: int, depth: int) -> _Way | None:
        _low, high, sub = av
        if high == 0:
            return None
        body = b"(?:" + self.writer.seq(sub, flags, depth + 1, 1)[0] + b")"
        if not _first_seq(sub, flags, depth + 1)[1]:
            return body + (b"{1,}" if high == MAXREPEAT else b"{1,%d}" % high), True
        first = self.seq(sub, flags, depth + 1)  # a body that can match empty: its first non-empty iteration,
        if first is None or high == 1 or not first[1]:  # then any more
            return first
        if self.short:
            return first[0], False
        return first[0] + body + (b"{0,}" if high == MAXREPEAT else b"{0,%d}" % (high - 1)), True


def _kept_assertion(name: str, av) -> bool:
    """Whether a zero-width item before a way's first byte is kept in the finder: an anchor, or a lookaround that
    captures no group and names none (it holds at the place the match begins, and decides there as in the match);
    any other is passed over."""
    if name == "AT":
        return True
    if name not in ("ASSERT", "ASSERT_NOT"):
        return False
    stack = [av[1]]
    while stack:
        for op, item in stack.pop():
            inner = op_name(op)
            if inner in ("GROUPREF", "GROUPREF_EXISTS") or (inner == "SUBPATTERN" and item[0] is not None):
                return False
            stack.extend(sub_sequences(inner, item))
    return True


def _arms(name: str, av) -> list:
    """The alternatives of a branch, or the arms a conditional may take before a match's first byte is consumed
    (``None``: an arm left out, matching empty text): its group then holds empty text or nothing, so a group that
    cannot match empty text holds nothing and only the second arm is taken (``(b)?(?(1)a|)`` begins no match at
    "a"); either arm otherwise."""
    if name == "BRANCH":
        return list(av[1])
    widths = getattr(av[1].state, "groupwidths", None)  # (the parser's [None, (narrowest, widest), ...])
    narrowest = widths[av[0]][0] if widths and av[0] < len(widths) and widths[av[0]] else 0
    return [av[2]] if narrowest > 0 else [av[1], av[2]]


def _either(ways: list[_Way]) -> _Way | None:
    """Ways as alternatives: whole if each is."""
    if not ways:
        return None
    if len(ways) == 1:
        return ways[0]
    return b"(?:" + b"|".join(way[0] for way in ways) + b")", all(way[1] for way in ways)


def _first_seq(items, flags: int, depth: int) -> tuple[frozenset[int] | None, bool]:
    """``(first bytes or None, whether the sequence can match empty text)``."""
    found: set[int] = set()
    for op, av in items:
        first, nullable = _first_item(op_name(op), av, flags, depth)
        if first is None or depth > MAX_NESTING:
            return None, True
        found |= first
        if not nullable:
            return frozenset(found), False
    return frozenset(found), True


def _first_item(name: str, av, flags: int, depth: int) -> tuple[frozenset[int] | None, bool]:
    """``(first bytes or None, whether the item can be passed over consuming nothing)`` of one item; a backreference
    is passed over (see :func:`first_bytes`: its group, not inside a lookaround, holds empty text or nothing)."""
    if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
        return frozenset(class_members(name, av, flags)), False
    if name in ("AT", "ASSERT", "ASSERT_NOT", "GROUPREF"):
        return frozenset(), True  # zero-width: consumes nothing
    if name == "SUBPATTERN":
        return _first_seq(av[-1], (flags | av[1]) & ~av[2], depth + 1)
    if name == "ATOMIC_GROUP":
        return _first_seq(av, flags, depth + 1)
    if name in REPEATS:
        low, high, sub = av
        if high == 0:
            return frozenset(), True
        first, nullable = _first_seq(sub, flags, depth + 1)
        return first, nullable or low == 0
    if name in ("BRANCH", "GROUPREF_EXISTS"):
        results = [(frozenset(), True) if sub is None else _first_seq(sub, flags, depth + 1)
                   for sub in _arms(name, av)]
        if any(first is None for first, _ in results):
            return None, True
        return frozenset().union(*(first for first, _ in results)), any(n for _, n in results)
    return None, True  # anything else: not known
