"""The refusals made inside ``Scope.search`` name their calls with the ``budget`` the call gave, as every other
refusal (a count's, a structure read's) and every ``next_call`` does: before, a search past the end, ``before=``
past the end or with ``view="text"``, ``end=`` with a view, a pattern over terminal output's view and
``encoding=`` with a view search named calls without ``budget=`` (found in the closing note's open list, advice3),
so the advised call came back in the default 8 KiB where the model had asked for 2 KiB."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size
from scratchfs.cli import main
from scratchfs.foundation.errors import InvalidArgument

from .mcp_support import connect, error_of, payload, run, scratchfs_params

CONTENT = "".join(f'line {n} of the log: say "hi there" -x\n' for n in range(1, 3001)).encode()
TERMINAL = b"".join(b"\x1b[01;31mred %d\x1b[0m plain\x1b[K\n" % n for n in range(400))
PAGE = (b"<html><head><meta charset=windows-1252></head><body>"
        + b"".join(b"<p>caf\xe9 au lait %d</p>\n" % n for n in range(600)) + b"</body></html>")
BUDGET = 2048


def _handles(store: ScratchStore) -> dict[str, str]:
    scope = store.scope("r", "a")
    return {"log": scope.spill(CONTENT).handle, "terminal": scope.spill(TERMINAL, source_tool="bash").handle,
            "page": scope.spill(PAGE, source_tool="browser.get").handle}


REFUSED = [  # (which content, the refused call's arguments, the number of calls its refusal names)
    ("log", {"match": "of the", "offset": 99999999}, 2),
    ("log", {"pattern": r"line \d+ of", "max_matches": 2, "before": 99999999}, 1),
    ("terminal", {"match": "red 39", "view": "text", "before": 5000}, 2),
    ("terminal", {"match": "plain", "view": "text", "end": 3000, "offset": 100}, 2),
    ("terminal", {"pattern": r"red \d+", "view": "text"}, 1),
    ("terminal", {"match": "red", "view": "text", "offset": 99999999}, 1),
    ("page", {"match": "lait 59", "view": "text", "encoding": "cp1252"}, 2),
]


@pytest.mark.parametrize(("content", "arguments", "count"), REFUSED)
def test_each_call_a_search_refusal_names_repeats_the_budget_and_fits_it(tmp_path, content, arguments, count):
    with ScratchStore(str(tmp_path / "root")) as store:
        handle = _handles(store)[content]
        tools = ScratchTools(store.scope("r", "a"))
        with pytest.raises(InvalidArgument) as refused:
            tools.call("read_handle", {"handle": handle, **arguments, "budget": BUDGET})
        calls = refused.value.calls
        assert len(calls) == count, str(refused.value)
        for call in calls:
            assert dict(call.arguments)["budget"] == BUDGET, str(refused.value)
            assert f"budget={BUDGET})" in str(refused.value)
            reply = tools.call(call.verb, dict(call.arguments))  # (the advised call runs, within the budget)
            assert reply_size(reply) <= BUDGET and (reply.get("windows") or reply.get("matches")), reply


@pytest.mark.parametrize(("content", "arguments", "count"), [REFUSED[0], REFUSED[2], REFUSED[3]])
def test_the_cli_prints_each_command_with_its_budget_and_it_runs(tmp_path, content, arguments, count):
    root = str(tmp_path / "root")
    with ScratchStore(root) as store:
        handle = _handles(store)[content]
    words = [f"--{name.replace('_', '-')}={value}" for name, value in arguments.items()]
    failed = CliRunner().invoke(main, ["read-handle", handle, *words, "--budget", str(BUDGET), "--root", root,
                                       "--run", "r", "--agent", "a"])
    assert failed.exit_code == 2, failed.stderr
    commands = re.findall(r"\S+ (read-handle .*? --agent a)(?=$|[ ;,)\n])", failed.stderr)
    assert len(commands) == count, failed.stderr
    for command in commands:
        assert f"--budget {BUDGET}" in command, failed.stderr
        done = CliRunner().invoke(main, shlex.split(command))
        assert done.exit_code == 0, done.stderr
        assert len(done.stdout.rstrip("\n").encode()) <= BUDGET and json.loads(done.stdout)["windows"]


def test_the_mcp_server_s_refusal_names_calls_with_the_budget(tmp_path):
    root = str(tmp_path / "root")
    with ScratchStore(root) as store:
        handles = _handles(store)
    log, terminal = handles["log"], handles["terminal"]

    async def body():
        async with connect(scratchfs_params("mcp", "--root", root, "--run", "r", "--agent", "a"),
                           "2025-11-25") as client:
            past = error_of(await client.call_tool("read_handle", {"handle": log, "match": "of the",
                                                                   "offset": 99999999, "budget": BUDGET}))
            view = error_of(await client.call_tool("read_handle", {"handle": terminal, "match": "red 39",
                                                                   "view": "text", "before": 5000,
                                                                   "budget": BUDGET}))
            missed = payload(await client.call_tool("read_handle", {"handle": handles["page"], "match": "café 3",
                                                                    "budget": BUDGET}))
            return past, view, missed

    past, view, missed = run(body)  # (a note's calls: as data in the JSON reply, with the budget)
    assert missed["windows"] == [] and missed["calls"] == [{"tool": "read_handle", "arguments": {
        "handle": handles["page"], "match": "café 3", "view": "text", "budget": BUDGET}}], missed
    assert past.startswith("invalid argument: ")
    assert (f'read_handle(handle="{log}", match="of the", budget={BUDGET}) looks through all of it, and '
            f'read_handle(handle="{log}", match="of the", before={len(CONTENT)}, budget={BUDGET}) finds the last '
            "matches") in past, past
    assert f'read_handle(handle="{terminal}", match="red 39", before=5000, budget={BUDGET})' in view, view
    assert f'read_handle(handle="{terminal}", match="red 39", view="text", budget={BUDGET})' in view, view


def test_a_pattern_s_time_limit_names_the_search_past_it_as_a_call_with_the_budget(tmp_path):
    # "search on past them with offset=40001" was words: no call, no budget (advice3)
    from scratchfs.api.settings import Settings

    data = b"a" * 30000 + b"\n" + b"x\n" * 5000
    with ScratchStore(str(tmp_path / "root"), settings=Settings(pattern_timeout=0.2)) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(data).handle
        tools = ScratchTools(scope)
        with pytest.raises(InvalidArgument) as refused:
            tools.call("read_handle", {"handle": handle, "pattern": "(a|aa)*c", "budget": BUDGET})
        [call] = refused.value.calls
        past = dict(call.arguments)["offset"]
        assert dict(call.arguments) == {"handle": handle, "pattern": "(a|aa)*c", "offset": past, "budget": BUDGET}
        assert f"search on past them: {call}, their matches unsearched" in str(refused.value)
        assert refused.value.resume_offset == 0 and past > 30000
        reply = tools.call(call.verb, dict(call.arguments))  # (past the a's: nothing to backtrack over)
        assert reply["windows"] == [] and reply["next_call"] is None and reply_size(reply) <= BUDGET
