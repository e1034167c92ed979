"""Memory bounds of the streaming paths, as peak RSS growth measured in a fresh subprocess (``bench/memory.py``).

Issue 3: spilling a 1 GiB stream raises peak RSS by at most 64 MiB; ``read_handle(match=...)`` over a large blob by
at most 32 MiB. The suite streams 256 MiB to stay fast; ``SCRATCHFS_STRESS=1`` streams the full 1 GiB
(``python bench/memory.py`` prints the same figures).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scratchfs import ScratchStore

from .conftest import FIXTURE_FILES

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "memory.py"
MIB = 1024 * 1024
SIZE = (1024 if os.environ.get("SCRATCHFS_STRESS") else 256) * MIB
SPILL_LIMIT = 64 * MIB
MATCH_LIMIT = 32 * MIB
CORPUS = b"".join(p.read_bytes() for p in FIXTURE_FILES)  # what bench/memory.py streams, repeated


def measure(kind: str, root: Path, size: int = 0, handle: str | None = None) -> dict:
    command = [sys.executable, str(SCRIPT), "child", kind, "--root", str(root), "--size", str(size)]
    if handle:
        command += ["--handle", handle]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def expected(offset: int, length: int) -> bytes:
    start = offset % len(CORPUS)
    return (CORPUS * (length // len(CORPUS) + 2))[start : start + length]


def check_content(root: Path, handle: str, size: int) -> None:
    """The spilled blob holds the stream: its size and ranges at the start, across frames, and at the end."""
    with ScratchStore(root) as store:
        scope = store.scope("memory", "bench")
        for offset in (0, 256 * 1024 - 10, size // 2 + 12345, size - 5000):
            assert scope.read_handle(handle, offset, 8192).data == expected(offset, min(8192, size - offset))


@pytest.fixture(scope="module")
def spilled(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("memory")
    return root, measure("spill-chunks", root, SIZE)


def test_the_probe_sees_an_allocation(tmp_path):
    # the instrument itself: allocating and touching 48 MiB must show as about 48 MiB of growth
    result = measure("control", tmp_path, 48 * MIB)
    assert 44 * MIB <= result["growth"] <= 56 * MIB, result


def test_spilling_a_stream_of_chunks_stays_within_64_mib(spilled):
    root, result = spilled
    assert result["size"] == SIZE
    assert result["growth"] <= SPILL_LIMIT, f"peak RSS grew by {result['growth'] / MIB:.1f} MiB"
    check_content(root, result["handle"], SIZE)


def test_spilling_a_file_object_stays_within_64_mib(tmp_path):
    result = measure("spill-file", tmp_path, SIZE)
    assert result["size"] == SIZE
    assert result["growth"] <= SPILL_LIMIT, f"peak RSS grew by {result['growth'] / MIB:.1f} MiB"
    check_content(tmp_path, result["handle"], SIZE)


def test_searching_a_large_blob_stays_within_32_mib(spilled):
    root, spill = spilled
    result = measure("match", root, handle=spill["handle"])
    assert result["size"] == SIZE and result["windows"] == 0
    assert result["growth"] <= MATCH_LIMIT, f"peak RSS grew by {result['growth'] / MIB:.1f} MiB"
