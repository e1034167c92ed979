"""Expiry at the moment a read reports it, for the PostgreSQL index (:mod:`scratchfs.engine.postgres_index`): the
same answer as the SQLite index's :meth:`~scratchfs.engine.sqlite_scale.ScaleQueries.expire_now`, so that a handle or
a scratchpad value a read reported ``Expired`` stays gone when the clock steps back -- the store's clock, or the
database server's, which decides expiry on a fleet -- on every backend alike."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from scratchfs.foundation.limits import TOMBSTONE_SECONDS

__all__ = ["PostgresExpiry"]

_WHERE = ("WHERE run_id = %(run)s AND agent_id = %(agent)s AND kind = %(kind)s AND key = %(key)s "
          "AND expires_at <= @NOW")
_EXPIRE = (
    f"WITH d AS (DELETE FROM @E {_WHERE} RETURNING blob, expires_at), "
    "t AS (INSERT INTO @G SELECT %(run)s, %(agent)s, %(kind)s, %(key)s, 'expired', expires_at FROM d "
    "WHERE expires_at > @NOW - %(keep)s ON CONFLICT (run_id, agent_id, kind, key) DO UPDATE SET "
    "reason = excluded.reason, at = excluded.at) SELECT blob FROM d"
)


class PostgresExpiry:
    """:meth:`expire_now` of :class:`~scratchfs.engine.postgres_index.PostgresIndex` (a mixin: it needs the index's
    ``read(text, params, doing)``, ``transaction(doing)`` and ``q(text)``)."""

    def read(self, text: str, params: dict, doing: str) -> list[tuple]:  # pragma: no cover - the index's
        raise NotImplementedError

    def transaction(self, doing: str) -> AbstractContextManager[Any]:  # pragma: no cover - the index's
        raise NotImplementedError

    def q(self, text: str) -> str:  # pragma: no cover - the index's
        raise NotImplementedError

    def expire_now(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> str | None:
        """If the row of this key has expired (``expires_at`` at or before ``now``, epoch seconds -- the server's
        now with the database clock), delete it, leave an ``expired`` tombstone (when it expired within
        :data:`~scratchfs.foundation.limits.TOMBSTONE_SECONDS`) and return its blob token (the caller removes the
        blob); else ``None``. Reads first: no write when there is nothing to do. Raises StorageError, StoreBusy."""
        params = {"run": run_id, "agent": agent_id, "kind": kind, "key": key, "now": now, "keep": TOMBSTONE_SECONDS}
        if not self.read(f"SELECT 1 FROM @E {_WHERE}", params, "looking up an entry"):
            return None
        with self.transaction("expiring an entry") as conn:
            row = conn.execute(self.q(_EXPIRE), params).fetchone()
        return None if row is None else row[0]
