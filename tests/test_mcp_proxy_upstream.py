"""``scratchfs mcp-proxy`` and the time its upstream takes (scratchfs.mcp.upstream), with real subprocess upstreams:
one slower to start than ``--timeout`` is served once it answers, and a call the upstream does not answer fails
within ``--timeout``, the SDK's courtesy cancel to an upstream that reads nothing included."""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import ExitStack

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from .mcp_support import (
    ERAS,
    connect,
    error_of,
    held_launcher,
    one_era,
    payload,
    raw_upstream,
    run,
    scratchfs_params,
    still_running,
)

UPSTREAM = raw_upstream("slow", [{"name": "echo", "inputSchema": {"type": "object"}}], prelude="""
    import time
    START = float(sys.argv[1])  # seconds before it answers initialize (a package fetched first)
""", initialize="time.sleep(START)", call="""
    if name == "deaf":  # answers, then never reads its stdin again (alive, its pipe fills)
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": []}}), flush=True)
        time.sleep(3600)
    else:
        result = {"content": [{"type": "text", "text": "called " + name}]}
""")


def upstream_proxy(tmp_path, timeout: float, start: float):
    script = tmp_path / "slow_upstream.py"
    script.write_text(UPSTREAM)
    return scratchfs_params("mcp-proxy", "--root", str(tmp_path / "store"), "--run", "r", "--agent", "a",
                            "--timeout", f"{timeout:g}", "--", sys.executable, str(script), f"{start:g}")


@pytest.mark.parametrize("era", one_era(0))
def test_an_upstream_slower_to_start_than_the_timeout_is_served_once_it_answers(era, tmp_path):
    """The handshake had --timeout (fail_after) and its failure was kept for the proxy's whole life: an upstream
    that took 6 s to start (npx fetching its package) behind --timeout 2 failed every call, 'no answer to
    initialize within 2 s', until the proxy was restarted. The handshake is now waited for: a call meanwhile
    fails 'still starting' within --timeout, a call after it is served, and the client is told the tools changed."""
    notes: list = []

    async def note(message):
        if isinstance(message, types.ServerNotification):
            notes.append(message)

    async def body():
        began = time.monotonic()
        async with connect(upstream_proxy(tmp_path, 2, 6), era, message_handler=note) as client:
            text = error_of(await client.call_tool("echo", {}))
            assert text.startswith("upstream unavailable: ") and "still starting" in text, text
            assert "the proxy keeps waiting for it" in text
            payload(await client.call_tool("scratch_write", {"key": "k", "value": "v"}))  # its own tools serve
            await anyio.sleep(max(0.0, 7.5 - (time.monotonic() - began)))
            with anyio.fail_after(30):
                while "echo" not in {t.name for t in (await client.list_tools()).tools}:
                    await anyio.sleep(0.5)
            result = await client.call_tool("echo", {})
            assert not result.is_error and result.content[0].text == "called echo"
            if era == ERAS[0]:  # (the handshake era hears it as a notification)
                assert any(isinstance(n, types.ToolListChangedNotification) for n in notes), notes

    run(body)


