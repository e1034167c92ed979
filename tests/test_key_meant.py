"""A scratchpad key that names nothing names the key of its scope likely meant, as a handle does (helper replies3:
``scratch_read(key="bgi")`` with ``big`` live said only to use scratch_list), within the scope and at a bounded
cost; and ``scratch_delete`` of a key never written says why nothing was deleted (it said ``{"deleted": false}``
over MCP, where the CLI said why on stderr)."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.api.missing import KEYS_COMPARED, Letters, key_meant, within
from scratchfs.foundation.errors import NotFound
from scratchfs.mcp.server import ScopeResolver, run_scratch_tool


def mcp_text(store, name: str, args: dict) -> str:
    """The text block a model receives over MCP (compact JSON: the unit of every budget)."""
    result = run_scratch_tool(ScopeResolver(store, "run-1", "agent-1"), name, args, None)
    assert not result.is_error, result.content[0].text
    return result.content[0].text


def test_a_key_one_character_off_names_the_key_of_this_scope_only(scratch_store, scratch_scope):
    tools = ScratchTools(scratch_scope)
    tools.scratch_write("big", "x")
    tools.scratch_write("notes/openhook-summary", "y")
    scratch_store.scope("run-1", "agent-2").scratch_write("plan", "z")  # another scope's key: never named
    scratch_store.scope("run-2", "agent-1").scratch_write("plan", "z")
    for typo, meant in (("bgi", "big"), ("Big", "big"), ("bi", "big"), ("notes/openhook-sumary", None),
                        ("notes/openhok-sumary", None), ("notes/openhook_summary", None)):
        with pytest.raises(NotFound, match=rf"no key '{typo}' in this scope .*did you mean "
                                           rf"'{meant or 'notes/openhook-summary'}', a key of this scope\?"):
            tools.call("scratch_read", {"key": typo})
    for far in ("plan", "pla", "xyz", "notes/other"):
        with pytest.raises(NotFound) as refused:
            tools.call("scratch_read", {"key": far})
        assert "did you mean" not in str(refused.value) and "plan'" not in str(refused.value).split(far, 1)[1]
        assert str(refused.value).endswith("scratch_list lists the keys of this scope")


def _distance(a: str, b: str) -> int:
    """The plain answer: optimal string alignment distance (edits and swaps of neighbours), full table."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


@given(a=st.text("abc/", max_size=12), b=st.text("abc/", max_size=12), most=st.integers(0, 3))
def test_within_agrees_with_the_full_table(a, b, most):
    plain = _distance(a, b)
    assert within(a, b, most) == (plain if plain <= most else None)


def test_the_keys_compared_are_bounded_and_cheap():
    """10,000 live keys of 500 characters sharing all but their last ones: one key's "did you mean" stays cheap."""
    head = "notes/" + "x" * 480
    keys = [f"{head}{i:06d}-result" for i in range(KEYS_COMPARED + 500)]
    asked = []

    class Index:
        def list_page(self, run_id, agent_id, kind, prefix, now, after, limit):
            asked.append((run_id, agent_id, kind, limit))
            return [SimpleNamespace(key=k) for k in keys[:limit]]

    started = time.thread_time()  # (this thread's CPU: the other worker's test leaves it as it is)
    assert key_meant(Index(), "r", "a", f"{head}00777-result", 0.0) == f"{head}000777-result"  # (a digit left out)
    assert key_meant(Index(), "r", "a", "y" * 500, 0.0) is None
    assert time.thread_time() - started < 5.0  # (about 0.1 s on one core; a bound, not a measure)
    assert asked == [("r", "a", "scratch", KEYS_COMPARED)] * 2  # one page, of this scope's keys


