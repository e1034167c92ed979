"""The scan a finder is searched by, when that is quicker than the finder's own search: the bytes every match of a
way through it holds at bounded offsets from its start, read past optional items, branches and conditionals.

Why: ``regex`` runs a pattern whose first item is a class or a branch at every byte that can begin a match, inside
its C loop, and a finder such as ``(?:e(?:e){0,1}q){1,}`` (of ``(?:ee?q)*?``) or
``(?:(?P<g1>e)|x){1,1}(?(g1)[0-9]|)`` (of ``(?:(e)|x)?(?(1)\\d|)``) over text 58% "e" costs 30-70 ns a byte (1.5 s
CPU over 20 MB), where a scan for the rare byte each match needs -- a "q" one or two bytes in, a digit one byte in
after an "e", or an "x" -- with the bytes around it checked by lookarounds, takes 1-6 ns a byte
(``python bench/regex_prefilters.py``, which searches that text, before and after with ``--root``).

:func:`scan_paths` reads a finder (core syntax, :mod:`scratchfs.engine.pattern_syntax`) into its *ways*: each a
sequence of elements ``(class, fewest, most)`` -- ``most`` bytes of the class at most, ``fewest`` at least; a class
of ``None`` is any byte -- that every match taking that way begins with. A branch is a way per alternative; a
conditional takes the arm its group decides when the way says whether the group was captured, else either; a
repeat of one class is one element, any other repeat its first iteration read and the rest a run of any bytes (an
optional one: a way without it, and one with it); lookarounds and anchors are passed over (they consume
nothing). :class:`PathScan` picks, per way, the element whose class is rarest in a sample of the text, and scans
for it with the elements around it checked by lookarounds: each match begins within the offsets that element can
sit at, so no match is missed.

Why no match is missed (:meth:`PathScan.next`): a match at ``s`` takes one of the ways; that way's scanned element
starts at ``s + o`` with ``first <= o <= last`` (its fewest and most offsets along the way), and the bytes around it
are the way's own elements there, which the lookarounds check no more strictly than the way holds (a run with no
bound is checked for its fewest bytes). So the scan, from ``pos + first``, finds a byte at or before ``s + o``, and
``found - last <= s``: the place returned is at or before every match from ``pos`` on. A finder whose ways are not
known (:func:`scan_paths` gives ``[]``) is never scanned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import regex

from scratchfs.engine.pattern_syntax import MAXREPEAT, REPEATS, captured, class_members, class_syntax, op_name
from scratchfs.foundation.errors import InvalidArgument

try:  # the parser behind `re`: a core syntax read back
    from re import _parser as _sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

__all__ = ["CONTEXT_ELEMENTS", "MAX_ELEMENTS", "MAX_OFFSET", "MAX_WAYS", "Element", "PathScan", "scan_paths"]

MAX_WAYS = 16
"""Most ways :func:`scan_paths` reads (more: no scan)."""
MAX_ELEMENTS = 12
"""Most elements read along one way."""
MAX_OFFSET = 256
"""Largest offset from a match's start at which an element is read, in bytes."""
CONTEXT_ELEMENTS = 6
"""Most elements each side of the scanned one that the scan checks."""
_CLASS_ITEMS = ("LITERAL", "NOT_LITERAL", "ANY", "IN")
_ANY_BYTE = b"[\\x00-\\xff]"

Element = tuple[frozenset[int] | None, int, int | None]
"""``(class or None for any byte, fewest, most or None for no bound)``: a run of bytes of the class."""


