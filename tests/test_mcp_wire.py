"""The MCP faces on the wire: every request line on stdin gets exactly one JSON-RPC reply, and the server lives on.

A real ``scratchfs mcp`` (and ``scratchfs mcp-proxy`` in front of a plain upstream, :data:`PLAIN_UPSTREAM`) is
driven line by line through pipes: each bad line of the table is followed by a good ``tools/list``; the bad line's
reply (code and id, as JSON-RPC 2.0 says) and the good one must both come, and nothing else. Stdout holds JSON-RPC
only.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time

import pytest

from scratchfs import ScratchStore
from scratchfs.foundation.limits import MAX_MESSAGE_BYTES
from scratchfs.mcp.stdio import claimed_stdio, screen

from .mcp_support import raw_upstream

PARSE, INVALID, NO_METHOD, BAD_PARAMS = -32700, -32600, -32601, -32602
REPLY_SECONDS = 90.0  # a loaded machine starts the server slowly; a missing reply fails at this bound
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "wire-test", "version": "1"}}


def req(rid, method, params=None, **extra) -> bytes:
    message = {"jsonrpc": "2.0", "id": rid, "method": method, **extra}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def call(rid, name, arguments) -> bytes:
    return req(rid, "tools/call", {"name": name, "arguments": arguments})


# (name, line, expected): expected is (code, id) of one error reply, ("result", id) for a request the server runs,
# None for no reply (a notification or a response), or a list of (code, id) for a batch's array of errors
TABLE = [
    ("not JSON", b"hello", (PARSE, None)),
    ("truncated JSON", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"', (PARSE, None)),
    ("NaN is not JSON", b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"x":NaN}}', (PARSE, None)),
    ("a NUL byte", b"\x00", (PARSE, None)),
    ("invalid UTF-8 alone", b"\xff\xfe\xfd", (PARSE, None)),
    ("invalid UTF-8 in a request", b'{"jsonrpc":"2.0","id":3,"method":"tools/list","x":"\xc3("}', (PARSE, None)),
    ("a number", b"42", (INVALID, None)),
    ("a string", b'"tools/list"', (INVALID, None)),
    ("null", b"null", (INVALID, None)),
    ("an empty object", b"{}", (INVALID, None)),
    ("an id alone", b'{"jsonrpc":"2.0","id":4}', (INVALID, None)),
    ("an empty batch", b"[]", (INVALID, None)),
    ("a batch", b"[" + req(5, "tools/list") + b"," + req("six", "ping") + b"]", [(INVALID, 5), (INVALID, "six")]),
    ("a batch with a notification and junk", b'[{"jsonrpc":"2.0","method":"notifications/x"},1,' + req(7, "ping")
     + b"]", [(INVALID, None), (INVALID, 7)]),
    ("a batch of notifications", b'[{"jsonrpc":"2.0","method":"notifications/x"}]', None),
    ("no jsonrpc member", b'{"id":8,"method":"tools/list"}', (INVALID, 8)),
    ("jsonrpc 1.0", b'{"jsonrpc":"1.0","id":9,"method":"tools/list"}', (INVALID, 9)),
    ("a method that is a number", b'{"jsonrpc":"2.0","id":10,"method":5}', (INVALID, 10)),
    ("an invalid notification", b'{"jsonrpc":"2.0","method":1,"params":"bar"}', (INVALID, None)),
    ("id a float", req(1.5, "tools/list"), (INVALID, None)),
    ("id true", req(True, "tools/list"), (INVALID, None)),
    ("id null", req(None, "tools/list"), (INVALID, None)),
    ("id an object", req({"a": 1}, "tools/list"), (INVALID, None)),
    ("id a list", req([11], "tools/list"), (INVALID, None)),
    ("id of 5,000 digits", b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"tools/list"}', (INVALID, None)),
    ("id a lone surrogate", b'{"jsonrpc":"2.0","id":"\\ud800","method":"tools/list"}', (INVALID, None)),
    ("params a string", req(12, "tools/call", "read_handle"), (INVALID, 12)),
    ("params an array", req(13, "tools/list", [1]), (BAD_PARAMS, 13)),
    ("arguments a string", req(14, "tools/call", {"name": "scratch_list", "arguments": "x"}), (BAD_PARAMS, 14)),
    ("name a number", req(15, "tools/call", {"name": 5, "arguments": {}}), (BAD_PARAMS, 15)),
    ("no params to tools/call", req(16, "tools/call"), (BAD_PARAMS, 16)),
    ("an unknown tool", call(17, "no_such_tool", {}), (BAD_PARAMS, 17)),
    ("an unknown method", req(18, "no/such/method"), (NO_METHOD, 18)),
    ("a lone surrogate in a key", call(19, "scratch_write", {"key": "\ud800", "value": "x"}), (INVALID, 19)),
    ("nested 500 deep", b'{"jsonrpc":"2.0","id":20,"method":"tools/list","params":{"x":' + b"[" * 500 + b"]" * 500
     + b"}}", (INVALID, 20)),
    ("nested 200,000 deep", b'{"jsonrpc":"2.0","id":21,"method":"tools/list","params":{"x":' + b"[" * 200_000
     + b"]" * 200_000 + b"}}", (INVALID, None)),
    ("a number beyond a double (JSON)", b'{"jsonrpc":"2.0","id":22,"method":"ping","params":{"x":1e400}}',
     ("result", 22)),
    ("a line over the limit", b'{"jsonrpc":"2.0","id":23,"method":"tools/list","params":{"x":"'
     + b"a" * MAX_MESSAGE_BYTES + b'"}}', (INVALID, 23)),
    ("a response over the limit", b'{"jsonrpc":"2.0","id":26,"result":{"x":"' + b"a" * MAX_MESSAGE_BYTES + b'"}}',
     (INVALID, None)),
    ("a response of the client", b'{"jsonrpc":"2.0","id":24,"result":{}}', None),
    ("an error of the client", b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}', None),
    ("an unknown notification", b'{"jsonrpc":"2.0","method":"notifications/whatever"}', None),
    ("a blank line", b"   ", None),
    ("a byte order mark", b"\xef\xbb\xbf" + req(25, "ping"), ("result", 25)),
    ("a string id", req("", "ping"), ("result", "")),
    ("a large integer id", req(2**70, "ping"), ("result", 2**70)),
]


class Wire:
    """A server process driven line by line: :meth:`send` a line, :meth:`replies` collects what it writes."""

    def __init__(self, args: list[str], stderr=subprocess.DEVNULL) -> None:
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                     env=dict(os.environ))
        self.lines: queue.Queue = queue.Queue()
        self.garbage: list[bytes] = []
        self.last: dict = {}
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            try:
                self.lines.put(json.loads(raw))
            except ValueError:
                self.garbage.append(raw[:200])

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def replies(self, until_id, others: int) -> list:
        """Replies up to the result of id ``until_id`` and at least ``others`` besides it: those others (the result
        is kept in :attr:`last`)."""
        got, done = [], False
        while not done or len(got) < others:
            try:
                reply = self.lines.get(timeout=REPLY_SECONDS)
            except queue.Empty:
                pytest.fail(f"no reply within {REPLY_SECONDS} s (waiting for id {until_id!r}; have {got})")
            if isinstance(reply, dict) and reply.get("id") == until_id and "result" in reply and not done:
                done, self.last = True, reply["result"]
            else:
                got.append(reply)
        return got

    def read_to_end(self) -> None:
        """Wait until the reader has seen the end of the server's stdout (every line it wrote is in :attr:`lines`)."""
        self.reader.join(REPLY_SECONDS)
        assert not self.reader.is_alive(), "the server's stdout did not end"

    def initialize(self) -> None:
        self.send(req("init", "initialize", INIT))
        assert self.replies("init", 0) == []
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def close(self) -> None:
        """End the input: the server exits cleanly, having written nothing but JSON."""
        self.proc.stdin.close()
        assert self.proc.wait(60) == 0
        assert self.garbage == []

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass


