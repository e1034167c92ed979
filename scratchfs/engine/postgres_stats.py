"""The aggregates of the PostgreSQL index (:mod:`scratchfs.engine.postgres_index`): what ``scratchfs stats`` and
``/api/stats`` show, in one query, the same answer as the SQLite index's
:meth:`~scratchfs.engine.sqlite_scale.ScaleQueries.scope_stats` -- expired entries not swept yet included -- and its
integrity check."""

from __future__ import annotations

from scratchfs.engine.postgres_schema import SCHEMA_VERSION

__all__ = ["PostgresAggregates"]

_LIVE = "expires_at > @NOW"
_SCOPE_STATS = (
    f"SELECT run_id, agent_id, count(*) FILTER (WHERE {_LIVE}), count(*) FILTER (WHERE kind = 'handle' AND {_LIVE}), "
    f"count(*) FILTER (WHERE kind = 'scratch' AND {_LIVE}), COALESCE(sum(size) FILTER (WHERE {_LIVE}), 0)::bigint, "
    f"COALESCE(sum(stored_size) FILTER (WHERE {_LIVE}), 0)::bigint, min(created_at) FILTER (WHERE {_LIVE}), "
    f"min(LEAST(expires_at, @NOW + ttl)) FILTER (WHERE {_LIVE}), "
    f"count(*) FILTER (WHERE {_LIVE} AND LEAST(expires_at - @NOW, ttl) <= %(soon)s), "
    "count(*) FILTER (WHERE expires_at <= @NOW), "
    "COALESCE(sum(stored_size) FILTER (WHERE expires_at <= @NOW), 0)::bigint, "
    f"max(created_at) FILTER (WHERE {_LIVE}) FROM @E"
)


class PostgresAggregates:
    """The aggregate queries of :class:`~scratchfs.engine.postgres_index.PostgresIndex` (a mixin: it needs the
    index's ``read(text, params, doing)``)."""

    def read(self, text: str, params: dict, doing: str) -> list[tuple]:  # pragma: no cover - the index's
        raise NotImplementedError

    def scope_stats(self, now: float, soon: float, run_id: str | None = None) -> list[tuple]:
        """Per ``(run_id, agent_id)``, aggregated by PostgreSQL: ``(run_id, agent_id, live entries, handles, scratch,
        bytes in, bytes on disk, oldest created_at, next expires_at, expiring within soon seconds, expired entries
        not swept yet, their bytes on disk, newest created_at)`` (``None`` for the times of a scope with no live
        entry); ``now`` (epoch
        seconds) decides on the caller's clock, the server's clock otherwise; ``soon`` is seconds. Of one run, or of
        every run. Raises StorageError, StoreBusy."""
        text = _SCOPE_STATS + (" WHERE run_id = %(run)s" if run_id is not None else "")
        text += " GROUP BY run_id, agent_id ORDER BY run_id, agent_id"
        return self.read(text, {"now": now, "soon": soon, "run": run_id}, "aggregating entries")

    def integrity_check(self) -> str:
        """``"ok"`` when the schema is at this scratchfs's version and the tables answer; else what is wrong.
        Raises StorageError, StoreBusy."""
        version = self.read("SELECT COALESCE(max(version), 0) FROM @S.schema_version", {}, "checking integrity")
        if version[0][0] != SCHEMA_VERSION:
            return f"schema version {version[0][0]}, expected {SCHEMA_VERSION}"
        self.read("SELECT count(*) FROM @E UNION ALL SELECT count(*) FROM @G", {}, "checking integrity")
        return "ok"