@dataclass(frozen=True)
class _Way:
    elements: tuple[Element, ...] = ()
    held: frozenset[int] = frozenset()  # groups surely captured along the way
    unsure: frozenset[int] = frozenset()  # groups that may be captured (any other: surely not)
    done: bool = False  # read as far as it is: the rest is not looked at

    def add(self, element: Element, bound: int) -> _Way:
        """The way with ``element`` after its others; the way ends at an element that may reach past ``bound`` bytes
        from the match's start (its fewest cut to what fits: every byte the scan checks lies within the bound)."""
        members, fewest, most = element
        if self.done or most == 0:
            return self
        before = sum(e[2] for e in self.elements)  # type: ignore[misc]
        done = most is None or before + most > bound or len(self.elements) + 1 >= MAX_ELEMENTS
        if done:
            element = (members, min(fewest, bound - before), None)
        return replace(self, elements=(*self.elements, element), done=done)

    def unsure_of(self, groups: set[int]) -> _Way:
        return replace(self, unsure=self.unsure | (groups - self.held))


class _TooMany(Exception):
    """More ways than :data:`MAX_WAYS`."""


def scan_paths(core: bytes, bound: int = MAX_OFFSET) -> list[tuple[Element, ...]]:
    """The ways through ``core`` (a finder's core syntax; compiled as :data:`~scratchfs.engine.pattern_worker.FLAGS`),
    each as the elements every match taking it begins with (see the module docstring), read no further than
    ``bound`` bytes from the match's start (at most :data:`MAX_OFFSET`): every match of ``core`` takes one of them.
    ``[]`` when not known (more than :data:`MAX_WAYS` ways, a way with no element). Never raises."""
    try:
        tree = _sre_parse.parse(core.decode("latin-1"), re.MULTILINE)
        widths = getattr(tree.state, "groupwidths", None) or []
        ways = _Reader(widths, min(bound, MAX_OFFSET)).seq(tree, tree.state.flags, [_Way()])
    except (_TooMany, re.error, RecursionError, ValueError, OverflowError, InvalidArgument):
        return []
    found = list(dict.fromkeys(way.elements for way in ways))
    return [] if any(not any(e[0] is not None and e[1] >= 1 for e in way) for way in found) else found


class _Reader:
    """Reads ways through a parsed sequence (:func:`scan_paths`)."""

    def __init__(self, widths: list, bound: int) -> None:
        self.widths, self.bound = widths, bound

    def seq(self, items, flags: int, ways: list[_Way]) -> list[_Way]:
        for op, av in items:
            live = [way for way in ways if not way.done]
            if not live:
                break
            ways = list(dict.fromkeys([way for way in ways if way.done] + self.item(op_name(op), av, flags, live)))
            if len(ways) > MAX_WAYS:
                raise _TooMany
        return ways

    def item(self, name: str, av, flags: int, ways: list[_Way]) -> list[_Way]:
        if name in _CLASS_ITEMS:
            members = frozenset(class_members(name, av, flags))
            return [way.add((members, 1, 1), self.bound) for way in ways]
        if name == "AT":
            return ways
        if name in ("ASSERT", "ASSERT_NOT"):  # (what it captures may be captured)
            return [way.unsure_of(captured(av[1])) for way in ways]
        if name == "SUBPATTERN":
            out = self.seq(av[-1], (flags | av[1]) & ~av[2], ways)
            group = av[0]
            return out if group is None else [replace(w, held=w.held | {group}, unsure=w.unsure - {group})
                                              for w in out]
        if name == "ATOMIC_GROUP":
            return self.seq(av, flags, ways)
        if name == "BRANCH":
            return [way for arm in av[1] for way in self.seq(arm, flags, ways)]
        if name == "GROUPREF_EXISTS":
            group, yes, no = av
            out: list[_Way] = []
            for way in ways:
                arms = [yes] if group in way.held else [no] if group not in way.unsure else [yes, no]
                out += [taken for arm in arms for taken in (self.seq(arm, flags, [way]) if arm is not None else [way])]
            return out
        if name == "GROUPREF":
            width = self.widths[av][1] if av < len(self.widths) and self.widths[av] else MAXREPEAT
            return [way.add((None, 0, None if width >= MAXREPEAT else width), self.bound) for way in ways]
        if name in REPEATS:
            return self.repeat(av, flags, ways)
        return [replace(way, done=True) for way in ways]  # (not known: read no further)

    def repeat(self, av, flags: int, ways: list[_Way]) -> list[_Way]:
        low, high, body = av
        most = None if high >= MAXREPEAT else high
        if most == 0:  # (matches empty text only)
            return ways
        if len(body) == 1 and op_name(body[0][0]) in _CLASS_ITEMS:  # a run of one class
            members = frozenset(class_members(op_name(body[0][0]), body[0][1], flags))
            return [way.add((members, low, most), self.bound) for way in ways]
        narrowest, widest = body.getwidth()
        inside = captured(body)
        skipped: list[_Way] = []
        if low == 0 and 2 * len(ways) <= MAX_WAYS:  # none, or a first iteration read as below (a way each)
            skipped, low = ways, 1
        if low >= 1:  # its first iteration read, then the rest as any bytes
            ways = self.seq(body, flags, ways)
            low, most = low - 1, None if most is None else most - 1
        if most != 0:  # (more iterations)
            rest = None if most is None or widest >= MAXREPEAT else most * widest
            ways = [way.add((None, low * narrowest, rest), self.bound).unsure_of(inside) for way in ways]
        return skipped + ways


