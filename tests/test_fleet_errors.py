"""What a PostgreSQL index says when it cannot do what was asked, as a fleet trial met it: the platform cascade's
refusals name the run and the runs table (and, on tying an existing schema to a runs table, the runs its entries name
that the table lacks); the web inspector answers 503 with Retry-After while the index is out of reach."""

from __future__ import annotations

import contextlib
import threading
import time

import psycopg
import pytest

from scratchfs import InvalidArgument, Observation, ScratchStore, StorageError, StoreBusy
from tests.services import postgres_url


@pytest.fixture
def platform(postgres_dsn, pg_schema):
    """A platform's runs table ``<schema>_platform.runs(id)`` holding run-1 and run-2; returns its name."""
    name = f"{pg_schema}_platform"
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
        conn.execute(f'CREATE TABLE "{name}".runs (id text PRIMARY KEY)')
        conn.execute(f"INSERT INTO \"{name}\".runs (id) VALUES ('run-1'), ('run-2')")
    return f"{name}.runs(id)"


def test_a_spill_for_a_run_the_runs_table_lacks_names_the_run_and_the_table(postgres_dsn, pg_schema, platform,
                                                                            tmp_path):
    index = postgres_url(postgres_dsn, pg_schema) + f"&runs_table={platform}"
    with ScratchStore(tmp_path, index=index) as store:
        store.scope("run-1", "agent").spill(b"a known run")
        with pytest.raises(InvalidArgument) as err:
            store.scope("run-unknown", "agent").spill(b"no such run")
        assert str(err.value) == (
            f"the platform's runs table {platform} has no run 'run-unknown' while writing an entry: the platform "
            "adds a run's row before its agents write")
        assert [e.run_id for e in store.list_entries()] == ["run-1"]


def test_tying_an_existing_schema_to_a_runs_table_names_the_runs_it_lacks(postgres_dsn, pg_schema, platform,
                                                                         tmp_path):
    plain = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path, index=plain) as store:
        for run in ("run-1", "run-7", "run-9", "run-9"):
            store.scope(run, "agent").spill(f"an entry of {run}".encode())
    with pytest.raises(InvalidArgument) as err:
        ScratchStore(tmp_path, index=plain + f"&runs_table={platform}")
    assert str(err.value) == (
        f"cannot tie the index schema '{pg_schema}' to the runs table {platform}: its entries name 2 runs the table "
        "lacks ('run-7', 'run-9'); add them to the table, delete their entries (scratchfs delete-run), or leave "
        "runs_table= off the index URL (nothing was changed)")
    with ScratchStore(tmp_path, index=plain) as store:  # nothing was changed: the schema works as before
        assert len(store.list_entries()) == 4
        store.delete_run("run-7")
        store.delete_run("run-9")
    with ScratchStore(tmp_path, index=plain + f"&runs_table={platform}") as store:
        assert [e.run_id for e in store.list_entries()] == ["run-1"]


@pytest.fixture
def server(own_postgres_server):
    """A PostgreSQL server of the test's own (the test stops and starts it again)."""
    return own_postgres_server


def _web(store):
    from starlette.testclient import TestClient

    from scratchfs.web import create_app

    token = "test-token-0123456789abcdef"
    return TestClient(create_app(store, token), headers={"Authorization": f"Bearer {token}"})


@pytest.mark.alone(waits=True)  # (its call mostly waits)
def test_the_web_api_answers_503_with_retry_after_while_the_index_database_is_down(tmp_path, server):
    """A fleet trial: with PostgreSQL down every API call answered 500 ``storage``; an index that cannot be reached
    is a server unavailable for now (503, with Retry-After), as a busy one is."""
    with ScratchStore(tmp_path, index=postgres_url(server.dsn, "scratchfs"), busy_timeout=1.0) as store:
        scope = store.scope("run-1", "agent-1")
        handle = scope.spill(b"before the outage\n" * 100).handle
        with _web(store) as client:
            assert client.get("/api/runs").status_code == 200
            server.stop()
            for path in ("/api/runs", "/api/stats", f"/api/runs/run-1/agents/agent-1/handles/{handle}/read",
                         "/api/runs/run-1/scratch"):
                started = time.monotonic()
                got = client.get(path)
                assert got.status_code == 503, (path, got.status_code, got.text)
                assert got.headers["Retry-After"].isdigit(), path
                assert got.json()["error"]["kind"] == "storage", path
                assert time.monotonic() - started < 15, path
            server.start()
            assert client.get("/api/runs").status_code == 200  # the pool reconnects


