"""The one codec of listing cursors: a short JSON array of a position (numbers and texts), as URL-safe base64
without padding -- opaque, printable, safe in a URL, a shell word and a JSON string without escapes.

Used by the scratchpad and run listings (``[created_at, agent_id, kind, key]``) and the inspector's pages (CLI ``ls``
and ``fsck``, the web inspector's run listing and fsck: ``[run_id, created_at, row id]``). A listing cursor names a
position in a total order, not a place in an entry: every position is a place a keyset page may start from, the
listing's query is scoped by itself, so there is nothing to bind it to but the listing -- a cursor whose position
that listing cannot hold (another prefix, agent, kind or run) is refused by the listing. Structure reads have their
own cursor (numbers and a keyed tag, bound to the entry and the read: :mod:`scratchfs.engine.structure.paging`).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence

from scratchfs.foundation.errors import InvalidArgument

NUMBER = "number"
"""A type of :func:`decode_cursor`: an int or a float (a bool is neither), returned as a float."""
INTEGER = "integer"
"""A type of :func:`decode_cursor`: an int (a bool is not one)."""
TEXT = "text"
"""A type of :func:`decode_cursor`: a string."""


def encode_cursor(values: Sequence[object], *, ascii_only: bool = False) -> str:
    """``values`` (JSON-serialisable) as a cursor: URL-safe base64 of their JSON array, ``=`` padding removed.
    ``ascii_only``: non-ASCII text written as ``\\u`` escapes (longer; the CLI inspector's cursors have always been).
    Raises TypeError: a value JSON cannot encode."""
    raw = json.dumps(list(values), ensure_ascii=ascii_only)
    return base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii").rstrip("=")


def decode_cursor(cursor: object, types: Sequence[str], error: str) -> list[object]:
    """The values of a cursor of :func:`encode_cursor`, checked: as many as ``types``, each of its type
    (:data:`NUMBER` returned as a float, :data:`INTEGER`, :data:`TEXT`).

    Raises:
        InvalidArgument: not text, not base64 of a JSON array of those types; the message is ``error``, then the
            cursor's first 60 characters.
    """
    try:
        if not isinstance(cursor, str):
            raise TypeError(cursor)
        values = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8"))
        if not isinstance(values, list) or len(values) != len(types):
            raise ValueError(cursor)
        out: list[object] = []
        for value, kind in zip(values, types, strict=True):
            if isinstance(value, bool) or not isinstance(value, {NUMBER: (int, float), INTEGER: int, TEXT: str}[kind]):
                raise ValueError(cursor)
            out.append(float(value) if kind == NUMBER else value)
        return out
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError, RecursionError, MemoryError):
        raise InvalidArgument(f"{error}: {str(cursor)[:60]!r}") from None


__all__ = ["INTEGER", "NUMBER", "TEXT", "decode_cursor", "encode_cursor"]
