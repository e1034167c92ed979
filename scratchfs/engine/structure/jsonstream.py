"""Path filters over a JSON document too large for jq, by streaming: the same outputs and errors as jq, and pages
that resume where the last one stopped. (A page that meets jq's error fails whole; the jq read of a smaller document
gives the outputs before the error first, and fails on the next page.)

A *path filter* is ``.``-steps of keys, ``[N]`` and ``[]`` (``.items[3].name``, ``.items[].id``, ``."a b"``;
:func:`~scratchfs.engine.structure.jsondoc.parse_path` gives its steps). It is answered as jq answers it: a missing
key, ``[N]`` past an array's end and any step on ``null`` give ``null``; ``[]`` iterates an array's items and an
object's values; a step a value cannot take (``.a`` on a number, ``[]`` on ``null``) ends the read with jq's own
message (``Cannot index number with string ("a")``, ``Cannot iterate over null (null)``), after the outputs before it.

Scanner: the document is read ``CHUNK_BYTES`` at a time; the containers on the path are walked key by key and item
by item (regular expressions, checked token by token), and a value the path skips is parsed whole by ``json`` (C)
when it ends within a window, else member by member (deep down, by its brackets). Output values are decoded by
``json``, every number exactly as written (:func:`~scratchfs.engine.structure.numbers.load_exact`). About 20 MB/s.

Resuming: each output has a *point*: ``(offset, depth, mask)``, the byte offset of the member that holds it (the
key of an object member, an array item, or the top-level value) in the container of step ``depth - 1``, with
``mask`` bit ``i`` set when the container of step ``i`` is an array. Walking from a point gives that output first
and the rest after it, so a page costs what it reads, not the pages before it. A point from a cursor is checked
before use: the delimiter before it, its first byte, the key of a key step, and that the walk's first output is
there; the cursor itself is bound to the entry by its keyed tag (:class:`~scratchfs.engine.structure.paging.CursorKey`).

Known difference: an object that holds a key twice. jq keeps the last value; a key step here reads the first and
stops with an error when it meets the key again, and ``[]`` gives each occurrence's value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from scratchfs.engine.structure.jsonscan import (
    KINDS,
    OPEN,
    REST_ARRAY,
    REST_OBJECT,
    SCALAR,
    TOKEN_CHARS,
    VALUE_START,
    Scan,
    jq_short,
    jq_string,
    not_json,
    previous_byte,
    scalar_text,
    utf8_text,
)
from scratchfs.engine.structure.numbers import dump_decimal, load_exact
from scratchfs.engine.structure.paging import (
    ContentSource,
    CursorKey,
    ItemPage,
    decode_cursor,
    encode_cursor,
    fill_items,
    with_as_text,
)
from scratchfs.foundation import text as texts
from scratchfs.foundation.errors import BadCursor, InvalidArgument, JqFailed

__all__ = ["FAILED_STEP", "MAX_STREAM_STEPS", "failed_step", "jq_failed", "path_page", "stream_path"]

MAX_STREAM_STEPS = 60
"""Most steps of a path filter answered by streaming (a cursor holds one bit per step)."""

Step = tuple[str, Any]
Point = tuple[int, int, int]


def _failed_step_with(look: str) -> str:
    """The next step a failed jq step names, its input's ``look`` after the filter up to it (``", then `| keys`"``)
    written into it once: no replace of words the rest may hold too."""
    return ("; a step met a value it cannot take: skip such values (`select(.x != null)`, `.x // empty`) or see its "
            f"input (the filter up to it{look})")


FAILED_STEP = _failed_step_with(", then `| .[0]`")
"""The next step a jq error the filter raised on an array (not a parse error) names: a runtime error's words alone
(``jq: null (null) cannot be matched, as it is not a string``) gave none. :func:`failed_step` gives each error's."""

_MET = re.compile(r"Cannot (?:index|iterate over) (object|array|null|number|string|boolean)\b")
"""jq's words naming the kind of value a step met (``Cannot index object with number``)."""


