"""The PostgreSQL index against a real PostgreSQL server (tests/services.py): scope, tombstones, quotas, the
database's clock, schema versions, the platform cascade and typed errors within a bounded time."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from click.testing import CliRunner

from scratchfs.cli import main
from scratchfs.engine.postgres_index import PostgresIndex
from scratchfs.engine.postgres_schema import SCHEMA_VERSION
from scratchfs.engine.sqlite_index import Entry
from scratchfs.foundation.checks import new_token
from scratchfs.foundation.errors import InvalidArgument, QuotaExceeded, StorageError, StoreBusy

NOW = 1_800_000_000.0


def entry(run="run-1", agent="agent-1", kind="handle", key=None, size=100, stored=40, now=NOW, ttl=3600.0):
    return Entry(kind, run, agent, key or new_token(), new_token(), size, stored, 1, 3, "preview", "tool", None, None,
                 now, now + ttl, ttl)


@pytest.fixture
def index(postgres_dsn, pg_schema):
    idx = PostgresIndex(postgres_dsn, schema=pg_schema, busy_timeout=2.0, clock="caller")
    yield idx
    idx.close()


def test_rows_round_trip_within_their_scope_only(index):
    e = entry(key="h1")
    assert index.put(e, b"\x03\x00\x00\x00", lambda: True) == (True, None)
    got, newlines = index.lookup_with_lines("run-1", "agent-1", "handle", "h1", NOW)
    assert got == e
    assert newlines == b"\x03\x00\x00\x00"
    assert index.lookup("run-1", "agent-2", "handle", "h1", NOW) is None  # another agent
    assert index.lookup("run-2", "agent-1", "handle", "h1", NOW) is None  # another run
    assert index.lookup("run-1", "agent-1", "handle", "h1", NOW + 3600) is None  # expired
    assert index.has_blob(e.blob)
    assert index.blobs() == {e.blob}
    assert index.usage("run-1", NOW) == (40, 1)
    assert index.integrity_check() == "ok"


def test_scratch_overwrite_returns_the_old_blob_and_quotas_count_the_replacement(index):
    first = entry(kind="scratch", key="plan", stored=60)
    assert index.put(first, b"", lambda: True, (100, None)) == (True, None)
    second = entry(kind="scratch", key="plan", stored=90)
    assert index.put(second, b"", lambda: True, (100, None)) == (True, first.blob)  # 90 replaces 60: within 100
    with pytest.raises(QuotaExceeded):
        index.put(entry(kind="scratch", key="other", stored=20), b"", lambda: True, (100, None))
    with pytest.raises(QuotaExceeded):
        index.put(entry(kind="scratch", key="other", stored=1), b"", lambda: True, (None, 1))
    assert [x.key for x in index.list_scope("run-1", "agent-1", "scratch", "pl", NOW)] == ["plan"]
    with pytest.raises(StorageError, match="removed before its row was written"):  # the check failed, and no
        index.put(entry(), b"", lambda: False)  # delete of the scope took the blob: nothing written, and said
    assert len(index.list_all(NOW)) == 1


def test_tombstones_say_what_happened(index):
    e = entry(kind="scratch", key="k")
    index.put(e, b"", lambda: True)
    assert index.delete_key("run-1", "agent-1", "scratch", "k", NOW + 1) == (True, e.blob)
    gone = index.gone("run-1", "agent-1", "scratch", "k", NOW + 2)
    assert (gone.reason, gone.at) == ("deleted", NOW + 1)
    assert index.gone("run-1", "agent-2", "scratch", "k", NOW + 2) is None  # another scope learns nothing
    index.put(entry(key="a", agent="agent-1"), b"", lambda: True)
    index.put(entry(key="b", agent="agent-2"), b"", lambda: True)
    assert index.delete_scope("run-1", "agent-2", NOW + 5) == 1
    assert index.gone("run-1", "agent-2", "handle", "b", NOW + 6).reason == "deleted with its agent"
    assert index.delete_scope("run-1", None, NOW + 7) == 1
    assert index.gone("run-1", "agent-1", "handle", "a", NOW + 8).reason == "deleted with its run"
    assert index.forget_tombstones(NOW + 7200) == 3


def test_pop_expired_batches_and_leaves_expired_tombstones(index):
    entries = [entry(key=f"h{i}", ttl=10.0 + i) for i in range(5)]
    for e in entries:
        index.put(e, b"", lambda: True)
    popped = index.pop_expired(NOW + 12.5, 2)
    assert [p.blob for p in popped] == [entries[0].blob, entries[1].blob]
    assert len(index.pop_expired(NOW + 12.5, 10)) == 1  # h2 expires at NOW + 12
    assert index.gone("run-1", "agent-1", "handle", "h0", NOW + 13).reason == "expired"
    assert {e.key for e in index.list_all(NOW + 12.5)} == {"h3", "h4"}


def test_the_database_clock_decides_expiry_not_the_hosts(postgres_dsn, pg_schema):
    index = PostgresIndex(postgres_dsn, schema=pg_schema, busy_timeout=2.0)  # clock="database"
    try:
        skewed = time.time() + 86_400.0  # a host whose clock runs a day ahead
        e = entry(key="h", now=skewed, ttl=1.0)
        index.put(e, b"", lambda: True)
        row = index.lookup("run-1", "agent-1", "handle", "h", skewed + 10)  # `now` arguments are ignored
        db_now = index.database_now()
        assert row is not None
        assert abs(row.created_at - db_now) < 5  # stamped by the server, not by the host
        assert row.expires_at == pytest.approx(row.created_at + 1.0)
        assert index.pop_expired(skewed + 10, 10) == []  # the skewed host cannot expire it early
        time.sleep(max(0.0, row.expires_at - index.database_now()) + 0.05)
        assert index.lookup("run-1", "agent-1", "handle", "h", 0.0) is None
        assert [p.blob for p in index.pop_expired(0.0, 10)] == [e.blob]
    finally:
        index.close()


def test_on_the_database_clock_the_sweep_caps_rows_born_in_the_future_and_expired_reads_remove_theirs(postgres_dsn,
                                                                                                   pg_schema):
    """The database server's clock stepping back (a row born after its now) is capped by the server's clock, and a
    row a read reports expired is deleted at once: on the database clock the index used to do neither, so a row
    outlived its TTL by the whole step and one reported expired came back after a step."""
    index = PostgresIndex(postgres_dsn, schema=pg_schema, busy_timeout=2.0)  # clock="database"
    try:
        index.put(entry(key="ahead", ttl=60.0), b"", lambda: True)
        index.put(entry(key="gone", ttl=60.0), b"", lambda: True)
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:  # as if the server's clock had been a day fast
            conn.execute(f'UPDATE "{pg_schema}".entries SET expires_at = expires_at + 86400 WHERE key = %s', ("ahead",))
            conn.execute(f'UPDATE "{pg_schema}".entries SET expires_at = expires_at - 120 WHERE key = %s', ("gone",))
        assert index.cap_future(0.0, "run-1", "agent-1", "handle", "ahead") == 0  # a read leaves it to the sweep
        assert index.cap_future(0.0, slack=1.0) == 1  # `now` arguments are ignored: the server's clock decides
        row = index.lookup("run-1", "agent-1", "handle", "ahead", 0.0)
        assert row.expires_at - index.database_now() == pytest.approx(60.0, abs=5.0)
        blob = index.expire_now("run-1", "agent-1", "handle", "gone", 0.0)
        assert blob is not None and index.expire_now("run-1", "agent-1", "handle", "gone", 0.0) is None
        assert index.gone("run-1", "agent-1", "handle", "gone", 0.0).reason == "expired"
        assert index.expire_now("run-1", "agent-1", "handle", "ahead", 0.0) is None  # live: left alone
    finally:
        index.close()


def test_two_hosts_cannot_both_pass_a_quota(postgres_dsn, pg_schema):
    hosts = [PostgresIndex(postgres_dsn, schema=pg_schema, busy_timeout=10.0, clock="caller") for _ in range(2)]
    accepted = []

    def writer(index):
        for _ in range(10):
            try:
                index.put(entry(stored=10), b"", lambda: True, (None, 7))
                accepted.append(1)
            except QuotaExceeded:
                pass

    threads = [threading.Thread(target=writer, args=(h,)) for h in hosts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(accepted) == 7
    assert hosts[0].usage("run-1", NOW) == (70, 7)
    for h in hosts:
        h.close()


def test_schema_version_table_and_a_newer_schema_is_refused(postgres_dsn, pg_schema):
    PostgresIndex(postgres_dsn, schema=pg_schema).close()
    PostgresIndex(postgres_dsn, schema=pg_schema).close()  # opening again migrates nothing
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        assert sorted(conn.execute(f'SELECT version FROM "{pg_schema}".schema_version').fetchall()) == [
            (v,) for v in range(1, SCHEMA_VERSION + 1)]  # one row per applied step
        conn.execute(f'INSERT INTO "{pg_schema}".schema_version (version) VALUES ({SCHEMA_VERSION + 1})')
    with pytest.raises(StorageError, match="version"):
        PostgresIndex(postgres_dsn, schema=pg_schema)


def test_a_schema_of_version_1_gets_the_index_of_a_run_by_kind(postgres_dsn, pg_schema):
    from scratchfs.engine.postgres_schema import MIGRATIONS

    with psycopg.connect(postgres_dsn, autocommit=True) as conn:  # the schema as scratchfs of version 1 left it
        conn.execute(f'CREATE SCHEMA "{pg_schema}"')
        conn.execute(f'CREATE TABLE "{pg_schema}".schema_version (version integer PRIMARY KEY, '
                     "applied_at timestamptz NOT NULL DEFAULT now())")
        for statement in MIGRATIONS[1]:
            conn.execute(statement.replace("@S", f'"{pg_schema}"'))
        conn.execute(f'INSERT INTO "{pg_schema}".schema_version (version) VALUES (1)')
    PostgresIndex(postgres_dsn, schema=pg_schema).close()
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND indexname = %s",
                            (pg_schema, "entries_run_kind_created")).fetchone()[0].endswith(
            "(run_id, kind, created_at, id)")


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="schema"):
        PostgresIndex("host=127.0.0.1", schema='x"; drop')
    with pytest.raises(ValueError, match="runs_table"):
        PostgresIndex("host=127.0.0.1", runs_table="runs; drop table runs")


def test_platform_cascade_deletes_entries_with_the_run_row(postgres_dsn, pg_schema):
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{pg_schema}_p"')
        conn.execute(f'CREATE TABLE "{pg_schema}_p".runs (id text PRIMARY KEY)')
        conn.execute(f"INSERT INTO \"{pg_schema}_p\".runs VALUES ('run-1'), ('run-2')")
    index = PostgresIndex(postgres_dsn, schema=pg_schema, runs_table=f"{pg_schema}_p.runs(id)", clock="caller")
    try:
        kept, doomed = entry(run="run-2", key="k"), entry(run="run-1", key="d")
        index.put(kept, b"", lambda: True)
        index.put(doomed, b"", lambda: True)
        with pytest.raises(InvalidArgument, match="runs table"):  # (a setting error: exit 2)
            index.put(entry(run="run-unknown"), b"", lambda: True)
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(f"DELETE FROM \"{pg_schema}_p\".runs WHERE id = 'run-1'")
        assert index.lookup("run-1", "agent-1", "handle", "d", NOW) is None
        assert index.blobs() == {kept.blob}  # the doomed blob is now an orphan for the sweeper
    finally:
        index.close()
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{pg_schema}" CASCADE')
            conn.execute(f'DROP SCHEMA "{pg_schema}_p" CASCADE')


@pytest.mark.alone(waits=True)  # (its call mostly waits)
def test_a_held_row_lock_gives_store_busy_within_the_timeout(index, postgres_dsn, pg_schema):
    index.put(entry(kind="scratch", key="k"), b"", lambda: True)
    with psycopg.connect(postgres_dsn) as other:
        other.execute(f"SELECT 1 FROM \"{pg_schema}\".entries WHERE key = 'k' FOR UPDATE")
        started = time.monotonic()
        with pytest.raises(StoreBusy):
            index.delete_key("run-1", "agent-1", "scratch", "k", NOW)
        assert time.monotonic() - started < 2.0 + 2.0
        other.rollback()
    assert index.delete_key("run-1", "agent-1", "scratch", "k", NOW)[0] is True


def test_the_sweep_lock_admits_one_host_at_a_time(postgres_dsn, pg_schema):
    a = PostgresIndex(postgres_dsn, schema=pg_schema)
    b = PostgresIndex(postgres_dsn, schema=pg_schema)
    try:
        with a.sweep_lock(None) as got_a:
            assert got_a
            with b.sweep_lock(None) as got_b:
                assert not got_b
            with b.sweep_lock(0.2) as got_b:
                assert not got_b
        with b.sweep_lock(None) as got_b:
            assert got_b
    finally:
        a.close()
        b.close()


@pytest.mark.alone(waits=True)  # (its call mostly waits)
def test_a_stopped_server_gives_storage_error_within_a_bounded_time(own_postgres_server):
    server = own_postgres_server
    index = PostgresIndex(server.dsn, busy_timeout=1.0, clock="caller")
    index.put(entry(key="h"), b"", lambda: True)
    server.stop("fast")
    started = time.monotonic()
    for _ in range(3):
        with pytest.raises(StorageError):
            index.lookup("run-1", "agent-1", "handle", "h", NOW)
    assert time.monotonic() - started < 15.0
    server.start()  # the pool re-makes its connections once the server is back
    deadline = time.monotonic() + 15
    while True:
        try:
            assert index.lookup("run-1", "agent-1", "handle", "h", NOW) is not None
            break
        except StorageError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    index.close()
    with pytest.raises(StorageError):
        PostgresIndex(server.dsn.replace(f"port={server.port}", "port=1"), busy_timeout=1.0)


# (no `alone` mark: the refusal takes milliseconds of the 5 s bound, where the fault waited the 20 s busy timeout)
def test_a_server_that_refuses_fails_the_open_at_once_saying_why(postgres_dsn, pg_schema):
    """A DSN whose server refuses (nothing listens on the port) or whose database does not exist waited the whole
    busy timeout (30 s by default) in the pool's retries, printing a line per retry, then said only "no connection
    within the busy timeout"; the open now fails at once with the server's own reason."""
    from psycopg.conninfo import make_conninfo

    for dsn, reason in ((make_conninfo(postgres_dsn, host="127.0.0.1", port="1"), "refused"),
                        (make_conninfo(postgres_dsn, dbname="no_such_database_here"), "no_such_database_here")):
        started = time.monotonic()
        with pytest.raises(StorageError, match=reason):
            PostgresIndex(dsn, schema=pg_schema, busy_timeout=20.0)
        assert time.monotonic() - started < 5.0


