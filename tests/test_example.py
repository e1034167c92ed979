"""examples/agent_loop.py and examples/mcp_client.py run offline and print what README.md shows (random handles
compared as a placeholder)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from .conftest import FIXTURES

ROOT = FIXTURES.parent
HANDLE = re.compile(r"h_[a-z2-7]{24}")
MARKER = "<!-- agent_loop output:"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
"""The examples' environment: they import the scratchfs of this checkout (a script's own directory comes first on
its path, not the checkout's; a virtual environment's editable install may be another checkout's)."""


def normalized(output: str) -> str:
    """The output with its folded lines joined (a fold may cut a handle) and every handle replaced."""
    return HANDLE.sub("h_HANDLE", output.replace("\n    ", ""))


def readme_output(marker: str = MARKER) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after = text[text.index(marker):]
    start = after.index("```text\n") + len("```text\n")
    return after[start : after.index("```", start)]


def test_example_agent_loop_prints_what_the_readme_shows():
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "agent_loop.py")], capture_output=True,
                            text=True, timeout=120, cwd=ROOT, env=ENV)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    handles = set(HANDLE.findall(out))
    assert len(handles) == 1  # one page spilled, read back through its handle
    assert normalized(out) == normalized(readme_output())
    # the README's copy named a handle in its stub's note that was no handle of its own (h_hwm66..., an edit's
    # left-over): one page, one handle, there too (modelfollow1)
    assert len(set(HANDLE.findall(readme_output().replace("\n    ", "")))) == 1
    assert "the stub entered the transcript" in out
    assert "assistant calls read_handle" in out
    assert "Ownership is a set of rules that govern how a Rust program manages memory." in out


def test_example_piped_into_a_reader_that_stops_early_ends_quietly():
    # `python examples/agent_loop.py | head`: the reader closes the pipe; no BrokenPipeError traceback, exit 0
    example = subprocess.Popen([sys.executable, str(ROOT / "examples" / "agent_loop.py")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=ROOT, env=ENV)
    example.stdout.readline()
    example.stdout.close()
    _, err = example.communicate(timeout=120)
    assert example.returncode == 0 and b"Traceback" not in err and b"BrokenPipe" not in err, err


def test_example_mcp_client_prints_what_the_readme_shows(tmp_path):
    """The model's side of `scratchfs mcp` through the official SDK's stdio client (a new user found no MCP client
    example, and tripped on the SDK 2.x result attributes)."""
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "mcp_client.py")], capture_output=True,
                            text=True, timeout=120, cwd=ROOT, env=ENV)
    assert result.returncode == 0, result.stderr
    shown = readme_output("<!-- mcp_client output:").split("\n", 1)[1]  # (after the command line)
    assert result.stdout == shown
    # the reply's bytes are those the model receives, its compact JSON text (helper newuser3: the example measured
    # json.dumps with spaces, 682 bytes, where the server's text block held 656)
    printed = int(re.search(r"the reply was ([\d,]+) bytes", result.stdout).group(1).replace(",", ""))
    assert printed == _reply_bytes(tmp_path, {"match": "def openhook", "max_matches": 1})


def _reply_bytes(root, arguments: dict) -> int:
    """The bytes of read_handle's reply over the grep fixture, as MCP's text block carries it (compact JSON)."""
    import json

    from scratchfs import ScratchStore
    from scratchfs.api.contract import ScratchTools

    with ScratchStore(root / "store") as store:
        scope = store.scope("run-7", "agent-1")
        handle = scope.spill((FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes()).handle
        reply = ScratchTools(scope).call("read_handle", {"handle": handle, **arguments})
    return len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode())