def failed_step(reason: str) -> str:
    """The next step after jq's runtime error ``reason``: :data:`FAILED_STEP`, its look at the step's input fitted to
    the value jq says the step met -- ``| keys`` for an object (``.[0]`` of an object is the error again), the
    filter up to it alone for a scalar or ``null`` -- and ``| .[0]`` for an array or a value jq does not name."""
    met = _MET.match(reason)
    if met is None or met[1] == "array":
        return FAILED_STEP
    return _failed_step_with(", then `| keys`" if met[1] == "object" else " alone")


def jq_failed(reason: str, keyed: str | None = None) -> JqFailed:
    """A runtime error of a jq step, ``reason`` (jq's message, on one line, or the one this module writes as jq
    would), as a jq read raises it: :class:`JqFailed`, its message ``jq: <reason>`` and the next step
    (:func:`failed_step`), its ``keyed`` the kind of value a key was looked up in (``"array"``...), given by the
    caller that knows it -- the streaming walk, or :func:`~.jsondoc.jq_error` where jq's own words are met -- never
    read back from ``reason``."""
    return JqFailed(f"jq: {reason}{failed_step(reason)}", reason, keyed)


def _jq_error(message: str, keyed: str | None = None) -> JqFailed:
    """jq's ``message`` as the jq read gives it (on one line, blanks as one space, at most 300 characters; the next
    step, :data:`FAILED_STEP`, after it); ``keyed``: the kind of value a key step met (:func:`jq_failed`)."""
    return jq_failed(" ".join(message.split())[:300], keyed)