def test_a_busy_index_is_503_with_retry_after_and_a_failing_one_500():
    from scratchfs.web.endpoint import error_response

    busy = error_response(StoreBusy("the index stayed busy past the busy timeout"))
    assert (busy.status_code, busy.headers["Retry-After"].isdigit()) == (503, True)
    failed = error_response(StorageError("the disk is full"))  # not a server away: retrying later does not help
    assert failed.status_code == 500
    assert "Retry-After" not in failed.headers


def _schemas(dsn, name):
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", (name,)).fetchone()[0]


@pytest.mark.parametrize("command", ["ls", "stats", "spill"])
def test_a_schema_name_no_store_opens_is_refused_alike_by_a_read_and_a_write(command, postgres_dsn, tmp_path,
                                                                            monkeypatch):
    """newuser13: ``ls --index '...?schema=Bad-Name'`` said "no index schema 'Bad-Name' ...: a spill, scratch-write
    or load creates it" (exit 1), while that spill was refused for the name (exit 2): the name is refused alike."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    monkeypatch.setenv("SCRATCHFS_INDEX", postgres_url(postgres_dsn, "Bad-Name"))
    monkeypatch.setenv("SCRATCHFS_RUN_ID", "run-1")
    monkeypatch.setenv("SCRATCHFS_AGENT_ID", "agent-1")
    monkeypatch.delenv("SCRATCHFS_BLOBS", raising=False)
    done = CliRunner().invoke(main, [command, "--root", str(tmp_path / "host")], input="a line\n")
    assert (done.exit_code, done.stderr) == (2, "scratchfs: invalid argument: schema must be lower-case letters, "
                                             "digits and _ (at most 63): 'Bad-Name'\n")
    assert _schemas(postgres_dsn, "Bad-Name") == 0


@pytest.mark.parametrize("args", [["ls"], ["stats"], ["fsck"], ["read-handle", "h_aaaaaaaaaaaaaaaaaaaaaaaa"],
                                  ["scratch-read", "notes"], ["scratch-list"], ["sweep"], ["delete-run", "run-1"]])
def test_a_read_only_command_against_a_schema_that_does_not_exist_says_so_and_creates_nothing(
        args, postgres_dsn, pg_schema, tmp_path, monkeypatch):
    """A fleet trial: ``ls`` against ``?schema=typo_schema`` made that empty schema and answered as if the store
    were empty (exit 0); a local store's read-only command exits 1 when there is no store."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    typo = f"{pg_schema}_typo"
    monkeypatch.setenv("SCRATCHFS_INDEX", postgres_url(postgres_dsn, typo))
    monkeypatch.setenv("SCRATCHFS_RUN_ID", "run-1")
    monkeypatch.setenv("SCRATCHFS_AGENT_ID", "agent-1")
    monkeypatch.delenv("SCRATCHFS_BLOBS", raising=False)
    done = CliRunner().invoke(main, [*args, "--root", str(tmp_path / "host")])
    assert done.exit_code == 1, done.output
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"no index schema '{typo}' in the database at postgresql://postgres@" in done.stderr, done.stderr
    assert "?schema=" in done.stderr, done.stderr
    assert _schemas(postgres_dsn, typo) == 0  # nothing was created
    page = tmp_path / "page.txt"
    page.write_bytes(b"a line\n" * 10)
    written = CliRunner().invoke(main, ["spill", str(page), "--root", str(tmp_path / "host")])
    assert written.exit_code == 0, written.output  # a write still creates it
    assert _schemas(postgres_dsn, typo) == 1
    again = CliRunner().invoke(main, ["ls", "--json", "--root", str(tmp_path / "host")])
    assert again.exit_code == 0, again.output


def test_a_rebuild_makes_a_schema_lost_whole_again(postgres_dsn, pg_schema, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from scratchfs.cli import main

    index = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path, index=index) as store:
        handle = store.scope("run-1", "agent-1").spill(b"kept in its blob\n" * 100).handle
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{pg_schema}" CASCADE')  # the index lost whole
    monkeypatch.setenv("SCRATCHFS_INDEX", index)
    monkeypatch.delenv("SCRATCHFS_BLOBS", raising=False)
    assert CliRunner().invoke(main, ["ls", "--root", str(tmp_path)]).exit_code == 1
    done = CliRunner().invoke(main, ["fsck", "--rebuild-index", "--root", str(tmp_path)])
    assert done.exit_code == 0, done.output
    with ScratchStore(tmp_path, index=index) as store:
        assert store.scope("run-1", "agent-1").read_handle(handle, length=17).data == b"kept in its blob\n"