@pytest.mark.alone(waits=True)  # (its call mostly waits; a bound of time)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a held launcher's upstream dies with it on Linux")
@pytest.mark.parametrize("era", one_era(1))
def test_a_call_the_upstream_does_not_answer_fails_within_the_timeout(era, tmp_path):
    """A timed-out call took --timeout plus about 5 s: the proxy cancelled the SDK's send in the caller's task, and
    the SDK then waited up to 5 s, shielded, to write its courtesy cancel to an upstream that read nothing (its pipe
    full). The send now runs in a task of its own and the call fails at its deadline. (The test too of an upstream
    alive but no longer reading its stdin, its pipe full after a request of 2 MB: the next call was held forever,
    where each call fails within --timeout and the proxy's own tools keep working.) And that deaf upstream does not
    outlive the proxy (test_mcp_proxy.py's ``test_a_deaf_upstream_does_not_outlive_the_proxy`` for one not stuck
    on a write): the proxy gave it 2 s to exit, then 2 s after SIGTERM, but a client (the SDK's stdio_client) gives
    the proxy 2 s after closing its stdin before it terminates it, so the upstream, in a session of its own, lived
    on an hour: it is gone once the proxy exited, its launcher held (``held_launcher``: free, it stops the upstream
    of a proxy that died, and hid a proxy too slow to stop its upstream, ``STOP_SECONDS`` 10, or one that never
    killed it). (--timeout 2, not more: each call here, the deaf one's tool list included, waits it out.)"""
    import psutil

    script = str(tmp_path / "slow_upstream.py")

    def runs_script(process) -> bool:  # False for one gone meanwhile or a zombie, whose command line is unreadable
        try:
            return any(part == script for part in process.cmdline()[1:2])
        except psutil.Error:
            return False

    async def body():
        async with connect(upstream_proxy(tmp_path, 2, 0), era) as client:
            assert (await client.call_tool("deaf", {})).content == []
            upstreams = [p for p in psutil.Process().children(recursive=True) if runs_script(p)]
            assert len(upstreams) == 1, upstreams
            for arguments in ({"pad": "p" * 2_000_000}, {}):
                began = time.monotonic()
                text = error_of(await client.call_tool("echo", arguments))
                took = time.monotonic() - began
                assert text.startswith("upstream unavailable: ") and "no answer within 2 s" in text, text
                assert 1.9 < took < 3.5, took
            payload(await client.call_tool("scratch_write", {"key": "k", "value": "v"}))
            holding.enter_context(held_launcher(upstreams[0]))
        return upstreams[0]

    with ExitStack() as holding:
        alive = still_running([run(body)], 1.0)
    assert not alive, "the deaf upstream outlived the proxy"


FLOODER = raw_upstream("flood", [{"name": "flood", "inputSchema": {"type": "object"}}], prelude="import os", call="""
    # 100,000 log notifications (15 MB) at once, then it exits
    note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x" * 100}}
    sys.stdout.write((json.dumps(note) + "\\n") * 100_000)
    sys.stdout.flush()
    os._exit(0)
""")


def test_an_upstream_that_floods_its_stdout_and_exits_leaves_the_proxy_one_clean_exit(tmp_path):
    """The proxy reads an upstream's messages as fast as it handles them (a notification costs tens of microseconds);
    the rest of a flood waits in the pipe, whose reading is paused. Such a pipe never saw its end when the proxy
    stopped, its process transport was never finished, and the interpreter collected it after the event loop had
    closed: the proxy's exit printed 15 lines of 'Exception ignored in BaseSubprocessTransport.__del__ ...
    RuntimeError: Event loop is closed' (hostile5: 4 runs in 4). The stop now drains the pipe to its end."""
    import json
    import subprocess

    script = tmp_path / "flooder.py"
    script.write_text(FLOODER)
    command = [sys.executable, "-m", "scratchfs", "--root", str(tmp_path / "store"), "mcp-proxy", "--run", "r",
               "--agent", "a", "--sweep-interval", "0", "--timeout", "1", "--", sys.executable, str(script)]
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                 "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "flood", "arguments": {}}}]
    done = subprocess.run(command, input="".join(json.dumps(line) + "\n" for line in lines).encode(),
                          capture_output=True, timeout=120)
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [1, 2] and replies[1]["result"]["isError"], replies
    err = done.stderr.decode()
    assert done.returncode == 0 and "Traceback" not in err and "Exception ignored" not in err, err
    assert len(err.splitlines()) == 1, err  # the line saying what it serves


LOGGER = '''import json, sys
sys.stdin.readline(), sys.stdin.readline(), sys.stdin.readline()  # (the requests of tokens 5 and 1, then 2: progress
# for another token, an answer to another id, is dropped)
note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x" * 100}}
sys.stdout.write((json.dumps(note) + "\\n") * 5000)
for i in range(5000):  # a request's progress, 5,000 at once, then its last
    print(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": 5, "progress": i, **({"total": 4999} if i == 4999 else {})}}))
print(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": 1, "progress": 1, "message": "notifications/message"}}))
print(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "notifications/message", "params": {}}))
print(json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"content": [
    {"type": "text", "text": json.dumps(note)}]}}), flush=True)
'''