class _Walk:
    """The outputs of a path filter from a point: ``(point, text)`` for each, ``text`` the output value's bytes or
    ``None`` for a ``null`` the path makes (a missing key, an index past the end, a step on ``null``)."""

    def __init__(self, source: ContentSource, steps: list[Step], point: Point | None) -> None:
        if len(steps) > MAX_STREAM_STEPS:
            raise InvalidArgument(f"a path filter over a document past the jq bound has at most {MAX_STREAM_STEPS} "
                                  f"steps; this one has {len(steps)}")
        self.steps = steps
        self.names = {want: jq_string(want) for kind, want in steps if kind == "key"}  # as a document writes it
        offset, depth, mask = point if point is not None else (0, 0, 0)
        self.scan = Scan(source, offset)
        self.arrays = [bool(mask >> i & 1) for i in range(depth)]  # per open container: an array (else an object)
        self.members: list[int] = [offset] * depth  # per open container: where its current member starts
        self.top = offset
        self.resumed = point

    def point(self, depth: int) -> Point:
        """The point of the value at ``depth`` (the input of step ``depth``) being read."""
        where = self.members[depth - 1] if depth else self.top
        return where, depth, sum(1 << i for i, array in enumerate(self.arrays[:depth]) if array)

    def outputs(self) -> Iterator[tuple[Point, bytes | None]]:
        scan, steps = self.scan, self.steps
        depth = len(self.arrays)
        if self.resumed is not None:
            self.check_resume(depth)
        elif scan.peek() is None:
            return
        else:
            self.top = scan.offset
        while True:
            if depth == len(steps):
                yield self.point(depth), scan.value()
            else:
                entered = yield from self.step(depth)
                if entered:
                    depth += 1
                    continue
            depth = self.climb(depth)
            if depth < 0:
                return

    def step(self, depth: int) -> Iterator[tuple[Point, bytes | None]]:
        """Apply step ``depth`` to the value at ``pos``: True when positioned at the value of the member it goes
        into (the container pushed), else False with the value read past (and the ``null`` output it makes)."""
        scan = self.scan
        kind, want = self.steps[depth]
        byte = scan.need("a value")
        if (byte == ord("{") and kind != "index") or (byte == ord("[") and kind != "key"):
            scan.pos += 1
            self.arrays.append(byte == ord("["))
            self.members.append(scan.offset)
            if self.first_member(kind, want):
                return True
            self.arrays.pop()
            self.members.pop()
            if kind == "each":
                return False
        elif byte == ord("n") and kind != "each":
            scan.token(SCALAR, "a value")
        else:
            raise self.type_error(kind, want, byte)
        yield from self.nulls(depth)
        return False

    def nulls(self, depth: int) -> Iterator[tuple[Point, None]]:
        """The output of the steps from ``depth + 1`` on applied to ``null`` (made at ``depth``)."""
        if any(kind == "each" for kind, _ in self.steps[depth + 1 :]):
            raise _jq_error("Cannot iterate over null (null)")
        yield self.point(depth), None

    def type_error(self, kind: str, want: Any, byte: int) -> InvalidArgument:
        """jq's error for step ``(kind, want)`` on the value at ``pos`` (read past)."""
        name = KINDS.get(byte, "number")
        raw = b"" if byte in OPEN else self.scan.token(SCALAR, "a value")
        if kind == "each":
            shown = jq_short(scalar_text(raw), byte == ord('"'))
            return _jq_error(f"Cannot iterate over {name} ({shown})")
        if kind == "key":
            return _jq_error(f"Cannot index {name} with string ({jq_short(jq_string(want), True)})", name)
        return _jq_error(f"Cannot index {name} with number ({jq_short(str(want).encode(), False)})")

    def first_member(self, kind: str, want: Any) -> bool:
        """In the container just opened (on top of the stack): go to the value of the member step ``(kind, want)``
        takes (its start noted); False when there is none (the container read to its end)."""
        scan, array = self.scan, self.arrays[-1]
        closer = ord("]") if array else ord("}")
        if scan.need("a value or a closing bracket") == closer:
            scan.pos += 1
            return False
        number = 0
        while True:
            self.members[-1] = scan.offset
            if array:
                if kind != "index" or number == want:
                    return True
            elif scan.key() == want or kind == "each":
                return True
            scan.skip()
            number += 1
            if not self.scan.comma(closer):
                return False

    def climb(self, depth: int) -> int:
        """After the value at ``depth``: the depth of the next value to read (at its start), or -1 at the end."""
        scan = self.scan
        while depth:
            array = self.arrays[-1]
            closer = ord("]") if array else ord("}")
            kind, want = self.steps[depth - 1]
            if kind == "each":
                if self.scan.comma(closer):
                    self.members[-1] = scan.offset
                    if not array:
                        scan.key()
                    return depth
            else:
                self.skip_rest(closer, None if array else want)
            self.arrays.pop()
            self.members.pop()
            depth -= 1
        if scan.peek() is None:
            return -1
        self.top = scan.offset  # another document follows: jq reads each
        return 0

    def skip_rest(self, closer: int, key: str | None) -> None:
        """Past the rest of a container whose step took one member, to its closing bracket (an object's members
        checked not to repeat ``key``)."""
        scan = self.scan
        fast, name = (REST_OBJECT, self.names[key]) if closer == ord("}") else (REST_ARRAY, None)
        while True:  # members of scalars in one match (a match to the end of what is read may be cut: not taken)
            end = fast.match(scan.buf, scan.pos).end()
            if (end < len(scan.buf) and scan.buf[end] not in TOKEN_CHARS
                    and (name is None or scan.buf.find(name, scan.pos, end) < 0)):
                scan.pos = end
            if not scan.comma(closer):
                return
            if closer == ord("}"):
                at = scan.offset
                if scan.key() == key:
                    raise InvalidArgument(f"the document's object holds the key {key!r} twice (again at byte "
                                          f"{at:,}): jq reads the last, a streamed read past the jq bound cannot")
            scan.skip()

    def check_resume(self, depth: int) -> None:
        """Check that the point resumed from is one this read makes, and go into its member."""
        scan, (offset, _, mask) = self.scan, self.resumed
        bad = BadCursor(f"cursor points at byte {offset:,}, which is not where this read stopped: start the "
                        "read again without a cursor")
        if mask >> depth or any(kind != "each" and array != (kind == "index")
                                for (kind, _), array in zip(self.steps, self.arrays, strict=False)):
            raise bad
        before = previous_byte(scan.source, offset)
        if depth:
            array, (kind, want) = self.arrays[-1], self.steps[depth - 1]
            misplaced = before not in (ord(","), ord("[") if array else ord("{"))
        else:  # a top-level value: at the start, or after another
            array, kind, want = True, "each", None
            misplaced = before is not None and before in b",:[{"
        if offset >= scan.source.size or misplaced:
            raise bad
        byte = scan.need("a value")
        if scan.pos or byte not in VALUE_START or (not array and byte != ord('"')):
            raise bad
        if not array and scan.key() != want and kind == "key":
            raise bad