def _pool_records(caplog: pytest.LogCaptureFixture, pool_name: str) -> list:
    return [r for r in caplog.records if r.name == "psycopg.pool" and repr(pool_name) in r.getMessage()]


def test_the_pools_warnings_in_an_outage_are_one_line_once_a_minute(s3_env, tmp_path, caplog, server):
    """psycopg_pool logs each failed reconnection of the store's pool at WARNING, libpq's message over several lines,
    about twice a second (newuser5): the store keeps the first of each kind a minute, on one line."""
    import logging

    from scratchfs.engine.pool_log import FILTER, POOL_NAME

    with ScratchStore(tmp_path, index=postgres_url(server.dsn, "scratchfs"), blobs=s3_env,
                      busy_timeout=1.0) as store:
        assert store.index.pool().name == POOL_NAME
        scope = store.scope("run-1", "agent-1")
        scope.spill(b"before the outage " * 1000)
        server.stop()
        FILTER.forget()  # (an outage of an earlier test in this process let its records through already)
        caplog.set_level(logging.WARNING, logger="psycopg.pool")
        for _ in range(3):
            with pytest.raises(StorageError):
                scope.spill(b"during the outage " * 1000)
        # the pool's own threads log its failed reconnections: wait for the first (a fixed 2 s stood in for this; a
        # loaded machine can run those threads later), then 2 s more, in which it tries again about four times
        deadline = time.monotonic() + 30
        while not _pool_records(caplog, POOL_NAME) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _pool_records(caplog, POOL_NAME), "the pool logged nothing about the outage"
        time.sleep(2)
        ours = _pool_records(caplog, POOL_NAME)
        assert len({r.msg for r in ours}) == len(ours)  # one of each kind
        assert all("\n" not in r.getMessage() for r in ours)


@pytest.mark.alone(waits=True)  # (its call mostly waits)
def test_with_the_index_database_down_each_operation_fails_at_once_not_after_the_busy_timeout(tmp_path, server):
    """psycopg_pool waits its whole timeout for a connection while the server refuses new ones: with PostgreSQL down,
    every spill waited busy_timeout (30 s by default) before it failed, and an agent loop's offload held each large
    result's turn that long before passing it through. A refused fresh connection now fails the operation at once,
    with the server's reason, and the next operations for a second without asking again; once the server is back,
    operations go on, the entries from before the outage whole."""
    from scratchfs.engine.postgres_pool import DOWN_SECONDS

    with ScratchStore(tmp_path, index=postgres_url(server.dsn, "scratchfs"), busy_timeout=10.0) as store:
        scope = store.scope("run-1", "agent-1")
        before = b"before the outage\n" * 1000
        handle = scope.spill(before).handle
        server.stop()
        for _ in range(4):
            started = time.monotonic()
            with pytest.raises(StorageError) as failed:
                scope.spill(b"during the outage\n" * 1000)
            assert time.monotonic() - started < 2.5, "waited for the busy timeout"
            assert failed.value.unavailable and "refused" in str(failed.value).lower(), str(failed.value)
        started = time.monotonic()
        passed = scope.offload(Observation("fetch", "during the outage\n" * 1000, result_class="query"))
        assert passed.content == "during the outage\n" * 1000 and passed.stub is None  # passed through, whole
        assert time.monotonic() - started < 2.5
        server.start()
        time.sleep(DOWN_SECONDS)
        assert scope.read_handle(handle, length=len(before)).data == before
        after = scope.spill(b"after the outage\n" * 1000).handle
        assert scope.read_handle(after, length=17).data == b"after the outage\n"


def _stopped(server):
    """Stop (SIGSTOP) ``server``'s processes, its postmaster and every child: a server that lets TCP connect and
    never answers. Returns the pids, for :func:`_resumed`."""
    import os
    import signal
    import subprocess

    with open(os.path.join(server.data, "postmaster.pid")) as pid_file:
        parent = pid_file.readline().strip()
    kids = subprocess.run(["ps", "-o", "pid=", "--ppid", parent], capture_output=True, text=True).stdout.split()
    pids = [int(parent), *map(int, kids)]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):  # (a backend that just ended)
            os.kill(pid, signal.SIGSTOP)
    return pids


