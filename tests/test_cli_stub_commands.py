"""``scratchfs spill`` prints the stub a model receives, whose note names its next reads as tool calls
(``read_handle(handle="h_...", jq=".\\"639-3\\"[0]")``): a shell user had to translate each into a command, quoting
and all. Each one is written on stderr as the command that makes it, on the same store and scope, as a JSON read's
note's calls are (newuser23: the stub of /usr/share/iso-codes' JSON named a jq read whose key needs quoting)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import scratchfs
from scratchfs.foundation.call_text import calls_in, parse_call

CHECKOUT = Path(scratchfs.__file__).resolve().parent.parent
SAID = "scratchfs: the note's call as a command: "
SAID_ONCE = "scratchfs: the note's calls as commands, one a line:"


def _spill(tmp_path: Path, content: bytes) -> tuple[dict, list[str], dict]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path)}
    run = {"env": env, "cwd": tmp_path, "capture_output": True, "timeout": 120}
    done = subprocess.run([sys.executable, "-m", "scratchfs", "spill", "--root", str(tmp_path / "root"), "--run", "r",
                           "--agent", "a", "--tool", "t"], input=content, check=True, **run)
    lines = done.stderr.decode().splitlines()
    if len(lines) == 1:
        assert lines[0].startswith(SAID), lines
        return json.loads(done.stdout), [lines[0].removeprefix(SAID)], run
    assert not lines or (lines[0] == SAID_ONCE and not any(line.startswith("scratchfs:") for line in lines[1:]))
    return json.loads(done.stdout), lines[1:], run


def test_several_calls_are_introduced_once_each_command_a_line_of_its_own(tmp_path):
    # shellagent1: "scratchfs: the note's call as a command: " stood before each of a stub's 4 to 6 commands
    # (41 bytes each, 200 of a 2.3 KB reply); said once now, every line below it pastes whole
    lines = [str(i) * 79 for i in range(900)]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "scratchfs", "spill", "--root", str(tmp_path / "root"), "--run", "r",
                           "--agent", "a"], input="\n".join(lines).encode(), check=True, capture_output=True,
                          env=env, cwd=tmp_path, timeout=120)
    said = done.stderr.decode().splitlines()
    assert said[0] == SAID_ONCE and len(said) >= 4 and done.stderr.decode().count("the note's call") == 1
    handle = json.loads(done.stdout)["handle"]
    assert all(line.startswith(f"{sys.executable} -m scratchfs read-handle {handle} --") for line in said[1:])
    last = [line for line in said if " --line -" in line]
    tail = subprocess.run(["/bin/sh", "-c", last[0]], check=True, capture_output=True, env=env, cwd=tmp_path,
                          timeout=120)
    assert tail.stdout.decode().splitlines()[-1] == lines[-1]


def test_each_call_of_a_stubs_note_is_printed_as_a_command_that_makes_it(tmp_path):
    document = {"639-3": [{"alpha_3": f"a{i:04}", "name": f"language {i}"} for i in range(3000)]}
    stub, commands, run = _spill(tmp_path, json.dumps(document, indent=2).encode())
    calls = [parse_call(text) for text in stub["note"].split("Next: ", 1)[1].rstrip(".").split(" | ")]
    assert calls[0] == ("read_handle", {"handle": stub["handle"], "jq": '."639-3"[0]'})
    assert len(commands) == len(calls) >= 3
    assert commands[0].endswith(f" read-handle {stub['handle']} --jq '.\"639-3\"[0]' --root {tmp_path / 'root'} "
                                "--run r --agent a")
    first = json.loads(subprocess.run(["/bin/sh", "-c", commands[0]], check=True, **run).stdout)
    assert first["results"] == [{"alpha_3": "a0000", "name": "language 0"}]
    for command in commands[1:]:  # (pasted as printed, in a shell whose environment names no store)
        if "REGEX" not in command:
            assert subprocess.run(["/bin/sh", "-c", command], check=True, **run).stdout


def test_a_stub_whose_preview_shows_it_all_prints_no_command(tmp_path):
    stub, commands, _ = _spill(tmp_path, b"a\nb\n")
    assert stub["note"].endswith("the preview shows all of it.") and commands == []


def test_calls_in_reads_each_call_whole_and_no_call_inside_a_string():
    text = ('Next: read_handle(handle="h_x", pattern="a | read_handle(b) \\" )") | '
            'read_handle(handle="h_x", columns=["x)", "y"], slurp=True) | read_handle(handle="h_x", line= | .')
    assert calls_in(text) == [("read_handle", {"handle": "h_x", "pattern": 'a | read_handle(b) " )'}),
                              ("read_handle", {"handle": "h_x", "columns": ["x)", "y"], "slurp": True})]
    assert calls_in("no call here; my_read_handle(x=1)") == []

