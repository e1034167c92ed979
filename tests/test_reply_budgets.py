"""Every reply kind fits its budget whatever the caller's arguments: long, all ``"`` or ``\\``, control characters,
non-ASCII, astral. Arguments are echoed in a reply and written again in its ``next_call``; the reply measures that
fixed part first (:mod:`scratchfs.api.fixed`): the compact-JSON UTF-8 size of the reply -- or of the error text --
is at most the budget, from the smallest allowed up to a few KiB, and a ``next_call`` given is a complete call that
succeeds (a ``next_call`` left out says so in ``note``, and the cursor given alone goes on)."""

from __future__ import annotations

import csv
import io
import json
import re

from hypothesis import example, given
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools, window_hits
from scratchfs.api.fixed import ELLIPSIS, Squeeze, shorten
from scratchfs.api.tools import TOOL_SPECS
from scratchfs.api.views import reply_size
from scratchfs.foundation.limits import (
    MAX_FILTER_CHARS,
    MAX_KEY_BYTES,
    MAX_NEEDLE_BYTES,
    MAX_SELECTOR_CHARS,
    MIN_REPLY_BYTES,
)
from scratchfs.mcp.server import ScopeResolver, run_scratch_tool
from tests.test_budgets import call_args

NASTY = ['"', "\\", "\x01", "\x1f", "\x7f", "é", "日", "😀", "a", " ", "\u2028", "\n"]
MIXED = st.text(st.sampled_from(NASTY), min_size=1, max_size=700)
RUNS = st.builds(lambda c, n: c * n, st.sampled_from(NASTY), st.integers(1, 4200))
ARGUMENT = st.one_of(MIXED, RUNS)
BUDGET = st.one_of(st.just(MIN_REPLY_BYTES), st.integers(MIN_REPLY_BYTES, 6144))


def _call(store, name: str, args: dict) -> tuple[bool, str]:
    result = run_scratch_tool(ScopeResolver(store, "r", "a"), name, args, None)
    return result.is_error, result.content[0].text


def check(store, name: str, args: dict, budget: int) -> dict | None:
    """The reply (``None`` for an error) after checking its size and following its next_call (or its cursor)."""
    failed, text = _call(store, name, args)
    assert len(text.encode("utf-8")) <= budget, (name, len(text.encode("utf-8")), budget, text[:300])
    if failed:
        assert text.count(":") >= 1 and not text.startswith("error:"), text[:300]  # a typed error, not a bug
        return None
    reply = json.loads(text)
    default = store.settings.reply_budget_bytes
    if reply.get("next_call"):
        verb, follow = call_args(reply["next_call"])
        assert verb == name
        again_failed, again = _call(store, verb, follow)
        assert not again_failed, (reply["next_call"][:300], again[:300])
        assert len(again.encode("utf-8")) <= default
    elif "note" in reply and "is the content's end" in reply["note"]:  # (a read from it: its last bytes named)
        assert reply["next_call"] is None and f"{name}(" in reply["note"]  # (a value's: scratch_read's)
    elif "note" in reply:  # left out: the note says so, and the cursor alone (when given) goes on
        assert reply["next_call"] is None and "next_call left out" in reply["note"]
        cursor = reply.get("cursor", reply.get("next_cursor"))
        if cursor is not None:
            at = {k: int(v) for k, v in re.findall(r"\b(row|record)=(\d+) with it", reply["note"])}
            again_failed, again = _call(store, name, {**args, **at, "cursor": cursor})  # as the note says
            assert not again_failed, again[:300]
    if "shortened" in reply:
        for argument, full in reply["shortened"].items():
            assert full == len(args[argument])
    return reply


@given(needle=ARGUMENT, budget=BUDGET, regex=st.booleans(), context=st.integers(0, 300),
       matches=st.integers(1, 50), ignore_case=st.booleans())
@example(needle="é" * 911, budget=MIN_REPLY_BYTES, regex=False, context=0, matches=1, ignore_case=True)
def test_search_replies_fit(store, needle, budget, regex, context, matches, ignore_case):
    raw = needle.encode("utf-8")
    handle = store.scope("r", "a").spill(b"".join(b"x%d " % i + raw + b" y\n" for i in range(30))).handle
    what = {"pattern": re.escape(needle)} if regex else {"match": needle}
    reply = check(store, "read_handle", {"handle": handle, **what, "context": context, "max_matches": matches,
                                         "ignore_case": ignore_case, "budget": budget}, budget)
    too_long = len(next(iter(what.values())).encode("utf-8")) > MAX_NEEDLE_BYTES
    if reply is None and ignore_case and not too_long and not regex:  # (911 "é": 1,822 bytes, each written as all
        refusal = _call(store, "read_handle", {"handle": handle, **what, "ignore_case": True})[1]  # its variants)
        too_long = "written as all its case variants" in refusal  # (the case-blind pattern's bound: typed, its words)
    assert (reply is None) == too_long or regex  # a pattern may be refused by the regex engine too
    if reply is not None and not ignore_case:
        assert reply["windows"] and window_hits(reply["windows"][0])[0]["offset"] <= len(b"x0 ")  # " " matches at 2


