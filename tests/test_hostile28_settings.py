"""A settings stub's key search (helper hostile28): the note says ``pattern="^[ \\t]*KEY\\s*[=:]"`` finds a key, and
run as written its refusal names an example call. Three ways they were wrong:

1. an ``.ini`` whose keys are indented by tabs (``[section]`` then ``<tab>key = value``, as git's own config is
   written): the stub's ``^ *KEY`` found none of its keys.
2. a shape whose first item is a ``[section]`` (an ``.ini``'s keys are grouped by section) named no key, and the
   example was ``^ *Name\\s*[=:]``, which finds nothing in a dump that has no ``Name`` key.
3. a key holding parentheses (``Foo(bar)``, a key of the ``:`` form) was not read from the shape: the example
   again ``Name``, finding nothing.
Now the pattern allows tabs before the key, and the example finds the first key the shape names (its parentheses
escaped), or any key when the shape names none."""

from __future__ import annotations

import re

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape_settings import FIND_KEY, SETTINGS_SHAPE
from scratchfs.foundation.call_text import parse_call


def _ini(indent: str) -> bytes:
    return "".join(f"[section{s}]\n" + "".join(f"{indent}key{s}x{i} = value {i}\n" for i in range(40))
                   for s in range(60)).encode()


_PARENS = "".join(f"Foo(bar{i}): {i}\n" for i in range(120)).encode() * 10


def _example(scratch_scope, data: bytes) -> tuple[ScratchTools, dict, dict]:
    stub = scratch_scope.spill(data, source_tool="bash")
    assert stub.shape.startswith(SETTINGS_SHAPE), stub.shape
    written = next(call for call in stub.note.split("Next: ", 1)[1].rstrip(".").split(" | ") if "KEY" in call)
    tool, arguments = parse_call(written)
    assert arguments["pattern"] == FIND_KEY
    tools = ScratchTools(scratch_scope)
    reply = tools.call(tool, arguments)
    assert reply["windows"] == [] and "is the stub's placeholder" in reply["note"], reply
    (example,) = reply["calls"]
    return tools, arguments, example


@pytest.mark.parametrize("indent", ["\t", "    ", "  \t"])
def test_the_key_pattern_finds_a_key_indented_by_tabs_or_spaces(scratch_scope, indent):
    tools, arguments, _example_call = _example(scratch_scope, _ini(indent))
    found = tools.call("read_handle", {**arguments, "pattern": FIND_KEY.replace("KEY", "key7x3")})
    assert [w["line"] for w in found["windows"]] == [7 * 41 + 5], found


@pytest.mark.parametrize("data", [_ini("\t"), _ini("    "), _ini(""), _PARENS])
def test_the_placeholder_s_example_finds_a_key(scratch_scope, data):
    tools, _arguments, example = _example(scratch_scope, data)
    found = tools.call(example["tool"], example["arguments"])
    assert found["windows"], (example, found)
    first = found["windows"][0]
    line = data.decode().split("\n")[first["line"] - 1]
    assert re.match(r"[ \t]*(?:key\d+x\d+ = |Foo\(bar0\): )", line), (example, line)
