"""Streaming search over a seekable blob, frame by frame: substring matches and regular-expression patterns.

The content is decompressed one frame at a time into a sliding buffer; matches are found in the buffer and cut into
windows of context, and the buffer is trimmed behind the search, so memory stays at about one frame plus the reach
bound, the context and the windows being built, whatever the blob's size.

Semantics (what the results equal):

* **Substrings** (:class:`LiteralMatcher`): non-overlapping occurrences, left to right, the search resuming after
  each one -- the offsets a ``bytes.find`` loop reports, wherever they fall (across frame boundaries included).
* **Patterns** (:class:`PatternMatcher`): the non-empty matches of ``re.finditer(pattern, content, re.MULTILINE)``
  over the whole content (bytes semantics: ``.`` is one byte, ``\\w`` and ``(?i)`` are ASCII). A pattern that can
  never match ``\\n`` (most grep-style patterns) is decided line by line, exactly, for lines up to
  :data:`MAX_LINE_BYTES`. A pattern that can match ``\\n`` is exact for every match whose *reach* -- the match plus
  any lookaround -- fits :data:`MAX_REACH_BYTES` (16 KiB): a match is accepted only when twice that bound of content
  follows it in the buffer; one that runs into the margin raises :class:`~scratchfs.errors.PatternTooLong` instead
  of being missed (see :class:`PatternMatcher` for the checks). The syntax is Python's ``re`` (checked by compiling
  with ``re``); the engine is the ``regex`` package, for its per-call ``timeout``: a pattern that backtracks past
  the time limit raises :class:`~scratchfs.errors.PatternTimeout` saying where to resume.
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

from scratchfs.engine.seekable import SeekableReader
from scratchfs.foundation.errors import InvalidArgument, PatternTimeout, PatternTooLong

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

    def limit(self, buf: bytearray, pos: int, at_end: bool, base: int) -> int:
        """Buffer index before which a match start found in this buffer is final."""
        ...

    def find(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        """The first match starting in ``buf[pos:limit]`` as ``(start, end)`` buffer indices, or ``None``.

        ``at_end``: the buffer ends where the content ends. ``base``: the buffer's offset in the content (for errors).
        """
        ...

    def skippable(self, buf: bytearray, base: int, pos: int, data: bytes, frame_start: int) -> int:
        """If no match starting at or after content offset ``pos`` can lie in ``buf`` (content from ``base``) plus
        the next frame ``data`` (content from ``frame_start``, where ``buf`` ends), the longest match in bytes, so
        the search may drop all but that much of the frame's end unread; else 0."""
        ...


