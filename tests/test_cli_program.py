"""A command the CLI writes in a hint can be pasted as it is: it names the program as it was invoked when that is a
path to a scratchfs script (``.venv/bin/scratchfs``, as the README runs it, with scratchfs not on PATH), else
``scratchfs`` (a new user's trial: ``next: scratchfs read-handle h_... --offset 8192 ...`` was not found)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import scratchfs
from scratchfs.cli import main

CHECKOUT = Path(scratchfs.__file__).resolve().parent.parent


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "root"))
    monkeypatch.setenv("SCRATCHFS_RUN_ID", "run-1")
    monkeypatch.setenv("SCRATCHFS_AGENT_ID", "agent-1")
    runner = CliRunner()
    return lambda *args, input=None: runner.invoke(main, list(args), input=input, catch_exceptions=False)


@pytest.mark.parametrize(("argv0", "written"), [
    (".venv/bin/scratchfs", ".venv/bin/scratchfs"),
    ("/opt/my tools/bin/scratchfs", "'/opt/my tools/bin/scratchfs'"),
    ("scratchfs", "scratchfs"),  # found on PATH
    ("/usr/lib/python3/site-packages/scratchfs/__main__.py", shlex.quote(sys.executable) + " -m scratchfs"),
    ("/usr/bin/pytest", "scratchfs"),
])
def test_a_hint_names_the_program_as_it_was_invoked(cli, monkeypatch, argv0, written):
    handle = json.loads(cli("spill", "-", "--tool", "t", input="x" * 20_000).stdout)["handle"]
    monkeypatch.setattr(sys, "argv", [argv0, "read-handle", handle])
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, "-m", "pytest", "read-handle", handle], raising=False)
    raw = cli("read-handle", handle, "--length", "8192")
    assert raw.exit_code == 0
    assert f"next: {written} read-handle {handle} --offset 8192 --length 8192 " in raw.stderr, raw.stderr
    usage = cli("read-handle")
    assert usage.exit_code == 2 and usage.stderr.endswith(f"(see {written} read-handle --help)\n"), usage.stderr


def test_a_hint_of_a_script_run_by_its_path_reads_on_when_pasted(tmp_path):
    bindir = tmp_path / "my venv" / "bin"
    bindir.mkdir(parents=True)
    script = bindir / "scratchfs"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(CHECKOUT)!r})\n"
                      "from scratchfs.cli import main\nsys.exit(main())\n")
    script.chmod(0o700)
    env = {**os.environ, "PATH": "/usr/bin:/bin", "SCRATCHFS_ROOT": str(tmp_path / "root"),
           "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    run = {"env": env, "cwd": tmp_path, "capture_output": True, "timeout": 120}
    spilled = subprocess.run([str(script), "spill", "-"], input=b"y" * 9000 + b"z" * 100, check=True, **run)
    handle = json.loads(spilled.stdout)["handle"]
    first = subprocess.run([str(script), "read-handle", handle, "--length", "9000"], check=True, **run)
    hint = first.stderr.decode().split("next: ", 1)[1].strip()
    assert hint.startswith(shlex.quote(str(script)) + " read-handle ")
    pasted = subprocess.run(["/bin/sh", "-c", hint], **run)  # scratchfs is on no PATH here
    assert pasted.returncode == 0, pasted.stderr
    assert pasted.stdout == b"z" * 100


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="pastes the hint into bash")
def test_a_hint_naming_a_root_with_a_newline_or_a_byte_not_utf8_reads_on_when_pasted(tmp_path):
    """The hint quoted a root with shlex.quote, which put the newline inside quotes; the one-line stderr then wrote
    it as \\n, and a byte that is not UTF-8 as \\udcff: pasted, another path ('no store at ...', atk28). Such a word
    is written as printf's octal escapes, "$(printf '...\\012...\\377...')" (ANSI-C $'...' before
    hostile14, which dash's sh does not read: tests/test_sh_pasted_next.py)."""
    root = os.fsencode(tmp_path) + b"/store \n\xff 'q'"
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    run = {"env": env, "cwd": tmp_path, "capture_output": True, "timeout": 120}
    command = [sys.executable, "-m", "scratchfs"]
    spilled = subprocess.run([*command, "spill", "-", "--root", root], input=b"y" * 9000 + b"z" * 100, check=True,
                             **run)
    handle = json.loads(spilled.stdout)["handle"]
    first = subprocess.run([*command, "read-handle", handle, "--length", "9000", "--root", root], check=True, **run)
    err = first.stderr.decode("utf-8")
    assert err.count("\n") == 1, err
    hint = err.split("next: ", 1)[1].strip()
    assert hint.startswith(f"{shlex.join(command)} read-handle "), hint
    pasted = subprocess.run(["/bin/bash", "-c", hint], **run)
    assert pasted.returncode == 0, pasted.stderr
    assert pasted.stdout == b"z" * 100


