"""``scratchfs.adapter.parse_call``: a reply's ``next_call`` (Python call syntax, for the model) back into the tool's
name and arguments, for a program -- every call the read modes write, and a Hypothesis property over the arguments
that make one."""

from __future__ import annotations

import keyword
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.adapter import Offloader, parse_call
from scratchfs.foundation.calls import render_call

TRICKY = 'say "hi" \\ back\\slash\ttab ü 🦀 \u2028 line'
"""A needle with quotes, backslashes, a tab, non-ASCII, an astral character and a line separator."""


def follow(offloader: Offloader, name: str, arguments: dict, steps: int = 3) -> list[str]:
    """The next_calls of up to ``steps`` replies, each parsed and called (as a program following them would)."""
    calls = []
    for _ in range(steps):
        reply = offloader.call_scratch_tool(name, arguments)
        assert not reply.is_error, (name, arguments, reply.text)
        call = reply.result["next_call"]
        if call is None:
            break
        name, arguments = parse_call(call)
        assert render_call(name, **arguments) == call  # the arguments that made it, exactly
        calls.append(call)
    return calls


def test_every_next_call_of_the_read_modes_parses_back_to_its_arguments(scratch_scope, fixture_data):
    """examples/mcp_client.py had its own parse_call: a program had no public parser of next_call."""
    offloader = Offloader(scratch_scope)
    h = {name: scratch_scope.spill(data).handle for name, data in fixture_data.items()}
    text = scratch_scope.spill(f"{TRICKY}\n" * 400 + "ünïcödé 42 \"q\"\n" * 400).handle
    records = scratch_scope.spill(b"".join(b'{"id": %d, "ok": true}\n' % i for i in range(3000))).handle
    scratch_scope.scratch_write('notes/"ü"\\', "v" * 200_000)
    for i in range(5):
        scratch_scope.scratch_write(f'notes/"ü"\\{i}', "v")
    firsts = [
        ("read_handle", {"handle": text, "match": TRICKY, "context": 5, "max_matches": 2}),
        ("read_handle", {"handle": text, "pattern": r'\d+ "q"$|\\ back', "ignore_case": True, "max_matches": 3}),
        ("read_handle", {"handle": text, "line": 2, "lines": 7}),
        ("read_handle", {"handle": text, "offset": 3, "length": 100, "budget": 2048}),
        ("read_handle", {"handle": h["query-packages-by-month.csv"], "row": 2, "rows": 40, "columns": ["name", 1]}),
        ("read_handle", {"handle": h["browser-rust-book.html"], "view": "text", "budget": 4096}),
        ("read_handle", {"handle": h["browser-rust-book.html"], "select": 'a[href^="#"]', "budget": 2048}),
        ("read_handle", {"handle": h["api-ec2-service-model.json"], "jq": '.operations | keys[] | "\\(.)\\n"'}),
        ("read_handle", {"handle": records, "record": 5, "records": 30, "jq": '{id, ok, s: "ü\\""}'}),
        ("scratch_read", {"key": 'notes/"ü"\\', "length": 5000}),
        ("scratch_list", {"prefix": 'notes/"ü"\\', "limit": 2}),
    ]
    calls = [call for name, arguments in firsts for call in follow(offloader, name, arguments)]
    assert len(calls) >= 2 * len(firsts)
    joined = "\n".join(calls)
    for piece in ('\\"hi\\"', "\\\\", "\\t", "ü", "🦀", "\u2028", "True", '["name", 1]', "version=", "cursor="):
        assert piece in joined, piece


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)  # next_call texts are valid UTF-8
_VALUES = st.one_of(_TEXT, st.integers(-(2 ** 70), 2 ** 70), st.booleans(),
                    st.floats(allow_nan=False, allow_infinity=False), st.lists(st.one_of(_TEXT, st.integers()),
                                                                               max_size=4))
_NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True).filter(lambda n: not keyword.iskeyword(n))


@given(st.sampled_from(["read_handle", "scratch_read", "scratch_list"]), st.dictionaries(_NAMES, _VALUES, max_size=6))
def test_parse_call_gives_back_the_arguments_that_made_a_call(verb, arguments):
    assert parse_call(render_call(verb, **arguments)) == (verb, arguments)


