"""``scratchfs mcp-proxy`` in front of a small MCP server with one tool per kind of result (tests/mcp_fake_upstream.py),
over stdio with the official client, in both protocol eras: what is spilled, what passes through untouched, and how
an upstream that crashes, hangs or never starts is reported while the proxy keeps serving its own tools."""

from __future__ import annotations

import json
import re
import sys
from contextlib import ExitStack

import anyio
import mcp_types as types
import pytest
from click.testing import CliRunner
from mcp.shared.exceptions import MCPError

from scratchfs.cli import main
from scratchfs.mcp.upstream import NOT_AGAIN

from .mcp_fake_upstream import big_text
from .mcp_support import (
    ERAS,
    FAKE_UPSTREAM,
    TESTS,
    connect,
    error_of,
    find_all,
    held_launcher,
    match_offsets,
    one_era,
    payload,
    raw_upstream,
    read_all,
    run,
    scratchfs_params,
    search_all,
    shared_client,
    still_running,
    window_is_exact,
)

OWN_TOOLS = {"read_handle", "scratch_write", "scratch_read", "scratch_list", "scratch_delete"}


def proxy(root, *options: str, upstream=FAKE_UPSTREAM):
    return scratchfs_params("mcp-proxy", "--root", str(root), *options, "--", *upstream)


def stub_of(result) -> dict:
    """The stub of a spilled result: one text block of compact JSON, nothing else."""
    assert not result.is_error and result.structured_content is None
    (block,) = result.content
    assert block.type == "text"
    stub = json.loads(block.text)
    assert set(stub) == {"handle", "preview", "size", "lines", "content_type", "shape", "note"}
    assert block.text == json.dumps(stub, ensure_ascii=False, separators=(",", ":"))
    return stub


@pytest.mark.parametrize("era", ERAS)
def test_large_text_is_spilled_and_everything_else_passes_through(era, tmp_path):
    expected = big_text(20_000).encode()
    events: list = []

    async def on_message(message):
        events.append(message)

    async def body():
        async with connect(proxy(tmp_path, "--class", "big_effect=effect"), era, on_message) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names >= OWN_TOOLS | {"big", "structured", "crash"}

            # a large text result becomes a stub; read back by range and by match, byte-exact
            stub = stub_of(await client.call_tool("big", {"size": 20_000}))
            assert stub["size"] == len(expected)
            assert expected.startswith(stub["preview"].encode()) and 200 < len(stub["preview"].encode()) <= 1024
            assert await read_all(client, stub["handle"], length=3000) == expected
            windows = await search_all(client, stub["handle"], "日本語", context=25)
            assert match_offsets(windows) == find_all(expected, "日本語".encode())
            assert all(window_is_exact(w, expected) for w in windows)

            # several text blocks are stored joined by a newline
            joined = (big_text(9000, "a") + "\n" + big_text(9000, "b")).encode()
            assert await read_all(client, stub_of(await client.call_tool("two_blocks", {"size": 9000}))["handle"]) \
                == joined

            # untouched: small results, effect-class tools, structured content, errors, non-text content,
            # annotated blocks, results with _meta
            small = await client.call_tool("big", {"size": 100})
            assert [b.text for b in small.content] == [big_text(100)]
            assert [b.text for b in (await client.call_tool("big_effect", {"size": 20_000})).content] == [
                big_text(20_000)]
            structured = await client.call_tool("structured", {"size": 20_000})
            assert structured.structured_content == {"rows": 20_000}
            assert [b.text for b in structured.content] == [big_text(20_000)]
            # structured content that only mirrors the text carries nothing a stub strips: spilled, mirror kept
            mirrored = await client.call_tool("mirrored", {"size": 20_000})
            (block,) = mirrored.content
            mirrored_stub = json.loads(block.text)
            assert mirrored.structured_content == {"result": block.text}
            assert await read_all(client, mirrored_stub["handle"], length=5000) == expected
            # and the mirror of a list[str] result (a block per item, 250 here): spilled joined, the mirror a list
            listed = await client.call_tool("mirrored_list", {"size": 20_000})
            (block,) = listed.content
            assert listed.structured_content == {"result": [block.text]}
            items = [f"item {i}: {big_text(60)}" for i in range(250)]
            assert await read_all(client, json.loads(block.text)["handle"], length=5000) == "\n".join(items).encode()
            failing = await client.call_tool("failing", {"size": 20_000})
            assert failing.is_error and [b.text for b in failing.content] == [big_text(20_000)]
            image = await client.call_tool("image", {"size": 20_000})
            assert [b.type for b in image.content] == ["image", "text"]
            assert image.content[0].data == "iVBORw0KGgo=" and image.content[1].text == big_text(20_000)
            annotated = await client.call_tool("annotated", {"size": 20_000})
            assert annotated.content[0].annotations.priority == 0.5
            assert annotated.content[0].text == big_text(20_000)
            with_meta = await client.call_tool("with_meta", {"size": 20_000})
            assert with_meta.meta["example.org/receipt"] == "r-1"
            assert with_meta.content[0].text == big_text(20_000)

            # the upstream's JSON-RPC errors pass through as they are
            with pytest.raises(MCPError, match="fake upstream rejects this") as info:
                await client.call_tool("json_error", {})
            assert info.value.code == types.INVALID_PARAMS

            # scratchfs _meta picks the scope and never reaches the upstream; other _meta does
            meta = {"scratchfs/run_id": "run-9", "scratchfs/agent_id": "a-9", "example.org/trace": "t-1"}
            seen = json.loads((await client.call_tool("echo_meta", {}, meta=meta)).content[0].text)
            assert seen == {"example.org/trace": "t-1"}
            theirs = stub_of(await client.call_tool("big", {"size": 20_000}, meta=meta))["handle"]
            assert error_of(await client.call_tool("read_handle", {"handle": theirs})).startswith("not found: ")
            assert payload(await client.call_tool("read_handle", {"handle": theirs, "length": 5},
                                                  meta=meta))["data"] == expected[:5].decode()

            # progress of a call reaches the client
            progress: list = []

            async def on_progress(value, total, message):
                progress.append((value, total, message))

            done = await client.call_tool("progress", {}, progress_callback=on_progress)
            assert done.content[0].text == "finished"
            assert progress == [(1, 2, "half way"), (2, 2, "done")]

            # resources and prompts pass through
            resources = await client.list_resources()
            assert [str(r.uri) for r in resources.resources] == ["fake://readme"]
            assert (await client.read_resource("fake://readme")).contents[0].text == big_text(30_000)
            assert [p.name for p in (await client.list_prompts()).prompts] == ["greet"]
            assert (await client.get_prompt("greet")).messages[0].content.text == "hello, proxy"

            # a change of the upstream's tool list reaches the client, in its era's way
            if era == "2025-11-25":
                await client.call_tool("add_tool", {})
                with anyio.fail_after(10):
                    while not any(isinstance(e, types.ToolListChangedNotification) for e in events):
                        await anyio.sleep(0.05)
            else:
                async with client.listen(tools_list_changed=True) as subscription:
                    await client.call_tool("add_tool", {})
                    with anyio.fail_after(10):
                        event = await subscription.__anext__()
                    assert type(event).__name__ == "ToolsListChanged"
            assert "extra_1" in {t.name for t in (await client.list_tools()).tools}

    run(body)


