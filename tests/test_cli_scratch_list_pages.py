"""``scratchfs scratch-list`` printed every key of a scope, however many: 3,000 notes were 1.3 MB of JSON on stdout,
which a shell-only agent's loop hands its model whole, and the ``--limit``/``cursor`` of the model's
``scratch_list`` had no option (the README: "all keys at once: no paging"), so a ``scratch_list`` ``next_call``
pasted as a command listed everything again (newuser24). ``--limit N`` prints one page and, when keys remain, one
stderr line naming the command that prints the next (``--cursor``, the tool's cursor); a pasted ``next:`` goes on."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import scratchfs
from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.cli import main

CHECKOUT = Path(scratchfs.__file__).resolve().parent.parent
FIXTURE = CHECKOUT / "fixtures" / "workspace-grep-stdlib-defs.txt"


@pytest.fixture
def root(tmp_path):
    """A store whose scope run-1/agent-1 holds 7 scratchpad values (lines of a real grep output) keyed k0..k6,
    and one keyed ``other``."""
    lines = FIXTURE.read_bytes().splitlines()[:8]
    path = tmp_path / "root"
    with ScratchStore(path) as store:
        scope = store.scope("run-1", "agent-1")
        for i, line in enumerate(lines[:7]):
            scope.scratch_write(f"k{i}", line)
        scope.scratch_write("other", lines[7])
    return path


def _invoke(root: Path, *args: str):
    return CliRunner().invoke(main, ["scratch-list", "--root", str(root), "--run", "run-1", "--agent", "agent-1",
                                     *args], catch_exceptions=False)


def _next(stderr: str) -> list[str]:
    """The argv of the one ``next:`` line of ``stderr``."""
    lines = [line for line in stderr.splitlines() if " next: " in line]
    assert len(lines) == 1, stderr
    return shlex.split(lines[0].split(" next: ", 1)[1])


def test_limit_prints_one_page_and_the_command_of_the_next(root):
    first = _invoke(root, "--prefix", "k", "--limit", "3")
    assert first.exit_code == 0, first.stderr
    assert [e["key"] for e in json.loads(first.stdout)] == ["k0", "k1", "k2"]
    argv = _next(first.stderr)
    assert first.stderr.startswith("scratchfs: 3 entries shown; next: "), first.stderr
    assert argv[1:5] == ["scratch-list", "--prefix", "k", "--limit"] and argv[5] == "3", argv
    assert argv[argv.index("--root") + 1] == str(root) and "--cursor" in argv, argv
    second = CliRunner().invoke(main, argv[1:], catch_exceptions=False)
    assert [e["key"] for e in json.loads(second.stdout)] == ["k3", "k4", "k5"]
    last = CliRunner().invoke(main, _next(second.stderr)[1:], catch_exceptions=False)
    assert [e["key"] for e in json.loads(last.stdout)] == ["k6"]
    assert last.exit_code == 0 and " next: " not in last.stderr, last.stderr


def test_no_limit_lists_every_key_and_a_limit_the_listing_fills_says_nothing_more(root):
    every = _invoke(root)
    assert [e["key"] for e in json.loads(every.stdout)] == [f"k{i}" for i in range(7)] + ["other"]
    assert every.stderr == ""
    whole = _invoke(root, "--limit", "8")
    assert json.loads(whole.stdout) == json.loads(every.stdout) and whole.stderr == ""


def test_the_model_tools_cursor_goes_on_as_cursor(root):
    """A ``scratch_list`` reply's ``next_call`` carries a cursor: the same cursor goes on on the command line."""
    with ScratchStore(root) as store:
        reply = ScratchTools(store.scope("run-1", "agent-1")).scratch_list(prefix="k", limit=2)
    assert 'cursor="' in reply["next_call"], reply
    cursor = reply["next_call"].split('cursor="', 1)[1].split('"', 1)[0]
    rest = _invoke(root, "--prefix", "k", "--cursor", cursor)
    assert [e["key"] for e in json.loads(rest.stdout)] == [f"k{i}" for i in range(2, 7)]


def test_a_bad_cursor_is_one_usage_line_naming_the_listing_from_its_start(root):
    result = _invoke(root, "--prefix", "k", "--limit", "2", "--cursor", "zzz")
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "scratch-list --prefix k --limit 2 --root" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_the_next_line_pastes_into_sh(root, tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(CHECKOUT), "HOME": str(tmp_path)}
    run = {"env": env, "cwd": tmp_path, "capture_output": True, "text": True, "timeout": 120}
    first = subprocess.run([sys.executable, "-m", "scratchfs", "scratch-list", "--root", str(root), "--run", "run-1",
                            "--agent", "agent-1", "--limit", "5"], **run)
    assert first.returncode == 0, first.stderr
    line = first.stderr.splitlines()[-1].split(" next: ", 1)[1]
    rest = subprocess.run(["sh", "-c", line], **run)
    assert rest.returncode == 0, rest.stderr
    assert [e["key"] for e in json.loads(rest.stdout)] == ["k5", "k6", "other"]