def _resumed(pids):
    import os
    import signal

    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


@pytest.mark.alone(waits=True)  # (its call mostly waits)
def test_a_stopped_index_server_fails_each_call_within_about_the_busy_timeout(tmp_path, server):
    """newuser7: with PostgreSQL's processes stopped (SIGSTOP: TCP connects, nothing answers) a read at busy_timeout=5
    took 35 s, the whole stop: the server's statement_timeout never fires and the pool's check of a connection had
    no client-side bound. Now the first call fails within about the busy timeout, with a message that says the server
    did not answer, the next ones at once (the circuit breaker), and a probe after that within about it again; once
    the server runs again, so do the calls."""
    from scratchfs.engine.postgres_pool import DOWN_SECONDS

    with ScratchStore(tmp_path, index=postgres_url(server.dsn, "scratchfs"), busy_timeout=1.0) as store:
        scope = store.scope("run-1", "agent-1")
        handle = scope.spill(b"before the hang\n" * 5000).handle
        pids = _stopped(server)
        safety = threading.Timer(20, _resumed, (pids,))  # (before the fix a call waited as long as the stop lasted)
        safety.start()
        try:
            took = []
            for call in (lambda: scope.read_range(handle, 0, 10), lambda: scope.scratch_write("k", "v"),
                         lambda: scope.read_range(handle, 0, 10)):
                started = time.monotonic()
                with pytest.raises(StorageError) as failed:
                    call()
                took.append(time.monotonic() - started)
                assert failed.value.unavailable, str(failed.value)
                assert "no reply from the server within 2 s" in str(failed.value), str(failed.value)
            assert took[0] < 1.0 + 2.5, took  # the busy timeout and a second (and a margin for a loaded host)
            assert took[1] < 0.5, took  # the circuit breaker: at once
            time.sleep(DOWN_SECONDS)
            started = time.monotonic()
            passed = scope.offload(Observation("fetch", "during the hang\n" * 3000, result_class="query"))
            assert passed.stub is None and passed.content == "during the hang\n" * 3000  # passed through, whole
            # (51,000 bytes as the model gets them: under passthrough_max_bytes; past it, tests/test_spill_failure.py)
            assert time.monotonic() - started < 1.0 + 2.5
        finally:
            safety.cancel()
            _resumed(pids)
        time.sleep(DOWN_SECONDS)
        assert scope.read_range(handle, 0, 16).data == b"before the hang\n"


