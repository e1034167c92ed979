"""A raw read that stops mid-line writes its bytes on stdout and its ``next:`` line on stderr; a shell agent runs
commands with ``2>&1`` (one stream into its context), and the line was glued to the content's last line:
``:mod:`json` exposes an API familiar to scratchfs: 200 bytes from offset 66048; ...`` (shellagent1, a tar member's
first 200 bytes) -- the tool's words read as the file's. When stdout and stderr are one file (one pipe, one
terminal) and the bytes did not end a line, the stderr line now starts on a line of its own; stdout's bytes are
unchanged, and with stderr apart nothing is added."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import scratchfs

CHECKOUT = Path(scratchfs.__file__).resolve().parent.parent
FIXTURE = CHECKOUT / "fixtures" / "tools" / "readelf-Ws-libz.txt"


def _run(tmp_path: Path, *args: str, **streams) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path)}
    scope = ["--root", str(tmp_path / "root"), "--run", "r", "--agent", "a"]
    return subprocess.run([sys.executable, "-m", "scratchfs", *args, *scope], env=env, cwd=tmp_path, check=True,
                          timeout=120, **streams)


def _handle(tmp_path: Path) -> str:
    done = _run(tmp_path, "spill", str(FIXTURE), capture_output=True)
    return done.stdout.decode().split('"handle": "', 1)[1].split('"', 1)[0]


def test_a_read_cut_mid_line_into_one_stream_puts_its_next_line_on_a_line_of_its_own(tmp_path):
    handle, raw = _handle(tmp_path), FIXTURE.read_bytes()
    assert raw[199:200] != b"\n"
    done = _run(tmp_path, "read-handle", handle, "--length", "200", stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert done.stdout.startswith(raw[:200] + b"\nscratchfs: 200 bytes from offset 0; ")
    assert done.stdout.count(b"\n") == raw[:200].count(b"\n") + 2


def test_a_read_ending_a_line_or_with_stderr_apart_adds_nothing(tmp_path):
    handle, raw = _handle(tmp_path), FIXTURE.read_bytes()
    end = raw.index(b"\n", 150) + 1
    done = _run(tmp_path, "read-handle", handle, "--length", str(end), stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT)
    assert done.stdout.startswith(raw[:end] + b"scratchfs: ")
    apart = _run(tmp_path, "read-handle", handle, "--length", "200", capture_output=True)
    assert apart.stdout == raw[:200] and apart.stderr.startswith(b"scratchfs: 200 bytes from offset 0; ")
