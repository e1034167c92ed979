"""A command the CLI writes in a message is printed whole, never cut in its middle (hostile15): a message over 2,000
characters was cut there (``… (2,580 characters left out) …``), a refusal's command with a long ``--match`` and a
message's command with a long ``--root`` too, which pasted gave another needle or another store's path, or a syntax
error (the words left out said outside the quotes)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from scratchfs.cli.app import main, warn

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ARGV = "printf '[%s]'"


@pytest.mark.parametrize("pad", [0, 5, 11])
def test_a_refusals_command_with_a_long_needle_pasted_gives_the_needle_back(tmp_path, pad):
    scope = ["--root", str(tmp_path / "root"), "--run", "r", "--agent", "a"]
    spilled = CliRunner().invoke(main, ["spill", str(FIXTURES / "workspace-grep-stdlib-defs.txt"), "--json", *scope])
    handle = json.loads(spilled.stdout)["handle"]
    needle = "x" * pad + "'; echo no; '" * 200
    failed = CliRunner().invoke(main, ["read-handle", handle, "--match", needle, "--line", "5", *scope])
    assert failed.exit_code == 2, failed.stderr
    (words,) = re.findall(r"scratchfs read-handle (.*?) and scratchfs read-handle", failed.stderr)
    pasted = subprocess.run(["sh", "-c", f"{ARGV} {words}"], capture_output=True, timeout=30)
    assert pasted.returncode == 0, pasted.stderr
    assert f"[--match][{needle}]".encode() in pasted.stdout


def test_a_messages_command_with_a_long_root_names_it_whole(tmp_path, capsys):
    root = str(tmp_path / ("d" * 250) / ("e" * 250)) * 5
    warn("the index is damaged: run scratchfs fsck --rebuild-index", root)
    line = capsys.readouterr().err
    command = line.split("run ", 1)[1].strip().replace("scratchfs fsck", ARGV + " fsck", 1)
    pasted = subprocess.run(["sh", "-c", command], capture_output=True, check=True, timeout=30).stdout
    assert pasted == f"[fsck][--rebuild-index][--root][{root}]".encode()