def shape(reply):
    """What the test compares: (code, id) of an error, ("result", id), or a list of them for an array."""
    if isinstance(reply, list):
        return [shape(r) for r in reply]
    assert reply["jsonrpc"] == "2.0"
    if "error" in reply:
        assert isinstance(reply["error"]["message"], str)
        return reply["error"]["code"], reply["id"]
    return "result", reply["id"]


SLOW_SECONDS = 3  # how long slow_call runs: past the requests sent after it (5 s made the wire tests the slowest)


PLAIN_UPSTREAM = [sys.executable, "-c", raw_upstream("plain", [
    {"name": "echo", "inputSchema": {"type": "object"}}, {"name": "sleep", "inputSchema": {"type": "object"}}],
    prelude="""
    import threading, time
    LOCK, PRINT = threading.Lock(), print

    def print(*args, **kwargs):  # (one line at a time: the sleeps answer from threads of their own)
        with LOCK:
            PRINT(*args, **kwargs)

    def answer(rid, seconds):
        time.sleep(seconds)
        print(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "slept"}]}}),
              flush=True)
""", call="""
    if name == "sleep":  # (beside the calls after it, as the SDK's servers run a call each)
        threading.Thread(target=answer, args=(msg["id"], float(arguments["seconds"])), daemon=True).start()
        continue
    if name != "echo":  # (as the SDK's servers refuse a tool they lack)
        error = {"code": -32602, "message": "Unknown tool: " + str(name)}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": error}), flush=True)
        continue
    result = {"content": [{"type": "text", "text": name}]}
""")]
"""An upstream in plain Python, without the SDK (a tenth of the fake upstream's start-up CPU), which refuses a tool
it lacks as the SDK's do and runs each ``sleep`` call beside the others: for the proxy's wire."""


