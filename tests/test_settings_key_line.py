"""A settings stub names its key search with ``context="line"`` (helper shapes4, of what modeltask3 met acting as the
model): run with a key in place of ``KEY``, it replies with the key's line and no more -- ``net.ipv4.tcp_rmem`` of
``sysctl -a`` in about 280 bytes, where the search the note named before (the default 200 bytes a side) replied
with about 700, most of it the neighbouring keys. Checked against the plain answer: the fixture's own line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape_settings import BLOCK_READ, FIND_KEY, SETTINGS_SHAPE
from scratchfs.foundation.call_text import parse_call

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


@pytest.mark.parametrize(("name", "key"), [("sysctl-a.txt", "kernel.pid_max"), ("apt-cache-show.txt", "Homepage"),
                                           ("pip-show-v-pip.txt", "Location"), ("stat-usr-bin.txt", "Birth")])
def test_the_named_key_search_replies_with_the_key_s_lines_alone(scratch_scope, name, key):
    data = (_TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert stub.shape.startswith(SETTINGS_SHAPE)
    block = BLOCK_READ if name in ("pip-show-v-pip.txt", "apt-cache-show.txt") else ""  # (a key over indented lines)
    assert stub.shape.endswith(f'; pattern="{FIND_KEY}", context="line" finds a key, line=N reads it{block}')
    written = next(call for call in stub.note.split("Next: ", 1)[1].rstrip(".").split(" | ") if "KEY" in call)
    tool, arguments = parse_call(written)
    assert arguments == {"handle": stub.handle, "pattern": FIND_KEY, "context": "line"}, written
    arguments["pattern"] = FIND_KEY.replace("KEY", re.escape(key))
    reply = ScratchTools(scratch_scope).call(tool, arguments)
    lines = data.decode().split("\n")
    expected = [(n, line) for n, line in enumerate(lines, 1) if re.match(rf"[ \t]*{re.escape(key)}\s*[=:]", line)]
    assert expected and [(w["line"], w["data"]) for w in reply["windows"]] == expected[: len(reply["windows"])]
    assert len(reply["windows"]) == min(len(expected), 20), reply  # (a page of them: stat names Birth 12 times)
    shown = sum(len(line.encode()) for _n, line in expected[: len(reply["windows"])])
    size = len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode())
    assert size <= shown + 200 + 120 * len(reply["windows"]), (size, reply)  # (the line and its window's fields)
