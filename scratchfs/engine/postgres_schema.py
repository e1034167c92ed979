"""The PostgreSQL index's schema: its tables, the steps that create and migrate them, the platform cascade.

Tables (in the index's own schema, ``scratchfs`` by default; see :mod:`scratchfs.engine.postgres_index`)::

    schema_version (version integer primary key, applied_at)   one row per applied step
    entries        one row per (run_id, agent_id, kind, key); preview and shape as UTF-8 bytea (text cannot hold NUL)
    gone           tombstones of the last hour, by (run_id, agent_id, kind, key)
    scope_tombstones the last delete of a run (agent_id '') or agent of the last hour, with or without entries:
                   reason, at (the deleter's store clock, as a tombstone's) and marked (the database's clock)
    store          one row: the store id and the blob location the index is paired with (scratchfs.engine.pairing),
                   when, and the store id it took over (took_over: '' for none, NULL if paired before version 5)

Upgrade path: a new scratchfs appends a step to :data:`MIGRATIONS` and bumps :data:`SCHEMA_VERSION`; the first store
of the new version to open applies the missing steps in one transaction under an advisory lock (many hosts may open
at once); an older scratchfs refuses a newer schema with :class:`StorageError` instead of misreading it.
"""

from __future__ import annotations

import hashlib
import re
import shlex

import psycopg
from psycopg import sql as pg_sql
from psycopg_pool import PoolTimeout

from scratchfs.engine.postgres_connect import bounded_connect
from scratchfs.foundation.errors import InvalidArgument, StorageError
from scratchfs.foundation.text import shorten

__all__ = ["MIGRATIONS", "SCHEMA_NAME", "SCHEMA_VERSION", "TABLES", "busy_refusal", "connect_advice",
           "flag_unavailable", "grant_statements", "holds_index", "lock_key", "migrate", "no_answer",
           "privilege_refusal", "probe", "quoted", "refusal", "reserved_role", "run_refusal", "runs_name",
           "runtime_grants", "untie_command"]

SCHEMA_VERSION = 5
"""The schema version this scratchfs writes and reads."""

SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}\Z")
"""The index schema names scratchfs takes (an index URL's ``?schema=``): lower-case letters, digits and _, 1 to 63
(as ``PostgresIndex`` checks them)."""

MIGRATIONS: dict[int, list[str]] = {
    1: [
        "CREATE TABLE @S.entries (id bigserial PRIMARY KEY, kind text NOT NULL, run_id text NOT NULL, "
        "agent_id text NOT NULL, key text NOT NULL, blob text NOT NULL UNIQUE, size bigint NOT NULL, "
        "stored_size bigint NOT NULL, frames integer NOT NULL, lines bigint NOT NULL, preview bytea NOT NULL, "
        "source_tool text, content_type text, shape bytea, created_at float8 NOT NULL, expires_at float8 NOT NULL, "
        "ttl float8 NOT NULL, frame_newlines bytea, UNIQUE (run_id, agent_id, kind, key))",
        "CREATE INDEX entries_expires_at ON @S.entries (expires_at)",
        "CREATE INDEX entries_run_created ON @S.entries (run_id, created_at)",
        "CREATE TABLE @S.gone (run_id text NOT NULL, agent_id text NOT NULL, kind text NOT NULL, key text NOT NULL, "
        "reason text NOT NULL, at float8 NOT NULL, PRIMARY KEY (run_id, agent_id, kind, key))",
        "CREATE INDEX gone_at ON @S.gone (at)",
    ],
    # a run's entries of one kind in listing order: a listing of one kind reads no row of the other
    2: ["CREATE INDEX entries_run_kind_created ON @S.entries (run_id, kind, created_at, id)"],
    # the store's id and the blob location it keeps its entries in (one row; scratchfs.engine.pairing)
    3: ["CREATE TABLE @S.store (one boolean PRIMARY KEY DEFAULT true CHECK (one), id text NOT NULL, "
        "blobs text NOT NULL, paired_at float8 NOT NULL)"],
    # a delete of a run or agent marked whether it found entries or not, on the database's clock, so a write it
    # overtook reads Deleted (scratchfs.engine.postgres_expiry.OVERTAKEN)
    4: ["CREATE TABLE @S.scope_tombstones (run_id text NOT NULL, agent_id text NOT NULL, reason text NOT NULL, "
        "at float8 NOT NULL, marked float8 NOT NULL, PRIMARY KEY (run_id, agent_id))",
        "CREATE INDEX scope_tombstones_marked ON @S.scope_tombstones (marked)"],
    # the store id a pairing took over (fsck --rebuild-index: the marker's; '' for none; NULL: paired before this
    # step), so that only the indexes a takeover chain leads back to are previous owners (scratchfs.engine.takeover)
    5: ["ALTER TABLE @S.store ADD COLUMN took_over text"],
}
"""Schema steps by version: the SQL applied to go from version ``n - 1`` to ``n`` (``@S`` is the schema)."""