# (no `alone` mark: 3 s is six times the 0.5 s timeout, and short of the 5 s statement it stops)
def test_a_slow_statement_gives_store_busy_within_the_timeout(postgres_dsn, pg_schema):
    index = PostgresIndex(postgres_dsn, schema=pg_schema, busy_timeout=0.5, clock="caller")
    try:
        started = time.monotonic()
        with pytest.raises(StoreBusy):
            index.read("SELECT pg_sleep(5)", {}, "waiting on a slow server")  # statement_timeout = busy_timeout
        assert time.monotonic() - started < 3.0
        assert index.lookup("run-1", "agent-1", "handle", "h", NOW) is None  # the connection is usable again
    finally:
        index.close()


def test_a_server_out_of_connections_for_a_moment_is_waited_for_not_failed_at_once(postgres_dsn, pg_schema):
    """The first open's one direct connection (5427ecd) failed at once on a server that is only busy -- "too many
    connections" (53300), as when a role's or the server's limit is reached for a moment -- where the pool's retries
    wait up to the busy timeout for a connection; such a refusal is left to the pool now."""
    from psycopg.conninfo import make_conninfo

    role = f"{pg_schema}_r"
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw' CONNECTION LIMIT 1")
        admin.execute(f"GRANT CREATE ON DATABASE {admin.info.dbname} TO {role}")
    try:
        dsn = make_conninfo(postgres_dsn, user=role, password="pw")
        held = psycopg.connect(dsn, autocommit=True)
        threading.Timer(1.5, held.close).start()  # the limit is reached for a moment
        index = PostgresIndex(dsn, schema=pg_schema, busy_timeout=15.0)
        index.close()
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA IF EXISTS "{pg_schema}" CASCADE')
            admin.execute(f"REVOKE ALL ON DATABASE {admin.info.dbname} FROM {role}")
            admin.execute(f"DROP OWNED BY {role}")
            admin.execute(f"DROP ROLE {role}")