_EXPONENT = re.compile(r"[0-9][eE][-+]?[0-9]")
"""A number with an exponent (or text that looks like one, inside a string: read canonically all the same)."""


def _output(raw: bytes | None, budget: int, offset: int) -> tuple[Any, bool, bool]:
    """``(item, is_text, exact)`` of an output as a page gives it (as the jq read of the document would): its value,
    or -- when it holds a number no Python value holds exactly or a lone surrogate escape (``exact`` False), is
    longer than the page, or is nested deeper than Python parses -- jq's compact JSON text of it (numbers canonical:
    ``1e400`` -> ``1E+400``; a lone surrogate as its ``\\ud800`` escape)."""
    if raw is None:
        return None, False, True
    text = utf8_text(raw, offset)
    try:
        if _EXPONENT.search(text):  # jq writes such a number canonically (0.1e1 -> 1, 1.0e1 -> 10, 1e1 -> 1E+1)
            text = dump_decimal(json.loads(text, parse_float=Decimal, parse_int=Decimal))
        value, inexact = load_exact(text)
    except RecursionError:  # deeper than Python's parser goes: its text (as the jq read gives it)
        return text, True, False
    except ValueError as exc:
        raise not_json(offset, str(exc)) from None
    if inexact is None and len(text) <= budget:
        return value, False, True
    exact = json.loads(text, parse_float=Decimal, parse_int=Decimal)  # (load_exact's inexact: a number or a lone
    return texts.utf8_text(dump_decimal(exact)).replace("\x7f", "\\u007f"), True, inexact is None  # surrogate)


def path_page(source: ContentSource, steps: list[Step], key: CursorKey, cursor: str | None, budget: int,
              max_results: int, cut: tuple[Callable[[int], str | None], Callable[[int, str], None]] | None = None,
              ) -> ItemPage:
    """One page of the outputs of the path filter ``steps`` over the JSON document in ``source``, by streaming,
    from the point the ``cursor`` names (the page ``jq_page`` gives past the jq bound: items numbered from 1, a
    number no Python value holds given as its JSON text and listed in ``extra["as_text"]``, one output longer than
    the page in ``part`` pieces).

    Args:
        key: what cursors are bound to (the read, the size, the entry); cursors hold ``(output number, point...,
            characters into the output)``.
        budget: bytes of the page's compact JSON (checked by the caller); ``max_results``: most outputs a page.
        cut: ``(get, put)`` of the text of an output cut across pages, by output number (so its next pieces are
            not read again), or ``None``.

    Raises:
        InvalidArgument: a cursor not made by this read (edited, of another entry or read, or pointing where this
            read makes no point), a document that is not JSON or not UTF-8 where the read goes, a path with more
            than :data:`MAX_STREAM_STEPS` steps, or a step jq fails on (``jq: `` and jq's message).
    """
    number, chars, point = 0, 0, None
    if cursor is not None:
        number, offset, depth, mask, chars = decode_cursor(cursor, 5, key)
        point = (offset, depth, mask)
    outputs = _Walk(source, steps, point).outputs()

    def cursor_of(position: tuple[int, Point], skip: int) -> str:
        return encode_cursor((position[0], *position[1], skip), key)

    page = ItemPage("results", number + 1)
    text = cut[0](number) if cut is not None and chars else None
    if text is not None:  # the rest of an output cut on an earlier page, kept: only its end is read again
        whole = fill_items(page, iter([((number, point), text, True)]), chars, budget, 1, cursor_of)
        if whole.cursor is not None:
            return whole
        _first(outputs, point)
        number, chars = number + 1, 0
        page = ItemPage("results", number, part=whole.part)
    else:
        outputs = _check_first(outputs, point)
    return _fill(page, outputs, number, chars, (budget, max_results), cursor_of,
                 None if cut is None else cut[1], cursor)


