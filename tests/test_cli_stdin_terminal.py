"""A command that reads its content from standard input (``spill``, ``scratch-write``) run with stdin a terminal
waited silently for what a newcomer never knew to type (leftovers5): it now says on stderr, before it reads, that it
reads standard input, how to end it (Ctrl-D) and what to give instead; it still reads what is typed. A pipe or a
file is read without a word."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main
from tests.cli_run import REPO, on_a_terminal


@pytest.mark.parametrize(("argv", "name"), [
    (["spill", "--run", "r", "--agent", "a"], "spill"),
    (["scratch-write", "--run", "r", "--agent", "a", "notes"], "scratch-write"),
])
def test_a_terminal_is_told_what_is_read_and_how_to_end_it(tmp_path, argv, name):
    code, out, err = on_a_terminal(tmp_path / "root", b"typed line\n\x04", *argv)
    assert code == 0, err
    first = err.splitlines()[0]
    assert first.startswith(f"scratchfs: {name} reads its content from standard input, a terminal here: "), err
    assert "Ctrl-D" in first and f"COMMAND | scratchfs {name} ..." in first
    assert json.loads(out)["size"] == len(b"typed line\n")  # (still read: what was typed is what was stored)


def test_a_pipe_is_read_without_a_word(tmp_path):
    result = CliRunner().invoke(main, ["spill", "--run", "r", "--agent", "a"], input=b"piped\n",
                                env={"SCRATCHFS_ROOT": str(tmp_path / "root")})
    assert result.exit_code == 0, result.output
    assert "standard input" not in result.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's terminal line of 4,095 bytes")
@pytest.mark.parametrize("argv", [["spill", "--run", "r", "--agent", "a"],
                                  ["spill", "--run", "r", "--agent", "a", "--threshold", "64KiB"],
                                  ["scratch-write", "--run", "r", "--agent", "a", "notes"]])
def test_a_pasted_line_longer_than_a_terminal_line_is_refused_not_cut(tmp_path, argv):
    """hostile45: a line of 5,000 bytes pasted into ``scratchfs spill`` on a terminal was stored as its first 4,095
    bytes and a newline, exit 0: the terminal (canonical mode) keeps at most 4,095 bytes of a line and drops the
    rest. Such a line is refused now, nothing stored, and the error says to pipe it or name a file."""
    real = (REPO / "fixtures" / "workspace-grep-stdlib-defs.txt").read_bytes()
    line = real.replace(b"\n", b" ")[:5000] + b"\n"  # (a real output as one long line: minified, say)
    code, out, err = on_a_terminal(tmp_path / "root", b"first\n" + line + b"\x04", *argv)
    assert code == 2, (code, out, err)
    assert out == "" and "4,095 bytes" in err and "pipe" in err and "Traceback" not in err, err
    with ScratchStore(tmp_path / "root") as store:
        assert list(store.list_entries_for_run("r")) == []


def test_a_line_of_the_most_a_terminal_keeps_is_read_whole(tmp_path):
    typed = b"x" * 4094 + b"\n" + b"last line\n"
    code, out, err = on_a_terminal(tmp_path / "root", typed + b"\x04", "spill", "--run", "r", "--agent", "a")
    assert code == 0, err
    assert json.loads(out)["size"] == len(typed)
