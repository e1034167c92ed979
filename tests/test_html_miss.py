"""A search of a stored HTML page that finds nothing in its source names the search of the text the page shows: the
model reads that text in the stub's preview ("café au lait"), while the source holds ``caf&eacute; <b>au</b> lait``,
so the first search misses, and a miss said nothing else (its ``next_call`` is null)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size

PAGE = Path(__file__).resolve().parent.parent / "fixtures" / "browser-rust-book.html"


def _call(note: str) -> dict:
    """The arguments of the ``read_handle(...)`` call a note ends with, as the model would pass them."""
    text = re.search(r"read_handle\((.*)\)\Z", note).group(1)
    tree = ast.parse(f"f({text})", mode="eval")
    return {k.arg: ast.literal_eval(k.value) for k in tree.body.keywords}


def _split_phrase(scope, handle: str, page: bytes) -> str:
    """A phrase of the page's text view that its source does not hold (split there by a tag or a reference)."""
    text = scope.structure.text(handle, budget=60000).text
    for line in text.splitlines():
        words = line.split()
        for i in range(len(words) - 2):
            phrase = " ".join(words[i:i + 3])
            if len(phrase) > 12 and phrase.encode() not in page:
                return phrase
    raise AssertionError("no split phrase in the page's text view")


@pytest.mark.parametrize("how", ["match", "pattern"])
def test_a_miss_in_a_pages_source_names_the_search_of_its_text(scope, how):
    page = PAGE.read_bytes()
    tools = ScratchTools(scope)
    handle = scope.spill(page, source_tool="browser").handle
    phrase = _split_phrase(scope, handle, page)
    needle = phrase if how == "match" else re.escape(phrase)
    miss = tools.call("read_handle", {"handle": handle, how: needle, "ignore_case": True})
    assert miss["windows"] == [] and miss["next_call"] is None
    arguments = _call(miss["note"])
    assert arguments == {"handle": handle, how: needle, "view": "text", "ignore_case": True}
    found = tools.call("read_handle", arguments)
    assert found["windows"] and phrase.lower() in found["windows"][0]["data"].lower()


def test_no_note_where_the_text_view_is_not_the_way_on(scope):
    tools = ScratchTools(scope)
    page = PAGE.read_bytes()
    html = scope.spill(page, source_tool="browser").handle
    text = scope.spill(b"plain text, no markup\n" * 1000, source_tool="shell").handle
    # not a page, or not from the start: the note says where it looked alone (scratchfs.api.miss_hints)
    missed = tools.call("read_handle", {"handle": text, "match": "caf\u00e9"})
    assert missed["note"] == "no match in the whole content (22,000 bytes)" and "calls" not in missed
    missed = tools.call("read_handle", {"handle": html, "match": "\u2603 nowhere", "offset": 100})
    assert missed["note"].startswith("no match in bytes 100-") and "view=" not in missed["note"]  # (the call: the
    assert missed["calls"] == [{"tool": "read_handle", "arguments": {"handle": html, "match": "\u2603 nowhere"}}]
    # same search of the whole content, whose miss names the text view: helper replies6)
    viewed = tools.call("read_handle", {"handle": html, "match": "\u2603 nowhere", "view": "text"})
    assert viewed["note"] == f"no match in the whole text view ({viewed['size']:,} bytes)" and "calls" not in viewed
    hit = tools.call("read_handle", {"handle": html, "match": "<html"})
    assert hit["windows"] and "note" not in hit


@pytest.mark.parametrize("budget", [2048, 4096, 8192])
@pytest.mark.parametrize("length", [200, 257, 2000, 4096])
def test_the_note_keeps_the_reply_within_its_budget(scope, budget, length):
    """The note's call repeats the needle: a 2,000-byte needle made a 2,468-byte reply of a 2,048-byte budget. A
    needle over HINT_CALL_BYTES is named as "the same call" instead."""
    tools = ScratchTools(scope)
    handle = scope.spill(PAGE.read_bytes(), source_tool="browser").handle
    reply = tools.call("read_handle", {"handle": handle, "match": "q" * length, "budget": budget})
    assert reply_size(reply) <= budget
    assert reply["note"].endswith(f'view="text", budget={budget})' if length <= 254
                                  else 'the same call with view="text"')  # (the call repeats the budget: advice3)