@pytest.mark.parametrize("era", one_era(1))
def test_upstream_hang_and_crash_become_tool_errors_and_own_tools_keep_working(era, tmp_path):
    async def body():
        async with connect(proxy(tmp_path, "--timeout", "3"), era) as client:
            hung = error_of(await client.call_tool("sleep", {"seconds": 60}))
            assert hung.startswith("upstream unavailable: ") and "no answer within 3 s" in hung
            assert (await client.call_tool("big", {"size": 10})).content[0].text == big_text(10)  # still alive

            crashed = error_of(await client.call_tool("crash", {}))
            assert crashed.startswith("upstream unavailable: ") and "exited" in crashed
            assert error_of(await client.call_tool("big", {"size": 10})).startswith("upstream unavailable: ")

            payload(await client.call_tool("scratch_write", {"key": "still", "value": "here"}))
            assert payload(await client.call_tool("scratch_read", {"key": "still"}))["data"] == "here"
            assert {t.name for t in (await client.list_tools()).tools} >= OWN_TOOLS

    run(body)


@pytest.mark.parametrize(("era", "upstream", "reason"), [
    (ERAS[0], ["/nonexistent/mcp-server"], "cannot start"),
    (ERAS[0], ["no-such-mcp-server-nu30"], "cannot start: No such file or directory: no-such-mcp-server-nu30 (not "
                                           "found on the PATH the client passed the proxy, "),
    (ERAS[1], ["bin/no-such-mcp-server-nu30"], "(a path from the proxy's working directory, "),
    (ERAS[1], [sys.executable, "-c", "import sys; sys.exit(1)"], "exited"),
    (ERAS[0], ["cat"], "its answer to initialize was an error: Method not found (is it an MCP server on stdio?)"),
])
def test_an_upstream_that_never_starts_leaves_the_proxys_own_tools(era, upstream, reason, tmp_path):
    """Each call to the upstream's tools says why it never started and how to go on (the proxy does not start it
    again): 'upstream unavailable: cat: Method not found' read as a method the upstream lacked (newuser5)."""
    async def body():
        async with connect(proxy(tmp_path, "--timeout", "20", upstream=upstream), era) as client:
            assert {t.name for t in (await client.list_tools()).tools} == OWN_TOOLS
            text = error_of(await client.call_tool("git_log", {}))
            assert text.startswith(f"upstream unavailable: {upstream[0]}: ") and reason in text, text
            assert text.endswith(NOT_AGAIN), text
            if not upstream[0].startswith("/") and "cannot start" in reason:  # (newuser30: a bare name, as in PATH)
                assert "give its absolute path" in text and len(text.encode()) <= 2048, text
            payload(await client.call_tool("scratch_write", {"key": "k", "value": "v"}))

    run(body)


