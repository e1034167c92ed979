"""A settings stub's note names ``pattern="^ *KEY\\s*[=:]"``, with ``KEY`` for the model to fill in, as ``REGEX`` and
``TEXT`` are. Run as written (newuser19 followed the note of ``apt-cache show``'s stub), the search found nothing and
said only "no match in the whole content", no word of the placeholder nor of what goes in its place: now it says so,
with the call that finds the first key the shape names, which works."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape_settings import FIND_KEY, SETTINGS_SHAPE
from scratchfs.foundation.call_text import parse_call

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


@pytest.mark.parametrize(("name", "first_key"), [("apt-cache-show.txt", "Package"), ("sysctl-a.txt", None),
                                                 ("pip-show.txt", "Name")])
def test_the_key_placeholder_run_as_written_says_what_goes_in_its_place(scratch_scope, name, first_key):
    data = (_TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert stub.shape.startswith(SETTINGS_SHAPE)
    written = next(call for call in stub.note.split("Next: ", 1)[1].rstrip(".").split(" | ") if "KEY" in call)
    tool, arguments = parse_call(written)
    assert arguments["pattern"] == FIND_KEY
    reply = ScratchTools(scratch_scope).call(tool, arguments)
    assert reply["windows"] == []
    assert reply["note"].startswith(f'pattern="{FIND_KEY}" is the stub\'s placeholder: write a key\'s name in place '
                                    f'of KEY, e.g. read_handle(')
    (example,) = reply["calls"]
    found = ScratchTools(scratch_scope).call(example["tool"], example["arguments"])
    first_line = data.decode().split("\n", 1)[0]
    assert found["windows"] and found["windows"][0]["line"] == 1, example
    if first_key is not None:
        assert example["arguments"]["pattern"] == FIND_KEY.replace("KEY", first_key)
        assert first_line.startswith(f"{first_key}:")
    else:  # sysctl's keys are grouped by their first part (abi.*): the example finds a key of the group
        assert re.match(example["arguments"]["pattern"], first_line)
