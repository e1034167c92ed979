"""hostile44: an S3 store (here a proxy in front of moto) that answers a byte at a time. Every byte came within the
read timeout (a third of ``busy_timeout``), so no timeout ended the wait: one ``read_handle`` took over 200 s with a
``busy_timeout`` of 3 s, where a store that sends nothing failed within the bound. Now the connection's wall-clock
deadline (:mod:`scratchfs.engine.s3_deadlines`) ends it: StorageError within about the bound, saying the reply was
too slow, and the store reads the right bytes again once the server answers at its speed."""

from __future__ import annotations

import re
import socket
import time
from urllib.parse import urlsplit

import pytest

from scratchfs import ScratchStore, StorageError
from tests.latency_proxy import DripProxy
from tests.services import postgres_url

BUSY = 3.0
SLACK = 1.5 + BUSY / 3  # (one attempt's timeout, the scheduler, and the payload's allowance: 128 KiB at 1 MiB/s)
GIVE_UP = 12.0  # (the proxy's drip ends after this: without the deadline the read ends, late, instead of hanging)


@pytest.fixture
def proxied(s3_endpoint, s3_env, monkeypatch):
    parts = urlsplit(s3_endpoint)
    proxy = DripProxy(parts.hostname, parts.port, GIVE_UP)
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{proxy.port}")
    yield proxy
    proxy.close()


@pytest.mark.alone(waits=True)  # (its calls mostly wait)
@pytest.mark.parametrize("head", [0, 2000], ids=["from-the-status-line", "after-the-headers"])
def test_a_store_answering_a_byte_at_a_time_fails_a_read_within_the_busy_timeout(postgres_dsn, pg_schema, s3_env,
                                                                                 proxied, tmp_path, head):
    data = b"".join(b"%08d line of text %s\n" % (i, b"q" * (i % 70)) for i in range(60000))
    urls = {"index": postgres_url(postgres_dsn, pg_schema), "blobs": s3_env, "busy_timeout": BUSY}
    with ScratchStore(tmp_path / "writer", **urls) as store:
        handle = store.scope("r", "a").spill(data, source_tool="t").handle
    with ScratchStore(tmp_path / "reader", **urls) as store:
        scope = store.scope("r", "a")
        proxied.head = head
        started = time.monotonic()
        with pytest.raises(StorageError) as err:
            scope.read_handle(handle, offset=1000, length=2000)
        took = time.monotonic() - started
        assert took < BUSY + SLACK, took
        assert "a reply too slow to finish" in str(err.value), str(err.value)
        assert re.search(rf"did not answer (in \d s \(another attempt would pass the {BUSY:g} s "
                         r"bound\)); check that the store is up and \$AWS_ENDPOINT_URL names it\)$", str(err.value)), \
            str(err.value)
        proxied.head = None
        time.sleep(1.1)  # (past the circuit breaker's second)
        assert scope.read_handle(handle, offset=1000, length=2000).data == data[1000:3000]
        assert scope.read_handle(handle, offset=len(data) - 5000, length=5000).data == data[-5000:]


def test_a_requests_deadline_allows_its_payload_at_the_minimum_rate():
    from scratchfs.engine import s3_deadlines

    mib = s3_deadlines.MIN_BYTES_PER_SECOND
    assert s3_deadlines.payload_bytes(b"x" * mib, {}) == mib
    assert s3_deadlines.payload_bytes(None, {"Range": "bytes=100-199"}) == 100
    assert s3_deadlines.payload_bytes(None, {"Range": "bytes=-16384"}) == 16384  # (a suffix)


def test_the_watchdog_cuts_a_late_connection_and_its_thread_ends_when_none_is_left():
    from scratchfs.engine import s3_deadlines

    watchdog = s3_deadlines.Watchdog()
    mine, theirs = socket.socketpair()
    with mine, theirs:
        conn = type("Conn", (), {"sock": mine})()
        s3_deadlines.set_deadline(time.monotonic() + 0.05, time.monotonic())
        watchdog.arm(conn, None, {})
        mine.settimeout(10.0)
        assert mine.recv(10) == b""  # (shut down at its deadline: the blocked read ends, nothing read)
        assert s3_deadlines.cut_short() is not None and s3_deadlines.cut_short() is None  # (said once)
        for _ in range(500):
            if watchdog._thread is None:  # (its thread, ended)
                break
            time.sleep(0.01)
        assert watchdog._thread is None