def _first(outputs: Iterator[tuple[Point, bytes | None]], point: Point | None) -> None:
    """Read past the first output, checked to be at ``point``."""
    found = next(outputs, None)
    if point is not None and (found is None or found[0] != point):
        _no_output(point)


def _no_output(point: Point) -> None:
    raise BadCursor(f"cursor points at byte {point[0]:,}, where this read makes no output: start the read "
                    "again without a cursor")


def _check_first(outputs: Iterator[tuple[Point, bytes | None]], point: Point | None,
                 ) -> Iterator[tuple[Point, bytes | None]]:
    """``outputs``, the first checked to be at ``point`` (when resuming)."""
    for found in outputs:
        if point is not None:
            if found[0] != point:
                _no_output(point)
            point = None
        yield found


def _fill(page: ItemPage, outputs: Iterator[tuple[Point, bytes | None]], number: int, chars: int,
          limits: tuple[int, int], cursor_of: Callable[[tuple[int, Point], int], str],
          keep: Callable[[int, str], None] | None, cursor: str | None) -> ItemPage:
    """``page`` filled from output ``number`` (``chars`` characters into it) with ``outputs``; the outputs read are
    kept so that the page can be made again with room for ``as_text``."""
    budget, max_results = limits
    read: list[tuple[tuple[int, Point], Any, bool, bool]] = []
    candidates: list[tuple[int, str]] = []

    def numbered() -> Iterator[tuple[tuple[int, Point], Any, bool]]:
        count = 0
        while True:
            if count == len(read):
                found = next(outputs, None)
                if found is None:
                    return
                read.append(((number + count, found[0]), *_output(found[1], budget, found[0][0])))
            position, item, is_text, exact = read[count]
            if not exact:
                candidates.append((len(page.items), item))
            count += 1
            yield position, item, is_text

    started = page.part

    def fill(room: int) -> ItemPage:
        candidates.clear()
        page.items, page.part = [], started
        on_cut = None if keep is None else (lambda position, text: keep(position[0], text))
        return fill_items(page, numbered(), chars, room, max_results, cursor_of, on_cut)

    page = with_as_text(fill, budget, candidates)
    if cursor is not None and not page.items and page.part is None:
        raise BadCursor(f"cursor {cursor[:40]!r} names output {number + 1:,}, past the filter's last: start "
                        "the read again without a cursor")
    return page


def stream_path(source: ContentSource, steps: list[Step]) -> Iterator[Any]:
    """The outputs of the path filter ``steps`` over the JSON document in ``source``, in order, by streaming
    (numbers with a point or an exponent as ``Decimal``, exactly as written; integers as ``int``): what jq gives,
    ``null`` for a missing key or an index past the end. Memory is bounded by the largest output.

    Raises:
        InvalidArgument: the document is not JSON or not UTF-8 where the read goes, the path has more than
            :data:`MAX_STREAM_STEPS` steps, or a step fails as it fails in jq (``jq: `` and jq's message).
    """
    for point, raw in _Walk(source, steps, None).outputs():
        yield None if raw is None else json.loads(utf8_text(raw, point[0]), parse_float=Decimal)
