"""One bounded, thread-safe LRU map for every in-memory cache of the engine (parsed seek tables, line tables, small
decompressed values), bounded by entry count and, optionally, by total weight (bytes)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A least-recently-used map.

    Args:
        max_entries: most entries kept.
        max_weight: most total weight kept (``None``: no bound), with ``weigh(value)`` the weight of a value (bytes).
        max_item_weight: values heavier than this are not kept at all.

    Safe to share between threads; values must be immutable (they are handed out as they are).
    """

    def __init__(self, max_entries: int, *, max_weight: int | None = None, weigh: Callable[[V], int] | None = None,
                 max_item_weight: int | None = None) -> None:
        self._items: OrderedDict[K, V] = OrderedDict()
        self._max_entries = max_entries
        self._max_weight = max_weight
        self._weigh = weigh or (lambda value: 0)
        self._max_item_weight = max_item_weight
        self._weight = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value of ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key`` (unless it is heavier than ``max_item_weight``), dropping the least recently
        used entries beyond the bounds."""
        weight = self._weigh(value)
        if self._max_item_weight is not None and weight > self._max_item_weight:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= self._weigh(old)
            self._items[key] = value
            self._weight += weight
            while len(self._items) > self._max_entries or (
                    self._max_weight is not None and self._weight > self._max_weight):
                _, dropped = self._items.popitem(last=False)
                self._weight -= self._weigh(dropped)

    def __len__(self) -> int:
        return len(self._items)


__all__ = ["LRU"]