@pytest.mark.parametrize("param", ["schema", "runs_table"])
def test_a_scratchfs_parameter_given_twice_is_refused(param, tmp_path):
    """Attacker's trial: ``?schema=a&schema=b`` opened schema ``b`` without a word (the last one won), so two hosts
    given one URL by two people who read it differently -- or a URL pasted together from two -- could use two
    stores and each see the other's entries as gone. Both of scratchfs's own parameters are refused when repeated,
    as the web API refuses a repeated query parameter."""
    from scratchfs import ScratchStore
    from scratchfs.engine.backends import split_postgres_url
    from scratchfs.foundation.errors import InvalidArgument

    value = {"schema": ("first", "second"), "runs_table": ("runs(id)", "other(id)")}[param]
    url = f"postgresql://u@db.internal/app?{param}={value[0]}&sslmode=disable&{param}={value[1]}"
    with pytest.raises(InvalidArgument, match=f"{param} is given twice"):
        split_postgres_url(url)
    with pytest.raises(InvalidArgument, match=f"{param} is given twice"):
        ScratchStore(tmp_path, index=url)  # refused before any connection is tried
    assert split_postgres_url(f"postgresql://u@db.internal/app?{param}={value[0]}&sslmode=disable")[0] == (
        "postgresql://u@db.internal/app?sslmode=disable")


