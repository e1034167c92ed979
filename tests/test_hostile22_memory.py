"""A row of millions of pipes (helper hostile22): a rows read split a line into all its cells before it saw it held
more than the header's, to give it whole -- a 15 MiB line of ``|xy`` held 466 MB at once (5 million strings and
their list); a line that cannot be the header's cells is not split now."""

from __future__ import annotations

import re
import tracemalloc
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure.pipe_lines import PIPED, pipe_cells
from scratchfs.engine.structure.table import UNSPLIT_KEY

HEADS = {"markdown": (b"| a | b |\n|---|---|\n", b"|xy"), "psql": (b" a | b \n---+---\n", b"|xy"),
          "lines": (" a \u2502 b \n\u2500\u2500\u2500\u253c\u2500\u2500\u2500\n".encode(), "\u2502xy".encode())}


@pytest.mark.parametrize("form", sorted(HEADS))
def test_a_row_of_a_million_pipes_is_given_whole_without_splitting_it(scratch_scope, form):
    head, unit = HEADS[form]
    line = b"x" + unit * (4 * 1024 * 1024 // len(unit))
    handle = scratch_scope.spill(head + line + b"\n 3 | 4\n", source_tool="t").handle
    tools = ScratchTools(scratch_scope)
    tracemalloc.start()
    try:
        reply = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 5, "budget": 4096})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert reply["part"].startswith(f'{{"{UNSPLIT_KEY}":"x{unit.decode()[:3]}')
    assert peak < 12 * len(line), peak


_LINED = ("lines", "duckdb", "psql-lines")


def _pieces(line: str, form: str, cuts: tuple[int, ...] | None = None) -> list[str]:
    if cuts is not None:
        pieces = [line[a + 1 : b] for a, b in pairwise((-1, *cuts, len(line)))]
    elif form in _LINED:
        pieces = re.split("[\u2502\u2503\u2551]", line)
    else:
        pieces = re.split(r"(?<!\\)\|", line) if form == "markdown" else line.split("|")
    if form not in ("psql", "psql-lines") and len(pieces) > 1 and not pieces[0].strip(" \t"):
        pieces = pieces[1:]
    if form not in ("psql", "psql-lines") and len(pieces) > 1 and not pieces[-1].strip(" \t") and line[-1:] in (
            "|", "\u2502", "\u2503", "\u2551"):
        pieces = pieces[:-1]
    return pieces


def _split_cells(line: str, form: str, count: int, pipes: tuple[int, ...]) -> list[str] | None:
    """pipe_cells as it was, every line split first (the module's rules, written again)."""
    body = line.rstrip(" \r\n")
    pieces = _pieces(body, form)
    bars = "\u2502\u2503\u2551" if form in _LINED else "|"
    padded = bool(pipes) and pipes[-1] < len(body) and all(body[at] in bars for at in pipes) and (
        form in ("psql", "psql-lines") or pipes[-1] == len(body) - 1)
    if len(pieces) > count and padded:
        pieces = _pieces(body, form, pipes)
    if len(pieces) > count:
        return None
    cells = [piece.strip(" \t") for piece in pieces]
    return [c.replace("\\|", "|") if form == "markdown" else c for c in cells] + [""] * (count - len(pieces))


@settings(max_examples=300, deadline=None)
@given(form=st.sampled_from(PIPED), line=st.text(st.sampled_from("|\\│┃║ x\t\r-"), max_size=30),
       count=st.integers(1, 6), pipes=st.lists(st.integers(0, 30), max_size=6, unique=True).map(sorted))
def test_the_cells_are_those_a_split_of_every_line_gave(form, line, count, pipes):
    assert pipe_cells(line, form, count, tuple(pipes)) == _split_cells(line, form, count, tuple(pipes))
