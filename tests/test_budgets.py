"""Replies sized for a model: every reply fits its budget in the bytes the model receives (the JSON text, escapes
included), every call a stub or a reply suggests fits the default budget, and following ``next_call`` from the first
read to the end returns every byte exactly once."""

from __future__ import annotations

import ast
import json
import re

import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import window_hits
from scratchfs.api.views import reply_text
from scratchfs.cli import main
from scratchfs.foundation.limits import MIN_REPLY_BYTES
from scratchfs.mcp.server import ScopeResolver, run_scratch_tool

DEFAULT = 8192
CEILING = 65536
SLACK = 1024  # "within 64 KiB + 1 KiB"


def generated() -> dict[str, bytes]:
    """The shapes of tool output that used to flood the context (issue 11)."""
    items = [{"id": i, "name": f"instance-{i}", "state": {"code": 16, "name": "running"},
              "tags": [{"Key": "env", "Value": "prod"}]} for i in range(4000)]
    one_line = json.dumps({"operations": {f"Op{i}": {"input": {"shape": f"Op{i}Request"}} for i in range(300)},
                           "items": items}).encode()
    jsonl = b"".join(json.dumps({"ts": 1700000000 + i, "level": "info", "msg": "x" * 900}).encode() + b"\n"
                     for i in range(300))
    terminal = b"".join(b"\x1b[32mDownloading\x1b[0m package-%d " % i +
                        b"".join(b"\r[%-20s] %3d%%" % (b"#" * (p // 5), p) for p in range(0, 101, 5)) + b"\n"
                        for i in range(400))
    controls = bytes(range(32)) * 2000 + b"\n" + b"ok\n" * 100
    latin1 = ("Résumé des opérations: naïve façade, crème brûlée, déjà vu.\n" * 2000).encode("latin-1")
    return {"one-line.json": one_line, "records.jsonl": jsonl, "terminal.log": terminal, "controls.bin": controls,
            "latin1.txt": latin1}


def call_args(call: str) -> tuple[str, dict]:
    """``read_handle(handle="h_...", offset=1)`` -> ``("read_handle", {"handle": ..., "offset": 1})``."""
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call)
    return node.func.id, {k.arg: ast.literal_eval(k.value) for k in node.keywords}


def suggested_calls(note: str) -> list[str]:
    return re.findall(r"(?:read_handle|scratch_read|scratch_list)\([^|]*?\)(?=\.$| \|)", note)


def mcp_reply(store: ScratchStore, name: str, args: dict) -> str:
    result = run_scratch_tool(ScopeResolver(store, "r", "a"), name, args, None)
    assert not result.is_error, result.content[0].text
    return result.content[0].text


def cli_reply(root, name: str, args: dict) -> str:
    assert name == "read_handle"
    argv = ["read-handle", args.pop("handle"), "--json", "--root", str(root), "--run", "r", "--agent", "a"]
    for key, value in args.items():
        flag = f"--{key.replace('_', '-')}"
        argv += [flag] if value is True else [flag, str(value)]  # (ignore_case, slurp: flags)
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    return result.stdout.rstrip("\n")


@pytest.fixture(scope="module")
def outputs(fixture_data) -> dict[str, bytes]:
    return {**fixture_data, **generated()}


def test_every_suggested_call_fits_the_default_budget(tmp_path, outputs):
    """Each stub's suggested calls, and the next_calls of their replies (five steps on), reply within 8 KiB, over MCP
    and over the CLI's --json."""
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        checked = 0
        for name, data in outputs.items():
            stub = scope.spill(data, source_tool=name)
            calls = suggested_calls(stub.note)
            assert calls, (name, stub.note)
            for call in calls:
                filled = call.replace('"REGEX"', '"e"').replace('"TEXT"', '"e"').replace('"JQ"', '"length"')
                verb, args = call_args(filled)
                text = mcp_reply(store, verb, args)
                assert len(text.encode()) <= DEFAULT, (name, call, len(text.encode()))
                assert reply_text(json.loads(cli_reply(tmp_path, verb, dict(args)))) == text  # (the CLI's keep calls)
                for _ in range(5):
                    reply = json.loads(text)
                    if not reply.get("next_call"):
                        break
                    verb, args = call_args(reply["next_call"])
                    text = mcp_reply(store, verb, args)
                    assert len(text.encode()) <= DEFAULT, (name, reply["next_call"], len(text.encode()))
                    checked += 1
        assert checked > 20


def test_reads_at_the_ceiling_and_large_searches_and_listings_fit(tmp_path, outputs):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        for name, data in outputs.items():
            handle = scope.spill(data, source_tool=name).handle
            for args in ({"length": 65536}, {"line": 1, "lines": 10_000}, {"match": "e", "max_matches": 1000,
                                                                           "context": 8192}):
                text = mcp_reply(store, "read_handle", {"handle": handle, "budget": CEILING, **args})
                assert len(text.encode()) <= CEILING + SLACK, (name, args)
        hits = scope.spill(b"x\n" * 5000, source_tool="t").handle  # 5,000 one-byte matches
        text = mcp_reply(store, "read_handle", {"handle": hits, "match": "x", "max_matches": 1000, "context": 0,
                                                "budget": CEILING})
        reply = json.loads(text)
        assert len(text.encode()) <= CEILING + SLACK and reply["next_offset"] is not None
        shown = [m["offset"] for w in reply["windows"] for m in window_hits(w)]
        assert shown == list(range(0, 2 * len(shown), 2)) and reply["next_offset"] == 2 * len(shown)
        for i in range(1000):
            scope.scratch_write(f"note-{i:04d}-" + "k" * 100, "v" * 200)
        listed = mcp_reply(store, "scratch_list", {"budget": CEILING})
        assert len(listed.encode()) <= CEILING + SLACK
        keys, page = [], json.loads(listed)
        while True:
            keys += [e["key"] for e in page["entries"]]
            if not page["next_call"]:
                break
            verb, args = call_args(page["next_call"])
            assert args["budget"] == CEILING  # next_call repeats the caller's budget: pages as large as the first
            page = json.loads(mcp_reply(store, verb, args))
            assert len(to_bytes(page)) <= CEILING + SLACK
        assert keys == sorted(keys) and len(keys) == 1000


def to_bytes(reply: dict) -> bytes:
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()


CONTENT = st.lists(st.sampled_from([b"a", b"b", b"\n", b" ", "é".encode(), "日".encode(), "😀".encode(), b"\xff",
                                    b"\x1b[0m", b"\r", b"\x00", b"x" * 50]), max_size=2500).map(b"".join)


@settings(max_examples=40, deadline=None)
@given(data=CONTENT, budget=st.integers(MIN_REPLY_BYTES, 4000), mode=st.sampled_from(["range", "lines"]),
       size=st.integers(1, 400))
@example(data=b"\x00a", budget=MIN_REPLY_BYTES, mode="range", size=1)  # (a hex dump, then a piece that is text)
@example(data="é\x00".encode() + b"x" * 50 + "éa".encode(), budget=2048, mode="range", size=54)  # (the dump's end
# cut the second é: the range after it, text, started past the character, its second byte shown by neither)
def test_following_next_call_returns_every_byte_once(scratch_store, data, budget, mode, size):
    scope = scratch_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    args = {"handle": handle, "budget": budget, **({"length": size} if mode == "range" else {"line": 1,
                                                                                             "lines": size})}
    verb, covered, texts, dumps = "read_handle", 0, [], 0
    for _ in range(10_000):
        text = mcp_reply(scratch_store, verb, args)
        assert len(text.encode()) <= budget
        reply = json.loads(text)
        assert reply["offset"] == covered, "a byte skipped or returned twice"
        piece = data[covered : covered + reply["length"]]
        if reply.get("encoding") == "text":  # (a piece of binary content that is text: its bytes as they are)
            assert reply["data"] == piece.decode("utf-8")
        covered += reply["length"]
        texts.append(reply["data"])
        dumps += reply.get("encoding") == "hexdump"  # (binary content: its pieces that are text come as text)
        if reply["next_call"] is None:
            break
        assert reply["next_offset"] == covered
        verb, args = call_args(reply["next_call"])
    assert covered == len(data)
    if not dumps:
        assert "".join(texts) == data.decode("utf-8", "replace") or not _valid(data)


def _valid(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


HOSTILE = st.lists(st.sampled_from([b"a", b"ab", b"\n", b"\r\n", b"\x00", b"\x01", b"\x1f", b"\\", b'"', "é".encode(),
                                    "\u2028".encode(), "😀".encode(), b"\xff", b"\xc3", b"\xef\xbb\xbf", b"\x1b[0m",
                                    b"a" * 300]), max_size=1500).map(b"".join)


@settings(max_examples=40, deadline=None)
@given(data=HOSTILE, budget=st.integers(MIN_REPLY_BYTES, 3000), needle=st.sampled_from(["a", "ab", "\u2028", "\\"]),
       regex=st.booleans(), context=st.sampled_from([0, 3, 200, 8192]), matches=st.integers(1, 50))
def test_following_a_searchs_next_call_finds_every_match_once_as_python_does(scratch_store, data, budget, needle,
                                                                            regex, context, matches):
    """A search over content that maximises escaping (control bytes, NUL, U+2028, quotes, backslashes, invalid UTF-8,
    CRLF, a BOM), at any budget: every reply fits, and following next_call (or, where it was left out for the
    budget, the same call from next_offset) shows each match Python's re finds, in order, exactly once."""
    scope = scratch_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    key, value = ("pattern", re.escape(needle)) if regex else ("match", needle)
    args = {"handle": handle, key: value, "context": context, "max_matches": matches, "budget": budget}
    found = []
    for _ in range(20_000):
        text = mcp_reply(scratch_store, "read_handle", args)
        assert len(text.encode()) <= budget
        reply = json.loads(text)
        found += [m["offset"] for w in reply["windows"] for m in window_hits(w)]
        if not reply.get("more"):
            break
        if reply["next_call"] is None:  # left out for the budget: the note says to go on from next_offset
            args = {**args, "offset": reply["next_offset"]}
        else:
            args = call_args(reply["next_call"])[1]
    assert found == [m.start() for m in re.finditer(re.escape(needle.encode()), data)]
