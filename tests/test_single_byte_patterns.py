"""A ``pattern`` read in a single-byte encoding (``encoding="latin-1"`` / ``"cp1252"``) finds what ``re`` finds in the
text that encoding decodes, whatever escapes the pattern holds. Found by the hostile helper (2026-12-04): an escaped
non-ASCII character, ``caf\\é`` (a literal é to ``re``), became ``caf\\\\xe9`` -- a backslash escaping another --
so the search found the seven characters ``caf\\xe9`` and not ``café``; ``[\\é]`` found backslashes; and a group
name not ASCII was refused with its letters mangled into escapes (``'n\\\\xe4m'``). Offsets are exact there (one
character a byte), so the reference is ``re.finditer`` over the decoded text, ASCII rules and MULTILINE as the
search's own."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.encodings import decode_single
from scratchfs.api.search_window import window_hits
from scratchfs.foundation.errors import InvalidArgument

ATOMS = ["é", "\\é", "[\\éa]", "[à-é]", "a", "\\\\", "\\\\é", "(?:é|\\\\)", ".", "x", "\\ü", "ü", "(é)\\1",
         "[(?<é>]", "[^](?P=é)]", "[\\](?(é)]"]  # (no group in a class: "(?<é>" there was taken for a group's name)
EURO_ATOMS = ["€", "\\€", "[\\€é]"]


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    with ScratchStore(tmp_path_factory.mktemp("sbp") / "root") as store:
        yield ScratchTools(store.scope("r", "a"))


def found(tools: ScratchTools, content: bytes, pattern: str, encoding: str) -> list[tuple[int, int]]:
    handle = tools.scope.spill(content, source_tool="t").handle
    reply = tools.read_handle(handle, pattern=pattern, encoding=encoding, context=0, max_matches=1000, budget=65536)
    assert reply["next_call"] is None
    return [(hit["offset"], hit["length"]) for window in reply["windows"] for hit in window_hits(window)]


def expected(content: bytes, pattern: str, encoding: str) -> list[tuple[int, int]]:
    text = decode_single(content, encoding)
    return [(m.start(), m.end() - m.start()) for m in re.finditer(pattern, text, re.MULTILINE | re.ASCII)
            if m.end() > m.start()]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(encoding=st.sampled_from(["latin-1", "cp1252"]), data=st.data())
@example(encoding="latin-1", data=None)
def test_a_pattern_finds_what_re_finds_in_the_decoded_text(tools, encoding, data):
    atoms = ATOMS + (EURO_ATOMS if encoding == "cp1252" else [])
    alphabet = "aé\\xü\n" + ("€" if encoding == "cp1252" else "")
    if data is None:  # the first example found: an escaped é, a literal one to re
        pattern, text = "caf\\é", "one café, two caf\\xe9\n"
    else:
        pattern = "".join(data.draw(st.lists(st.tuples(st.sampled_from(atoms), st.sampled_from(["", "+", "?", "{2}"])),
                                             min_size=1, max_size=4).map(lambda xs: [a + q for a, q in xs])))
        text = data.draw(st.text(alphabet=alphabet, min_size=1, max_size=300))
    content = text.encode(encoding)
    assert found(tools, content, pattern, encoding) == expected(content, pattern, encoding)


@pytest.mark.parametrize("pattern", ["[(?<é>]", "[(?P<é>]x?", "[^](?(é)]", "[]?P=é)]"])
def test_a_group_look_alike_in_a_class_is_its_characters(tools, pattern):
    """``[(?<é>]`` (a class of (, ?, <, é, >) was refused as a group name that is not ASCII (hostile14)."""
    content = "x é y ( ? < > P ] ^ = )\n".encode("latin-1")
    assert found(tools, content, pattern, "latin-1") == expected(content, pattern, "latin-1") != []


def test_a_group_name_not_ascii_is_refused_as_such_not_as_its_escapes(tools):
    with pytest.raises(InvalidArgument, match="group name that is not ASCII"):
        found(tools, "café\n".encode("latin-1"), "(?P<nämé>caf)é", "latin-1")


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_every_character_a_read_shows_is_found_by_match_and_by_pattern(tools, encoding):
    """cp1252's five bytes Python's codec leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) are read as U+0081...,
    the WHATWG index's characters, but a ``match`` or ``pattern`` holding one was refused as "no character of cp1252
    ... it cannot be in content written in it" (the search encoded with the codec, the read decoded with the
    index): the text a reply showed could not be searched. Every byte: the character the read shows, as ``match``,
    as ``pattern`` and case-blind, finds that byte where it is."""
    content = bytes(range(256)) * 2
    handle = tools.scope.spill(content, source_tool="t").handle
    for byte in range(256):
        shown = tools.read_handle(handle, offset=byte, length=1, encoding=encoding)["data"]
        assert shown == decode_single(bytes([byte]), encoding)
        for how in ({"match": shown}, {"pattern": re.escape(shown)}, {"match": shown, "ignore_case": True}):
            reply = tools.read_handle(handle, **how, encoding=encoding, context=0, max_matches=10)
            hits = [hit["offset"] for window in reply["windows"] for hit in window_hits(window)]
            assert byte in hits and byte + 256 in hits, (byte, how)