@pytest.mark.parametrize(("url", "says"), [
    ("postgresql://[::1/db", "not a valid URL: Invalid IPv6 URL"),
    ("postgresql://host:notaport/db", "names a port that is not a number from 1 to 65535"),
    ("postgresql://host:99999/db", "names a port that is not a number from 1 to 65535"),
    ("postgresql://host/db?nosuchparam=1", 'not a valid libpq URL: invalid URI query parameter: "nosuchparam"'),
    ("postgresql://u@h:5432\n/db", "holds a control character ('\\n') at character 22"),  # (urllib deleted it:
    ("postgresql://u:p\tw@h/db", "holds a control character ('\\t') at character 17"),  # another URL opened;
    ("postgresql://u@h/db\x01", "holds a control character ('\\x01') at character 20"),  # a C0 reached libpq)
])
def test_a_malformed_index_url_is_a_usage_error_before_anything_is_made(tmp_path, url, says):
    """A malformed index URL was a ValueError traceback ("Invalid IPv6 URL", from urllib), or a storage error, exit
    4, after a host-name lookup or a connection attempt, and after the root was made (the attacker's left item).
    It is one InvalidArgument (CLI exit 2) before the root is made or any server is asked."""
    root = tmp_path / "root"
    result = CliRunner().invoke(main, ["--root", str(root), "ls"], env={"SCRATCHFS_INDEX": url})
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("scratchfs: invalid argument: the index URL ") and says in result.stderr
    assert result.stderr.count("\n") == 1 and not root.exists()


