"""The MCP wire against a client that floods requests and never reads its replies (helper hostile20): the server read
every line as it came and held every reply it could not write (the stdout pipe full) -- 3,000 reads of 60 KB took
490 MiB, growing without bound. It now stops reading stdin while :data:`~scratchfs.mcp.stdio.MOST_UNANSWERED`
requests are unanswered or their replies unwritten, and every request is still answered once the client reads."""

from __future__ import annotations

import json
import threading
import time

import pytest

from .test_mcp_wire import INIT, REPLY_SECONDS, call, face_command, req

FLOOD = 800
"""Requests the client sends before it reads a reply: 800 reads of a 60 KB value, 104-105 MiB of peak RSS grown when
the server read them all (MOST_UNANSWERED unbounded, 2026-12-07), against HELD_MIB. (1,500 of them, 192 MiB without
the bound, took 11-13 s a face at a load of 5; 800 take 7.5-10 s.)"""
HELD_MIB = 60
"""Most MiB the server's peak RSS may grow by while they are sent (128 held replies of 60 KB: 8 MiB of text, under
20 MiB with their structured copies: 17-18 MiB measured, where 192 MiB without the bound)."""


def _memory(pid: int, field: str) -> int:
    """``VmRSS`` or ``VmHWM`` (the peak) of process ``pid``, in KiB."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="reads /proc/PID/status (Linux)")
@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_a_client_that_never_reads_its_replies_holds_a_bounded_part_of_them_in_the_server(face, tmp_path):
    import subprocess

    proc = subprocess.Popen(face_command(face, tmp_path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        def send(line: bytes) -> None:
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()

        send(req("init", "initialize", INIT))
        assert json.loads(proc.stdout.readline())["id"] == "init"
        send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        send(call("w", "scratch_write", {"key": "k", "value": "x" * 60_000 + "\n"}))
        assert json.loads(proc.stdout.readline())["id"] == "w"
        before = _memory(proc.pid, "VmHWM")

        def flood() -> None:
            for n in range(FLOOD):
                send(call(n, "scratch_read", {"key": "k", "budget": 65536}))

        sender = threading.Thread(target=flood, daemon=True)
        sender.start()
        sender.join(3.0)  # (without the bound all are read at once; with it the client's writes block)
        last, steady = -1, time.monotonic()
        while time.monotonic() - steady < 1.5 and time.monotonic() - steady < REPLY_SECONDS:  # until it stops growing
            now = _memory(proc.pid, "VmRSS")
            steady, last = (steady, last) if now == last else (time.monotonic(), now)
            time.sleep(0.25)
        grown = (_memory(proc.pid, "VmHWM") - before) // 1024
        ids = []
        while len(ids) < FLOOD:  # every request is answered once the client reads
            reply = json.loads(proc.stdout.readline())
            assert "result" in reply and not reply["result"]["isError"], str(reply)[:300]
            ids.append(reply["id"])
        sender.join(REPLY_SECONDS)
        assert sorted(ids) == list(range(FLOOD)) and grown < HELD_MIB, grown
        proc.stdin.close()
        assert proc.wait(REPLY_SECONDS) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            try:
                pipe.close()
            except OSError:  # (a write still buffered for a killed server)
                pass