def lock_key(text: str) -> int:
    """A stable signed 64-bit advisory-lock key for ``text`` (BLAKE2b, so equal on every host)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big", signed=True)


def migrate(conn: psycopg.Connection, schema: str, runs: tuple[str | None, str, str] | None) -> int:
    """Check ``schema`` and create or migrate only what is missing, and add the platform cascade when ``runs``
    (``(schema or None, table, column)``) is given and its foreign key is not there yet. Returns the version found
    (0: none). ``conn``: an autocommit connection, in no transaction.

    A schema at this version (tied as ``runs`` asks) is only read -- its ``schema_version``, the foreign key looked
    up --, so a runtime role with no ``CREATE`` privilege (``USAGE`` on the schema and rights on its tables) opens
    it. Anything missing is made in one transaction begun once this session holds the schema's advisory lock (many
    hosts may open a new schema at once; a transaction begun after the last holder committed reads the catalogs as
    it left them), after the role's privileges are checked: an empty schema an admin made is migrated when the role
    may create in it.

    Raises:
        StorageError: the schema is newer than this scratchfs knows; or something is missing that the role may not
            create (the message names the privilege, the role and the admin's command). InvalidArgument: the schema
            is tied to another runs table, or its entries name runs the runs table lacks. psycopg errors: from the
            database.
    """
    version = _version(conn, schema)
    if version is not None and version > SCHEMA_VERSION:
        raise StorageError(f"the index schema {schema!r} has version {version}; this scratchfs knows "
                           f"{SCHEMA_VERSION}: upgrade scratchfs")
    if version == SCHEMA_VERSION and (runs is None or _tied(conn, schema, runs)):
        _check_rights(conn, schema)
        return version
    key = lock_key(f"scratchfs schema {schema}")
    conn.execute("SELECT pg_advisory_lock(%s)", (key,))
    try:
        with conn.transaction():
            version = _version(conn, schema)  # (another host may have made it while this one waited)
            if version is not None and version > SCHEMA_VERSION:
                raise StorageError(f"the index schema {schema!r} has version {version}; this scratchfs knows "
                                   f"{SCHEMA_VERSION}: upgrade scratchfs")
            if version is None or version < SCHEMA_VERSION:
                _create(conn, schema, version)
            if runs is not None and not _tied(conn, schema, runs):
                _tie_to_runs(conn, schema, runs)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
    _check_rights(conn, schema)
    return version or 0


TABLES = ("schema_version", "entries", "gone", "scope_tombstones", "store")
"""The tables of a schema at :data:`SCHEMA_VERSION`, each of which a runtime role reads and writes."""


def quoted(name: str) -> str:
    """``name`` as a PostgreSQL identifier in SQL text: in double quotes, each double quote in it doubled."""
    return '"' + name.replace('"', '""') + '"'


def reserved_role(role: str) -> bool:
    """Whether ``role`` is a name PostgreSQL reserves, which ``CREATE ROLE`` refuses: ``public`` -- a grant ``TO
    "public"``, quoted or not, is a grant to PUBLIC, every role of the database --, ``none``, and ``pg_*`` (the
    predefined roles, groups of other roles)."""
    return role in ("public", "none") or role.startswith("pg_")


def grant_statements(schema: str, role: str, *, defaults: bool = False) -> list[str]:
    """The statements an admin runs so that ``role`` may use the index schema ``schema`` (README: Beyond one host),
    the names quoted as identifiers; with ``defaults``, the ``ALTER DEFAULT PRIVILEGES`` too that grant it the tables
    and sequences a later upgrade adds, as they are made (run as the role that migrates: their owner). Returns the
    statements, no ``;``: the three ``GRANT`` statements, then (``defaults``) the two ``ALTER DEFAULT PRIVILEGES``.

    Raises:
        InvalidArgument: ``schema`` is no name a store opens (:data:`SCHEMA_NAME`): no grant is made for it; or
            ``role`` is a name PostgreSQL reserves (:func:`reserved_role`).
    """
    if not SCHEMA_NAME.match(schema):
        raise InvalidArgument(f"schema must be lower-case letters, digits and _ (at most 63): {schema!r} (the index "
                              "URL's ?schema=; leave it out for 'scratchfs'): no store opens it, so no grant is given")
    if reserved_role(role):
        raise InvalidArgument(f"--role {role!r} is a name PostgreSQL reserves, no role a host connects as "
                              "('public' is every role, 'none' and 'pg_*' no role CREATE ROLE makes): no grant is "
                              "given; name the runtime role")
    s, r = quoted(schema), quoted(role)
    found = [f"GRANT USAGE ON SCHEMA {s} TO {r}", f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {s} "
             f"TO {r}", f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA {s} TO {r}"]
    return found + ([f"ALTER DEFAULT PRIVILEGES IN SCHEMA {s} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {r}",
                     f"ALTER DEFAULT PRIVILEGES IN SCHEMA {s} GRANT USAGE ON SEQUENCES TO {r}"] if defaults else [])


def runtime_grants(schema: str, role: str) -> str:
    """:func:`grant_statements` in one line (``; `` between them, last in it), after the command that prints them."""
    return f"(scratchfs grants --role {shlex.quote(role)} prints them for psql): " + "; ".join(
        grant_statements(schema, role))


_WRITE_RIGHTS = ("SELECT", "INSERT", "UPDATE", "DELETE")
_LACKING = (
    "SELECT current_user, array(SELECT t || ':' || concat_ws(', ', " + ", ".join(
        f"CASE WHEN NOT has_table_privilege(r, '{p}') THEN '{p}' END" for p in _WRITE_RIGHTS) +
    ") FROM unnest(%(t)s::text[]) AS t, to_regclass(format('%%I.%%I', %(s)s::text, t)) AS r WHERE r IS NOT NULL "
    "AND NOT (" + " AND ".join(f"has_table_privilege(r, '{p}')" for p in _WRITE_RIGHTS) + ")), "
    "array(SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = "
    "%(s)s AND CASE WHEN c.relkind = 'S' THEN NOT has_sequence_privilege(c.oid, 'USAGE') ELSE false END ORDER BY 1)")


def _check_rights(conn: psycopg.Connection, schema: str) -> None:
    """Raise StorageError, naming what lacks and the admin's grants, unless the role holds every privilege its
    writes, deletes and sweeps take: ``SELECT, INSERT, UPDATE, DELETE`` on each table of the schema and ``USAGE`` on
    its sequences (one query). No privilege at all on a table is one a schema step added after the runtime role was
    granted ``ON ALL TABLES`` (which covers the tables there then: its writes and reads went on but every delete of
    a run or agent and every sweep failed, ``permission denied for table scope_tombstones``); some privileges lacking
    (``SELECT`` alone, ``UPDATE`` left off: the ``SELECT ... FOR UPDATE`` of a write) or a sequence's ``USAGE``
    opened the store and failed it at its first write."""
    user, tables, sequences = conn.execute(_LACKING, {"s": schema, "t": list(TABLES)}).fetchone()
    if not tables and not sequences:
        return
    missing = [tuple(found.split(":", 1)) for found in tables]
    said = []
    if none := [table for table, lacks in missing if lacks == ", ".join(_WRITE_RIGHTS)]:
        said.append(f"has no privilege on {', '.join(f'{schema}.{table}' for table in none)} of the index schema "
                    f"{schema!r} (a table an upgrade of scratchfs added: a grant ON ALL TABLES covers the tables "
                    "there when it runs)")
    some: dict[str, list[str]] = {}
    for table, lacks in missing:
        if table not in none:
            some.setdefault(lacks, []).append(f"{schema}.{table}")
    lacking = [f"{lacks} on {', '.join(names)}" for lacks, names in some.items()]
    lacking += [f"USAGE on sequence {', '.join(f'{schema}.{name}' for name in sequences)}"] if sequences else []
    if lacking:
        said.append(f"lacks {'; '.join(lacking)} of the index schema {schema!r} (it could read, but its writes, "
                    "deletes and sweeps would fail)")
    raise StorageError(f"role {user!r} {' and '.join(said)}: have an admin run {runtime_grants(schema, user)}")


def refusal(exc: psycopg.Error, doing: str, runs: tuple[str | None, str, str] | None,
            schema: str, role: str | None = None) -> InvalidArgument | StorageError:
    """The error of a statement the database refused: :func:`run_refusal` for the platform cascade's
    ``ForeignKeyViolation``, :func:`privilege_refusal` (for ``role``) for an ``InsufficientPrivilege``."""
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return privilege_refusal(exc, doing, schema, role)
    return run_refusal(exc, doing, runs, schema)


def privilege_refusal(exc: psycopg.Error, doing: str, schema: str, role: str | None = None) -> StorageError:
    """The error of a statement the database refused for want of a privilege (``InsufficientPrivilege``): what it
    said and the grant an admin runs (a table added by an upgrade since the runtime role was granted) for ``role``,
    the role the store connects as (``None``: not known, named as a placeholder)."""
    said = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StorageError(f"the index database refused the role while {doing}: {said}: have an admin run "
                        f"{runtime_grants(schema, role or '<the runtime role>')}")


def _create(conn: psycopg.Connection, schema: str, version: int | None) -> None:
    """Make what the schema lacks from ``version`` (``None``: no ``schema_version`` table) to :data:`SCHEMA_VERSION`,
    after :func:`_check_may_migrate`."""
    _check_may_migrate(conn, schema, version)
    name = quoted(schema)
    if version is None:
        if conn.execute("SELECT to_regnamespace(%s) IS NULL", (schema,)).fetchone()[0]:
            conn.execute(f"CREATE SCHEMA {name}")  # (even IF NOT EXISTS takes CREATE on the database)
        conn.execute(f"CREATE TABLE IF NOT EXISTS {name}.schema_version (version integer PRIMARY KEY, "
                     "applied_at timestamptz NOT NULL DEFAULT now())")
    for step in range((version or 0) + 1, SCHEMA_VERSION + 1):
        for statement in MIGRATIONS[step]:
            conn.execute(statement.replace("@S", name))
        conn.execute(f"INSERT INTO {name}.schema_version (version) VALUES (%s)", (step,))


def _version(conn: psycopg.Connection, schema: str) -> int | None:
    """The schema's version (0: its ``schema_version`` table is empty); ``None`` when it has no such table (or the
    schema does not exist). Creates nothing; needs no privilege beyond ``USAGE`` and ``SELECT``."""
    found = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f'{quoted(schema)}.schema_version',)).fetchone()
    if not (found and found[0]):
        return None
    return conn.execute(f'SELECT COALESCE(max(version), 0) FROM {quoted(schema)}.schema_version').fetchone()[0]


def _check_may_migrate(conn: psycopg.Connection, schema: str, version: int | None) -> None:
    """Raise StorageError, before anything is tried, when the role lacks what creating or migrating the schema from
    ``version`` (``None``: nothing there yet) takes: ``CREATE`` on the database (no schema), ``CREATE`` on the
    schema (an empty one an admin made), and being (a member of) the owner of its tables (a step that changes one).
    The message names the privilege, the role and the admin's command."""
    user, database, exists, on_database, on_schema, owns = conn.execute(
        "SELECT current_user, current_database(), to_regnamespace(%(s)s) IS NOT NULL, "
        "has_database_privilege(current_database(), 'CREATE'), "
        "to_regnamespace(%(s)s) IS NOT NULL AND has_schema_privilege(%(s)s, 'CREATE'), "
        "COALESCE((SELECT pg_has_role(relowner, 'USAGE') FROM pg_class WHERE oid = to_regclass(%(e)s)), true)",
        {"s": schema, "e": f'{quoted(schema)}.entries'}).fetchone()
    who = f"role {user!r}"
    if not exists and not on_database:
        lacks, grant = f"CREATE on database {database!r}", f'CREATE SCHEMA {quoted(schema)}'
        state = "does not exist"
    elif exists and not on_schema:
        lacks, grant = f"CREATE on schema {schema!r}", f'GRANT CREATE ON SCHEMA {quoted(schema)} TO {quoted(user)}'
        state = "is empty" if version is None else f"is at version {version} of {SCHEMA_VERSION}"
    elif exists and version and not owns:
        lacks, grant = f"ownership of {schema}.entries", f'GRANT <the owner of {schema}.entries> TO {quoted(user)}'
        state = f"is at version {version} of {SCHEMA_VERSION}"
    else:
        return
    raise StorageError(
        f"the index schema {schema!r} {state} and {who} may not create or migrate it (it lacks {lacks}): have an "
        f"admin run the scratchfs of this version once with an index URL whose user may (the schema's owner), e.g. "
        f"SCRATCHFS_INDEX='postgresql://OWNER@HOST/{database}?schema={schema}' scratchfs migrate-index, or "
        f"grant what lacks ({grant}); a runtime role needs only USAGE on the schema and SELECT, INSERT, UPDATE, "
        "DELETE on its tables (README: Beyond one host)")


