"""Regular-expression patterns for the streaming search: parse once, bound, analyse, compile, match.

**One parser.** What a pattern means is decided by one parser: the one behind Python's ``re`` (``pattern=`` is
documented as Python ``re`` syntax over bytes, ``^``/``$`` per line). Its tree is analysed -- the literal every
match contains (the prefilter), whether a match can span a line end, how far a match and its lookahead reach -- and
the *same tree* is written back out in a small core syntax for the engine: every byte class (``[...]``, ``\\d``,
``.``, a literal under ``ignore_case``) as explicit ``\\xHH`` ranges of the bytes ``re`` would match, every group
named ``gN``, ``^``/``$`` as ``re`` reads them under the flags in force there. The engine compiles only that core
syntax, so it cannot read a construct differently from the analysis: ``[[:alpha:]]`` is a POSIX class to ``regex``
but five bytes and a ``]`` to ``re``, ``[a--b]`` a set difference to one and a range to the other -- such class
syntax, which ``re`` itself flags as ambiguous (a ``[`` at the start of a class or before ``:=.``; a doubled
``-&~|`` inside one), is refused with InvalidArgument, as is locale-dependent matching (``(?L)``).

**The engine** is the ``regex`` package (a well-kept, widely used PyPI package): unlike ``re`` it takes a per-call
``timeout`` (a runaway pattern stops with PatternTimeout) and ``concurrent=True``, which releases the GIL while it
matches, so a runaway search never stalls the process's other threads.

**Bounds** (compiling must not exhaust memory or time; ``regex`` unrolls counted repeats: ``a{1000000}`` took
270 MB and ``((a{100}){100}){100}`` 1.9 s here, while ``a{1,1000000}`` takes nothing): the pattern text is at most
:data:`MAX_PATTERN_BYTES`, groups nest at most :data:`MAX_NESTING` deep, a counted repeat is at most
:data:`MAX_REPEAT_COUNT`, and the program size -- each item weighted by the product of the minimum counts of the
repeats around it -- is at most :data:`MAX_PROGRAM_SIZE`. A pattern beyond a bound is InvalidArgument.

See :mod:`scratchfs.engine.search` for how the matcher is used (frames, buffer, windows).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import regex

from scratchfs.engine.pattern_worker import FLAGS, Engine, Span
from scratchfs.foundation.errors import InvalidArgument, PatternTimeout, PatternTooLong

try:  # the parser behind `re`: the one parser of the pattern syntax
    from re import _parser as _sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_LINE_BYTES",
    "MAX_NESTING",
    "MAX_PATTERN_BYTES",
    "MAX_PREFIX_BYTES",
    "MAX_PROGRAM_SIZE",
    "MAX_REACH_BYTES",
    "MAX_REPEAT_COUNT",
    "Analysis",
    "PatternMatcher",
    "compile_pattern",
]

MAX_REACH_BYTES = 16 * 1024
"""Longest reach (match plus lookaround) a pattern match may have, in bytes; a longer match raises PatternTooLong."""
MAX_PREFIX_BYTES = 256
"""Largest distance from a match's start to its required literal for the prefilter to be used, in bytes."""
MAX_LINE_BYTES = 4 * 1024 * 1024
"""Longest line a line-bound pattern search holds whole, in bytes; a longer line raises PatternTooLong."""
DEFAULT_TIMEOUT = 5.0
"""Default time limit of one pattern search, in seconds."""
MAX_PATTERN_BYTES = 16 * 1024
"""Longest pattern, in bytes of its UTF-8 text (room for an escaped ``match`` of the longest needle)."""
MAX_REPEAT_COUNT = 65_535
"""Largest count in a counted repeat (``{m}``, ``{m,n}``)."""
MAX_PROGRAM_SIZE = 20_000
"""Largest program: items (a byte, a class, an anchor, a group, a backreference) each weighted by the product of
the minimum counts of the repeats around it (``a{19999}`` is about the largest single repeat: a few MB and 0.01 s
to compile; compiled patterns are not cached, so none of that outlives the search)."""
MAX_NESTING = 100
"""Deepest nesting of groups, repeats and lookarounds."""

