"""Every call a refusal names keeps the caller's own ``budget=`` (replies10): the slurp refusal of one JSON document
named its jq read without it, and so did the other refusals whose calls are built where no budget is known (a
misfit's reads, an offset or a line past the end). The contract adds it to each call of a tool that takes one."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.checks import integral
from scratchfs.foundation.errors import InvalidArgument

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_CALL = re.compile(r'read_handle\((?:[^()"]|"(?:[^"\\]|\\.)*")*\)')


def _refused(tools: ScratchTools, arguments: dict) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", arguments)
    return caught.value


def test_the_slurp_refusal_of_one_json_document_names_its_jq_read_with_the_budget_given(scope):
    tools = ScratchTools(scope)
    handle = scope.spill(json.dumps({"a": list(range(3000)), "b": "x"}).encode(), source_tool="t").handle
    refused = _refused(tools, {"handle": handle, "jq": "keys", "slurp": True, "budget": 4096})
    assert f'read_handle(handle="{handle}", jq="keys", budget=4096)' in str(refused)
    assert [call.to_json()["arguments"] for call in refused.calls] == [{"handle": handle, "jq": "keys",
                                                                        "budget": 4096}]


@pytest.mark.parametrize(("name", "arguments"), [
    ("api-ec2-service-model.json", {"select": "p"}),
    ("api-ec2-service-model.json", {"view": "text"}),
    ("browser-rust-book.html", {"jq": "keys[]"}),
    ("browser-rust-book.html", {"row": 1, "rows": 5}),
    ("query-packages-by-month.csv", {"view": "members"}),
    ("workspace-grep-stdlib-defs.txt", {"offset": 10**9}),
    ("workspace-grep-stdlib-defs.txt", {"line": 10**7}),
])
def test_every_call_a_refusal_names_keeps_the_budget_given(scope, name, arguments):
    tools = ScratchTools(scope)
    handle = scope.spill((FIXTURES / name).read_bytes(), source_tool="t").handle
    refused = _refused(tools, {"handle": handle, **arguments, "budget": 3000})
    assert refused.calls, str(refused)  # (each written whole)
    assert all(call.endswith("budget=3000)") for call in _CALL.findall(str(refused))), str(refused)
    assert all(call.to_json()["arguments"]["budget"] == 3000 for call in refused.calls)
    assert len(error_text(refused).encode()) < 700  # (each call 13 bytes longer: ", budget=3000")


def test_a_refusal_adds_no_budget_the_call_did_not_give_or_gave_out_of_range(scope):
    tools = ScratchTools(scope)
    handle = scope.spill((FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes(), source_tool="t").handle
    plain = _refused(tools, {"handle": handle, "offset": 10**9})
    assert "budget" not in str(plain) and all("budget" not in call.to_json()["arguments"] for call in plain.calls)
    with pytest.raises(InvalidArgument) as caught:  # (a budget out of range is the refusal's subject, not repeated)
        tools.read_handle(handle, offset=10**9, budget=10)
    assert "budget=10)" not in str(caught.value)


def test_an_example_of_the_reads_that_fit_is_a_whole_call_with_the_budget(scope):
    """A JSON document's refusal of row= showed its example as bare arguments (``e.g. jq="keys[]"``) where every other
    refusal names whole calls: it names the whole call now, the budget given in it, within the error's bytes."""
    tools = ScratchTools(scope)
    handle = scope.spill((FIXTURES / "api-ec2-service-model.json").read_bytes(), source_tool="t").handle
    refused = _refused(tools, {"handle": handle, "row": 1, "budget": 5000})
    assert [call.text for call in refused.calls] == [None], refused.calls
    assert f'e.g. read_handle(handle="{handle}", jq="keys[]", budget=5000), then' in str(refused)
    assert [call.to_json()["arguments"] for call in refused.calls] == [{"handle": handle, "jq": "keys[]",
                                                                        "budget": 5000}]
    assert error_text(refused) == f"invalid argument: {refused}"  # (whole: not cut at the error's cap)


def test_the_cli_writes_a_listing_the_refusal_names_without_the_budget_it_has_no_option_for(tmp_path):
    """scratch-list has no --budget (it prints every key itself): the scratch_list call of a refusal, with the budget
    the contract adds, is written as a scratch-list command that runs."""
    import re
    import shlex

    from click.testing import CliRunner

    from scratchfs.cli.app import main

    scope = ["--root", str(tmp_path / "root"), "--run", "r", "--agent", "a"]
    assert CliRunner().invoke(main, ["scratch-write", "notes", "-", *scope], input="hi\n").exit_code == 0
    failed = CliRunner().invoke(main, ["scratch-read", "note", "--json", "--budget", "3000", *scope])
    assert failed.exit_code == 1, failed.stderr
    (listing,) = re.findall(r"\S+ (scratch-list .*? --agent a)", failed.stderr)
    assert "--budget" not in listing, failed.stderr
    listed = CliRunner().invoke(main, shlex.split(listing))
    assert listed.exit_code == 0 and "notes" in listed.stdout, listed.stderr


