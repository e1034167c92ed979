"""hostile39 over the MCP wire: a client that ends its input and never reads its stdout (the pipe full with replies
it asked for) held the server for ever -- stdin's end waits up to DRAIN_SECONDS (120 s) for the replies still
running, then the SDK waited on the blocked write with no bound: a server alive 200 s on, its process and store held.
Now, the drain over with a write still blocked, serving ends as for a client that closed its end: one line on
stderr, exit code 0. DRAIN_SECONDS is set to 2 s in the server's process for the test."""

from __future__ import annotations

import json
import subprocess

import pytest

from scratchfs import ScratchStore
from tests.test_mcp_wire import INIT, face_command, req

SHORT_DRAIN = ("import runpy, sys; import scratchfs.mcp.stdio as wire; wire.DRAIN_SECONDS = 2.0; "
               "sys.argv[0] = 'scratchfs'; runpy.run_module('scratchfs', run_name='__main__')")
EXIT_SECONDS = 90  # (the drain is 2 s: a server still alive at this bound waits for ever)


@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_a_client_that_ends_its_input_and_reads_no_reply_does_not_hold_the_server(face, tmp_path):
    store = ScratchStore(tmp_path)
    handle = store.scope("r", "a").spill("abcdefgh\n" * 200_000).handle
    store.close()
    command = face_command(face, tmp_path)
    assert command[1:3] == ["-m", "scratchfs"]
    proc = subprocess.Popen([command[0], "-c", SHORT_DRAIN, *command[3:]], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        lines = [req("init", "initialize", INIT), b'{"jsonrpc":"2.0","method":"notifications/initialized"}']
        lines += [req(n, "tools/call", {"name": "read_handle", "arguments": {  # (640 KiB of replies: past the pipe)
            "handle": handle, "offset": n * 65536, "length": 65536, "budget": 65536}}) for n in range(10)]
        proc.stdin.write(b"\n".join(lines) + b"\n")
        proc.stdin.close()  # (and stdout is never read while the server runs)
        try:
            code = proc.wait(EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server still runs {EXIT_SECONDS} s after its client ended its input, reading nothing")
        assert code == 0
        said = proc.stderr.read().decode().strip().splitlines()
        assert said[-1].endswith("the client read no reply for 2 s after its input ended (its stdout pipe full); "
                                 "stopping"), said
        written = proc.stdout.read().split(b"\n")  # (the write it gave up on may have put part of its line)
        replies = [json.loads(line) for line in written[:-1]]
        assert replies and replies[0]["id"] == "init"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            pipe.close()
