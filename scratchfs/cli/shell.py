"""The shell commands the command line prints (a raw read's ``next:``, ``ls``'s and ``fsck``'s continuations, a
usage error's ``--help``, a message's command with its ``--root``): each names the program as it was invoked
(:func:`program`) and quotes every word for a POSIX shell by one rule (:func:`shell_word`, :func:`command_line`),
so that it pastes as it is into any of them.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Sequence

_SCRIPT_NAMES = ("scratchfs", "scratchfs.exe")


QUOTED_TEXT = r"(?<!\w)'(?:[^'\\\n]|\\.)*'(?!\w)" + r'|"(?:[^"\\\n]|\\.)*"'
"""A quoted text as ``repr`` (``'it'``; an apostrophe inside a word, ``store's``, opens none) or JSON (``"it"``)
writes it in a message: a key's, a value's, a name's words, which the CLI leaves as they are where it writes the
rest its own way (:func:`~scratchfs.cli.app.as_invoked`, :func:`~scratchfs.cli.advice.options_said`)."""


def program() -> str:
    """The program as a command the CLI writes names it, shell-quoted: ``sys.argv[0]`` as it was invoked when that is
    a path to a scratchfs script (``.venv/bin/scratchfs``, which runs with scratchfs on no PATH); the interpreter and
    its options as they were given, then ``-m scratchfs``, when the package was run as a module (``python3 -m
    scratchfs``: the bare ``scratchfs`` it wrote was on no PATH; :func:`as_module`); else ``scratchfs`` (found on
    PATH)."""
    invoked = sys.argv[0] if sys.argv else ""
    path_like = os.sep in invoked or bool(os.altsep and os.altsep in invoked)
    if path_like and os.path.basename(invoked) in _SCRIPT_NAMES:  # (a name that ends in a newline is none of them)
        return shell_word(invoked)
    if os.path.basename(invoked) == "__main__.py" and os.path.basename(os.path.dirname(invoked)) == "scratchfs":
        return as_module()
    return "scratchfs"


def as_module() -> str:
    """``python -m scratchfs`` as it was invoked (``sys.orig_argv`` up to ``-m scratchfs``, interpreter options
    included), each word shell-quoted; the interpreter by its full path (``sys.executable``) when the name it was
    invoked by would not run it again (a bare name that is on no PATH, or another interpreter there)."""
    orig = list(getattr(sys, "orig_argv", []) or [])
    tail = len(sys.argv) - 1
    head = orig[: len(orig) - tail] if 0 <= tail < len(orig) else []
    exe = sys.executable if sys.executable and not sys.executable.endswith("\n") else ""  # (a word ending in a
    if (head[-2:] != ["-m", "scratchfs"] and head[-1:] != ["-mscratchfs"]) or any(  # newline: no prefix writes it)
            word.endswith("\n") for word in head):
        head = [exe or "python3", "-m", "scratchfs"]
    first = head[0]
    path_like = os.sep in first or bool(os.altsep and os.altsep in first)
    if not path_like:
        found = shutil.which(first)
        if found is None or not exe or not _same_file(found, exe):
            head[0] = exe or first
    return " ".join(shell_word(word) for word in head)


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


_NOT_PRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")  # what one_line would escape
_PLAIN_BYTES = frozenset(range(0x20, 0x7F)) - {ord("'"), ord("\\")}


def shell_word(word: str) -> str:
    """``word`` (a name as the OS gave it: undecodable bytes as surrogate escapes) quoted for a POSIX shell, on one
    line: ``shlex.quote`` when it is printable, else as the output of ``printf`` (``"$(printf 'a\\012b\\377')"``,
    every other byte an octal escape), which every POSIX shell reads (``dash``, Debian's and Ubuntu's ``sh``, reads
    no ANSI-C ``$'...'``: pasted, a needle ``end\\nline`` was searched for as ``$end\\x0aline``, silently no match).
    ``shlex.quote`` put a newline inside quotes, which the one-line stderr then showed as ``\\n`` and a non-UTF-8
    byte as ``\\udcff``: pasted, another path (atk28). A word that is not printable and ends in a newline, which a
    command substitution drops, is no one word of any POSIX shell: :func:`command_line` sets it first. Raises
    ValueError for one (:func:`~scratchfs.cli.advice.options_said` gives one and keeps the model's words then)."""
    if not _NOT_PRINTABLE.search(word):
        return shlex.quote(word)
    raw = os.fsencode(word)
    if raw.endswith(b"\n"):
        raise ValueError("a word ending in a newline is written by command_line, set first")
    return f'"$(printf {_printf_format(raw)})"'


def _printf_format(raw: bytes) -> str:
    """``raw`` as a single-quoted ``printf`` format that writes it: printable ASCII as it is (``%`` as ``%%``), every
    other byte as a three-digit octal escape (``'`` as ``\\047``, ``\\`` as ``\\134``; a ``-`` first too, which
    printf would take for an option: a key ``--match=-...``)."""
    return "'" + "".join(chr(b) if b in _PLAIN_BYTES and b != ord("%") and (i or b != ord("-")) else "%%" if
                         b == ord("%") else f"\\{b:03o}" for i, b in enumerate(raw)) + "'"


def shell_command(words: Sequence[str], local: bool) -> str:
    """The command line ``program() words...`` (:func:`command_line`): a command that continues one the CLI ran,
    whose words name the store's ``--root`` when it is ``local``, so that it reads the same store whatever the
    environment it is pasted in. A fleet's store (not ``local``) is named by ``--index`` and ``--blobs`` (or
    ``$SCRATCHFS_INDEX`` and ``$SCRATCHFS_BLOBS``), which the command is said to need instead: not printed, they may
    hold a password."""
    command = command_line(program(), words)
    return command if local else f"{command} {FLEET_STORE_NOTE}"


def command_line(head: str, words: Sequence[str]) -> str:
    """``head`` (shell text: the program and what follows it, quoted already) then ``words``, each quoted
    (:func:`shell_word`); a word that is not printable and ends in a newline (which a command substitution drops) is
    set first, with a ``.`` after it that its use takes off, the command run in a subshell: ``(w1=$(printf
    'end\\012.'); scratchfs read-handle ... --match "${w1%.}" ...)`` -- the one rule of every command the CLI
    writes, a message's ``--root`` too."""
    setting: list[str] = []
    quoted: list[str] = []
    for word in words:
        if word.endswith("\n") and _NOT_PRINTABLE.search(word):
            name = f"w{len(setting) + 1}"
            setting.append(f"{name}=$(printf {_printf_format(os.fsencode(word) + b'.')})")
            quoted.append(f'"${{{name}%.}}"')
        else:
            quoted.append(shell_word(word))
    command = " ".join([head, *quoted])
    return f"({'; '.join(setting)}; {command})" if setting else command


FLEET_STORE_NOTE = "(with this store's --index and --blobs, or $SCRATCHFS_INDEX and $SCRATCHFS_BLOBS)"
"""What a printed command that continues one on a fleet's store needs besides its words (:func:`shell_command`)."""


__all__ = ["FLEET_STORE_NOTE", "QUOTED_TEXT", "as_module", "command_line", "program", "shell_command", "shell_word"]
