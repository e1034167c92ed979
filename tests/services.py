"""Real servers for the backend tests: a private PostgreSQL and an S3 API server on loopback, one per session.

* ``postgres_dsn`` (session): ``$SCRATCHFS_TEST_POSTGRES_DSN`` when set; else a PostgreSQL server started from the
  Debian binaries (``/usr/lib/postgresql/<version>/bin``, newest first) in a private temporary directory, on a free
  loopback port and its own socket directory, with ``fsync=off`` (test data), stopped and removed at the end of the
  session (and, should the session be killed first, by the next session: :func:`reap_stale`). ``initdb`` refuses
  root, so as root the server runs as the ``postgres`` user through ``runuser``.
* ``own_postgres_server`` (function): a server of the test's own (to stop and start: an outage), a copy of the
  session's ``postgres_template`` (a cluster ``initdb`` made once, never started) rather than an ``initdb`` each.
* ``pg_schema`` (function): a fresh schema name in that database for one test (dropped afterwards), so that tests
  never see each other's rows.
* ``s3_endpoint`` (session): moto's ``ThreadedMotoServer`` (an S3 API emulator, not a mock of the client: the backend
  talks HTTP to it as to any S3-compatible store) on ``127.0.0.1`` and a free port, with two answers made AWS S3's
  (:func:`faithful_moto`: incomplete uploads' ``Initiated`` dates, ``NoSuchUpload`` for an aborted upload).
* ``s3_env`` (function): the standard AWS environment pointed at that server (``AWS_ENDPOINT_URL``, a test key pair,
  ``AWS_REGION``) and a fresh bucket; returns ``s3://bucket/prefix``.

Without the binaries or the package, these fixtures skip with the reason -- unless ``$SCRATCHFS_REQUIRE_SERVICES=1``
(``.ci/run`` sets it), where the missing service fails the test instead.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator

import pytest

__all__ = ["REQUIRE_SERVICES", "PostgresServer", "faithful_moto", "free_port", "own_postgres_server", "pg_bin",
           "pg_schema", "postgres_dsn", "postgres_server", "postgres_template", "postgres_url", "s3_endpoint",
           "s3_env", "unavailable"]

REQUIRE_SERVICES = os.environ.get("SCRATCHFS_REQUIRE_SERVICES") == "1"
DSN_ENV = "SCRATCHFS_TEST_POSTGRES_DSN"


def unavailable(reason: str) -> None:
    """Skip the test for ``reason``, or fail it when services are required (``SCRATCHFS_REQUIRE_SERVICES=1``)."""
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (SCRATCHFS_REQUIRE_SERVICES=1: the backend tests must run here)", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    """A TCP port free on loopback right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pg_bin() -> str | None:
    """The directory of the newest Debian PostgreSQL binaries (``/usr/lib/postgresql/N/bin``), or ``None``."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return os.path.dirname(found[-1]) if found else None


class PostgresServer:
    """A throw-away PostgreSQL cluster in a private temporary directory (see the module docstring)."""

    def __init__(self, bindir: str) -> None:
        self.bindir = bindir
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix=_PG_PREFIX)
        with open(os.path.join(self.dir, "owner"), "w") as owner:  # the session that removes it (see reap_stale)
            owner.write(str(os.getpid()))
        self.data = os.path.join(self.dir, "data")
        self.template: str | None = None  # a cluster to copy instead of running initdb (see initdb)
        self.user = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                shutil.rmtree(self.dir, ignore_errors=True)
                raise RuntimeError("running as root and there is no 'postgres' user to run initdb as") from None
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres connect_timeout=10"

    def _run(self, *args: str, timeout: float = 60.0) -> None:
        cmd = [os.path.join(self.bindir, args[0]), *args[1:]]
        if self.user is not None:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=self.dir)
        if done.returncode:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")

    def start(self) -> None:
        """Create the cluster (the first time) and start the server; wait until it accepts connections."""
        if not os.path.exists(os.path.join(self.data, "PG_VERSION")):
            self.initdb(self.template)
        opts = (f"-k {self.dir} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300")
        self._run("pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w", "-t", "60", "-o", opts,
                  "start", timeout=90)

    def initdb(self, template: str | None = None) -> None:
        """Create the cluster: ``initdb``, or a copy of ``template`` (a data directory ``initdb`` made, its server never
        started: what ``initdb`` writes each time, in a fraction of its time; ``cp -a`` keeps the ``postgres`` owner
        and the mode 0700)."""
        if template is None:
            self._run("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
            return
        done = subprocess.run(["cp", "-a", template, self.data], capture_output=True, text=True, timeout=60)
        if done.returncode:
            raise RuntimeError(f"copying the template cluster failed ({done.returncode}): {done.stderr.strip()}")

    def stop(self, mode: str = "fast") -> None:
        with contextlib.suppress(Exception):
            self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


_PG_PREFIX = "scratchfs-pg-"
_UNOWNED_SECONDS = 3600.0  # a directory without an owner file (an older session's) is reaped once this old


def _alive(pid_file: str) -> bool:
    """Whether the process whose id is the first line of ``pid_file`` runs (False when the file is missing)."""
    try:
        with open(pid_file) as f:
            os.kill(int(f.readline().strip()), 0)
    except (OSError, ValueError):
        return False
    return True


def reap_stale(bindir: str) -> list[str]:
    """Stop and remove the servers of earlier sessions that were killed before their end (a ``timeout``, a
    ``SIGKILL``: no fixture teardown ran), so that they do not pile up in the temporary directory: a directory whose
    owning session is gone. Returns the directories removed."""
    removed = []
    for path in glob.glob(os.path.join(tempfile.gettempdir(), _PG_PREFIX + "*")):
        owner = os.path.join(path, "owner")
        if _alive(owner) or (not os.path.exists(owner) and (
                _alive(os.path.join(path, "data", "postmaster.pid"))
                or time.time() - os.path.getmtime(path) < _UNOWNED_SECONDS)):
            continue  # a live session's; unowned (an older session's): running, or maybe still starting
        if _alive(os.path.join(path, "data", "postmaster.pid")):
            server = PostgresServer.__new__(PostgresServer)
            server.bindir, server.dir, server.data = bindir, path, os.path.join(path, "data")
            server.user = pwd.getpwnam("postgres") if os.geteuid() == 0 else None
            server.stop("immediate")
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer | None]:
    """The session's own PostgreSQL server (``None`` when ``$SCRATCHFS_TEST_POSTGRES_DSN`` names one instead)."""
    if os.environ.get(DSN_ENV):
        yield None
        return
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("psycopg is not installed (pip install -e '.[postgres]')")
    bindir = pg_bin()
    if bindir is None:
        unavailable("no PostgreSQL binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql), and "
                    f"${DSN_ENV} is not set")
    reap_stale(bindir)
    server = PostgresServer(bindir)
    try:
        server.start()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        server.remove()
        unavailable(f"the PostgreSQL test server did not start: {exc}")
    yield server
    server.remove()


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """The data directory of a cluster ``initdb`` made once per session and never started, which every test's own
    server copies (:func:`own_postgres_server`); skips, saying why, where no PostgreSQL binaries are installed."""
    bindir = pg_bin()
    if bindir is None:
        unavailable("no PostgreSQL binaries to start a server of this test's own")
    template = PostgresServer(bindir)
    try:
        template.initdb()
        yield template.data
    finally:
        shutil.rmtree(template.dir, ignore_errors=True)