def test_a_control_character_in_the_blobs_url_is_refused_before_anything_is_made(tmp_path):
    root = tmp_path / "root"
    result = CliRunner().invoke(main, ["--root", str(root), "ls"],
                                env={"SCRATCHFS_INDEX": "postgresql://u@h/db", "SCRATCHFS_BLOBS": "s3://bu\ncket/p"})
    assert result.exit_code == 2, result.output
    assert "the blobs URL holds a control character ('\\n') at character 8" in result.stderr
    assert result.stderr.count("\n") == 1 and not root.exists()


@pytest.mark.parametrize("url", ["postgresql://h:99999/db", "postgresql://h:70000/db", "postgresql://h:abc/db",
                                 "postgresql://h:-1/db", "postgresql://h/db?port=abc", "postgresql://h/db?port=70000",
                                 "postgresql://h1:5432,h2:99999/db"])
def test_a_port_that_is_no_port_is_told_one_way_wherever_it_is_read(url):
    """A port over 65535 after the host got urllib's "not a valid URL: Port out of range 0-65535", one not a number
    "Port could not be cast to integer value", where ``?port=abc`` (libpq's reading) got scratchfs's own words
    (leftovers1 helper): each is the one refusal, :data:`BAD_PORT`."""
    from scratchfs.engine.backend_urls import BAD_PORT, split_postgres_url
    from scratchfs.foundation.errors import InvalidArgument

    with pytest.raises(InvalidArgument) as caught:
        split_postgres_url(url)
    assert str(caught.value) == BAD_PORT and "1 to 65535" in BAD_PORT


