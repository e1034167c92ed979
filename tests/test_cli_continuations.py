"""A continuation the command line prints (``ls``'s and ``fsck``'s ``next:``, a raw read's) repeats every filter
of the call it continues, and the store, so that pasted as it is -- in a shell whose environment names no store
-- it shows the rest of the same listing. ``ls --run R --limit 1`` said only ``more with --after CURSOR``: with
that alone, ``ls --after CURSOR`` listed every run (helper newuser's finding)."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import scratchfs
from scratchfs import ScratchStore
from scratchfs.cli import main

CHECKOUT = Path(scratchfs.__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "scratchfs"]


@pytest.fixture
def store(tmp_path):
    """A store of 3 entries of run r, agent a, among others of agent b and run s; the environment names no store.
    (Spilled here as ``scratchfs spill`` does, in this process: six command lines cost 2-4 s of each test's set-up,
    and the spills' own command line is not what these tests are about.)"""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path)}
    run = {"env": env, "cwd": tmp_path, "capture_output": True, "timeout": 120}
    root = str(tmp_path / "root")
    with ScratchStore(root) as store:
        for run_id, agent in (("r", "a"), ("r", "b"), ("s", "a"), ("r", "a"), ("r", "b"), ("r", "a")):
            store.scope(run_id, agent).spill(io.BytesIO(b"x" * 10_000))
    return root, run


def _follow(first: list[str], run: dict) -> tuple[list[subprocess.CompletedProcess], list[str]]:
    """Run ``first`` (``python -m scratchfs``, as a shell would), then every ``next:`` it prints as sh reads it --
    ``shlex.split``, which is sh's reading of the words ``shlex.quote`` wrote (``scratchfs.cli.shell.shell_word``
    writes no other for printable words; pasted into sh itself by ``test_a_raw_scratch_read_given...``,
    ``test_fsck_names_the_repair...`` here and every needle's bytes in ``test_sh_pasted_next.py``) -- in this process
    (click's runner) with ``run``'s environment, whose variables name no store: 0.4 s of CPU a start less, 2 to 4 a
    command. The runs and the hints."""
    done, hints = [subprocess.run(first, **run)], []
    environment = {**dict.fromkeys(os.environ), **run["env"]}
    while "next: " in done[-1].stderr.decode():
        hints.append(done[-1].stderr.decode().split("next: ", 1)[1].strip())
        words = shlex.split(hints[-1])
        assert words[:1] == ["scratchfs"] or words[1:3] == ["-m", "scratchfs"], hints[-1]  # (the program, then its
        args = words[words.index("scratchfs") + 1:]  # words)
        result = CliRunner().invoke(main, args, env=environment, catch_exceptions=False)
        done.append(subprocess.CompletedProcess(args, result.exit_code, result.stdout_bytes, result.stderr_bytes))
        assert len(done) < 10, hints
    assert all(one.returncode == 0 for one in done), [one.stderr for one in done]
    return done, hints


def test_ls_continuations_keep_the_run_agent_and_json(store):
    root, run = store
    every = json.loads(subprocess.run([*COMMAND, "ls", "--root", root, "--json"], check=True, **run).stdout)
    wanted = [e["key"] for e in every if (e["run_id"], e["agent_id"]) == ("r", "a")]
    assert len(wanted) == 3
    done, hints = _follow([*COMMAND, "ls", "--root", root, "--run", "r", "--agent", "a", "--limit", "1", "--json"],
                          run)
    assert [e["key"] for one in done for e in json.loads(one.stdout)] == wanted
    assert len(hints) == 2
    assert all(" ls --run r --agent a --limit 1 --cursor " in hint and "--json" in hint for hint in hints), hints
    done, _ = _follow([*COMMAND, "--run", "r", "ls", "--root", root, "--limit", "2"], run)  # a table; run before
    rows = [line.split("\t")[2] for one in done for line in one.stdout.decode().splitlines()[1:]]
    assert rows == [e["key"] for e in every if e["run_id"] == "r"]


def test_fsck_continuations_keep_quick_and_the_store(store):
    root, run = store
    done, hints = _follow([*COMMAND, "fsck", "--root", root, "--quick", "--limit", "2"], run)
    assert len(done) == 3  # 6 entries, 2 a check
    assert all(" fsck --quick --limit 2 --cursor " in hint and hint.endswith(f"--root {root}") for hint in hints)
    assert [one.stdout.decode().split(" (", 1)[0] for one in done] == ["checked 2 entries"] * 3
    assert all("(0 B verified)" in one.stdout.decode() for one in done)  # --quick carried: nothing decompressed
    assert os.path.isdir(root)


def test_fsck_names_the_repair_of_the_store_it_checked(store):
    """fsck's '`scratchfs fsck --repair` removes them' named no store: after `fsck --root X`, pasted, it checked
    and repaired the default store, not X. It names the root, and pasted as it is, repairs X."""
    root, run = store
    [blob] = [p for p in Path(root, "runs").rglob("*") if p.is_file() and p.suffix in (".zst", ".zseg")][:1]
    blob.unlink()
    found = subprocess.run([*COMMAND, "fsck", "--root", root], **run)
    assert found.returncode == 3
    hint = found.stderr.decode().split("`")[1]
    assert hint.endswith(f" fsck --repair --root {root}"), found.stderr
    assert subprocess.run(["/bin/sh", "-c", hint], **run).returncode == 0
    assert subprocess.run([*COMMAND, "fsck", "--root", root], **run).returncode == 0
    assert not Path(run["env"]["HOME"], ".cache", "scratchfs").exists()


def test_json_reads_print_the_next_page_as_a_command_that_reads_on(store, tmp_path):
    # a structure read, a search or a --json read printed its next_call in the model's syntax alone, where a raw
    # read printed the command: a CLI user paging rows translated read_handle(..., row=8, cursor="...") by hand
    root, run = store
    import csv
    import io
    import re

    # (15 rows: each read pages through 3 or 4 pages, 2 or 3 of them pasted; 30 rows took 21 command lines, 11 s)
    table = "name,size\n" + "".join(f'"n {i}, ""q""",{i}\n' for i in range(15))
    spilled = subprocess.run([*COMMAND, "spill", "-", "--root", root, "--run", "r", "--agent", "a"],
                             input=table.encode(), check=True, **run)
    handle = json.loads(spilled.stdout)["handle"]
    read = [*COMMAND, "read-handle", handle, "--root", root, "--run", "r", "--agent", "a"]
    done, hints = _follow([*read, "--row", "1", "--rows", "7", "--column", "name"], run)
    assert [row for one in done for row in json.loads(one.stdout)["rows"]] == [
        [row["name"]] for row in csv.DictReader(io.StringIO(table))]
    assert len(hints) == 2 and all("--column name --cursor " in hint for hint in hints), hints
    done, hints = _follow([*read, "--line", "1", "--lines", "4", "--json"], run)
    assert "".join(json.loads(one.stdout)["data"] for one in done) == table
    assert len(hints) == 3 and all("--json" in hint for hint in hints), hints
    done, hints = _follow([*read, "--match", '""q', "--max-matches", "4", "--context", "0"], run)
    found = [w["offset"] for one in done for w in json.loads(one.stdout)["windows"]]
    assert found == [m.start() for m in re.finditer('""q', table)] and len(hints) == 3, hints


def test_a_scratch_read_as_json_prints_the_next_page_as_a_command(store):
    root, run = store
    value = b"".join(b"note %d\n" % i for i in range(1000))  # (8,890 bytes: 3 pages, 2 pasted)
    scope = ["--root", root, "--run", "r", "--agent", "a"]
    subprocess.run([*COMMAND, "scratch-write", "notes", *scope], input=value, check=True, **run)
    done, hints = _follow([*COMMAND, "scratch-read", "notes", "--json", "--length", "4096", *scope], run)
    assert "".join(json.loads(one.stdout)["data"] for one in done).encode() == value
    assert len(hints) == len(value) // 4096 and all(" scratch-read notes --json " in hint for hint in hints), hints


def test_a_raw_scratch_read_given_json_options_names_the_json_read_to_paste(store):
    """newuser11: ``scratch-read k --budget 3000`` (no ``--json``) was refused with no command to run; the refusal
    names the same read with ``--json``, on the same store and scope, and pasted into sh it prints that JSON."""
    root, run = store
    subprocess.run([*COMMAND, "scratch-write", "k it's", "--root", root, "--run", "r", "--agent", "a"],
                   input=b"hello $x `y`\n" * 10, check=True, **run)
    refused = subprocess.run([*COMMAND, "scratch-read", "k it's", "--root", root, "--run", "r", "--agent", "a",
                              "--budget", "3000", "--offset", "2"], **run)
    assert refused.returncode == 2 and refused.stdout == b""
    said = refused.stderr.decode()
    assert said.count("\n") == 1 and "apply to --json reads; the raw value is printed whole: " in said, said
    pasted = subprocess.run(["/bin/sh", "-c", said.split("printed whole: ", 1)[1].strip()], **run)
    assert pasted.returncode == 0, pasted.stderr
    reply = json.loads(pasted.stdout)
    assert (reply["key"], reply["offset"], reply["data"]) == ("k it's", 2, ("hello $x `y`\n" * 10)[2:])
