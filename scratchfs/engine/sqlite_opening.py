"""The SQLite index file opened: checked to be a scratchfs index of this schema, else created or migrated under the
schema lock, or opened read-only. A mixin of :class:`scratchfs.engine.sqlite_index.Index` (as
:class:`~scratchfs.engine.sqlite_scale.ScaleQueries` is: it uses the index's ``connections``, ``path``,
``busy_timeout``, ``existing_data``, ``read_only``, ``write`` and ``migrated_from``).

The file is marked as ours by ``PRAGMA application_id`` (:data:`~scratchfs.engine.sqlite_connections.APPLICATION_ID`)
and :data:`SCHEMA_VERSION` in ``PRAGMA user_version`` (https://sqlite.org/pragma.html#pragma_application_id). An
empty or missing file gets the schema (:mod:`scratchfs.engine.sqlite_schema`), unless the store already holds blobs
(the index was lost or truncated: an empty one would hide them); one of an earlier version is migrated; another
application's file, or one of a newer schema, is refused and left untouched. The schema lock is a ``filelock`` file
(``locks/index.lock``), so that many processes may open one new root at once."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from filelock import FileLock, Timeout

from scratchfs.engine.sqlite_connections import APPLICATION_ID
from scratchfs.engine.sqlite_errors import index_error, read_only_reason
from scratchfs.engine.sqlite_schema import create_tables, schema_objects, schema_problem
from scratchfs.foundation.errors import ScratchError, StorageError, StoreBusy

__all__ = ["SCHEMA_VERSION", "IndexOpening"]

SCHEMA_VERSION = 3
"""The schema this scratchfs writes (``PRAGMA user_version``): 2 added the deletes in progress, 3 the index of a run's
entries by kind (an index of version 1 or 2 is migrated when it opens, under the schema lock)."""


class IndexOpening:
    """The opening of the index file, mixed into the index (see the module docstring)."""

    def open_file(self, lock_dir: Path) -> None:
        """Open the index file (see the module docstring), its schema created or migrated under the schema lock in
        ``lock_dir``. Raises StoreBusy (the schema lock or the database stayed locked), StorageError (not ours, a
        newer schema, empty beside existing data, read-only without our schema, cannot be created)."""
        connections = self.connections
        exists = self.path.exists()
        connections.read_only = read_only_reason(self.path) if exists else None
        if not exists and not os.access(self.path.parent, os.W_OK):
            raise StorageError(f"cannot create the index {self.path}: {read_only_reason(self.path.parent)}")
        if connections.read_only:
            self._open_read_only()
            return
        connections.thread_connection()  # mode=rwc: creates a missing file
        connections.opened("rw", False)  # later connections: mode=rw, and the file must stay this one
        with connections.use() as conn:
            if self._identity(conn, "reading the schema version") != (APPLICATION_ID, SCHEMA_VERSION):
                self._migrate(conn, lock_dir)

    def _open_read_only(self) -> None:
        found = self.connections.open_read_only()
        if found != (APPLICATION_ID, SCHEMA_VERSION):
            raise StorageError(f"{self.path} is read-only ({self.read_only}) and does not hold a scratchfs index of "
                               f"schema version {SCHEMA_VERSION} (application id {found[0]:#x}, version {found[1]})")

    def _identity(self, conn: sqlite3.Connection, doing: str) -> tuple[int, int]:
        return self.connections.identity_of(conn, doing)

    def _migrate(self, conn: sqlite3.Connection, lock_dir: Path) -> None:
        lock = FileLock(str(lock_dir / "index.lock"), timeout=self.busy_timeout)
        try:
            with lock:
                self._create_schema(conn)
        except Timeout:
            raise StoreBusy(f"the schema lock {lock.lock_file} stayed busy past the busy timeout") from None
        except OSError as exc:
            if isinstance(exc, ScratchError):
                raise  # the index's own (StoreBusy, StorageError) from under the lock
            raise StorageError(f"cannot take the schema lock {lock.lock_file}: {exc.strerror or exc}") from exc

    def _create_schema(self, conn: sqlite3.Connection) -> None:
        app_id, version = self._identity(conn, "reading the schema version")
        if (app_id, version) == (APPLICATION_ID, SCHEMA_VERSION):
            return
        try:
            objects = schema_objects(conn)
            # an object of our names shaped otherwise, or a trigger on one
            problem = schema_problem(conn, objects)
        except sqlite3.Error as exc:
            raise index_error(exc, "reading the schema", self.path) from exc
        tables = sorted(name for name, shape in objects.items() if shape[0] == "table")
        foreign = StorageError(
            f"{self.path} is not a scratchfs index (application id {app_id:#x}, user version {version}, tables "
            f"{', '.join(tables) or 'none'}{'; ' + problem if problem else ''}); move it away or choose another root"
        )
        if app_id not in (0, APPLICATION_ID):
            raise foreign
        if version > SCHEMA_VERSION:
            raise StorageError(f"{self.path} has schema version {version}; this scratchfs knows {SCHEMA_VERSION}")
        if (objects or version) and not (version >= 1 and "entries" in tables and problem is None):
            # neither empty nor a scratchfs index of an earlier schema (nothing of theirs touched)
            raise foreign
        if not objects and self.existing_data():
            raise StorageError(
                f"the index {self.path} is empty or missing, but the store holds blob files under "
                f"{self.path.parent / 'runs'}: the index was lost or truncated, and an empty one would hide them; "
                "restore it from a copy, rebuild it from the blobs (scratchfs fsck --rebuild-index), or move runs/ "
                "away to start afresh"
            )
        try:
            conn.execute("PRAGMA journal_mode = WAL")
        except sqlite3.Error as exc:
            raise index_error(exc, "creating the schema", self.path) from exc
        self._schema_transaction(conn)
        self.migrated_from = version or None

    def _schema_transaction(self, conn: sqlite3.Connection) -> None:
        with self.write("creating the schema"):
            # its PRAGMAs inside the transaction, so that their failure is typed too
            create_tables(conn)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