@pytest.mark.parametrize(("orig", "written"), [
    (["python3", "-X", "utf8", "-m", "scratchfs"], "python3 -X utf8 -m scratchfs"),  # as given, when on PATH
    (["/opt/py 3/bin/python", "-mscratchfs"], "'/opt/py 3/bin/python' -mscratchfs"),
    (["no-such-python-here", "-m", "scratchfs"], "EXE -m scratchfs"),  # a name on no PATH: the interpreter's path
    (["python3", "-c", "..."], "EXE -m scratchfs"),  # not what it looks like: the interpreter's path
])
def test_python_dash_m_is_named_as_it_was_invoked(monkeypatch, orig, written):
    """`python -m scratchfs` printed `next: scratchfs read-handle ...`, with scratchfs on no PATH (helper newuser's
    finding): it names the interpreter and its options as they were given, then -m scratchfs."""
    from scratchfs.cli.app import as_invoked
    from scratchfs.cli.shell import program

    python3 = shutil.which("python3")
    monkeypatch.setattr(sys, "executable", python3 if orig[0] == "python3" else sys.executable)
    monkeypatch.setattr(sys, "argv", ["/x/site-packages/scratchfs/__main__.py", "ls", "--limit", "1"])
    monkeypatch.setattr(sys, "orig_argv", [*orig, "ls", "--limit", "1"])
    expected = written.replace("EXE", shlex.quote(sys.executable))
    assert program() == expected
    message = "see scratchfs fsck --help, or `scratchfs ls`"
    once = as_invoked(message)
    assert once == f"see {expected} fsck --help, or `{expected} ls`"
    assert as_invoked(once) == once  # a command program() wrote is not named twice


