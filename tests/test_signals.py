"""Signals (issue 13): SIGTERM and SIGHUP end a CLI spill as SIGINT does -- exit 128 + signal, one stderr line, the
partial blob removed; a spill killed with SIGKILL leaves an incomplete write that ``fsck`` reports as such (not as
corruption: exit 0) and the next sweep after the grace period removes. Real subprocesses, real signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scratchfs import ScratchStore

REPO = Path(__file__).resolve().parent.parent


def _blob_files(root: Path) -> list[Path]:
    return sorted((root / "runs").rglob("*.zst")) if (root / "runs").exists() else []


def _spill_until_its_blob_exists(root: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "scratchfs", "spill", "--root", str(root), "--run", "r",
                             "--agent", "a", "--tool", "t"], cwd=REPO, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(os.urandom(9 << 20))  # over one batch of frames: bytes on disk, stdin still open
    proc.stdin.flush()
    deadline = time.monotonic() + 30
    while not _blob_files(root) or _blob_files(root)[0].stat().st_size == 0:
        assert time.monotonic() < deadline, "the spill never started its blob"
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.02)
    return proc


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scratchfs", *args, "--root", str(root)], cwd=REPO,
                          capture_output=True, timeout=60)


@pytest.mark.parametrize(("signum", "code", "word"), [(signal.SIGTERM, 143, "terminated"),
                                                     (signal.SIGHUP, 129, "hung up"),
                                                     (signal.SIGINT, 130, "interrupted")])
def test_a_signal_mid_spill_removes_the_partial_blob(tmp_path, signum, code, word):
    root = tmp_path / "root"
    proc = _spill_until_its_blob_exists(root)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code
    assert err.decode() == f"scratchfs: {word}\n"  # one line: no blank line before it (stderr is not a terminal)
    assert _blob_files(root) == []
    assert _cli(root, "fsck", "--json").returncode == 0


def test_a_killed_spill_is_an_incomplete_write_that_the_sweep_removes_after_the_grace(tmp_path):
    root = tmp_path / "root"
    proc = _spill_until_its_blob_exists(root)
    proc.kill()
    proc.communicate(timeout=30)
    (partial,) = _blob_files(root)
    checked = _cli(root, "fsck", "--json")
    assert checked.returncode == 0, checked.stderr  # not corruption
    report = json.loads(checked.stdout)
    assert (report["incomplete"], report["corrupt"], report["orphaned"], report["clean"]) == (1, 0, 0, True)
    assert report["problems"][0]["kind"] == "incomplete"
    human = _cli(root, "fsck")
    assert b"incomplete writes 1" in human.stdout
    assert _cli(root, "sweep", "--json").returncode == 0
    assert partial.exists()  # within the grace period (300 s): left alone
    old = time.time() - 301
    os.utime(partial, (old, old))
    swept = _cli(root, "sweep", "--json")
    assert swept.returncode == 0, swept.stderr
    assert json.loads(swept.stdout)["orphans_removed"] == 1
    assert _blob_files(root) == []


@pytest.mark.parametrize(("signum", "code", "word", "delays"), [
    (signal.SIGTERM, 143, "terminated", (0.0, 0.002, 0.01, 0.03)),
    (signal.SIGHUP, 129, "hung up", (0.0, 0.005, 0.02, 0.04))])
def test_serve_stops_on_a_signal_sent_as_soon_as_it_printed_its_start_line(tmp_path, signum, code, word, delays):
    """From its start line on, a SIGTERM or SIGHUP asks uvicorn to stop (serve._stop_on_signals), wherever its
    start-up stands: raised as an exception at once, one sent right after the start line could land inside
    uvicorn's or asyncio's start-up (a CI run saw the server go on running; 130 tries here did not make it again, so
    this checks the exits of the new way, not that race). Sent at 0-40 ms, eight times, each signal four of them
    (both signals take the one handler's way: eight serve starts a signal were 12-22 s of calls on a loaded run)."""
    ScratchStore(tmp_path / "s").close()  # serve opens a store, never makes one
    for delay in delays:
        proc = subprocess.Popen([sys.executable, "-m", "scratchfs", "serve", "--root", str(tmp_path / "s"), "--port",
                                 "0", "--json"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert json.loads(proc.stdout.readline())["port"] > 0
            time.sleep(delay)
            proc.send_signal(signum)
            _out, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == code, (delay, err)
        assert err.decode().splitlines()[-1] == f"scratchfs: {word}"
