"""The one codec of listing cursors: a short JSON array of a position (numbers and texts), as URL-safe base64
without padding -- opaque, printable, safe in a URL, a shell word and a JSON string without escapes.

Used by the scratchpad and run listings (``[created_at, agent_id, kind, key, listing]``, the last a tag of the
listing that made it: :func:`scratchfs.api.results.listing_tag`) and the inspector's pages (CLI ``ls`` and ``fsck``,
the web inspector's run listing and fsck: ``[run_id, created_at, row id]``). A listing cursor names a position in a
total order, not a place in an entry: every position is a place a keyset page may start from, the listing's query is
scoped by itself, so there is nothing to bind it to but the listing -- a cursor of another listing (another prefix,
agent, kind or run), or whose position that listing cannot hold, is refused by the listing. Structure reads have their
own cursor (numbers and a keyed tag, bound to the entry and the read: :mod:`scratchfs.engine.structure.paging`).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import zlib
from collections.abc import Callable, Sequence

from scratchfs.foundation import checks
from scratchfs.foundation.errors import BadCursor
from scratchfs.foundation.limits import MAX_CURSOR_CHARS

NUMBER = "number"
"""A type of :func:`decode_cursor`: a finite int or float (a bool is neither; ``NaN``, ``Infinity`` and ``1e400``,
which JSON reads as infinite, are refused), returned as a float."""
INTEGER = "integer"
"""A type of :func:`decode_cursor`: an int (a bool is not one) within SQLite's 64-bit range."""
TEXT = "text"
"""A type of :func:`decode_cursor`: a string that is UTF-8 text (no lone surrogate, which ``\\ud800`` writes)."""
ID = "id"
"""A type of :func:`decode_cursor`: a run id or agent id (:func:`scratchfs.foundation.checks.check_run_id`)."""
KEY = "key"
"""A type of :func:`decode_cursor`: a scratchpad key or a handle (:func:`scratchfs.foundation.checks.check_key`)."""
KIND = "kind"
"""A type of :func:`decode_cursor`: an entry's kind, ``"handle"`` or ``"scratch"``."""

_INT64 = (-(2**63), 2**63 - 1)


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(value)
    return float(value)  # an int past a double's range raises OverflowError (an ArithmeticError)


def _integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not _INT64[0] <= value <= _INT64[1]:
        raise ValueError(value)
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(value)
    value.encode("utf-8")  # a lone surrogate: UnicodeEncodeError (a ValueError)
    return value


def _kind(value: object) -> str:
    if value not in ("handle", "scratch"):
        raise ValueError(value)
    return str(value)


_CHECK: dict[str, Callable[[object], object]] = {
    NUMBER: _number, INTEGER: _integer, TEXT: _text, ID: checks.check_run_id, KEY: checks.check_key, KIND: _kind}
"""Each type's check: the value as the cursor gives it, or ValueError (an InvalidArgument is one)."""


def encode_cursor(values: Sequence[object], *, ascii_only: bool = False) -> str:
    """``values`` (JSON-serialisable) as a cursor: URL-safe base64 of their JSON array (packed when long and that
    makes it shorter: a listing cursor of a key of 512 quotes took 1,442 characters, 86 packed), ``=`` padding removed.
    ``ascii_only``: non-ASCII text written as ``\\u`` escapes (longer; the CLI inspector's cursors have always been).
    Raises TypeError: a value JSON cannot encode."""
    raw = json.dumps(list(values), ensure_ascii=ascii_only).encode("utf-8")
    if len(raw) > _PACK_OVER:  # a long key: its JSON escapes (a quote is 2 bytes) packed, so that a listing's
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)  # next_call fits the smallest budget beside its row
        packed = _PACKED + packer.compress(raw) + packer.flush()
        raw = packed if len(packed) < len(raw) else raw
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


_PACKED = b"\x00"
"""Starts a cursor whose JSON is packed (raw DEFLATE, RFC 1951); a JSON text never starts with it."""
_PACK_OVER = 256
"""A cursor's JSON longer than this many bytes is packed when that makes it shorter (the common, short ones never
are: cursors of short keys look as they always have)."""
_UNPACKED_MOST = 64 * 1024
"""Most bytes a packed cursor may unpack to (a cursor is at most 4,096 characters; its JSON far less)."""


def _unpacked(data: bytes) -> bytes:
    """The JSON of a cursor's bytes: unpacked when packed (ValueError past :data:`_UNPACKED_MOST` or incomplete)."""
    if not data.startswith(_PACKED):
        return data
    unpacker = zlib.decompressobj(-15)
    try:
        raw = unpacker.decompress(data[len(_PACKED):], _UNPACKED_MOST)
    except zlib.error as exc:
        raise ValueError("not a packed cursor") from exc
    if not unpacker.eof or unpacker.unconsumed_tail or unpacker.unused_data:
        raise ValueError("not a packed cursor")
    return raw


def decode_cursor(cursor: object, types: Sequence[str], error: str) -> list[object]:
    """The values of a cursor of :func:`encode_cursor`, checked: as many as ``types``, each of its type and range
    (:data:`NUMBER` returned as a float, :data:`INTEGER`, :data:`TEXT`, :data:`ID`, :data:`KEY`, :data:`KIND`) --
    the one place every field of a listing or inspector cursor is checked, so no forged value reaches a query.

    Raises:
        BadCursor: (an InvalidArgument) not text, longer than
            :data:`~scratchfs.foundation.limits.MAX_CURSOR_CHARS` characters (no cursor made is: a listing cursor is
            at most about 1,900, an inspector's less; a cursor of 32 MiB took 3.9 s to refuse), not base64 of a JSON
            array of those types, or a value out of its type's range (see each type); the message is ``error``, then
            the cursor's first 60 characters.
    """
    try:
        if not isinstance(cursor, str):
            raise TypeError(type(cursor).__name__)
        if len(cursor) > MAX_CURSOR_CHARS:
            raise ValueError(f"{len(cursor):,} characters")
        values = json.loads(_unpacked(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))).decode("utf-8"))
        if not isinstance(values, list) or len(values) != len(types):
            raise ValueError(cursor)
        return [_CHECK[kind](value) for value, kind in zip(values, types, strict=True)]
    except (ValueError, TypeError, ArithmeticError, binascii.Error, RecursionError, MemoryError):
        shown = cursor[:60] if isinstance(cursor, str) else type(cursor).__name__
        raise BadCursor(f"{error}: {shown!r}") from None


__all__ = ["ID", "INTEGER", "KEY", "KIND", "NUMBER", "TEXT", "decode_cursor", "encode_cursor"]
