"""Replies, notes, stubs and errors word their counts through ``plural()``, and read as sentences: a new user's trial
found "in 1 windows" (a search note's windows), "shows more a reply" (the same note: "shows more matches a reply"),
and the kind recurs wherever a count is written before its noun -- "(1 bytes)" past the end of a 1-byte entry,
"longest 1 bytes" in a shape, "object(1 keys)", "context cut to 1 bytes a side", "(1 lines)". Two guards:

- the sources: no f-string of the modules that word replies (``scratchfs/api``, ``scratchfs/engine/structure``)
  writes a count before a plural noun but through ``plural()``, except the counts listed here, each never 1;
- the answers: stubs, shapes and refusals for counts 0, 1, 2 and many (Hypothesis) hold no "1 <nouns>" and no
  "<n> <noun>" for n other than 1.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_words import plural
from scratchfs.api.stub import build_stub
from scratchfs.foundation.errors import InvalidArgument

_ROOT = Path(__file__).resolve().parent.parent / "scratchfs"
NOUNS = ("byte", "line", "window", "match", "record", "row", "element", "item", "character", "output", "entry",
         "member", "heading", "column", "key", "page", "second", "value", "file", "frame", "step", "cell")
_PLURALS = {"match": "matches", "entry": "entries"}
_PLURAL_NOUNS = {_PLURALS.get(noun, noun + "s") for noun in NOUNS}

NEVER_ONE = {  # (module, the count's expression): why it is never 1 (or is no count)
    ("fixed.py", "needed"): "a budget that holds a reply: hundreds of bytes",
    ("fixed.py", "self.call_bytes"): "a next_call's bytes: dozens at least",
    ("search_misses.py", "kind[:8]"): "no count: an encoding's name ('UTF-16LE bytes')",
    ("search_reply.py", "budget"): "a reply budget: 2,048 bytes at least",
    ("search_reply.py", "found.max_matches"): "said when fewer than max_matches were shown: 2 at least",
    ("search_reply.py", "len(over.matches)"): "said of a window holding more than max_matches: 2 at least",
    ("shape_aligned.py", "len(names)"): "a table aligned by spaces: 2 columns at least",
    ("shape_pipes.py", "len(names)"): "a table drawn with pipes or box lines: 2 columns at least",
    ("shape_pipes.py", "columns.group(1)"): "DuckDB's footer's count of all columns, over those it shows: 3 at least",
    ("paging.py", "limit"): "a whole read's bound: MiB of bytes",
    ("paging.py", "source.size"): "a content over that bound",
    ("shape_binary.py", "archive"): "no count: the archive's format ('tar members', 'zip members')",
    ("stub.py", "size"): "a refused result, over the spill threshold",
    ("preview.py", "omitted"): "a head+tail preview's middle: a preview's worth of bytes",
    ("stub.py", "average"): "lines over DEFAULT_READ_BYTES",
    ("tools.py", "len(error.instance)"): "a text over a limit of many characters",
    ("jq_worker.py", "chars"): "an output over MAX_OUTPUT_CHARS",
    ("jsonl.py", "'no' if not shown else 'few'"): "no count",
    ("paging.py", "max_line_bytes"): "a line limit (MiB)",
    ("row_lines.py", "max_line_bytes"): "a line limit (MiB)",
    ("table_reader.py", "csv.field_size_limit()"): "the csv module's field limit (16 Mi)",
    ("toplevel.py", "self._tail_bytes"): "a feed's kept tail (KiB)",
}
"""The counts written before a plural noun without ``plural()``, each never 1."""


def _unpluralized(path: Path) -> list[tuple[str, str, int]]:
    """``(module, expression, line)`` of each f-string part writing ``{expression}`` then `` <plural noun>``, the
    expression not an UPPER_CASE constant nor a cursor (``{cursor[:40]} names``: a verb)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.JoinedStr):
            continue
        for value, text in zip(node.values, node.values[1:], strict=False):
            if not (isinstance(value, ast.FormattedValue) and isinstance(text, ast.Constant)
                    and isinstance(text.value, str)):
                continue
            word = re.match(r" ([a-z]+)\b", text.value)
            expression = ast.unparse(value.value)
            if (word and word.group(1) in _PLURAL_NOUNS and not re.fullmatch(r"[A-Z_][A-Z0-9_.]*", expression)
                    and not expression.startswith("cursor[")):
                found.append((path.name, expression, node.lineno))
    return found


