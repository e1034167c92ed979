"""A binary entry's stub note says its preview is a hex dump "as a range read gives it", and ``spill`` printed the
range read as ``scratchfs read-handle h_... --offset 192``: pasted, it wrote the raw bytes (a .so's NULs and control
bytes, 4 KiB of them) into a shell agent's context (shellagent1: libz.so.1). The range reads of a binary entry's
note are now printed with ``--json``, whose data is the hex dump the note names (text bytes stay text)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import scratchfs

CHECKOUT = Path(scratchfs.__file__).resolve().parent.parent
FIXTURES = CHECKOUT / "fixtures" / "tools"


def _commands(tmp_path: Path, name: str) -> tuple[dict, list[str], dict]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path)}
    run = {"env": env, "cwd": tmp_path, "capture_output": True, "timeout": 120}
    done = subprocess.run([sys.executable, "-m", "scratchfs", "spill", str(FIXTURES / name), "--root",
                           str(tmp_path / "root"), "--run", "r", "--agent", "a"], check=True, **run)
    said = [line[line.index(sys.executable):] for line in done.stderr.decode().splitlines() if "read-handle" in line]
    return json.loads(done.stdout), said, run


def test_a_binary_stubs_range_read_prints_the_hex_dump_its_note_names(tmp_path):
    stub, commands, run = _commands(tmp_path, "bash-changelog.Debian.gz")
    assert stub["content_type"] == "binary" and "as a hex dump" in stub["note"]
    ranged = [command for command in commands if " --offset " in command]
    assert len(ranged) == 1 and " --json" in ranged[0]
    done = subprocess.run(["/bin/sh", "-c", ranged[0]], check=True, **run)
    page = json.loads(done.stdout)
    assert page["encoding"] == "hexdump" and page["offset"] == 192
    assert page["data"].startswith("000000c0  ") and "|" in page["data"].splitlines()[0]
    raw = (FIXTURES / "bash-changelog.Debian.gz").read_bytes()
    assert page["data"].splitlines()[0].split("  ")[1] == raw[192:208].hex(" ")


def test_a_text_stubs_range_read_stays_raw(tmp_path):
    stub, commands, run = _commands(tmp_path, "readelf-Ws-libz.txt")
    ranged = [command for command in commands if " --offset " in command]
    assert stub["content_type"] != "binary" and ranged and all(" --json" not in c for c in ranged)
    done = subprocess.run(["/bin/sh", "-c", ranged[0]], check=True, **run)
    raw = (FIXTURES / "readelf-Ws-libz.txt").read_bytes()
    offset = int(ranged[0].split(" --offset ")[1].split()[0])
    assert done.stdout == raw[offset:offset + len(done.stdout)] and done.stdout