def runs_name(runs: tuple[str | None, str, str]) -> str:
    """``schema.table(column)`` (or ``table(column)``) of a runs table, as ``runs_table=`` names it."""
    ref_schema, table, column = runs
    return f"{ref_schema + '.' if ref_schema else ''}{table}({column})"


_FK_DETAIL = re.compile(r'Key \((?P<column>.*?)\)=\((?P<value>.*)\) is not present in table "(?P<table>.*)"', re.S)


def untie_command(schema: str) -> str:
    """The SQL an admin runs to remove the platform cascade from ``schema`` (the tie is the schema's, not a URL's)."""
    return f'ALTER TABLE {quoted(schema)}.entries DROP CONSTRAINT entries_run_fk'


def run_refusal(exc: psycopg.Error, doing: str, runs: tuple[str | None, str, str] | None,
                schema: str = "scratchfs") -> InvalidArgument:
    """The error of a write the platform cascade refused (``ForeignKeyViolation``): the run and the runs table
    named, from the server's detail (``Key (run_id)=(r) is not present in table "runs"``), and what to do --
    an :class:`InvalidArgument` (exit code 2): a run the platform does not know, or a tie the URL no longer asks for
    (``runs`` ``None``: the schema keeps the foreign key made by a URL that named ``runs_table=``; leaving it off
    a URL does not remove it, as one host's URL must not change the fleet's schema)."""
    found = _FK_DETAIL.search(getattr(getattr(exc, "diag", None), "message_detail", None) or "")
    table = runs_name(runs) if runs is not None else (repr(found["table"]) if found else "")
    run = f"run {shorten(found['value'])}" if found else "such run"
    lead = f"the platform's runs table {table + ' ' if table else ''}has no {run} while {doing}"
    if runs is not None:
        return InvalidArgument(f"{lead}: the platform adds a run's row before its agents write")
    return InvalidArgument(
        f"{lead}: this index URL names no runs_table=, but the index schema {schema!r} keeps the tie (the foreign "
        f"key entries_run_fk) an opening with runs_table= made, for every host; have the platform add the run's row "
        f"before its agents write, or, to end the tie, have an admin run {untie_command(schema)}")


