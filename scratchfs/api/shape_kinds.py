"""Kinds of text told by their lines, for :mod:`scratchfs.api.shape`, tried in this order on a text that is none of
the structured kinds (JSON, HTML, XML) nor terminal output: ``git blame``'s output (:mod:`~scratchfs.api.shape_blame`,
first: its first line alone tells it), an SQL dump (:mod:`~scratchfs.api.shape_sqldump`), the C preprocessor's output
(:mod:`~scratchfs.api.shape_cpp`), a test run's output
(:mod:`~scratchfs.api.shape_testrun`), a compiler's or linter's diagnostics (:mod:`~scratchfs.api.shape_diagnostics`),
a unified diff (:mod:`~scratchfs.api.shape_diff`), a ``git log`` without patches
(:mod:`~scratchfs.api.shape_gitlog`), a man page or pydoc's documentation (:mod:`~scratchfs.api.shape_manual`),
``objdump -d``'s disassembly (:mod:`~scratchfs.api.shape_disasm`), certificates dumped as text by OpenSSL
(:mod:`~scratchfs.api.shape_certs`), a diffstat (:mod:`~scratchfs.api.shape_diffstat`), ``python -X importtime``
output (:mod:`~scratchfs.api.shape_importtime`), ``strace`` output (:mod:`~scratchfs.api.shape_strace`), YAML
(:mod:`~scratchfs.api.shape_yaml`; before Markdown, whose headings its ``#`` comments would be), Markdown
(:mod:`~scratchfs.api.shape_markdown`), a file listing (:mod:`~scratchfs.api.shape_listing`), base64 text or
minified JavaScript (:mod:`~scratchfs.api.shape_encoded`). Each names the parts of
the text with the line each starts at, for a ``line=N`` read; each gates on a scan or two of a byte before reading
more (about 11 us together on 4 KiB that is none of them: ``python bench/text_kinds.py``). The diff, YAML,
Markdown and listing kinds then read at most the sample's first
:data:`~scratchfs.api.shape_words.MOST_LINES` lines (:func:`~scratchfs.api.shape_words.within_lines`): a sample of
more -- 512 KiB of short lines, ``#`` or ``- `` or a diff of thousands of one-line files -- is told from those, its
shape saying how much of the content that is (``in the first 120 KiB of 512 KiB``), as it says so of a content larger
than the sample; the test run, diagnostics, git log and manual kinds count their parts over the whole sample with
one ``findall`` each (:mod:`~scratchfs.api.shape_parts`). Terminal output whose only controls are colour
sequences is told as these kinds from its text without them (:func:`coloured_kind`), its shape saying so."""

from __future__ import annotations

from scratchfs.api.shape_blame import blame_shape
from scratchfs.api.shape_certs import certs_shape
from scratchfs.api.shape_cpp import cpp_shape
from scratchfs.api.shape_diagnostics import diagnostics_shape
from scratchfs.api.shape_diff import diff_shape
from scratchfs.api.shape_diffstat import diffstat_shape
from scratchfs.api.shape_disasm import disasm_shape
from scratchfs.api.shape_encoded import encoded_shape
from scratchfs.api.shape_gitlog import git_log_shape
from scratchfs.api.shape_importtime import importtime_shape
from scratchfs.api.shape_listing import listing_shape
from scratchfs.api.shape_manual import manual_shape
from scratchfs.api.shape_markdown import markdown_shape
from scratchfs.api.shape_sqldump import sqldump_shape
from scratchfs.api.shape_strace import strace_shape
from scratchfs.api.shape_terminal import COLOURED
from scratchfs.api.shape_testrun import runner_shape
from scratchfs.api.shape_words import clip, plural, shape_limit, within
from scratchfs.api.shape_yaml import yaml_shape

__all__ = ["KINDS", "coloured_head", "coloured_kind", "told_by_lines"]

KINDS = (blame_shape, sqldump_shape, cpp_shape, runner_shape, diagnostics_shape, diff_shape, git_log_shape,
         manual_shape, disasm_shape, certs_shape, diffstat_shape, importtime_shape, strace_shape, yaml_shape,
         markdown_shape, listing_shape, encoded_shape)
"""The kinds, in the order they are tried (each ``(sample, lines, complete, scope, size) -> shape text or None``)."""


def told_by_lines(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of the first kind that tells ``sample`` (a content's first bytes; ``complete``: all of it;
    ``lines``: the whole content's line count; ``scope``: what to add when the sample is not all of it; ``size``:
    the whole content's bytes, ``None``: the sample's), else ``None``. Never raises."""
    for told in KINDS:
        shape = told(sample, lines, complete, scope, size)
        if shape is not None:
            return shape
    return None


def coloured_kind(sample: bytes, lines: int, complete: bool, scope: str, size: int | None,
                  plain: bytes | None) -> str | None:
    """The shape of the first kind that tells ``sample`` (terminal output; the arguments as :func:`told_by_lines`
    takes them) with its colours removed, when colour sequences are all the controls it holds
    (:func:`~scratchfs.api.shape_terminal.colours_removed`: ``pytest --color=yes``, ``cargo --color always``,
    ``git log --color``, gcc's ``-fdiagnostics-color``, ``ls -R --color``), saying so before it -- at its start,
    where no word is the content's (:func:`~scratchfs.api.shape_terminal.coloured` reads it there):
    ``"coloured (422 escape sequences; view="text" shows it without them): test run (pytest), 104 lines: ..."``.
    Its line numbers are the stored output's (no newline is removed). ``None`` for other terminal output (progress
    bars, cursor moves, overstrikes) and for coloured text of none of the kinds. ``plain``: the sample without its
    colours, ``colours_removed(sample, complete)`` (which the caller has made: ``None``, other controls too). Never
    raises."""
    if plain is None:
        return None
    head = coloured_head(sample)  # (the words the reads look for at its start: shape_terminal.coloured); the kind
    with within(shape_limit() - len(head)):  # is written to fit beside them, "… N more" said (cutting it afterwards
        rest = told_by_lines(plain, lines, complete, scope, len(plain) if complete else size)  # lost that)
    if rest is None:
        return None
    return head + clip(rest, shape_limit() - len(head))  # (every kind fits: clip is the guard of one that not)


def coloured_head(sample: bytes) -> str:
    """The words that start the shape of a kind of text told with its colours removed, counting the escape sequences
    of ``sample`` (its stored bytes): ``"coloured (422 escape sequences; view="text" shows it without them): "``
    (:data:`~scratchfs.api.shape_terminal.COLOURED`, read back by :func:`~scratchfs.api.shape_terminal.coloured`)."""
    escapes = sample.count(b"\x1b[")
    return f"coloured ({plural(escapes, 'escape sequence')}{COLOURED}"
