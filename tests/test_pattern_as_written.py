"""A pattern that does not parse at a special character says how to find the text as written (helper newuser3: a
model searching pydoc output for ``wait_for(`` as ``pattern=`` was told only ``missing ), unterminated subpattern at
position 8``). Both ways out it names are followed here and find what ``str.count`` finds."""

from __future__ import annotations

import re
import string
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument

TEXT = "    async wait_for(fut, timeout)\n    a[1] = *.py + foo) and 1+1\n" * 40


@pytest.mark.parametrize(("pattern", "special"), [("wait_for(", "("), ("a[1", "["), ("*.py", "*"), ("foo)", ")"),
                                                  ("+1", "+"), ("é(", "(")])
def test_a_pattern_that_breaks_at_a_special_character_names_match_and_the_escape(scratch_scope, pattern, special):
    text = TEXT.replace("foo)", "foo) é(")
    handle = scratch_scope.spill(text.encode()).handle
    tools = ScratchTools(scratch_scope)
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": handle, "pattern": pattern})
    assert f"; match= finds the text as it is written (no regular expression), or write {special} as \\{special} to " \
           "keep it a pattern: read_handle(" in str(caught.value)
    found = tools.call("read_handle", {"handle": handle, "match": pattern, "count": True})
    assert found["matches"] == text.count(pattern)
    escaped = pattern.replace(special, "\\" + special, 1)
    if re.compile(escaped):  # (the one special character escaped: what the refusal says)
        again = tools.call("read_handle", {"handle": handle, "pattern": escaped, "count": True})
        assert again["matches"] == len(re.findall(escaped, text))


@pytest.mark.parametrize("pattern", ["x{2,1}", "(?P<a>x)(?P<a>y)"])
def test_a_pattern_wrong_as_a_pattern_gets_no_such_advice(scratch_scope, pattern):
    handle = scratch_scope.spill(TEXT.encode()).handle
    with pytest.raises(InvalidArgument, match="does not compile") as caught:
        ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "pattern": pattern})
    assert "match=" not in str(caught.value)


@pytest.mark.parametrize("pattern", ["]+[**-$", "[{-^", "(?-{b)2", ".(?a}", "(?(}"])
def test_advice_that_leads_back_to_the_same_refusal_is_not_given(pattern):
    """'bad character range *-$', 'missing flag', 'missing -, : or )', 'missing ), unterminated name' at a special
    character were told 'write * as \\* to keep it a pattern', and the pattern so written was refused at the same
    place (a class's range stays reversed; found by helper hostile4 following each advice): none is given."""
    from scratchfs.engine.pattern_syntax import parse

    with pytest.raises(InvalidArgument) as caught:
        parse(pattern, False)
    assert "match=" not in str(caught.value), str(caught.value)


@given(pattern=st.text(st.sampled_from([*"ab()[]{}*+?|\\^$.-,0123<>=!:P", "é"]), min_size=1, max_size=8))
@example(pattern="[{-^")
@settings(max_examples=500, deadline=None)
def test_the_escape_a_refusal_names_takes_its_fault_away(pattern):
    """Any pattern refused with 'write C as \\C': C at the byte position the refusal names, escaped, parses, or is
    refused at another place (the next fault), never at the same one."""
    from scratchfs.engine.pattern_syntax import parse

    try:
        parse(pattern, False)
        return
    except InvalidArgument as refused:
        message = str(refused)
    advice = re.search(r"write (.) as \\(.) to keep it a pattern$", message)
    if advice is None:
        return
    at = int(re.search(r"at position (\d+)", message).group(1))
    source = pattern.encode()
    assert source[at:at + 1] == advice.group(1).encode()
    again = ""
    try:
        parse((source[:at] + b"\\" + source[at:]).decode(), False)
    except InvalidArgument as refused:
        again = str(refused)
    assert not again or int(re.search(r"at position (\d+)", again).group(1)) not in (at, at + 1), (message, again)


@pytest.mark.parametrize("asked", [{"context": "line", "max_matches": 3}, {"count": True, "offset": 40},
                                   {"before": 2000, "max_matches": 2, "budget": 4096}, {"ignore_case": True}])