def _tied(conn: psycopg.Connection, schema: str, runs: tuple[str | None, str, str]) -> bool:
    """Whether ``schema.entries`` has the foreign key of ``runs`` (False: none).

    Raises:
        InvalidArgument: it has one to another table or column.
    """
    ref_schema, table, column = runs
    tied = conn.execute(  # the table and column the schema is tied to, if it is (read from the catalogs alone: a
        "SELECT n.nspname, r.relname, a.attname FROM pg_constraint c "  # runtime role may not see the platform's)
        "JOIN pg_class r ON r.oid = c.confrelid JOIN pg_namespace n ON n.oid = r.relnamespace "
        "JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = c.confkey[1] "
        "WHERE c.conname = 'entries_run_fk' AND c.conrelid = %s::regclass", (f'{quoted(schema)}.entries',),
    ).fetchone()
    if tied is None:
        return False
    if (tied[1], tied[2]) != (table, column) or ref_schema not in (None, tied[0]):
        raise InvalidArgument(
            f"the index schema {schema!r} is tied to the runs table {tied[0]}.{tied[1]}({tied[2]}), not "
            f"{runs_name(runs)} (runs_table= in the index URL): give the table it is tied to, or have an admin end "
            f"the tie ({untie_command(schema)}) and open it again with the new runs_table=")
    return True