@pytest.mark.parametrize(("url", "libpq_sees"), [
    ("postgresql:///app?host=/var/run/postgresql&schema=s", {"dbname": "app", "host": "/var/run/postgresql"}),
    ("postgresql:///app?host=%2Ftmp", {"dbname": "app", "host": "/tmp"}),
    ("postgresql:///app", {"dbname": "app"}),
    ("postgresql://u@h/app?options=-c%20search_path%3Dx&schema=s", {"user": "u", "host": "h", "dbname": "app",
                                                                      "options": "-c search_path=x"}),
    ("postgresql://u@h/app?application_name=a%20b&runs_table=runs(id)", {"user": "u", "host": "h", "dbname": "app",
                                                                           "application_name": "a b"}),
    ("postgresql://u@h/app?application_name=a+b", {"user": "u", "host": "h", "dbname": "app",
                                                   "application_name": "a+b"}),
])
def test_the_url_given_to_libpq_means_what_the_index_url_meant(url, libpq_sees):
    """Taking scratchfs's own parameters out of the index URL changed the rest: a Unix socket URL with no host
    (``postgresql:///app?host=/tmp``, libpq's documented form) lost its ``//`` and was refused as 'not a valid libpq
    URL' (before: a failed connection), and a percent-escaped space (``options=-c%20search_path%3Dx``) came back as
    ``+``, which libpq reads as a plus sign: the server was sent ``-c+search_path=x``. The URL libpq is given holds
    the other parameters exactly as written."""
    from psycopg.conninfo import conninfo_to_dict

    from scratchfs.engine.backends import split_postgres_url

    dsn, _schema, _runs = split_postgres_url(url)
    assert conninfo_to_dict(dsn) == libpq_sees, dsn


def test_several_hosts_with_ports_are_libpqs_url_and_a_port_libpq_would_misread_is_refused(tmp_path):
    """libpq's URL of several hosts, ``postgresql://h1:5432,h2:5433/db`` (its documented form for a standby), was
    refused as 'not a valid URL: Port could not be cast to integer value as '5432,h2:5433'' (urllib reads one host).
    A user name or password holding an unescaped '@' (``us@er:s3cret@host``), which libpq reads as host 'er' and port
    's3cret@host', went on to a host-name lookup of 'er' (exit 4, after the root was made); it is refused before,
    without echoing the password."""
    from psycopg.conninfo import conninfo_to_dict

    from scratchfs.engine.backends import split_postgres_url
    from scratchfs.foundation.errors import InvalidArgument

    dsn = split_postgres_url("postgresql://u:pw@h1:5432,h2:5433/db?target_session_attrs=read-write&schema=s")[0]
    assert conninfo_to_dict(dsn) == {"user": "u", "password": "pw", "dbname": "db", "host": "h1,h2",
                                     "port": "5432,5433", "target_session_attrs": "read-write"}
    for url in ("postgresql://us@er:s3cret@host/db", "postgresql://h1:5432,h2:99999/db", "postgresql://h/db?port=x"):
        with pytest.raises(InvalidArgument, match="port") as caught:
            split_postgres_url(url)
        assert "s3cret" not in str(caught.value)
    root = tmp_path / "root"
    result = CliRunner().invoke(main, ["--root", str(root), "ls"],
                                env={"SCRATCHFS_INDEX": "postgresql://us@er:s3cret@host/db"})
    assert result.exit_code == 2 and "s3cret" not in result.output and not root.exists(), result.output


@pytest.mark.parametrize("url", ["postgresql://u:s3cr%zzet@h/db", "postgresql://u:s3cret%@h/db",
                                 "postgresql://u:s3cr%00et@h/db", "postgresql://u:s3cr%zzet@h/db?schema=x"])
def test_a_password_libpq_refuses_is_not_echoed(tmp_path, url):
    """A password with a bad percent escape made the refusal quote it: 'invalid percent-encoded token: "s3cr%zzet"'
    on stderr (and in any log of it), where scratchfs's errors never echo credentials. libpq's reason is kept; the
    password is not shown."""
    from scratchfs.engine.backends import split_postgres_url
    from scratchfs.foundation.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=r"not a valid libpq URL: .*percent-encoded") as caught:
        split_postgres_url(url)
    assert "s3cr" not in str(caught.value) and "password" in str(caught.value), caught.value
    result = CliRunner().invoke(main, ["--root", str(tmp_path / "root"), "ls"], env={"SCRATCHFS_INDEX": url})
    assert result.exit_code == 2 and "s3cr" not in result.output, result.output
    with pytest.raises(InvalidArgument, match="names a port that is not") as caught:  # no host: the password is a port
        split_postgres_url("postgresql://u:s3cret/db")
    assert "s3cr" not in str(caught.value)
    with pytest.raises(InvalidArgument, match='token: "%zz"'):  # a token that is not the password is still quoted
        split_postgres_url("postgresql://u:p@h/db?sslmode=%zz")