class LiteralMatcher:
    """Non-overlapping occurrences of a byte string (``bytes.find``)."""

    keep_before = 0

    def __init__(self, needle: bytes) -> None:
        if not needle:
            raise InvalidArgument("match must not be empty")
        self.needle = needle

    def limit(self, buf: bytearray, pos: int, at_end: bool, base: int) -> int:
        return len(buf) if at_end else len(buf) - len(self.needle) + 1

    def find(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        found = buf.find(self.needle, pos)
        if found < 0 or found >= limit:
            return None
        return found, found + len(self.needle)

    def skippable(self, buf: bytearray, base: int, pos: int, data: bytes, frame_start: int) -> int:
        """No occurrence in the frame itself nor at its seam with ``buf`` (checked without joining them): the
        needle's length; else 0."""
        needle = self.needle
        width = len(needle)
        if data.find(needle, max(0, pos - frame_start)) >= 0:
            return 0
        if width > 1 and len(buf):
            seam_from = max(pos, frame_start - width + 1, base)
            if (bytes(buf[seam_from - base :]) + data[: width - 1]).find(needle) >= 0:
                return 0
        return width


MAX_LINE_BYTES = 4 * 1024 * 1024
"""Longest line a line-bound pattern search holds whole, in bytes; a longer line raises PatternTooLong."""


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

    Args:
        pattern: Python ``re`` syntax, applied to the content's bytes with ``re.MULTILINE``.
        ignore_case: ASCII case-insensitive matching.
        timeout: seconds this matcher may spend in the regex engine over its whole life (one search call).
        reach: the reach bound in bytes (:data:`MAX_REACH_BYTES`; tests use smaller ones).

    Raises:
        InvalidArgument: the pattern is not text, does not compile, or has a lookbehind longer than ``reach``.
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
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        analysis = _analyse(source, flags, reach)
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

    def _remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return left

    def _too_long(self, base: int, start: int) -> PatternTooLong:
        return PatternTooLong(
            f"a match of {self.pattern!r} near byte {base + start} may be longer than the reach bound of "
            f"{self.reach} bytes; bound the pattern (e.g. [^\\n]{{0,200}} instead of [\\s\\S]*) or resume after "
            f"it with offset={base + start + 1}",
            resume_offset=base + start,
        )

    def _accept(self, buf: bytearray, m, at_end: bool, base: int) -> tuple[int, int]:
        start, end = m.span()
        if at_end or start < self._certain:
            return start, end
        # reach mode: the match must not depend on the end of the buffer
        if m.partial or end > len(buf) - self.reach:
            raise self._too_long(base, start)
        again = self.compiled.match(buf, start, len(buf) - self.reach, partial=True, timeout=self._remaining())
        if again is None or again.partial or again.span() != (start, end):
            raise self._too_long(base, start)
        return start, end

    def _scan(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        partial = self.mode == "reach" and not at_end
        # a line-bound pattern is decided by whole lines: the engine need not look past the last complete one
        endpos = limit if self.mode == "lines" else len(buf)
        for m in self.compiled.finditer(buf, pos, endpos, partial=partial, timeout=self._remaining()):
            start, end = m.span()
            if start >= limit:
                return None
            if end > start or m.partial:
                return self._accept(buf, m, at_end, base)
        return None

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
                m = self.compiled.match(buf, start, endpos, partial=partial, timeout=self._remaining())
                if m is not None and (m.end() > start or m.partial):
                    return self._accept(buf, m, at_end, base)
            tried = found
            search_from = found + 1


@dataclass(frozen=True, slots=True)
class _Analysis:
    literal: bytes | None  # a byte string every match contains ...
    prefix_width: int  # ... beginning at most this many bytes after the match start
    crosses_lines: bool  # some part of the pattern (lookarounds included) can match b"\n"
    reach: int | None  # longest match plus lookahead, in bytes; None if unbounded


def _analyse(source: bytes, flags: int, reach: int) -> _Analysis:
    """Analyse a pattern with the parser behind ``re``.

    Raises:
        InvalidArgument: a lookbehind longer than ``reach``.
    """
    try:
        tree = _sre_parse.parse(source, flags)
    except Exception:  # pragma: no cover - re.compile accepted it, so the parser does too
        return _Analysis(None, 0, True, None)
    dotall = bool(tree.state.flags & re.DOTALL)
    crosses, lookahead = _walk(tree, dotall, reach)
    width = tree.getwidth()[1]
    total = None if lookahead is None or width >= _sre_parse.MAXREPEAT else width + lookahead
    literal, prefix = (None, 0) if tree.state.flags & re.IGNORECASE else _required_literal(tree)
    return _Analysis(literal, prefix, crosses, total)


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


_LINE_CATEGORIES = {"CATEGORY_SPACE", "CATEGORY_NOT_DIGIT", "CATEGORY_NOT_WORD", "CATEGORY_LINEBREAK",
                    "CATEGORY_UNI_SPACE", "CATEGORY_UNI_NOT_DIGIT", "CATEGORY_UNI_NOT_WORD", "CATEGORY_UNI_LINEBREAK",
                    "CATEGORY_LOC_NOT_WORD"}


def _op(constant: object) -> str:
    """The name of an ``re`` parser constant (``LITERAL``, ``CATEGORY_SPACE``, ...)."""
    return getattr(constant, "name", str(constant))


def _class_has_newline(items) -> bool:
    negate = False
    hit = False
    for op, av in items:
        name = _op(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            hit = hit or av == 10
        elif name == "RANGE":
            hit = hit or av[0] <= 10 <= av[1]
        elif name == "CATEGORY":
            hit = hit or _op(av) in _LINE_CATEGORIES
        else:  # pragma: no cover - unknown set item: assume the worst
            hit = True
    return hit != negate


def _walk(tree, dotall: bool, reach: int) -> tuple[bool, int | None]:
    """``(some part can match b"\n", summed max widths of the lookaheads or None if unbounded)``; checks that
    every lookbehind fits ``reach``."""
    crosses = False
    lookahead: int | None = 0
    for op, av in tree:
        name = _op(op)
        sub_results: list[tuple[bool, int | None]] = []
        if name == "LITERAL":
            crosses = crosses or av == 10
        elif name == "NOT_LITERAL":
            crosses = crosses or av != 10
        elif name == "ANY":
            crosses = crosses or dotall
        elif name == "IN":
            crosses = crosses or _class_has_newline(av)
        elif name in ("ASSERT", "ASSERT_NOT"):
            direction, sub = av
            width = sub.getwidth()[1]
            if direction < 0 and width > reach:
                raise InvalidArgument(f"the pattern has a lookbehind longer than {reach} bytes")
            inner = _walk(sub, dotall, reach)
            sub_results.append(inner)
            if direction > 0 and lookahead is not None:
                lookahead = None if width >= _sre_parse.MAXREPEAT else lookahead + width
        elif name == "BRANCH":
            sub_results += [_walk(sub, dotall, reach) for sub in av[1]]
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            sub_results.append(_walk(av[2], dotall, reach))
        elif name == "SUBPATTERN":
            add, remove = av[1], av[2]
            flags_dotall = (dotall or bool(add & re.DOTALL)) and not (remove & re.DOTALL)
            sub_results.append(_walk(av[-1], flags_dotall, reach))
        elif name == "ATOMIC_GROUP":
            sub_results.append(_walk(av, dotall, reach))
        elif name == "GROUPREF_EXISTS":
            sub_results += [_walk(sub, dotall, reach) for sub in av[1:] if sub is not None]
        elif name == "GROUPREF":
            crosses = True  # a backreference matches whatever its group matched: assume the worst
        elif name not in ("AT", "GROUPREF_IGNORE", "GROUPREF_LOC_IGNORE", "GROUPREF_UNI_IGNORE"):
            crosses = True  # pragma: no cover - an op this analysis does not know: assume the worst
        for sub_crosses, sub_lookahead in sub_results:
            crosses = crosses or sub_crosses
            if sub_lookahead is None or lookahead is None:
                lookahead = None
            else:
                lookahead += sub_lookahead
    return crosses, lookahead


class _Lines:
    """1-based line numbers of buffer positions, from the per-frame line counts: counted from the start of the
    position's frame or back from its end, whichever is nearer, so no byte is counted twice over a search."""

    __slots__ = ("d_offsets", "frame_at", "line_of_frame")

    def __init__(self, reader: SeekableReader, line_of_frame) -> None:
        self.d_offsets = reader.table.d_offsets
        self.frame_at = reader.table.frame_at
        self.line_of_frame = line_of_frame

    def at(self, buf: bytearray, base: int, offset: int) -> int:
        """Line of content byte ``offset``, which lies in a frame appended whole to ``buf`` (``buf[0]`` is content
        byte ``base``)."""
        frame = self.frame_at(offset)
        start, end = self.d_offsets[frame], self.d_offsets[frame + 1]
        if start >= base and offset - start <= end - offset:
            return self.line_of_frame(frame) + buf.count(b"\n", start - base, offset - base)
        return self.line_of_frame(frame + 1) - buf.count(b"\n", offset - base, end - base)


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
        A first match whose window would not fit ``budget`` comes cut to the budget (its :class:`Hit` keeps its
        whole length), so a search always gets past it.
        When a pattern error (time limit, reach) comes after some matches were found, those are returned and
        ``next_offset`` is where the error stood, so the next call meets it.

    Raises:
        FormatError: a damaged frame. PatternTimeout, PatternTooLong: from a :class:`PatternMatcher`, before any
            match was found.
    """
    table = reader.table
    size = table.size
    if start >= size:
        return SearchResult([], None)
    first = table.frame_at(max(0, start - max(context, matcher.keep_before)))
    base = table.d_offsets[first]  # content offset of buf[0]
    buf = bytearray()
    lines = _Lines(reader, line_of_frame)
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

    for frame_start, data in reader.iter_frames(first, batch_bytes=1024 * 1024):
        end = frame_start + len(data)
        width = 0
        if next_offset is None and end < size:
            width = matcher.skippable(buf, base, pos, data, frame_start)
        if width and (not open_hits or (open_hi <= frame_start and end - width + 1 - context > open_hi)):
            # no match starts in this frame or at its seam: keep only the tail later matches may need (context
            # before them, and a match's start), without copying the frame into the buffer; a window still open
            # is complete and no later match can reach it
            if open_hits:
                close()
            tail = context + width
            buf = (buf + data)[-tail:] if len(data) < tail else bytearray(data[len(data) - tail :])
            base = end - len(buf)
            pos = max(pos, end - width + 1)
            continue
        buf += data
        end = base + len(buf)
        at_end = end >= size
        if next_offset is None:
            try:
                limit = base + matcher.limit(buf, pos - base, at_end, base)
            except (PatternTimeout, PatternTooLong) as exc:
                if not hits:
                    raise
                next_offset = exc.resume_offset  # return what was found; the next call meets the error
                limit = pos
            while pos < limit:
                try:
                    found = matcher.find(buf, pos - base, limit - base, at_end, base)
                except (PatternTimeout, PatternTooLong) as exc:
                    if not hits:
                        raise
                    next_offset = exc.resume_offset
                    break
                if found is None:
                    pos = limit  # no match starts before the limit
                    break
                m_start, m_end = base + found[0], base + found[1]
                lo, hi = max(0, m_start - context), min(size, m_end + context)
                merge = bool(open_hits) and lo <= open_hi
                cost = (max(hi, open_hi) - open_hi) if merge else hi - lo
                if not hits and cost > budget:  # one match too long for any window: show its start, go on past it
                    hi = lo + budget
                    cost = budget
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
            del buf[: keep - base]
            base = keep
    if open_hits:
        close()
    return SearchResult(windows, next_offset)


__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_LINE_BYTES",
    "MAX_PREFIX_BYTES",
    "MAX_REACH_BYTES",
    "Hit",
    "LiteralMatcher",
    "Matcher",
    "PatternMatcher",
    "SearchResult",
    "Window",
    "search",
]
