"""The schema of the index: checked on open, created (or adopted) under a file lock.

With :mod:`scratchfs.engine.sqlite_index` and :mod:`scratchfs.engine.sqlite_connections`, one of the modules that
speak SQL. The tables are created with ``sqlite-utils`` (a well-kept library for SQLite schemas: typed columns, primary
keys, ``NOT NULL`` and indexes from one description, idempotent with ``if_not_exists``), imported only when a schema
is created. A file is accepted as the index when it carries :data:`~scratchfs.engine.sqlite_connections.APPLICATION_ID`
and :data:`SCHEMA_VERSION`; an empty database gets the schema; a scratchfs index from before the application id (id 0,
version 1, our tables) is adopted; anything else is another application's file and refused, untouched.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from filelock import FileLock, Timeout

from scratchfs.engine.sqlite_connections import APPLICATION_ID, index_error
from scratchfs.foundation.errors import StorageError, StoreBusy

SCHEMA_VERSION = 1
"""``PRAGMA user_version`` of the schema this code writes and reads."""
_TABLES = {"entries", "gone"}

Write = Callable[[str], AbstractContextManager[sqlite3.Connection]]


def migrate(conn: sqlite3.Connection, path: Path, lock_dir: Path, busy_timeout: float, write: Write,
            existing_data: Callable[[], bool]) -> None:
    """Check the database of ``conn`` and give it the schema if it has none, under ``lock_dir/index.lock``.

    Args:
        path: the index file (for messages).
        busy_timeout: seconds to wait for the lock.
        write: the index's transaction (``write(doing)`` yields the connection in ``BEGIN IMMEDIATE``).
        existing_data: True when the store holds blobs: an empty index is then refused.

    Raises:
        StorageError: another application's file, a newer schema, an empty index beside existing data, or a
            failure. StoreBusy: the lock or the database stayed busy.
    """
    lock = FileLock(str(lock_dir / "index.lock"), timeout=busy_timeout)
    try:
        with lock:
            _create_schema(conn, path, write, existing_data)
    except Timeout:
        raise StoreBusy(f"the schema lock {lock.lock_file} stayed busy past the busy timeout") from None
    except OSError as exc:
        if isinstance(exc, StorageError):
            raise
        raise StorageError(f"cannot take the schema lock {lock.lock_file}: {exc.strerror or exc}") from exc


def _identity(conn: sqlite3.Connection, path: Path) -> tuple[int, int]:
    try:
        return (conn.execute("PRAGMA application_id").fetchone()[0],
                conn.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.Error as exc:
        raise index_error(exc, "reading the schema version", path) from exc

def _create_schema(conn: sqlite3.Connection, path: Path, write: Write, existing_data: Callable[[], bool]) -> None:
    app_id, version = _identity(conn, path)
    if (app_id, version) == (APPLICATION_ID, SCHEMA_VERSION):
        return
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as exc:
        raise index_error(exc, "reading the schema", path) from exc
    foreign = StorageError(
        f"{path} is not a scratchfs index (application id {app_id:#x}, user version {version}, tables "
        f"{', '.join(sorted(tables)) or 'none'}); move it away or choose another root"
    )
    if app_id not in (0, APPLICATION_ID):
        raise foreign
    if version > SCHEMA_VERSION:
        raise StorageError(f"{path} has schema version {version}; this scratchfs knows {SCHEMA_VERSION}")
    if app_id == 0 and not (version == 0 and not tables) and not (version == 1 and tables >= _TABLES):
        raise foreign  # neither empty nor a scratchfs index from before the application id
    if not tables and existing_data():
        raise StorageError(
            f"the index {path} is empty or missing, but the store holds blob files under "
            f"{path.parent / 'runs'}: the index was lost or truncated, and an empty one would hide them; "
            "restore it from a copy, rebuild it from the blobs (scratchfs fsck --rebuild-index), or move runs/ "
            "away to start afresh"
        )
    try:
        conn.execute("PRAGMA journal_mode = WAL")
    except sqlite3.Error as exc:
        raise index_error(exc, "creating the schema", path) from exc
    _schema_transaction(conn, write)

def _schema_transaction(conn: sqlite3.Connection, write: Write) -> None:
    import sqlite_utils  # only needed here: keeps it off the import path of every read (about 100 ms)

    with write("creating the schema"):
        db = sqlite_utils.Database(conn)  # runs a PRAGMA: inside, so that its failure is typed too
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
        db["gone"].create(
            {"run_id": str, "agent_id": str, "kind": str, "key": str, "reason": str, "at": float},
            pk=("run_id", "agent_id", "kind", "key"), not_null={"reason", "at"}, if_not_exists=True,
        )
        db["gone"].create_index(["at"], if_not_exists=True, index_name="gone_at")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


__all__ = ["SCHEMA_VERSION", "migrate"]