def test_no_count_before_a_plural_noun_is_written_but_through_plural():
    paths = sorted([*(_ROOT / "api").glob("*.py"), *(_ROOT / "engine" / "structure").glob("*.py")])
    found = [hit for path in paths for hit in _unpluralized(path)]
    assert [hit for hit in found if hit[:2] not in NEVER_ONE] == []
    assert {hit[:2] for hit in found} == set(NEVER_ONE)  # (a count left here that the code no longer writes: drop it)


_HEDGED = re.compile(r"\b[a-z]+\((?:s|es)\)")
"""A count's noun hedged rather than worded for its count: ``row(s)``, ``match(es)``."""


def _hedged(path: Path) -> list[tuple[str, int, str]]:
    """``(module, line, words)`` of each string (f-string parts too; not a docstring) of ``path`` writing a noun
    with ``(s)`` or ``(es)``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(path.name, node.lineno, hit.group()) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            for hit in _HEDGED.finditer(node.value)]


def test_no_count_is_written_with_a_hedged_noun():
    """"1 row(s) given whole" (a rows page's note over a pipe or aligned table) wrote its noun for no count: every
    string the package words, in any layer, words its noun for its count (``plural()``)."""
    found = [hit for path in sorted(_ROOT.rglob("*.py")) for hit in _hedged(path)]
    assert found == []


def test_no_reply_builder_writes_a_broken_phrase():
    paths = [*(_ROOT / "api").glob("*.py"), *(_ROOT / "engine" / "structure").glob("*.py")]
    text = "\n".join(path.read_text(encoding="utf-8") for path in paths)
    for broken in ("shows more a reply", "more a page", " a a ", " the the "):
        assert broken not in text


_ONE_PLURAL = re.compile(r"(?<![\d.,])1 (?:" + "|".join(sorted(_PLURAL_NOUNS)) + r")\b")
_MANY_SINGULAR = re.compile(r"(?<![\d.,])(?:0|[2-9]|\d[\d,]*\d) (?:" + "|".join(NOUNS) + r")\b(?!-)")


def _misworded(text: str) -> list[str]:
    return _ONE_PLURAL.findall(text) + _MANY_SINGULAR.findall(text)


@pytest.mark.parametrize("count", [0, 1, 2, 12_345])
def test_plural(count):
    assert plural(count, "window") == f"{count:,} window" + ("" if count == 1 else "s")
    assert not _misworded(plural(count, "line"))


_CONTENTS = st.sampled_from([b"", b"x", b"x\n", b"ab", b"a\nb\n", b'{"a": {"b": 1}}', b'{"a": 1}\n' * 2,
                             b"a,b\n1,2\n", b"x" * 5000 + b"\n", b"\x00\x01\x02", b"<html><h1>T</h1></html>"])


@settings(max_examples=60, deadline=None)
@given(_CONTENTS, st.sampled_from(["head", "head+tail"]), st.sampled_from([0, 1, 2, 64, 1024]))
def test_stubs_and_shapes_word_their_counts(content, mode, preview):
    lines = content.count(b"\n") + (1 if content and not content.endswith(b"\n") else 0)
    shape = describe(content, len(content), lines)
    stub = build_stub("h_x", content, content, len(content), lines, shape.content_type, shape.text, "tool",
                      preview, mode)
    assert not _misworded(shape.text), shape.text
    assert not _misworded(stub.note), stub.note
    assert not _misworded(json.loads(stub.to_json())["note"])


@pytest.mark.parametrize("size", [0, 1, 2, 3000])
def test_refusals_past_the_end_word_the_size(scratch_scope, size):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(b"x" * size + b"\n" * (size > 0), source_tool="t").handle
    for args in ({"match": "x", "offset": size + 10}, {"offset": size + 10}, {"line": size + 10}):
        message = _refusal(tools, {"handle": handle, **args})
        assert not _misworded(message), message


def _refusal(tools: ScratchTools, args: dict) -> str:
    """The message of the InvalidArgument the read raises, or ``""``."""
    try:
        tools.call("read_handle", args)
    except InvalidArgument as exc:
        return str(exc)
    return ""