@pytest.mark.parametrize(("tool", "arguments", "advised"), [
    ("read_handle", {"handle": "notes"}, 'scratch_read(key="notes", budget=3000)'),
    ("read_handle", {"handle": "x" * 300}, "scratch_list(budget=3000)"),
    ("read_handle", {"handle": ""}, "scratch_list(budget=3000)"),
    ("scratch_read", {"key": ""}, "scratch_list(budget=3000)"),
])
def test_a_refusal_of_the_arguments_check_keeps_the_budget_given(scope, tool, arguments, advised):
    """newuser11: the refusals :func:`check_arguments` raises before the tool runs (a scratchpad key given as a
    handle, a handle or key given empty) named scratch_read and scratch_list without the caller's budget; pasted
    back, the next reply came at the server's 8 KiB. Each now keeps it, as the tool's own refusals do."""
    from scratchfs.adapter import parse_call

    scope.scratch_write("notes", b"x" * 20_000)
    with pytest.raises(InvalidArgument) as caught:
        ScratchTools(scope).call(tool, {**arguments, "budget": 3000})
    assert advised in str(caught.value), str(caught.value)
    name, args = parse_call(advised)
    assert all(call.to_json()["arguments"].get("budget") == 3000 for call in caught.value.calls)
    assert len(json.dumps(ScratchTools(scope).call(name, args), separators=(",", ":")).encode()) <= 3000


@pytest.mark.parametrize(("given", "nearest"), [(100, 2048), (70_000, 65_536), (100.0, 2048)])
def test_a_budget_out_of_range_is_refused_naming_the_call_with_the_nearest_in_range(scope, given, nearest):
    """newuser11: ``budget=100`` was refused with ``budget: 100 is less than the minimum of 2048`` alone, the one
    refusal of a read that named no call to go on with; it names the same call with the nearest budget in range,
    which pasted back reads."""
    from scratchfs.adapter import parse_call

    tools = ScratchTools(scope)
    handle = scope.spill((FIXTURES / "query-packages-by-month.csv").read_bytes(), source_tool="t").handle
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": handle, "row": 1, "rows": 5, "budget": given})
    advised = f'read_handle(handle="{handle}", row=1, rows=5, budget={nearest})'
    assert str(caught.value).endswith(f"; within it: {advised}"), str(caught.value)
    page = tools.call(*parse_call(advised))
    assert page["first"] == 1 and len(json.dumps(page, separators=(",", ":")).encode()) <= nearest
    with pytest.raises(InvalidArgument) as both:  # (a call with another fault too names none: that one first)
        tools.call("read_handle", {"handle": handle, "row": 0, "budget": given})
    assert not both.value.calls


def test_the_cli_names_the_command_with_a_budget_in_range(tmp_path):
    import shlex

    from click.testing import CliRunner

    from scratchfs import ScratchStore
    from scratchfs.cli import main

    root = str(tmp_path / "root")
    with ScratchStore(root) as store:
        handle = store.scope("r", "a").spill((FIXTURES / "query-packages-by-month.csv").read_bytes()).handle
    scope = ["--root", root, "--run", "r", "--agent", "a"]
    failed = CliRunner().invoke(main, ["read-handle", handle, "--row", "1", "--budget", "100", *scope])
    assert failed.exit_code == 2, failed.stderr
    command = re.search(r"within it: (\S+ read-handle .*? --agent a)$", failed.stderr.strip()).group(1)
    assert "--budget 2048" in command
    followed = CliRunner().invoke(main, shlex.split(command)[1:])
    assert followed.exit_code == 0 and json.loads(followed.stdout)["first"] == 1, followed.stderr


def test_the_call_a_budget_refusal_names_writes_integral_numbers_as_integers(scope):
    handle = scope.spill((FIXTURES / "query-packages-by-month.csv").read_bytes(), source_tool="t").handle
    with pytest.raises(InvalidArgument) as caught:
        ScratchTools(scope).call("read_handle", {"handle": handle, "row": 1.0, "rows": 5.0, "budget": 1e6})
    assert str(caught.value).endswith(f'read_handle(handle="{handle}", row=1, rows=5, budget=65536)'), caught.value


