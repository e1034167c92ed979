"""A read of a handle whose broken row ``fsck --repair`` removed says so, on the command line (exit 1): it said
``no handle ... in this scope``, as of one never written (helper attacker's finding)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import scratchfs

CHECKOUT = Path(scratchfs.__file__).resolve().parent.parent


def test_a_read_after_fsck_repair_says_the_repair_removed_it(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path),
           "SCRATCHFS_ROOT": str(tmp_path / "root"), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    run = {"env": env, "cwd": tmp_path, "capture_output": True, "timeout": 120}
    command = [sys.executable, "-m", "scratchfs"]
    handle = json.loads(subprocess.run([*command, "spill", "-"], input=os.urandom(200_000), check=True,
                                       **run).stdout)["handle"]
    [blob] = (tmp_path / "root" / "runs").rglob("*.zst")
    with open(blob, "r+b") as f:  # a flipped byte in a frame: corrupt
        f.seek(100_000)
        byte = f.read(1)
        f.seek(100_000)
        f.write(bytes([byte[0] ^ 0xFF]))
    assert subprocess.run([*command, "fsck"], **run).returncode == 3
    assert subprocess.run([*command, "fsck", "--repair"], **run).returncode == 0
    read = subprocess.run([*command, "read-handle", handle], **run)
    assert read.returncode == 1
    err = read.stderr.decode()
    assert err.startswith(f"scratchfs: not found: handle {handle!r} was removed by fsck --repair (its stored copy "
                          "was corrupt) at "), err
    assert err.endswith("; run the tool that made it again if it is still needed\n") and err.count("\n") == 1
