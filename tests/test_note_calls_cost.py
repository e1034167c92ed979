"""Every call a stub's note names, run as written, gives a reply within the reply budget and no error (its
placeholders aside: ``jq="JQ"``, ``pattern="REGEX"``, ``match="TEXT"``, ``KEY``, the model's own to write); a JSON
document's first jq read costs little, and an HTML page's reads are of its text, not its bytes (modelfollow1: ``pip
inspect``'s ``jq=".installed[0]"`` gave one package's README, 3,050 bytes; a page's bare ``read_handle(handle=H)``
its ``<head>`` markup and scripts, 4,472 to 4,518 bytes)."""

from __future__ import annotations

import json
import re

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_text
from scratchfs.foundation.call_text import parse_call

from .conftest import FIXTURES

_CALL_RE = re.compile(r'read_handle\((?:[^()"]|"(?:[^"\\]|\\.)*")*\)')
_PLACEHOLDER_RE = re.compile(r'="(?:JQ|REGEX|TEXT|KEY)"|\.KEY\b')
REPLY_BUDGET = 8192  # (the store's default: each reply's JSON bytes)
JQ_BUDGET = 2048  # a note's jq read: a look at one item, not pages of it
TOOLS = sorted((FIXTURES / "tools").iterdir())


def note_calls(scope, data: bytes, tool: str | None = None) -> list[tuple[str, int]]:
    """Each call the stub of ``data`` names (placeholders left out) and the bytes of its reply as the model gets it."""
    stub = scope.spill(data, source_tool=tool)
    tools = ScratchTools(scope)
    sizes = []
    for call in _CALL_RE.findall(stub.note):
        if _PLACEHOLDER_RE.search(call):
            continue
        name, arguments = parse_call(call)
        sizes.append((call, len(reply_text(tools.call(name, arguments)).encode())))
    return sizes


@pytest.mark.parametrize("path", TOOLS, ids=[path.name for path in TOOLS])
def test_every_call_a_stub_names_replies_within_the_budget(scope, path):
    for call, size in note_calls(scope, path.read_bytes()):  # (an error raises: ScratchTools.call)
        assert size <= REPLY_BUDGET, (call, size)
        if "jq=" in call and ":][]" not in call:  # (an array's items after the preview: a page, read on)
            assert size <= JQ_BUDGET, (call, size)


def test_a_json_documents_first_jq_read_of_large_items_cuts_their_long_strings(scope):
    data = (FIXTURES / "tools" / "pip-inspect-14-installed.json").read_bytes()
    calls = note_calls(scope, data)
    call, size = calls[0]
    assert '.installed[0] | (.. | strings | select(length > 80)) |= .[:80] + \\"…\\"' in call
    assert size < 1700  # (the whole item: 3,050 bytes, its README in "description")
    reply = ScratchTools(scope).call(*parse_call(call))
    assert reply["results"][0]["metadata"]["name"] == "execnet"
    assert reply["results"][0]["metadata"]["description"].endswith("…")


@pytest.mark.parametrize("name", ["browser-rust-book.html", "tools/pydoc-typing.html", "tools/pydoc-json-decoder.html"])
def test_an_html_pages_note_reads_its_text_or_its_elements_never_its_bytes_from_the_start(scope, name):
    calls = note_calls(scope, (FIXTURES / name).read_bytes(), "browser.get")
    assert calls and all('view="text"' in call or "select=" in call for call, _ in calls), calls
    if name == "browser-rust-book.html":
        assert calls[0][0].endswith('select="main")')  # (its main content: the preview's start, read on)
        assert calls[2][0].endswith('select="h1, h2")') and calls[2][1] < 2600  # (80 headings' text)


@pytest.mark.parametrize("copies", [1, 10])  # (whole in the sample: parsed; 600 KB, past it: its top level streamed)
def test_a_top_level_arrays_first_read_of_large_items_cuts_their_long_strings(scope, copies):
    """``pip inspect | jq .installed`` (modeltask8): the note's ``jq=".[0]"`` gave the first package's README whole,
    3,041 bytes of the real 1.9 MB array, as ``.installed[0]`` did before modelfollow1."""
    items = json.loads((FIXTURES / "tools" / "pip-inspect-installed-array.json").read_bytes()) * copies
    calls = note_calls(scope, json.dumps(items, indent=2, ensure_ascii=False).encode())
    call, size = calls[0]
    assert 'jq=".[0] | (.. | strings | select(length > 80)) |= .[:80] + \\"…\\""' in call
    assert size < 1700  # (the whole item: 3,024 bytes)
    reply = ScratchTools(scope).call(*parse_call(call))
    assert reply["results"][0]["metadata"]["name"] == "execnet"
    assert reply["results"][0]["metadata"]["description"].endswith("…")


def test_a_top_level_arrays_small_items_are_read_whole(scope):
    items = [{"name": item["metadata"]["name"], "version": item["metadata"]["version"]} for item in json.loads(
        (FIXTURES / "tools" / "pip-inspect-installed-array.json").read_bytes())] * 40
    calls = note_calls(scope, json.dumps(items, indent=2).encode())
    assert any(call.endswith(']")') for call, _ in calls) and not any("strings" in call for call, _ in calls), calls