@pytest.mark.parametrize(("url", "told"), [
    ("postgresql://u:pw@h1:5432,h2:5433/db?schema=s", "postgresql://u@h1:5432,h2:5433/db"),
    ("postgresql://u:pw@[::1]:5432/db", "postgresql://u@[::1]:5432/db"),
    ("postgresql:///db?host=/tmp", "postgresql:///db"),
    ("postgresql://us%40er:p%40ss@Host.example/db", "postgresql://us%40er@Host.example/db"),
])
def test_a_store_names_its_index_as_given_without_the_password(url, told):
    """``repr(store)`` (what ``serve`` prints for a fleet) named 'postgresql://u@h1/db' for a URL of two hosts (the
    second host and the ports dropped), '::1:5432' for an IPv6 host (its brackets dropped: a port that reads as part
    of the address) and 'postgresql:/db' for a socket URL. It names the hosts as written, without the password."""
    from scratchfs.engine.backends import describe_url

    assert describe_url(url) == told


@pytest.mark.parametrize(("url", "meant"), [
    ("postgresql://u@db.internal/app?shema=scratch", "schema"),
    ("postgresql://u@db.internal/app?runs_tabel=runs(id)", "runs_table"),
    ("postgresql://u@db.internal/app?sslmod=require", "sslmode"),
])
def test_a_misspelt_index_url_parameter_names_the_one_meant(tmp_path, url, meant):
    """libpq's refusal named the typo alone (``invalid URI query parameter: "shema"``), so a newcomer's ``?shema=``
    was left to find the word in the README (newuser22): the line names the parameter meant and what takes which."""
    result = CliRunner().invoke(main, ["--root", str(tmp_path / "root"), "ls"], env={"SCRATCHFS_INDEX": url})
    assert result.exit_code == 2, result.output
    assert f"(did you mean {meant!r}?); scratchfs takes schema and runs_table" in result.stderr
    assert result.stderr.count("\n") == 1
    far = CliRunner().invoke(main, ["--root", str(tmp_path / "root"), "ls"],
                             env={"SCRATCHFS_INDEX": "postgresql://u@db.internal/app?zzz=1"})
    assert far.exit_code == 2 and "did you mean" not in far.stderr and "scratchfs takes schema" in far.stderr


def test_a_connection_parameter_libpq_refuses_says_to_correct_it_in_the_index_url(tmp_path):
    """``?sslmode=bogus`` (libpq refuses the value before it connects) ended ``invalid sslmode value: "bogus"``,
    naming no setting to fix (newuser22): the line now says where the value is."""
    from scratchfs import ScratchStore

    with pytest.raises(StorageError) as caught:
        ScratchStore(tmp_path / "root", index="postgresql://u@127.0.0.1:1/app?sslmode=bogus")
    assert str(caught.value).endswith('invalid sslmode value: "bogus"; correct that parameter\'s value in the index '
                                      'URL ($SCRATCHFS_INDEX, --index)')


@pytest.mark.alone(waits=True)  # (its calls mostly wait)
def test_a_server_stopped_under_a_running_store_is_told_with_what_to_check(own_postgres_server):
    """A running store whose server went down said only ``...: Connection refused``, where the same failure at the
    opening says what to check (newuser22 stopped PostgreSQL under an agent): every failure says it now."""
    server = own_postgres_server
    index = PostgresIndex(server.dsn, busy_timeout=1.0, clock="caller")
    try:
        index.put(entry(key="h"), b"", lambda: True)
        server.stop("fast")
        for _ in range(3):
            with pytest.raises(StorageError) as caught:
                index.lookup("run-1", "agent-1", "handle", "h", NOW)
            told = str(caught.value)
            assert "\n" not in told
            assert told.endswith(("check that PostgreSQL is up and that the index URL ($SCRATCHFS_INDEX, --index) "
                                  "names its host and port", "(the server is down, refusing or overloaded)")), told
    finally:
        index.close()
