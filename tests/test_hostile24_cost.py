"""What the diagnostics kinds new in session 24 cost on 512 KiB of the shortest lines each counts (helper hostile24):
GitHub annotations of no file (``::error::``), GNU diagnostics of one-letter paths, rustc's short format. Each
match's severity was told by a Python call (two a match: error, then warning), 262,000 calls over 52,000
``::error::`` lines: 43 ms a describe, 16 times 512 KiB of grep output's (the bound of tests/test_text_kinds_cost.py
is 10 times and 5 ms). Now the severities are counted at C speed and each distinct one told once."""

from __future__ import annotations

import pytest

from tests.test_text_kinds_cost import FIXTURES, SIZE, cpu, fill

HOSTILE = {
    "GitHub annotations of no file and no message": fill(b"::error::\n"),
    "GitHub annotations of a space and a message": fill(b"::warning ::m\n"),
    "GitHub annotations with a place": fill(b"::error file=a,line=1,col=2::m\n"),
    "GNU diagnostics of the shortest": fill(b"a:1: error: \n"),
    "GNU diagnostics of errors and warnings": fill(b"a.c:1:2: error: x\nb:2: warning: y\n"),
    "rustc's short format": fill(b"src/lib.rs:1:37: error[E0308]: x\n"),
}


@pytest.mark.alone
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_diagnostics_of_the_shortest_lines_cost_a_few_plain_texts(name):
    plain = (FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes()[:SIZE]
    assert cpu(HOSTILE[name]) < 10 * cpu(plain) + 0.005
