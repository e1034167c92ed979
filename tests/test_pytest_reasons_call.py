"""A ``pytest -v`` run's stub lists its failures, each at its line, but the one call that gives every failure's
reason at once is a search of pytest's ``E   `` lines, ``pattern="^E ", context="line"`` (about 1.3 KB for 5
failures, against a read of some 60 lines, 3 KB, a failure): where the run holds such lines its note names that
call, in place of the placeholder search (helper leftovers8, a real ``pytest -v`` run with 8 failures)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.limits import MAX_STUB_BYTES

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
REASONS = 'pattern="^E ", context="line")'


def _calls(note: str) -> list[str]:
    return note[note.index("Next: ") + 6 :].rstrip(".").split(" | ")


def test_a_pytest_run_with_e_lines_names_the_search_that_gives_every_failures_reason(scope):
    data = (TOOLS / "pytest-v-failures.txt").read_bytes()
    stub = scope.spill(data, source_tool="pytest -v").to_dict()
    assert stub["shape"].startswith("test run (pytest)") and "8 failures" in stub["shape"]
    assert len(json.dumps(stub, ensure_ascii=False, separators=(",", ":")).encode()) <= MAX_STUB_BYTES
    call = next(call for call in _calls(stub["note"]) if REASONS in call)
    tools = ScratchTools(scope)
    windows, reply = [], tools.call(*parse_call(call))
    while True:  # (every page: the reasons of all 8 failures, each window one E line)
        windows += reply["windows"]
        if reply["next_call"] is None:
            break
        reply = tools.call(*parse_call(reply["next_call"]))
    lines = data.decode().split("\n")
    assert [window["line"] for window in windows] == [at + 1 for at, line in enumerate(lines) if line.startswith("E ")]
    failures = [int(line) for line in re.findall(r"\(line (\d+)\)", stub["shape"].split("8 failures: ")[1])]
    owners = {max(start for start in failures if start < window["line"]) for window in windows}
    assert owners == set(failures)  # (each failure's reason among them)
    assert "REGEX" not in stub["note"]


def test_a_pytest_run_without_e_lines_keeps_the_placeholder_search(scope):
    """``--tb=line`` writes no ``E`` line (and coloured output's are behind escapes): no such call there."""
    text = (TOOLS / "pytest-v-failures.txt").read_text()
    lines = [line for line in text.split("\n") if not line.startswith("E ")]
    stub = scope.spill("\n".join(lines).encode(), source_tool="pytest -v").to_dict()
    assert stub["shape"].startswith("test run (pytest)")
    assert REASONS not in stub["note"] and 'pattern="REGEX"' in stub["note"], stub["note"]
    coloured = scope.spill((TOOLS / "pytest-color-failures.txt").read_bytes(), source_tool="pytest").to_dict()
    assert REASONS not in coloured["note"]
