"""The cap on standard input (``--max-stdin-bytes``) holds for any input that is no regular file (hostile41): a pipe
or a device named -- ``/dev/stdin``, ``/dev/zero``, a FIFO, bash's ``<(yes)`` -- was "a file named, stored whatever
its size", so ``yes | scratchfs spill /dev/stdin`` spilled until the disk or a run quota stopped it, as ``yes |
scratchfs spill -`` did before leftovers4. Now past the cap nothing is stored, one line on stderr, exit 5; a regular
file named is stored whatever its size, as before. The content is ``fixtures/tools/dmesg.txt`` (a real ``dmesg``,
23,056 bytes) given several times over through a FIFO."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from tests.cli_run import invoke

_DMESG = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "dmesg.txt"


def _fifo(path: Path, data: bytes) -> threading.Thread:
    """A FIFO at ``path`` a thread writes ``data`` into once a reader opens it (a reader gone: the rest dropped)."""
    os.mkfifo(path)

    def write() -> None:
        try:
            with open(path, "wb") as fifo:
                fifo.write(data)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def test_a_pipe_named_past_the_cap_stores_nothing_and_exits_5(tmp_path):
    root, data = tmp_path / "root", _DMESG.read_bytes() * 5  # (115,280 bytes)
    for n, command in enumerate((["spill"], ["spill", "--threshold", "1KiB"], ["scratch-write", "k"])):
        fifo = tmp_path / f"fifo{n}"
        writer = _fifo(fifo, data)
        done = invoke(root, *command, str(fifo), "--max-stdin-bytes", "64KiB")
        writer.join(30)
        assert done.exit_code == 5, (command, done.output)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(
            f"scratchfs: quota exceeded: {str(fifo)!r} (no regular file: a pipe or a device) went past its cap of "
            "65,536 bytes and nothing of it was stored: give a larger --max-stdin-bytes"), lines
        assert lines[0].endswith("or name a regular file instead") and done.stdout == ""
    assert json.loads(invoke(root, "ls", "--json").stdout) == []
    assert json.loads(invoke(root, "scratch-list").stdout) == []
    assert sorted(path for path in (root / "runs").rglob("*") if path.is_file()) == []  # (nothing half-stored)
    fifo = tmp_path / "fits"
    writer = _fifo(fifo, data)
    fits = invoke(root, "spill", str(fifo), "--max-stdin-bytes", str(len(data)))
    writer.join(30)
    assert fits.exit_code == 0 and json.loads(fits.stdout)["size"] == len(data), fits.output
    named = tmp_path / "dmesg5.txt"
    named.write_bytes(data)
    stored = invoke(root, "scratch-write", "k", str(named), env={"SCRATCHFS_MAX_STDIN_BYTES": "64KiB"})
    assert stored.exit_code == 0, stored.output  # (a regular file named: its size is its own)
    assert invoke(root, "scratch-read", "k").stdout_bytes == data