def face_command(face: str, root) -> list[str]:
    """The server of ``face`` (``mcp``, or ``proxy`` in front of :data:`PLAIN_UPSTREAM`) on the store at ``root``."""
    if face == "mcp":  # (its pattern searches stop at SLOW_SECONDS: slow_call)
        return [sys.executable, "-m", "scratchfs", "--root", str(root), "mcp", "--run", "r", "--agent", "a",
                "--sweep-interval", "0", "--pattern-timeout", str(SLOW_SECONDS)]
    return [sys.executable, "-m", "scratchfs", "--root", str(root), "mcp-proxy", "--run", "r", "--agent", "a",
            "--sweep-interval", "0", "--", *PLAIN_UPSTREAM]


@pytest.fixture(scope="module", params=["mcp", "proxy"])
def served(request, tmp_path_factory):
    """One initialized server of each face, shared by the tests that leave it serving (each checks it answers after
    what it sent, and that nothing more came): a server each cost its start-up, 2.5-5 s under load. At the end its
    input ends and it must exit cleanly, having written nothing but JSON (:meth:`Wire.close`)."""
    wire = Wire(face_command(request.param, tmp_path_factory.mktemp("served")))
    try:
        wire.initialize()
        yield wire
        wire.close()
    finally:
        wire.kill()


def test_every_bad_line_gets_one_reply_and_the_server_answers_the_next(served):
    wire = served
    for n, (name, line, expected) in enumerate(TABLE):
        wire.send(line)
        wire.send(req(f"after-{n}", "tools/list"))
        want = [] if expected is None else [expected]
        got = [shape(r) for r in wire.replies(f"after-{n}", len(want))]
        assert got == want, f"{name}: {got} != {want}"
        assert {"read_handle", "scratch_write"} <= {tool["name"] for tool in wire.last["tools"]}, name
    wire.send(req("last", "ping"))
    assert wire.replies("last", 0) == [], "a reply more than the table asked for"


