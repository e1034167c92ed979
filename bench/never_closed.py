"""What JSON's never-closed test costs and buys (issue 16, the ninth session of 2026-12-06; helper jsonopen1).

    python bench/never_closed.py [REPS]     # default 9; best of REPS, ms of thread CPU

``scratchfs.api.json_unclosed.never_closed`` runs on every sample that opens with ``[`` or ``{``. Printed:

- its cost on T2's JSON sample (payload 0's 512 KiB: a document that closes inside the sample, then text), where it
  is pure cost, and the cost of each of its passes alone (the text encoded, the escaped backslashes and quotes taken
  away by one regex scan -- and by the two ``bytes.replace`` it used first --, the ``translate`` keeping brackets and
  quotes);
- ``describe`` of hostile 512 KiB samples it answers without a parse (cut from 2 MiB, as a spill's sample is), and
  of the same with the test switched off (``never_closed`` made to answer ``False``): what a parse of each cost.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs.api import json_unclosed, shape

MIB = 1024 * 1024
_NOT_KEPT = bytes(byte for byte in range(256) if byte not in b'[]{}"')
_ESCAPE_RE = re.compile(rb'\\[\\"]')
_BACKSLASHES, _QUOTE = b"\\\\", b'\\"'  # (an escaped backslash, an escaped quote)
HOSTILE = {"[[1,2],[3]], ": b"[" + b"[[1,2],[3]], " * 200_000, '{"k": [1, 2]}, ': b"[" + b'{"k": [1, 2]}, ' * 150_000,
           '{"a": {"b": 1}}, ': b"[" + b'{"a": {"b": 1}}, ' * 140_000}


def best(fn, reps: int) -> float:
    """The least thread CPU of ``reps`` calls of ``fn``, in ms."""
    times = []
    for _ in range(reps):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return min(times) * 1e3


def described(data: bytes, reps: int) -> float:
    sample = data[: shape.SAMPLE_BYTES]
    return best(lambda: shape.describe(sample, len(data), data.count(b"\n") + 1), reps)


def main(reps: int) -> None:
    payload = benchlib.repeated(benchlib.corpus(), 4 * MIB, start=0)[: shape.SAMPLE_BYTES]
    text = payload.decode("utf-8", "replace")
    raw = text.encode("utf-8", "surrogatepass")
    print(f"T2's JSON sample ({len(payload):,} bytes, starts {payload[:12]!r}), best of {reps}, ms of thread CPU:")
    cost = best(lambda: json_unclosed.never_closed(text), reps)
    print(f"  never_closed (answer {json_unclosed.never_closed(text)}): {cost:.2f}")
    print(f"  encode: {best(lambda: text.encode('utf-8', 'surrogatepass'), reps):.2f}")
    print(f"  escapes, one regex scan: {best(lambda: _ESCAPE_RE.sub(b'', raw), reps):.2f}")
    replaced = best(lambda: raw.replace(_BACKSLASHES, b"").replace(_QUOTE, b""), reps)
    print(f"  escapes, two bytes.replace: {replaced:.2f}")
    print(f"  translate: {best(lambda: raw.translate(None, _NOT_KEPT), reps):.2f}")
    print(f"describe of hostile samples cut from 2 MiB, best of {reps}, ms of thread CPU (test on / off):")
    for name, unit in HOSTILE.items():
        data = unit[: 2 * MIB]
        on = described(data, reps)
        with mock.patch.object(json_unclosed, "never_closed", return_value=False):
            off = described(data, reps)
        print(f"  {name!r}: {on:.1f} / {off:.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