@pytest.fixture
def own_postgres_server(postgres_template: str) -> Iterator[PostgresServer]:
    """A PostgreSQL server of the test's own (a copy of the session's template cluster), started (the test may stop
    and start it again: an outage), removed after; skips, saying why, where no PostgreSQL binaries are installed."""
    server = PostgresServer(pg_bin())
    server.template = postgres_template
    try:
        server.start()
        yield server
    finally:
        server.remove()


@pytest.fixture(scope="session")
def postgres_dsn(postgres_server: PostgresServer | None) -> str:
    """A DSN (libpq ``key=value`` form) of the session's PostgreSQL database."""
    return os.environ.get(DSN_ENV) or postgres_server.dsn  # type: ignore[union-attr]


@pytest.fixture
def pg_schema(postgres_dsn: str) -> Iterator[str]:
    """A fresh schema name for one test; the schema (if the test created it) is dropped afterwards."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    yield name
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:  # the schema and any named after it
        for (schema,) in conn.execute("SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)",
                                      (name,)).fetchall():
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def postgres_url(dsn: str, schema: str) -> str:
    """A ``postgresql://`` URL for ``dsn`` (libpq ``key=value`` form or a URL) with scratchfs's ``schema``."""
    from urllib.parse import quote, urlencode

    from psycopg.conninfo import conninfo_to_dict

    params = {k: str(v) for k, v in conninfo_to_dict(dsn).items()}
    user = quote(params.pop("user", ""), safe="")
    password = params.pop("password", None)
    auth = f"{user}:{quote(password, safe='')}@" if password else (f"{user}@" if user else "")
    host, port = params.pop("host", "127.0.0.1"), params.pop("port", "5432")
    dbname = quote(params.pop("dbname", "postgres"), safe="")
    return f"postgresql://{auth}{host}:{port}/{dbname}?{urlencode({**params, 'schema': schema})}"


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of the session's S3 API server (moto, :func:`faithful_moto` for the session)."""
    try:
        import boto3  # noqa: F401
        from moto.server import ThreadedMotoServer
    except ImportError:
        unavailable("moto[server] or boto3 is not installed (pip install -e '.[test]')")
    with pytest.MonkeyPatch.context() as patch:
        faithful_moto(patch)
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
        server.start()
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
        server.stop()