@pytest.mark.parametrize(("args", "message"), [
    (["--class", "git_log"], "expected TOOL=CLASS"),
    (["--class", "git_log=huge"], "the result class of 'git_log' is 'huge', not a known class: the known classes are "
                                  "browser, effect, query, workspace (effect: never spilled) "),
    (["--class", "git_log=Query"], "'Query', not a known class: the known classes are browser, effect, query, "
                                   "workspace (effect: never spilled); did you mean 'query'?"),
    (["--class", "fetch=brower"], "did you mean 'browser'?"),
    (["--default-class", "huge"], "the default class is 'huge', not a known class"),
    (["--default-class", "qurey"], "the default class is 'qurey', not a known class: the known classes are browser, "
                                   "effect, query, workspace (effect: never spilled); did you mean 'query'?"),
    (["--threshold", "-1"], "'-1' is not a size"),
    (["--timeout", "0"], "timeout must be positive, finite seconds"),
    (["--ttl", "0.5"], "ttl must be finite seconds between 1 and 2592000"),
    ([], "Missing argument 'COMMAND...'"),
])
def test_bad_proxy_options_exit_2(tmp_path, args, message):
    result = CliRunner().invoke(main, ["mcp-proxy", "--root", str(tmp_path), *args, *(["--", "x"] if args else [])])
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1  # one line
    assert not list(tmp_path.iterdir())  # refused before the store was opened


def test_a_proxy_config_from_python_checks_its_classes_against_the_store(scratch_store_factory):
    """A ProxyConfig built from Python (no CLI callback) with a misspelled class was served, its tools never spilled."""
    from scratchfs import InvalidArgument
    from scratchfs.mcp.proxy import Proxy, ProxyConfig

    store = scratch_store_factory("logs", spill_classes={"query", "logs"})
    Proxy(ProxyConfig("x", classes={"tail": "logs"}), store)  # the store's own class
    for config, says in [(ProxyConfig("x", classes={"fetch": "Browser"}), "did you mean 'browser'?"),
                         (ProxyConfig("x", default_class="qurey"), "the default class is 'qurey'")]:
        with pytest.raises(InvalidArgument, match=says):
            Proxy(config, store)


@pytest.mark.parametrize("text", ["\x01" * 8192, '"' * 4097, "\\" * 4097, "ok\n" * 2730])
def test_a_result_under_the_threshold_in_utf8_but_over_it_as_json_is_spilled(text, scratch_scope):
    # what the proxy sends is the text inside JSON, as the SDK writes it: 8,192 control bytes are 49,152 bytes there
    from scratchfs.mcp.proxy import ProxyConfig, spill_result

    block = types.TextContent(text=text)
    sent = json.dumps(text, ensure_ascii=False)
    assert block.model_dump_json(by_alias=True, exclude_none=True) == '{"type":"text","text":' + sent + "}"
    assert len(text.encode()) <= 8192 < len(sent.encode()) - 2
    upstream = types.CallToolResult(content=[block])
    out = spill_result(scratch_scope, ProxyConfig(command="x"), "t", upstream)
    stub = stub_of(out)
    assert scratch_scope.read_range(stub["handle"], 0, 65536).data == text.encode()
    mirrored = types.CallToolResult(content=[types.TextContent(text=text)], structured_content={"result": text})
    out = spill_result(scratch_scope, ProxyConfig(command="x"), "t", mirrored)
    assert out.structured_content == {"result": out.content[0].text}
    small = types.CallToolResult(content=[types.TextContent(text="\x01" * 1365)])  # 8,190 bytes of JSON
    assert spill_result(scratch_scope, ProxyConfig(command="x"), "t", small) is small


