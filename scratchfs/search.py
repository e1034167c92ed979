"""Streaming search over a seekable blob, frame by frame: substring matches and regular-expression patterns.

The content is decompressed one frame at a time into a sliding buffer; matches are found in the buffer and cut into
windows of context, and the buffer is trimmed behind the search, so memory stays at about one frame plus the reach
bound, the context and the windows being built, whatever the blob's size.

Semantics (what the results equal):

* **Substrings** (:class:`LiteralMatcher`): non-overlapping occurrences, left to right, the search resuming after
  each one -- the offsets a ``bytes.find`` loop reports, wherever they fall (across frame boundaries included).
* **Patterns** (:class:`PatternMatcher`): the non-empty matches of ``re.finditer(pattern, content, re.MULTILINE)``
  over the whole content (bytes semantics: ``.`` is one byte, ``\\w`` and ``(?i)`` are ASCII), for every match whose
  *reach* -- the match plus any lookaround -- fits :data:`MAX_REACH_BYTES`. A match found at a buffer position is
  accepted only when at least twice that bound of content follows it in the buffer, so the engine decided it on the
  same bytes as over the whole content; a match that runs into that margin is longer than the bound and raises
  :class:`~scratchfs.errors.PatternTooLong` (never a silent miss). Lookarounds wider than the bound are refused when
  the pattern is compiled. The syntax is Python's ``re`` (checked by compiling with ``re``); the engine is the
  ``regex`` package, for its per-call ``timeout``: a pattern that backtracks past the time limit raises
  :class:`~scratchfs.errors.PatternTimeout` saying where to resume.
* **Prefilter** (as ripgrep does): when every match must contain a literal that begins at most
  :data:`MAX_PREFIX_BYTES` after the match start, the engine runs only at the few positions before each occurrence of
  that literal (found with ``bytes.find``), which is exact: no match can start elsewhere.

Windows whose context overlaps are merged into one window listing each match it contains.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Protocol

import regex

from .errors import InvalidArgument, PatternTimeout, PatternTooLong
from .seekable import SeekableReader

try:  # the parser behind `re`: used only to analyse a pattern (literals, lookaround widths), never to match
    from re import _parser as _sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

MAX_REACH_BYTES = 16 * 1024
"""Longest reach (match plus lookaround) a pattern match may have, in bytes; a longer match raises PatternTooLong."""
MAX_PREFIX_BYTES = 256
"""Largest distance from a match's start to its required literal for the prefilter to be used, in bytes."""
DEFAULT_TIMEOUT = 5.0
"""Default time limit of one pattern search, in seconds."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One match: ``offset`` (bytes from the start of the content), ``length`` (bytes), ``line`` (1-based)."""

    offset: int
    length: int
    line: int


