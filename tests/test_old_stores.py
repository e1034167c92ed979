"""Stores written by earlier versions of scratchfs open and keep what they hold.

``fixtures/store-407dd2b/`` was written by the first scratchfs (commit 407dd2b; ``fixtures/make_store_407dd2b.py``
says how): its index has no application id and no ``gone`` table, and its blobs no binding frame."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scratchfs import ScratchStore
from scratchfs.api.inspector import stats_in_sql

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CREATED = 1796050800.0  # the clock of every write of fixtures/make_store_407dd2b.py


@pytest.fixture
def old_root(tmp_path):
    root = tmp_path / "store"
    shutil.copytree(FIXTURES / "store-407dd2b", root)
    return root


def test_the_index_of_the_first_scratchfs_is_migrated_in_place(old_root):
    """Before: 'not a scratchfs index (application id 0x0, user version 1, tables entries)'."""
    with ScratchStore(old_root, clock=lambda: CREATED + 3600) as store:
        rows = {(r.run_id, r.agent_id): r for r in stats_in_sql(store, store.now())}
        assert (rows[("run-1", "agent-1")].entries, rows[("run-1", "agent-1")].handles) == (3, 2)
        assert rows[("run-1", "agent-2")].bytes_in == len(b"1. read the grep\n2. sum the csv\n")
        assert (rows[("run-2", "agent-1")].entries, rows[("run-2", "agent-1")].expired) == (0, 1)
        assert sorted(e.key for e in store.scope("run-1", "agent-1").scratch_list()) == ["notes/ec2"]