def test_a_hint_of_python_dash_m_reads_on_when_pasted(tmp_path):
    """Run as `python -m scratchfs` with scratchfs on no PATH, the raw read's `next:` pastes into a shell as it is."""
    env = {**os.environ, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "SCRATCHFS_ROOT": str(tmp_path / "r"),
           "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    run = {"env": env, "cwd": tmp_path, "capture_output": True, "timeout": 120}
    command = [sys.executable, "-m", "scratchfs"]
    spilled = subprocess.run([*command, "spill", "-"], input=b"y" * 9000 + b"z" * 100, check=True, **run)
    handle = json.loads(spilled.stdout)["handle"]
    first = subprocess.run([*command, "read-handle", handle, "--length", "9000"], check=True, **run)
    hint = first.stderr.decode().split("next: ", 1)[1].strip()
    assert hint.startswith(f"{shlex.quote(sys.executable)} -m scratchfs read-handle "), hint
    pasted = subprocess.run(["/bin/sh", "-c", hint], **run)
    assert pasted.returncode == 0, pasted.stderr
    assert pasted.stdout == b"z" * 100
    usage = subprocess.run([*command, "ls", "--bogus"], **run)
    assert usage.returncode == 2
    assert usage.stderr.decode().endswith(f"(see {shlex.quote(sys.executable)} -m scratchfs ls --help)\n")


def test_every_command_a_message_writes_names_the_program_and_no_other_word_does(monkeypatch):
    from scratchfs.cli.app import as_invoked

    monkeypatch.setattr(sys, "argv", ["/home/u/proj/.venv/bin/scratchfs", "fsck"])
    message = ("index.sqlite is damaged; restore it from a copy, or rebuild it from the blobs: scratchfs fsck "
               "--rebuild-index; `scratchfs fsck --repair` binds it (see scratchfs --help); made by an earlier "
               "scratchfs (schema version 1): a scratchfs of that version, ./scratchfs spill, scratchfs-demo")
    assert as_invoked(message) == message.replace("scratchfs fsck", "/home/u/proj/.venv/bin/scratchfs fsck").replace(
        "see scratchfs --help", "see /home/u/proj/.venv/bin/scratchfs --help")
    monkeypatch.setattr(sys, "argv", ["scratchfs", "fsck"])
    assert as_invoked(message) == message


def test_a_quoted_user_text_that_holds_a_command_is_not_rewritten(cli, monkeypatch):
    """as_invoked rewrote `scratchfs <command>` anywhere in a message: a key holding the words, echoed by a
    not-found, came back as another key (pasted, it names nothing). Only the commands the message writes are
    rewritten; a text quoted as repr or JSON writes it is the user's, left as it is."""
    from scratchfs.cli.app import as_invoked

    monkeypatch.setattr(sys, "argv", ["/home/u/.venv/bin/scratchfs", "scratch-read"])
    message = ("no key 'see scratchfs read-handle x' in this scope (run 'r', agent 'a'); did you mean "
               "\"it's scratchfs ls\\\" now\"? the store's `scratchfs scratch-list` lists them")
    assert as_invoked(message) == message.replace("`scratchfs scratch-list`", "`/home/u/.venv/bin/scratchfs "
                                                  "scratch-list`")
    cli("scratch-write", "see scratchfs ls now", "-", input="v")
    missed = cli("scratch-read", "see scratchfs ls no")
    assert missed.exit_code != 0
    assert "no key 'see scratchfs ls no'" in missed.stderr and "'see scratchfs ls now'" in missed.stderr, \
        missed.stderr
    assert "/home/u/.venv/bin/scratchfs scratch-list" in missed.stderr, missed.stderr


@pytest.mark.parametrize(("command", "option"), [("read-handle", "--match"), ("spill", "--tool"), ("ls", "--run"),
                                                 ("fsck", "--limit")])
def test_an_option_given_without_its_value_names_the_commands_help(command, option):
    """newuser11: ``read-handle h_... --match`` (the value forgotten) said ``(see scratchfs --help)``, the group's
    help, where every other usage error of a command names its own: click's parser raises it with no context."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    given = [command, *(["h_" + "a" * 24] if command == "read-handle" else []), option]
    usage = CliRunner().invoke(main, given, prog_name="scratchfs")
    assert usage.exit_code == 2, usage.stderr
    assert usage.stderr.endswith(f"requires an argument. (see scratchfs {command} --help)\n"), usage.stderr


def test_a_listing_cut_short_by_limit_titles_its_range_not_a_count(tmp_path, monkeypatch):
    """newuser11: ``ls --limit 3`` on a terminal titled its table ``all runs: 3 entries`` over a store of more (its
    stderr's ``next:`` alone said there were more); a listing cut short is titled ``entries 1-3``."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    root, titles = _five_entries_titled(tmp_path, monkeypatch)
    cut = CliRunner().invoke(main, ["ls", "--limit", "3", "--root", root])
    assert cut.exit_code == 0 and "next:" in cut.stderr, cut.stderr
    whole = CliRunner().invoke(main, ["ls", "--limit", "5", "--root", root])
    assert whole.exit_code == 0 and "next:" not in whole.stderr, whole.stderr
    assert titles == ["all runs: entries 1-3", "all runs: 5 entries"]


def test_read_handle_help_says_a_budget_prints_the_json_reply():
    """newuser11: ``read-handle h_... --offset 100 --length 50 --budget 3000`` printed the JSON reply, not the raw
    bytes the same read prints without --budget; its help said only 'Most bytes of the JSON reply'."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    helped = CliRunner().invoke(main, ["read-handle", "--help"], terminal_width=300)
    (budget,) = [line for line in helped.stdout.splitlines() if line.strip().startswith("--budget")]
    assert "prints, as --json does" in budget, budget


def test_a_listing_from_a_cursor_says_its_entries_follow_the_cursor(tmp_path, monkeypatch):
    """hostile16: ``ls --limit 2 --after CURSOR`` titled the 3rd and 4th entries ``all runs: entries 1-2``, as if the
    listing started there (the cursor holds no position to number them from)."""
    import re

    from click.testing import CliRunner

    from scratchfs.cli import main

    root, titles = _five_entries_titled(tmp_path, monkeypatch)
    first = CliRunner().invoke(main, ["ls", "--limit", "2", "--root", root])
    cursor = re.search(r"--cursor (\S+)", first.stderr).group(1)
    for limit in ("2", "0"):
        assert CliRunner().invoke(main, ["ls", "--limit", limit, "--after", cursor, "--root", root]).exit_code == 0
    assert titles == ["all runs: entries 1-2", "all runs: entries 1-2 after the cursor",
                      "all runs: 3 entries after the cursor"]


def _five_entries_titled(tmp_path, monkeypatch) -> tuple[str, list[str]]:
    """A store of five entries of run r, agent a, and the list every ``ls`` table's title is appended to."""
    from scratchfs import ScratchStore
    from scratchfs.cli import render

    root = str(tmp_path / "root")
    with ScratchStore(root) as store:
        for n in range(5):
            store.scope("r", "a").scratch_write(f"k{n}", b"v")
    titles: list[str] = []
    listing = render.entries_listing
    monkeypatch.setattr(render, "entries_listing", lambda *a, **k: titles.append(k["title"]) or listing(*a, **k))
    return root, titles
