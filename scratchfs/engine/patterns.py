"""Regular-expression patterns for the streaming search: the analysis of a pattern and its matcher.

**One parser.** What a pattern means is decided once, by the parser behind Python's ``re``
(:mod:`scratchfs.engine.pattern_syntax`): its tree is analysed here -- the literal every match contains (the
prefilter), whether a match can span a line end, how far a match and its lookahead reach -- and the *same tree*,
written out in a core syntax, is what the engine compiles. The engine cannot read a construct differently from the
analysis (``[[:alpha:]]`` is a POSIX class to ``regex`` and five bytes and a ``]`` to ``re``); such syntax is
refused with InvalidArgument, as are patterns beyond the compile bounds (``a{100000000}``).

**The engine** is the ``regex`` package (a well-kept, widely used PyPI package): unlike ``re`` it takes a time limit
and ``concurrent=True``, which releases the GIL while it matches, so a search never stalls the process's other
threads; a call that outlasts a short slice finishes in a worker process stopped at the search's deadline
(:mod:`scratchfs.engine.pattern_worker`).

See :mod:`scratchfs.engine.search` for how the matcher is used (frames, buffer, windows).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from functools import lru_cache

import regex

from scratchfs.engine.pattern_finder import first_bytes, nonempty_core, opens_optionally
from scratchfs.engine.pattern_scan import PathScan, scan_paths
from scratchfs.engine.pattern_syntax import MAXREPEAT, parse, write_core
from scratchfs.engine.pattern_unicase import unicase_pattern
from scratchfs.engine.pattern_worker import FLAGS, Engine, Sent, Span
from scratchfs.engine.worker_pipe import PoolBusy
from scratchfs.foundation import limits
from scratchfs.foundation.errors import InvalidArgument, PatternMatchesEmpty, PatternTimeout, PatternTooLong, SearchOn
from scratchfs.foundation.text import shorten

try:  # the parser behind `re`: its tree's node kinds, for the required literal
    from re import _parser as _sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

__all__ = [
    "COMPILED_PATTERNS",
    "DEFAULT_TIMEOUT",
    "MAX_LINE_BYTES",
    "MAX_PREFIX_BYTES",
    "MAX_REACH_BYTES",
    "PIECE_BYTES",
    "Analysis",
    "PatternMatcher",
    "compile_pattern",
    "compiled_pattern",
]

MAX_REACH_BYTES = 16 * 1024
"""Longest reach (match plus lookaround) a pattern match may have, in bytes; a longer match raises PatternTooLong."""
MAX_PREFIX_BYTES = 256
"""Largest distance from a match's start to its required literal for the prefilter to be used, in bytes."""
_NAMED_CHARS = 200  # a pattern named in an error, at most (a tool error's text is cut at 2 KiB: the offsets after it
# must survive a 4,096-byte pattern)
PIECE_BYTES = 16 * 1024
"""About the most bytes of whole lines one engine call decides for a line-bound pattern with no literal part: a time
limit met there names those lines (or the one line a prefiltered match was tried in), so that searching on past them
leaves few matches unsearched (a buffer's lines, 70-130 KB in a trial, before)."""
DENSE_WINDOW = 64 * 1024
"""Bytes over which a pattern's required literal is counted to judge it dense (:data:`DENSE_SHARE`)."""
DENSE_SHARE = 64
"""A required literal is dense where the bytes a match holding one of its occurrences can start at cover at least
1/DENSE_SHARE of a :data:`DENSE_WINDOW`: one search from the first of them tries every byte in one engine call, at
most DENSE_SHARE times as many bytes as the anchored calls at each of those would try, at C speed (~10-50 ns a
byte, where a call costs ~10 us of Python); a pattern slow at every byte meets the time limit either way."""
MAX_LINE_BYTES = 4 * 1024 * 1024
"""Longest line a line-bound pattern search holds whole, in bytes; a longer line raises PatternTooLong."""
DEFAULT_TIMEOUT = limits.PATTERN_TIMEOUT
"""Default time limit of one pattern search, in seconds (:data:`scratchfs.foundation.limits.PATTERN_TIMEOUT`)."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the streaming search needs to know of a pattern.

    Attributes:
        literal: a byte string every match contains, or ``None`` ...
        prefix_width: ... beginning at most this many bytes after the match start.
        crosses_lines: some part of the pattern (lookarounds included) can match or look at ``b"\\n"`` beyond its
            own line.
        reach: longest match plus lookahead, in bytes; ``None`` if unbounded.
        starts: for a pattern that matches empty text (or has no ``literal`` and a first item that can match empty
            text, which ``regex`` tries at every byte), the bytes a non-empty match can begin with
            (:func:`~scratchfs.engine.pattern_finder.first_bytes`; empty: it matches nothing but empty text);
            ``None`` for any other pattern, or when not known.
        finder: for such a pattern, when it can match non-empty text, the core syntax of a pattern that
            finds each place where a non-empty match can begin
            (:func:`~scratchfs.engine.pattern_finder.nonempty_core`); ``None`` for any other, or when not known.
        line_literal: the longest byte string every match contains wherever in it (``Error`` of
            ``(?:class|def) [A-Z]\\w*Error``, whose ``literal`` is its space), or ``None``: a line-bound search
            passes over each line that lacks it.
    """

    literal: bytes | None
    prefix_width: int
    crosses_lines: bool
    reach: int | None
    starts: frozenset[int] | None = None
    finder: bytes | None = None
    line_literal: bytes | None = None


