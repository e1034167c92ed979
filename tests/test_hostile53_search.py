"""A case-blind ``match=`` in another encoding than UTF-8 is written as a pattern over that encoding's bytes
(UTF-16: each character's case variants; latin-1 and cp1252: each byte escaped). That pattern was then held to the
limit of a pattern the caller writes (4,096 bytes): ``match="ß" * 400, ignore_case=True, encoding="utf-16le"`` (400
characters, found over UTF-8 text) was refused as "pattern is longer than the limit of 4096 bytes", naming a
pattern the call never gave and no way on. The written pattern is now held to the rewrite's own bound (16 KiB), as a
case-blind match over UTF-8 is, and past it the refusal speaks of ``match=`` and says what to do."""

from __future__ import annotations

import re

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument

TEXT = "Straße STRASSE ẞ école ÉCOLE Привет ПРИВЕТ a b c\n" * 200


@pytest.mark.parametrize(("encoding", "codec", "needle"), [
    ("utf-16le", "utf-16-le", "ß" * 400),
    ("utf-16be", "utf-16-be", "привет" * 60),
    ("utf-16le", "utf-16-le", "Straße STRASSE ẞ école ÉCOLE Привет ПРИВЕТ a b c\n" * 3),
    ("latin-1", "latin-1", "Straße STRASSE école ÉCOLE a b c\n" * 40),
    ("cp1252", "cp1252", "a b " * 700),
])
def test_a_case_blind_match_in_an_encoding_is_sought_as_over_utf8(scratch_store_factory, encoding, codec, needle):
    text = TEXT if encoding.startswith("utf-16") else "".join(c for c in TEXT if c.isascii() or c in "ßéÉ")
    tools = ScratchTools(scratch_store_factory().scope("r", "a"))
    handle = tools.scope.spill(text.encode(codec), source_tool="t").handle
    want = len(re.findall(re.escape(needle), text, re.IGNORECASE))
    got = tools.read_handle(handle, match=needle, ignore_case=True, encoding=encoding, count=True)
    assert got["matches"] == want, got
    over_utf8 = tools.scope.spill(text.encode(), source_tool="t").handle
    assert tools.read_handle(over_utf8, match=needle, ignore_case=True, count=True)["matches"] == want


@pytest.mark.parametrize("encoding", [None, "utf-16le"])
def test_a_case_blind_match_past_the_bound_is_refused_as_a_match(scratch_store_factory, encoding):
    """Past the rewrite's bound, the refusal names ``match=`` (not a pattern the call did not give) and says what
    to do: a shorter part with ignore_case, or the text as written without it."""
    tools = ScratchTools(scratch_store_factory().scope("r", "a"))
    handle = tools.scope.spill("ß\n".encode("utf-16-le" if encoding == "utf-16le" else "latin-1"
                                            if encoding else "utf-8"), source_tool="t").handle
    needle = "ßé" * 1000
    with pytest.raises(InvalidArgument) as refused:
        tools.read_handle(handle, match=needle, ignore_case=True, encoding=encoding)
    said = str(refused.value)
    assert said.startswith("match= is 2,000 characters")
    assert "search a shorter part of it with ignore_case, or the text as it is written without ignore_case" in said
    assert "pattern '" not in said and said.count("more than") == 1 and len(said) < 400, said


@pytest.mark.parametrize(("encoding", "codec"), [("latin-1", "latin-1"), ("utf-16le", "utf-16-le")])
def test_a_case_blind_match_is_as_long_as_a_needle_may_be(scratch_store_factory, encoding, codec):
    """Its written pattern no longer held to a caller's pattern limit, a case-blind match is held to a needle's:
    at most 4,096 bytes in its encoding, as the same match without ignore_case is."""
    tools = ScratchTools(scratch_store_factory().scope("r", "a"))
    handle = tools.scope.spill("abc\n".encode(codec), source_tool="t").handle
    needle = "a" * (4097 if encoding == "latin-1" else 2049)
    for blind in (False, True):
        with pytest.raises(InvalidArgument, match=r"match is 409[78] bytes"):
            tools.read_handle(handle, match=needle, ignore_case=blind, encoding=encoding)


@pytest.fixture
def stalled(monkeypatch):
    """Every pattern search stopped at its time limit on its first buffer, as a slow one over a loaded machine is
    (the engine's own TimeoutError, at whatever speed the machine runs)."""
    from scratchfs.engine import patterns

    def stop(*args, **kwargs):
        raise TimeoutError

    for name in ("_scan", "_prefiltered", "_at_starts"):
        monkeypatch.setattr(patterns.PatternMatcher, name, stop)


@pytest.mark.parametrize(("encoding", "codec"), [("utf-16le", "utf-16-le"), ("latin-1", "latin-1"), (None, "utf-8")])
def test_a_case_blind_match_stopped_at_its_time_limit_names_itself_and_its_way_on(scratch_store_factory, stalled,
                                                                                    encoding, codec):
    """It was named by the pattern the store wrote (``pattern '(?-i:(?:\\x5a\\x00|...'``), and its way on was a
    search of that pattern without ``encoding=`` -- over UTF-16 refused (``pattern=`` does not read UTF-16 text).
    Now the match is named, and the way on is the same call from past the trouble, encoding and all."""
    from scratchfs.foundation.call_text import parse_call
    from scratchfs.foundation.errors import PatternTimeout

    tools = ScratchTools(scratch_store_factory().scope("r", "a"))
    handle = tools.scope.spill("école Straße\n".encode(codec) * 5000, source_tool="t").handle
    with pytest.raises(PatternTimeout) as stopped:
        tools.read_handle(handle, match="straße", ignore_case=True, encoding=encoding)
    said = str(stopped.value)
    assert said.startswith("match 'straße' ran past its time limit"), said
    way = said[said.index("read_handle("):said.index(", their matches unsearched")]
    verb, arguments = parse_call(way)
    assert verb == "read_handle", way
    assert arguments == {"handle": handle, "match": "straße", "offset": stopped.value.skip_offset,
                         "ignore_case": True, **({"encoding": encoding} if encoding else {})}, way
