"""A structure's JSON text in pieces: ``json.dumps(value, ensure_ascii=False)`` written a bounded part at a time.

``json.dumps`` of a large structure holds its text twice at its peak (the C encoder's accumulated parts, then the
joined string: 110 MiB of growth for 54 MiB of text, ``python bench/offload_memory.py``); a structured tool result
is spilled as that text (:meth:`scratchfs.Scope.offload`), so its spill took twice its size in memory before the
first byte was written. :func:`json_pieces` writes the same text as a stream of parts of about ``piece_chars``
characters: the containers of the value's top levels are walked in Python, and their items are encoded in batches
by the standard library's C encoder (``json.JSONEncoder(ensure_ascii=False).encode`` of a slice of a list, or of a
dict of a run of a dict's items), with the batch size adapted to the length the last batch gave. Keys are written by
the same encoder (``{key: null}`` less its frame), so every rule of ``json.dumps`` holds unchanged: ``int``,
``float``, ``bool`` and ``None`` keys, ``NaN`` and ``Infinity``, tuples as arrays, the errors it raises.

The standard library is the reference: the join of the pieces equals ``json.dumps(value, ensure_ascii=False)``
(``tests/test_json_pieces.py``, a Hypothesis property). Its pure-Python ``iterencode`` streams too, but at twice
the time of the C encoder (5.59 s against 2.82 s for ``json.dumps`` and 2.04 s for :func:`json_pieces`, the same
54 MiB: ``python bench/offload_memory.py``, its row in bench/README.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any

PIECE_CHARS = 1 << 16
"""The length a piece aims at, in characters (a piece is longer when one item's text is). The C encoder holds a
piece's tokens as small strings before it joins them, several times the piece's text for small records: 64 KiB
pieces keep the peak RSS growth at 0.4-0.6 MiB, where 1 MiB pieces held 6.5 MiB, and are no slower (``python
bench/offload_memory.py``, modes ``pieces`` and ``pieces-1m``: 1.09 s against 1.31 s at load 10; the figures are
its row in bench/README.md)."""

WALK_ITEMS = 256
"""A container of fewer items has each looked at: one with at least this many items of its own is walked rather
than encoded whole (a structure such as ``{"results": [...], "count": 3}`` keeps its bulk a level down). A
container of this many items or more has its items encoded in batches unlooked-at (a Python test per item would add
a Python step per small record to what the C encoder does alone; no script here measures it)."""

WALK_DEPTH = 8
"""Levels walked at most; deeper containers are encoded whole by the C encoder (its recursion limit applies)."""

FIRST_BATCH = 16
"""Items in a container's first batch (the next batches are sized on what the last one wrote)."""


def json_pieces(value: Any, piece_chars: int = PIECE_CHARS) -> Iterator[str]:
    """``json.dumps(value, ensure_ascii=False)`` as pieces whose concatenation is exactly that text, each about
    ``piece_chars`` characters (or one item's text, if longer), never holding the whole text.

    Raises (from the piece being written, as ``json.dumps`` raises them): TypeError (a value or key JSON has no form
    for), ValueError (a circular reference; a ``float`` out of range is written as ``Infinity``, as ``json.dumps``
    does), RecursionError (nesting too deep), RuntimeError (a dict or list changed while it is written), and any
    error a value's iteration raises. Pieces already yielded stay yielded: a consumer that writes them must treat
    an error as the failure of the whole text."""
    encode = json.JSONEncoder(ensure_ascii=False).encode
    if not isinstance(value, (dict, list, tuple)):
        yield encode(value)
        return
    yield from _walk(value, encode, max(1, piece_chars), 0, [])


def _walk(value: dict | list | tuple, encode: Callable[[Any], str], target: int, depth: int,
          path: list[int]) -> Iterator[str]:
    """The pieces of a container: its brackets, its items' runs encoded in batches, and its large containers
    walked a level down. ``path`` holds the ids of the containers being walked (a circular reference raises the
    ValueError ``json.dumps`` raises, before the walk goes round it)."""
    if id(value) in path:
        raise ValueError("Circular reference detected")
    path.append(id(value))
    is_dict = isinstance(value, dict)
    items = iter(value.items()) if is_dict else iter(value)  # (a subclass's own iteration, as json.dumps's)
    yield "{" if is_dict else "["
    batch, first = FIRST_BATCH, True
    # (a long container's items are encoded in batches unlooked-at: a batch's text is bounded by FIRST_BATCH items',
    # then by the target)
    walks = depth + 1 < WALK_DEPTH and len(value) < WALK_ITEMS
    while True:
        run = list(islice(items, batch))
        if not run:
            break
        if not walks:
            pending = run
        else:
            pending = []
            for item in run:
                inner = item[1] if is_dict else item
                if isinstance(inner, (dict, list, tuple)) and len(inner) >= WALK_ITEMS:
                    if pending:
                        yield _piece(pending, is_dict, encode, first)
                        first, pending = False, []
                    yield ("" if first else ", ") + (_key(item[0], encode) + ": " if is_dict else "")
                    first = False
                    yield from _walk(inner, encode, target, depth + 1, path)
                else:
                    pending.append(item)
        if pending:
            piece = _piece(pending, is_dict, encode, first)
            yield piece
            first = False
            batch = max(1, min(batch * 4, batch * target // len(piece)))
    path.pop()
    yield "}" if is_dict else "]"


def _piece(run: list, is_dict: bool, encode: Callable[[Any], str], first: bool) -> str:
    """A run of items' text without its container's brackets: ``a, b`` or ``"k": v, "l": w``, after ``", "`` unless
    it is the container's ``first``."""
    text = encode(dict(run) if is_dict else run)[1:-1]
    return text if first else ", " + text


def _key(key: Any, encode: Callable[[Any], str]) -> str:
    """A dict key as ``json.dumps`` writes it (an ``int``, ``float``, ``bool`` or ``None`` key as a string; another
    type's TypeError), from the encoder itself: ``{key: null}`` less its frame."""
    return encode({key: None})[1:-7]


class JsonText:
    """A structure's JSON text (``json.dumps(value, ensure_ascii=False)``) as an iterable of pieces: its first
    pieces, up to just past ``threshold`` characters, are written at once (:attr:`head`; all of it when it is no
    longer, :attr:`whole` set); iterating gives them, then writes the rest. The error writing it raised is kept in
    :attr:`error` (and raised on); the UTF-8 bytes of the pieces given out past the head are counted as they go
    (:meth:`drained_size`: the whole text's, however much a reader took before it stopped).

    Raises (from the constructor, for the head): what ``json.dumps`` raises for the value."""

    def __init__(self, value: object, threshold: int) -> None:
        self._rest = json_pieces(value)
        self.head: list[str] = []
        self.whole: str | None = None
        self.error: BaseException | None = None
        self._rest_bytes = 0  # (UTF-8 bytes of the pieces given out after the head)
        chars = 0
        for piece in self._rest:
            self.head.append(piece)
            chars += len(piece)
            if chars > threshold:
                return
        self.whole = "".join(self.head)

    def __iter__(self) -> Iterator[str]:
        yield from self.head
        yield from self._written()

    def _written(self) -> Iterator[str]:
        """The pieces after the head not yet given out, counted (a plain loop: a reader that stops leaves the rest
        to :meth:`drained_size`, where ``yield from`` would close it)."""
        try:
            for piece in self._rest:
                self._rest_bytes += _utf8_bytes(piece)
                yield piece
        except Exception as exc:
            self.error = exc
            raise

    def head_text(self) -> str:
        """The head's pieces joined: the whole text when :attr:`whole` is set, else its first characters, just past
        the threshold."""
        return "".join(self.head)

    def drained_size(self) -> int:
        """The whole text's size in UTF-8 bytes (lone surrogates as 3): the head's, the pieces already given out
        and the rest, written now and dropped. Raises what writing them raises."""
        for _piece in self._written():
            pass
        return sum(map(_utf8_bytes, self.head)) + self._rest_bytes


def _utf8_bytes(piece: str) -> int:
    """``len(piece.encode("utf-8", "surrogatepass"))``, without encoding an ASCII piece (``isascii`` is a flag)."""
    return len(piece) if piece.isascii() else len(piece.encode("utf-8", "surrogatepass"))


__all__ = ["FIRST_BATCH", "PIECE_CHARS", "WALK_DEPTH", "WALK_ITEMS", "JsonText", "json_pieces"]
