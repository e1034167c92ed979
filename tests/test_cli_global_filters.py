"""``--run`` / ``--agent`` given before ``ls`` or ``stats`` filter as they do after it (the README: they "may also
come before the command"); they were passed over, so ``scratchfs --run zzz ls`` listed every run's entries and
``scratchfs --agent q stats`` every agent's. The environment's ``$SCRATCHFS_RUN_ID`` stays no filter: without
``--run`` both show every run. Found by the hostile helper (2026-12-04) trying ids before the command."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main


@pytest.fixture
def root(tmp_path):
    path = tmp_path / "root"
    with ScratchStore(path) as store:
        for run, agent in (("r1", "a1"), ("r1", "a2"), ("r2", "a1")):
            store.scope(run, agent).scratch_write("k", f"{run}/{agent}")
    return str(path)


def listed(root: str, *args: str, env: dict | None = None) -> set[tuple[str, str]]:
    result = CliRunner().invoke(main, ["--root", root, *args, "--json"], env=env or {})
    assert result.exit_code == 0, result.output
    return {(row["run_id"], row["agent_id"]) for row in json.loads(result.stdout)}


@pytest.mark.parametrize("command", ["ls", "stats"])
def test_run_and_agent_before_the_command_filter_as_after_it(root, command):
    assert listed(root, "--run", "r1", command) == listed(root, command, "--run", "r1") == {("r1", "a1"), ("r1", "a2")}
    assert listed(root, "--agent", "a1", command) == {("r1", "a1"), ("r2", "a1")}
    assert listed(root, "--run", "r1", "--agent", "a2", command) == {("r1", "a2")}
    assert listed(root, "--run", "zzz", command) == set()
    assert listed(root, "--run", "r2", command, "--run", "r1") == {("r1", "a1"), ("r1", "a2")}  # after it wins


@pytest.mark.parametrize("command", ["ls", "stats"])
def test_the_environment_is_still_no_filter(root, command):
    everything = {("r1", "a1"), ("r1", "a2"), ("r2", "a1")}
    assert listed(root, command, env={"SCRATCHFS_RUN_ID": "r1", "SCRATCHFS_AGENT_ID": "a1"}) == everything
