"""hostile51: a UTF-16 read from the end (``line=-1``) whose last line is under the read cap but whose reply passes
the budget (characters JSON writes as ``\\u0a00``, six bytes for two) dropped its lines through
``LineSlice.after_lines(0)``, which took the data's last newline as its first line's end: a line with no newline
raised IndexError (a traceback), one ending in a newline replied ``"data": ""`` and no next_call -- the line lost.
It now shows the line's last bytes that fit, and its next_call reads the bytes before them, as a UTF-8 read does."""

from __future__ import annotations

import pytest

from scratchfs.api.contract import ScratchTools


@pytest.mark.parametrize("text", ["\u0a00" * 3000, "\u0a00" * 2999 + "\n", "a\n" + "\u0a00" * 2999 + "\n",
                                  "\x01" * 3000 + "\n"])
def test_a_last_line_over_the_budget_shows_its_end(scratch_scope, text):
    tools = ScratchTools(scratch_scope)
    raw = text.encode("utf-16-le")
    handle = scratch_scope.spill(raw, source_tool="t").handle
    got = tools.read_handle(handle, line=-1, encoding="utf-16le")
    assert got["data"] and text.endswith(got["data"])
    assert got["offset"] == len(raw) - 2 * len(got["data"]) and got["offset"] > text.rfind("\n", 0, -1) * 2
    assert f'end={got["offset"]}' in got["next_call"]
    back = tools.read_handle(handle, line=-1, encoding="utf-16le", end=got["offset"])
    assert text[: got["offset"] // 2].endswith(back["data"]) and back["data"]
