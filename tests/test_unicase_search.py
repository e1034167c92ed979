"""unicase1: a case-blind search finds what Python's ``re`` with ``re.IGNORECASE`` finds over the decoded text.

Over UTF-8 text holding ``ÉCOLE Straße İstanbul ΣΊΣΥΦΟΣ``, ``read_handle(h, match="école", ignore_case=True)`` said
"no match in the whole content", and so did ``pattern="(?i)école"``: the engine runs bytes patterns, and
``re.IGNORECASE`` on bytes folds ASCII letters only. UTF-16 text (``encoding=``) missed ``σίσυφοσ`` in ``ΣΊΣΥΦΟΣ``
(final sigma) and ``İstanbul`` for ``istanbul``. Each round trip here holds the search's every mode -- forward, from
the end (``before=``), counts, line windows -- to the plain answer: ``re.finditer(p, text, re.I)``'s spans, offsets
mapped to bytes."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.case_variants import CASED_BELOW, variants
from scratchfs.engine.pattern_syntax import MAX_PATTERN_BYTES
from scratchfs.engine.pattern_unicase import CASE_FORMS_BYTES, unicase_pattern
from scratchfs.foundation.errors import InvalidArgument

ALPHABET = ("abcikrsxyzABCIKSXYZ019 .,\n"  # ASCII (i k s: their variants İ ı K ſ are not)
            "éÉüÜÿŸàÀßẞ"  # Latin-1, German ß/ẞ
            "σςΣίΊυΥφΦοΟ"  # Greek: both small sigmas, the capital
            "İıﬁ"  # Turkish dotted/dotless i (with I i above), a ligature (no single-character case)
            "ЖжЯяЁёДд"  # Cyrillic
            "ᎠꭰᏴᏼ"  # Cherokee (capitals U+13A0.., small U+AB70..)
            "Kſ中😀")  # Kelvin sign, long s, uncased CJK and an emoji (4 bytes)
ENCODINGS = {"utf-8": None, "utf-16-le": "utf-16le", "utf-16-be": "utf-16be"}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    with ScratchStore(tmp_path_factory.mktemp("unicase") / "root") as store:
        yield ScratchTools(store.scope("r", "a"))


def _plain(pattern: str, text: str, codec: str, flags: int = re.IGNORECASE) -> list[tuple[int, int]]:
    """``re``'s spans over the text, as byte offsets of its ``codec`` encoding."""
    def at(i: int) -> int:
        return len(text[:i].encode(codec))
    return [(at(m.start()), at(m.end())) for m in re.finditer(pattern, text, flags)]


def _recased(draw, piece: str) -> str:
    """``piece`` with each character's case changed at random: to one of its variants, upper, lower or as is."""
    out = []
    for char in piece:
        how = draw(st.sampled_from(["same", "upper", "lower", "variant"]))
        if how == "variant":
            out.append(draw(st.sampled_from(variants(char))))
        else:
            out.append({"same": char, "upper": char.upper(), "lower": char.lower()}[how])
    return "".join(out)


@st.composite
def texts_and_needles(draw):
    text = draw(st.text(alphabet=ALPHABET, min_size=1, max_size=80))
    start = draw(st.integers(0, len(text) - 1))
    piece = text[start: start + draw(st.integers(1, 6))]
    needle = _recased(draw, piece)
    return text, needle if needle.strip("\n") else "x"


def _spans(tools, handle: str, codec: str, **asked) -> dict[str, object]:
    """What the search finds in each of its modes: forward and from the end (spans), the count, the lines."""
    encoding = {"encoding": ENCODINGS[codec]} if ENCODINGS[codec] else {}
    forward = tools.read_handle(handle, context=0, max_matches=1000, **asked, **encoding)
    size = forward["size"]
    last = tools.read_handle(handle, context=0, before=size, max_matches=1000, **asked, **encoding)
    counted = tools.read_handle(handle, count=True, **asked, **encoding)
    lines = tools.read_handle(handle, context="line", max_matches=1000, **asked, **encoding)
    return {"forward": [(w["offset"], w["offset"] + w["length"]) for w in forward["windows"]],
            "last": sorted((w["offset"], w["offset"] + w["length"]) for w in last["windows"]),
            "count": counted["matches"], "lines": sorted({w["line"] for w in lines["windows"]})}