@pytest.mark.parametrize("length", [1500, 1821, 1900, 4000])
def test_the_slurp_refusal_of_a_long_filter_names_its_read_in_words_not_cut(scope, length):
    """hostile15: the slurp refusal of one JSON document named its jq read with the caller's filter, up to 4 KiB, and
    the tool error cut it inside the filter (``...``) from about 1,850 characters (1,821 with ``budget=65536``)."""
    tools = ScratchTools(scope)
    handle = scope.spill(json.dumps({"a": list(range(3000)), "b": "x"}).encode(), source_tool="t").handle
    jq = "." + "a" * length
    refused = _refused(tools, {"handle": handle, "jq": jq, "slurp": True, "budget": 65536})
    text = error_text(refused)
    assert text.endswith("the same call without slurp") and len(text.encode()) < 400, text
    assert [call.to_json()["arguments"] for call in refused.calls] == [{"handle": handle, "jq": jq,
                                                                        "budget": 65536}]


def test_a_refusal_whole_at_the_cap_gets_no_budget_that_would_cut_it():
    """hostile15: keeps_budget added ``, budget=N`` to a refusal that filled a tool error's 2,048 bytes, which the
    error's cut then took off with the end of the call; such a refusal is left as it was (its call reads on at the
    server's budget)."""
    from scratchfs.api.contract import keeps_budget
    from scratchfs.foundation.calls import Advice, Call
    from scratchfs.foundation.limits import MIN_REPLY_BYTES

    call = Call.of("read_handle", handle="h_x", line=-50)
    words = "x" * (MIN_REPLY_BYTES - len(f"invalid argument: : {call}"))

    @keeps_budget
    def refuse(budget: int | None = None) -> dict:
        raise InvalidArgument(Advice.of(words, ": ", call))

    with pytest.raises(InvalidArgument) as caught:
        refuse(budget=65536)
    text = error_text(caught.value)
    assert len(text.encode()) == MIN_REPLY_BYTES and text.endswith(str(call)), text[-80:]
    assert caught.value.calls == (call,)

    @keeps_budget
    def refuse_short(budget: int | None = None) -> dict:
        raise InvalidArgument(Advice.of("x: ", call))

    with pytest.raises(InvalidArgument) as short:  # (a shorter one gets it)
        refuse_short(budget=3000)
    assert str(short.value).endswith("budget=3000)")


@pytest.mark.parametrize(("tool", "arguments"), [
    ("read_handle", {"handle": "notes"}),  # (a key given as a handle)
    ("read_handle", {"handle": "   "}),
    ("read_handle", {"handle": "h_" + "a" * 24, "jq": "  "}),
    ("read_handle", {"handle": "h_" + "a" * 24, "match": "a\ud800"}),
    ("scratch_read", {"key": "a\x00b"}),
])
def test_a_budget_out_of_range_beside_a_fault_the_check_finds_later_names_no_call(scope, tool, arguments):
    """hostile16: the call a budget's refusal names was checked against the schema alone, so a handle the store
    refuses ("notes"), one of white space, a jq filter of white space, a lone surrogate or a key's NUL passed with
    it: pasted back, the call was refused again for them. The budget is then not the call's one fault: no call."""
    with pytest.raises(InvalidArgument) as caught:
        ScratchTools(scope).call(tool, {**arguments, "budget": 100})
    assert str(caught.value) == f"{tool}: budget: 100 is less than the minimum of 2048" and not caught.value.calls


@pytest.mark.parametrize(("arguments", "words"), [
    ({"match": "\U0001f600" * 520, "budget": 100}, "the same call with budget=2048"),
    ({"pattern": "\U0001f600" * 540, "cursor": ""}, "the same call without cursor"),
])
def test_a_call_long_in_utf8_bytes_is_told_in_words_not_cut_at_the_cap(scope, arguments, words):
    """hostile16: the budget's and the empty argument's refusals told a call in words past 600 characters, but a
    tool error's cap counts UTF-8 bytes: 520 emoji in a match= (2,080 bytes in 540 characters) went out whole and
    the error was cut inside the call (``...``) at 2,047 bytes."""
    handle = scope.spill(b"hello world\n" * 100, source_tool="t").handle
    with pytest.raises(InvalidArgument) as caught:
        ScratchTools(scope).call("read_handle", {"handle": handle, **arguments})
    text = error_text(caught.value)
    assert text.endswith(words) and len(text.encode()) < 400, text[-80:]
    assert [call.to_json()["arguments"]["handle"] for call in caught.value.calls] == [handle]


