"""jq filters over a stored JSON document, paged within a byte budget; path reads that stream past the bound.

Library: ``jq`` (PyPI), the binding of the real jq 1.7 C library -- the model's filters mean exactly what ``jq``
on the command line makes of them (``.operations.DescribeInstances.input``, ``.items[] | select(.price > 3)``,
``keys``), at C speed (a 0.5 MB document parses and filters in ~15 ms). Pure-Python jq re-implementations (jmespath
is another language; pyjq/jq.py ports lag behind jq) were not chosen. Path reads over documents larger than the jq
bound stream (:mod:`~scratchfs.engine.structure.jsonstream`), with memory bounded by the largest output.

Memory: jq parses the whole document; documents of at most :data:`MAX_JQ_DOCUMENT_BYTES` are given to it (jq's tree
takes several times the text). Past the bound only *path filters* (``.``-paths of keys, ``[N]`` and ``[]``: e.g.
``.items[3].name``, ``.items[].id``, ``."a b"``) are answered, by streaming, as jq answers them; any other filter
is refused with an ``InvalidArgument`` naming the bound.

Safety: the filter is compiled inside a wrapper (:mod:`~scratchfs.engine.structure.jq_compile`: ``env`` and
``$ENV`` shadowed, ``halt`` refused, outputs bounded with ``limit``). A filter runs in a worker process killed at
the read's time limit (``timeout``, the store's ``pattern_timeout``): a filter that runs away (``last(range(1e10))``,
``[repeat(1)]``, ``def f: f; f``) raises ``StructureTimeout``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from scratchfs.engine.caches import LRU
from scratchfs.engine.structure.jq_compile import check_filter_length, compile_filter
from scratchfs.engine.structure.jq_worker import run_jq
from scratchfs.engine.structure.jsonscan import read_json_whole, refuse_unlike_json
from scratchfs.engine.structure.jsonstream import jq_failed, path_page
from scratchfs.engine.structure.numbers import (
    CONSTANTS_SAID,
    LoneSurrogateScan,
    load_exact,
    numbers_note,
    replace_lone_surrogates,
    surrogate_note,
)
from scratchfs.engine.structure.paging import (
    BytesSource,
    ContentSource,
    CursorKey,
    ItemPage,
    check_budget,
    decode_cursor,
    encode_cursor,
    fill_items,
    in_worker,
    with_as_text,
)
from scratchfs.engine.structure.row_jump import line_offset
from scratchfs.foundation import limits
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import BadCursor, InvalidArgument, NotJson
from scratchfs.foundation.text import digits_int, invalid_utf8_bytes

__all__ = ["MAX_JQ_DOCUMENT_BYTES", "PARSE_SECONDS_PER_MIB", "jq_error", "jq_keyed", "jq_message", "jq_page",
           "parse_path", "run_jq_checked"]

MAX_JQ_DOCUMENT_BYTES = 64 * 1024 * 1024
"""Largest document (bytes) that jq filters run over; larger ones get streaming path reads only."""
PARSE_SECONDS_PER_MIB = 0.25
"""Seconds a jq read is given beyond its time limit for each MiB of the document: reading it, handing it to the
worker and jq's parse take 0.07-0.14 s a MiB (36 MiB: 2.3 s of CPU in jq alone, 5 s in all on a loaded host), so
without it ``.meta`` of a 36 MiB document ran past the 5 s limit every time and no filter could read a document
near the bound; a runaway filter over a large document is still stopped, this much later."""

_CUT_CHARS = 64 * 1024 * 1024
_CUT: LRU[str, str] = LRU(16, max_weight=_CUT_CHARS, weigh=len, max_item_weight=_CUT_CHARS)
"""Outputs of streamed path reads (past the bound) cut across pages, by blob token, filter and output number."""
_RUN_CHARS = 64 * 1024 * 1024
"""Most characters of jq output texts kept for the next pages, over all reads (a run heavier is not kept)."""
_MORE_CHARS = 16 * 1024 * 1024
"""Characters of output texts a jq run takes beyond what its page uses, for the next pages."""
_MORE_OUTPUTS = 100_000
"""Outputs a jq run may give past the first its page shows (the filter's ``limit``, rounded up)."""


@dataclass(frozen=True, slots=True)
class _Run:
    """The JSON texts of a filter's outputs from output ``start`` (from 0) that one jq run gave (``chars``: their
    characters); ``more``: outputs may follow that were not taken; ``error``: jq's message at the output after them
    (the filter fails there; ``error_at``, the byte a parse error names); ``note``: the page's note, as :func:`_run`
    gives it."""

    start: int
    texts: tuple[str, ...]
    chars: int
    more: bool
    error: str | None
    note: str | None
    error_at: int | None = None  # (the byte of the document jq's parse error names: :func:`_stopped_at`)

    def holds(self, index: int) -> bool:
        """True when a page from output ``index`` can be made from these texts (or ends with them)."""
        return self.start <= index and (index < self.start + len(self.texts) or not self.more)


_RUNS: LRU[str, _Run] = LRU(16, max_weight=_RUN_CHARS, weigh=lambda run: run.chars, max_item_weight=_RUN_CHARS)
"""Each read's last jq run (by blob token and filter): its next pages slice it, the filter is not run again."""
_PAST_ANY_END = 2**63
"""The index a path step of more digits than ``int()`` converts stands for (past the end of any array: ``null``)."""
_STEP_RE = re.compile(
    r'\.?\[(\d+)\]|\.?\[\]|\.([A-Za-z_][A-Za-z0-9_]*)|\.?\["((?:[^"\\]|\\.)*)"\]|\."((?:[^"\\]|\\.)*)"')


def parse_path(text: str) -> list[tuple[str, Any]] | None:
    """The steps of a path filter -- ``[("key", name) | ("index", n) | ("each", None)]`` -- or ``None`` when the
    filter is not a plain path (``.`` alone is the empty path). Raises InvalidArgument: a quoted key whose escapes
    are no JSON escapes (``."\\q"``)."""
    text = text.strip()
    if text == ".":
        return []
    steps: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(text):
        found = _STEP_RE.match(text, pos)
        if not found or (pos == 0 and not text.startswith(".")):
            return None
        index, name, quoted, dotted = found.groups()
        if index is not None:  # an index of more digits than int() converts is past every array's end
            number = digits_int(index)
            steps.append(("index", _PAST_ANY_END if number is None else number))
        elif name is not None:
            steps.append(("key", name))
        elif quoted is not None or dotted is not None:
            try:
                steps.append(("key", json.loads(f'"{quoted if quoted is not None else dotted}"')))
            except ValueError as exc:  # an escape that is no JSON escape (under the bound jq's compile refuses it)
                raise InvalidArgument(f"jq filter {text[:60]!r} does not compile: a key's string is not valid "
                                      f"({exc})") from None
        else:
            steps.append(("each", None))
        pos = found.end()
    return steps


def jq_page(source: ContentSource, filter: str, cursor: str | None = None, budget_bytes: int = 8192,
            max_results: int = 1000, cache_key: str | None = None,
            timeout: float = limits.PATTERN_TIMEOUT, entry: str | None = None) -> ItemPage:
    """Run a jq filter over the JSON document in ``source`` and return one page of its outputs.

    Args:
        source: the content (a JSON document, or several separated by whitespace: each is an input).
        filter: a jq filter (jq 1.7 syntax).
        cursor: ``page.cursor`` of the previous page of the same filter, or ``None`` for the first.
        budget_bytes: most UTF-8 bytes of ``json.dumps(page.to_dict())`` (compact), 256 to 65536.
        max_results: most outputs per page.
        cache_key: names the content (a blob token): the JSON texts of the outputs a run gave (the page's and up to
            :data:`_MORE_CHARS` characters more) are kept under it and the filter; a page with a ``cursor`` inside
            them slices them, the filter is not run again. A read without a cursor always runs the filter. Past
            the bound, a streamed output cut across pages is kept under it (:data:`_CUT`).
        timeout: seconds (wall clock) the filter may run, in a worker killed at the limit (:mod:`.jq_worker`), plus
            :data:`PARSE_SECONDS_PER_MIB` a MiB of the document.
        entry: the entry's identity its cursors are bound to (:class:`~scratchfs.engine.structure.paging.CursorKey`;
            with the filter and the size): a cursor of another entry, filter or read is refused.

    Returns:
        an :class:`ItemPage` named ``results``: outputs numbered from 1, each taken from jq's own JSON text, so a
        number the filter passes through is the number the document writes (``12345678901234567890`` stays so, an
        ``int``); one output larger than the page comes as ``part`` pieces of its compact JSON text. An output
        holding a number no Python value holds exactly (``1e400``, ``1.00000000000000000001``) is given as its
        JSON text, a string, and its index on the page (from 0) is listed in ``extra["as_text"]``. When the filter
        is not a path and the document holds a number a double cannot hold, ``extra["note"]`` says so: jq computes
        (arithmetic, comparisons, sorting) with doubles; a document holding a lone surrogate escape is given to jq
        with U+FFFD in its place, and the note says so; so is a byte that is part of no UTF-8 character (a
        document in Latin-1, a character cut by a capped output), as every read shows text. Past
        :data:`MAX_JQ_DOCUMENT_BYTES` a path filter is answered by streaming
        (:func:`~scratchfs.engine.structure.jsonstream.path_page`): the same outputs and errors, and each page
        reads from the byte where the last one stopped (one difference: a page that meets jq's error fails
        whole, where under the bound the outputs before the error come first, on their page).

    Raises:
        InvalidArgument: a filter that does not compile, or that fails (JqFailed: jq's message, after the outputs
            before it), a document that is not JSON (NotJson: the parser's message, and where it stopped; one
            holding a NaN or an infinity, which jq would read as values it does not hold, too), a bad cursor
            (edited, of another entry, filter or read, or naming no output of this one) or budget, or a document over
            :data:`MAX_JQ_DOCUMENT_BYTES` with a filter that is not a path (or a path of more than
            ``MAX_STREAM_STEPS`` steps).
        StructureTimeout: the filter ran past ``timeout``.
        StoreBusy: every worker process stayed busy until the time limit, or none could be started (out of
            descriptors or memory); nothing was run: retry.
    """
    budget = check_budget(budget_bytes)
    max_results = check_int(max_results, "max_results", 1)
    if source.size > MAX_JQ_DOCUMENT_BYTES:
        return _streamed(source, filter, cursor, (budget, max_results), cache_key, entry)
    return _jq_read(source, filter, cursor, (budget, max_results), cache_key, timeout, entry)


def _jq_read(source: ContentSource, filter: str, cursor: str | None, limits: tuple[int, int],
             cache_key: str | None, timeout: float, entry: str | None) -> ItemPage:
    """A page of jq's outputs (:func:`jq_page` under the bound): sliced from the texts a run of this read kept, or
    from a new run."""
    budget, max_results = limits
    key = CursorKey(f"jq\0{filter}", source.size, entry)

    def cursor_of(number: int, skip: int) -> str:
        return encode_cursor((number, skip), key)

    index, chars = decode_cursor(cursor, 2, key) if cursor is not None else (0, 0)
    kept = None if cache_key is None or cursor is None else _RUNS.get(f"jq:{cache_key}:{filter}")
    if kept is not None and kept.holds(index):  # a page inside the texts a run of this read kept
        page = _fill(ItemPage("results", index + 1), _found(kept, index, chars, budget, max_results), index, chars,
                     budget, max_results, cursor_of, cursor, kept.more)
        if page is not None:
            return page  # else they ended before the page did, and more may follow: run the filter from here
    deadline = time.monotonic() + timeout + PARSE_SECONDS_PER_MIB * source.size / (1024 * 1024)
    run = _run(source, filter, index, (chars, budget, max_results), deadline)
    if cache_key is not None:
        _RUNS.put(f"jq:{cache_key}:{filter}", run)
    page = _fill(ItemPage("results", index + 1), _found(run, index, chars, budget, max_results), index, chars,
                 budget, max_results, cursor_of, cursor)
    assert page is not None  # not partial: the run went on from this page
    return page


_Found = tuple[list[Any], dict[int, str], set[int], str | None, tuple[str, int | None] | None, bool]


def _found(run: _Run, index: int, chars: int, budget: int, max_results: int) -> _Found:
    """What :func:`_fill` takes from a ``run`` for a page from output ``index``: :func:`_page_of`'s three, the
    run's note and its error, and whether the run holds outputs past those (the page must not end the read)."""
    outputs, texts, as_text = _page_of(run, index, chars, budget, max_results)
    held = run.start + len(run.texts) - max(index, run.start)
    error = None if run.error is None else (run.error, run.error_at)
    return outputs, texts, as_text, run.note, error, len(outputs) < held


def _page_of(run: _Run, index: int, chars: int, budget: int, max_results: int,
             ) -> tuple[list[Any], dict[int, str], set[int]]:
    """From a ``run``, the outputs a page of ``budget`` bytes from output ``index`` (``chars`` characters into it)
    can use, as values (from ``index`` on; ``None`` for one given as text); the JSON texts of those given as text:
    those that cannot fit a page whole (the page cuts their text: the pieces are jq's text, every digit kept) and
    those holding a number a Python value cannot hold exactly (:func:`~.numbers.load_exact`) or nested deeper than
    Python parses (their numbers, the third, are shown as a string). Parses only what the page may show."""
    outputs: list[Any] = []
    texts: dict[int, str] = {}
    as_text: set[int] = set()
    cost = 0
    for number in range(max(index, run.start), run.start + len(run.texts)):
        text = run.texts[number - run.start]
        value = None
        if len(text) > budget:  # its text is cut into pieces: no value needed
            texts[number] = text
        else:
            try:
                value, inexact = load_exact(text)
            except RecursionError:  # deeper than Python's parser goes: its text is given
                inexact = "deep"
            if inexact is not None:
                as_text.add(number)
                texts[number] = text
        outputs.append(value)
        # the fewest bytes it may take on the page: jq's text writes a character in at most 6 (\u007f), and a comma
        cost += (len(text) - (chars if number == index else 0)) // 6 + 1
        if cost > budget or len(outputs) > max_results:
            break
    return outputs, texts, as_text


def _fill(page: ItemPage, found: _Found, index: int, chars: int, budget: int, max_results: int,
          cursor_of: Callable[[int, int], str], cursor: str | None, partial: bool = False) -> ItemPage | None:
    """``page`` filled from output ``index`` (``chars`` into it) with what was ``found``: the outputs from ``index``
    (values; those given as text by number in the dict, those holding numbers no Python value holds in the set),
    the note on a number a double cannot hold and jq's error after the outputs, if any; the outputs given as text
    listed in ``as_text`` (:func:`~scratchfs.engine.structure.paging.with_as_text`); a cursor after them when the
    run holds more. ``None`` when the outputs end before the page does and ``partial`` says more may follow them.

    Raises InvalidArgument: jq's error, when the page starts at it (a page that reaches it after outputs ends there,
    its cursor at the failure, and names it in ``failure``); a ``cursor`` (the page's, if any) that names no
    output that follows."""
    outputs, texts, as_text, note, error, more = found
    if note is not None:
        page.extra["note"] = note
    candidates: list[tuple[int, str]] = []  # (index on the page, text) of outputs given as text

    def numbered() -> Iterator[tuple[int, Any, bool]]:
        for number, value in enumerate(outputs, index):
            text = texts.get(number)
            if number in as_text:
                candidates.append((len(page.items), text))
            yield (number, value, False) if text is None else (number, text, True)

    def fill(room: int) -> ItemPage:
        candidates.clear()
        page.items, page.part = [], None
        return fill_items(page, numbered(), chars, room, max_results, cursor_of)

    page = with_as_text(fill, budget, candidates)
    if page.cursor is None and more:  # the outputs taken were shown; the run holds more
        page.cursor = cursor_of(index + len(outputs), 0)
    if page.cursor is None and partial:
        return None
    if error is not None and not more:  # the outputs before the failure first (a page that ends before the run's
        # last output leaves it to the page that does); the page that starts at it fails
        failure = jq_error(jq_message(error[0]), offset=error[1])
        if page.cursor is None and not page.items and page.part is None:
            raise failure
        page.failure = failure
        page.cursor = page.cursor or cursor_of(index + len(outputs), 0)
    if cursor is not None and not page.items and page.part is None:  # a cursor always names an output that follows
        raise BadCursor(f"cursor {cursor[:40]!r} names output {index + 1:,}, past the filter's last: start the "
                        "read again without a cursor")
    return page


def _streamed(source: ContentSource, filter: str, cursor: str | None, limits: tuple[int, int],
              cache_key: str | None, entry: str | None) -> ItemPage:
    """A page of a path filter over a document past the jq bound (:func:`~.jsonstream.path_page`). Raises
    InvalidArgument: the filter is not a path (or as ``path_page`` raises)."""
    if isinstance(filter, str):  # (as compile_filter refuses it under the bound)
        check_filter_length(filter)
    steps = parse_path(filter) if isinstance(filter, str) else None
    if steps is None:
        raise InvalidArgument(
            f"the document is {source.size / 2**20:.0f} MiB, over the {MAX_JQ_DOCUMENT_BYTES // 2**20} MiB bound "
            "for jq filters; past it only path filters stream (e.g. '.items[3].name', '.items[].id')")
    cut = None
    if cache_key is not None:
        cut = (lambda number: _CUT.get(f"jqs:{cache_key}:{number}:{filter}"),
               lambda number, text: _CUT.put(f"jqs:{cache_key}:{number}:{filter}", text))
    return path_page(source, steps, CursorKey(f"jqstream\0{filter}", source.size, entry), cursor, *limits, cut)


def _run(source: ContentSource, filter: str, index: int, need: tuple[int, int, int], deadline: float) -> _Run:
    """jq's outputs of ``filter`` from output ``index``: those a page from there uses (``need`` = ``(characters
    into the first, budget, most outputs)``) and up to :data:`_MORE_CHARS` characters more, for the next pages,
    taken in a bounded time (:func:`~scratchfs.engine.structure.jq_worker.run_jq`; half the time left at most);
    with the page's note: a number of the document a double cannot hold when the filter is not a path (it may
    compute with it), NaN or Infinity as Python writes them (read by jq as null or the largest double), lone
    surrogate escapes read as U+FFFD, else ``None``."""
    limit = (index // _MORE_OUTPUTS + 2) * _MORE_OUTPUTS
    program = compile_filter(filter, limit, deadline)
    refuse_unlike_json(source)  # (binary data: at once, not after reading and handing over 64 MiB)
    data, invalid = _as_utf8(read_json_whole(source, MAX_JQ_DOCUMENT_BYTES))  # (binary data: refused where it starts)
    data, escape = _replaced(data)
    more = (_MORE_CHARS, max(0.0, deadline - time.monotonic()) / 2)
    status, detail = run_jq_checked(program, "page", (data, index, need, more, parse_path(filter) is None),
                                    deadline, "a simpler filter (select early, avoid range/repeat/recursion), or a "
                                    "path read such as '.items[3]'")
    if status == "utf8":
        raise NotJson(f"the document is not UTF-8 text: {detail}")
    if status == "constant":
        raise InvalidArgument(f"the document is not JSON: it holds {detail} outside a string (JSON has no NaN or "
                              "Infinity, and Python's json reads only NaN, Infinity and -Infinity; jq "
                              "would read it as null or as 1.7976931348623157e+308, a value the document "
                              f"does not hold): read it by range, or search it (match={json.dumps(detail)})")
    placed = invalid is None and escape is None  # (the bytes jq read are the content's: its offsets are theirs)
    if status == "error":
        raise jq_error(jq_message(detail), step=False, offset=_stopped_at(detail, data) if placed else None)
    texts, stopped, error, imprecise, constant = detail
    notes = ([numbers_note(imprecise)] if imprecise is not None else []) + (
        [f"the document {CONSTANTS_SAID}"] if constant is not None else []) + (
        [surrogate_note(escape, "the document", True)] if escape is not None else []) + (
        [invalid] if invalid is not None else [])
    return _Run(index, tuple(texts), sum(map(len, texts)), stopped or index + len(texts) >= limit, error,
                "; ".join(notes) or None,  # (each note a clause: joined as clauses)
                _stopped_at(error, data) if error is not None and placed else None)


def _stopped_at(reason: str, data: bytes) -> int | None:
    """The byte of ``data`` (the document jq read) where jq's parse error ``reason`` says it stopped: line ``L``'s
    first byte (:func:`~scratchfs.engine.structure.row_jump.line_offset`) plus jq's column (which counts bytes from
    1; column 0 is the newline ending line ``L - 1``, which jq counts before it reports a token that newline ends;
    on line 1 it counts none of a byte order mark); ``None`` for another error, or a line ``data`` does not hold."""
    place = _PARSED_TO.search(reason) if reason.startswith("parse error") else None
    if place is None:
        return None
    line = int(place[1])
    start = line_offset(BytesSource(data), line) if line > 1 else 3 if data.startswith(b"\xef\xbb\xbf") else 0
    return None if start is None else max(0, start + int(place[2]) - 1)


def _as_utf8(data: bytes) -> tuple[bytes, str | None]:
    """The document as UTF-8, as every read shows text: a byte that is part of no UTF-8 character (Latin-1 text, a
    cut character) read as U+FFFD; with the page's note saying how many bytes were and where the first is
    (``None``: none, the bytes unchanged)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        replaced = invalid_utf8_bytes(data)
        return data.decode("utf-8", "replace").encode("utf-8"), (
            f"the document is not UTF-8 text: jq reads its {replaced:,} byte{'' if replaced == 1 else 's'} that are "
            f"part of no UTF-8 character as U+FFFD (\\ufffd), the first at byte {exc.start:,} (a range read there "
            "shows it)")
    return data, None


def _replaced(data: bytes) -> tuple[bytes, str | None]:
    """The document with its lone surrogate escapes written as U+FFFD's (jq refuses a lone high one and reads a lone
    low one as U+FFFD without a word), and the first of them (``None``: none, the bytes unchanged)."""
    if LoneSurrogateScan().feed(data, final=True) is None:
        return data, None
    try:
        text, escape = replace_lone_surrogates(data.decode("utf-8"))
    except UnicodeDecodeError:  # the worker says it is not UTF-8
        return data, None
    return text.encode("utf-8"), escape


def run_jq_checked(program: Any, mode: str, data: Any, deadline: float, advice: str) -> tuple[str, Any]:
    """:func:`~scratchfs.engine.structure.jq_worker.run_jq` of the compiled ``program`` until ``deadline`` (a
    ``time.monotonic()`` value, seconds): ``("ok", outputs)``, ``("error", detail)`` or (mode ``"page"``)
    ``("utf8", message)`` as ``run_jq`` gives them.

    Raises:
        StructureTimeout: the deadline passed (its message ends with ``advice``). InvalidArgument: the worker ran
            out of memory, built a value nested too deeply or died. StoreBusy: every worker process stayed busy
            until the deadline, or none could be started (out of descriptors or memory); the filter was not run.
    """
    return in_worker(lambda: run_jq(program.program_string, mode, data, deadline), deadline, "the jq filter", advice,
                     ", or built a value nested too deeply (jq crashes some 10,000s of levels down); try a filter "
                     "that builds smaller, shallower values")


_PARSED_TO = re.compile(r" at line ([1-9][0-9]{0,15}), column ([0-9]{1,16})")
"""Where jq's parse error says it stopped."""
_KEYED = re.compile(r"Cannot index (array|number|string|boolean|null) with string")
"""jq's error for a key looked up in a value that is not an object (the kind of value it was)."""


def jq_keyed(message: str, within: bool = False) -> str | None:
    """The kind of value (``"array"``, ``"number"``, ``"string"``, ``"boolean"``, ``"null"``) jq's own error
    ``message`` says a key was looked up in (``Cannot index array with string ("a")``; ``within``: anywhere in it,
    else at its start), else ``None``: jq's words, read where jq's message is met (:func:`jq_error`; a JSON-lines
    read's failure on a record), and only there."""
    keyed = (_KEYED.search if within else _KEYED.match)(message)
    return None if keyed is None else keyed[1]


def jq_error(reason: str, step: bool = True, offset: int | None = None) -> InvalidArgument:
    """jq's error ``reason`` (:func:`jq_message`'s) as a jq read raises it: jq's parse error of the document as
    :class:`NotJson` (``jq: parse error: ...``; where it stopped read from jq's words here, where they are met:
    ``line``, ``column``, ``at_end`` -- jq met the end, ``at EOF`` --, ``too_deep``); else a step's failure
    (:func:`~.jsonstream.jq_failed`, its next step after it), or with ``step`` False (the filter failed on the
    document as a whole) ``jq: <reason>`` alone; ``offset``: the byte where the parse error stopped, when the
    caller found it (:func:`_stopped_at`)."""
    if reason.startswith("parse error"):  # (the document's, not a step's: no FAILED_STEP)
        line = _PARSED_TO.search(reason)
        return NotJson(f"jq: {reason}", by_jq=True, line=None if line is None else int(line[1]),
                       column=None if line is None else int(line[2]), at_end=" at EOF " in reason,
                       too_deep="Exceeds depth limit for parsing" in reason, offset=offset)
    return jq_failed(reason, jq_keyed(reason)) if step else InvalidArgument(f"jq: {reason}")


def jq_message(message: str) -> str:
    """jq's error ``message`` on one line, at most 300 characters (jq's bare ``break``, what ``input`` and ``inputs``
    meet past the last input, explained)."""
    text = " ".join(message.split())[:300]
    if text == "break":
        return ("break (input or inputs found no next input: a filter here reads each document of the entry as its "
                "own input, as `.`; use . instead)")
    return text
