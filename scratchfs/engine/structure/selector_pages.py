"""What a CSS selector read's page is made of, the same for an HTML page
(:func:`scratchfs.engine.structure.html.select_page`) and an XML document
(:func:`scratchfs.engine.structure.xmldoc.xml_select_page`): its arguments checked, its cursor read, and the page filled
from the matches a worker sent (as many as fit, from match ``index``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scratchfs.engine.structure.paging import (
    STOP,
    CursorKey,
    ItemPage,
    check_budget,
    decode_cursor,
    encode_cursor,
    fill_items,
)
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import BadCursor, InvalidArgument
from scratchfs.foundation.limits import MAX_SELECTOR_CHARS

__all__ = ["selector_page", "selector_start"]


def selector_start(selector: object, cursor: str | None, budget_bytes: object, max_elements: object,
                   key: CursorKey) -> tuple[int, int, int, int]:
    """``(budget, max_elements, index, chars)`` of a selector read: the budget (bytes, 256 to 65536) and the most
    elements a page checked, and where the page starts -- match ``index`` (from 0), ``chars`` characters into its
    JSON text -- read from ``cursor`` (bound to ``key``), else ``(0, 0)``.

    Raises:
        InvalidArgument: a selector that is no string of 1 to ``MAX_SELECTOR_CHARS`` characters, a bad budget or
            ``max_elements``; BadCursor (one) for a cursor that is not this read's.
    """
    budget = check_budget(budget_bytes)
    if not isinstance(selector, str) or not selector.strip() or len(selector) > MAX_SELECTOR_CHARS:
        raise InvalidArgument(f"select must be a CSS selector of 1 to {MAX_SELECTOR_CHARS} characters")
    most = check_int(max_elements, "max_elements", 1)
    index, chars = decode_cursor(cursor, 2, key) if cursor is not None else (0, 0)
    return budget, most, index, chars


def selector_page(found: list[Any], matches: int, start: tuple[int, int], cursor: str | None,
                  limits: tuple[int, int], key: CursorKey, extra: dict[str, Any] | None = None,
                  texts: bool = False) -> ItemPage:
    """The page ``elements`` of a selector read from the items a worker sent (``found``: those from match
    ``start[0]``, ``start[1]`` characters into its JSON text, no more than fit) of ``matches`` in all, within
    ``limits`` (budget bytes, most elements), its cursors bound to ``key``; ``extra`` holds ``matches`` and any
    more (a note); ``texts``: the items are texts (an HTML element's: a piece of one is its text, not its JSON).

    Raises:
        BadCursor: ``cursor`` names a match past the last (the document changed under the read's key).
    """
    index, chars = start
    if cursor is not None and index >= matches:
        raise BadCursor(f"cursor {cursor[:40]!r} names element {index + 1:,} of {matches:,}: start the read "
                        "again without a cursor")

    def items() -> Iterator[tuple[int, Any, bool]]:
        yield from ((index + offset, item, texts) for offset, item in enumerate(found))
        if index + len(found) < matches:
            yield index + len(found), STOP, False  # the worker sent no more than fits: the next page starts here

    budget, most = limits
    page = ItemPage("elements", index + 1, extra={"matches": matches, **(extra or {})}, texts=texts)
    return fill_items(page, items(), chars, budget, most, lambda number, skip: encode_cursor((number, skip), key))