@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_a_request_before_initialize_is_told_to_initialize_first(face, tmp_path):
    """A raw tools/list (tools/call) sent before the handshake got the SDK's bare "Invalid request parameters", the
    very words of a malformed request: the reply (still -32602) says the session is not initialized and what to
    send first; a malformed request keeps its own message, and the handshake then works. Before them, bad lines
    (an initialize among them) are each answered as they are after the handshake (one server for both: each was a
    test and a start-up of its own)."""
    wire = Wire(face_command(face, tmp_path))
    try:
        for line, want in [(b"not json", (PARSE, None)), (req(1.5, "initialize", INIT), (INVALID, None)),
                           (b"[" + req(1, "initialize", INIT) + b"]", [(INVALID, 1)]),
                           (req(2, "initialize", [1]), (BAD_PARAMS, 2))]:
            wire.send(line)
            wire.send(req("probe", "ping"))
            assert [shape(r) for r in wire.replies("probe", 1)] == [want], line
        for rid, line in [("list", req("list", "tools/list")), ("list-empty", req("list-empty", "tools/list", {})),
                          ("call", call("call", "scratch_list", {}))]:
            wire.send(line)
            reply = wire.lines.get(timeout=REPLY_SECONDS)
            assert (reply["id"], reply["error"]["code"]) == (rid, BAD_PARAMS), reply
            message = reply["error"]["message"]
            assert "not initialized" in message and "initialize request first" in message, message
            assert "notifications/initialized" in message and line.split(b'"method": "')[1].split(b'"')[0].decode() \
                in message, message
        wire.send(req("bad", "tools/list", [1]))
        bad = wire.lines.get(timeout=REPLY_SECONDS)
        assert bad["error"]["code"] == BAD_PARAMS and "not initialized" not in bad["error"]["message"], bad
        wire.initialize()
        wire.send(req("listed", "tools/list"))
        assert wire.replies("listed", 0) == [] and {"read_handle"} <= {t["name"] for t in wire.last["tools"]}
        wire.send(call("w", "scratch_write", {"key": "k", "value": "v"}))
        written = wire.lines.get(timeout=REPLY_SECONDS)
        assert written["id"] == "w" and written["result"]["structuredContent"]["size"] == 1
        wire.close()
    finally:
        wire.kill()