def test_the_refusal_names_both_searches_as_calls_that_run_as_given(scratch_scope, asked):
    """newuser6, over MCP: ``pattern="openat("`` on strace output was refused with the two ways out in words only
    (match=, or ``\\(``), where other search refusals name their calls: the model had to write the next search
    itself, its settings again. The refusal now names both as calls (in its text and as ``advice.calls``, which the
    CLI and the web API write their own way), each with the search's settings, and each, run as given, finds what
    the plain answer finds (``str.count`` / ``re.findall`` over the same bytes); fails before (no calls)."""
    text = TEXT.replace("foo)", "openat(AT_FDCWD)")
    handle = scratch_scope.spill(text.encode()).handle
    tools = ScratchTools(scratch_scope)
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": handle, "pattern": "openat(", **asked})
    calls = caught.value.advice.calls if caught.value.advice else ()
    assert [call.to_json()["arguments"] for call in calls] == [
        {"handle": handle, "match": "openat(", **asked}, {"handle": handle, "pattern": "openat\\(", **asked}]
    assert all(str(call) in str(caught.value) for call in calls)
    lower, at = (text.lower(), "openat(") if asked.get("ignore_case") else (text, "openat(")
    for call in calls:
        reply = tools.call(call.to_json()["tool"], call.to_json()["arguments"])
        if "count" in asked:
            assert reply["matches"] == lower.count(at, asked["offset"]) == len(re.findall(r"openat\(", text[40:]))
        elif asked.get("context") == "line":  # (a whole line's window: {line, data}, its matches in its text)
            every = [m.start() for m in re.finditer(r"openat\(", text)]
            lines = list(dict.fromkeys(text.count("\n", 0, n) + 1 for n in every))
            assert reply["windows"] and [w["line"] for w in reply["windows"]] == lines[: len(reply["windows"])]
            assert all(w == {"line": w["line"], "data": text.split("\n")[w["line"] - 1]} for w in reply["windows"])
            assert sum(w["data"].count("openat(") for w in reply["windows"]) == min(3, len(every))
        else:
            starts = [m["offset"] for w in reply["windows"] for m in w.get("matches") or [
                {"offset": w.get("match_offset", w["offset"])}]]  # (a merged window lists its matches)
            every = [m.start() for m in re.finditer(r"openat\(", text)]
            want = [n for n in every if n < asked["before"]][-2:] if "before" in asked else every[: asked.get(
                "max_matches", 20)]
            assert starts[: len(want)] == want


def _runs(text: str, keep) -> list[int]:
    """The plain answer: the offsets where each maximal run of characters ``keep`` accepts starts (ASCII text)."""
    return [n for n, c in enumerate(text) if keep(c) and (n == 0 or not keep(text[n - 1]))]


@pytest.mark.parametrize(("pattern", "keep"), [
    ("[[:alpha:]]+", lambda c: c.isascii() and c.isalpha()),
    ("[[:upper:][:digit:]]+", lambda c: c.isascii() and (c.isupper() or c.isdigit())),
    ("[[:xdigit:]]+", lambda c: c in string.hexdigits),
    ("[^[:space:][:punct:]]+", lambda c: c.isascii() and c.isalnum())])
def test_a_posix_class_refusal_names_the_pattern_written_with_ranges(scratch_scope, pattern, keep):
    """newuser6, over MCP: ``pattern="[[:alpha:]]+"`` was refused saying ``re`` has no POSIX classes and "list the
    bytes, e.g. [a-zA-Z]", the search to write left to the model. The refusal now names the call with each class
    written as its ASCII ranges, and that call, run as given, finds the runs the plain answer (``str`` methods)
    finds; fails before (no call)."""
    text = "Traceback (most recent call last): KeyError 0x7FfE, 1+1=2; tab\there\n" * 20
    handle = scratch_scope.spill(text.encode()).handle
    tools = ScratchTools(scratch_scope)
    with pytest.raises(InvalidArgument, match="POSIX class") as caught:
        tools.call("read_handle", {"handle": handle, "pattern": pattern, "max_matches": 50, "context": 0})
    calls = caught.value.advice.calls if caught.value.advice else ()
    assert len(calls) == 1 and str(calls[0]) in str(caught.value)
    arguments = calls[0].to_json()["arguments"]
    assert arguments["max_matches"] == 50 and arguments["context"] == 0 and "[:" not in arguments["pattern"]
    reply = tools.call("read_handle", {"handle": handle, "pattern": arguments["pattern"], "count": True})
    assert reply["matches"] == len(_runs(text, keep))
    page = tools.call("read_handle", arguments)
    assert [m["offset"] for w in page["windows"] for m in w.get("matches") or [
        {"offset": w.get("match_offset", w["offset"])}]] == _runs(text, keep)[:50]


NEWER = [("(?>a+)b", "(?=(a+))\\1b", "an atomic group"), ("(?>a+)ab", "(?=(a+))\\1ab", "an atomic group"),
         ("a++b", "(?=(a+))\\1b", "a possessive quantifier"),
         ("(x)a*+\\1", "(x)(?=(a*))\\2\\1", "a possessive quantifier"),
         ("[ab]{1,2}+b", "(?=([ab]{1,2}))\\1b", "a possessive quantifier")]
"""An atomic group or a possessive quantifier (Python 3.11's ``re`` syntax), and the same written as 3.10's refusal
of it advises (a lookahead's group, then a backreference to it; a later group's number one more)."""


@pytest.mark.parametrize(("pattern", "rewrite", "kind"), NEWER)
def test_an_atomic_group_or_possessive_quantifier_is_311s_and_the_310_refusal_says_so_and_its_rewrite(
        scratch_scope, pattern, rewrite, kind):
    """On 3.10 ``(?>`` was refused with 'write ? as \\? to keep it a pattern' (a group of the text ``?>``, not what
    was meant) and ``a++`` with no word of Python 3.11: the refusal now says which construct, that it needs 3.11, and
    the same match without it; on 3.11 the pattern runs. Either way the rewrite finds what ``regex`` (which reads
    both) finds with the pattern, on each version -- and ``(?>a+)ab`` finds none, where ``a+ab`` finds some."""
    import regex

    text = "aab ab aaaab b xax xaaax abab bb\n" * 30
    handle = scratch_scope.spill(text.encode()).handle
    tools = ScratchTools(scratch_scope)
    expected = len(regex.findall(pattern, text, flags=regex.MULTILINE))
    assert tools.call("read_handle", {"handle": handle, "pattern": rewrite, "count": True})["matches"] == expected
    if sys.version_info >= (3, 11):
        assert tools.call("read_handle", {"handle": handle, "pattern": pattern, "count": True})["matches"] == expected
    else:
        with pytest.raises(InvalidArgument) as caught:
            tools.call("read_handle", {"handle": handle, "pattern": pattern})
        message = str(caught.value)
        assert f" ({kind}: Python 3.11's syntax; this is 3.10): write " in message, message
        assert ("write ? as \\?" not in message) and (("match=" in message) == ("possessive" in kind)), message
    if pattern == "(?>a+)ab":
        assert expected == 0 < len(re.findall("a+ab", text))
