"""The PostgreSQL index's rows as blob bookkeeping sees them (:mod:`scratchfs.engine.postgres_index`): every row's
blob, the rows naming given blobs, rows dropped when their blob is gone, rows moved to a compacted copy of their blob
-- what ``fsck``, the sweep's reconciliation and segment compaction ask of the index, the same answers as the SQLite
index's."""

from __future__ import annotations

from contextlib import AbstractContextManager

import psycopg

from scratchfs.engine.postgres_expiry import TOMBSTONED

__all__ = ["PostgresBlobRows"]


class PostgresBlobRows:
    """The blob bookkeeping queries of :class:`~scratchfs.engine.postgres_index.PostgresIndex` (a mixin: it needs
    the index's ``read(text, params, doing)``, ``transaction(doing)`` and ``q(text)``)."""

    def read(self, text: str, params: dict, doing: str) -> list[tuple]:  # pragma: no cover - the index's
        raise NotImplementedError

    def transaction(self, doing: str) -> AbstractContextManager[psycopg.Connection]:  # pragma: no cover - the index's
        raise NotImplementedError

    def q(self, text: str) -> str:  # pragma: no cover - the index's
        raise NotImplementedError

    def blob_rows(self) -> list[tuple[int, str, str, str]]:
        """``(id, run_id, agent_id, blob)`` of every row, expired or not."""
        return self.read("SELECT id, run_id, agent_id, blob FROM @E", {}, "listing blobs")

    def blobs(self) -> set[str]:
        """The blob token of every row."""
        return {row[0] for row in self.read("SELECT blob FROM @E", {}, "listing blobs")}

    def has_blob(self, blob: str) -> bool:
        """True if a row names this blob token."""
        return bool(self.read("SELECT 1 FROM @E WHERE blob = %(blob)s", {"blob": blob}, "looking up a blob"))

    def blob_scopes(self, blobs: list[str]) -> dict[str, tuple[str, str]]:
        """``{blob: (run_id, agent_id)}`` of the rows that name any of ``blobs``."""
        rows = self.read("SELECT blob, run_id, agent_id FROM @E WHERE blob = ANY(%(b)s)", {"b": list(blobs)},
                         "looking up blobs")
        return {row[0]: (row[1], row[2]) for row in rows}

    def delete_rows(self, rows: list[tuple[int, str]], *, reason: str | None = None, now: float = 0.0) -> int:
        """Delete rows by ``(id, blob)``, each only if it still names that blob; with ``reason`` (a
        :class:`~scratchfs.engine.protocols.Gone` reason), one still live at ``now`` (epoch seconds) leaves a
        tombstone saying it, dated ``now`` (as
        :meth:`~scratchfs.engine.postgres_expiry.PostgresExpiry.delete_scope`'s). Return rows deleted."""
        if not rows:
            return 0
        params = {"ids": [r[0] for r in rows], "blobs": [r[1] for r in rows], "reason": reason, "now": now}
        with self.transaction("removing rows whose blob is gone") as conn:
            return int(conn.execute(self.q("WITH d AS (DELETE FROM @E WHERE (id, blob) IN (SELECT * FROM unnest(%(ids)"
                                           "s::bigint[], %(blobs)s::text[])) " + (TOMBSTONED if reason else "RETURNING"
                                           " 1) SELECT count(*) FROM d")), params).fetchone()[0])

    def relocate(self, moves: list[tuple[str, str]]) -> int:
        """Point rows at a new copy of their blob, by ``(old blob, new blob)``, each only if it still names the old
        one (an overwrite or delete meanwhile wins), in one transaction; return rows moved (segment compaction)."""
        if not moves:
            return 0
        with self.transaction("moving rows to a compacted segment") as conn:
            return conn.execute(self.q("UPDATE @E SET blob = m.new FROM unnest(%s::text[], %s::text[]) AS m(old, new) "
                                       "WHERE blob = m.old"), ([m[0] for m in moves], [m[1] for m in moves])).rowcount