def test_the_upstreams_log_notifications_are_dropped_unread_and_its_progress_thinned(tmp_path, monkeypatch):
    """A flood of 200,000 log notifications (notifications/message, which the proxy passes nowhere: its session has
    no logging callback, its client is not told) delayed the answer after them by 10.6 s at a load of 1 (28 s at 7,
    past --timeout): each was read by the SDK's parser and dispatched by its session. They are now told by Python's
    parser and dropped before (0.7 s; python bench/proxy_flood.py); so are a request's progress notifications beyond
    one each 50 ms (but its last); every other line -- a progress notification naming the method in its message, a
    request of that method (it has an id), an answer holding one as text -- is read as before."""
    from scratchfs.mcp import upstream_stdio

    script = tmp_path / "logger.py"
    script.write_text(LOGGER)
    parsed: list[bytes] = []
    real = upstream_stdio.parse_line

    def counted(line):
        parsed.append(line)
        return real(line)

    monkeypatch.setattr(upstream_stdio, "parse_line", counted)

    async def body():
        got = []
        async with upstream_stdio.upstream_stdio(sys.executable, [str(script)], dict(os.environ)) as (
                read_stream, write_stream, _launcher), read_stream, write_stream:
            for token in (5, 1, 2):
                request = types.JSONRPCRequest(jsonrpc="2.0", id=token, method="tools/call",
                                               params={"_meta": {"progressToken": token}})
                await write_stream.send(SessionMessage(request))
            with anyio.fail_after(60):
                async for message in read_stream:
                    got.append(message.message)
                    if getattr(message.message, "id", None) == 2:
                        break
        return got

    got = run(body)
    floods = [m.params for m in got[:-3]]
    assert 2 <= len(parsed) - 3 == len(floods) < 100, len(parsed)  # (one each 50 ms of the 5,000 progress)
    assert floods[0]["progress"] == 0 and floods[-1] == {"progressToken": 5, "progress": 4999, "total": 4999}
    assert [getattr(m, "method", None) for m in got[-3:]] == ["notifications/progress", "notifications/message", None]
    assert got[-2].id == 1 and got[-1].result["content"][0]["text"].startswith('{"jsonrpc"')


def test_progress_beyond_twenty_a_second_of_a_request_is_dropped_but_its_last_and_other_lines(caplog):
    """200,000 progress notifications before an answer delayed it by 45 s at a load of 8 (each read by the SDK's
    parser): the gate now passes at most one each 50 ms of each request's (its first, and its last: progress reaching
    total), said once on stderr, and leaves every other line to the SDK."""
    from scratchfs.mcp.notice_gate import NoticeGate

    now = [100.0]
    gate = NoticeGate(clock=lambda: now[0])
    for token in (7, "other"):
        gate.asked(types.JSONRPCRequest(jsonrpc="2.0", id=1, method="tools/call",
                                        params={"_meta": {"progressToken": token}}))
    gate.asked(types.JSONRPCRequest(jsonrpc="2.0", id=4, method="tools/call"))

    def progress(token, value, total=None, **extra):
        params = {"progressToken": token, "progress": value, **({"total": total} if total is not None else {})}
        return json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": params, **extra}).encode()

    with caplog.at_level("WARNING", logger="scratchfs.mcp.proxy"):
        assert [gate.drops(progress(7, i)) for i in range(4)] == [False, True, True, True]
        assert gate.drops(progress("other", 1)) is False  # (each request its own)
        assert gate.drops(progress(7, 9, total=9)) is False  # (its last)
        now[0] += 0.06
        assert gate.drops(progress(7, 5)) is False and gate.drops(progress(7, 6)) is True
    assert gate.dropped_progress == 4
    assert [r.getMessage() for r in caplog.records] == [
        "scratchfs mcp-proxy: the upstream sends progress notifications faster than 20 a second for a request; the "
        "proxy passes on at most that many of each request's (and its last) and drops the others (said once)"]
    for line in (progress(7, 1, id=3), progress([1], 1), b'{"jsonrpc": "2.0", "method": "notifications/progress"}',
                 b"not json notifications/progress",
                 b'{"jsonrpc": "2.0", "id": 4, "result": {"text": "notifications/message"}}',  # (answers 4: asked)
                 b'{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}',
                 b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {"x": "' + b"y" * 70000 + b'"}}'):
        assert gate.drops(line) is False, line[:100]
    assert gate.drops(b'{"method": "notifications/message", "jsonrpc": "2.0", "params": {}}') is True
    assert gate.drops(b'{"jsonrpc": "2.0", "method": "notifications\\/message"}') is True  # (read as JSON reads it)