def _tie_to_runs(conn: psycopg.Connection, schema: str, runs: tuple[str | None, str, str]) -> None:
    """Add the foreign key of ``runs`` to ``schema.entries`` (not there: :func:`_tied`), after checking that no
    entry names a run the table lacks and that the role owns the table. Raises InvalidArgument, StorageError."""
    ref_schema, table, column = runs
    target = pg_sql.Identifier(table) if ref_schema is None else pg_sql.Identifier(ref_schema, table)
    count, some = conn.execute(pg_sql.SQL(  # the runs the key would refuse, told before it is tried
        "SELECT count(*), (array_agg(run_id ORDER BY run_id))[1:3] FROM (SELECT DISTINCT run_id FROM {}.entries e "
        "WHERE NOT EXISTS (SELECT 1 FROM {} r WHERE r.{}::text = e.run_id)) missing").format(
        pg_sql.Identifier(schema), target, pg_sql.Identifier(column))).fetchone()
    if count:
        named = ", ".join(shorten(run) for run in some) + (f", and {count - len(some)} more" if count > 3 else "")
        raise InvalidArgument(
            f"cannot tie the index schema {schema!r} to the runs table {runs_name(runs)}: its entries name {count} "
            f"run{'' if count == 1 else 's'} the table lacks ({named}); add them to the table, delete their entries "
            "(scratchfs delete-run), or leave runs_table= off the index URL (nothing was changed)")
    owns = conn.execute("SELECT pg_has_role(relowner, 'USAGE') FROM pg_class WHERE oid = %s::regclass",
                        (f'{quoted(schema)}.entries',)).fetchone()[0]
    if not owns:
        raise StorageError(
            f"cannot tie the index schema {schema!r} to the runs table {runs_name(runs)}: adding its foreign key takes "
            f"ownership of {schema}.entries, which role {conn.info.user!r} lacks; have an admin open it once with "
            f"runs_table= and an index URL whose user owns the schema (scratchfs migrate-index)")
    conn.execute(pg_sql.SQL(
        "ALTER TABLE {}.entries ADD CONSTRAINT entries_run_fk FOREIGN KEY (run_id) REFERENCES {} ({}) "
        "ON DELETE CASCADE").format(pg_sql.Identifier(schema), target, pg_sql.Identifier(column)))
    conn.execute(f'CREATE INDEX IF NOT EXISTS entries_run ON {quoted(schema)}.entries (run_id)')