_MAXREPEAT = _sre_parse.MAXREPEAT
_ALL = frozenset(range(256))
_NEWLINE = 10
_DIGIT = frozenset(range(0x30, 0x3A))
_SPACE = frozenset(b" \t\n\r\f\v")
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_CATEGORIES = {"CATEGORY_DIGIT": _DIGIT, "CATEGORY_NOT_DIGIT": _ALL - _DIGIT, "CATEGORY_SPACE": _SPACE,
               "CATEGORY_NOT_SPACE": _ALL - _SPACE, "CATEGORY_WORD": _WORD, "CATEGORY_NOT_WORD": _ALL - _WORD}
_LOWER = bytes(range(256)).lower()  # ASCII case folding: what `re` does to bytes under IGNORECASE
_CASES = [frozenset(c for c in range(256) if _LOWER[c] == _LOWER[value]) for value in range(256)]
_PLAIN = frozenset(_WORD)  # bytes written as themselves in the core syntax; the rest as \xHH
_GROUP_NAMES = re.compile(r"\(\?(?:P?<(?![=!])([^>]*)>|P=([^)]*)\)|\(([^)]*)\))")


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the streaming search needs to know of a pattern.

    Attributes:
        literal: a byte string every match contains, or ``None`` ...
        prefix_width: ... beginning at most this many bytes after the match start.
        crosses_lines: some part of the pattern (lookarounds included) can match or look at ``b"\\n"`` beyond its
            own line.
        reach: longest match plus lookahead, in bytes; ``None`` if unbounded.
    """

    literal: bytes | None
    prefix_width: int
    crosses_lines: bool
    reach: int | None


def compile_pattern(pattern: str, ignore_case: bool, reach: int) -> tuple[regex.Pattern, Analysis]:
    """Parse ``pattern`` (Python ``re`` syntax over bytes, ``re.MULTILINE``, ASCII ``ignore_case``), check its
    bounds, analyse it and compile the core-syntax form of the same tree with ``regex``.

    Returns:
        ``(compiled, analysis)``: the engine's pattern (bytes, ``regex.VERSION0``) and its :class:`Analysis`.

    Raises:
        InvalidArgument: not text, empty, not UTF-8, longer than :data:`MAX_PATTERN_BYTES`, does not compile,
            ambiguous class syntax, ``(?L)``, beyond a bound (repeat count, program size, nesting), or a
            lookbehind longer than ``reach`` bytes.
    """
    source = _source(pattern)
    _refuse_ambiguous(pattern)
    flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)
    try:
        tree = _sre_parse.parse(source, flags)
    except re.error as exc:
        raise InvalidArgument(f"pattern does not compile: {exc}") from None
    except (OverflowError, RecursionError, ValueError, MemoryError) as exc:
        raise InvalidArgument(f"pattern is too complex: {exc}") from None
    writer = _Writer(reach)
    try:
        core, crosses, lookahead = writer.seq(tree, tree.state.flags, 0, 1)
        compiled = regex.compile(core, FLAGS, cache_pattern=False)
    except regex.error as exc:  # pragma: no cover - the core syntax is what regex accepts
        raise InvalidArgument(f"pattern does not compile: {exc}") from None
    except (OverflowError, RecursionError, MemoryError) as exc:
        raise InvalidArgument(f"pattern is too complex: {type(exc).__name__}") from None
    width = tree.getwidth()[1]
    total = None if lookahead is None or width >= _MAXREPEAT else width + lookahead
    literal, prefix = (None, 0) if tree.state.flags & re.IGNORECASE else _required_literal(tree)
    return compiled, Analysis(literal, prefix, crosses, total)


class PatternMatcher:
    """Non-empty, non-overlapping matches of a regular expression, with a prefilter and a time limit.

    How a match is known to be final depends on what the pattern can match (decided when it is compiled):

    * ``lines``: the pattern (lookarounds included) can never match ``\n``, so every match lies within one line and
      is decided by that line alone. Only matches in lines whose end is in the buffer are accepted: exact, for lines
      up to :data:`MAX_LINE_BYTES` (a longer one raises :class:`PatternTooLong`).
    * ``bounded``: the pattern can match ``\n`` but its reach (longest match plus lookahead) is at most ``reach``
      bytes: a match is accepted when ``2 * reach`` bytes follow its start in the buffer. Exact.
    * ``reach``: the pattern can match ``\n`` and its length is unbounded (``\\s+``, ``[\\s\\S]*``). Accepted like
      ``bounded``, and checked: a match that runs into the buffer's last ``reach`` bytes, a match that needs more
      bytes than the buffer holds, or one that changes when the buffer's last ``reach`` bytes are hidden raises
      :class:`PatternTooLong`. Exact whenever each match, and the bytes the engine examines to decide it, fit
      within ``reach``.

    The engine runs with ``concurrent=True`` (the GIL is released while it matches) under one deadline: a runaway
    pattern raises :class:`PatternTimeout` once ``timeout`` seconds (wall clock) have passed since the matcher was
    made; a call that outlasts a short slice finishes in a worker process that is killed at the deadline (see
    :mod:`scratchfs.engine.pattern_worker`).

    Args:
        pattern: Python ``re`` syntax, applied to the content's bytes with ``re.MULTILINE`` (see
            :func:`compile_pattern`).
        ignore_case: ASCII case-insensitive matching.
        timeout: seconds this matcher may spend in the regex engine over its whole life (one search call).
        reach: the reach bound in bytes (:data:`MAX_REACH_BYTES`; tests use smaller ones).

    Raises:
        InvalidArgument: from :func:`compile_pattern` (does not compile, ambiguous, beyond a bound, a lookbehind
            longer than ``reach``).
    """

    def __init__(self, pattern: str, ignore_case: bool = False, timeout: float = DEFAULT_TIMEOUT,
                 reach: int = MAX_REACH_BYTES) -> None:
        self.compiled, analysis = compile_pattern(pattern, ignore_case, reach)
        self.pattern = pattern
        self.reach = reach
        self.keep_before = reach
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.engine = Engine(self.compiled, self.deadline, timeout)
        self.analysis = analysis
        self.literal, self.prefix_width = analysis.literal, analysis.prefix_width
        if not analysis.crosses_lines:
            self.mode = "lines"
        elif analysis.reach is not None and analysis.reach <= reach:
            self.mode = "bounded"
        else:
            self.mode = "reach"
        self._certain = 0  # buffer index before which matches need no checks (set by limit())

    def limit(self, buf: bytearray, pos: int, at_end: bool, base: int) -> int:
        """Buffer index before which a match start is final (see the class docstring)."""
        if at_end:
            self._certain = len(buf)
            return len(buf)
        if self.mode == "lines":
            certain = buf.rfind(b"\n") + 1
            self._certain = certain
            if certain <= pos and len(buf) - pos > MAX_LINE_BYTES:
                raise PatternTooLong(
                    f"the line at byte {base + pos} is longer than {MAX_LINE_BYTES} bytes, too long for a pattern "
                    "search; search it with match= (a substring) or read it by range",
                    resume_offset=base + pos,
                )
            return certain
        self._certain = 0 if self.mode == "reach" else len(buf)
        return len(buf) - 2 * self.reach

    def find(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        try:
            if self.literal is None:
                return self._scan(buf, pos, limit, at_end, base)
            return self._prefiltered(buf, pos, limit, at_end, base)
        except TimeoutError:
            raise PatternTimeout(
                f"pattern {self.pattern!r} ran past its time limit of {self.timeout:g} s; resume the search with "
                f"offset={base + pos}, or use a pattern with a literal part or less backtracking",
                resume_offset=base + pos,
            ) from None

    def skippable(self, buf: bytearray, base: int, pos: int, data: bytes, frame_start: int) -> int:
        """Never: a pattern's matches are decided in the buffer (its literal prefilter works there)."""
        return 0

    def _too_long(self, base: int, start: int) -> PatternTooLong:
        return PatternTooLong(
            f"a match of {self.pattern!r} near byte {base + start} may be longer than the reach bound of "
            f"{self.reach} bytes; bound the pattern (e.g. [^\\n]{{0,200}} instead of [\\s\\S]*) or resume after "
            f"it with offset={base + start + 1}",
            resume_offset=base + start,
        )

    def _accept(self, buf: bytearray, span: Span, at_end: bool, base: int) -> tuple[int, int]:
        start, end, partial = span
        if at_end or start < self._certain:
            return start, end
        # reach mode: the match must not depend on the end of the buffer
        if partial or end > len(buf) - self.reach:
            raise self._too_long(base, start)
        again = self.engine.match(buf, start, len(buf) - self.reach, True)
        if again is None or again != (start, end, False):
            raise self._too_long(base, start)
        return start, end

    def _scan(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        partial = self.mode == "reach" and not at_end
        # a line-bound pattern is decided by whole lines: the engine need not look past the last complete one
        endpos = limit if self.mode == "lines" else len(buf)
        found = self.engine.first(buf, pos, endpos, partial, limit)
        return None if found is None else self._accept(buf, found, at_end, base)

    def _prefiltered(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        literal, width = self.literal, self.prefix_width
        partial = self.mode == "reach" and not at_end
        endpos = limit if self.mode == "lines" else len(buf)
        tried = pos - 1
        search_from = pos
        while True:
            found = buf.find(literal, search_from)
            if found < 0 or found - width >= limit:
                return None
            for start in range(max(tried + 1, found - width), found + 1):
                if start >= limit:
                    return None
                span = self.engine.match(buf, start, endpos, partial)
                if span is not None and (span[1] > start or span[2]):
                    return self._accept(buf, span, at_end, base)
            tried = found
            search_from = found + 1


def _source(pattern: object) -> bytes:
    if not isinstance(pattern, str):
        raise InvalidArgument(f"pattern must be text, not {type(pattern).__name__}")
    if not pattern:
        raise InvalidArgument("pattern must not be empty")
    try:
        source = pattern.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(f"pattern is not valid UTF-8 text: {pattern!r}") from None
    if len(source) > MAX_PATTERN_BYTES:
        raise InvalidArgument(f"pattern is {len(source)} bytes, longer than the limit of {MAX_PATTERN_BYTES}")
    return source


def _refuse_ambiguous(text: str) -> None:
    """Refuse what ``re`` and ``regex`` read differently or ``re`` warns about: class syntax (see the module
    docstring), non-ASCII group names, global flags after the start (Python 3.10 warns) and ``(?L)``.

    Raises:
        InvalidArgument: naming the construct and how to write it unambiguously.
    """
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == "[":
            i = _class_end(text, i)
        else:
            i += 1
    for match in _GROUP_NAMES.finditer(text):
        if not "".join(part for part in match.groups() if part).isascii():
            raise InvalidArgument("pattern has a group name that is not ASCII; name groups with ASCII letters")
    for match in re.finditer(r"\(\?([aiLmsux]+)[):-]", text):
        if "L" in match.group(1):
            raise InvalidArgument("pattern uses (?L) (locale-dependent matching), which is not supported")
        if match.group(0).endswith(")") and match.start() > 0:
            raise InvalidArgument("global flags like (?i) must be at the start of the pattern")


def _class_end(text: str, i: int) -> int:
    """The index after the class that opens at ``text[i] == "["``."""
    j = i + 1
    if text.startswith("^", j):
        j += 1
    first = j
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "]" and j > first:
            return j + 1
        if c == "[" and (j == first or text[j + 1 : j + 2] in (":", "=", ".")):
            raise InvalidArgument(
                f"pattern has '[' inside a class at position {j} (a nested set or a POSIX class such as "
                "[:alpha:], which Python's re does not support); escape it as \\[ or list the bytes, e.g. [a-zA-Z]")
        if j > first and c in "-&~|" and text.startswith(c, j + 1):
            raise InvalidArgument(
                f"pattern has {c + c!r} inside a class at position {j} (set-operation syntax); escape one of "
                f"them as \\{c}")
        j += 1
    return j


def _op(constant: object) -> str:
    """The name of an ``re`` parser constant (``LITERAL``, ``CATEGORY_SPACE``, ...)."""
    return getattr(constant, "name", str(constant))


def _byte(value: int) -> bytes:
    return bytes([value]) if value in _PLAIN else b"\\x%02x" % value


def _class(members: frozenset[int] | set[int]) -> bytes:
    """The core syntax for a set of bytes: one byte, ``[\\xHH-\\xHH...]``, or ``(?!)`` (matches nothing)."""
    if not members:
        return b"(?!)"
    if len(members) == 1:
        return _byte(next(iter(members)))
    out = bytearray(b"[")
    values = sorted(members)
    lo = prev = values[0]
    for value in [*values[1:], None]:
        if value is not None and value == prev + 1:
            prev = value
            continue
        out += _byte(lo) if lo == prev else _byte(lo) + b"-" + _byte(prev)
        if value is not None:
            lo = prev = value
    return bytes(out + b"]")


def _fold(members: set[int] | frozenset[int]) -> set[int]:
    """The bytes ``re`` matches under IGNORECASE for a class of ``members``: those whose ASCII lower case is the
    lower case of a member (categories are closed under case already)."""
    folded: set[int] = set()
    for value in members:
        folded |= _CASES[value]
    return folded


def _members(name: str, av, flags: int) -> set[int] | frozenset[int]:
    """The bytes one class-like item (LITERAL, NOT_LITERAL, ANY, IN) matches under ``flags``, as ``re`` does."""
    ignore = bool(flags & re.IGNORECASE)
    if name == "ANY":
        return _ALL if flags & re.DOTALL else _ALL - {_NEWLINE}
    if name in ("LITERAL", "NOT_LITERAL"):
        members = _fold({av}) if ignore else {av}
        return members if name == "LITERAL" else _ALL - members
    negate = False
    members: set[int] = set()
    for op, value in av:
        item = _op(op)
        if item == "NEGATE":
            negate = True
        elif item == "LITERAL":
            members.add(value)
        elif item == "RANGE":
            members.update(range(value[0], value[1] + 1))
        elif item == "CATEGORY" and _op(value) in _CATEGORIES:
            members |= _CATEGORIES[_op(value)]
        else:
            raise InvalidArgument(f"pattern uses a class item that is not supported: {item} {_op(value)}")
    if ignore:
        members = _fold(members)
    return _ALL - members if negate else members


_ANCHORS = {  # name -> (core syntax, crosses lines, bytes looked at past the match), as read under MULTILINE
    "AT_BEGINNING": (b"^", False, 0),
    "AT_BEGINNING_STRING": (b"\\A", False, 0),
    "AT_END": (b"$", False, 1),
    "AT_END_STRING": (b"\\Z", True, 1),
    "AT_BOUNDARY": (b"\\b", False, 1),
    "AT_NON_BOUNDARY": (b"\\B", False, 1),
}
_SINGLE_LINE_ANCHORS = {  # ^ and $ without MULTILINE (in a (?-m:...) group): the start and end of the content
    "AT_BEGINNING": (b"\\A", False, 0),
    "AT_END": (b"(?=\\n?\\Z)", True, 2),
}
_REPEATS = {"MAX_REPEAT": b"", "MIN_REPEAT": b"?", "POSSESSIVE_REPEAT": b"+"}


class _Writer:
    """One walk over the parse tree: writes the core syntax for ``regex`` and gathers the analysis.

    Each method returns ``(core syntax, crosses lines, bytes looked at beyond the match or None if unbounded)``.
    """

    def __init__(self, reach: int) -> None:
        self.reach = reach
        self.size = 0

    def seq(self, tree, flags: int, depth: int, weight: int) -> tuple[bytes, bool, int | None]:
        if depth > MAX_NESTING:
            raise InvalidArgument(f"pattern nests groups more than {MAX_NESTING} deep")
        parts: list[bytes] = []
        crosses = False
        lookahead: int | None = 0
        for op, av in tree:
            text, item_crosses, item_lookahead = self.item(_op(op), av, flags, depth, weight)
            parts.append(text)
            crosses = crosses or item_crosses
            lookahead = None if lookahead is None or item_lookahead is None else lookahead + item_lookahead
        return b"".join(parts), crosses, lookahead

    def item(self, name: str, av, flags: int, depth: int, weight: int) -> tuple[bytes, bool, int | None]:
        self.size += weight
        if self.size > MAX_PROGRAM_SIZE:
            raise InvalidArgument(
                f"pattern is too large: more than {MAX_PROGRAM_SIZE} items once its counted repeats are unrolled")
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
            members = _members(name, av, flags)
            return _class(members), _NEWLINE in members, 0
        if name == "AT" and _op(av) in _ANCHORS:
            if not flags & re.MULTILINE and _op(av) in _SINGLE_LINE_ANCHORS:
                return _SINGLE_LINE_ANCHORS[_op(av)]
            return _ANCHORS[_op(av)]
        if name == "BRANCH":
            results = [self.seq(sub, flags, depth + 1, weight) for sub in av[1]]
            return b"(?:" + b"|".join(r[0] for r in results) + b")", *_combine(results)
        if name == "SUBPATTERN":
            return self.group(av, flags, depth, weight)
        if name in _REPEATS:
            return self.repeat(name, av, flags, depth, weight)
        if name in ("ASSERT", "ASSERT_NOT"):
            return self.lookaround(name, av, flags, depth, weight)
        if name == "ATOMIC_GROUP":
            text, crosses, lookahead = self.seq(av, flags, depth + 1, weight)
            return b"(?>" + text + b")", crosses, lookahead
        if name == "GROUPREF":
            ref = b"(?P=g%d)" % av
            return (b"(?i:" + ref + b")" if flags & re.IGNORECASE else ref), True, 0
        if name == "GROUPREF_EXISTS":
            results = [self.seq(sub, flags, depth + 1, weight) for sub in av[1:] if sub is not None]
            text = b"(?(g%d)" % av[0] + b"|".join(r[0] for r in results) + b")"
            return text, *_combine(results)
        raise InvalidArgument(f"pattern uses a construct that is not supported: {name}")

    def group(self, av, flags: int, depth: int, weight: int) -> tuple[bytes, bool, int | None]:
        group, add, remove, sub = av[0], av[1], av[2], av[-1]
        if add & re.LOCALE:  # pragma: no cover - refused before parsing
            raise InvalidArgument("pattern uses (?L) (locale-dependent matching), which is not supported")
        text, crosses, lookahead = self.seq(sub, (flags | add) & ~remove, depth + 1, weight)
        opening = b"(?:" if group is None else b"(?P<g%d>" % group
        return opening + text + b")", crosses, lookahead

    def repeat(self, name: str, av, flags: int, depth: int, weight: int) -> tuple[bytes, bool, int | None]:
        low, high, sub = av
        for count in (low, high):
            if count != _MAXREPEAT and count > MAX_REPEAT_COUNT:
                raise InvalidArgument(f"pattern has a repeat count of {count}, more than {MAX_REPEAT_COUNT}")
        text, crosses, lookahead = self.seq(sub, flags, depth + 1, weight * max(low, 1))
        upper = b"" if high == _MAXREPEAT else b"%d" % high
        quantifier = b"{%d}" % low if low == high else b"{%d,%s}" % (low, upper)
        return b"(?:" + text + b")" + quantifier + _REPEATS[name], crosses, lookahead

    def lookaround(self, name: str, av, flags: int, depth: int, weight: int) -> tuple[bytes, bool, int | None]:
        direction, sub = av
        narrowest, width = sub.getwidth()
        if direction < 0 and narrowest != width:  # as re's compiler checks (regex would accept it)
            raise InvalidArgument("pattern does not compile: look-behind requires fixed-width pattern")
        if direction < 0 and width > self.reach:
            raise InvalidArgument(f"the pattern has a lookbehind longer than {self.reach} bytes")
        text, crosses, lookahead = self.seq(sub, flags, depth + 1, weight)
        opening = {(1, "ASSERT"): b"(?=", (1, "ASSERT_NOT"): b"(?!", (-1, "ASSERT"): b"(?<=",
                   (-1, "ASSERT_NOT"): b"(?<!"}[(1 if direction > 0 else -1, name)]
        if direction > 0 and lookahead is not None:
            lookahead = None if width >= _MAXREPEAT else lookahead + width
        return opening + text + b")", crosses, lookahead


def _combine(results: list[tuple[bytes, bool, int | None]]) -> tuple[bool, int | None]:
    """Alternatives together: crosses if any does; their lookaheads summed (a bound on the largest)."""
    crosses = any(r[1] for r in results)
    lookaheads = [r[2] for r in results]
    return crosses, None if None in lookaheads else sum(lookaheads)  # type: ignore[arg-type]


def _required_literal(tree) -> tuple[bytes | None, int]:
    """The longest run of literal bytes in the pattern's top-level sequence that starts at most
    :data:`MAX_PREFIX_BYTES` bytes into any match, and that distance."""
    best: tuple[bytes, int] | None = None
    width = 0  # max width of the items before the current one
    run = bytearray()
    run_start = 0
    for op, av in [*tree, (None, None)]:
        if op is _sre_parse.LITERAL:
            if not run:
                run_start = width
            run.append(av)
            width += 1
            continue
        if run and (best is None or len(run) > len(best[0])) and run_start <= MAX_PREFIX_BYTES:
            best = (bytes(run), run_start)
        run = bytearray()
        if op is None:
            break
        width += _sre_parse.SubPattern(tree.state, [(op, av)]).getwidth()[1]
        if width > MAX_PREFIX_BYTES:
            break
    return best if best else (None, 0)