def _written(element: Element, ahead: bool) -> bytes:
    """An element in core syntax (``ahead``: in a lookahead, where an unbounded run is written as its fewest)."""
    members, low, high = element
    one = _ANY_BYTE if members is None else class_syntax(members)
    if low == high == 1:
        return one
    if high is None:
        return one + (b"{%d}" % low if ahead else b"{%d,}" % low)
    return one + (b"{%d}" % low if low == high else b"{%d,%d}" % (low, high))


@dataclass(frozen=True)
class _Plan:
    scan: regex.Pattern
    first: int  # least offset of the scanned byte from a match's start
    last: int  # largest
    after: int  # most bytes the scan looks at after the scanned byte


def _plan(ways: list[tuple[Element, ...]], counts: dict[frozenset[int], int], flags: int) -> _Plan:
    """The scan: per way, its element of the least count (``counts``: bytes of the sample in each class, times the
    offsets it can sit at), with the elements around it as lookarounds."""
    alternatives, classes, firsts, lasts, afters = [], set(), [], [], []
    for way in ways:
        offsets, low, high = [], 0, 0
        for _members, fewest, most in way:
            offsets.append((low, high))
            low, high = low + fewest, None if high is None or most is None else high + most
        chosen = min((i for i, e in enumerate(way) if e[0] is not None and e[1] >= 1),
                     key=lambda i: (counts[way[i][0]] * (offsets[i][1] - offsets[i][0] + 1), i))
        members, fewest, most = way[chosen]
        before = way[max(0, chosen - CONTEXT_ELEMENTS) : chosen]
        after = [(members, fewest - 1, None if most is None else most - 1)] if most is None or most > 1 else []
        after += way[chosen + 1 : chosen + CONTEXT_ELEMENTS]  # (an unbounded element is a way's last)
        if after and after[-1][2] is None and after[-1][1] == 0:  # (it checks nothing)
            after.pop()
        alternatives.append((b"".join(_written(e, False) for e in before), members,
                             b"".join(_written(e, True) for e in after)))
        classes |= members
        firsts.append(offsets[chosen][0])
        lasts.append(offsets[chosen][1])
        afters.append(sum(e[2] if e[2] is not None else e[1] for e in after))
    # (the scanned bytes first, each way's checks after: regex then scans for the class at C speed, where a
    # lookbehind or an alternation first made it try each byte, 40 ns a byte)
    checks = list(dict.fromkeys(
        (b"(?<=" + behind + class_syntax(members) + b")" if behind or members != classes else b"")
        + (b"(?=" + ahead + b")" if ahead else b"") for behind, members, ahead in alternatives))
    scan = class_syntax(frozenset(classes)) + (
        b"" if not all(checks) else checks[0] if len(checks) == 1 else b"(?:" + b"|".join(checks) + b")")
    return _Plan(regex.compile(scan, flags), min(firsts), max(lasts), max(afters))