_BUSY = ("53300", "57P03", "too many c", "starting up", "shutting down", "slots are reserved")


def busy_refusal(exc: psycopg.OperationalError) -> bool:
    """Whether a refused connection says the server is only busy for now -- too many connections (the server's or
    a role's limit, 53300), starting up or shutting down (57P03) -- by its SQLSTATE or, as libpq often gives none at
    connect time, its message: what a pool's retries wait out, unlike a refusal, a wrong password or database."""
    return getattr(exc, "sqlstate", None) in _BUSY or any(word in str(exc).lower() for word in _BUSY[2:])


_AWAY = ("refused", "no reply from the server", "timeout expired", "closed the connection", "terminating connection",
         "could not receive", "could not send", "no route to host", "is the server running", "connection is lost",
         "connection is closed")


def flag_unavailable(exc: BaseException, error: StorageError) -> StorageError:
    """``error`` (the store's error for ``exc``), with ``error.unavailable = True`` when ``exc`` says the database
    is out of reach for now -- no pooled connection in time, a connection refused, broken or timed out, a server
    busy, starting up or shutting down -- rather than refusing what was asked (a wrong password, a bad statement):
    what a caller may retry later (the web inspector answers 503 with ``Retry-After``)."""
    state = getattr(exc, "sqlstate", None) or ""
    if isinstance(exc, PoolTimeout) or (isinstance(exc, psycopg.OperationalError) and (
            busy_refusal(exc) or state.startswith("08") or state in ("57P01", "57P02")
            or any(word in str(exc).lower() for word in _AWAY))):
        error.unavailable = True  # type: ignore[attr-defined]
    return error


