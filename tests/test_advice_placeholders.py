"""Advice names calls that run, not placeholders (helper advice2, item 3): an offset past terminal output's
rendered view named ``raw_offset=`` with a number in words alone, no call with the handle; a handle argument too long
or strange to repeat as a key was told ``scratch_read(key=...)``, a call that cannot run. And no advice text in the
package holds an ``argument=...`` placeholder."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools

PACKAGE = Path(__file__).resolve().parent.parent / "scratchfs"


def test_an_offset_past_the_rendered_view_names_the_read_of_its_end(scratch_scope):
    raw = b"".join(b"\x1b[01;31mred %d\x1b[0m plain\x1b[K\r\n" % n for n in range(800))
    handle = scratch_scope.spill(raw, source_tool="bash").handle
    tools = ScratchTools(scratch_scope)
    with pytest.raises(InvalidArgument, match="past the end of the rendered view") as refused:
        tools.call("read_handle", {"handle": handle, "view": "text", "offset": len(raw) - 10})
    [call] = refused.value.calls
    assert dict(call.arguments) == {"handle": handle, "view": "text", "raw_offset": len(raw) - 4096}
    page = tools.call("read_handle", dict(call.arguments))
    assert page["more"] is False and page["text"].endswith("red 799 plain\n")  # (the view's end, rendered)


@pytest.mark.parametrize("value", ["n" * 100, "a\x01b", "tab\tkey"])
def test_a_handle_too_strange_to_repeat_as_a_key_names_the_listing_of_keys(scratch_scope, value):
    tools = ScratchTools(scratch_scope)
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": value})
    assert [c.verb for c in refused.value.calls] == ["scratch_list"]
    assert "key=...)" not in str(refused.value)
    scratch_scope.scratch_write("k1", b"v")
    [call] = refused.value.calls
    listed = tools.call(call.verb, dict(call.arguments))
    assert [item["key"] for item in listed["entries"]] == ["k1"]


def _advice_texts(path: Path):
    """Each string constant of ``path`` that is no docstring (f-strings' parts too), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


def test_no_advice_text_holds_an_argument_placeholder():
    placeholder = re.compile(r"\b[a-z_]+=(?:\.\.\.|…)")
    found = [f"{path.relative_to(PACKAGE)}:{line}: {text[:80]!r}" for path in sorted(PACKAGE.rglob("*.py"))
             for line, text in _advice_texts(path) if placeholder.search(text)]
    assert found == []