@pytest.mark.alone(waits=True)  # (its call mostly waits)
@pytest.mark.parametrize("args", [["ls"], ["read-handle", "h_aaaaaaaaaaaaaaaaaaaaaaaa"]])
def test_a_command_against_a_stopped_index_server_fails_within_about_scratchfs_busy_timeout(
        args, tmp_path, server, monkeypatch):
    """newuser7: ``ls`` against a stopped PostgreSQL took 22 s with SCRATCHFS_BUSY_TIMEOUT=5 (ls has no
    --busy-timeout and read the variable nowhere; its schema check had a 10 s connect timeout of its own),
    ``read-handle`` 17.5 s: now each fails within about the busy timeout, one stderr line saying what was being done."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    index = postgres_url(server.dsn, "scratchfs")
    with ScratchStore(tmp_path, index=index) as store:
        store.scope("run-1", "agent-1").spill(b"an entry\n" * 100)
    monkeypatch.setenv("SCRATCHFS_INDEX", index)
    monkeypatch.setenv("SCRATCHFS_BUSY_TIMEOUT", "2")
    monkeypatch.setenv("SCRATCHFS_RUN_ID", "run-1")
    monkeypatch.setenv("SCRATCHFS_AGENT_ID", "agent-1")
    monkeypatch.delenv("SCRATCHFS_BLOBS", raising=False)
    pids = _stopped(server)
    safety = threading.Timer(30, _resumed, (pids,))
    safety.start()
    try:
        started = time.monotonic()
        done = CliRunner().invoke(main, [*args, "--root", str(tmp_path)])
        took = time.monotonic() - started
    finally:
        safety.cancel()
        _resumed(pids)
    assert done.exit_code not in (0, 2), done.output
    assert done.stderr.count("\n") == 1, done.stderr
    assert "while connecting to it" in done.stderr and "creating the schema" not in done.stderr, done.stderr
    assert took < 2 + 2.5, (took, done.stderr)


def test_a_bad_scratchfs_busy_timeout_is_a_usage_error_for_a_command_without_the_option(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from scratchfs.cli import main

    monkeypatch.setenv("SCRATCHFS_BUSY_TIMEOUT", "soon")
    done = CliRunner().invoke(main, ["ls", "--root", str(tmp_path)])
    assert done.exit_code == 2, done.output
    assert "$SCRATCHFS_BUSY_TIMEOUT: 'soon' is not a number of seconds" in done.stderr, done.stderr


def test_a_database_that_cannot_be_connected_to_is_told_as_such_not_as_the_schemas(postgres_dsn, tmp_path):
    """newuser7: every PostgreSQL failure said "while creating the schema" (a wrong password, ``ls``): a connection
    refused by the server says what was being done."""
    dsn = postgres_dsn.replace("dbname=postgres", "dbname=no_such_database")
    assert dsn != postgres_dsn
    with pytest.raises(StorageError) as err:
        ScratchStore(tmp_path, index=postgres_url(dsn, "scratchfs"), busy_timeout=2.0)
    message = str(err.value)
    assert message.startswith("the index database failed while connecting to it: "), message
    assert 'database "no_such_database" does not exist' in message, message


@pytest.mark.parametrize(("wrong", "fix"), [
    ("database", "; create the database first (scratchfs creates its schema, never a database), or name an existing "
                 "one in the index URL ($SCRATCHFS_INDEX, --index)"),
    ("role", "; check the user of the index URL ($SCRATCHFS_INDEX, --index)"),
    ("port", "; check that PostgreSQL is up and that the index URL ($SCRATCHFS_INDEX, --index) names its host and "
             "port"),
])
def test_a_connection_that_fails_for_a_setting_names_the_setting_to_fix(wrong, fix, postgres_dsn, tmp_path):
    """newuser13: a wrong database, role or port in the index URL was told as libpq's words alone ("Connection
    refused"), where an S3 failure names ``$AWS_ENDPOINT_URL``: the line ends in what to fix, in the URL named."""
    from psycopg.conninfo import conninfo_to_dict

    from tests.services import free_port

    params = {k: str(v) for k, v in conninfo_to_dict(postgres_dsn).items()}
    params.update({"database": {"dbname": "no_such_database"}, "role": {"user": "no_such_role"},
                   "port": {"port": str(free_port())}}[wrong])
    dsn = " ".join(f"{k}={v}" for k, v in params.items())
    with pytest.raises(StorageError) as err:
        ScratchStore(tmp_path, index=postgres_url(dsn, "scratchfs"), busy_timeout=2.0)
    message = str(err.value)
    assert message.startswith("the index database failed while connecting to it: "), message
    assert message.endswith(fix), message
    assert message.count(";") == 1, message


def test_the_cost_of_a_spill_is_what_the_readme_says(tmp_path, server, s3_env):
    """newuser7 counted a spill with PostgreSQL's statement log: 6 round trips and a PUT and a HEAD, where README said
    "a small one is one PUT". Counted the same way here, against what README now says."""
    import re
    from pathlib import Path

    readme = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8").split())
    assert "is one `PUT` and one `HEAD`, and 3 PostgreSQL round trips" in readme
    assert "pipeline mode: 5 statements in all" in readme  # (the round trips: tests/test_fleet_round_trips.py)
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET log_statement = 'all'")
        conn.execute("SELECT pg_reload_conf()")
    time.sleep(0.5)
    log = Path(server.dir) / "log"
    with ScratchStore(tmp_path, index=postgres_url(server.dsn, "scratchfs"), blobs=s3_env) as store:
        scope = store.scope("run-1", "agent-1")
        scope.spill(b"warm up\n" * 100)
        requests = []
        store.blobs.client().meta.events.register("before-send.s3", lambda request, **_: requests.append(
            request.method))
        before = len(log.read_text(errors="replace").splitlines())
        scope.spill(b"a result\n" * 5000)
        time.sleep(0.5)  # (the server's log is written as it goes)
    lines = log.read_text(errors="replace").splitlines()[before:]
    statements = [line for line in lines if re.search(r"LOG:  (statement|execute)", line)]
    assert len(statements) == 5, statements
    assert requests == ["PUT", "HEAD"], requests