def test_deleting_a_key_never_written_says_why_and_names_the_one_meant(scratch_store, scratch_scope, scratch_clock):
    ScratchTools(scratch_scope).scratch_write("big", "x")
    never = json.loads(mcp_text(scratch_store, "scratch_delete", {"key": "never"}))
    assert never == {"key": "never", "deleted": False, "note": "nothing deleted: no key 'never' in this scope (run "
                     "'run-1', agent 'agent-1'); another agent's keys are not read here; scratch_list lists "
                     "the keys of this scope"}
    near = json.loads(mcp_text(scratch_store, "scratch_delete", {"key": "bgi"}))
    assert near["deleted"] is False and "did you mean 'big', a key of this scope?" in near["note"]
    assert json.loads(mcp_text(scratch_store, "scratch_delete", {"key": "big"}))["deleted"] is True
    again = json.loads(mcp_text(scratch_store, "scratch_delete", {"key": "big"}))
    assert again["note"].startswith("nothing deleted: key 'big' was deleted at ")
    long_key = '"' * 511 + "x"  # (said twice and its near key once: over a small budget, the short note)
    ScratchTools(scratch_scope).scratch_write('"' * 511 + "y", "x")
    tight = scratch_store.settings.reply_budget_bytes
    text = mcp_text(scratch_store, "scratch_delete", {"key": long_key})
    assert len(text.encode()) <= tight and json.loads(text)["note"].startswith("nothing deleted: ")


@pytest.mark.scratch_store(reply_budget_bytes=2048)
def test_a_delete_note_fits_the_smallest_budget(scratch_store, scratch_scope):
    ScratchTools(scratch_scope).scratch_write('"' * 511 + "y", "x")
    text = mcp_text(scratch_store, "scratch_delete", {"key": '"' * 511 + "x"})
    assert len(text.encode()) <= 2048
    assert json.loads(text)["note"] == ("nothing deleted: no live value under this key in this scope; scratch_list "
                                        "lists the keys of this scope")


def _bag(a: str, b: str) -> int:
    """The plain bag distance: the larger of the two multiset differences of their characters."""
    from collections import Counter
    return max(sum((Counter(a) - Counter(b)).values()), sum((Counter(b) - Counter(a)).values()))


@given(a=st.text("abc/é", max_size=12), b=st.text("abc/é", max_size=12), most=st.integers(0, 3))
def test_the_letters_bound_is_the_bag_distance_and_never_above_the_edit_distance(a, b, most):
    bound = Letters(a).bound(b, most)
    assert bound <= _distance(a, b)
    assert bound == _bag(a, b) if _bag(a, b) <= most else bound > most


def _meant_plainly(keys: list[str], key: str) -> str | None:
    """The plain answer key_meant gives: a key differing in case alone first, else the nearest by the full table
    within one edit (7 characters or fewer) or two, the oldest of the nearest."""
    same = [k for k in keys if k.casefold() == key.casefold() and k != key]
    if same:
        return same[0]
    near = [(_distance(key, k), i) for i, k in enumerate(keys) if k != key]
    near = [(d, i) for d, i in near if d <= (1 if len(key) < 8 else 2)]
    return keys[min(near)[1]] if near else None


@given(keys=st.lists(st.text("abcAB-", max_size=10), max_size=30), key=st.text("abcAB-", max_size=10))
def test_key_meant_names_the_key_the_plain_answer_names(keys, key):
    class Index:
        def list_page(self, run_id, agent_id, kind, prefix, now, after, limit):
            return [SimpleNamespace(key=k) for k in keys]

    assert key_meant(Index(), "r", "a", key, 0.0) == _meant_plainly(keys, key)


@pytest.mark.parametrize(("make", "asked", "meant"), [
    (lambda i: f"{i * 7919:x}-key", "zzzz-qqqq", None), (lambda i: f"{i:010d}" + "k" * 490, "q" * 500, None),
    (lambda i: f"step-{i:05d}", "step-0x123", "step-00123")])
def test_the_table_is_counted_for_few_of_10000_keys(monkeypatch, make, asked, meant):
    """The cost of a key none is near (bench/error_sizes.py --key-cost: 110 ms among 10,000 keys, most of it the
    banded table of every key): the character-count bound passes over nearly every key before the table runs."""
    from scratchfs.api import missing
    keys, tables = [make(i) for i in range(KEYS_COMPARED)], []
    real = missing.within
    monkeypatch.setattr(missing, "within", lambda a, b, most: tables.append(b) or real(a, b, most))

    class Index:
        def list_page(self, run_id, agent_id, kind, prefix, now, after, limit):
            return [SimpleNamespace(key=k) for k in keys]

    found = key_meant(Index(), "r", "a", asked, 0.0)
    assert found == meant and len(tables) < 100, (found, len(tables))
