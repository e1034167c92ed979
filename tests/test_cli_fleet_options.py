"""The fleet's settings on every command that opens a store (a platform engineer's trial: ``ls``, ``stats`` and
``fsck`` showed no ``--index``, ``--blobs`` or ``--busy-timeout`` in their help, and ``stats --agent`` / ``fsck --run``
were bare usage errors): each such command shows and takes them alike (``scratchfs.cli.settings_options``);
``stats --agent`` filters, ``fsck --run`` says why it takes none."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from scratchfs.cli import main
from tests.services import postgres_url

FLEET = ("--index", "--blobs", "--busy-timeout")
NO_STORE = {"demo"}  # a temporary local store of its own, removed at the end


@pytest.mark.parametrize("name", sorted(set(main.commands) - NO_STORE))
def test_every_command_that_opens_a_store_shows_the_fleet_settings(name):
    done = CliRunner().invoke(main, [name, "--help"], terminal_width=200)
    assert done.exit_code == 0, done.output
    for option in FLEET:
        assert option in done.output, (name, option)
    assert "[env: SCRATCHFS_INDEX;" in done.output and "[env: SCRATCHFS_BLOBS;" in done.output
    assert "[env: SCRATCHFS_BUSY_TIMEOUT;" in done.output


@pytest.fixture
def fleet_index(postgres_dsn, pg_schema, monkeypatch):
    """A PostgreSQL index URL given only on the command line (no $SCRATCHFS_INDEX)."""
    monkeypatch.delenv("SCRATCHFS_INDEX", raising=False)
    monkeypatch.delenv("SCRATCHFS_BLOBS", raising=False)
    return postgres_url(postgres_dsn, pg_schema)


def cli(*args: str, input: bytes | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def test_ls_stats_and_fsck_open_the_index_their_option_names(fleet_index, tmp_path):
    for agent in ("a1", "a2"):
        done = cli("spill", "--root", str(tmp_path), "--run", "r1", "--agent", agent, "--index", fleet_index,
                   input=f"spilled by {agent}\n".encode() * 500)
        assert done.exit_code == 0, done.output
    local = cli("ls", "--root", str(tmp_path), "--json")  # without the index: its files are refused, not listed empty
    assert local.exit_code == 2 and "belong to a PostgreSQL index" in local.output, local.output
    listed = cli("ls", "--root", str(tmp_path), "--json", "--index", fleet_index, "--busy-timeout", "5")
    assert listed.exit_code == 0, listed.output
    assert sorted(entry["agent_id"] for entry in json.loads(listed.output)) == ["a1", "a2"]
    stats = cli("stats", "--root", str(tmp_path), "--json", "--index", fleet_index, "--agent", "a2")
    assert stats.exit_code == 0, stats.output
    assert [(row["run_id"], row["agent_id"]) for row in json.loads(stats.output)] == [("r1", "a2")]
    checked = cli("fsck", "--root", str(tmp_path), "--json", "--quick", "--index", fleet_index)
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.output)["entries_checked"] == 2


def test_stats_agent_filters_a_local_store_too_and_fsck_refuses_a_scope_saying_why(tmp_path, monkeypatch):
    monkeypatch.delenv("SCRATCHFS_INDEX", raising=False)
    monkeypatch.delenv("SCRATCHFS_BLOBS", raising=False)
    for run, agent in (("r1", "a1"), ("r1", "a2"), ("r2", "a2")):
        assert cli("spill", "--root", str(tmp_path), "--run", run, "--agent", agent, input=b"x\n" * 100).exit_code == 0
    stats = cli("stats", "--root", str(tmp_path), "--json", "--agent", "a2")
    assert stats.exit_code == 0, stats.output
    assert sorted((row["run_id"], row["agent_id"]) for row in json.loads(stats.output)) == [("r1", "a2"), ("r2", "a2")]
    one = cli("stats", "--root", str(tmp_path), "--json", "--run", "r1", "--agent", "a2")
    assert [(row["run_id"], row["agent_id"]) for row in json.loads(one.output)] == [("r1", "a2")]
    bad = cli("stats", "--root", str(tmp_path), "--agent", "a\nb")
    assert bad.exit_code == 2, bad.output
    for option in ("--run", "--agent"):
        refused = cli("fsck", "--root", str(tmp_path), option, "r1")
        assert refused.exit_code == 2, refused.output
        assert "fsck takes no --run or --agent: it checks the whole store" in refused.output
        assert ("stats --run r1" if option == "--run" else "stats --run RUN --agent r1") in refused.output
        assert "No such option" not in refused.output
