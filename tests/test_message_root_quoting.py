"""A message's command names the store's ``--root`` by the one quoting rule of every command the CLI writes
(replies10): a root ending in a newline stayed ANSI-C quoted there, ``--root $'/tmp/store\\x0a'``, which dash --
Debian's and Ubuntu's ``/bin/sh`` -- reads as ``$`` and a quoted text: another path. Now it is set first, as
:func:`~scratchfs.cli.shell.shell_command` sets such a word: ``(w1=$(printf '...\\012.'); ... --root "${w1%.}")``."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.cli.app import as_invoked

SHELLS = [shell for shell in ("/bin/sh", shutil.which("dash"), shutil.which("bash")) if shell]
ARGV = "printf '[%s]'"  # (prints each argument it is given, bracketed: what the command's program would get)


def _argv(command: str, shell: str) -> bytes:
    return subprocess.run([shell, "-c", command], capture_output=True, check=True, timeout=30).stdout


@pytest.mark.parametrize("shell", SHELLS)
def test_a_root_ending_in_a_newline_reaches_the_command_of_a_message_as_its_bytes(tmp_path, shell):
    root = f"{tmp_path}/store \n\udcff 'q'\n"  # (a byte that is not UTF-8, quotes, a newline inside and at its end)
    said = as_invoked("the index is damaged: run scratchfs fsck --rebuild-index", root)
    assert "$'" not in said, said  # (no ANSI-C quoting: dash reads none)
    command = said.split("run ", 1)[1].replace("scratchfs fsck", ARGV + " fsck", 1)
    assert _argv(command, shell) == b"[fsck][--rebuild-index][--root][" + os.fsencode(root) + b"]"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12), max_size=4))
def test_a_command_line_of_any_words_gives_them_back_in_sh(words):
    from scratchfs.cli.shell import command_line

    command = command_line(ARGV, ["x", *words])
    # (dash reads no ANSI-C quoting, $'...': its giving the words back is the proof; a text test for "$'" failed on
    # the word "$", rightly quoted '$')
    expected = b"".join(b"[" + word.encode("utf-8") + b"]" for word in ["x", *words])
    assert _argv(command, shutil.which("dash") or "/bin/sh") == expected


def _said_option(value: str) -> str:
    """The message ``read it with jq=VALUE instead`` as the CLI prints it (:func:`~scratchfs.cli.advice.options_said`
    in a command line's run, then the one-line stderr's escapes)."""
    import json

    import click

    from scratchfs.cli.advice import options_said
    from scratchfs.cli.app import main
    from scratchfs.foundation.text import one_line

    with click.Context(main):
        return one_line(options_said(f"read it with jq={json.dumps(value, ensure_ascii=False)} instead"))


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("value", ["keys[]", ".a |\n.b", "tab\there", "it's \"q\" $x `y` \\n %s", "-x", "\x1b[31m"])
def test_an_option_a_message_names_gives_its_value_back_when_pasted(shell, value):
    """options_said quoted a value with shlex.quote: a newline inside quotes, which the one-line stderr then wrote as
    ``\\n`` -- pasted, another filter (replies10)."""
    said = _said_option(value)
    assert said.startswith("read it with --jq ") and said.endswith(" instead"), said
    word = said.removeprefix("read it with --jq ").removesuffix(" instead")
    assert _argv(f"{ARGV} {word}", shell) == b"[" + value.encode("utf-8") + b"]"


@settings(max_examples=80, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=16))
def test_any_value_an_option_names_is_given_back_in_sh_or_left_as_the_model_wrote_it(value):
    said = _said_option(value)
    if value.endswith("\n"):  # (no one word of sh writes it: the model's words, a JSON text)
        assert said.startswith("read it with jq="), said
        return
    word = said.removeprefix("read it with --jq ").removesuffix(" instead")
    assert _argv(f"{ARGV} {word}", "/bin/sh") == b"[" + value.encode("utf-8") + b"]"