@pytest.mark.parametrize(("line", "passed"), [
    (b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n', True),
    (b'{"jsonrpc":"2.0","id":3,"result":{}}\r\n', True),
    (b'{"jsonrpc":"2.0","method":"notifications/x","params":[1]}', False),  # a notification: dropped, not answered
    (b'{"jsonrpc":"2.0","id":5,"error":{"code":"x","message":1}}', False),  # a malformed response: dropped
    (b"\n", False),
])
def test_screen_passes_notifications_and_responses_and_never_answers_them(line, passed):
    verdict = screen(line)
    assert verdict.reply is None
    assert (verdict.message is not None) is passed
    if passed:
        assert json.loads(verdict.message) == json.loads(line)


MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": {"name": "wire-test", "version": "1"}}


def modern(rid, method, params=None) -> bytes:
    """A request of the sessionless 2026-07-28 era: its params carry the envelope."""
    return req(rid, method, {**(params or {}), "_meta": MODERN})


@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_the_sessionless_era_answers_every_line_too(face, tmp_path):
    wire = Wire(face_command(face, tmp_path))
    try:
        wire.send(modern("open", "tools/list"))
        assert wire.replies("open", 0) == []
        for n, (line, want) in enumerate([
            (b"not json", (PARSE, None)), (req(None, "tools/list"), (INVALID, None)),
            (b"[" + modern(1, "tools/list") + b"]", [(INVALID, 1)]), (modern(2, "no/such/method"), (NO_METHOD, 2)),
            (modern(3, "tools/call", {"name": "scratch_list", "arguments": "x"}), (BAD_PARAMS, 3)),
            (modern(4, "tools/call", {"name": "no_such_tool", "arguments": {}}), (BAD_PARAMS, 4)),
            (req(5, "tools/list"), (BAD_PARAMS, 5)),  # no envelope
            (req(6, "initialize", INIT), (-32022, 6)),  # the handshake on a sessionless connection
        ]):
            wire.send(line)
            wire.send(modern(f"after-{n}", "tools/list"))
            assert [shape(r) for r in wire.replies(f"after-{n}", 1)] == [want], line[:80]
        wire.close()
    finally:
        wire.kill()


def test_while_serving_fd_1_is_stderr_and_the_wire_is_a_private_duplicate(capfd):
    with claimed_stdio() as claim:
        os.write(1, b"stray output of a handler\n")
        os.write(claim.wire_out, b'{"jsonrpc":"2.0","id":1,"result":{}}\n')
        assert os.read(0, 10) == b""  # fd 0 reads the null device
    os.write(1, b"after\n")  # fd 1 is the wire again
    out, err = capfd.readouterr()
    assert out == '{"jsonrpc":"2.0","id":1,"result":{}}\nafter\n'
    assert err == "stray output of a handler\n"


def slow_call(face: str, rid, root) -> bytes:
    """A call that runs for :data:`SLOW_SECONDS`: a pattern search that backtracks until its time limit (the server,
    :func:`face_command`), the upstream's ``sleep`` (the proxy: :data:`PLAIN_UPSTREAM`)."""
    if face == "proxy":
        return call(rid, "sleep", {"seconds": SLOW_SECONDS})
    with ScratchStore(root) as store:
        handle = store.scope("r", "a").spill(("a" * 3000 + "\n") * 20, source_tool="t").handle
    return call(rid, "read_handle", {"handle": handle, "pattern": "(a|aa)+b"})


CANCELS = [(2, 2), ("7", 7), (7, "07")]  # (the id sent, the id its cancel names): the SDK correlates each pair


# (no `alone` mark: 60 s is many times the exit's second, half the 120 s drain the fault waited)
@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_a_cancelled_request_is_not_awaited_when_stdin_ends(face, tmp_path):
    """A request cancelled with notifications/cancelled gets no reply (as MCP says), but the transport still counted
    it as running: a client that cancelled a long read and then closed stdin kept the server alive for the whole
    120 s drain, waiting for a reply that was never to come. And the SDK correlates ids by its coerce_request_id:
    "7" (or "07") is the id 7, so a cancel naming 7 cancels the request sent as "7"; the transport counted its ids as
    JSON text (7 is not "7") and went on awaiting the cancelled request (hostile5: 120.3 s, where the same cancel
    naming "7" exits at once). Each pair of :data:`CANCELS` in turn on one server (a server each cost three starts):
    a pair still counted after its cancel would have the next pair's 7 refused as in flight, or the drain wait."""
    slows = [slow_call(face, sent, tmp_path) for sent, _ in CANCELS]
    wire = Wire(face_command(face, tmp_path))
    try:
        wire.initialize()
        for n, (slow, (_, cancelled)) in enumerate(zip(slows, CANCELS, strict=True)):
            wire.send(slow)
            wire.send(req(f"running-{n}", "ping"))  # answered after the slow request was read and set running
            assert wire.replies(f"running-{n}", 0) == [], n
            wire.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                  "params": {"requestId": cancelled}}).encode())
            wire.send(req(f"after-{n}", "ping"))
            assert wire.replies(f"after-{n}", 0) == [], n
        wire.proc.stdin.close()
        began = time.monotonic()
        assert wire.proc.wait(REPLY_SECONDS) == 0
        assert time.monotonic() - began < 60  # (the drain's bound is 120 s; the slow call's own SLOW_SECONDS)
        wire.read_to_end()
        assert wire.lines.empty() and wire.garbage == []  # no reply to a cancelled request
    finally:
        wire.kill()


AGAIN = ["7", "0007", " 7"]  # ids the SDK's coerce_request_id reads as the integer 7
LONG_ID = "9" * 4000


