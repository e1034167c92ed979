"""A command run with its standard input closed (``<&-``, a supervisor that closes fd 0): a command that reads its
content there (``spill -``, ``scratch-write KEY``) is a usage error naming it, exit 2, where click's RuntimeError
("Was not able to determine binary stream for sys.stdin") came out as a traceback, exit 1; ``mcp`` and ``mcp-proxy``,
whose client speaks there, refuse to start (``scratchfs: input: standard input is closed ...``, exit 4) where the
store's first descriptor took fd 0 and the server read its root directory as requests ("scratchfs: storage: Is a
directory"; a regular file there would have been read as JSON-RPC). Found by the hostile helper (2026-12-04)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from scratchfs import ScratchStore


def run_closed(root, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SCRATCHFS_ROOT": str(root), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    return subprocess.run([sys.executable, "-m", "scratchfs", *args], env=env, capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))


@pytest.mark.parametrize("args", [("spill", "-"), ("spill",), ("scratch-write", "k"), ("scratch-write", "k", "-")])
def test_a_command_reading_a_closed_stdin_is_a_usage_error_in_one_line(tmp_path, args):
    done = run_closed(tmp_path / "root", *args)
    err = done.stderr.decode()
    assert done.returncode == 2 and "Traceback" not in err and err.count("\n") == 1
    assert "standard input is closed" in err
    if (tmp_path / "root").exists():
        with ScratchStore(tmp_path / "root") as store:
            assert store.list_entries_for_run("r") == []


@pytest.mark.parametrize("command", [("mcp",), ("mcp-proxy", "--", sys.executable, "-c", "pass")])
def test_a_server_refuses_a_closed_stdin_before_it_reads_a_store_file_as_requests(tmp_path, command):
    done = run_closed(tmp_path / "root", *command)
    err = done.stderr.decode()
    assert done.returncode == 4 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == ("scratchfs: input: standard input is closed: an MCP server reads its "
                                            "client's requests there")
