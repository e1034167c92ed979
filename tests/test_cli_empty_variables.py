"""A ``SCRATCHFS_*`` variable set to empty text is refused -- one stderr line naming it, exit 2, nothing made --
as its option given ``""`` is, never read as unset: ``SCRATCHFS_ROOT= scratchfs spill`` wrote to the default root
(the user cache directory) where ``--root ""`` is refused (helper newuser's finding); click reads every empty
variable as unset, so each of them fell back to its default silently."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import scratchfs
from scratchfs import InvalidArgument, ScratchStore
from scratchfs.cli import main

CHECKOUT = Path(scratchfs.__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "scratchfs"]


def _variables() -> set[str]:
    """Every variable the command line reads: its options' and the store's own."""
    found = {"SCRATCHFS_INDEX", "SCRATCHFS_BLOBS", "SCRATCHFS_SEGMENT_ENTRY_BYTES", "SCRATCHFS_BUSY_TIMEOUT"}
    for command in [main, *main.commands.values()]:
        for param in command.params:
            envvar = getattr(param, "envvar", None)
            found.update([envvar] if isinstance(envvar, str) else envvar or [])
    return found


_BY_COMMAND = {"SCRATCHFS_TOKEN": ["serve", "--port", "0"], "SCRATCHFS_ALLOW_HOST": ["serve", "--port", "0"],
               "SCRATCHFS_SPILL_THRESHOLD_BYTES": ["mcp-proxy", "--", sys.executable, "-c", "pass"],
               "SCRATCHFS_PASSTHROUGH_MAX_BYTES": ["mcp-proxy", "--", sys.executable, "-c", "pass"]}
VARIABLES = sorted(_variables())


def test_every_variable_is_covered():
    assert {name.removeprefix("SCRATCHFS_") for name in VARIABLES} == {
        "AGENT_ID", "ALLOW_HOST", "BLOBS", "BUSY_TIMEOUT", "DEFAULT_TTL", "DURABLE", "INDEX", "MAX_STDIN_BYTES",
        "PASSTHROUGH_MAX_BYTES", "PATTERN_TIMEOUT",
        "REFRESH_ON_READ", "REPLY_BUDGET_BYTES", "ROOT", "RUN_ID", "RUN_QUOTA_BYTES", "RUN_QUOTA_ENTRIES",
        "SEGMENT_ENTRY_BYTES", "SPILL_THRESHOLD_BYTES", "TOKEN"}


_NAMES = ("SCRATCHFS_ROOT", "SCRATCHFS_RUN_ID", "SCRATCHFS_AGENT_ID")  # (a root, run or agent of a space is a name,
# as --root ' ' is: only their empty text is refused)


_IN_A_PROCESS = {*_BY_COMMAND, "SCRATCHFS_ROOT"}
"""The variables refused by a command line run as its own process here; the others' refusals run in this one (click's
own runner, the same ``main``): 29 interpreter start-ups were 47 s of a loaded run. (A serving command read with its
variable as unset would serve on: in this process it would never return.)"""


@pytest.mark.parametrize(("name", "value"), [(name, value) for name in VARIABLES for value in ("", " ")
                                             if not (name in _NAMES and value == " ")])
def test_a_variable_set_to_empty_text_is_refused_in_one_line(tmp_path, name, value):
    home = tmp_path / "home"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(home), "XDG_CACHE_HOME": str(home),
           "SCRATCHFS_ROOT": str(tmp_path / "root"), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a", name: value}
    args = _BY_COMMAND.get(name, ["spill", "-"])
    if name in _IN_A_PROCESS:
        try:
            done = subprocess.run([*COMMAND, *args], env=env, input=b"x" * 100, capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{name}={value!r}: the command ran (read as unset) instead of being refused")
        code, err = done.returncode, done.stderr.decode()
    else:
        from click.testing import CliRunner

        others = dict.fromkeys((key for key in os.environ if key.startswith("SCRATCHFS_")), None)
        ran = CliRunner().invoke(main, args, env={**others, **env}, input=b"x" * 100, catch_exceptions=False)
        code, err = ran.exit_code, ran.stderr
    assert code == 2, (code, err)
    assert err.startswith(f"scratchfs: usage: ${name} is set to empty text: unset it") and err.count("\n") == 1, err
    assert not home.exists() and not (tmp_path / "root").exists()  # no store made, at the default root or the one


@pytest.mark.parametrize("value", ["", " "])
@pytest.mark.parametrize("command", sorted({args[0] for args in [*_BY_COMMAND.values(), ["spill"]]}))
def test_help_is_still_given_with_every_variable_set_to_empty_text(tmp_path, command, value):
    """Every variable empty at once, for each command a variable is refused by above: one that broke ``--help``
    breaks it here too (one run each, not one per variable: ~30 interpreter start-ups, ~13 s of the suite)."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path / "home"),
           "XDG_CACHE_HOME": str(tmp_path / "home"), **dict.fromkeys(VARIABLES, value)}
    if (command, value) == ("spill", ""):  # (one a command line of its own; the others in this process)
        helped = subprocess.run([*COMMAND, command, "--help"], env=env, capture_output=True, timeout=30)
        code, out, err = helped.returncode, helped.stdout, helped.stderr
    else:
        from click.testing import CliRunner

        others = dict.fromkeys((key for key in os.environ if key.startswith("SCRATCHFS_")), None)
        ran = CliRunner().invoke(main, [command, "--help"], env={**others, **env}, catch_exceptions=False)
        code, out, err = ran.exit_code, ran.stdout_bytes, ran.stderr
    assert code == 0 and out.startswith(b"Usage: "), err  # help is still given
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("option", ["--root", "--index", "--blobs"])
def test_an_option_given_empty_text_is_refused_as_its_variable_is(tmp_path, option):
    """``spill --root ''`` as its own process (the exit status and stderr a shell sees); the other refusals in this
    process (click's runner, the same ``main``: 5 interpreter start-ups less, neither command serves)."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path / "home"),
           "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    others = dict.fromkeys((key for key in os.environ if key.startswith("SCRATCHFS_")), None)
    for args in (["spill", "-", option, ""], ["ls", "--root", str(tmp_path / "root"), option, ""]):
        if args[0] == "spill" and option == "--root":
            done = subprocess.run([*COMMAND, *args], env=env, input=b"x", capture_output=True, timeout=30)
            code, err = done.returncode, done.stderr
        else:
            from click.testing import CliRunner

            ran = CliRunner().invoke(main, args, env={**others, **env}, input=b"x", catch_exceptions=False)
            code, err = ran.exit_code, ran.stderr_bytes
        assert code == 2, (args, err)
        assert err.count(b"\n") == 1 and b"empty" in err, err
    assert not (tmp_path / "home").exists()


def test_the_api_refuses_an_empty_root_or_segment_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SCRATCHFS_ROOT", "")
    with pytest.raises(InvalidArgument, match=r"\$SCRATCHFS_ROOT is set to an empty string"):
        ScratchStore()
    monkeypatch.delenv("SCRATCHFS_ROOT")
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", "")
    with pytest.raises(InvalidArgument, match="segment_entry_bytes"):
        ScratchStore(tmp_path / "root")
    assert not (tmp_path / "home").exists() and not (tmp_path / "root").exists()
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", "64KiB")
    with ScratchStore(tmp_path / "root") as store:
        assert store.settings.segment_entry_bytes == 65536
    assert os.path.isdir(tmp_path / "root")


@pytest.mark.parametrize(("name", "value", "args"), [
    ("SCRATCHFS_ROOT", "A FILE", ["ls"]),
    ("SCRATCHFS_SPILL_THRESHOLD_BYTES", "abc", ["mcp-proxy", "--", sys.executable, "-c", "pass"]),
    ("SCRATCHFS_PASSTHROUGH_MAX_BYTES", "64KB", ["mcp-proxy", "--", sys.executable, "-c", "pass"]),
    ("SCRATCHFS_DEFAULT_TTL", "0", ["mcp-proxy", "--", sys.executable, "-c", "pass"]),
    ("SCRATCHFS_SEGMENT_ENTRY_BYTES", "5MB", ["mcp"]),
])
def test_a_bad_value_from_a_variable_names_the_variable_not_the_option(tmp_path, name, value, args):
    """A bad value of --root, --threshold, --ttl or --segment-entry-bytes that came from its variable said
    "Invalid value for '--root'", an option the user never gave; the settings' options named their variable."""
    (tmp_path / "a-file").write_bytes(b"")
    value = str(tmp_path / "a-file") if value == "A FILE" else value
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path / "home"),
           "SCRATCHFS_ROOT": str(tmp_path / "root"), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a", name: value}
    done = subprocess.run([*COMMAND, *args], env=env, input=b"", capture_output=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode().startswith(f"scratchfs: usage: Invalid value for ${name}: "), done.stderr


_OPTIONS = {"SCRATCHFS_RUN_ID": "--run", "SCRATCHFS_AGENT_ID": "--agent", "SCRATCHFS_ROOT": "--root",
            "SCRATCHFS_BUSY_TIMEOUT": "--busy-timeout", "SCRATCHFS_DEFAULT_TTL": "--default-ttl"}


@pytest.mark.parametrize("value", ["", " "])
@pytest.mark.parametrize("name", sorted(_OPTIONS))
def test_an_option_given_on_the_command_line_wins_over_its_blank_variable(tmp_path, name, value):
    """``SCRATCHFS_RUN_ID=' ' scratchfs --run X spill`` was refused for the blank variable, which the option given
    makes unread: the option wins, before the command or after it (``--run X``, ``--run=X``); the blank variable
    alone is still one refusal naming it."""
    from click.testing import CliRunner

    given = {"SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a", "SCRATCHFS_ROOT": str(tmp_path / "root"),
             "SCRATCHFS_BUSY_TIMEOUT": "5", "SCRATCHFS_DEFAULT_TTL": "3600"}
    others = dict.fromkeys((key for key in os.environ if key.startswith("SCRATCHFS_")), None)
    env = {**others, "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "home"),
           **{key: val for key, val in given.items() if key in _NAMES}, name: value}
    option, wanted = _OPTIONS[name], given[name]
    for args in ([option, wanted, "spill", "-"], ["spill", "-", option, wanted], ["spill", f"{option}={wanted}", "-"]):
        if option not in ("--run", "--agent", "--root") and args[0] == option:
            continue  # (a setting is an option of the command only)
        ran = CliRunner().invoke(main, args, env=env, input=b"x" * 100, catch_exceptions=False)
        assert ran.exit_code == 0 and '"handle"' in ran.stdout, (args, ran.stderr)
    ran = CliRunner().invoke(main, ["spill", "-"], env=env, input=b"x" * 100, catch_exceptions=False)
    assert ran.exit_code == 2 and ran.stderr.count("\n") == 1, ran.stderr
    assert ran.stderr.startswith(f"scratchfs: usage: ${name} is set to empty text: unset it"), ran.stderr
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("value", ["", " "])
@pytest.mark.parametrize("name", sorted(_OPTIONS))
def test_an_options_name_given_as_another_options_value_is_no_option_given(tmp_path, name, value):
    """``SCRATCHFS_ROOT= scratchfs spill --tool --root -`` spilled into the default root (the user cache directory):
    ``--root`` there is ``--tool``'s value, and a word after ``--`` is an argument, yet either was taken for the
    option given, so the empty variable was not refused and click read it as unset (hostile37). The command's
    arguments are now parsed as click parses them; the variable is refused, nothing made."""
    from click.testing import CliRunner

    if name in _NAMES and value == " ":
        return  # (a root, run or agent of a space is a name)
    others = dict.fromkeys((key for key in os.environ if key.startswith("SCRATCHFS_")), None)
    home = tmp_path / "home"
    env = {**others, "HOME": str(home), "XDG_CACHE_HOME": str(home), "SCRATCHFS_RUN_ID": "r",
           "SCRATCHFS_AGENT_ID": "a", "SCRATCHFS_ROOT": str(tmp_path / "root"), name: value}
    option = _OPTIONS[name]
    for args in (["spill", "--tool", option, "-"], ["spill", f"--tool={option}", "-"], ["spill", "--", option],
                 ["spill", "--tool", f"{option}=x", "-"]):
        ran = CliRunner().invoke(main, args, env=env, input=b"x" * 100, catch_exceptions=False)
        assert ran.exit_code == 2, (args, ran.stdout, ran.stderr)
        assert ran.stderr.startswith(f"scratchfs: usage: ${name} is set to empty text: unset it"), ran.stderr
    assert not home.exists()
