"""A store error's advice names the store the command was given: ``fsck --rebuild-index`` pasted from the error of
``--root R ls`` rebuilds R's index, not the default store's (it named no ``--root`` before, so pasted it acted on the
default store, here an empty one under ``$HOME``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent


def test_the_advice_of_a_damaged_index_rebuilds_the_store_it_was_given(tmp_path):
    home, other = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    other.mkdir()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(home), "XDG_CACHE_HOME": str(home)}
    command = [sys.executable, "-m", "scratchfs"]
    root = tmp_path / "store"
    spilled = subprocess.run([*command, "--root", "store", "--run", "r", "--agent", "a", "spill", "-"], cwd=tmp_path,
                             input=b"x" * 20000, capture_output=True, env=env, check=True)
    handle = re.search(r'"handle": "(h_\w+)"', spilled.stdout.decode())[1]
    (root / "index.sqlite").write_bytes(os.urandom(20000))  # (a relative --root, as a user types it)
    failed = subprocess.run([*command, "--root", "store", "ls", "--run", "r"], cwd=tmp_path, capture_output=True,
                            env=env)
    err = failed.stderr.decode()
    assert failed.returncode == 4, err
    advice = re.search(r"rebuild it from the blobs: (.+?) \(which keeps", err)[1]
    assert f"fsck --rebuild-index --root {root}" in advice, err
    pasted = subprocess.run(["sh", "-c", advice], cwd=other, capture_output=True, env=env)  # (from another folder)
    assert pasted.returncode == 0, pasted.stderr.decode()
    listed = subprocess.run([*command, "--root", str(root), "ls", "--run", "r"], capture_output=True, env=env)
    assert handle in listed.stdout.decode(), listed.stderr.decode()
    assert not any(home.rglob("index.sqlite"))  # (the default store was not made, nor rebuilt)
