"""What a fleet operation costs in PostgreSQL round trips, measured through a proxy that delays every reply of the
server by 0.25 s (tests/latency_proxy.py: an operation's round trips are its time over the delay). A spill was 6
(the pool's check, BEGIN, the delete lock, the clock, the INSERT, COMMIT: one statement a round trip), a scratchpad
overwrite 8, a delete 5. The write's transaction now runs in psycopg's pipeline mode (BEGIN with the lock and the
clock, then the HEAD under the lock, then the statements with the COMMIT), and a delete is one statement: 3, 3 and
2. Failures inside the batch still roll everything back."""

from __future__ import annotations

import re

import psycopg
import pytest

from scratchfs import QuotaExceeded, ScratchStore
from tests.latency_proxy import LatencyProxy
from tests.services import postgres_url


@pytest.fixture
def proxied(postgres_dsn, pg_schema, tmp_path, s3_env):
    """``(proxy, index URL through it, blobs URL)``."""
    port = int(re.search(r"port=(\d+)", postgres_dsn).group(1))
    with LatencyProxy("127.0.0.1", port, DELAY) as proxy:
        dsn = re.sub(r"port=\d+", f"port={proxy.port}", postgres_dsn)
        yield proxy, postgres_url(dsn, pg_schema), s3_env


DELAY = 0.25  # seconds: a round trip (an operation's own time on loopback, S3 calls included, is a few ms)


def _turns(proxy: LatencyProxy, operation) -> int:
    return proxy.round_trips(operation)


@pytest.mark.alone
def test_each_write_and_read_costs_the_round_trips_readme_names(proxied, tmp_path):
    proxy, index, blobs = proxied
    with ScratchStore(tmp_path / "a", index=index, blobs=blobs) as store, \
            ScratchStore(tmp_path / "b", index=index, blobs=blobs) as other:
        scope = store.scope("run-1", "agent-1")
        scope.spill(b"warm up\n" * 2000)
        scope.scratch_write("plan", b"v" * 10_000)
        other.scope("run-1", "agent-1").scratch_read("plan")
        handle = []
        costs = {
            "spill": _turns(proxy, lambda: handle.append(scope.spill(b"a result\n" * 5000).handle)),
            "small spill": _turns(proxy, lambda: scope.spill(b"x" * 100)),
            "scratch_write over a value": _turns(proxy, lambda: scope.scratch_write("plan", b"w" * 10_000)),
            "scratch_write of a new key": _turns(proxy, lambda: scope.scratch_write("notes", b"n" * 10_000)),
            "scratch_delete": _turns(proxy, lambda: scope.scratch_delete("notes")),
            "read by another host": _turns(proxy, lambda: other.scope("run-1", "agent-1").read_handle(
                handle[0], offset=0, length=100)),
        }
    assert costs == {"spill": 3, "small spill": 3, "scratch_write over a value": 3, "scratch_write of a new key": 3,
                     "scratch_delete": 2, "read by another host": 2}, costs


@pytest.mark.alone
def test_a_write_refused_inside_its_batch_leaves_nothing_and_the_connection_works(proxied, tmp_path, postgres_dsn,
                                                                                   pg_schema):
    """A quota refused after the batch began (the old value read, then QuotaExceeded raised in Python) and a
    statement that fails in the batch (an entry the index refuses at its COMMIT's batch) roll back: no row, no
    tombstone change, no connection left inside a transaction, and the next write on the same pool lands."""
    proxy, index, blobs = proxied
    with ScratchStore(tmp_path, index=index, blobs=blobs, run_quota_entries=2) as store:
        scope = store.scope("run-1", "agent-1")
        scope.scratch_write("a", b"1" * 10_000)
        scope.scratch_write("b", b"2" * 10_000)
        assert _turns(proxy, lambda: scope.scratch_write("a", b"3" * 10_000)) == 4  # (the quota: one more)
        with pytest.raises(QuotaExceeded):
            scope.scratch_write("c", b"4" * 10_000)
        for _ in range(10):  # every pooled connection handed out again: none left in a transaction
            assert scope.scratch_read("a") == b"3" * 10_000
        scope.scratch_delete("b")
        scope.scratch_write("c", b"5" * 10_000)
        assert sorted(e.key for e in scope.scratch_list()) == ["a", "c"]
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        rows = conn.execute(f'SELECT key FROM "{pg_schema}".entries WHERE kind = %s ORDER BY key',
                            ("scratch",)).fetchall()
        idle = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'").fetchone()
    assert [r[0] for r in rows] == ["a", "c"]
    assert idle[0] == 0
