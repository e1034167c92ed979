"""A command that takes no ``--run``/``--agent`` (it works on the whole store, or names its run as an argument) says
why, in one rule, when one is given after it: ``scratchfs sweep --run run-px`` said only "No such option '--run'"
(newuser14), while fsck explained itself. Every command of the CLI either takes them or answers in the rule's
words, given after it or before it (``scratchfs --run X sweep`` swept every run as if X were not there); set by the
environment they stay the global options every command accepts."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from scratchfs.cli import main

NOT_TAKEN = ["sweep", "fsck", "serve", "delete-run", "demo", "migrate-index", "grants"]


def _run(tmp_path, *argv, input=None):
    return CliRunner().invoke(main, [*argv], input=input, env={"SCRATCHFS_ROOT": str(tmp_path)})


@pytest.mark.parametrize("command", NOT_TAKEN)
@pytest.mark.parametrize("option", ["--run", "--agent"])
def test_a_command_taking_no_scope_says_why(tmp_path, command, option):
    result = _run(tmp_path, command, option, "run-px")
    assert result.exit_code == 2, result.output
    assert f"scratchfs: usage: {command} takes no --run or --agent: " in result.stderr
    assert "No such option" not in result.stderr and f"{command} --help)" in result.stderr


@pytest.mark.parametrize(("command", "option", "said"), [
    ("sweep", "--run", "every entry of that run, live ones too: "),
    ("sweep", "--agent", "delete-agent --run RUN --agent run-px"),
    ("delete-run", "--run", "it takes the run as its argument; every entry of that run, live ones too: "),
    ("fsck", "--run", "stats --run run-px or "),
    ("serve", "--run", "then /runs/run-px on its address"),
])
def test_what_does_what_was_meant_is_named_with_the_value_given(tmp_path, command, option, said):
    result = _run(tmp_path, command, option, "run-px")
    assert said in result.stderr, result.stderr
    if option == "--run" and command in ("sweep", "delete-run"):
        assert result.stderr.split(said)[1].split(" (see ")[0].endswith(" delete-run run-px")


def test_every_command_takes_a_scope_or_says_why(tmp_path):
    """No command is left to click's bare "No such option": a new one is either scoped or in the rule."""
    for name, command in main.commands.items():
        options = {opt for param in command.params if isinstance(param, click.Option) for opt in param.opts}
        assert {"--run", "--agent"} <= options, name


@pytest.mark.parametrize("command", NOT_TAKEN)
@pytest.mark.parametrize("option", ["--run", "--agent"])
def test_given_before_the_command_they_are_refused_alike(tmp_path, command, option):
    """``scratchfs --run run-px sweep`` swept the expired entries of every run, the run given unread, as if it swept
    that run's: a scope given before a command that takes none is refused in the rule's words, as after it."""
    result = _run(tmp_path, option, "run-px", command, *(["run-b"] if command == "delete-run" else []))
    assert result.exit_code == 2, result.output
    assert f"scratchfs: usage: {command} takes no --run or --agent: " in result.stderr


def test_set_by_the_environment_they_stay_global(tmp_path):
    """An agent's environment sets $SCRATCHFS_RUN_ID and $SCRATCHFS_AGENT_ID for every command it runs: a sweep run
    there sweeps the store, as it says."""
    assert _run(tmp_path, "spill", "--run", "r", "--agent", "a", input=b"x\n").exit_code == 0
    swept = CliRunner().invoke(main, ["sweep"], env={"SCRATCHFS_ROOT": str(tmp_path), "SCRATCHFS_RUN_ID": "run-px",
                                                     "SCRATCHFS_AGENT_ID": "a"})
    assert swept.exit_code == 0, swept.output
    assert json.loads(swept.stdout)["rows_deleted"] == 0


@pytest.mark.parametrize(("argv", "said"), [
    (["delete-agent", "run-px", "agent-1"], ": --run run-px --agent agent-1 (see "),
    (["delete-agent", "--run", "run-px", "agent-1"], ": --agent agent-1 (see "),
    (["ls", "run-px"], ": --run run-px (see "),
    (["scratch-list", "run-px", "agent one"], ": --run run-px --agent 'agent one' (see "),
    (["stats", "a", "b", "c"], "not as arguments (see "),
])
def test_a_run_and_agent_given_as_arguments_are_named_as_the_options(tmp_path, argv, said):
    """newuser26: ``delete-agent RUN AGENT`` (as ``delete-run RUN`` is written) was told only "Got unexpected extra
    arguments (RUN AGENT)"; a command whose run and agent are options and that takes no argument says so, with the
    options the arguments given would be, and touches nothing."""
    result = _run(tmp_path, *argv)
    assert result.exit_code == 2, result.output
    assert f"; {argv[0]} takes the run and agent as options (--run RUN, --agent AGENT), not as arguments" \
        in result.stderr, result.stderr
    assert said in result.stderr, result.stderr
    assert not any(tmp_path.iterdir())


def test_an_extra_argument_of_a_command_taking_arguments_is_left_as_click_says_it(tmp_path):
    result = _run(tmp_path / "root", "scratch-read", "k", "extra", "--run", "r", "--agent", "a")
    assert result.exit_code == 2 and "Got unexpected extra argument (extra)" in result.stderr, result.output
    assert "takes the run and agent as options" not in result.stderr