def faithful_moto(patch: pytest.MonkeyPatch) -> None:
    """Make two answers of moto's S3 server (in this process: every ``ThreadedMotoServer`` of it) AWS S3's, for the
    fleet sweep's end of incomplete multipart uploads (``tests/test_fleet_uploads.py``). ``ListMultipartUploads``
    gives each upload's ``Initiated`` as S3 does, the time it began in whole seconds -- moto 5 gives every upload
    2010-11-10T20:48:33Z, which a sweep takes for years old: it would abort every upload in flight. And
    ``UploadPart`` and ``CompleteMultipartUpload`` of an upload aborted (or completed) answer ``404 NoSuchUpload``
    as S3 does, where moto's raise a ``KeyError``: ``500 Internal Server Error``, retried."""
    from moto.s3 import models, responses
    from moto.s3.exceptions import NoSuchUpload

    made = models.FakeMultipart.__init__

    def stamped(self, *args, **kwargs):
        made(self, *args, **kwargs)
        self.scratchfs_initiated = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())

    listed = responses.S3Response.list_multipart_uploads

    def dated(self):
        uploads = self.backend.list_multipart_uploads(self.bucket_name)
        status, headers, body = listed(self)

        def one(found: re.Match) -> str:
            upload = uploads.get(re.search(r"<UploadId>([^<]*)</UploadId>", found[0])[1])
            at = getattr(upload, "scratchfs_initiated", None)
            return found[0] if at is None else re.sub(r"<Initiated>[^<]*</Initiated>", f"<Initiated>{at}</Initiated>",
                                                      found[0])
        return status, headers, re.sub(r"<Upload>.*?</Upload>", one, body, flags=re.S)

    def gone_is_no_such_upload(original):
        def checked(self, bucket_name, multipart_id, *args, **kwargs):
            if multipart_id not in self.get_bucket(bucket_name).multiparts:
                raise NoSuchUpload(upload_id=multipart_id)
            return original(self, bucket_name, multipart_id, *args, **kwargs)
        return checked

    patch.setattr(models.FakeMultipart, "__init__", stamped)
    patch.setattr(responses.S3Response, "list_multipart_uploads", dated)
    for name in ("upload_part", "complete_multipart_upload"):
        patch.setattr(models.S3Backend, name, gone_is_no_such_upload(getattr(models.S3Backend, name)))


S3_TEST_ENV = {"AWS_ACCESS_KEY_ID": "scratchfs-test", "AWS_SECRET_ACCESS_KEY": "scratchfs-test-secret",
               "AWS_REGION": "us-east-1"}


@pytest.fixture
def s3_env(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The AWS environment pointed at the test server, and a fresh bucket: returns ``s3://<bucket>/scratch``."""
    import boto3

    for name, value in {**S3_TEST_ENV, "AWS_ENDPOINT_URL": s3_endpoint}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)  # no reading of the user's own AWS files
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_DEFAULT_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    bucket = f"scratchfs-{uuid.uuid4().hex[:12]}"
    boto3.client("s3").create_bucket(Bucket=bucket)
    return f"s3://{bucket}/scratch"