@pytest.fixture(scope="module", params=["mcp", "proxy"])
def in_flight(request, tmp_path_factory):
    """One server of each face given, after the handshake, three slow calls (ids 7, the integer of 4,000 nines and a
    string of 100,000 x's, run at once), lines reusing their ids while they run and four quick requests, then the end
    of its input: its
    replies (JSON, in the order written), exit code and store. The refusals are written as each line is read, the
    slow calls' results when they end; one server for the four tests below, where a server each cost its start (and
    :data:`SLOW_SECONDS` three times over)."""
    face, root = request.param, tmp_path_factory.mktemp("in-flight")
    lines = [req(1, "initialize", INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(),
             slow_call(face, 7, root),
             *(call(again, "scratch_write", {"key": f"dup-{n}", "value": "ran"}) for n, again in enumerate(AGAIN)),
             b'{"jsonrpc":"1.0","id":7,"method":"tools/list"}', b"[" + req(7, "ping") + b"," + req(8, "ping") + b"]",
             b'{"jsonrpc":"1.0","id":9,"method":"tools/list"}',
             slow_call(face, int(LONG_ID), root), req(LONG_ID, "ping"), slow_call(face, "x" * 100_000, root),
             req("x" * 100_000, "ping"), *(call(rid, "scratch_list", {}) for rid in (2, "3", 4)), req(5, "tools/list")]
    done = subprocess.run(face_command(face, root), input=b"\n".join(lines) + b"\n",
                          capture_output=True, timeout=REPLY_SECONDS)
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    return replies, done.returncode, root


def test_requests_still_running_when_stdin_ends_are_answered_before_the_server_exits(in_flight):
    """A client that writes its requests and closes stdin (a pipe, a batch script) got the handshake's reply only:
    the tool calls still running were dropped when the input ended."""
    replies, code, _ = in_flight
    answered = [r for r in replies if isinstance(r, dict) and "result" in r]
    assert sorted(json.dumps(r["id"])[:12] for r in answered) == \
        sorted(json.dumps(i)[:12] for i in (1, 2, "3", 4, 5, 7, int(LONG_ID), "x" * 100_000)) and code == 0


def test_a_request_whose_id_the_sdk_reads_as_one_in_flight_is_refused(in_flight):
    """A request of id "7" while 7 runs was handed on (its JSON text differs), though the SDK keeps one request in
    flight per correlated id: it was run, overwriting the first's in-flight entry (whose cancel was then lost), and
    answered under an id the client's SDK correlates with 7's. It is refused as a reused id is, and not run. (Each id
    of :data:`AGAIN` is sent while the one slow call of id 7 runs.)"""
    replies, code, root = in_flight
    assert code == 0 and shape(replies[0]) == ("result", 1) and len(replies) == 16  # (8 lines refused, 8 answered)
    assert [shape(r) for r in replies[1:4]] == [(INVALID, None)] * len(AGAIN), replies[1:4]
    for again, refusal in zip(AGAIN, replies[1:4], strict=True):
        assert "read as the integer 7" in refusal["error"]["message"] and json.dumps(again) in \
            refusal["error"]["message"], (again, refusal)
    with ScratchStore(root) as store:  # no refused request was run
        assert [e.key for e in store.list_entries() if e.kind == "scratch"] == []


def test_a_refused_line_carrying_the_id_of_a_request_in_flight_is_answered_with_a_null_id(in_flight):
    """The transport's own refusals of a line (an invalid request, a batch's members) went under the line's id even
    when a request of that id was running: the client took "Invalid Request" for that request's answer (hostile5).
    An id in flight is written null in them; an id not in flight is kept; the request in flight is answered."""
    replies, _, _ = in_flight
    shapes = [[shape(r) for r in reply] if isinstance(reply, list) else shape(reply) for reply in replies[4:7]]
    assert shapes == [(INVALID, None), [(INVALID, None), (INVALID, 8)], (INVALID, 9)], shapes
    assert ("result", 7) in [shape(r) for r in replies if isinstance(r, dict)]


def test_the_refusal_of_a_long_id_in_flight_names_it_shortened(in_flight):
    """A refused id was written whole into the refusal's message, beside the id itself: a 4,000-digit id read as
    the integer in flight came back as 8 KB of message (an id may be megabytes long). Its message names it in at
    most 60 characters; the reply's id is null (see the test above)."""
    replies, _, _ = in_flight
    refusals = replies[7:9]
    assert [shape(r) for r in refusals] == [(INVALID, None)] * 2, [str(r)[:100] for r in refusals]
    assert all(len(r["error"]["message"]) < 400 for r in refusals), [len(r["error"]["message"]) for r in refusals]
    assert len([r for r in replies if isinstance(r, dict) and "error" in r]) == 7  # no other line refused


def test_an_id_is_free_again_as_soon_as_its_answer_is_read(served):
    """A reply's id was taken off the requests in flight after its write returned, but the client reads it as soon as
    it is written: a client sending the same id at once was refused now and then ('still in flight'; the test of
    12808a9 failed so once in a few runs, hostile5). The id is freed before the reply is written."""
    for n in range(300):
        served.send(req(8, "ping"))
        assert served.replies(8, 0) == [], n


@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_a_client_that_closes_its_end_of_stdout_ends_the_server_in_one_line(face, tmp_path):
    """A client that went away reading (closed its end of the server's stdout, EPIPE) took the server down with a
    traceback of exception groups on stderr and exit code 1; it now ends with one line saying so, exit code 0 (as a
    reader going away is for the CLI)."""
    proc = subprocess.Popen(face_command(face, tmp_path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0)  # unbuffered: nothing left to flush into a closed pipe
    try:
        proc.stdin.write(req("init", "initialize", INIT) + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == "init"
        proc.stdout.close()
        try:
            for n in range(20):
                proc.stdin.write(req(n, "tools/list") + b"\n")
                time.sleep(0.05)
        except BrokenPipeError:
            pass  # the server is gone: what it should do
        proc.stdin.close()
        assert proc.wait(REPLY_SECONDS) == 0
        err = proc.stderr.read().decode()
        assert "Traceback" not in err and "Error" not in err, err
        assert err.count("the client closed its end of the connection") == 1, err
        # (hostile33: the proxy's line named "scratchfs mcp", the server it is not)
        server = "scratchfs mcp-proxy" if face == "proxy" else "scratchfs mcp"
        assert f"{server}: the client closed its end of the connection" in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_replies_that_cannot_be_written_end_the_server_with_one_output_line(face, tmp_path):
    """Stdout on a full disk (``> /dev/full``) took the server down with a traceback of exception groups and exit
    code 1; it is now the CLI's ``output:`` line and exit code 4, as for any command whose stdout fails."""
    with open(os.devnull.replace("null", "full"), "wb") as full:
        done = subprocess.run(face_command(face, tmp_path), input=req(1, "initialize", INIT) + b"\n", stdout=full,
                              stderr=subprocess.PIPE, timeout=REPLY_SECONDS)
    err = done.stderr.decode().splitlines()
    assert done.returncode == 4 and "Traceback" not in done.stderr.decode(), err
    assert err[-1] == "scratchfs: output: No space left on device (writing replies to the MCP client, stdout)"


@pytest.mark.parametrize("face", ["mcp", "proxy"])
@pytest.mark.parametrize(("signame", "code", "line"), [("SIGTERM", 143, "scratchfs: terminated"),
                                                       ("SIGINT", 130, "scratchfs: interrupted")])
def test_a_signal_stops_the_server_while_its_client_keeps_the_pipe_open(face, signame, code, line, tmp_path):
    """SIGTERM (what a host sends to stop a server) or ^C stopped nothing while the client kept stdin open: the
    signal's exception came out of the SDK's task groups as an exception group (a traceback on stderr), and the
    interpreter then waited for the worker thread blocked reading stdin, for as long as the client lived. ^C ends
    with the line every other command's ^C gives (it ended silently with exit 130: atk24)."""
    import signal

    with (tmp_path / "stderr.txt").open("wb") as err:
        wire = Wire(face_command(face, tmp_path / "store"), stderr=err)
        try:
            wire.initialize()
            wire.send(req("busy", "tools/list"))
            assert wire.replies("busy", 0) == []
            wire.proc.send_signal(getattr(signal, signame))
            assert wire.proc.wait(60) == code
        finally:
            wire.kill()
    lines = (tmp_path / "stderr.txt").read_text().splitlines()
    assert not any("Traceback" in text for text in lines), lines
    assert lines[-1] == line, lines


@pytest.mark.parametrize("rid", [7, "7", "ü-7", "x" * 1000])
def test_an_id_unclaimed_is_written_as_the_sdk_writes_a_null_id(rid):
    """request_ids.unclaimed's reply is byte for byte the one error_reply writes with id null (and the reply itself
    when its id is not in flight), one error or a batch's array of them."""
    from scratchfs.mcp.request_ids import unclaimed
    from scratchfs.mcp.stdio import error_reply

    mine, null = (error_reply(i, -32600, 'Invalid Request: é " \n', {"max_bytes": 1}) for i in (rid, None))
    assert unclaimed(mine, lambda i: i == rid) == null and unclaimed(mine, lambda i: False) == mine
    other = error_reply(8, -32600, "Invalid Request: x")
    assert unclaimed(f"[{mine},{other}]", lambda i: i == rid) == f"[{null},{other}]"
