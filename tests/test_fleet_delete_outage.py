"""A delete of a run or agent on a fleet store whose object store is out of reach (newuser26: moto stopped) commits
the deletion of its rows, then fails at the objects: it said only the S3 line, exit code 4, so the run read as not
deleted, while every read of its entries said "deleted with its run" and a retry said "no entries". Its error now
says that the delete stands and that the sweep removes the objects left behind."""

from __future__ import annotations

import pytest

from scratchfs import NotFound, ScratchStore, StorageError
from tests.services import free_port, postgres_url


@pytest.mark.parametrize("agent", [None, "agent-1"])
def test_a_delete_whose_objects_fail_says_it_stands(postgres_dsn, pg_schema, s3_env, tmp_path, monkeypatch, agent):
    index = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        handle = store.scope("run-1", "agent-1").spill(b"kept until deleted\n" * 500).handle
    with monkeypatch.context() as patched:
        patched.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")  # nothing listens there
        with ScratchStore(tmp_path / "b", index=index, blobs=s3_env, busy_timeout=3) as store, \
                pytest.raises(StorageError) as err:
            store.delete_run("run-1") if agent is None else store.delete_agent("run-1", agent)
    said = str(err.value)
    scope = "run 'run-1'" if agent is None else "agent 'agent-1' of run 'run-1'"
    assert "cannot connect to the endpoint" in said, said
    assert f"; the {scope} is deleted all the same (1 entry, which now read as deleted), but its blobs were not: " \
           "the sweep removes them as orphans later" in said, said
    assert getattr(err.value, "unavailable", False)  # (a tool error tells the model to retry)
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        with pytest.raises(NotFound, match="deleted with its"):
            store.scope("run-1", "agent-1").read_range(handle, 0, 10)
        assert store.delete_run("run-1") == 0
