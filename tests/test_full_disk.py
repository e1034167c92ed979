"""A full disk can be recovered through scratchfs (issue 13). On a 3 MiB tmpfs in a private mount namespace
(``unshare -m``, as root), ttl=1 spills fill the disk and a filler file takes its last byte; then ``scratchfs sweep``,
``delete-run`` and ``delete-agent`` must each exit 0 and free space, and spills must work again afterwards (see
``tests/full_disk_scenario.py``). Skipped with the reason where no small file system can be mounted; under
``SCRATCHFS_REQUIRE_SERVICES=1`` (``.ci/run``) that is a failure instead."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCENARIO = REPO / "tests" / "full_disk_scenario.py"


def _small_fs_or_skip(mount: Path) -> None:
    reason = None
    if os.geteuid() != 0:
        reason = "mounting a small tmpfs needs root (unshare -m)"
    elif shutil.which("unshare") is None:
        reason = "unshare (util-linux) is not installed"
    else:
        probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=3m tmpfs '{mount}'"],
                               capture_output=True, text=True, timeout=30)
        if probe.returncode:
            reason = f"cannot mount a tmpfs in a private mount namespace: {probe.stderr.strip()}"
    if reason:
        if os.environ.get("SCRATCHFS_REQUIRE_SERVICES"):
            pytest.fail(f"SCRATCHFS_REQUIRE_SERVICES=1 but {reason}")
        pytest.skip(reason)


def _scenario(tmp_path, *mode: str) -> dict:
    """The report of tests/full_disk_scenario.py run on a 3 MiB tmpfs in a mount namespace of its own."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    _small_fs_or_skip(mount)
    script = (f"mount -t tmpfs -o size=3m tmpfs '{mount}' && exec '{sys.executable}' '{SCENARIO}' '{mount}'"
              + "".join(f" '{m}'" for m in mode))
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=REPO, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert "error" not in report, report
    return report


def test_sweep_delete_run_and_delete_agent_recover_a_full_disk(tmp_path):
    report = _scenario(tmp_path)
    assert report["filled_ttl1"] > 10 and report["free_before_sweep"] == 0
    for step, freed in (("sweep", "free_after_sweep"), ("delete_run", "free_after_delete_run"),
                        ("delete_agent", "free_after_delete_agent")):
        assert report[step] == {"code": 0, "stderr": ""}, (step, report[step])
        assert report[freed] > 1 << 20, (step, report[freed])  # the blobs' space came back
    assert report["spill_after_sweep"] and report["spill_after_delete_run"]
    assert report["read_after_delete_agent"] == "back again"
    assert (report["integrity"], report["entries_left"]) == ("ok", 1)


def test_the_process_that_filled_the_disk_deletes_and_sweeps_on_its_open_store(tmp_path):
    """The index's SQLITE_FULL is a StorageError (an OSError) with no errno: it must still count as a full disk,
    so that scratch_delete, delete_run, delete_agent and sweep release the reserve and retry (atka, fault 1)."""
    report = _scenario(tmp_path, "in-process")
    assert report["keys_written"] >= 1 and report["scratch_delete"] is True, report
    assert report["delete_run"] > 10 and report["delete_agent"] > 10 and report["sweep"] > 10, report
    for freed in ("free_after_delete_run", "free_after_delete_agent", "free_after_sweep"):
        assert report[freed] > 1 << 20, (freed, report)
    assert report["reserve_back"] is True
    assert (report["read_after"], report["integrity"]) == ("back again", "ok")


def test_a_disk_filled_while_no_store_was_open_is_recovered_by_delete_run(tmp_path):
    """The disk filled by another writer after the last store closed: the next process's open of the index fails
    for want of room for its shared-memory file, so the open releases the reserve and tries once more, and
    delete-run frees the run's space (it failed as it opened, exit 4, the reserve kept: newuser21)."""
    report = _scenario(tmp_path, "filled-while-closed")
    assert (report["free_before"], report["shm_before"]) == (0, False), report
    assert report["delete_run"] == {"code": 0, "stderr": ""}, report
    assert report["free_after_delete_run"] > 1 << 20, report
    assert report["fsck"] == {"code": 0, "stderr": ""}, report
