"""The SQLite index's tables and indexes (``sqlite-utils`` writes the DDL): ``entries``, one row per
``(run_id, agent_id, kind, key)``, ``gone``, the tombstones, and ``deleted_scopes``, the deletes in progress
(schema 2); the index ``entries_run_kind_created`` (schema 3). Created inside the caller's transaction, idempotent.
:func:`schema_problem` tells an index file whose objects of those names are another's (checked before a migration
touches it)."""

from __future__ import annotations

import functools
import re
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


def schema_objects(conn: sqlite3.Connection) -> dict[str, tuple]:
    """The shape of each object of a database's schema, by name: a table's columns (name, declared type, not null,
    default, primary key), its automatic indexes and its options (``WITHOUT ROWID``, ``STRICT``); an index's table,
    uniqueness, partial ``WHERE``, key columns (and its text for an index on expressions or a partial one); a view's
    or trigger's type and table. Read from ``sqlite_master`` and the ``table_info``, ``index_list`` and
    ``index_xinfo`` pragmas (https://sqlite.org/pragma.html, https://sqlite.org/schematab.html).

    Raises:
        sqlite3.Error: the caller types it.
    """
    shapes: dict[str, tuple] = {}
    for kind, name, table, sql in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"):
        if kind == "table":
            columns = tuple(conn.execute('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)',
                                         (name,)))
            autos = tuple(sorted(conn.execute("SELECT \"unique\", origin, partial FROM pragma_index_list(?) "
                                              "WHERE origin != 'c'", (name,))))  # a non-rowid or UNIQUE table
            options = _spelled(sql or "").rpartition(")")[2]  # WITHOUT ROWID, STRICT
            shapes[name] = (kind, columns, autos, options)
        elif kind == "index":
            unique, partial = conn.execute(
                "SELECT \"unique\", partial FROM pragma_index_list(?) WHERE name = ?", (table, name)).fetchone() or (
                None, None)
            keys = tuple(conn.execute("SELECT cid, name, \"desc\", coll FROM pragma_index_xinfo(?) WHERE key",
                                      (name,)))
            text = _spelled(sql or "") if any(cid == -2 for cid, *_ in keys) or partial else ""
            shapes[name] = (kind, table, unique, partial, keys, text)
        else:
            shapes[name] = (kind, table)
    return shapes


def _spelled(sql: str) -> str:
    """``sql`` without quotes, blanks and case (two spellings of one definition compare equal)."""
    return re.sub(r'[\s"`\[\]]+', "", sql).lower()


@functools.lru_cache(maxsize=1)
def _ours() -> dict[str, tuple]:
    """:func:`schema_objects` of the schema :func:`create_tables` makes."""
    conn = sqlite3.connect(":memory:")
    try:
        with conn:
            create_tables(conn)
        return schema_objects(conn)
    finally:
        conn.close()


def schema_problem(conn: sqlite3.Connection, objects: dict[str, tuple] | None = None) -> str | None:
    """``None`` if every object of the schema named as one of scratchfs's tables and indexes is shaped as
    :func:`create_tables` makes it (those missing are left for it to create; objects of other names are the
    user's, kept as they are) and no trigger fires on those tables, else what differs: an index file holding
    that is not an old scratchfs index, and a migration must not touch it. ``objects``: the database's
    :func:`schema_objects`, when the caller has read them already.

    Raises:
        sqlite3.Error: the caller types it.
    """
    ours = _ours()
    for name, shape in (schema_objects(conn) if objects is None else objects).items():
        if shape[0] == "trigger" and shape[1] in ours:
            return f"a trigger {name} on {shape[1]}"
        if name in ours and shape != ours[name]:
            return f"its {shape[0]} {name} is not scratchfs's"
    return None


__all__ = ["create_tables", "schema_objects", "schema_problem"]