def _expected(spans: list[tuple[int, int]], text: str, codec: str) -> dict[str, object]:
    data = text.encode(codec)
    merged: list[tuple[int, int]] = []  # (touching matches share one window of context 0)
    for start, end in spans:
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    lines = {data[:start].decode(codec).count("\n") + 1 for start, _end in spans}
    return {"forward": merged, "last": merged, "count": len(spans), "lines": sorted(lines)}


@pytest.mark.parametrize("codec", list(ENCODINGS))
@settings(max_examples=60)
@given(case=texts_and_needles())
def test_a_case_blind_match_finds_what_re_ignorecase_finds_in_the_text(tools, codec, case):
    text, needle = case
    handle = tools.scope.spill(text.encode(codec), source_tool="t").handle
    got = _spans(tools, handle, codec, match=needle, ignore_case=True)
    assert got == _expected(_plain(re.escape(needle), text, codec), text, codec), (text, needle)


@st.composite
def texts_and_patterns(draw):
    """A text and a case-blind pattern cut from it: each character as itself, in a class with another, in a range
    to another, or outside a negated class of another that has a variant beyond ASCII (one of ASCII characters
    only, like ``.``, matches a byte), sometimes repeated."""
    text, needle = draw(texts_and_needles())
    parts = []
    for char in needle:
        other = draw(st.sampled_from([c for c in ALPHABET if c not in "\n"]))
        how = draw(st.sampled_from(["same", "class", "range", "negated"]))
        if how == "class":
            part = f"[{_member(char)}{_member(other)}]"
        elif how == "range":
            low, high = sorted((char, other), key=ord)
            part = f"[{_member(low)}-{_member(high)}]"
        elif how == "negated" and char not in variants(other) and not all(v.isascii() for v in variants(other)):
            part = f"[^{_member(other)}]"
        else:
            part = re.escape(char)
        parts.append(part + draw(st.sampled_from(["", "", "+"])))
    return text, "(?i)" + "".join(parts)


def _member(char: str) -> str:
    return "\\n" if char == "\n" else char


@settings(max_examples=80)
@given(case=texts_and_patterns())
def test_a_case_blind_pattern_finds_what_re_ignorecase_finds_in_the_text(tools, case):
    text, pattern = case
    handle = tools.scope.spill(text.encode("utf-8"), source_tool="t").handle
    got = _spans(tools, handle, "utf-8", pattern=pattern)
    expected = _expected(_plain(pattern, text, "utf-8", 0), text, "utf-8")
    if any("\n" in m.group() for m in re.finditer(pattern, text)):  # (a line window of a match that holds a line
        del got["lines"], expected["lines"]  # end takes in the next line: not this test's business)
    assert got == expected, (text, pattern)


PAGE = "ÉCOLE Straße İstanbul ΣΊΣΥΦΟΣ\nécole STRAẞE istanbul σίσυφος\n"


@pytest.mark.parametrize("codec", list(ENCODINGS))
@pytest.mark.parametrize("needle", ["école", "straße", "istanbul", "İSTANBUL", "σίσυφοσ", "ΣΊΣΥΦΟΣ"])
def test_the_reported_needles_are_found_in_every_case(tools, codec, needle):
    handle = tools.scope.spill(PAGE.encode(codec), source_tool="t").handle
    got = _spans(tools, handle, codec, match=needle, ignore_case=True)
    assert got["count"] == 2 and got == _expected(_plain(re.escape(needle), PAGE, codec), PAGE, codec)


@pytest.mark.parametrize("pattern", ["(?i)école", "(?i)[é-ü]cole", "(?i:ÉCOLE) ", "(?i)straẞe", "(?i)σίσυφο[σς]"])
def test_the_reported_patterns_are_found_in_every_case(tools, pattern):
    handle = tools.scope.spill(PAGE.encode(), source_tool="t").handle
    got = _spans(tools, handle, "utf-8", pattern=pattern)
    assert got["count"] == 2 and got == _expected(_plain(pattern, PAGE, "utf-8", 0), PAGE, "utf-8")