LISTER = '''import json, sys, time
sys.stdin.readline()  # (the request its answer answers)
for i in range(20000):
    print(json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
for i in range(3):
    print(json.dumps({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}))
print(json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"content": []}}), flush=True)
time.sleep(3)
'''


def test_a_flood_of_list_changes_reaches_the_client_as_its_first_and_its_last(tmp_path):
    """20,000 tools/list_changed notifications before an answer delayed it by 12.9 s (load 5), and the proxy passed
    each on to its client, which lists the tools again for each (hostile7). The gate passes one of each kind each
    0.5 s: the first at once, the ones after it held, one given back once the time has passed -- the client hears
    of the last change, after the answer --, and the resources' changes on their own."""
    from scratchfs.mcp import upstream_stdio

    script = tmp_path / "lister.py"
    script.write_text(LISTER)

    async def body():
        got, answered = [], None
        async with upstream_stdio.upstream_stdio(sys.executable, [str(script)], dict(os.environ)) as (
                read_stream, write_stream, _launcher), read_stream, write_stream:
            await write_stream.send(SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=2, method="tools/list")))
            with anyio.move_on_after(2.5):
                async for message in read_stream:
                    got.append((getattr(message.message, "method", None), anyio.current_time()))
                    if getattr(message.message, "id", None) == 2:
                        answered = anyio.current_time()
        return got, answered

    from scratchfs.mcp.notice_gate import LIST_INTERVAL

    got, answered = run(body)
    methods = [method for method, _at in got]
    tools, resources = "notifications/tools/list_changed", "notifications/resources/list_changed"
    assert methods[0] == tools and methods.count(None) == 1 and answered is not None, methods[:8]
    # one of each kind each LIST_INTERVAL: on a quiet machine the flood passes the gate within one interval (tools,
    # resources, the answer, then one of each given back); a loaded one may take several, each passing one more
    # (suite7 saw tools, tools, resources, answer at load 10) -- never the 20,000
    intervals = 2 + (answered - got[0][1]) / LIST_INTERVAL
    assert 2 <= methods.count(tools) <= intervals and 2 <= methods.count(resources) <= intervals, methods[:8]
    answer = methods.index(None)
    assert tools in methods[answer:] and resources in methods[answer:], methods  # (the last change heard after it)
    assert all(at - answered < 1.5 for _method, at in got), got


def test_list_changes_of_each_kind_are_held_within_half_a_second_and_given_back_once():
    from scratchfs.mcp.notice_gate import LIST_INTERVAL, NoticeGate

    now = [10.0]
    gate = NoticeGate(clock=lambda: now[0])
    tools = b'{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}'
    prompts = b'{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}'
    assert gate.wait() == float("inf") and gate.due() == []
    assert not gate.drops(tools) and not gate.drops(prompts)
    now[0] += 0.1
    assert gate.drops(tools) and gate.drops(tools) and gate.drops(prompts)
    assert gate.wait() == pytest.approx(LIST_INTERVAL - 0.1) and gate.due() == []
    now[0] += LIST_INTERVAL
    assert [json.loads(line)["method"] for line in gate.due()] == ["notifications/prompts/list_changed",
                                                                    "notifications/tools/list_changed"]
    assert gate.due() == [] and gate.wait() == float("inf")
    assert gate.drops(tools)  # (one was given back just now)
    now[0] += LIST_INTERVAL
    assert not gate.drops(tools) and gate.due() == []  # (passed: nothing held is given back after it)
    assert not gate.drops(b'{"jsonrpc":"2.0","id":3,"method":"notifications/tools/list_changed"}')  # a request