def compile_pattern(pattern: str, ignore_case: bool, reach: int) -> tuple[regex.Pattern, Analysis]:
    """Parse ``pattern`` (Python ``re`` syntax over bytes, ``re.MULTILINE``; under ``ignore_case`` or ``(?i)`` a
    character with case variants beyond ASCII matches each of them, as ``re`` over text:
    :func:`~scratchfs.engine.pattern_unicase.unicase_pattern`), check its bounds, analyse it and compile the
    core-syntax form of the same tree with ``regex``.

    Returns:
        ``(compiled, analysis)``: the engine's pattern (bytes, ``regex.VERSION0``) and its :class:`Analysis`.

    Raises:
        InvalidArgument: from :func:`~scratchfs.engine.pattern_syntax.parse` and
            :func:`~scratchfs.engine.pattern_syntax.write_core` and
            :func:`~scratchfs.engine.pattern_unicase.unicase_pattern` (not text, empty, not UTF-8, too long, does not
            compile, ambiguous syntax, beyond a compile bound, a lookbehind longer than ``reach`` bytes).
        PatternMatchesEmpty: (an InvalidArgument) a pattern that matches empty text and non-empty text too, with no
            finder (:func:`~scratchfs.engine.pattern_finder.nonempty_core`).
    """
    tree = parse(unicase_pattern(pattern, ignore_case), ignore_case)
    core, crosses, lookahead = write_core(tree, reach)
    try:
        compiled = regex.compile(core, FLAGS, cache_pattern=False)
    except regex.error as exc:  # pragma: no cover - the core syntax is what regex accepts
        raise InvalidArgument(f"pattern does not compile: {exc}") from None
    except (OverflowError, RecursionError, MemoryError) as exc:
        raise InvalidArgument(f"pattern is too complex: {type(exc).__name__}") from None
    width = tree.getwidth()[1]
    total = None if lookahead is None or width >= MAXREPEAT else width + lookahead
    literal, prefix = (None, 0) if tree.state.flags & re.IGNORECASE else _required_literal(tree)
    anywhere = None if literal is None else _required_literal(tree, MAXREPEAT)[0]
    # a pattern that matches empty text (no required literal), or one with no literal whose first item may match
    # empty text ((a)?\1: regex tries it at every byte, 1.6 s a 20 MB here; its finder (a)\1 takes 0.07 s)
    found = tree.getwidth()[0] == 0 or (literal is None and opens_optionally(tree))
    starts = first_bytes(tree) if found else None
    finder = nonempty_core(tree, reach) if starts else None
    if tree.getwidth()[0] == 0 and (starts is None or (starts and finder is None)):
        raise _unsearchable(pattern)
    return compiled, Analysis(literal, prefix, crosses, total, starts, finder, anywhere)


def _unsearchable(pattern: str) -> PatternMatchesEmpty:
    """The refusal of a pattern that matches empty text and has no finder (see :class:`PatternMatchesEmpty`)."""
    return PatternMatchesEmpty(
        f"pattern {shorten(pattern, _NAMED_CHARS)} matches empty text, and where its non-empty matches begin cannot "
        "be found ahead (a backreference to a group captured inside a lookaround): it would be tried at every byte. "
        "Write it so that it cannot match empty text -- a group it needs made required ((a)\\1 rather than "
        "(a)?\\1), + rather than * -- or capture the group outside the lookaround")


