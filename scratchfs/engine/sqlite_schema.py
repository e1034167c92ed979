"""The SQLite index's tables and indexes (``sqlite-utils`` writes the DDL): ``entries``, one row per
``(run_id, agent_id, kind, key)``, ``gone``, the tombstones, and ``deleted_scopes``, the deletes in progress
(schema 2); the index ``entries_run_kind_created`` (schema 3). Created inside the caller's transaction, idempotent."""

from __future__ import annotations

import sqlite3


def create_tables(conn: sqlite3.Connection) -> None:
    """Create the tables and indexes that do not exist yet (call inside a write transaction).

    Raises:
        sqlite3.Error: the caller types it.
    """
    import sqlite_utils  # only needed here: keeps it off the import path of every read (about 100 ms)

    db = sqlite_utils.Database(conn)
    db["entries"].create(
        {
            "id": int, "kind": str, "run_id": str, "agent_id": str, "key": str, "blob": str,
            "size": int, "stored_size": int, "frames": int, "lines": int, "preview": str,
            "source_tool": str, "content_type": str, "shape": str,
            "created_at": float, "expires_at": float, "ttl": float, "frame_newlines": bytes,
        },
        pk="id",
        not_null={"kind", "run_id", "agent_id", "key", "blob", "size", "stored_size", "frames", "lines",
                  "preview", "created_at", "expires_at", "ttl"},
        if_not_exists=True,
    )
    table = db["entries"]
    table.create_index(["run_id", "agent_id", "kind", "key"], unique=True, if_not_exists=True,
                       index_name="entries_scope_key")
    table.create_index(["expires_at"], if_not_exists=True, index_name="entries_expires_at")
    table.create_index(["run_id", "created_at"], if_not_exists=True, index_name="entries_run_created")
    table.create_index(["blob"], unique=True, if_not_exists=True, index_name="entries_blob")
    # schema 3: a run's entries of one kind in listing order, so a listing of one kind reads no row of the other
    table.create_index(["run_id", "kind", "created_at"], if_not_exists=True, index_name="entries_run_kind_created")
    db["gone"].create(
        {"run_id": str, "agent_id": str, "kind": str, "key": str, "reason": str, "at": float},
        pk=("run_id", "agent_id", "kind", "key"), not_null={"reason", "at"}, if_not_exists=True,
    )
    db["gone"].create_index(["at"], if_not_exists=True, index_name="gone_at")
    # schema 2 (issue 13): when each entry was born (written or last refreshed), for capping entries born in the
    # future after a clock step; and the deletes in progress (see scratchfs.engine.sqlite_scale)
    conn.execute("CREATE INDEX IF NOT EXISTS entries_born ON entries (expires_at - ttl)")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS deleted_scopes (run_id TEXT NOT NULL, agent_id TEXT NOT NULL, "
        "upto INTEGER NOT NULL, at REAL NOT NULL, PRIMARY KEY (run_id, agent_id, upto))"
    )


__all__ = ["create_tables"]
