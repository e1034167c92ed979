"""A cursor ``ls`` or ``fsck`` cannot read -- forged, cut, or another command's (``scratch-list``'s) -- is refused
naming the command that starts the listing again, as ``scratch-list``'s refusal does (hostile41): it said only "not a
cursor printed by scratchfs: 'zzz'", no way on. The command it names runs as printed (pasted: the same filters,
limit and store). Entries are ``fixtures/tools/dmesg.txt`` (a real ``dmesg``) spilled three times, and a scratchpad
key."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from scratchfs.cli import main

_DMESG = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "dmesg.txt"


def _cli(*args, stdin=None):
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def test_a_cursor_ls_and_fsck_cannot_read_names_the_command_from_the_start(tmp_path):
    root = str(tmp_path / "root")
    for n in range(3):
        assert _cli("spill", "--root", root, "--run", "r", "--agent", "a", stdin=_DMESG.read_bytes()).exit_code == 0
        assert _cli("scratch-write", f"k{n}", "--root", root, "--run", "r", "--agent", "a", stdin=b"v").exit_code == 0
    listed = _cli("scratch-list", "--root", root, "--run", "r", "--agent", "a", "--limit", "1")
    other = re.search(r" --cursor (\S+)", listed.stderr)[1]  # (scratch-list's cursor, another listing's)
    for command in (["ls", "--run", "r", "--limit", "2", "--json"], ["fsck", "--quick", "--limit", "2"]):
        for cursor in ("zzz", other, other[:-3]):
            refused = _cli(*command, "--root", root, "--cursor", cursor)
            assert refused.exit_code == 2 and refused.stdout == "", (command, refused.output)
            said = refused.stderr.strip()
            assert said.startswith("scratchfs: invalid argument: not a cursor printed by scratchfs: "), said
            assert ": pass the cursor as a next: line printed it, or start again without one: scratchfs " in said
            again = shlex.split(said.split("start again without one: ", 1)[1])
            assert again == ["scratchfs", *command, "--root", root], said
            pasted = _cli(*again[1:])
            assert pasted.exit_code == 0, pasted.output
            if "--json" in command:
                assert len(json.loads(pasted.stdout)) == 2
            assert " --cursor " in pasted.stderr  # (its own next page)