COMPILED_PATTERNS = 32
"""Patterns kept compiled (:func:`compiled_pattern`): a search's next pages, and a needle searched in terminal
output's view (a pattern of about 1 KiB a character: 10 ms to compile for 8 characters, 25 ms for 12), compile once."""


@lru_cache(maxsize=COMPILED_PATTERNS)
def compiled_pattern(pattern: str, ignore_case: bool, reach: int) -> tuple[regex.Pattern, Analysis]:
    """:func:`compile_pattern`, its last :data:`COMPILED_PATTERNS` answers kept (both parts are immutable; a regex
    pattern is used by any number of threads at once). Raises what :func:`compile_pattern` raises (not kept)."""
    return compile_pattern(pattern, ignore_case, reach)


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
        ignore_case: case-insensitive matching, as ``re.IGNORECASE`` over the text (see :func:`compile_pattern`).
        timeout: seconds this matcher may spend in the regex engine over its whole life (one search call).
        reach: the reach bound in bytes (:data:`MAX_REACH_BYTES`; tests use smaller ones).
        named: what a :class:`PatternTimeout`'s message calls the search (``None``: ``pattern <the pattern,
            shortened>``; a rendered needle's matcher names the needle, not the pattern made of it).

    Raises:
        InvalidArgument: from :func:`compile_pattern` (does not compile, ambiguous, beyond a bound, a lookbehind
            longer than ``reach``).
    """

    def __init__(self, pattern: str, ignore_case: bool = False, timeout: float = DEFAULT_TIMEOUT,
                 reach: int = MAX_REACH_BYTES, named: str | None = None) -> None:
        kept = isinstance(pattern, str) and isinstance(ignore_case, bool)  # (else hashed would raise TypeError)
        self.compiled, analysis = (compiled_pattern if kept else compile_pattern)(pattern, ignore_case, reach)
        self.pattern = pattern
        self.named = named
        self.reach = reach
        self.keep_before = reach
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        sent = Sent()  # (the buffer goes to a worker once for the pattern and its finder)
        self.engine = Engine(self.compiled, self.deadline, timeout, sent)
        self._deciding: tuple[int, int | None] = (0, 0)  # the match starts the engine is deciding (see find)
        self.literal, self.prefix_width = analysis.literal, analysis.prefix_width
        self.line_literal = analysis.line_literal
        # a pattern matching empty text: the engine runs only at the bytes a non-empty match can begin with (each
        # empty match between them cost a trip through Python: 5 s timed out 5 MB into 64 MiB for "(?:)", "q*")
        self.starts = None if not analysis.starts or len(analysis.starts) == 256 else re.compile(
            b"[" + b"".join(b"\\x%02x" % value for value in sorted(analysis.starts)) + b"]")
        self.empty_only = analysis.starts == frozenset()  # ("\\b", "(?=a)", "(?:)": never a non-empty match)
        # ... and where a pattern finds each place a non-empty match can begin (a byte of "e" need not start one of
        # "(?:eq)*": each such byte cost a trip through Python too, 5 s into 64 MiB of text), it runs only there
        self.finder = None if analysis.finder is None or self.empty_only else Engine(
            regex.compile(analysis.finder, FLAGS, cache_pattern=False), self.deadline, timeout, sent)
        self.scan = None if self.finder is None else PathScan(scan_paths(analysis.finder, reach), self.finder.compiled)
        if not analysis.crosses_lines:
            self.mode = "lines"
        elif analysis.reach is not None and analysis.reach <= reach:
            self.mode = "bounded"
        else:
            self.mode = "reach"
        self._certain = 0  # buffer index before which matches need no checks (set by limit())
        self._density = (0, False)  # (content offset up to which the answer of _dense holds, that answer)

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
        self._deciding = (pos, limit)  # narrowed by the line-bound scans: a piece of lines, a prefiltered line
        if self.empty_only:
            return None
        try:
            if self.starts is not None or self.finder is not None:
                return self._at_starts(buf, pos, limit, at_end, base)
            if self.literal is None:
                return self._scan(buf, pos, limit, at_end, base)
            return self._prefiltered(buf, pos, limit, at_end, base)
        except TimeoutError as exc:
            raise self._timed_out(buf, limit, base, isinstance(exc, PoolBusy)) from None
        except MemoryError:  # (regex backtracking a repeated group that can match empty -- (?:(a?)?)*z over 3 MB of
            raise self._timed_out(buf, limit, base, None) from None  # "a", tests/test_pattern_runaway.py -- told)

    def _timed_out(self, buf: bytearray, limit: int, base: int, busy: bool | None) -> PatternTimeout:
        """The error of a search stopped at its time limit while deciding the match starts :attr:`_deciding`;
        ``busy``: it waited for a worker the whole time (a call that may be given up finding every one busy);
        ``None``: the regex engine ran out of memory backtracking (a PatternTimeout too: the same runaway)."""
        first, last = self._deciding
        if last is None:  # the line of a prefiltered start
            last = buf.find(b"\n", first, limit) + 1 or limit
        start, past = base + first, base + max(last, first + 1)  # the match starts it was deciding
        named = self.named or f"pattern {shorten(self.pattern, _NAMED_CHARS)}"
        if busy:
            what = (f"{named} was stopped at its time limit of {self.timeout:g} s deciding the matches that start in "
                    f"bytes {start}-{past}: every regex worker was busy with other searches; search again from "
                    f"offset={start} once they end, or ")
        elif busy is None:
            what = (f"{named} ran out of the regex engine's memory backtracking over the matches that start in bytes "
                    f"{start}-{past} (it would again from offset={start}): use a pattern with a literal part or less "
                    "backtracking (no repeat of a group that can match empty text), or ")
        else:
            what = (f"{named} ran past its time limit of {self.timeout:g} s deciding the matches that start in bytes "
                    f"{start}-{past} (it would time out again from offset={start}): use a pattern with a literal part "
                    "or less backtracking, or ")
        return PatternTimeout(SearchOn(what, "search on past them", past, ", their matches unsearched"),
                              resume_offset=start)

    def skippable(self, buf: bytearray, base: int, pos: int, data: bytes, frame_start: int) -> int:
        """Never: a pattern's matches are decided in the buffer (its literal prefilter works there)."""
        return 0

    def _too_long(self, base: int, start: int) -> PatternTooLong:
        return PatternTooLong(SearchOn(
            f"a match of {shorten(self.pattern, _NAMED_CHARS)} near byte {base + start} may be longer than the "
            f"reach bound of {self.reach} bytes; bound the pattern (e.g. [^\\n]{{0,200}} instead of [\\s\\S]*) or ",
            "resume after it", base + start + 1),
            resume_offset=base + start,
        )

    def _accept(self, buf: bytearray, span: Span, at_end: bool, base: int, first: bool = False) -> tuple[int, int]:
        """``span`` if final; ``first``: it is the engine's first non-empty match from its start (``engine.first``),
        not its anchored match (which may be empty there: ``a*|\n`` at a newline), and is checked as such."""
        start, end, partial = span
        if at_end or start < self._certain:
            return start, end
        # reach mode: the match must not depend on the end of the buffer
        if partial or end > len(buf) - self.reach:
            raise self._too_long(base, start)
        again = (self.engine.first(buf, start, len(buf) - self.reach, True, start + 1) if first else
                 self.engine.match(buf, start, len(buf) - self.reach, True))
        if again != (start, end, False):
            raise self._too_long(base, start)
        return start, end

    def _scan(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        if self.mode == "lines":  # a piece of whole lines at a time (PIECE_BYTES): no match crosses a line end, and
            while pos < limit:  # the engine need not look past the piece's last line
                end = limit
                if limit - pos > PIECE_BYTES:
                    end = buf.find(b"\n", pos + PIECE_BYTES - 1, limit) + 1 or limit
                self._deciding = (pos, end)
                found = self.engine.first(buf, pos, end, False, end)
                if found is not None:
                    return self._accept(buf, found, at_end, base, first=True)
                pos = end
            return None
        partial = self.mode == "reach" and not at_end
        found = self.engine.first(buf, pos, len(buf), partial, limit)
        return None if found is None else self._accept(buf, found, at_end, base, first=True)

    def _at_starts(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        """The first non-empty match of a pattern that matches empty text (or has no literal and an optional first
        item): the engine asked only where one can begin -- the finder's matches, the places the scan of the bytes
        its ways need finds (:class:`~scratchfs.engine.pattern_scan.PathScan`), or the bytes it can begin with
        (:attr:`starts`) -- for a match starting there; exact, as no non-empty match starts elsewhere."""
        partial = self.mode == "reach" and not at_end
        while pos < limit:
            if self.scan is not None and self.scan.used(buf, pos):  # the bytes every match needs
                start = self.scan.next(buf, pos, limit, self.deadline - time.monotonic())
            elif self.finder is not None:  # (a match of the finder is non-empty and may end past limit)
                found = self.finder.first(buf, pos, limit if self.mode == "lines" else len(buf), partial, limit)
                start = None if found is None else found[0]
            else:
                found = self.starts.search(buf, pos, limit)
                start = None if found is None else found.start()
            if start is None or start >= limit:  # (a scan's place may lie past limit)
                return None
            self._deciding = (start, start + 1)
            endpos = (buf.find(b"\n", start, limit) + 1 or limit) if self.mode == "lines" else len(buf)
            found = self.engine.first(buf, start, endpos, partial, start + 1)
            if found is not None:
                return self._accept(buf, found, at_end, base, first=True)
            pos = start + 1
        return None

    def _prefiltered_lines(self, buf: bytearray, pos: int, limit: int) -> tuple[int, int] | None:
        """The first match of a line-bound pattern with a required literal: one engine call for each line that holds
        the literal (from the first byte a match holding it can start at) and :attr:`line_literal` after that byte,
        no other line tried -- where an anchored match at each byte before the literal cost one call each (a space
        as the literal: 260,000 calls and 4 s over 2.5 MB of grep output, where ``re`` takes 0.04 s)."""
        literal, width, inner = self.literal, self.prefix_width, self.line_literal
        while pos < limit:
            found = buf.find(literal, pos)
            if found < 0:
                return None
            start = max(pos, found - width, buf.rfind(b"\n", 0, found) + 1)  # (no match crosses a line end)
            if start >= limit:
                return None
            end = buf.find(b"\n", found, limit) + 1 or limit
            if inner is None or buf.find(inner, start, end) >= 0:
                self._deciding = (start, None)
                span = self.engine.first(buf, start, end, False, end)
                if span is not None:
                    return span[0], span[1]
            pos = end
        return None

    def _prefiltered(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        """The first match of a pattern with a required literal: an anchored engine call at each byte a match holding
        an occurrence of the literal can start at -- or, where the literal is dense (:data:`DENSE_SHARE`), one
        search from the first such byte (a space as the literal of a pattern that crosses lines, over 2.6 MB of grep
        output: a count cut at its time bound after ~4.5 s the anchored way, 0.04-0.13 s this way, ``re`` 0.02 s:
        ``python bench/dense_literals.py``). Exact either way: no match starts before the first byte in reach of its
        literal's first occurrence, and the search gives the leftmost from there."""
        if self.mode == "lines":
            return self._prefiltered_lines(buf, pos, limit)
        literal, width = self.literal, self.prefix_width
        partial = self.mode == "reach" and not at_end
        endpos = len(buf)
        tried = pos - 1
        search_from = pos
        while True:
            found = buf.find(literal, search_from)
            if found < 0 or found - width >= limit:
                return None
            first = max(tried + 1, found - width)
            if self._dense(buf, first, base):
                self._deciding = (first, limit)
                span = self.engine.first(buf, first, endpos, partial, limit)
                return None if span is None else self._accept(buf, span, at_end, base, first=True)
            for start in range(first, found + 1):
                if start >= limit:
                    return None
                span = self.engine.match(buf, start, endpos, partial)
                if span is not None and (span[1] > start or span[2]):
                    return self._accept(buf, span, at_end, base)
            tried = found
            search_from = found + 1

    def _dense(self, buf: bytearray, at: int, base: int) -> bool:
        """Whether the required literal is dense (:data:`DENSE_SHARE`) in the :data:`DENSE_WINDOW` from ``buf[at]``
        (content offset ``base + at``): counted once a window, the answer kept for the calls within it."""
        until, dense = self._density
        if base + at >= until:
            end = min(len(buf), at + DENSE_WINDOW)
            dense = buf.count(self.literal, at, end) * (self.prefix_width + 1) * DENSE_SHARE >= DENSE_WINDOW
            self._density = (base + end, dense)
        return dense


def _required_literal(tree, most: int = MAX_PREFIX_BYTES) -> tuple[bytes | None, int]:
    """The longest run of literal bytes in the pattern's top-level sequence that starts at most ``most`` bytes into
    any match (:data:`MAX_PREFIX_BYTES`; :data:`MAXREPEAT`: anywhere), and that distance."""
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
        if run and (best is None or len(run) > len(best[0])) and run_start <= most:
            best = (bytes(run), run_start)
        run = bytearray()
        if op is None:
            break
        width = min(width + _sre_parse.SubPattern(tree.state, [(op, av)]).getwidth()[1], MAXREPEAT)
        if width > most:
            break
    return best if best else (None, 0)
