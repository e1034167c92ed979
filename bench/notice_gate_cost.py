#!/usr/bin/env python3
"""What ``scratchfs mcp-proxy``'s reading of its upstream costs: a line through the SDK's parser against the notice
gate's (scratchfs.mcp.notice_gate), a flood of notifications before an answer with the gate and without it, and the
launcher's start (scratchfs.mcp.launch).

    python bench/notice_gate_cost.py [--flood 200000] [--kind log|progress] [--reps 3]

Prints, in microseconds a line (best of ``--reps`` timeit runs): ``parse_line`` (the SDK's parser, what every line
cost before the gate) and ``NoticeGate.drops`` on a log notification of 100 bytes of data, and ``drops`` on an
answer line (what the gate adds to a line it leaves alone). Then seconds from the upstream's start until the answer
after ``--flood`` notifications of ``--kind`` reaches ``upstream_stdio``'s read stream, with the gate and with one
that drops nothing (the read stream only: the proxy's session adds its dispatch of each message to the ungated
figure). Then the median milliseconds of ``python -c pass`` started directly and through the launcher
(``launch_command``), ``--reps`` times each: the launcher's share of an upstream's start.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scratchfs.mcp import upstream_stdio  # noqa: E402
from scratchfs.mcp.notice_gate import NoticeGate  # noqa: E402

FLOODER = '''import json, sys
n, kind = int(sys.argv[1]), sys.argv[2]
sys.stdin.readline()  # (the request of id 2 and progress token 5: the gate drops an answer or progress of another)
if kind == "log":
    line = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info",
                                                                                        "data": "x" * 100}})
    sys.stdout.write((line + "\\n") * n)
else:
    for i in range(n):
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                     "params": {"progressToken": 5, "progress": i}}) + "\\n")
print(json.dumps({"jsonrpc": "2.0", "id": 2, "result": {}}), flush=True)
sys.stdin.read()
'''


class _Open(NoticeGate):
    def drops(self, line: bytes) -> bool:
        return False


def per_line(reps: int) -> None:
    log = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "x" * 100}}).encode()
    answer = json.dumps({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "x" * 200}]}})
    gate, n = NoticeGate(), 2000
    for label, call in (("parse_line(log line)", lambda: upstream_stdio.parse_line(log)),
                        ("NoticeGate.drops(log line)", lambda: gate.drops(log)),
                        ("NoticeGate.drops(answer line)", lambda: gate.drops(answer.encode()))):
        best = min(timeit.repeat(call, number=n, repeat=reps)) / n
        print(f"{label:32} {best * 1e6:8.1f} us")


def flood(count: int, kind: str, gated: bool) -> float:
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCRequest

    script = Path(tempfile.mkdtemp()) / "flooder.py"
    script.write_text(FLOODER)
    real = upstream_stdio.NoticeGate
    upstream_stdio.NoticeGate = real if gated else _Open  # type: ignore[misc]

    async def body() -> float:
        start = time.monotonic()
        async with upstream_stdio.upstream_stdio(sys.executable, [str(script), str(count), kind],
                                                 dict(os.environ)) as (read_stream, write_stream, _launcher):
            await write_stream.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=2, method="tools/call",
                                                                  params={"_meta": {"progressToken": 5}})))
            async for message in read_stream:
                if getattr(message, "message", None) is not None and getattr(message.message, "id", None) == 2:
                    return time.monotonic() - start
        raise RuntimeError("no answer")

    try:
        return anyio.run(body)
    finally:
        upstream_stdio.NoticeGate = real  # type: ignore[misc]


def launcher(reps: int) -> None:
    direct, launched = [], []
    for _ in range(reps):
        start = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        direct.append(time.monotonic() - start)
        life, theirs = socket.socketpair()
        start = time.monotonic()
        subprocess.run(upstream_stdio.launch_command(theirs.fileno(), sys.executable, ["-c", "pass"]),
                       pass_fds=(theirs.fileno(),), check=True)
        launched.append(time.monotonic() - start)
        life.close()
        theirs.close()
    print(f"python -c pass: {statistics.median(direct) * 1e3:.0f} ms direct, "
          f"{statistics.median(launched) * 1e3:.0f} ms through the launcher")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flood", type=int, default=200_000)
    parser.add_argument("--kind", choices=("log", "progress"), default="log")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    per_line(args.reps)
    for gated in (True, False):
        print(f"{args.flood} {args.kind} notifications, then an answer, gate {'on' if gated else 'off'}: "
              f"{flood(args.flood, args.kind, gated):.1f} s")
    launcher(args.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
