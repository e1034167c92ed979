"""A run's listing of one kind (``GET /api/runs/{run}/scratch?kind=``, :func:`scratchfs.api.store_listing.iter_entries`)
is filtered by the index's query: a run of 100,000 handles and 3 scratch keys gives its 3 keys by reading 3 rows, not
100,000; a page of the run costs the same however deep it is; and paging by cursor gives exactly the plain answer,
ties of creation time included, on every index."""

from __future__ import annotations

import sqlite3

import pytest
from starlette.testclient import TestClient

from scratchfs.api import store_listing
from scratchfs.web import create_app
from tests.conftest import BACKENDS

TOKEN = "test-token-0123456789abcdef"
HANDLES = 100_000
TTL = 1_000_000.0  # seconds: every row is live throughout


@pytest.fixture
def client(store):
    with TestClient(create_app(store, TOKEN), headers={"Authorization": f"Bearer {TOKEN}"}) as c:
        yield c


def pages(client, run: str, **params) -> tuple[list[str], list[dict]]:
    """Every key of a listing, page by page (``next_cursor``), and the pages."""
    keys, got, cursor = [], [], None
    while True:
        page = client.get(f"/api/runs/{run}/scratch", params=params | ({"cursor": cursor} if cursor else {})).json()
        got.append(page)
        keys += [e["key"] for e in page["entries"]]
        cursor = page["next_cursor"]
        if cursor is None:
            return keys, got


@pytest.fixture
def big_run(store, clock):
    """Run ``big``: 100,000 handles of agent-1 with 3 scratch keys among them, rows written straight into the SQLite
    index (the listing reads rows only). Creation times come in groups of 7 equal ones, so cursors meet ties."""
    store.scope("big", "agent-1").scratch_write("k-first", b"v", ttl=TTL)  # a real row to copy the shape of
    conn = sqlite3.connect(store.index.path)
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
        "INSERT INTO entries (kind, run_id, agent_id, key, blob, size, stored_size, frames, lines, preview, "
        "source_tool, content_type, shape, created_at, expires_at, ttl, frame_newlines) "
        "SELECT 'handle', 'big', 'agent-1', printf('h_%06d', i), printf('b%024d', i), 1, 1, 1, 1, 'x', 't', 'text', "
        "NULL, created_at + 1 + i / 7, expires_at + 1 + i / 7, ttl, frame_newlines FROM n, entries "
        "WHERE entries.key = 'k-first'", (HANDLES,))
    conn.commit()
    conn.close()
    clock.advance(1.5 + HANDLES // 14)  # half-way through the handles' times
    store.scope("big", "agent-1").scratch_write("k-middle", b"v", ttl=TTL)
    clock.advance(HANDLES // 7)  # after the last
    store.scope("big", "agent-1").scratch_write("k-last", b"v", ttl=TTL)
    return "big"


def _reads(store, monkeypatch) -> list[tuple[str, dict, int]]:
    """Every statement the index runs from now on: its SQL, its parameters and the rows it gave."""
    seen: list[tuple[str, dict, int]] = []
    real = store.index.read

    def read(sql, params, doing):
        rows = real(sql, params, doing)
        seen.append((sql, params, len(rows)))
        return rows

    monkeypatch.setattr(store.index, "read", read)
    return seen


def _vm_steps(store, sql: str, params) -> int:
    """SQLite virtual-machine steps the statement takes (in steps of 10): the work of reading what it reads."""
    conn = sqlite3.connect(store.index.path)
    steps = [0]

    def count() -> int:
        steps[0] += 10
        return 0

    conn.set_progress_handler(count, 10)
    conn.execute(sql, params).fetchall()
    conn.close()
    return steps[0]


@pytest.mark.local_backend
def test_a_listing_of_one_kind_reads_only_rows_of_that_kind(store, client, big_run, monkeypatch):
    seen = _reads(store, monkeypatch)
    keys, got = pages(client, big_run, kind="scratch", limit=2)
    assert keys == ["k-first", "k-middle", "k-last"]
    assert [(p["count"], p["remaining"]) for p in got] == [(2, 1), (1, 0)]
    assert sum(rows for sql, _, rows in seen if sql.startswith("SELECT kind")) <= 4  # not 100,003 rows
    listing = [(sql, params) for sql, params, _ in seen if sql.startswith("SELECT kind")]
    assert max(_vm_steps(store, sql, params) for sql, params in listing) < 2_000  # ~ 100 a row read


@pytest.mark.local_backend
def test_a_page_of_a_large_run_costs_the_same_however_deep(store, client, big_run, monkeypatch):
    seen = _reads(store, monkeypatch)
    every = [f"h_{i:06d}" for i in range(1, HANDLES + 1)]
    costs = []
    conn = sqlite3.connect(store.index.path)
    for at in (0, 50_000, 98_000):  # the first page, one in the middle (past k-middle), one near the end
        params = {"kind": "handle", "limit": 1000}
        if at:
            created_at, row_id = conn.execute("SELECT created_at, id FROM entries WHERE key = ?",
                                              (every[at - 1],)).fetchone()
            params["cursor"] = store_listing.encode_cursor((big_run, created_at, row_id))
        seen.clear()
        page = client.get(f"/api/runs/{big_run}/scratch", params=params).json()
        assert [e["key"] for e in page["entries"]] == every[at:at + 1000]
        assert page["remaining"] == HANDLES - at - 1000
        listing = [(sql, params) for sql, params, _ in seen if sql.startswith("SELECT kind")]
        costs.append(sum(_vm_steps(store, sql, params) for sql, params in listing))
    conn.close()
    assert max(costs) < 2 * min(costs), costs  # not a scan from the run's first row


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_paging_a_mixed_run_by_kind_and_agent_gives_the_plain_answer(store, clock, client, monkeypatch):
    monkeypatch.setattr(store_listing, "PAGE_ROWS", 3)  # the index is read 3 rows at a time
    scopes = [store.scope("mixed", "agent-1"), store.scope("mixed", "agent-2")]
    written = []  # the plain answer: the inspector lists a run in write order (created_at, then row id)
    for i in range(40):
        if i % 5 == 0:
            clock.advance(1)  # creation times in groups: ties the cursor has to break by row id
        scope = scopes[i % 3 == 0]
        if i % 4 == 1:
            scope.scratch_write(f"k{i:02d}", b"v")
            written.append(f"k{i:02d}")
        else:
            written.append(scope.spill(f"entry {i} ".encode()).handle)
    store.scope("other", "agent-1").spill(b"elsewhere")
    store.scope("other", "agent-1").scratch_write("k-other", b"v")
    every = sorted(store.list_entries_for_run("mixed"), key=lambda e: written.index(e.key))
    for kind in (None, "handle", "scratch"):
        for agent in (None, "agent-1", "agent-2"):
            want = [e.key for e in every if kind in (None, e.kind) and agent in (None, e.agent_id)]
            for limit in (1, 4, 1000):
                params = {"limit": limit} | ({"kind": kind} if kind else {}) | ({"agent": agent} if agent else {})
                keys, got = pages(client, "mixed", **params)
                assert keys == want, (kind, agent, limit)
                assert [p["remaining"] for p in got] == [len(want) - sum(p["count"] for p in got[:n + 1])
                                                         for n in range(len(got))]
            flat = [e.key for e, _ in store_listing.iter_entries(store, store.now(), "mixed", agent, kind=kind)]
            assert flat == want
            assert store_listing.count_entries(store, store.now(), "mixed", agent, None, kind) == len(want)