@given(key=ARGUMENT, budget=BUDGET, value=MIXED, offset=st.integers(0, 40), length=st.integers(1, 5000),
       cut=st.integers(0, 5))
@example(key="k", budget=MIN_REPLY_BYTES, value="aa", offset=40, length=1, cut=0)  # (a read at a value's end)
def test_scratchpad_replies_fit(store, key, budget, value, offset, length, cut):
    scope = store.scope("r", "a")
    default = store.settings.reply_budget_bytes
    written = check(store, "scratch_write", {"key": key, "value": value * 20}, default)
    if written is None:  # a control character, or longer than the limit: refused, in a reply that fits
        assert any(c in key for c in "\x01\x1f\x7f\n") or len(key.encode()) > MAX_KEY_BYTES or len(key) > 512
        return
    for i in range(3):
        scope.scratch_write(key + "/" * (i + 1) if len((key + "///").encode()) <= MAX_KEY_BYTES else key[:-1 - i]
                            if len(key) > 3 else key + str(i), b"v")
    read = check(store, "scratch_read", {"key": key, "offset": offset, "length": length, "budget": budget}, budget)
    assert read is None or read["offset"] <= offset + 4
    prefix = key[: len(key) - cut] if cut < len(key) else key
    listed = check(store, "scratch_list", {"prefix": prefix, "limit": 2, "budget": budget}, budget)
    assert listed is not None and listed["entries"]
    check(store, "scratch_list", {"budget": budget}, budget)
    deleted = check(store, "scratch_delete", {"key": key}, default)
    assert deleted is not None and deleted["deleted"] is True


def _csv(header: list[str], rows: int) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows([[f"v{i}", f"w{i}"] for i in range(rows)])
    return out.getvalue().encode("utf-8")