@pytest.mark.parametrize(("text", "says"), [
    (3, "a call must be text, not int"),
    ("read_handle(", "SyntaxError"),
    ('read_handle("h_x")', "keyword arguments only"),
    ("x.read_handle(handle=1)", "keyword arguments only"),
    ("read_handle(**k)", "keyword arguments only"),
    ("read_handle(handle=1, handle=2)", "the argument handle is given twice"),
    ("read_handle(handle=__import__('os').system('true'))", "is not a value"),
    ("read_handle(offset=4096 * 1024)", "'4096 * 1024' is not a value"),
    ('read_handle(handle=b"x")', "is not a value"),
    ("read_handle(handle=" + "[" * 1000 + "]" * 1000 + ")", "too many nested parentheses"),
    ("read_handle(offset=" + "9" * 5000 + ")",  # (Python's own words: 3.10's say "(4300) for", 3.11's "(4300 digits)")
     "Exceeds the limit (4300 digits)" if sys.version_info >= (3, 11) else "Exceeds the limit (4300) for"),
    ('read_handle(handle="\ud800")', "UnicodeEncodeError"),
    ("f(a=" + "1+" * 600_000 + "1)", "1,200,006 characters is longer than the limit of 1,048,576"),
    ("f(a=" + "1+" * 200_000 + "1)", "not a call parse_call reads: 'f(a=1+1+"),  # deep: refused, no RecursionError
    ("f(a=" + "1+" * 1000 + "1)", "more than 1,000 operators (a call of values has none)"),
])
def test_anything_but_a_call_of_values_is_one_invalid_argument(text, says):
    with pytest.raises(InvalidArgument) as raised:
        parse_call(text)
    assert says in str(raised.value) and "\n" not in str(raised.value)


STRESS = bool(os.environ.get("SCRATCHFS_STRESS"))
NEST = 200_000 if STRESS else 5_000
"""Operators of a deep call: five times the bound of 1,000 is refused by the same count (the 200,000 that crashed
Python 3.10 with ``SCRATCHFS_STRESS=1``)."""
DEEP = ["f(a=" + "1+" * NEST + "1)", "f(a=x" + ".y" * NEST + ")", "f(a=x" + "()" * NEST + ")",
        "f(a=" + "not " * NEST + "1)", "f(a=[0]" + "[0]" * NEST + ")", 'f(a=f"{' + "1+" * NEST + '1}")']
VALUES = 20_000 if STRESS else 1_000
"""Repeats of a list of 4 signed numbers: 4,000 signs, past the bound of 1,000 operators, take the tokenizing count
that finds no operator in them (1.8 s of CPU at 20,000: Python's tokenizer, 1 s for 100,000 tokens)."""


def test_a_call_nested_deeper_than_python_310_can_build_is_refused_not_a_crash():
    """Python 3.10 built the syntax tree of ``f(a=1+1+...)`` 200,000 operators deep and crashed (a segmentation
    fault: the interpreter gone, a pytest worker with it), where 3.11 raises RecursionError: more than 1,000 operators
    are refused before Python's parser sees them, on every version, the same words; a call of values (signs of
    numbers, nested lists) has none and is read."""
    code = ("import sys; from scratchfs.adapter import parse_call; from scratchfs import InvalidArgument\n"
            "for text in sys.stdin.read().splitlines():\n"
            "    try: parse_call(text); print('read')\n"
            "    except InvalidArgument as exc: print(str(exc).rsplit(': ', 1)[-1])\n")
    done = subprocess.run([sys.executable, "-c", code], input="\n".join(DEEP), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["more than 1,000 operators (a call of values has none)"] * len(DEEP)
    listed = "f(a=[" + ", ".join(["-1", "+2.5", "[-3, {\"k\": -4}]"] * VALUES) + "], b=-0)"
    assert parse_call(listed) == ("f", {"a": [-1, 2.5, [-3, {"k": -4}]] * VALUES, "b": 0})


def test_json_literals_and_single_quotes_read_as_a_model_may_write_them():
    assert parse_call(" scratch_list(prefix='a', limit=+2, x=null, y=true, z=false, w=-1.5, o={\"k\": [1]}) ") == (
        "scratch_list", {"prefix": "a", "limit": 2, "x": None, "y": True, "z": False, "w": -1.5, "o": {"k": [1]}})
