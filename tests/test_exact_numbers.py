"""Numbers come back from structure reads as the document writes them: jq and records reads give every number the
filter passes through exactly (``12345678901234567890``, ``-0.0``, ``1e400``, ``1.00000000000000000001``), in the
JSON a model receives, checked against the document's own literals as decimals; a number no JSON value here can
hold is given inside its output's JSON text (listed in ``as_text``), and jq arithmetic over a number a double
cannot hold is told in a note, never silently rounded."""

from __future__ import annotations

import decimal
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools, to_json
from scratchfs.engine.structure import BytesSource, jq_page, jsondoc, numbers, records_page
from scratchfs.engine.structure.numbers import CONSTANTS_SAID
from scratchfs.engine.structure.page_words import page_words
from scratchfs.foundation.errors import InvalidArgument

_EXACT = decimal.Context(prec=20_000, Emax=10**6, Emin=-(10**6))


def _key(value):
    """A value with each number as its exact decimal (sign of zero kept), to compare documents with replies."""
    if isinstance(value, dict):
        return {k: _key(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_key(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return ("number", str(_EXACT.normalize(value)))
    return value


def _exact(text: str):
    return _key(json.loads(text, parse_float=decimal.Decimal, parse_int=decimal.Decimal))


def _received(page: dict, name: str) -> list:
    """The items as the model receives them (the page's JSON text, parsed keeping every digit), those listed in
    ``as_text`` read from their JSON text."""
    items = json.loads(json.dumps(page, ensure_ascii=False), parse_float=decimal.Decimal,
                       parse_int=decimal.Decimal)[name]
    as_text = set(page.get("as_text", []))
    assert "part" not in page
    return [_exact(item) if i in as_text else _key(item) for i, item in enumerate(items)]


_INT = st.integers(-(10**60), 10**60).map(str)
_FLOAT = st.builds(lambda sign, digits, point, exp: f"{sign}{digits[:point] or '0'}.{digits[point:] or '0'}"
                   + (f"e{exp}" if exp is not None else ""),
                   st.sampled_from(["", "-"]), st.text("0123456789", min_size=1, max_size=30).map(lambda d: "1" + d),
                   st.integers(0, 31), st.none() | st.integers(-400, 400))
_LITERAL = st.one_of(_INT, _FLOAT, st.sampled_from(["-0.0", "-0", "0", "0.0", "1e400", "-1E+400", "1e-400",
                                                    "12345678901234567890", "9007199254740993", "1.10"]))
_DOC = st.recursive(_LITERAL, lambda inner: st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")
                    | st.dictionaries(st.text("abc", min_size=1, max_size=3), inner, max_size=4).map(
                        lambda d: "{" + ", ".join(f'"{k}": {v}' for k, v in d.items()) + "}"), max_leaves=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(_DOC, min_size=1, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"), st.integers(0, 3))
def test_jq_gives_the_documents_numbers(doc, k):
    expected = json.loads(doc, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
    for flt, want in [(".", [expected]), (f".[{k}]", [expected[k] if k < len(expected) else None]),
                      (".[]", expected)]:
        page = jq_page(BytesSource(doc.encode()), flt, budget_bytes=65536).to_dict()
        assert _received(page, "results") == [_key(v) for v in want], flt
        words = "; ".join(page_words({"as_text": page.get("as_text")}, "results")) or None
        assert page.get("note") == words  # paths compute nothing (the note says only what `as_text` is)
        with pytest.MonkeyPatch.context() as patch:  # past the jq bound, paths stream: the same numbers, -0 too
            patch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
            streamed = jq_page(BytesSource(doc.encode()), flt, budget_bytes=65536).to_dict()
        assert json.dumps(streamed) == json.dumps(page), flt  # the text: -0.0 keeps its sign; .[k] past the end: null


@settings(max_examples=40, deadline=None)
@given(st.lists(_DOC, min_size=1, max_size=6))
def test_records_give_the_documents_numbers(records):
    data = "".join(r.replace("\n", " ") + "\n" for r in records).encode()
    expected = [_exact(r) for r in records]
    assert _received(records_page(BytesSource(data), budget_bytes=65536).to_dict(), "records") == expected
    page = records_page(BytesSource(data), jq=".", budget_bytes=65536).to_dict()
    assert _received(page, "results") == expected


@pytest.mark.parametrize(("doc", "flt", "noted"), [
    ('{"id": 12345678901234567890}', ".id + 1", True),
    ('{"id": 12345678901234567890}', "[.id] | sort", True),
    ('{"id": 1.00000000000000000001, "n": 2}', ".n * 2", True),
    ('{"id": 123456789012345, "n": "12345678901234567890"}', ".id + 1", False),  # exact as doubles; a string
    ('{"id": 12345678901234567890}', ".id", False),  # a path passes it through
])
def test_jq_arithmetic_over_a_number_a_double_cannot_hold_is_told(doc, flt, noted):
    page = jq_page(BytesSource(doc.encode()), flt).to_dict()
    assert ("note" in page) is noted
    if noted:
        assert "cannot hold" in page["note"] and page["note"].split("e.g. ")[1].startswith(("1234", "1.0000"))
    data = (doc + "\n" + doc + "\n").encode()
    assert ("note" in records_page(BytesSource(data), jq=flt).to_dict()) is noted


def test_the_model_receives_the_numbers_through_read_handle(scratch_scope):
    tools = ScratchTools(scratch_scope)
    doc = b'{"id": 12345678901234567890, "neg": -0.0, "big": 1e400, "fine": 1.00000000000000000001, "f": 1.5}'
    handle = scratch_scope.spill(doc * 1, source_tool="api").handle
    for flt, want in [(".id", ["12345678901234567890"]), (".neg", ["-0.0"]), (".f", ["1.5"]),
                      (".big", ['"1E+400"']), (".fine", ['"1.00000000000000000001"'])]:
        reply = tools.call("read_handle", {"handle": handle, "jq": flt})
        text = to_json(reply)
        assert [json.dumps(r) if isinstance(r, str) else text[text.index('"results":[') + 11 :].split("]")[0]
                for r in reply["results"]] == want
        assert ("as_text" in reply) is (flt in (".big", ".fine"))
    lines = scratch_scope.spill(doc + b"\n" + doc + b"\n", source_tool="api").handle
    reply = tools.call("read_handle", {"handle": lines, "record": 1})
    assert reply["as_text"] == [0, 1] and [_exact(r) for r in reply["records"]] == [_exact(doc.decode())] * 2


def test_streamed_numbers_with_an_exponent_are_read_as_jq_writes_them(monkeypatch):
    """jq writes a number with an exponent canonically (0.10e2 -> 10, an int; 1e1 -> 1E+1): the streamed read gave
    10.0 where the jq read gives 10 (hypothesis found it in CI)."""
    doc = b'[0.10e2, [1.0e1], 0.1e1, 1e1, 1.5e3, 1e400, "a1e5", -0.0e0, 12e-1]'
    under = jq_page(BytesSource(doc), ".[]").to_dict()
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
    assert json.dumps(jq_page(BytesSource(doc), ".[]").to_dict()) == json.dumps(under)
    assert under["results"][:3] == [10, [10], 1] and isinstance(under["results"][0], int)


@pytest.mark.parametrize("doc", ['[nan]', '[-inf]', '[1, INF, "x"]', '{"a": +Infinity}'])
def test_nan_and_infinity_are_refused_never_read_as_other_values(scratch_scope, monkeypatch, doc):
    """NaN and Infinity spelled as Python's json does not write them are not JSON; jq 1.7 reads them anyway (any
    case, ``nan``/``inf`` too) as ``null`` and as ``1.7976931348623157e+308``: a jq read gave ``[null]`` and
    ``[1.7976931348623157e+308]`` for them. The document is refused as not JSON (as a record holding one is), under
    the jq bound and past it, and its stub does not call it JSON. (``NaN``, ``Infinity`` and ``-Infinity``, which
    Python's json writes and reads, are JSON, said so: tests/test_json_nan.py.)"""
    for flt in (".", ".[]?", ".a"):
        with pytest.raises(InvalidArgument, match=r"not JSON.*(?i:nan|inf)"):
            jq_page(BytesSource(doc.encode()), flt)
    with pytest.raises(InvalidArgument, match="not JSON"):
        records_page(BytesSource(doc.encode() + b"\n"))
    stub = scratch_scope.spill(doc, source_tool="api")
    assert stub.content_type != "json" and not stub.shape.startswith("JSON")
    with pytest.raises(InvalidArgument, match="not JSON"):
        ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "jq": "."})
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
    with pytest.raises(InvalidArgument):
        jq_page(BytesSource(doc.encode()), ".a")


@pytest.mark.parametrize(("doc", "flt", "out"), [('{"a": NaN, "b": 1}', ".a", None),
                                                 ('[1, Infinity]', ".[1]", 1.7976931348623157e+308),
                                                 ('{"a": [-Infinity]}', ".a[0]", -1.7976931348623157e+308),
                                                 ('{"s": "\\\\", "n": NaN}', ".n | isnan", True)])
def test_python_s_nan_and_infinity_are_read_as_jq_reads_them_said(scratch_scope, doc, flt, out):
    """jsonnan1: ``NaN``, ``Infinity`` and ``-Infinity`` as Python's json writes them were refused as these are; they
    are read now (as ``json.loads`` and jq read them), the note saying what jq makes of them."""
    page = jq_page(BytesSource(doc.encode()), flt).to_dict()
    assert page["results"] == [out] and page["note"] == f"the document {CONSTANTS_SAID}"
    assert records_page(BytesSource(doc.encode() + b"\n")).to_dict()["records"] == [doc]  # (as its text)
    stub = scratch_scope.spill(doc, source_tool="api")
    assert stub.content_type == "json" and stub.shape.endswith(CONSTANTS_SAID)


@pytest.mark.parametrize("doc", ['{"a": "NaN, Infinity, inf", "b": 1}', '["nan", "-inf", "\\"inf"]',
                                 '{"information": 1, "NaN": 2}', '[1e5, 2E-3, true, false, null]'])
def test_the_words_inside_strings_are_no_constants(doc):
    assert jq_page(BytesSource(doc.encode()), ".").to_dict()["results"] == [json.loads(doc)]


def test_two_notes_of_one_reply_are_two_clauses(scratch_scope):
    """A jq reply over a document with numbers a double cannot hold and a lone surrogate escape ran its two notes
    together ("...jq rounds them where it computes the document holds a lone surrogate escape..."); they are joined
    as clauses, by "; "."""
    from scratchfs.api.contract import ScratchTools

    tools = ScratchTools(scratch_scope)
    doc = b'{"big": 12345678901234567890123, "s": "\\ud800", "pad": "' + b"x" * 9000 + b'"}'
    handle = scratch_scope.spill(doc, source_tool="t").handle
    note = tools.call("read_handle", {"handle": handle, "jq": ".big + 1"})["note"]
    assert "jq rounds them where it computes; the document holds a lone surrogate escape (\\ud800)" in note
    records = scratch_scope.spill(b'{"big": 12345678901234567890123, "s": "\\ud800"}\n' * 400, source_tool="t").handle
    note = tools.call("read_handle", {"handle": records, "record": 1, "records": 2, "jq": ".big + 1"})["note"]
    assert "U+FFFD (\\ufffd); the document holds numbers a double cannot hold" in note


def _plain_first_imprecise(text: str) -> str | None:
    """The plain answer: the first number literal of the JSON texts (one a line) that a double does not hold as
    written (``float`` of it infinite, or its shortest ``repr`` another number), in text order, as ``json`` reads
    them -- strings are strings."""
    seen: list[str] = []

    def real(literal: str) -> float:
        value = float(literal)
        if not (math.isfinite(value) and decimal.Decimal(repr(value)) == decimal.Decimal(literal)):
            seen.append(literal)
        return 0.0

    def integer(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value) or int(value) != int(literal):
            seen.append(literal)
        return 0.0

    for line in text.split("\n"):
        json.loads(line, parse_float=real, parse_int=integer)
    return seen[0] if seen else None


_WORDY = st.builds(", ".join, st.lists(st.one_of(_LITERAL, st.sampled_from(
    ["NaN", "inf", "x", "(1e400)", "v1.00000000000000000001", " 1e400 ", "[1e400]", '"1e400"', "\\", ":"])),
    max_size=5))
"""String cells as commit subjects write them: "no 01234, NaN, inf, 1e400, integer past 2**53"."""
_TEXTY = st.recursive(_LITERAL | _WORDY.map(lambda s: json.dumps(s, ensure_ascii=False)),
                      lambda inner: st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")
                      | st.dictionaries(_WORDY, inner, max_size=4).map(
                          lambda d: "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in d.items()) + "}"),
                      max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXTY, min_size=1, max_size=5))
def test_the_number_a_double_cannot_hold_is_found_as_json_reads_the_texts(docs):
    """A slurp of git log's TSV (real: `git log --format=%H%x09%an%x09%s` of this repository, whose subjects hold
    "no 01234, NaN, inf, 1e400, integer past 2**53") said 'the document holds numbers a double cannot hold (e.g.
    1e400)': a number-looking run inside a string, between ', ' and ',', was taken for a number; and a record
    `1e400` after another (JSON lines of numbers) was missed, not standing after a '[', ':' or ','. The first such
    number is the one ``json`` reads first, strings being strings."""
    text = "\n".join(docs)
    found = numbers.imprecise_number(text)
    plain = _plain_first_imprecise(text)
    assert found == (None if plain is None else plain[:40] + ("…" if len(plain) > 40 else "")), text


def test_a_slurped_tsv_of_commit_subjects_holds_no_number_a_double_cannot_hold(scratch_scope):
    """The fault as found: git log's TSV (no header), its subjects strings, one saying "inf, 1e400, integer"."""
    subjects = ["bump to 2.0", "slurp: a column is numbers when its cells are (no 01234, NaN, inf, 1e400, integer "
                "past 2**53)", "web JSON tree: a number no double is (1e400, 1.00000000000000000001) keeps its text",
                "checks: NaN/Infinity/1e400 were OverflowError", "fix 12345678901234567890 ids"]
    data = "".join(f"{i:040x}\tSeed maintainers\t{s}\n" for i, s in enumerate(subjects * 4)).encode()
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="git").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": "map(.[2] | length) | add", "slurp": True})
    assert reply["results"] == [4 * sum(map(len, subjects))] and "note" not in reply, reply
    typed = scratch_scope.spill(b"n\tname\n" + b"".join(b"%d\tx, 1e400, y\n" % i for i in range(40)),
                                source_tool="sql").handle  # (a number column beside a text one: numbers, no note)
    reply = tools.call("read_handle", {"handle": typed, "jq": "map(.n) | add", "slurp": True})
    assert reply["results"] == [780] and "note" not in reply, reply
    page = records_page(BytesSource(b"1\n" * 30 + b"1e400\n"), jq=". + 1").to_dict()  # (JSON lines of numbers)
    assert "1e400" in page.get("note", ""), page