@dataclass(frozen=True, slots=True)
class Window:
    """The bytes around one match, or around several whose context overlaps.

    Attributes:
        match_offset: byte offset of the window's first match.
        offset: byte offset of the window's first byte (context before the first match, clipped at 0).
        data: the window's bytes: context, the matches and what lies between them, context.
        line: 1-based line of the first match.
        matches: every match in the window, in order (:class:`Hit`).
    """

    match_offset: int
    offset: int
    data: bytes
    line: int
    matches: tuple[Hit, ...]

    @property
    def length(self) -> int:
        """Length of the window in bytes."""
        return len(self.data)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Windows found by :func:`search`, and where the next search starts (``None``: no match is left)."""

    windows: list[Window]
    next_offset: int | None


class Matcher(Protocol):
    """Finds the next match in a buffer (see :class:`LiteralMatcher` and :class:`PatternMatcher`)."""

    keep_before: int  # bytes of content a match decision may look at before its start
    margin: int  # bytes of content that must follow a match start in the buffer before the match is final

    def find(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        """The first match starting in ``buf[pos:limit]`` as ``(start, end)`` buffer indices, or ``None``.

        ``at_end``: the buffer ends where the content ends. ``base``: the buffer's offset in the content (for errors).
        """
        ...


class LiteralMatcher:
    """Non-overlapping occurrences of a byte string (``bytes.find``)."""

    keep_before = 0

    def __init__(self, needle: bytes) -> None:
        if not needle:
            raise InvalidArgument("match must not be empty")
        self.needle = needle
        self.margin = len(needle) - 1

    def find(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        found = buf.find(self.needle, pos)
        if found < 0 or found >= limit:
            return None
        return found, found + len(self.needle)


class PatternMatcher:
    """Non-empty, non-overlapping matches of a regular expression, with a prefilter and a time limit.

    Args:
        pattern: Python ``re`` syntax, applied to the content's bytes with ``re.MULTILINE``.
        ignore_case: ASCII case-insensitive matching.
        timeout: seconds this matcher may spend in the regex engine over its whole life (one search call).
        reach: the reach bound in bytes (:data:`MAX_REACH_BYTES`; tests use smaller ones).

    Raises:
        InvalidArgument: the pattern is not text, does not compile, uses ``\\G``, or has a lookaround that can reach
            past ``reach`` bytes.
    """

    def __init__(self, pattern: str, ignore_case: bool = False, timeout: float = DEFAULT_TIMEOUT,
                 reach: int = MAX_REACH_BYTES) -> None:
        if not isinstance(pattern, str):
            raise InvalidArgument(f"pattern must be text, not {type(pattern).__name__}")
        if not pattern:
            raise InvalidArgument("pattern must not be empty")
        try:
            source = pattern.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidArgument(f"pattern is not valid UTF-8 text: {pattern!r}") from None
        flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)
        try:
            re.compile(source, flags)  # the contract is Python's re syntax
            self.compiled = regex.compile(source, flags | regex.VERSION0)
        except (re.error, regex.error) as exc:
            raise InvalidArgument(f"pattern does not compile: {exc}") from None
        except (OverflowError, RecursionError, ValueError) as exc:
            raise InvalidArgument(f"pattern is too complex: {exc}") from None
        self.pattern = pattern
        self.reach = reach
        self.keep_before = reach
        self.margin = 2 * reach
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout
        self.literal, self.prefix_width = _analyse(source, flags, reach)
        self._tried = -1  # last buffer position tried by the prefilter (reset per buffer state by the caller)

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

    def _remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return left

    def _accept(self, buf: bytearray, start: int, end: int, at_end: bool, base: int) -> tuple[int, int]:
        if not at_end and end > len(buf) - self.reach:
            raise PatternTooLong(
                f"a match of {self.pattern!r} at byte {base + start} is longer than the reach bound of {self.reach} "
                f"bytes; narrow the pattern (e.g. [^\\n]{{0,200}} instead of .*) or resume with offset={base + end}",
                resume_offset=base + start,
            )
        return start, end

    def _scan(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        for m in self.compiled.finditer(buf, pos, timeout=self._remaining()):
            start, end = m.span()
            if start >= limit:
                return None
            if end > start:
                return self._accept(buf, start, end, at_end, base)
        return None

    def _prefiltered(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        literal, width = self.literal, self.prefix_width
        tried = pos - 1
        search_from = pos
        while True:
            found = buf.find(literal, search_from)
            if found < 0 or found - width >= limit:
                return None
            for start in range(max(tried + 1, found - width), found + 1):
                if start >= limit:
                    return None
                m = self.compiled.match(buf, start, timeout=self._remaining())
                if m is not None and m.end() > start:
                    return self._accept(buf, start, m.end(), at_end, base)
            tried = found
            search_from = found + 1


def _analyse(source: bytes, flags: int, reach: int) -> tuple[bytes | None, int]:
    """Check lookaround widths against ``reach`` and pick a required literal for the prefilter.

    Returns ``(literal, prefix_width)``: a byte string every match contains, beginning at most ``prefix_width`` bytes
    after the match start, or ``(None, 0)``.

    Raises:
        InvalidArgument: ``\\G``, or a lookaround that can reach past ``reach`` bytes.
    """
    try:
        tree = _sre_parse.parse(source, flags)
    except Exception:  # pragma: no cover - re.compile accepted it, so the parser does too
        return None, 0
    _check_lookarounds(tree, reach)
    if tree.state.flags & re.IGNORECASE:
        return None, 0
    best: tuple[bytes, int] | None = None
    width = 0  # max width of the items before the current one
    run = bytearray()
    run_start_width = 0
    for op, av in [*list(tree), (None, None)]:
        if op is _sre_parse.LITERAL:
            if not run:
                run_start_width = width
            run.append(av)
            width += 1
            continue
        if run and (best is None or len(run) > len(best[0])) and run_start_width <= MAX_PREFIX_BYTES:
            best = (bytes(run), run_start_width)
        run = bytearray()
        if op is None:
            break
        item = _sre_parse.SubPattern(tree.state, [(op, av)])
        width += item.getwidth()[1]
        if width > MAX_PREFIX_BYTES:
            break
    return (best[0], best[1]) if best else (None, 0)


def _check_lookarounds(tree, reach: int) -> None:
    for op, av in tree:
        if op in (_sre_parse.ASSERT, _sre_parse.ASSERT_NOT):
            _direction, sub = av
            if sub.getwidth()[1] > reach:
                raise InvalidArgument(
                    f"the pattern has a lookaround that can reach more than {reach} bytes; bound it (e.g. .{{0,80}})"
                )
            _check_lookarounds(sub, reach)
        elif op is _sre_parse.BRANCH:
            for sub in av[1]:
                _check_lookarounds(sub, reach)
        elif op in (_sre_parse.MAX_REPEAT, _sre_parse.MIN_REPEAT, getattr(_sre_parse, "POSSESSIVE_REPEAT", None)):
            _check_lookarounds(av[2], reach)
        elif op is _sre_parse.SUBPATTERN:
            _check_lookarounds(av[-1], reach)
        elif op is getattr(_sre_parse, "ATOMIC_GROUP", None):
            _check_lookarounds(av, reach)
        elif op is _sre_parse.GROUPREF_EXISTS:
            for sub in av[1:]:
                if sub is not None:
                    _check_lookarounds(sub, reach)


class _Lines:
    """Counts lines incrementally as the search moves forward through the buffer."""

    __slots__ = ("line", "offset")

    def __init__(self, offset: int, line: int) -> None:
        self.offset = offset
        self.line = line

    def at(self, buf: bytearray, base: int, offset: int) -> int:
        """1-based line of content byte ``offset`` (not before the last one asked for, nor outside the buffer)."""
        if offset > self.offset:
            self.line += buf.count(b"\n", self.offset - base, offset - base)
            self.offset = offset
        return self.line


def search(reader: SeekableReader, matcher: Matcher, start: int, context: int, max_matches: int, budget: int,
           line_of_frame) -> SearchResult:
    """Find matches at or after byte ``start`` and cut merged context windows around them.

    Args:
        reader: the blob.
        matcher: what to find.
        start: content offset where the search starts (matches start at or after it; context may reach before).
        context: bytes of context on each side of a match.
        max_matches: most matches returned.
        budget: most bytes all windows together may hold; needs ``budget >= 2 * context + longest match``.
        line_of_frame: ``f(frame index) -> 1-based line number of the frame's first byte``.

    Returns:
        :class:`SearchResult`; its ``next_offset`` is the first match not returned, or ``None`` when none is left.

    Raises:
        FormatError: a damaged frame. PatternTimeout, PatternTooLong: from a :class:`PatternMatcher`.
    """
    table = reader.table
    size = table.size
    if start >= size:
        return SearchResult([], None)
    first = table.frame_at(max(0, start - max(context, matcher.keep_before)))
    base = table.d_offsets[first]  # content offset of buf[0]
    buf = bytearray()
    lines = _Lines(base, line_of_frame(first))
    pos = start  # content offset where the next match may start
    windows: list[Window] = []
    open_lo = open_hi = -1  # the window being built: content offsets
    open_hits: list[Hit] = []
    used = hits = 0
    next_offset: int | None = None

    def close() -> None:
        nonlocal open_hits
        data = bytes(buf[open_lo - base : open_hi - base])
        windows.append(Window(open_hits[0].offset, open_lo, data, open_hits[0].line, tuple(open_hits)))
        open_hits = []

    frame = first
    while frame < table.frames:
        buf += reader.frame(frame)
        frame += 1
        end = base + len(buf)
        at_end = end >= size
        if next_offset is None:
            limit = size if at_end else end - matcher.margin
            while pos < limit:
                found = matcher.find(buf, pos - base, limit - base, at_end, base)
                if found is None:
                    pos = limit  # no match starts before the limit
                    break
                m_start, m_end = base + found[0], base + found[1]
                lo, hi = max(0, m_start - context), min(size, m_end + context)
                merge = bool(open_hits) and lo <= open_hi
                cost = (max(hi, open_hi) - open_hi) if merge else hi - lo
                if hits == max_matches or used + cost > budget:
                    next_offset = m_start
                    break
                if open_hits and not merge:
                    close()
                hit = Hit(m_start, m_end - m_start, lines.at(buf, base, m_start))
                if merge:
                    open_hi = max(open_hi, hi)
                else:
                    open_lo, open_hi = lo, hi
                open_hits.append(hit)
                used += cost
                hits += 1
                pos = m_end
        if next_offset is not None or at_end:
            if not open_hits or open_hi <= end:
                break
            continue  # read on until the open window's right context is in the buffer
        # trim what no later match, window or line count can need
        keep = min(pos - max(context, matcher.keep_before), open_lo if open_hits else pos)
        if keep > base:
            lines.at(buf, base, keep)
            del buf[: keep - base]
            base = keep
    if open_hits:
        close()
    return SearchResult(windows, next_offset)
