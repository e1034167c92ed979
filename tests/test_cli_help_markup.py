"""Each command's --help is its docstring as click prints it, to a terminal: no reST markup in it."""

from __future__ import annotations

from click.testing import CliRunner

from scratchfs.cli import main


def test_no_commands_help_shows_the_docstrings_markup():
    """A command's help is its docstring as click prints it: ls --help said "two backquotes, --run, two backquotes"
    (reST's literal, which a terminal shows as it is) where it meant the option (newuser23)."""
    markup = ("``", ":func:", ":class:", ":data:", ":meth:", ":mod:", ":attr:")
    shown = {name: CliRunner().invoke(main, [name, "--help"]).output for name in main.commands}
    assert len(shown) > 15 and all("Usage: " in text for text in shown.values())
    assert {name: [word for word in markup if word in text] for name, text in shown.items()
            if any(word in text for word in markup)} == {}
