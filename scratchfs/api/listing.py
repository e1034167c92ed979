"""A page of a listing as the contract's JSON object (``scratch_list``'s reply), fitted into its
budget: as many rows as fit, and the call that reads on (:class:`~scratchfs.api.fixed.Squeeze`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scratchfs.api.fixed import Squeeze
from scratchfs.api.results import Page
from scratchfs.api.views import fit, reply_size
from scratchfs.engine.protocols import Entry

SPILLED_TOOL_CHARS = 60
"""Characters of a spilled result's tool name ``scratch_list(spilled=true)`` shows, at most (the rest cut, ``…``)."""
SPILLED_SHAPE_CHARS = 80
"""Characters of a spilled result's shape ``scratch_list(spilled=true)`` shows, at most (the rest cut, ``…``)."""


def spilled_row(entry: Entry, expires_in: int) -> dict[str, Any]:
    """A row of ``scratch_list(spilled=true)``: ``{handle, tool, size (bytes), shape, expires_in (whole seconds)}``,
    the tool's name and the shape cut short (:data:`SPILLED_TOOL_CHARS`, :data:`SPILLED_SHAPE_CHARS`); ``tool`` and
    ``shape`` ``null`` when not known."""
    return {"handle": entry.key, "tool": _cut(entry.source_tool, SPILLED_TOOL_CHARS), "size": entry.size,
            "shape": _cut(entry.shape, SPILLED_SHAPE_CHARS), "expires_in": expires_in}


def _cut(text: str | None, chars: int) -> str | None:
    return text if text is None or len(text) <= chars else text[: chars - 1] + "\u2026"


def listing_reply(head: dict[str, Any], rows: list[dict[str, Any]], page: Page, call: Callable[[str], str],
                  budget: int) -> dict[str, Any]:
    """A page of a listing: ``{**head, entries: rows, next_call}`` (``rows``: one JSON row per entry of ``page``), as
    many rows as fit ``budget`` (bytes of compact JSON, UTF-8; at least one row); ``call(cursor)`` writes the call
    that reads the next page. The echoed ``head`` and ``next_call`` are measured first
    (:class:`~scratchfs.api.fixed.Squeeze`): ``next_cursor`` is given only when ``next_call`` does not fit."""

    made: dict[int, tuple[str | None, str | None]] = {}

    def next_of(n: int) -> tuple[str | None, str | None]:
        """``(cursor, next_call)`` after row n (its key's length makes the cursor's), each written once."""
        if n not in made:
            cursor = page.cursor_after(n)
            made[n] = cursor, call(cursor) if cursor else None
        return made[n]

    def build(n: int, shown: int | None = None) -> dict[str, Any]:  # the reply going on after row n, rows[:shown]
        cursor, next_call = next_of(n)
        return {**head, "entries": rows[: n if shown is None else shown], "next_call": next_call,
                "next_cursor": cursor}

    def squeezed(n: int) -> dict[str, Any]:  # planned on n's own next_call with the least content (one row)
        return Squeeze(build(n, min(1, n)), budget, {name: (name,) for name in head}, cursor_key="next_cursor")(
            build(n))

    if not rows:
        return squeezed(0)
    best = fit(len(rows), squeezed, budget)
    shown = len(best["entries"])
    if best.get("next_call") is None and page.cursor_after(shown) is not None:
        # the most rows fit only without the call that goes on (a long key makes a long cursor): fewer rows whose
        # next_call fits are the better page
        return _shorter_page(build, lambda n: next_of(n)[1], {name: (name,) for name in head}, shown,
                             budget) or best
    return best


def _shorter_page(build: Callable[..., dict[str, Any]], call_of: Callable[[int], str | None],
                  echoes: dict[str, tuple[str, ...]], shown: int, budget: int) -> dict[str, Any] | None:
    """The page of the most rows below ``shown`` whose ``next_call`` fits ``budget``, or ``None``; ``call_of(n)``
    is the ``next_call`` of ``build(n)`` (written once per row count, not by building a page to measure it). A
    plan (:class:`Squeeze`) depends on the row count only through its call's length, and a longer call is left out
    sooner: plans are made for a bisection over the distinct call lengths (``O(log shown)`` of them, not one per
    row count), and the longest call that a plan keeps is the one every row count with a call as short is tried
    with; the page of a row count is built once, when it is tried."""
    calls = {n: reply_size(call_of(n)) for n in range(1, shown)}
    lengths = sorted(set(calls.values()))
    some_row = {length: n for n, length in calls.items()}  # a row count whose call is that long
    low, high, plan, longest = 0, len(lengths) - 1, None, 0
    while low <= high:
        mid = (low + high) // 2
        candidate = Squeeze(build(some_row[lengths[mid]], 1), budget, echoes, cursor_key="next_cursor")
        if candidate.call_bytes:  # left out: so is any longer call
            high = mid - 1
        else:
            plan, longest, low = candidate, lengths[mid], mid + 1
    if plan is None:
        return None
    for n in range(shown - 1, 0, -1):
        if calls[n] <= longest:
            shorter = plan(build(n))
            if shorter.get("next_call") is not None and reply_size(shorter) <= budget:
                return shorter
    return None


__all__ = ["SPILLED_SHAPE_CHARS", "SPILLED_TOOL_CHARS", "listing_reply", "spilled_row"]