def test_progress_for_a_token_never_sent_and_notifications_no_server_sends_are_dropped_unread():
    """An upstream that floods progress for tokens the proxy never gave it, or notifications of a custom method: the
    SDK read each only to drop it (20,000 before an answer: 2.7 s and 1.2 s at load 5; hostile7). The gate drops
    them unread; a token sent as 7 matches progress naming "7", as the SDK matches it, and the oldest of more than
    MAX_TOKENS tokens sent is forgotten."""
    from scratchfs.mcp.notice_gate import MAX_TOKENS, NoticeGate

    gate = NoticeGate()

    def note(method, **params):
        return json.dumps({"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})}).encode()

    def ask(token):
        gate.asked(types.JSONRPCRequest(jsonrpc="2.0", id=1, method="tools/call",
                                        params={"name": "t", "_meta": {"progressToken": token}}))

    assert gate.drops(note("notifications/progress", progressToken=7, progress=1))
    ask(7)
    assert not gate.drops(note("notifications/progress", progressToken="7", progress=1))
    assert gate.drops(note("notifications/progress", progressToken=8, progress=1))
    for method in ("x/custom", "notifications/custom", "tools/list_changed", "notifications/tools/changed"):
        assert gate.drops(note(method, a=1)), method
    for method in ("notifications/cancelled", "notifications/resources/updated", "notifications/elicitation/complete",
                   "notifications/tools/list_changed"):
        assert not gate.drops(note(method, a=1)), method
    assert not gate.drops(b'{"jsonrpc": "2.0", "id": 9, "method": "x/custom"}')  # (a request: answered by the SDK)
    for token in range(100, 100 + MAX_TOKENS):
        ask(token)
    assert gate.drops(note("notifications/progress", progressToken=7, progress=2))  # (forgotten)
    assert not gate.drops(note("notifications/progress", progressToken=100 + MAX_TOKENS - 1, progress=2))


def test_an_answer_to_no_request_sent_is_dropped_unread():
    """An upstream flooding answers to ids the proxy never used (or answering one twice): the SDK read each only to
    drop it (20,000 before an answer delayed it 2.1 s, load 5; hostile7). The gate drops them unread: an answer
    passes once for each request sent (its id as the SDK matches it: "7" is 7); lines written otherwise (another
    key order, an id with an escape, a batch) are left to the SDK."""
    from scratchfs.mcp import notice_gate

    gate, most = notice_gate.NoticeGate(), getattr(notice_gate, "MAX_SENT", 4096)

    def ask(rid, method="tools/call"):
        gate.asked(types.JSONRPCRequest(jsonrpc="2.0", id=rid, method=method))

    def answer(rid, kind="result"):
        return json.dumps({"jsonrpc": "2.0", "id": rid, kind: {}}).encode()

    assert gate.drops(answer(7)) and gate.drops(answer("x", "error"))
    ask(7)
    ask("x")
    gate.asked(types.JSONRPCResponse(jsonrpc="2.0", id=9, result={}))  # (the proxy's answer: no request)
    assert not gate.drops(answer("7")) and gate.drops(answer(7))  # (once)
    assert not gate.drops(answer("x", "error")) and gate.drops(answer(9))
    for line in (b'{"id": 5, "jsonrpc": "2.0", "result": {}}', b'[{"jsonrpc": "2.0", "id": 5, "result": {}}]',
                 b'{"jsonrpc": "2.0", "id": "a\\"b", "result": {}}', b'{"jsonrpc": "2.0", "id": 5.0, "result": {}}'):
        assert not gate.drops(line), line
    for rid in range(100, 101 + most):
        ask(rid)
    assert gate.drops(answer(100)) and not gate.drops(answer(100 + most))  # (the oldest forgotten)
