"""A refusal that opens with the argument it refuses names it, on the command line, as the option the user gave:
``read-handle --line 0`` said ``invalid argument: line must be a line number from 1 ...``, ``--context 99999``
``context must be ...`` and ``--raw-offset 5`` ``raw_offset goes with --view text`` -- the model's argument names,
where the words after them were the command's already (newuser23)."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main


@pytest.mark.parametrize(("given", "said"), [
    (["--line", "0"], "--line must be a line number from 1"),
    (["--match", "x", "--context", "99999"], "--context must be an integer from 0 to 8192"),
    (["--raw-offset", "5"], "--raw-offset goes with --view text: "),
    (["--match", ""], "read-handle: --match is empty: empty text is found everywhere"),
    (["--pattern", ""], "read-handle: --pattern is empty: "),
    (["--row", "0"], "read-handle: --row: 0 is less than the minimum of 1"),  # (named by the tools' check: as it was)
])
def test_a_refusal_names_the_option_it_refuses(tmp_path, given, said):
    root = str(tmp_path / "root")
    with ScratchStore(root) as store:
        handle = store.scope("r", "a").spill(b"one line\n" * 2000).handle
    done = CliRunner().invoke(main, ["read-handle", handle, *given, "--root", root, "--run", "r", "--agent", "a"])
    assert done.exit_code == 2
    assert done.stderr.startswith(f"scratchfs: invalid argument: {said}"), done.stderr


def test_a_word_that_is_no_option_of_the_command_stays(tmp_path):
    """scratch-read has no --line: a message naming line keeps the word (as the model's tools say it); so does one
    naming a setting a variable may have given instead of its option."""
    from scratchfs.cli.advice import option_first

    with click.Context(main):
        assert option_first("line must be a number", "read-handle") == "--line must be a number"
        assert option_first("line must be a number", "scratch-read") == "line must be a number"
        assert option_first("lines past the end", "read-handle") == "lines past the end"
        assert option_first("columns must be a list", "read-handle") == "--column must be a list"
        assert option_first("blobs must be an s3:// URL", "spill") == "blobs must be an s3:// URL"
