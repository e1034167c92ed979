"""The rows of a table cut across pages, kept: a row larger than a page comes in ``part`` pieces
(:func:`~scratchfs.engine.structure.table.rows_page`), and each next page cuts its piece from the row's JSON text
kept here rather than reading the row again from its start, as each page did: reading a row to its end then cost its
pages times its size (tests/test_row_parts_kept.py counts the reads of a row of 300-400 KB: at most 3 now, one a
page before).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from scratchfs.engine.caches import LRU
from scratchfs.engine.structure.paging import CursorKey, ItemPage, encode_cursor, fill_items

__all__ = ["keeper", "kept_piece"]

_CUT_BYTES = 32 * 1024 * 1024
_CUT_ROWS: LRU[tuple[CursorKey, int], str] = LRU(4, max_weight=_CUT_BYTES, weigh=sys.getsizeof,
                                                  max_item_weight=_CUT_BYTES)
"""The JSON text of rows cut across pages, by read and row start: at most 32 MiB of memory in all (a text of 8 Mi
characters outside the BMP, 4 bytes each, fills it)."""


def kept_piece(key: CursorKey, at: tuple[int, int, int], budget: int, extra: dict[str, Any]) -> ItemPage | None:
    """The page of the read ``key`` at ``at`` -- ``(row number, its byte offset, characters into its JSON text)``,
    a cursor's position -- cut from the row's kept text (:func:`keeper`) within ``budget`` bytes of JSON, with
    ``extra`` (the header), when it is kept and the page ends inside it; else ``None`` (not kept, or its rest fits:
    the page reads it, and the rows after it, from the content). Raises InvalidArgument: ``chars`` past the text."""
    number, offset, chars = at
    if not chars or key.entry is None or (kept := _CUT_ROWS.get((key, offset))) is None:
        return None
    page = fill_items(ItemPage("rows", number, extra=extra), iter([((number, offset), kept, True)]), chars, budget, 1,
                      lambda position, skip: encode_cursor((*position, skip), key))
    return page if page.cursor is not None else None


def keeper(key: CursorKey, unkept: dict[int, Any]) -> Callable[[tuple[int, int], str], None]:
    """What keeps the JSON text of a row of the read ``key`` cut on a page (``fill_items``' ``on_cut``, given the
    row's ``(number, byte offset)``): by its offset, unless ``unkept`` holds it (a row with bytes shown as U+FFFD,
    whose pieces count them: read again) or the read is bound to no entry (a cursor of another content could
    match)."""

    def keep(position: tuple[int, int], text: str) -> None:
        if key.entry is not None and position[1] not in unkept:
            _CUT_ROWS.put((key, position[1]), text)

    return keep