@given(text=ARGUMENT, budget=BUDGET, kind=st.sampled_from(["jq", "records", "rows", "select"]))
def test_structure_replies_fit(store, text, budget, kind):
    scope = store.scope("r", "a")
    literal = json.dumps(text, ensure_ascii=False)
    if kind == "jq":
        doc = json.dumps([{"k": text if i % 2 else "other", "v": "x" * 40} for i in range(200)]).encode()
        args = {"jq": f".[] | select(.k != {literal}) | .v"}
    elif kind == "records":
        doc = b"".join(json.dumps({"k": i, "v": text[:50]}).encode() + b"\n" for i in range(100))
        args = {"record": 1, "records": 80, "jq": f"select(.v != {literal})"}
    elif kind == "rows":
        name = text.replace("\n", " ").replace("\r", " ")[:1000]
        doc = _csv(["id", name], 200)
        args = {"columns": [name, 0]}
    else:
        doc = b"<html><body>" + b"".join(b"<p class=a>para %d</p>" % i for i in range(300)) + b"</body></html>"
        args = {"select": "p.a" + ":not(.b)" * ((len(text) // 7) or 1)}
    handle = scope.spill(doc, source_tool="t.json" if kind == "jq" else None).handle
    reply = check(store, "read_handle", {"handle": handle, **args, "budget": budget}, budget)
    refused = (len(args.get("jq", "")) > MAX_FILTER_CHARS or len(args.get("select", "")) > MAX_SELECTOR_CHARS)
    assert reply is not None or refused or kind == "rows"


@given(data=st.lists(st.sampled_from([b'"', b"\\", b"\x01", "😀".encode(), b"\n", b"a" * 30, b"\xff"]),
                     max_size=3000).map(b"".join),
       budget=BUDGET, lines=st.booleans(), start=st.integers(0, 2000), size=st.integers(1, 9000))
def test_range_and_line_replies_fit(store, data, budget, lines, start, size):
    handle = store.scope("r", "a").spill(data or b"x", source_tool="t").handle
    args = {"line": 1 + start // 40, "lines": 1 + size // 10} if lines else {"offset": start, "length": size}
    check(store, "read_handle", {"handle": handle, **args, "budget": budget}, budget)


def test_every_long_string_argument_has_a_max_length():
    for spec in TOOL_SPECS.values():
        for name, schema in spec.input_schema["properties"].items():
            if schema.get("type") == "string" and name not in ("value", "handle") and "enum" not in schema:
                assert "maxLength" in schema, (spec.name, name)
    items = TOOL_SPECS["read_handle"].input_schema["properties"]["columns"]["items"]
    assert "maxLength" in items


def test_a_schema_violation_does_not_repeat_a_long_value(store):
    failed, text = _call(store, "read_handle", {"handle": "h_" + "a" * 24, "jq": '"' * 50_000})
    assert failed and len(text) < 200 and "50000 characters" in text and str(MAX_FILTER_CHARS) in text


def test_shorten_keeps_whole_characters_and_marks_the_cut():
    for value in ('"' * 500, "😀" * 500, "\x01" * 500, "a" * 500):
        short = shorten(value, 100)
        assert short.endswith(ELLIPSIS) and value.startswith(short[:-1])
        assert len(json.dumps(short, ensure_ascii=False).encode()) <= 100
        assert len(json.dumps(shorten(value, 100)[:-1] + value[len(short) - 1] + ELLIPSIS,
                              ensure_ascii=False).encode()) > 100  # the longest prefix that fits
    assert shorten(["ab" * 30] * 10, 200) == ["ab" * 30] * 3
    assert shorten("short", 100) == "short"


def test_the_squeeze_shortens_the_echo_then_leaves_out_next_call():
    floor = {"key": '"' * 512, "data": "x", "next_call": "scratch_read(key=" + json.dumps('"' * 512) + ")"}
    tight = Squeeze(floor, 600, {"key": ("key",)})
    reply = tight(dict(floor))
    assert reply_size(reply) <= 600 and reply["shortened"] == {"key": 512} and reply["next_call"] is None
    assert "next_call left out" in reply["note"]
    roomy = Squeeze(floor, 4000, {"key": ("key",)})
    assert roomy(dict(floor)) == floor  # nothing to do: nothing changed
    middle = Squeeze(floor, 2400, {"key": ("key",)})
    kept = middle(dict(floor))
    assert kept["next_call"] == floor["next_call"] and kept["shortened"] == {"key": 512}


def test_scratch_write_and_delete_replies_fit_the_store_budget(scratch_store_factory):
    store = scratch_store_factory("small", reply_budget_bytes=MIN_REPLY_BYTES)
    tools = ScratchTools(store.scope("r", "a"))
    key = '"' * MAX_KEY_BYTES
    assert reply_size(tools.call("scratch_write", {"key": key, "value": "v"})) <= MIN_REPLY_BYTES
    assert tools.call("scratch_delete", {"key": key}) == {"key": key, "deleted": True}


@given(run=st.text(st.sampled_from(['"', "\\", "é", "😀", "a"]), min_size=1, max_size=64),
       agent=st.text(st.sampled_from(['"', "\\", "日", "a"]), min_size=1, max_size=64), budget=BUDGET,
       limit=st.integers(1, 5))
def test_run_listings_fit_and_their_next_call_goes_on(store, run, agent, budget, limit):
    """A run's listing (every agent's entries, by :func:`listing_reply`, the builder of every listing reply) with
    ids and keys full of escaped characters: each page fits, and following next_call (or the cursor given alone)
    lists every entry once."""
    from scratchfs.api.listing import listing_reply
    from scratchfs.foundation.calls import render_call

    scope = store.scope(run, agent)
    keys = [run * (1 + i % 3) + agent for i in range(6)]
    for i, key in enumerate(keys):
        scope.scratch_write(key[: 100] + str(i), b"v" * i)
    seen, cursor = [], None
    for _ in range(20):
        page = store.list_page_for_run(run, limit=limit, cursor=cursor)
        rows = [{"key": e.key, "agent_id": e.agent_id, "size": e.size} for e in page.entries]
        reply = listing_reply({"run_id": run}, rows, page,
                              lambda c: render_call("list_run", run_id=run, limit=limit, cursor=c), budget)
        assert reply_size(reply) <= budget
        seen += [e["key"] for e in reply["entries"]]
        if reply["next_call"]:
            _verb, follow = call_args(reply["next_call"])
            assert follow["run_id"] == run and follow["limit"] == limit
            cursor = follow["cursor"]
        elif "note" in reply:
            cursor = reply.get("next_cursor")
            assert cursor is not None  # short ids: the cursor alone always fits
        else:
            break
    assert sorted(seen) == sorted(e.key for e in store.list_entries_for_run(run))
    store.delete_run(run)


def test_a_shorter_listing_page_is_planned_a_bounded_number_of_times(store, monkeypatch):
    """When the most rows fit only without their next_call, listing_reply looks for fewer rows whose next_call fits:
    it planned a Squeeze per row count tried (up to 30 here, unbounded in rows); now per distinct call length, by
    bisection. The page found is the same: the one row whose cursor is short, with its next_call."""
    from scratchfs.api import listing
    from scratchfs.foundation.calls import render_call

    monkeypatch.setattr("scratchfs.foundation.cursors._PACK_OVER", 10**9)  # long cursors as unpackable keys make
    scope = store.scope("r-plans", "a")                                      # them (quotes pack into a few bytes)
    keys = ["!0", *('"' * 500 + f"{i:02d}" for i in range(30))]  # listing order: created together, by key
    for key in [*keys, '"' * 500 + "99"]:
        scope.scratch_write(key, b"v")
    page = scope.scratch_page("", limit=len(keys))
    assert [e.key for e in page.entries] == keys and page.more
    rows = [{"n": i} for i in range(len(keys))]  # small rows: every one fits, only the calls are long
    prefix = "p" * 600  # echoed (and shortened) in the reply, whole in next_call

    def call(cursor):
        return render_call("scratch_list", prefix=prefix, cursor=cursor)

    plans = []
    real = listing.Squeeze
    monkeypatch.setattr(listing, "Squeeze", lambda *a, **k: plans.append(1) or real(*a, **k))
    reply = listing.listing_reply({"prefix": prefix}, rows, page, call, MIN_REPLY_BYTES)
    assert reply["entries"] == rows[:1] and reply_size(reply) <= MIN_REPLY_BYTES
    assert reply["next_call"] == call(page.cursor_after(1))
    assert 1 <= len(plans) <= 9, len(plans)  # the first fit (about log2 of 31 rows), then two call lengths; 31 before


def test_a_listing_with_a_long_key_goes_on_through_every_page_at_the_minimum_budget(store):
    """A key of 512 '"' makes a cursor of about 1,450 bytes: a page that ends on it cannot carry its next_call at
    2 KiB. The page is cut before the long key instead (its next_call fits), and the next page starts with it."""
    scope = store.scope("r-long", "a")
    keys = ["!0", "!1", '"' * 512, "m0", "m1", "m2", "m3", "m4"]  # in listing order (created together: by key)
    for key in keys:
        scope.scratch_write(key, b"v" * 100)
    tools = ScratchTools(scope)
    for limit in (3, 20):
        reply, seen = tools.call("scratch_list", {"limit": limit, "budget": MIN_REPLY_BYTES}), []
        while True:
            assert reply_size(reply) <= MIN_REPLY_BYTES
            seen += [row["key"] for row in reply["entries"]]
            if reply["next_call"] is None:
                break
            cursor = re.search(r'cursor="([^"]+)"', reply["next_call"]).group(1)
            reply = tools.call("scratch_list", {"limit": limit, "budget": MIN_REPLY_BYTES, "cursor": cursor})
        assert seen == keys, limit


def test_a_listing_of_long_quote_keys_at_the_minimum_budget_says_the_exact_budget_that_goes_on(store):
    """Keys of 512 bytes, all '"' (each 2 bytes of JSON, 4 inside next_call): at the 2 KiB minimum a page holds one
    row, and neither its next_call nor its cursor fits beside it; the note said "go on with a larger budget (over
    2048)", and 2049 gave the same page again: no progress. The note now names the budget with which the same call
    holds its next_call; following it goes through every key, each reply within its budget."""
    scope = store.scope("r-quotes", "a")
    keys = ['"' * n + "!" * (512 - n) for n in (512, 511, 510, 509)]
    for key in keys:
        scope.scratch_write(key, b'"' * 100)
    tools = ScratchTools(scope)
    args, seen, budget = {"budget": MIN_REPLY_BYTES}, [], MIN_REPLY_BYTES
    for _ in range(20):
        reply = tools.call("scratch_list", args)
        assert reply_size(reply) <= budget, (reply_size(reply), budget)
        if reply["next_call"] is None and "note" in reply:  # the same call with the budget the note names
            budget = int(re.search(r"budget=(\d+) ", reply["note"]).group(1))
            assert MIN_REPLY_BYTES < budget <= 4 * MIN_REPLY_BYTES and "next_cursor" not in reply, reply["note"]
            args = {**args, "budget": budget}
            again = tools.call("scratch_list", args)
            assert again["next_call"] is not None and again["entries"][:1] == reply["entries"][:1]
            continue
        seen += [row["key"] for row in reply["entries"]]
        if reply["next_call"] is None:
            break
        args = {**args, "cursor": re.search(r'cursor="([^"]+)"', reply["next_call"]).group(1)}
    assert sorted(seen) == sorted(keys) and len(seen) == len(keys)


def test_a_rows_page_after_the_first_is_not_refused_for_its_header(store):
    """A column named in 400-660 characters: the first page fits (its header under half its budget); the page its
    next_call (or its note's cursor) reads had its budget less the echoed cursor, and was refused ("the header alone
    takes 803 bytes of the 1,603-byte budget"). Found by test_structure_replies_fit."""
    for name, budget in (('"' * 397, 2048), ("n" * 658, 3000)):
        handle = store.scope("r", "a").spill(_csv(["id", name], 200)).handle
        check(store, "read_handle", {"handle": handle, "columns": [name, 0], "budget": budget}, budget)
