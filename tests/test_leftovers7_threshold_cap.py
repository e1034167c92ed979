"""``scratchfs spill --threshold 8KiB --max-stdin-bytes 1KiB`` refused a 3,000-byte input, exit 5 ("standard input
went past its cap ... nothing of it was stored") where the threshold said it passes through unchanged, nothing
stored: the cap, "most bytes stored from standard input", was applied to the bytes read to decide (leftovers7). The
cap is of what is stored now: an input within the threshold passes whatever the cap, and one over the threshold is
refused past the cap as without ``--threshold`` (the bytes read for the decision counted), nothing half-stored.
The content is ``fixtures/tools/dmesg.txt`` (a real ``dmesg``, 23,056 bytes) and slices of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_run import invoke

_DMESG = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "dmesg.txt"


def _stored(root: Path) -> tuple[list, list[Path]]:
    """The store's live entries (``ls --json``) and the files under its runs (none: no store was made)."""
    if not root.exists():
        return [], []
    listed = json.loads(invoke(root, "ls", "--json", scope=()).stdout)
    return listed, sorted(path for path in (root / "runs").rglob("*") if path.is_file())


@pytest.mark.parametrize("cap", [["--max-stdin-bytes", "1KiB"], []])
def test_an_input_within_the_threshold_passes_through_whatever_the_cap(tmp_path, cap):
    root, small = tmp_path / "root", _DMESG.read_bytes()[:3000]
    env = None if cap else {"SCRATCHFS_MAX_STDIN_BYTES": "1KiB"}  # (the variable sets it too)
    done = invoke(root, "spill", "-", "--threshold", "8KiB", *cap, stdin=small, env=env)
    assert done.exit_code == 0, done.output
    assert done.stdout_bytes == small and done.stderr == ""
    assert _stored(root) == ([], [])


def test_an_input_over_the_threshold_and_the_cap_is_refused_and_nothing_stored(tmp_path):
    root, large = tmp_path / "root", _DMESG.read_bytes()  # (23,056 bytes: over 8 KiB and 16 KiB alike)
    for cap in ("1KiB", "16KiB"):  # (past the cap within the decision's read, and after it)
        done = invoke(root, "spill", "-", "--threshold", "8KiB", "--max-stdin-bytes", cap, stdin=large)
        assert done.exit_code == 5, (cap, done.output)
        assert done.stdout == "" and "--max-stdin-bytes" in done.stderr, done.stderr
        assert done.stderr.startswith("scratchfs: quota exceeded: standard input went past its cap of ")
        assert len(done.stderr.splitlines()) == 1, done.stderr
    assert _stored(root) == ([], [])
    fits = invoke(root, "spill", "-", "--threshold", "8KiB", "--max-stdin-bytes", "32KiB", stdin=large)
    assert fits.exit_code == 0 and json.loads(fits.stdout)["size"] == len(large), fits.output