def test_a_long_call_holding_a_lone_surrogate_is_told_in_words_without_an_error(scope):
    """One rule tells a refusal's long call in words (:meth:`Call.shown_when_long`), the budget's refusal and the
    empty argument's: the first measured plain UTF-8, which raises on a lone surrogate (its calls held none only
    because the texts are checked before it), the other ``surrogatepass``. A lone surrogate counts as 3 bytes."""
    handle = scope.spill(b"hello world\n" * 100, source_tool="t").handle
    long = "\ud800" * 200  # (600 bytes as surrogatepass writes them: the call is past LONG_CALL_BYTES)
    call = Call.of("read_handle", handle=handle, match=long, budget=2048)
    assert str(call.shown_when_long("in words")) == "in words"
    assert call.shown_when_long("in words") == call  # (the whole call kept as data)
    short = Call.of("read_handle", handle=handle, match="\ud800")
    assert short.shown_when_long("in words") is short
    tools = ScratchTools(scope)
    with pytest.raises(InvalidArgument) as caught:  # the Python method: its texts unchecked
        tools.read_handle(handle, match="", pattern=long)
    assert str(caught.value).endswith(": the same call without match")
    assert [dict(c.arguments) for c in caught.value.calls] == [{"handle": handle, "pattern": long}]
    with pytest.raises(InvalidArgument) as caught:  # the budget's refusal: the lone surrogate is a fault of its own
        tools.call("read_handle", {"handle": handle, "match": long, "budget": 100})
    assert str(caught.value) == "read_handle: budget: 100 is less than the minimum of 2048"


def test_a_budget_given_as_an_integral_float_is_kept_by_the_checks_refusal(scope):
    """hostile16: ``budget=3000.0`` (a model's JSON number) is the 3000 the tool reads at, but the arguments' check
    refusal kept only an int: read_handle(handle="notes", budget=3000.0) named scratch_read(key="notes") bare."""
    with pytest.raises(InvalidArgument) as caught:
        ScratchTools(scope).call("read_handle", {"handle": "notes", "budget": 3000.0})
    assert str(caught.value).endswith('scratch_read(key="notes", budget=3000)'), str(caught.value)


@settings(max_examples=300)
@given(st.one_of(st.floats(), st.integers(), st.booleans(), st.text(max_size=3), st.none()))
def test_integral_is_the_plain_answer(value):
    """One rule for "an integral float is the int" (the tools' checks, the budget a refusal keeps, a reply's ttl):
    a finite float equal to its floor is that int; anything else (1.5, inf, nan, a bool, an int, text) as given."""
    plain = int(value) if type(value) is float and math.isfinite(value) and value == math.floor(value) else value
    got = integral(value)
    assert type(got) is type(plain) and (got is value or got == plain), (value, got)


@pytest.mark.parametrize(("value", "expected"), [(3000.0, 3000), (-0.0, 0), (1e20, 10**20), (2.5, 2.5), (True, True)])
def test_integral_examples(value, expected):
    got = integral(value)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("words", [2048 - 60, 2048 - 40])
def test_a_refusal_keeps_the_budget_only_while_it_stays_whole(words):
    """The budget a refusal's calls are given (``keeps_budget``) is taken only while the tool error stays whole
    (``error_text`` cuts past 2,048 bytes): 13 bytes more (``, budget=3000``) over the cap leave the refusal as it
    was -- its text and its calls -- through :meth:`ScratchError.recall`'s ``keep``, not an undo."""
    from scratchfs.api.contract import keeps_budget

    @keeps_budget
    def refuse(budget=None):
        raise InvalidArgument(Advice.of("x" * words, Call.of("scratch_read", key="k")))

    with pytest.raises(InvalidArgument) as caught:
        refuse(budget=3000)
    text = error_text(caught.value)
    fits = len(f'invalid argument: {"x" * words}scratch_read(key="k", budget=3000)') <= 2048
    assert [str(call) for call in caught.value.calls] == [f'scratch_read(key="k"{", budget=3000" if fits else ""})']
    assert text == f"invalid argument: {caught.value}" and text.endswith(str(caught.value.calls[0])), text[-60:]
    assert fits == (words == 2048 - 60)


def test_recall_left_as_it_was_when_keep_says_no():
    err = InvalidArgument(Advice.of("see ", Call.of("scratch_read", key="k")))
    advice, args = err.advice, err.args
    err.recall(lambda call: call.given(budget=3000), keep=lambda said: len(said) < 10)
    assert err.advice is advice and err.args is args
    err.recall(lambda call: call.given(budget=3000), keep=lambda said: said.endswith("budget=3000)"))
    assert str(err) == 'see scratch_read(key="k", budget=3000)' and err.args == (str(err),)
