"""A spill (or scratch-write) from standard input has a cap of its own (leftovers4): ``yes | scratchfs spill -``
spilled until the disk or a run quota stopped it. Past ``--max-stdin-bytes`` (``$SCRATCHFS_MAX_STDIN_BYTES``, 1 GiB
by default) nothing is stored, one line on stderr, exit 5 (quota exceeded); a file named is stored whatever its size.
The content is ``fixtures/tools/dmesg.txt`` (a real ``dmesg``, 23,056 bytes), given several times over."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_run import invoke

_DMESG = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "dmesg.txt"


def _files(root: Path) -> list[Path]:
    return sorted(path for path in (root / "runs").rglob("*") if path.is_file())


def test_stdin_past_its_cap_stores_nothing_and_exits_5(tmp_path):
    root, data = tmp_path / "root", _DMESG.read_bytes() * 5  # (115,280 bytes)
    for command in (["spill", "-"], ["spill"], ["spill", "-", "--threshold", "1KiB"], ["scratch-write", "k", "-"]):
        done = invoke(root, *command, "--max-stdin-bytes", "64KiB", stdin=data)
        assert done.exit_code == 5, (command, done.output)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("scratchfs: quota exceeded: standard input went past its cap "
                                                       "of 65,536 bytes and nothing of it was stored"), lines
        assert "--max-stdin-bytes" in lines[0] and done.stdout == ""
    assert json.loads(invoke(root, "ls", "--json").stdout) == []
    assert json.loads(invoke(root, "scratch-list").stdout) == []
    assert _files(root) == []  # (nothing half-stored)
    env = {"SCRATCHFS_MAX_STDIN_BYTES": "64KiB"}
    assert invoke(root, "spill", stdin=data, env=env).exit_code == 5  # (the variable sets it too)
    fits = invoke(root, "spill", "--max-stdin-bytes", str(len(data)), stdin=data)
    assert fits.exit_code == 0 and json.loads(fits.stdout)["size"] == len(data), fits.output
    named = tmp_path / "dmesg5.txt"
    named.write_bytes(data)
    stored = invoke(root, "scratch-write", "k", str(named), env=env)  # (a file named: its size is its own)
    assert stored.exit_code == 0, stored.output
    assert invoke(root, "scratch-read", "k").stdout_bytes == data
    from scratchfs.cli.settings_options import STDIN_CAP_BYTES

    assert STDIN_CAP_BYTES == 1 << 30  # (the default: 1 GiB)