@pytest.mark.parametrize("fields", [
    {"_meta": {}},                                                      # an empty _meta is still a _meta
    {"resultType": "x-partial"},                                        # a result type of an extension
    {"content": [{"type": "text", "text": "x" * 20_000, "_meta": {}}]},  # an empty block _meta
])
def test_a_result_carrying_any_out_of_band_field_passes_through(fields, scratch_scope):
    # the decision is conservative: anything but None counts as set, {} included, as for an Observation; a
    # result type other than "complete" would be rewritten to "complete" by the stub's new result
    from scratchfs.mcp.proxy import ProxyConfig, spill_result

    upstream = types.CallToolResult.model_validate({"content": [{"type": "text", "text": "x" * 20_000}], **fields})
    assert spill_result(scratch_scope, ProxyConfig(command="x"), "t", upstream) is upstream
    assert scratch_scope.store.list_entries_for_run(scratch_scope.run_id) == []


@pytest.mark.parametrize("items", [["x" * 20_000], ["a\n" * 5_000, "", "b" * 10_000]])
def test_a_list_of_str_result_is_spilled_with_one_item_too(items, scratch_scope):
    # the SDK's MCPServer gives a list[str] of one item as one text block and {"result": [item]}: it passed through
    # whole (a 20 KB item), as several items had before 41f68e0
    from scratchfs.mcp.proxy import ProxyConfig, spill_result

    upstream = types.CallToolResult(content=[types.TextContent(text=item) for item in items],
                                    structured_content={"result": list(items)})
    out = spill_result(scratch_scope, ProxyConfig(command="x"), "t", upstream)
    assert not out.is_error and out.structured_content == {"result": [out.content[0].text]}
    stub = json.loads(out.content[0].text)
    assert scratch_scope.read_range(stub["handle"], 0, 65536).data == "\n".join(items).encode()
    differs = types.CallToolResult(content=[types.TextContent(text=item) for item in items],
                                   structured_content={"result": [*items[:-1], items[-1] + "!"]})
    assert spill_result(scratch_scope, ProxyConfig(command="x"), "t", differs) is differs


def test_the_proxy_takes_the_fleet_store_and_scope_as_options_with_a_minimal_environment(tmp_path, postgres_dsn,
                                                                                        pg_schema, s3_env):
    """Started by an MCP client (the SDK's minimal environment: no SCRATCHFS_*), the proxy spills to the fleet
    store named by --index/--blobs (before: only $SCRATCHFS_INDEX/$SCRATCHFS_BLOBS, which the client drops) under
    --run/--agent, and reads it back."""
    import os

    from tests.services import postgres_url

    from .mcp_support import client_params

    index = postgres_url(postgres_dsn, pg_schema)
    aws = {name: value for name, value in os.environ.items() if name.startswith("AWS_")}
    params = client_params("mcp-proxy", "--root", str(tmp_path / "host-a"), "--run", "run-1", "--agent", "agent-1",
                           "--index", index, "--blobs", s3_env, "--segment-entry-bytes", "0", "--",
                           *FAKE_UPSTREAM, env=aws)
    expected = big_text(20_000).encode()

    async def body():
        async with connect(params, ERAS[0]) as client:
            stub = stub_of(await client.call_tool("big", {"size": 20_000}))
            assert await read_all(client, stub["handle"]) == expected
            return stub["handle"]

    handle = run(body)
    from scratchfs import ScratchStore

    with ScratchStore(tmp_path / "host-b", index=index, blobs=s3_env) as store:
        assert store.scope("run-1", "agent-1").read_range(handle, 0, 30_000).data == expected


