"""Work a search does once, not at each call: an HTML page's view search opens its entry once, and a pattern (a
terminal view search's needle pattern: about 1 KiB a character) is compiled once for a search's next pages."""

from __future__ import annotations

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.engine import patterns
from scratchfs.engine.patterns import PatternMatcher, compiled_pattern
from scratchfs.engine.structure.terminal_match import RenderedMatcher
from scratchfs.foundation.errors import InvalidArgument

PAGE = ("<html><head><title>t</title></head><body>"
        + "".join(f"<p>paragraph {i}: the quick brown fox</p>" for i in range(400)) + "</body></html>").encode()


def _counting_opens(scope, monkeypatch) -> list[str]:
    """The handles the store's entries are opened for, from now on (the real open, recorded)."""
    opened: list[str] = []
    real = scope.store.entries.open

    def open_(run_id, agent_id, kind, key):
        opened.append(key)
        return real(run_id, agent_id, kind, key)

    monkeypatch.setattr(scope.store.entries, "open", open_)
    return opened


def test_a_view_search_of_an_html_page_opens_its_entry_once(scope, monkeypatch):
    handle = scope.spill(PAGE, source_tool="fetch").handle
    tools = ScratchTools(scope)
    opened = _counting_opens(scope, monkeypatch)
    reply = tools.call("read_handle", {"handle": handle, "match": "paragraph 7:", "view": "text"})
    assert [w["data"].count("paragraph 7:") for w in reply["windows"]] == [1]
    assert opened == [handle]


def test_a_view_search_of_terminal_output_opens_its_entry_once(scope, monkeypatch):
    handle = scope.spill(b"".join(b"\x1b[01;31mline\x1b[m %d\n" % i for i in range(2000)), source_tool="bash").handle
    tools = ScratchTools(scope)
    opened = _counting_opens(scope, monkeypatch)
    reply = tools.call("read_handle", {"handle": handle, "match": "line 1999", "view": "text"})
    assert len(reply["windows"]) == 1 and opened == [handle]


def test_a_needles_pattern_is_compiled_once_for_its_next_pages(monkeypatch):
    calls: list[str] = []
    real = patterns.compile_pattern

    def compile_(pattern, ignore_case, reach):
        calls.append(pattern)
        return real(pattern, ignore_case, reach)

    monkeypatch.setattr(patterns, "compile_pattern", compile_)
    compiled_pattern.cache_clear()
    first = RenderedMatcher("def openhook(", False, 5.0)
    again = RenderedMatcher("def openhook(", False, 5.0)
    other = RenderedMatcher("def openhook(", True, 5.0)
    assert len(calls) == 2 and first.inner.compiled is again.inner.compiled is not other.inner.compiled
    assert again.inner.deadline >= first.inner.deadline  # (each matcher keeps its own time limit)


@pytest.mark.parametrize("pattern", [["a"], {"a": 1}, b"a", None])
def test_a_pattern_that_is_not_text_is_refused_not_hashed(pattern):
    with pytest.raises(InvalidArgument):
        PatternMatcher(pattern)


def test_a_bad_pattern_is_refused_each_time_not_kept():
    for _ in range(2):
        with pytest.raises(InvalidArgument):
            PatternMatcher("(unclosed")


def test_a_no_break_space_in_terminal_output_is_found_as_its_view_shows_it(scope):
    """Terminal output's view shows a no-break space as one (an HTML page's writes it as " "): a needle holding one
    finds it there, across escapes, and the next page's call keeps it (it was sought as " " and found nothing)."""
    line = "\x1b[32m12\u00a0345\x1b[m\u00a0bytes free\n".encode()
    handle = scope.spill(line * 3000, source_tool="bash").handle
    tools = ScratchTools(scope)
    reply = tools.call("read_handle", {"handle": handle, "match": "12\u00a0345\u00a0bytes", "view": "text",
                                       "max_matches": 2})
    assert [m["offset"] for w in reply["windows"] for m in w["matches"]] == [5, 5 + len(line)]
    assert reply["match"] == "12\u00a0345\u00a0bytes"
    assert 'match="12\u00a0345\u00a0bytes"' in reply["next_call"]
    plain = tools.call("read_handle", {"handle": handle, "match": "12 345", "view": "text"})
    assert plain["windows"] == []  # (as str.find over the view: a space is not a no-break space)
