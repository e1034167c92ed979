"""The PostgreSQL index: the entries of a store shared by many hosts, in one PostgreSQL database.

The same rows, tombstones, quotas and expiry semantics as :mod:`scratchfs.engine.sqlite_index` (it implements
:class:`scratchfs.engine.protocols.IndexBackend`, ``now`` arguments included), in a schema of its own
(``scratchfs`` by default)::

    <schema>.schema_version (version integer)                  one row per applied migration
    <schema>.entries        (id bigserial primary key, kind, run_id, agent_id, key, blob unique, size, stored_size,
                             frames, lines, preview, source_tool, content_type, shape, created_at, expires_at, ttl
                             -- epoch seconds, float8 --, frame_newlines bytea); unique (run_id, agent_id, kind, key);
                             preview and shape are UTF-8 bytea (text cannot hold the NUL a preview may show)
    <schema>.gone           (run_id, agent_id, kind, key, reason, at) primary key (run_id, agent_id, kind, key)
    <schema>.scope_tombstones (run_id, agent_id -- '' for a run --, reason, at, marked) the last delete of a scope

**Clock.** With ``clock="database"`` (what :func:`scratchfs.engine.backends.open_backends` picks for a store on the
real clock) every expiry decision -- what is live, what a sweep pops, the times a row is written and refreshed
with, a tombstone's age -- is the database server's ``statement_timestamp()``, the one clock all hosts share; the
``now`` arguments are ignored. With ``clock="caller"`` the ``now`` arguments decide (a store on a test clock).

**Scope** is part of every statement's ``WHERE`` clause (``run_id`` and ``agent_id`` as bound parameters; no SQL is
ever built from an id). **Quotas** are checked under a per-run transaction-level advisory lock, so two hosts cannot
both pass the check. **Schema**: created and migrated when the index opens, in one transaction under an advisory
lock (many hosts may open a new database at once); ``schema_version`` records each applied step. Upgrade path: a
new scratchfs appends a step to :data:`scratchfs.engine.postgres_schema.MIGRATIONS` and bumps its
:data:`~scratchfs.engine.postgres_schema.SCHEMA_VERSION`; the first store of the new
version to open applies the missing steps in one transaction; an older scratchfs refuses a newer schema with
:class:`StorageError` instead of misreading it.

**Platform cascade.** ``runs_table="runs(id)"`` (optionally ``"schema.table(column)"``) adds a foreign key from
``entries.run_id`` to the platform's own runs table with ``ON DELETE CASCADE``: deleting the platform's run row
deletes its entries in the same transaction; the sweeper then removes the blobs no row names (orphans). A write for
a run the platform does not know fails with :class:`InvalidArgument` (exit code 2). The tie is the schema's: an
opening whose URL leaves ``runs_table`` off keeps it (one host's URL does not change the fleet's schema; an admin ends
it, :func:`scratchfs.engine.postgres_schema.untie_command`), and one naming another table is refused. The
referenced column must be ``text`` (or ``varchar``) with a unique constraint.

**Failures** are typed within a bounded time: connections come from a ``psycopg_pool`` pool that waits at most
``busy_timeout`` seconds for a connection from a server that is up, and fails at once when the server refuses a fresh
connection (:mod:`scratchfs.engine.postgres_pool`); every session has ``statement_timeout`` and ``lock_timeout`` set
to the busy timeout. A lock or statement timeout, a deadlock, a serialization failure or a pool wait that ran out
while the server is up raises :class:`StoreBusy`; a server that is down, refusing or failing raises
:class:`StorageError`. Library: psycopg 3 with psycopg_pool, the PostgreSQL project's maintained Python driver and
its pool (binary protocol, server-side parameters, health-checked pooled connections re-made after a server restart).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import ConnectionPool, PoolTimeout

from scratchfs.engine.entry_sql import ENTRY_COLUMNS, UPSERT_SET
from scratchfs.engine.keyset import LISTING_ORDER, NEWEST_FIRST_ORDER, page_filter
from scratchfs.engine.postgres_blob_rows import PostgresBlobRows
from scratchfs.engine.postgres_connect import pipelined
from scratchfs.engine.postgres_expiry import DB_NOW, DELETE_KEY, PostgresExpiry, overtaken
from scratchfs.engine.postgres_locks import PostgresLocks
from scratchfs.engine.postgres_pool import IndexPool, local_turn
from scratchfs.engine.postgres_schema import (
    SCHEMA_VERSION,
    connect_advice,
    flag_unavailable,
    lock_key,
    migrate,
    no_answer,
    refusal,
)
from scratchfs.engine.postgres_stats import PostgresAggregates
from scratchfs.engine.protocols import Entry, ExpiredRow, Gone, check_quota
from scratchfs.foundation.errors import StorageError, StoreBusy, StoreClosed
from scratchfs.foundation.limits import TOMBSTONE_SECONDS

__all__ = ["PostgresIndex"]

_SCHEMA_RE = re.compile(r"[a-z_][a-z0-9_]{0,62}\Z")
_RUNS_RE = re.compile(r"\s*(?:([A-Za-z_]\w{0,62})\.)?([A-Za-z_]\w{0,62})\s*\(\s*([A-Za-z_]\w{0,62})\s*\)\s*\Z")
_LOCKED_NOW = ("SELECT locked, extract(epoch from clock_timestamp())::float8, extract(epoch from "
               "statement_timestamp())::float8 FROM (SELECT pg_try_advisory_xact_lock_shared(%s) AS locked) AS t")
# (held, or False while a delete holds it: the write waits after its rollback; as received: seconds)
_USAGE = "SELECT COALESCE(SUM(stored_size), 0)::bigint, COUNT(*) FROM @E WHERE run_id = %(run)s AND expires_at > @NOW"
_SCOPE_KEY = "run_id = %(run)s AND agent_id = %(agent)s AND kind = %(kind)s AND key = %(key)s"
_UPSERT = f"INSERT INTO @E ({ENTRY_COLUMNS}, frame_newlines) VALUES ({', '.join(['%s'] * 17)}) {UPSERT_SET}"
_RESTORE = (  # a row restored from its blob (keep_times): unless a newer row, a tombstone as new of its key or a
    # delete as new of its run or agent holds it
    f"INSERT INTO @E AS t ({ENTRY_COLUMNS}, frame_newlines) SELECT %s::text, %s::text, %s::text, %s::text, %s::text, "
    "%s::bigint, %s::bigint, %s::integer, %s::bigint, %s::bytea, %s::text, %s::text, %s::bytea, %s::float8, "
    "%s::float8, %s::float8, %s::bytea WHERE NOT EXISTS (SELECT 1 FROM @G WHERE run_id = %s AND agent_id = %s AND "
    "kind = %s AND key = %s AND at >= %s) AND NOT EXISTS (SELECT 1 FROM @S.scope_tombstones WHERE run_id = %s AND "
    f"agent_id IN ('', %s) AND at >= %s) {UPSERT_SET} WHERE t.created_at < excluded.created_at RETURNING blob")
_IF_RESTORED = " AND EXISTS (SELECT 1 FROM @E WHERE blob = %(blob)s)"


def _typed(exc: BaseException, doing: str, runs: tuple[str | None, str, str] | None = None,
           schema: str = "scratchfs", role: str | None = None) -> Exception:
    """The store's error for a psycopg or pool failure (the DSN and its password never appear in a message);
    ``role``: the user of the connection it came from (named in a refused privilege's grants)."""
    if isinstance(exc, (pg_errors.LockNotAvailable, pg_errors.QueryCanceled, pg_errors.DeadlockDetected,
                        pg_errors.SerializationFailure)):
        return StoreBusy(f"the index database stayed busy past the busy timeout while {doing}")
    if isinstance(exc, PoolTimeout):
        return flag_unavailable(exc, StorageError(f"no connection to the index database within the busy timeout "
                                                  f"while {doing} (the server is down, refusing or overloaded)"))
    if isinstance(exc, (pg_errors.ForeignKeyViolation, pg_errors.InsufficientPrivilege)):
        return refusal(exc, doing, runs, schema, role)
    text = no_answer(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
    # (what to fix, as at the opening: a server gone down under a running store said only "Connection refused")
    return flag_unavailable(exc, StorageError(f"the index database failed while {doing}: {text}"
                                              f"{connect_advice(text)}"))


class PostgresIndex(PostgresAggregates, PostgresBlobRows, PostgresExpiry, PostgresLocks):
    """The entries table of a store, in PostgreSQL (see the module docstring).

    Args:
        dsn: a libpq connection string or ``postgresql://`` URL (never logged or put in an error message).
        schema: the schema holding the tables (lower-case letters, digits, ``_``); created if missing.
        busy_timeout: seconds to wait for a connection, a lock or a statement before :class:`StoreBusy` or
            :class:`StorageError`.
        runs_table: ``"table(column)"`` or ``"schema.table(column)"``: tie ``entries.run_id`` to the platform's
            runs table with ``ON DELETE CASCADE``; ``None`` for no foreign key.
        clock: ``"database"`` (the server's clock decides expiry) or ``"caller"`` (the ``now`` arguments do).
        pool_size: most connections this process keeps open.

    Raises:
        InvalidArgument-like ``ValueError``: a bad schema, runs table or clock; InvalidArgument: the schema is tied
            to another runs table, or its entries name runs the runs table lacks.
        StorageError: the database cannot be reached, the schema is newer than this scratchfs knows, or the role
            lacks the privilege that creating or migrating what is missing takes (named). StoreBusy: the schema lock
            stayed busy.
    """

    def __init__(self, dsn: str, *, schema: str = "scratchfs", busy_timeout: float = 30.0,
                 runs_table: str | None = None, clock: str = "database", pool_size: int = 8) -> None:
        if not _SCHEMA_RE.match(schema):
            raise ValueError(f"schema must be lower-case letters, digits and _ (at most 63): {schema!r}")
        if clock not in ("database", "caller"):
            raise ValueError(f"clock must be 'database' or 'caller': {clock!r}")
        self._runs = None if runs_table is None else _RUNS_RE.match(runs_table)
        if runs_table is not None and self._runs is None:
            raise ValueError(f"runs_table must look like 'runs(id)' or 'schema.runs(id)': {runs_table!r}")
        self.schema, self.busy_timeout, self.database_clock = schema, busy_timeout, clock == "database"
        self._connections = IndexPool(dsn, busy_timeout, pool_size, self._configure)
        self._now = DB_NOW if self.database_clock else "%(now)s"
        self._sql: dict[str, str] = {}
        self._sweep_lock_key = lock_key(f"scratchfs sweep {schema}")
        self._delete_lock_key = lock_key(f"scratchfs delete {schema}")
        self.migrated_from: int | None = None
        """The schema version this object migrated the index from when it opened it, or ``None``."""
        self.found_version = 0
        """The schema version found as it opened (0: none; the schema was created)."""
        try:
            self._migrate()
        except BaseException:
            self._connections.close()  # (no pool left behind by an opening that failed)
            raise

    # -- connections ----------------------------------------------------------------------------------------------

    def _configure(self, conn: psycopg.Connection) -> None:
        ms = max(1, int(self.busy_timeout * 1000))
        conn.execute(f"SET statement_timeout = {ms}; SET lock_timeout = {ms}; "
                     f"SET idle_in_transaction_session_timeout = {max(ms, 60_000)}")

    def pool(self) -> ConnectionPool:
        """This process's connection pool (:meth:`IndexPool.pool`)."""
        return self._connections.pool()

    @contextmanager
    def connection(self, doing: str) -> Iterator[psycopg.Connection]:
        """A pooled connection (autocommit) for one operation; psycopg and pool errors become the store's."""
        role = None
        try:
            with self._connections.connection() as conn:
                role = conn.info.user  # (libpq's, no round trip: the role a refused privilege's grants name)
                yield conn
        except (psycopg.Error, PoolTimeout) as exc:
            raise _typed(exc, doing, self._runs.groups() if self._runs is not None else None, self.schema,
                         role) from None

    @contextmanager
    def transaction(self, doing: str) -> Iterator[psycopg.Connection]:
        """One transaction on a pooled connection: committed on success, rolled back on any exception."""
        with self.connection(doing) as conn, conn.transaction():
            yield conn

    @contextmanager
    def batch(self, doing: str) -> Iterator[psycopg.Connection]:
        """One transaction on a pooled connection in pipeline mode (:func:`~.postgres_connect.pipelined`); errors
        raised as :meth:`connection` raises them."""
        with self.connection(doing) as conn, pipelined(conn):
            yield conn

    def q(self, text: str) -> str:
        """``text`` with ``@E``/``@G``/``@S`` (tables, schema) and ``@NOW`` (the clock's epoch seconds) filled in."""
        found = self._sql.get(text)
        if found is None:
            schema = f'"{self.schema}"'
            found = (text.replace("@E", f"{schema}.entries").replace("@G", f"{schema}.gone")
                     .replace("@S", schema).replace("@NOW", self._now))
            self._sql[text] = found
        return found

    def read(self, text: str, params: dict, doing: str) -> list[tuple]:
        """Run one read-only statement (see :meth:`q`) and return all rows."""
        with self.connection(doing) as conn:
            return conn.execute(self.q(text), params, prepare=True).fetchall()

    def close(self) -> None:
        """Close this process's pool (a forked child leaves its parent's alone). Idempotent."""
        self._connections.close()

    @property
    def read_only(self) -> str | None:
        """Why the index cannot be written, or ``None``: a PostgreSQL index is writable while it answers (a
        refusal is a :class:`StorageError` of the write itself)."""
        return None

    def check_writable(self, doing: str) -> None:
        """Raise :class:`StoreClosed` once the index is closed (``doing``: a gerund phrase, for the message)."""
        if self._connections.closed:
            raise StoreClosed(f"the store is closed (while {doing})")

    def release_thread(self) -> None:
        """Nothing to do: connections are pooled per process, not per thread."""

    # -- schema ---------------------------------------------------------------------------------------------------

    def _migrate(self) -> None:
        try:  # (a refusal, a wrong password or a server that does not answer is told as such, not as the schema's)
            self._connections.pool()
        except (psycopg.Error, PoolTimeout) as exc:
            raise _typed(exc, "connecting to it") from None  # (with what to fix: connect_advice)
        try:
            with self.connection("checking the index schema (creating or migrating it if needed)") as conn:
                found = migrate(conn, self.schema, self._runs.groups() if self._runs is not None else None)
            self.migrated_from = found if 0 < found < SCHEMA_VERSION else None
            self.found_version = found
        except PoolTimeout as exc:
            raise _typed(exc, "opening the index") from None

    # -- entries --------------------------------------------------------------------------------------------------

    def lookup(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> Entry | None:
        """The live entry of a scope and key (``expires_at`` after the clock's now), or ``None``."""
        found = self.lookup_with_lines(run_id, agent_id, kind, key, now)
        return found[0] if found else None

    def lookup_with_lines(self, run_id: str, agent_id: str, kind: str, key: str,
                          now: float) -> tuple[Entry, bytes] | None:
        """Like :meth:`lookup`, with the entry's per-frame newline counts (``array('I')`` bytes)."""
        rows = self.read(f"SELECT {ENTRY_COLUMNS}, frame_newlines FROM @E WHERE {_SCOPE_KEY} AND expires_at > @NOW",
                         {"run": run_id, "agent": agent_id, "kind": kind, "key": key, "now": now},
                         "looking up an entry")
        return (_entry(rows[0][:-1]), bytes(rows[0][-1] or b"")) if rows else None

    def gone(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> Gone | None:
        """Why the entry of a scope and key is not live: expired (row not swept yet) or a recent tombstone."""
        rows = self.read(
            f"SELECT 'expired', expires_at FROM @E WHERE {_SCOPE_KEY} AND expires_at <= @NOW "
            f"AND expires_at > @NOW - %(keep)s UNION ALL SELECT reason, at FROM @G WHERE {_SCOPE_KEY} "
            "AND at > @NOW - %(keep)s",
            {"run": run_id, "agent": agent_id, "kind": kind, "key": key, "now": now, "keep": TOMBSTONE_SECONDS},
            "looking up an entry",
        )
        return Gone(*rows[0]) if rows else None

    def scope_deleted_at(self, run_id: str, agent_id: str) -> float | None:
        """``None``: a PostgreSQL index deletes a run's or agent's rows in one transaction, so no delete of a scope
        is ever in progress (the SQLite index's deletes in batches are; see its ``scope_deleted_at``)."""
        return None

    def usage(self, run_id: str, now: float) -> tuple[int, int]:
        """``(stored bytes, entries)`` of a run's live entries."""
        with self.connection("reading a run's usage") as conn:
            return self._usage(conn, run_id, now)

    def _usage(self, conn: psycopg.Connection, run_id: str, now: float) -> tuple[int, int]:
        row = conn.execute(self.q(_USAGE), {"run": run_id, "now": now}, prepare=True).fetchone()
        return int(row[0]), int(row[1])

    def put(self, entry: Entry, frame_newlines: bytes, check: Callable[[], bool],
            quota: tuple[int | None, int | None] = (None, None), keep_times: bool = False,
            began: float | None = None, proven: bool = False) -> tuple[bool, str | None]:
        """Insert or replace the row of ``(run_id, agent_id, kind, key)`` in one transaction (see
        :meth:`scratchfs.engine.sqlite_index.Index.put`). With the database clock the row's ``created_at`` is the
        server's now and ``expires_at`` that plus ``ttl`` -- unless ``keep_times`` (a row rebuilt from its blob,
        :func:`scratchfs.api.restore.restore_blob`): the entry's ``created_at`` and ``expires_at`` (epoch seconds),
        and it is written only if no row as new holds its key and no tombstone as new of its key, run or agent (else
        ``(False, None)``), checked in its transaction: a key a live index's host wrote or deleted meanwhile, or a
        run or agent it deleted, is never taken back.

        Three round trips after the pool's check, in psycopg's pipeline mode (libpq's "Pipeline Mode"): the
        ``BEGIN`` with the shared delete lock and the clock; ``check()`` (the blob's ``HEAD``, under the lock); the
        statements and the ``COMMIT`` in one batch. A quota reads the old row first: one more. ``check``: the
        pending blob's ``exists``; ``began``, ``proven``: its :attr:`~scratchfs.engine.protocols.PendingWrite.began`
        and ``gone_means_deleted``, which date the write's start on the database's clock, which a delete that
        overtook it is ordered by (:func:`.postgres_expiry.write_start`, :data:`.postgres_expiry.OVERTAKEN`).

        Raises:
            QuotaExceeded: the run would go over a quota; nothing was written.
            StorageError: the platform's runs table has no such run (``runs_table``), the database failed, or the
                blob is gone though no delete of its scope took it (an orphan sweep, an outsider): nothing written.
            StoreBusy: a delete of a run or agent held the delete lock past the busy timeout -- waited out holding no
                pooled connection (:meth:`wait_out_deletes`) --, this process's other writes held the connections a
                write may hold across its S3 check (:attr:`~.postgres_pool.IndexPool.long_slots`) past it, or a
                statement stayed locked: nothing written.
            StoreClosed: the store was closed while this waited.
        """
        deadline = time.monotonic() + self.busy_timeout
        while True:  # (a delete holding the delete lock: waited out holding no connection, then tried again)
            # at most long_slots writes of this process hold a connection across their S3 check: a slow object
            # store held all 8, and every read failed "no connection ... the server is down"
            with local_turn(self._connections.turn("check", self._connections.long_slots),
                            max(0.0, deadline - time.monotonic())) as left:
                if left is None:
                    raise StoreBusy("the index database stayed busy past the busy timeout while writing an entry "
                                    "(this process's other writes held their connections, checking their blobs)")
                try:
                    return self._put_once(entry, frame_newlines, check, quota, keep_times, began, proven)
                except _DeleteRunning:
                    pass
            self.wait_out_deletes(deadline, "writing an entry")

    def _put_once(self, entry: Entry, frame_newlines: bytes, check: Callable[[], bool],
                  quota: tuple[int | None, int | None], keep_times: bool, began: float | None,
                  proven: bool) -> tuple[bool, str | None]:
        """:meth:`put`'s one transaction; raises :class:`_DeleteRunning` (rolled back) while a delete holds the lock."""
        e, ident = entry, {"run": entry.run_id, "agent": entry.agent_id, "kind": entry.kind, "key": entry.key}
        stamp = self.database_clock and not keep_times
        with self.batch("writing an entry") as conn:
            # the delete lock, shared (see delete_lock): no delete of a scope runs between the check and the commit;
            # sent with the BEGIN, and the database clock read once it is held (a volatile subquery runs first)
            sent = time.monotonic()
            locked, database_now, received = conn.execute(_LOCKED_NOW, (self._delete_lock_key,)).fetchone()
            if not locked:  # (rolled back: this thread's connection goes back to the pool while it waits)
                raise _DeleteRunning
            clocks = (sent, received, database_now, time.monotonic())  # (the write's start lies between: write_start)
            if not check():  # a delete of its run or agent took the blob: the write is ordered before it, and its
                # tombstone is the delete's; else the blob went some other way (StorageError)
                overtaken(conn, self.q, ident, e.key, (began, proven, e.created_at, *clocks))
                return False, None
            created = database_now if stamp else e.created_at
            expires = created + e.ttl if stamp else e.expires_at
            if quota != (None, None):
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(f"scratchfs quota {e.run_id}"),))
            old = None if e.kind == "handle" else conn.execute(
                self.q(f"SELECT blob, stored_size, expires_at FROM @E WHERE {_SCOPE_KEY} FOR UPDATE"), ident)
            if quota != (None, None):  # (the old row and the run's usage read in one batch: a round trip more)
                old = self._check_quota(conn, e, created, old, quota)
            values = (e.kind, e.run_id, e.agent_id, e.key, e.blob, e.size, e.stored_size, e.frames, e.lines,
                      _utf8(e.preview), e.source_tool, e.content_type, _utf8(e.shape), created, expires, e.ttl,
                      frame_newlines)
            restored = (*values, *ident.values(), e.created_at, e.run_id, e.agent_id, e.created_at)
            put = conn.execute(self.q(_RESTORE), restored) if keep_times else conn.execute(self.q(_UPSERT), values)
            if e.kind != "handle":  # (a restored row's tombstone only if it was written: not a newer delete's)
                conn.execute(self.q(f"DELETE FROM @G WHERE {_SCOPE_KEY}" + _IF_RESTORED * keep_times),
                             {**ident, "blob": e.blob})
        if keep_times and put.fetchone() is None:  # (sent with the COMMIT: fetched now)
            return False, None  # a newer entry, or a delete as new as it, holds its key (a live index's, meanwhile)
        old = old.fetchone() if isinstance(old, psycopg.Cursor) else old
        return True, (old[0] if old else None)

    def _check_quota(self, conn: psycopg.Connection, e: Entry, now: float, old: psycopg.Cursor | None,
                     quota: tuple[int | None, int | None]) -> tuple | None:
        """Raise QuotaExceeded if ``e`` would take its run over ``quota``; ``old``: the query of the key's row (sent,
        its result not yet fetched), whose row is returned."""
        usage = conn.execute(self.q(_USAGE), {"run": e.run_id, "now": now}, prepare=True)
        row = old and old.fetchone()
        stored, count = usage.fetchone()
        check_quota(e, int(stored), int(count), None if row is None else (row[1], row[2] > now), quota)
        return row

    def delete_key(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> tuple[bool, str | None]:
        """Delete the row of a scope and key (leaving a tombstone); return ``(it was live, its blob or None)``. One
        statement (:data:`~scratchfs.engine.postgres_expiry.DELETE_KEY`), one round trip after the pool's check."""
        params = {"run": run_id, "agent": agent_id, "kind": kind, "key": key, "now": now}
        with self.connection("deleting an entry") as conn:
            row = conn.execute(self.q(DELETE_KEY), params).fetchone()
        return (False, None) if row is None else (bool(row[1]), row[0])

    @staticmethod
    def _live_in_run(run_id: str, agent_id: str | None, kind: str | None, prefix: str,
                     now: float) -> tuple[str, dict]:
        """``SELECT`` of a run's live entries (of one agent and kind, keys starting with ``prefix``, when given) and
        its parameters: the one filter of every listing."""
        text = f"SELECT {ENTRY_COLUMNS} FROM @E WHERE run_id = %(run)s AND expires_at > @NOW"
        if agent_id is not None:
            text += " AND agent_id = %(agent)s"
        if kind is not None:
            text += " AND kind = %(kind)s"
        if prefix:
            text += " AND left(key, %(plen)s) = %(prefix)s"
        params = {"run": run_id, "agent": agent_id, "kind": kind, "prefix": prefix, "plen": len(prefix), "now": now}
        return text, params

    def list_scope(self, run_id: str, agent_id: str | None, kind: str | None, prefix: str, now: float) -> list[Entry]:
        """Live entries of a run (every agent when ``agent_id`` is None), of one kind or all, whose key starts with
        ``prefix`` (exactly, case-sensitive); ordered by ``(created_at, agent_id, kind, key)``, as :meth:`list_page`
        pages them."""
        text, params = self._live_in_run(run_id, agent_id, kind, prefix, now)
        return list(map(_entry, self.read(text + LISTING_ORDER, params, "listing entries")))

    def list_page(self, run_id: str, agent_id: str | None, kind: str | None, prefix: str, now: float,
                  after: tuple[float, str, str, str] | None, limit: int, *, newest_first: bool = False) -> list[Entry]:
        """Like :meth:`list_scope`, one keyset page at a time: at most ``limit`` live entries ordered by
        ``(created_at, agent_id, kind, key)`` after the position ``after`` (``None``: from the start);
        ``newest_first``: the order reversed, the entries before ``after``."""
        text, params = self._live_in_run(run_id, agent_id, kind, prefix, now)
        if after is not None:
            text += (f" AND (created_at, agent_id, kind, key) {'<' if newest_first else '>'} "
                     "(%(a0)s, %(a1)s, %(a2)s, %(a3)s)")
            params.update(a0=after[0], a1=after[1], a2=after[2], a3=after[3])
        text += (NEWEST_FIRST_ORDER if newest_first else LISTING_ORDER) + " LIMIT %(limit)s"
        params["limit"] = limit
        return list(map(_entry, self.read(text, params, "listing entries")))

    def page(self, now: float, after: tuple[str, float, int] | None, limit: int, run_id: str | None = None,
             agent_id: str | None = None, kind: str | None = None) -> list[tuple[Entry, tuple[str, float, int]]]:
        """Up to ``limit`` live entries (of one run, agent and kind when given) ordered by ``(run_id, created_at,
        id)`` after the cursor ``after`` (``None``: from the first), each with its own cursor: one bounded read, of
        one kind by the index ``entries_run_kind_created`` (:mod:`scratchfs.engine.keyset`)."""
        where = page_filter(run_id, agent_id, kind, after, _named)
        if where is None:
            return []
        text = " AND ".join([f"SELECT {ENTRY_COLUMNS}, id FROM @E WHERE expires_at > @NOW", *where[0]])
        rows = self.read(text + " ORDER BY run_id, created_at, id LIMIT %(limit)s",
                         {**where[1], "now": now, "limit": limit}, "listing entries")
        return [(_entry(r[:-1]), (r[1], r[13], r[-1])) for r in rows]

    def count_after(self, now: float, after: tuple[str, float, int] | None, run_id: str | None = None,
                    agent_id: str | None = None, kind: str | None = None) -> int:
        """How many live entries :meth:`page` would list after the cursor ``after``: one ``COUNT``, no row loaded."""
        where = page_filter(run_id, agent_id, kind, after, _named)
        if where is None:
            return 0
        text = " AND ".join(["SELECT COUNT(*) FROM @E WHERE expires_at > @NOW", *where[0]])
        return int(self.read(text, {**where[1], "now": now}, "counting entries")[0][0])

    def list_all(self, now: float) -> list[Entry]:
        """Every live entry of every run, ordered by run, agent, creation time."""
        rows = self.read(f"SELECT {ENTRY_COLUMNS} FROM @E WHERE expires_at > @NOW ORDER BY run_id, agent_id, "
                         "created_at, id", {"now": now}, "listing entries")
        return list(map(_entry, rows))

    def touch(self, run_id: str, agent_id: str, kind: str, key: str, blob: str, expires_at: float,
              now: float) -> None:
        """Move an entry's expiry later -- to ``expires_at`` (caller's clock) or, with the database clock, to the
        server's now plus the entry's TTL -- if it is still live at ``now`` (the server's now with the database
        clock): a row a sweep judged expired, whose blob it may have removed already, is never revived."""
        target = "@NOW + ttl" if self.database_clock else "%(until)s"
        with self.connection("refreshing an entry") as conn:
            conn.execute(self.q(f"UPDATE @E SET expires_at = {target} WHERE {_SCOPE_KEY} AND blob = %(blob)s "
                                f"AND expires_at < {target} AND expires_at > @NOW"),
                         {"run": run_id, "agent": agent_id, "kind": kind, "key": key, "blob": blob,
                          "until": expires_at, "now": now})

    # -- sweeping -------------------------------------------------------------------------------------------------

    def pop_expired(self, now: float, limit: int) -> list[ExpiredRow]:
        """Delete up to ``limit`` expired rows in one short transaction (rows another sweeper holds are skipped) and
        return them; recent ones leave an ``expired`` tombstone."""
        with self.transaction("sweeping expired entries") as conn:
            rows = conn.execute(self.q(
                "WITH d AS (DELETE FROM @E WHERE id IN (SELECT id FROM @E WHERE expires_at <= @NOW "
                "ORDER BY expires_at LIMIT %(limit)s FOR UPDATE SKIP LOCKED) "
                "RETURNING run_id, agent_id, kind, key, blob, stored_size, expires_at), "
                "t AS (INSERT INTO @G SELECT run_id, agent_id, kind, key, 'expired', expires_at FROM d "
                "WHERE expires_at > @NOW - %(keep)s ON CONFLICT (run_id, agent_id, kind, key) DO UPDATE SET "
                "reason = excluded.reason, at = excluded.at) SELECT run_id, agent_id, blob, stored_size FROM d"),
                {"limit": limit, "now": now, "keep": TOMBSTONE_SECONDS}).fetchall()
        return [ExpiredRow(r[0], r[1], r[2], int(r[3])) for r in rows]

    def forget_tombstones(self, now: float) -> int:
        """Delete tombstones older than :data:`TOMBSTONE_SECONDS` (``at`` against ``now``, epoch seconds), and the
        marks of deletes of a run or agent as old on the database's clock (``scope_tombstones``,
        :data:`~scratchfs.engine.postgres_expiry.MARK_DELETE`); return how many tombstones."""
        with self.connection("forgetting tombstones") as conn:
            conn.execute(self.q(f"DELETE FROM @S.scope_tombstones WHERE marked <= {DB_NOW} - %(keep)s"),
                         {"keep": TOMBSTONE_SECONDS})
            return conn.execute(self.q("DELETE FROM @G WHERE at <= @NOW - %(keep)s"),
                                {"now": now, "keep": TOMBSTONE_SECONDS}).rowcount

    # -- fleet ----------------------------------------------------------------------------------------------------

    def database_now(self) -> float:
        """The database server's time, epoch seconds."""
        return float(self.read(f"SELECT {DB_NOW}", {}, "reading the database clock")[0][0])


class _DeleteRunning(Exception):
    """A delete of a run or agent holds the delete lock: the write's transaction rolls back and waits it out."""


def _utf8(text: str | None) -> bytes | None:
    """Text kept as UTF-8 ``bytea`` (PostgreSQL ``text`` cannot hold NUL, which a preview of binary content may)."""
    return None if text is None else text.encode("utf-8", "surrogatepass")


def _named(name: str) -> str:
    return f"%({name})s"


def _entry(row: tuple) -> Entry:
    """An :class:`Entry` from a row of ``ENTRY_COLUMNS`` (preview and shape decoded from UTF-8)."""
    values = list(row)
    values[9] = bytes(values[9]).decode("utf-8", "surrogatepass")
    if values[12] is not None:
        values[12] = bytes(values[12]).decode("utf-8", "surrogatepass")
    return Entry._make(values)
