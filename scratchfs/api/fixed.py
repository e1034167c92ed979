"""The fixed part of a reply -- the arguments it echoes, its ``next_call`` -- measured before its content.

A reply echoes some of the caller's arguments (a search's ``match`` or ``pattern``, a structure read's ``jq``, a
key, a listing's ``prefix``) and writes them again in ``next_call``; arguments long or full of characters JSON
escapes (``"`` costs 2 bytes, 4 inside ``next_call``'s quoted string) could take the whole budget. A
:class:`Squeeze` is planned once on a reply's *floor* (the reply with the least content it can show) and then
applied to every candidate reply, so that the content gets what the fixed part leaves:

1. echoed arguments, longest first, are shortened to a prefix of whole characters ending in ``…``; the reply then
   says ``"shortened": {argument: its full length}`` (characters of a text, items of a list);
2. when the floor still does not fit, ``next_call`` is left out (``null``) and ``note`` says so and how large a
   budget the call needs; the reply then carries the cursor alone (``cursor`` / ``next_cursor``, when the reply
   kind has one), which the caller passes with the same arguments -- or, when the cursor does not fit either (a
   listing's cursor carries a key), the exact budget with which the same call holds its ``next_call``. A
   ``next_call`` that is given is always the complete call. When ``next_call`` is given, the cursor it carries is
   not repeated beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scratchfs.api.views import reply_size
from scratchfs.foundation.limits import MAX_REPLY_BYTES

ECHO_FLOOR_BYTES = 48
"""An echoed argument is never shortened below this many bytes of JSON."""
SLACK_BYTES = 24
"""Bytes kept free when a squeeze is planned: a larger page's numbers (offsets, counts) take a few more digits."""
ELLIPSIS = "…"
"""Ends a shortened echo."""


def small(budget: int, *echoed: str) -> bool:
    """True when texts of these lengths (characters), echoed in a reply and again in its ``next_call``, cannot crowd
    its ``budget`` (bytes of compact JSON, UTF-8; a character costs at most 6 bytes of JSON, and 7 inside
    ``next_call``'s quoted text): no squeeze is needed."""
    return sum(len(text) for text in echoed) * 13 + 512 <= budget // 2


def shorten(value: Any, room: int) -> Any:
    """``value`` (text, or a list) cut to at most ``room`` bytes of compact JSON: a prefix of whole characters
    followed by :data:`ELLIPSIS`, or the first items of a list; ``value`` itself when it fits. Other values are
    returned as they are."""
    if reply_size(value) <= room:
        return value
    if isinstance(value, list):
        low, high = 0, len(value)
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if reply_size(value[:mid]) <= room else (low, mid - 1)
        return value[:low]
    if not isinstance(value, str):
        return value
    low, high = 0, min(len(value), room)
    while low < high:  # JSON cost grows with the prefix: bisect on characters
        mid = (low + high + 1) // 2
        low, high = (mid, high) if reply_size(value[:mid] + ELLIPSIS) <= room else (low, mid - 1)
    return value[:low] + ELLIPSIS


def _larger_budget(floor: dict[str, Any], reserve: int) -> str:
    """How to go on when neither ``next_call`` nor the cursor fits: the same call with the budget at which ``floor``
    fits whole, echoes and ``next_call`` included (what a plan on it then keeps), or that no budget does."""
    needed = reply_size(floor) + SLACK_BYTES + reserve
    if needed > MAX_REPLY_BYTES:
        return f"nothing: it needs a budget of {needed} bytes, more than the most ({MAX_REPLY_BYTES})"
    return f"the same arguments and budget={needed} (this call again: its reply then holds next_call)"


def _get(reply: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = reply
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _set(reply: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A copy of ``reply`` with ``value`` at ``path`` (dicts on the way copied, nothing else)."""
    out = dict(reply)
    if len(path) == 1:
        out[path[0]] = value
    else:
        out[path[0]] = _set(dict(out[path[0]]), path[1:], value)
    return out


class Squeeze:
    """The plan that makes a reply's fixed part fit (see the module docstring), made on ``floor`` and applied to
    every reply of the same call with :meth:`__call__`.

    Args:
        floor: the reply with the least content it can show (it holds the longest ``next_call`` the call makes).
        budget: the reply's budget, in bytes of compact JSON.
        echoes: argument name -> its path in the reply, e.g. ``{"jq": ("read", "jq")}``.
        cursor_key: the reply's cursor field (``"next_cursor"``, ``"cursor"``), which builders always fill and
            which is kept only when ``next_call`` is left out; ``None`` for reply kinds with none.
        reserve: bytes the content needs beyond the floor's (a structure page measured apart).
        resume: what the note says to go on from when ``next_call`` is left out (default: the cursor field, else
            ``"next_offset"``).
    """

    def __init__(self, floor: dict[str, Any], budget: int, echoes: Mapping[str, tuple[str, ...]] | None = None,
                 cursor_key: str | None = None, reserve: int = 0, resume: str | None = None) -> None:
        self.cursor_key, self.keep_cursor = cursor_key, cursor_key is not None
        self.resume = f"the same arguments and {resume or cursor_key or 'next_offset'}"
        self.cuts: dict[str, tuple[tuple[str, ...], Any, int]] = {}  # name -> (path, shortened value, full length)
        self.call_bytes = 0  # > 0: next_call is left out; the size it would take
        target = budget - SLACK_BYTES - reserve
        if reply_size(self(floor)) <= target:
            return
        present = [(name, path, _get(floor, path)) for name, path in (echoes or {}).items()]
        longest = sorted((p for p in present if isinstance(p[2], (str, list))), key=lambda p: -reply_size(p[2]))
        for name, path, value in longest:
            over = reply_size(self(floor)) - target
            if over <= 0:
                return
            size = reply_size(value)
            mark = reply_size({"shortened": {name: len(value)}}) - 1  # what the "shortened" entry costs (at most)
            room = max(ECHO_FLOOR_BYTES, size - over - mark)
            if room < size:
                self.cuts[name] = (path, shorten(value, room), len(value))
        if reply_size(self(floor)) > target and floor.get("next_call"):
            self.call_bytes = reply_size(floor["next_call"])
            if self.keep_cursor and reply_size(self(floor)) > target:  # the cursor alone does not fit either
                kept = {k: v for k, v in floor.items() if k != cursor_key}  # (given with next_call: not repeated)
                self.keep_cursor, self.resume = False, _larger_budget(kept, reserve)

    def __call__(self, reply: dict[str, Any]) -> dict[str, Any]:
        """``reply`` with the plan applied: echoes shortened, ``next_call`` left out (with ``note``) when planned,
        the cursor field kept only without a ``next_call``."""
        out = reply
        if self.cuts:
            for path, value, _full in self.cuts.values():
                out = _set(out, path, value)
            out["shortened"] = {name: full for name, (_path, _value, full) in self.cuts.items()}
        dropped = bool(self.call_bytes and out.get("next_call"))
        if dropped:
            out = {**out, "next_call": None, "note": f"next_call left out: it takes {self.call_bytes} bytes, more "
                                                     f"than this budget leaves; go on with {self.resume}"}
        if self.cursor_key is not None and self.cursor_key in out and not (dropped and self.keep_cursor):
            out = {k: v for k, v in out.items() if k != self.cursor_key}
        return out


__all__ = ["ECHO_FLOOR_BYTES", "ELLIPSIS", "SLACK_BYTES", "Squeeze", "shorten", "small"]