def test_a_malformed_line_of_the_upstream_is_one_short_log_line_of_the_proxy(tmp_path):
    """An upstream that writes lines no JSON-RPC message is (a field of the wrong type holding a newline, text with a
    terminal escape) is logged by the proxy in one line each, of a few hundred characters at most, and the proxy
    goes on serving: before, the record was the parser's error whole -- 22 lines for one bad line (a pydantic error
    per union member, each quoting the upstream's input), the upstream's escape sequence written to the terminal."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    upstream = tmp_path / "noisy_upstream.py"  # (two bad lines, then a plain upstream: no SDK to start)
    upstream.write_text(raw_upstream("noisy", [{"name": "echo", "inputSchema": {"type": "object"}}], prelude=(
        "sys.stdout.write('{\"jsonrpc\": \"2.0\", \"method\": 5, \"x\": \"evil\\\\nCRITICAL forged\"}\\n')\n"
        "sys.stdout.write('not json \\x1b[31m red\\n')\n"
        "sys.stdout.flush()\n"), call='result = {"content": []}'))
    params = scratchfs_params("mcp-proxy", "--root", str(tmp_path / "store"), "--run", "r", "--agent", "a", "--",
                              sys.executable, str(upstream))
    errlog = tmp_path / "stderr.txt"

    async def body():
        with errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return [tool.name for tool in (await session.list_tools()).tools]

    names = run(body)
    assert "read_handle" in names and len(names) > 5
    lines = errlog.read_text().splitlines()  # (the SDK logs each bad line too, with its traceback: not ours)
    at = [i for i, line in enumerate(lines) if line.startswith("scratchfs mcp-proxy: upstream transport: ")]
    assert len(at) == 2 and all(len(lines[i]) < 500 and "\x1b" not in lines[i] for i in at), lines
    for i in at:  # each record ends with its line: what follows starts a record of its own
        assert i + 1 == len(lines) or lines[i + 1].startswith(("scratchfs", "Failed to parse", "Traceback")), \
            lines[i:i + 3]


@pytest.mark.parametrize(("face", "ids", "said"), [
    ("mcp", ["--run", "r-1", "--agent", "a-1"], "run 'r-1', agent 'a-1'"),
    ("mcp-proxy", ["--run", "r-1", "--agent", "a-1"], "run 'r-1', agent 'a-1'"),
    # the README's `scratchfs mcp --run run-42`: it said "the scope each call's _meta names", though pinned to r-1
    ("mcp", ["--run", "r-1"], "run 'r-1', the agent each call's _meta names"),
    # the proxy's generated run (unnamed anywhere before) and default agent, which a call's _meta may replace
    ("mcp-proxy", [], r"run 'mcp-proxy-[0-9a-f]{12}' unless a call's _meta names another, agent 'default' unless a "
                      r"call's _meta names another"),
])
def test_each_server_says_on_stderr_which_store_and_scope_it_serves(tmp_path, face, ids, said):
    """An MCP client that started the server without its fleet settings (the README's own warning case) found its
    handles 'not found' in a local store nothing had named (a new user's trial): each server now says in one
    stderr line, which a client keeps in its log, the store and the scope it serves -- each id as the server holds
    it (newuser4: a run given alone, and the proxy's generated run, were said to be whatever _meta names)."""
    import subprocess

    upstream = []
    if face == "mcp-proxy":  # (a plain upstream without the SDK, quick to start: what it serves is not said)
        (tmp_path / "upstream.py").write_text(raw_upstream("plain", [], call='result = {"content": []}'))
        upstream = ["--", sys.executable, str(tmp_path / "upstream.py")]
    params = scratchfs_params(face, "--root", str(tmp_path / "store"), *ids, *upstream)
    env = {k: v for k, v in (params.env or {}).items() if k not in ("SCRATCHFS_RUN_ID", "SCRATCHFS_AGENT_ID")}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": ERAS[0], "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    done = subprocess.run([params.command, *params.args], input=json.dumps(initialize).encode() + b"\n", env=env,
                          capture_output=True, timeout=120)  # (a client's session, its input then ended)
    assert json.loads(done.stdout.splitlines()[0])["id"] == 1, done
    first = done.stderr.decode().splitlines()[0]
    assert re.fullmatch(f"scratchfs {face}: serving the local store at {re.escape(str(tmp_path / 'store'))}; {said}",
                        first), first


@pytest.mark.parametrize("era", one_era(0))
def test_an_upstream_line_of_invalid_utf8_costs_that_line_not_the_upstream(era, tmp_path):
    """An upstream that wrote one line of bytes that are not UTF-8 (a stray binary write, a Latin-1 log line) lost the
    proxy its whole connection without a word: the SDK's reader died on the decode error and every later call waited
    out --timeout and failed 'no answer within N s', for as long as the proxy ran. The line is now read with
    U+FFFD for each bad byte, logged as the malformed line it is, and the calls after it are answered."""
    upstream = tmp_path / "latin1_upstream.py"
    upstream.write_text(
        "import os, sys\n"
        "sys.stdout.buffer.write(b'caf\\xe9 \\xff\\xfe not UTF-8\\n')\n"
        "sys.stdout.flush()\n"
        f"os.execv(sys.executable, [sys.executable, {str(FAKE_UPSTREAM[-1])!r}])\n")

    async def body():
        params = proxy(tmp_path / "store", "--run", "r", "--agent", "a", "--timeout", "10",
                       upstream=[sys.executable, str(upstream)])
        async with connect(params, era) as client:
            assert (await client.call_tool("big", {"size": 10})).content[0].text == big_text(10)
            stub = stub_of(await client.call_tool("big", {"size": 20_000}))
            assert (await read_all(client, stub["handle"])) == big_text(20_000).encode()

    run(body)


@pytest.mark.parametrize("era", one_era(1))
def test_a_result_of_tens_of_megabytes_is_read_in_linear_time_and_spilled(era, tmp_path):
    """The SDK's stdio client joined each 64 KiB chunk to the unsplit rest of the line, so a result of n bytes took
    O(n**2) to read: 50 MB took 33 s, 200 MB about nine minutes, the call failed 'no answer within --timeout' and
    every other answer of the upstream waited behind it. The proxy's own reader splits each line once."""
    size = 60_000_000
    expected = big_text(size).encode()

    async def body():
        params = proxy(tmp_path / "store", "--run", "r", "--agent", "a", "--timeout", "25")
        async with connect(params, era) as client:
            stub = stub_of(await client.call_tool("big", {"size": size}))
            assert stub["size"] == len(expected)
            tail = payload(await client.call_tool("read_handle", {"handle": stub["handle"],
                                                                  "offset": len(expected) - 3000, "length": 3000}))
            assert tail["data"].encode() == expected[tail["offset"]:] and tail["next_offset"] is None
            assert (await client.call_tool("big", {"size": 10})).content[0].text == big_text(10)

    run(body)


def test_upstream_lines_are_split_once_and_one_over_the_limit_is_skipped(caplog):
    from scratchfs.mcp.upstream_stdio import split_lines

    buffer, skipping, got = bytearray(), False, []
    for chunk in [b'{"a":1}\n{"b"', b':2}\n', b"x" * 30, b"y" * 30, b'tail\n{"c":3}', b"\n\n"]:
        lines, skipping = split_lines(buffer, chunk, 40, skipping)
        got += lines
    assert got == [b'{"a":1}', b'{"b":2}', b'{"c":3}', b""] and not skipping and buffer == b""
    assert [r.getMessage() for r in caplog.records] == [
        "scratchfs mcp-proxy: skipped a line of the upstream longer than 40 bytes"]


RAW_UPSTREAM = raw_upstream("raw", [
    {"name": "echo", "inputSchema": {"type": "object"}}, {"name": "no_schema"},
    {"name": "bad_schema", "inputSchema": {"type": "string"}},
    {"name": "echo", "inputSchema": {"type": "object"}, "description": "listed twice"},
    {"name": "last", "inputSchema": {"type": "object"}}], call='''
    if name == "surrogates":  # json.dumps writes a lone surrogate (a surrogateescape'd file name)
        result = {"content": [{"type": "text", "text": "file_\\udcff.txt\\n" * arguments["n"]}]}
    elif name == "deaf":  # answers, then never reads its stdin again (alive, its pipe fills)
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": []}}), flush=True)
        __import__("time").sleep(3600)
    elif name == "fail":  # the upstream's own JSON-RPC error, of the code asked for
        error = {"code": arguments["code"], "message": "refused", "data": "why"}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": error}), flush=True)
        continue
    elif name in ("float_id", "batch", "bad_batch"):  # answers the SDK's parser refuses
        answer = {"jsonrpc": "2.0", "id": float(msg["id"]) if name == "float_id" else msg["id"],
                  "result": {"content": "no list" if name == "bad_batch" else [{"type": "text", "text": name}]}}
        print(json.dumps(answer if name == "float_id" else [answer, {"jsonrpc": "2.0", "method": "x/y"}]), flush=True)
        continue
    elif name == "deep":  # nested deeper than the SDK's parser reads
        print('{"jsonrpc": "2.0", "id": %s, "result": {"content": %s}}' % (json.dumps(msg["id"]), "[" * 300
              + "]" * 300), flush=True)
        continue
    else:
        result = {"content": [{"type": "text", "text": "called " + name}]}
''')


def raw_proxy(tmp_path, timeout: str):
    """The proxy's stdio parameters, run r and agent a, in front of :data:`RAW_UPSTREAM` (written into ``tmp_path``)
    with ``--timeout`` seconds."""
    upstream = tmp_path / "raw_upstream.py"
    upstream.write_text(RAW_UPSTREAM)
    return proxy(tmp_path / "store", "--run", "r", "--agent", "a", "--timeout", timeout,
                 upstream=[sys.executable, str(upstream)])


@pytest.fixture(scope="module", params=ERAS)
def raw_client(request, tmp_path_factory):
    """One proxy in front of :data:`RAW_UPSTREAM` (``--timeout 30``) per protocol era, shared by the tests of this
    module whose calls leave it and its upstream serving (a malformed answer fails its call only: each test checks
    the next call is answered); a test that makes its upstream deaf or stops the proxy starts its own."""
    with shared_client(raw_proxy(tmp_path_factory.mktemp("raw"), "30"), request.param) as shared:
        yield shared


def test_one_malformed_or_repeated_tool_costs_that_tool_not_the_upstreams_list(raw_client):
    """One tool of the upstream's list without an inputSchema (or with one whose type is not "object") failed the
    whole tools/list: the proxy offered its own tools only, and said nothing. The malformed tools are left out (and
    logged by name), a name listed twice is offered once (the first), and the rest are offered and called."""
    async def body(client):
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == ["echo", "last", *sorted(OWN_TOOLS, key=[
            "read_handle", "scratch_write", "scratch_read", "scratch_list", "scratch_delete"].index)]
        assert tools[0].description is None
        assert (await client.call_tool("last", {})).content[0].text == "called last"

    raw_client.run(body)


def test_a_result_holding_a_lone_surrogate_is_answered_with_the_replacement_character(raw_client):
    """Python's json.dumps writes a file name read with surrogateescape (bytes that are not UTF-8) as a lone
    surrogate escape, which the SDK's parser refuses: the upstream's answer was dropped, and the call waited out
    --timeout and failed 'no answer within N s'. Each lone surrogate now reads as U+FFFD, spilled or not."""
    async def body(client):
        small = await client.call_tool("surrogates", {"n": 2})
        assert not small.is_error and small.content[0].text == "file_\ufffd.txt\n" * 2
        stub = stub_of(await client.call_tool("surrogates", {"n": 1000}))
        assert await read_all(client, stub["handle"]) == ("file_\ufffd.txt\n" * 1000).encode()

    raw_client.run(body)


def test_an_answer_the_parser_refuses_fails_its_call_at_once(raw_client):
    """An answer of the upstream nested deeper than the SDK's parser reads (or holding an integer too long) was
    dropped, and its call waited out --timeout: 'no answer within N s', though the upstream had answered at once.
    The answer's id is read from its start and the call fails at once, 'malformed answer'; the next call works."""
    async def body(client):
        with anyio.fail_after(15):
            text = error_of(await client.call_tool("deep", {}))
        assert text.startswith("upstream unavailable: ") and "malformed answer" in text, text
        assert (await client.call_tool("last", {})).content[0].text == "called last"

    raw_client.run(body)


TYPED_UPSTREAM = '''
import csv, sys
from pydantic import BaseModel
from mcp.server import MCPServer

class Package(BaseModel):
    name: str
    version: str
    month: str
    summary: str

class Packages(BaseModel):
    packages: list[Package]

with open(sys.argv[1], newline="", encoding="utf-8") as f:
    ROWS = [Package(**row) for row in csv.DictReader(f)]

mcp = MCPServer("typed")

@mcp.tool()
def packages(n: int) -> Packages:
    """The first n packages of the fixture."""
    return Packages(packages=ROWS[:n])

@mcp.tool()
def packages_text(n: int) -> str:
    """The first n packages as text."""
    return Packages(packages=ROWS[:n]).model_dump_json()

mcp.run()
'''


def test_a_typed_result_passed_through_whole_for_its_structured_content_is_said_once_per_tool(tmp_path):
    """A tool of the SDK's MCPServer returning a pydantic model (structuredContent and an outputSchema) passed through
    whole however large (by design: a stub would strip what the schema promises), and the proxy's stderr said
    nothing: a developer saw 37 KB reach the model and did not know why. The first such result of each tool is now
    one stderr line naming the tool, its bytes, why and what to do; a small one, or one of a tool that returns text
    (spilled), is not logged."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    fixture = TESTS.parent / "fixtures" / "query-packages-by-month.csv"
    upstream = tmp_path / "typed_upstream.py"
    upstream.write_text(TYPED_UPSTREAM)
    params = scratchfs_params("mcp-proxy", "--root", str(tmp_path / "store"), "--run", "r", "--agent", "a",
                              "--default-class", "query", "--", sys.executable, str(upstream), str(fixture))
    errlog = tmp_path / "stderr.txt"

    async def body():
        with errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                small = await session.call_tool("packages", {"n": 2})
                large = [await session.call_tool("packages", {"n": 200}) for _ in range(2)]
                text = await session.call_tool("packages_text", {"n": 200})
                return small, large, text

    small, large, text = run(body)
    assert len(small.structured_content["packages"]) == 2
    for result in large:  # whole, as designed: the text and the structured content
        assert len(result.structured_content["packages"]) == 200
        assert json.loads(result.content[0].text) == result.structured_content
    size = len(json.dumps(large[0].content[0].text, ensure_ascii=False).encode()) - 2
    assert size > 8192
    assert json.loads(text.content[0].text)["handle"]  # a tool returning text is spilled (and not logged)
    lines = [line for line in errlog.read_text().splitlines() if "structured content" in line]
    assert lines == [f"scratchfs mcp-proxy: tool 'packages' returned {size} bytes with structured content: passed "
                     "through whole, not spilled (a stub would strip what its output schema promises); for large "
                     "results, have the tool return text (a str, or @mcp.tool(structured_output=False)) or fewer "
                     "rows. Said once per tool"]


@pytest.mark.parametrize(("cls", "size", "said"), [("query", 20_000, True), ("effect", 20_000, False),
                                                    ("query", 8000, False)])
def test_a_structured_result_is_said_only_when_the_policy_would_spill_it_otherwise(cls, size, said, scratch_scope,
                                                                                   caplog):
    from scratchfs.mcp.proxy import ProxyConfig, spill_result

    upstream = types.CallToolResult(content=[types.TextContent(text="x" * size)], structured_content={"n": size})
    noted: set[str] = set()
    with caplog.at_level("WARNING", logger="scratchfs"):
        for _ in range(3):
            assert spill_result(scratch_scope, ProxyConfig("x", default_class=cls), "t", upstream, noted) is upstream
    assert [r.getMessage()[:60] for r in caplog.records] == \
        [f"scratchfs mcp-proxy: tool 't' returned {size} bytes with structured content"[:60]] * said
    assert noted == ({"t"} if said else set())


def test_an_upstream_error_of_any_code_passes_through_and_the_upstream_stays_up(raw_client):
    """The SDK reports a closed connection as an error of code -32000 and its own timeout as -32001, codes a server's
    own errors carry too (-32000 is the first of JSON-RPC's server-error range). An upstream's error of code -32000
    was taken for its exit: that call and every later one failed 'upstream unavailable: ...: the server exited',
    for the proxy's life; one of code -32001 read 'no answer within N s' at once, one of -32099 'malformed answer'.
    Each passes through as the upstream's error, at once, and the next call is answered."""
    async def body(client):
        for code in (-32000, -32001, -32099, -32602, 7):
            with anyio.fail_after(15), pytest.raises(MCPError) as caught:
                await client.call_tool("fail", {"code": code})
            assert (caught.value.code, caught.value.message, caught.value.data) == (code, "refused", "why")
            assert (await client.call_tool("last", {})).content[0].text == "called last"

    raw_client.run(body)


def test_an_answer_as_a_batch_or_with_a_whole_float_id_is_read_at_once(raw_client):
    """An answer the SDK's parser refuses whose id the proxy could not read from its start -- its id written 2.0,
    or the answer inside a JSON array (a JSON-RPC batch, which 2025-03-26 allowed) -- was skipped, and its call
    waited out --timeout: 'no answer within N s', though the upstream had answered at once. Each message of such a
    line is read leniently (an id 2.0 as 2, a batch's messages one by one); one still refused fails its call at
    once, 'malformed answer'."""
    async def body(client):
        for name in ("float_id", "batch"):
            with anyio.fail_after(15):
                assert (await client.call_tool(name, {})).content[0].text == name
        with anyio.fail_after(15):
            text = error_of(await client.call_tool("bad_batch", {}))
        assert text.startswith("upstream unavailable: ") and "malformed answer" in text, text
        assert (await client.call_tool("last", {})).content[0].text == "called last"

    raw_client.run(body)


def _runs(script: str, process) -> bool:
    """Whether ``process`` (a psutil.Process) runs ``script``: False for one that exited meanwhile or is a zombie
    (another test's child this worker has not reaped yet), whose command line cannot be read."""
    import psutil

    try:
        return any(part.endswith(script) for part in process.cmdline()[1:2])
    except psutil.Error:
        return False


@pytest.mark.alone(waits=True)  # (the proxy's stop within the 2 s its client gives it: a bound of wall-clock time)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a held launcher's upstream dies with it on Linux")
def test_a_deaf_upstream_does_not_outlive_the_proxy(tmp_path):
    """An upstream that no longer reads its stdin never sees it close: the proxy gave it 2 s to exit, then 2 s after
    SIGTERM, but a client (the SDK's stdio_client) gives the proxy itself 2 s after closing its stdin before it
    terminates it -- so the proxy was killed first and the upstream, in a session of its own, lived on (an orphan
    for each session, here for an hour; found by helper hostile4 counting processes after a deaf upstream's test).
    The proxy's stop of its upstream fits in the time its client gives it: the upstream is gone once the proxy
    exited. The launcher, which since stops the upstream of a proxy that died, is held (``held_launcher``): free, it
    hid a proxy too slow to stop its upstream (``STOP_SECONDS`` 10) or one that never killed it. (One stuck on a
    write of 2 MB it never reads: test_mcp_proxy_upstream.py's ``test_a_call_the_upstream_does_not_answer_...``,
    which runs those calls anyway.)"""
    import psutil

    with ExitStack() as holding:
        async def body():
            async with connect(raw_proxy(tmp_path, "3"), ERAS[-1]) as client:
                assert (await client.call_tool("deaf", {})).content == []
                upstreams = [p for p in psutil.Process().children(recursive=True)  # (not the shared raw_client's)
                             if _runs(str(tmp_path / "raw_upstream.py"), p)]
                assert len(upstreams) == 1, upstreams
                holding.enter_context(held_launcher(upstreams[0]))
            return upstreams[0]

        alive = still_running([run(body)], 1.0)
    assert not alive, "the deaf upstream outlived the proxy"
