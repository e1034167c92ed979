"""What a PostgreSQL index says when it cannot do what was asked, as a fleet trial met it: the platform cascade's
refusals name the run and the runs table (and, on tying an existing schema to a runs table, the runs its entries name
that the table lacks)."""

from __future__ import annotations

import psycopg
import pytest

from scratchfs import ScratchStore, StorageError
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
        with pytest.raises(StorageError) as err:
            store.scope("run-unknown", "agent").spill(b"no such run")
        assert str(err.value) == (
            f"the platform's runs table {platform} has no run 'run-unknown' while writing an entry: the platform "
            "adds a run's row before its agents write (or leave runs_table= off the index URL)")
        assert [e.run_id for e in store.list_entries()] == ["run-1"]


def test_tying_an_existing_schema_to_a_runs_table_names_the_runs_it_lacks(postgres_dsn, pg_schema, platform,
                                                                         tmp_path):
    plain = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path, index=plain) as store:
        for run in ("run-1", "run-7", "run-9", "run-9"):
            store.scope(run, "agent").spill(f"an entry of {run}".encode())
    with pytest.raises(StorageError) as err:
        ScratchStore(tmp_path, index=plain + f"&runs_table={platform}")
    assert str(err.value) == (
        f"cannot tie the index schema '{pg_schema}' to the runs table {platform}: its entries name 2 runs the table "
        "lacks ('run-7', 'run-9'); add them to the table, delete their entries (scratchfs delete-run), or leave "
        "runs_table= off the index URL")
    with ScratchStore(tmp_path, index=plain) as store:  # nothing was changed: the schema works as before
        assert len(store.list_entries()) == 4
        store.delete_run("run-7")
        store.delete_run("run-9")
    with ScratchStore(tmp_path, index=plain + f"&runs_table={platform}") as store:
        assert [e.run_id for e in store.list_entries()] == ["run-1"]