def test_case_blindness_stays_within_its_scope():
    assert unicase_pattern("é(?i:é)(?-i:é)", False) == "é(?i:(?:\\xc3[\\x89\\xa9]))(?-i:é)"
    assert unicase_pattern("(?i)(?a:é)é", False) == "(?i)(?a:é)(?:\\xc3[\\x89\\xa9])"
    assert unicase_pattern("é\\xe9[é]", False) == "é\\xe9[é]"  # (no ignore_case: bytes, as before)
    assert unicase_pattern("(?i)\\s\\x4b(?P<kiss>a)(?P=kiss)", False) == "(?i)\\s\\x4b(?P<kiss>a)(?P=kiss)"
    assert unicase_pattern("(?<=é>)(?i:é)", False) == "(?<=é>)(?i:(?:\\xc3[\\x89\\xa9]))"  # (no group name)
    assert unicase_pattern("(a)(?i:s)(?(1)b|k)", False) == "(a)(?i:(?:\\xc5\\xbf|s))(?(1)b|k)"
    assert unicase_pattern("(?i)(?<=k)(?<!é)k", False) == "(?i)(?<=k)(?<!(?:\\xc3[\\x89\\xa9]))(?:\\xe2\\x84\\xaa|k)"
    verbose = "(?ix) é  # é in a comment\n"
    assert unicase_pattern(verbose, False) == "(?ix) (?:\\xc3[\\x89\\xa9])  # é in a comment\n"


def test_a_rewrite_too_large_is_refused_naming_what_to_do():
    with pytest.raises(InvalidArgument, match=rf"more than the limit of {MAX_PATTERN_BYTES}: search a shorter part"):
        unicase_pattern("σ" * 2000, True)
    with pytest.raises(InvalidArgument, match="a range from an escape to a non-ASCII character: write both ends"):
        unicase_pattern("[\\x80-é]", True)  # (a byte: no character)
    assert unicase_pattern("[\\x41-é]", True).startswith("(?:[\\x41-\\x7f]|")  # (\x41 is A: a character)


def test_the_variants_are_re_s_own():
    """Every character with a case mapping lies below CASED_BELOW, and its variants are exactly the characters
    re.IGNORECASE matches to it among all those (a brute force over every pair, by re itself)."""
    cased = [chr(x) for x in range(0x110000) if {chr(x).lower(), chr(x).upper(), chr(x).casefold(),
                                                  chr(x).title()} - {chr(x)}]
    assert max(map(ord, cased)) < CASED_BELOW
    forms = set(cased) | {f[0] for c in cased for f in (c.lower(), c.upper(), c.casefold(), c.title())}
    joined = "".join(sorted(forms))
    for char in sorted(forms):
        found = {m.group() for m in re.finditer(re.escape(char), joined, re.IGNORECASE)}
        assert set(variants(char)) == found, char
        assert len(unicase_pattern(re.escape(char), True)) <= CASE_FORMS_BYTES, char


def test_terminal_output_s_text_view_finds_either_case_and_keeps_escapes_exact():
    """A needle searched in terminal output's rendered view (``view="text"``) is a pattern of its characters with
    escape sequences between them: case-blind, its characters' variants are found, never an escape's letters'."""
    from scratchfs.engine.patterns import compile_pattern
    from scratchfs.engine.structure.terminal_match import rendered_needle_pattern

    compiled = compile_pattern(rendered_needle_pattern("école"), True, 1 << 14)[0]
    coloured = "\x1b[01;31m\x1b[KÉ\x1b[m\x1b[KCOLE".encode()
    assert compiled.search(coloured).span() == (coloured.index("É".encode()), len(coloured))
    assert compiled.search("É\x1b[01;31\u212aCOLE".encode()) is None  # (ESC[...K, never the Kelvin sign)
