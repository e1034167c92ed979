"""What the diagnostics kinds new in session 24 cost on 512 KiB of the shortest lines each counts (helper hostile24):
GitHub annotations of no file (``::error::``), GNU diagnostics of one-letter paths, rustc's short format. Each
match's severity was told by a Python call (two a match: error, then warning), 262,000 calls over 52,000
``::error::`` lines: 43 ms a describe, 16 times 512 KiB of grep output's (the bound of tests/test_text_kinds_cost.py
is 10 times and 5 ms). Now the severities are counted at C speed and each distinct one told once."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from scratchfs.api.shape_parts import Parts
from tests.test_text_kinds_cost import FIXTURES, SIZE, cpu, fill

HOSTILE = {
    "GitHub annotations of no file and no message": fill(b"::error::\n"),
    "GitHub annotations of a space and a message": fill(b"::warning ::m\n"),
    "GitHub annotations with a place": fill(b"::error file=a,line=1,col=2::m\n"),
    "GNU diagnostics of the shortest": fill(b"a:1: error: \n"),
    "GNU diagnostics of errors and warnings": fill(b"a.c:1:2: error: x\nb:2: warning: y\n"),
    "rustc's short format": fill(b"src/lib.rs:1:37: error[E0308]: x\n"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_diagnostics_of_the_shortest_lines_cost_a_few_plain_texts(name):
    plain = (FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes()[:SIZE]
    assert cpu(HOSTILE[name]) < 10 * cpu(plain) + 0.005


class _Pulled:
    """A pattern that counts the matches its ``finditer`` hands out."""

    def __init__(self, pattern: re.Pattern[bytes]) -> None:
        self.pattern, self.groups, self.pulled = pattern, pattern.groups, 0

    def findall(self, *args: object) -> list:
        return self.pattern.findall(*args)

    def finditer(self, *args: object) -> Iterator[re.Match[bytes]]:
        for found in self.pattern.finditer(*args):
            self.pulled += 1
            yield found


@pytest.mark.parametrize("counted", [None, 1])
def test_the_parts_listed_end_at_the_last_one_counted_not_at_the_text_s_end(counted):
    # one error, then 100,000 warnings: listing the error scanned all the warnings for another one (a GitHub
    # annotation's error over 150 long warning lines: 20.5 -> 10.4 ms a describe)
    text = b"\n::error::e" + b"\n::warning::w" * 100_000
    parts = Parts(_Pulled(re.compile(rb"\n::(error|warning)::")), text, keep=lambda severity: severity == b"error",
                  counted=counted)
    assert len(parts) == 1 and list(parts) == [(0, b"error")]
    assert parts.pattern.pulled == 1
