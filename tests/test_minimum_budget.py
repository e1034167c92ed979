"""At the smallest budget (2 KiB) every listing and scratchpad read keeps its way on -- ``next_call``, or the cursor
(``next_cursor``; a value's ``next_offset`` and ``version``) when the call does not fit -- with the longest keys,
all escaped. A new user's listing of a 512-byte key of ``"`` came back with neither (``budget=2696``, said its note),
and scratch_read of that key lost its version guard."""

from __future__ import annotations

import json
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.limits import MAX_KEY_BYTES, MIN_REPLY_BYTES

ESCAPED = '"\\'


def size(reply: dict) -> int:
    return len(json.dumps(reply, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def key_of(chars: str, fill: str) -> str:
    """``chars`` padded with ``fill`` to the longest key, 512 bytes of UTF-8."""
    key = chars
    while len((key + fill).encode("utf-8")) <= MAX_KEY_BYTES:
        key += fill
    return key


keys = st.builds(key_of, st.text(alphabet=ESCAPED + "aé\u2028😀", max_size=40), st.sampled_from(ESCAPED))


def list_all(tools: ScratchTools, prefix: str) -> list[str]:
    """Every key under ``prefix``, page by page at the smallest budget, each page checked."""
    args: dict = {"prefix": prefix, "budget": MIN_REPLY_BYTES}
    seen: list[str] = []
    for _ in range(20):
        reply = tools.call("scratch_list", args)
        assert size(reply) <= MIN_REPLY_BYTES
        assert reply["entries"], reply.get("note")
        seen += [row["key"] for row in reply["entries"]]
        if reply.get("next_call") is not None:
            name, args = parse_call(reply["next_call"])
            assert name == "scratch_list"
        elif reply.get("next_cursor") is not None:
            args = {"prefix": prefix, "budget": MIN_REPLY_BYTES, "cursor": reply["next_cursor"]}
        else:
            return seen
    raise AssertionError("no end")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(some=st.lists(keys, min_size=1, max_size=3, unique=True), prefixed=st.booleans())
def test_a_listing_of_the_longest_escaped_keys_at_the_smallest_budget_goes_on(some, prefixed):
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        tools = ScratchTools(store.scope("r", "a"))
        for key in some:
            tools.call("scratch_write", {"key": key, "value": key * 3})
        prefix = some[0][:1] if prefixed else ""
        assert list_all(tools, prefix) == [key for key in some if key.startswith(prefix)]


def test_the_new_users_listing_row_of_512_quotes_keeps_its_next_call():
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        tools = ScratchTools(store.scope("r", "a"))
        for key in ('"' * 512, '"' * 511 + "\\", "\\" * 512):
            tools.call("scratch_write", {"key": key, "value": "v" * 10_000})
        reply = tools.call("scratch_list", {"budget": MIN_REPLY_BYTES})
        assert len(reply["entries"]) == 1 and reply["next_call"] is not None, reply.get("note")
        assert "note" not in reply


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=keys, value=st.text(alphabet=ESCAPED + "x\n", min_size=1, max_size=60).map(lambda t: t * 60))
def test_reading_a_value_of_the_longest_escaped_key_at_the_smallest_budget_keeps_its_version(key, value):
    read_all(key, value)


def test_the_new_users_read_of_a_512_quote_key_keeps_its_version_guard():
    read_all('"' * 512, "v" * 10_000)


def read_all(key: str, value: str) -> None:
    """Read ``value`` back under ``key`` at the smallest budget, following each reply's way on."""
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        tools = ScratchTools(store.scope("r", "a"))
        tools.call("scratch_write", {"key": key, "value": value})
        args: dict = {"key": key, "budget": MIN_REPLY_BYTES}
        got = ""
        for _ in range(len(value) + 1):
            reply = tools.call("scratch_read", args)
            assert size(reply) <= MIN_REPLY_BYTES
            got += reply["data"]
            if reply["next_call"] is not None:
                name, args = parse_call(reply["next_call"])
                assert name == "scratch_read"
                assert "version" in args
            elif reply["next_offset"] is not None:  # the call does not fit: the cursor of a value is given
                assert len(reply["version"]) == 8 and "version" in reply["note"]
                args = {"key": key, "budget": MIN_REPLY_BYTES, "offset": reply["next_offset"],
                        "version": reply["version"]}
            else:
                break
        assert got == value
