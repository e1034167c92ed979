"""psycopg_pool's warnings about the store's own connection pool during an outage: one line, once a minute.

While the PostgreSQL server is down, psycopg_pool's workers retry the pool's connections with backoff and log each
failure at WARNING (``error connecting in 'scratchfs-index': connection failed: ...``, libpq's message spread over
several lines): about twice a second per process, on the standard error of every CLI command and MCP server that
sets up no logging (Python's last-resort handler prints WARNING and above). The store's own errors already say
that the index is out of reach (:class:`~scratchfs.foundation.errors.StorageError` within ``busy_timeout``). The
filter :func:`install` puts on the ``psycopg.pool`` logger lets through the first record of each kind about the
store's pool (:data:`POOL_NAME`) in each :data:`EVERY_SECONDS`, on one line, and drops the others; records about any
other pool pass untouched. (A filter on a library's logger is the ``logging`` module's own way to shape what a
library logs: https://docs.python.org/3/library/logging.html#filter-objects.)
"""

from __future__ import annotations

import logging
import threading
import time

from scratchfs.foundation import forks

__all__ = ["EVERY_SECONDS", "FILTER", "POOL_NAME", "PoolLogFilter", "install"]

POOL_NAME = "scratchfs-index"
"""The name of the store's connection pool (:class:`~scratchfs.engine.postgres_index.PostgresIndex`)."""
EVERY_SECONDS = 60.0
"""At most one record of each kind about the store's pool per this many seconds."""


class PoolLogFilter(logging.Filter):
    """Keeps one record per kind (its message template) about :data:`POOL_NAME` per :data:`EVERY_SECONDS`, written
    on one line. Thread-safe."""

    def __init__(self, every: float = EVERY_SECONDS, clock=time.monotonic) -> None:
        super().__init__()
        self.every = every
        self.clock = clock
        self._last: dict[str, float] = {}
        self._lock = forks.renewed_in_child(self, "_lock", threading.Lock)

    def forget(self) -> None:
        """Forget which records were let through: the next of each kind passes (a new outage, a test)."""
        with self._lock:
            self._last.clear()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # a record whose arguments do not fit its template: not ours to judge
            return True
        if repr(POOL_NAME) not in text:
            return True
        now = self.clock()
        with self._lock:
            last = self._last.get(str(record.msg))
            if last is not None and now - last < self.every:
                return False
            self._last[str(record.msg)] = now
        record.msg, record.args = " ".join(text.split()) + f" (scratchfs: more like it within {self.every:.0f} s " \
            "are not logged)", ()
        return True


FILTER = PoolLogFilter()
"""The process's filter (:func:`install`)."""


def install() -> PoolLogFilter:
    """Put :data:`FILTER` on the ``psycopg.pool`` logger (once: ``addFilter`` adds a filter only once); return it."""
    logging.getLogger("psycopg.pool").addFilter(FILTER)
    return FILTER
