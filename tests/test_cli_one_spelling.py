"""An option of two spellings (``--cursor`` and its older name ``--after``; ``--ttl`` and ``--default-ttl``) given
under both was taken from the last one, the other silently dropped (leftovers5): now one usage error naming both,
before any work."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from scratchfs.cli import main


def _run(tmp_path, *argv):
    return CliRunner().invoke(main, [*argv], env={"SCRATCHFS_ROOT": str(tmp_path / "root")})


@pytest.mark.parametrize(("argv", "both"), [
    (["ls", "--cursor", "c1", "--after", "c2"], "--cursor and --after"),
    (["ls", "--after=c2", "--cursor", "c1"], "--cursor and --after"),
    (["fsck", "--after", "c1", "--cursor", "c2"], "--cursor and --after"),
    (["scratch-list", "--run", "r", "--agent", "a", "--cursor", "c1", "--after", "c2"], "--cursor and --after"),
    (["mcp-proxy", "--ttl", "60", "--default-ttl", "90", "http://127.0.0.1:1"], "--ttl and --default-ttl"),
])
def test_two_spellings_of_one_option_are_one_usage_error(tmp_path, argv, both):
    result = _run(tmp_path, *argv)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"scratchfs: usage: {both} are one option under 2 names: give it once (as "), \
        result.stderr
    assert f"{argv[0]} --help)" in result.stderr and result.stderr.count("\n") == 1
    assert not (tmp_path / "root").exists()


def test_a_value_spelt_as_the_other_name_is_a_value(tmp_path):
    """``--cursor --after`` gives the cursor the text ``--after`` (as click parses it): not the option twice."""
    result = _run(tmp_path, "scratch-list", "--run", "r", "--agent", "a", "--cursor", "--after")
    assert "one option under" not in result.stderr, result.stderr


def test_one_spelling_given_twice_is_left_as_click_takes_it(tmp_path):
    result = _run(tmp_path, "ls", "--cursor", "c1", "--cursor", "c2")
    assert "one option under" not in result.stderr, result.stderr