class PathScan:
    """Where a match of a finder can begin, found by a scan of the rarest byte each of its ways needs (see the module
    docstring). Used when, on the first :data:`SAMPLE_BYTES` bytes searched, the scan finds at most twice the
    places the finder does and one more a 4 KiB (each place costs a call of the engine: every offset the scanned
    byte can sit at; see :meth:`worth`); decided once, by counts (not timings: a loaded machine would decide at
    random), but for a finder that outruns a bound of 0.1 s over the sample.

    Args:
        ways: :func:`scan_paths` of the finder (``[]``: never used).
        finder: the finder's compiled pattern (:data:`~scratchfs.engine.pattern_worker.FLAGS`).
    """

    SAMPLE_BYTES = 1 << 18

    def __init__(self, ways: list[tuple[Element, ...]], finder: regex.Pattern) -> None:
        self.ways, self.finder = ways, finder
        self.chosen: _Plan | None = None
        self.decided = not ways

    def used(self, buf: bytearray, pos: int) -> bool:
        """Whether the scan is used (decided on ``buf[pos:]``'s first :data:`SAMPLE_BYTES` bytes, once there are 4 KiB
        of them)."""
        if not self.decided and len(buf) - pos >= 4096:
            self.decided = True
            sample = bytes(buf[pos : pos + self.SAMPLE_BYTES])
            classes = {e[0] for way in self.ways for e in way if e[0] is not None}
            counts = {c: len(sample) - len(sample.translate(None, bytes(sorted(c)))) for c in classes}
            plan = _plan(self.ways, counts, self.finder.flags)
            if self.worth(plan, sample):
                self.chosen = plan
        return self.chosen is not None

    def worth(self, plan: _Plan, sample: bytes) -> bool:
        """Whether ``plan`` finds about as few places as the finder in ``sample`` (give or take one a 4 KiB); never
        when the finder finds more than one a 256 bytes (each a call of the engine: the scan would save little). A
        finder that runs past 0.1 s over the sample (0.4 us a byte or more) is outrun by a scan that finds a place a
        16 bytes at most (a place costs a call of the engine, 1-2 us: a scan of a byte every match of
        ``(?:e(x)?)*?(?(1)q|\\d)`` begins with, "e", 58% of the text, ran into the time limit where the finder did
        not)."""
        found = 0
        try:
            for found, _ in enumerate(self.finder.finditer(sample, timeout=0.1), 1):
                if found > len(sample) // 256:
                    return False
            allowed = 2 * found + len(sample) // 4096
        except TimeoutError:
            allowed = len(sample) // 16
        most = allowed // (plan.last - plan.first + 1)  # (places found at each hit)
        try:
            for hits, _ in enumerate(plan.scan.finditer(sample, timeout=0.1), 1):
                if hits > most:
                    return False
        except TimeoutError:
            return False
        return True

    def next(self, buf: bytearray, pos: int, limit: int, timeout: float | None = None) -> int | None:
        """The first place at or after ``pos``, before ``limit``, where a match can begin, or ``None`` (a place at or
        past ``limit`` may be returned too). Raises TimeoutError past ``timeout`` seconds (of CPU time; the checks
        of a long way's variable runs may backtrack)."""
        plan = self.chosen
        if timeout is not None and timeout <= 0:
            raise TimeoutError
        end = min(len(buf), limit + plan.last + plan.after + 1)  # type: ignore[union-attr]
        found = plan.scan.search(buf, pos + plan.first, end, concurrent=True,  # type: ignore[union-attr]
                                 timeout=timeout)
        return None if found is None else max(pos, found.start() - plan.last)  # type: ignore[union-attr]