def probe(dsn: str, busy_timeout: float) -> None:
    """Make one connection to ``dsn`` and close it: raises the psycopg error of a server that refuses, a wrong
    password or database; a server only busy (:func:`busy_refusal`) passes, for a pool's retries to wait out."""
    try:
        bounded_connect(dsn, busy_timeout).close()
    except psycopg.OperationalError as exc:
        if not busy_refusal(exc):
            raise


def holds_index(dsn: str, schema: str, busy_timeout: float) -> bool | str | StorageError | None:
    """Whether ``schema`` holds a scratchfs index (its ``schema_version`` table) -- or is an empty schema, made by an
    admin for the index (True too: the opening migrates it, or says which privilege it lacks) --, looked up without
    creating anything: ``False`` when there is no such schema, ``"other"`` when it holds other tables and no index;
    a :class:`StorageError` (returned) when the server did not answer within its connect or reply timeout
    (the opening would wait as long again); ``None`` when it refused to be asked (the opening then tells why).
    Never raises."""
    try:
        with bounded_connect(dsn, busy_timeout) as conn:
            index, exists, empty = conn.execute(
                "SELECT to_regclass(%s) IS NOT NULL, to_regnamespace(%s) IS NOT NULL, NOT EXISTS (SELECT 1 FROM "
                "pg_class WHERE relnamespace = to_regnamespace(%s))",
                (f'{quoted(schema)}.schema_version', schema, schema)).fetchone()
            return True if index or (exists and empty) else "other" if exists else False
    except psycopg.Error as exc:
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if isinstance(exc, psycopg.OperationalError) and any(word in text for word in _NO_ANSWER):
            return flag_unavailable(exc, StorageError(f"the index database failed while connecting to it: "
                                                      f"{no_answer(text)}{connect_advice(text)}"))
        return None


_NO_ANSWER = ("no reply from the server", "timeout expired")

_CONNECT_ADVICE = (  # (the first of psycopg's words found in a connection's failure, and what to fix)
    (("does not exist", ), "role", "check the user of the index URL ($SCRATCHFS_INDEX, --index)"),
    (("does not exist", ), "database", "create the database first (scratchfs creates its schema, never a "
                                       "database), or name an existing one in the index URL ($SCRATCHFS_INDEX, "
                                       "--index)"),
    (("password authentication failed", "no password supplied", "authentication failed"), "",
     "check the user and password of the index URL ($SCRATCHFS_INDEX, --index), or $PGPASSWORD or ~/.pgpass"),
    (("no pg_hba.conf entry", ), "", "the server's pg_hba.conf admits no such connection: check the user, database "
                                     "and sslmode of the index URL ($SCRATCHFS_INDEX, --index) with its admin"),
    (("invalid ", ), "value:", "correct that parameter's value in the index URL ($SCRATCHFS_INDEX, --index)"),
    (("refused", "failed to resolve host", "could not translate host name", "no route to host", "timeout expired",
      "is the server running", "network is unreachable"), "",
     "check that PostgreSQL is up and that the index URL ($SCRATCHFS_INDEX, --index) names its host and port"),
)


def connect_advice(text: str) -> str:
    """What to fix, as a clause to end an error line with (``"; check ..."``), for ``text``, the first line of a
    connection's failure (a server refusing or not reached, a database or role that does not exist, a password
    refused); ``""`` for another failure. The platform engineer's next step, as an S3 failure names
    ``$AWS_ENDPOINT_URL``: the line named the failure but not the setting that causes it (newuser13)."""
    low = text.lower()
    for words, subject, advice in _CONNECT_ADVICE:
        if any(word in low for word in words) and (not subject or f'{subject} "' in low):
            return f"; {advice}"
    return ""


def no_answer(text: str) -> str:
    """``text`` (a psycopg error's first line), with why when it is libpq's bare "connection timeout expired"."""
    if text.startswith("connection timeout expired"):
        return f"{text} (no answer within the busy timeout: the server is stopped, overloaded or unreachable)"
    return text
