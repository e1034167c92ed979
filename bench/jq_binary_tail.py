"""How long ``read_handle(jq=...)`` takes to refuse JSON that turns into binary data, and what the check costs a valid
document (the figures of the ``shapes`` branch, 2026-12-04: 32 MiB of random bytes after a 4.9 KB document 5.29 s ->
0.12 s, after a JSON start 5.37 s -> 0.008 s). The last case is a valid 46 MiB document read whole by jq (4.6 s at
15:24 UTC, most of it jq's parse in its worker); the check's own cost on it (the read alone 57 -> 71 ms in the branch's
A/B) is not separated here.

    python bench/jq_binary_tail.py        # each case once: its shape, the reply or error, the seconds it took
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools


def cases() -> dict[str, bytes]:
    """The contents read: a document then binary bytes, a JSON start then binary bytes, a valid large document."""
    noise = random.Random(3).randbytes(32 * 2**20)
    return {
        "4.9 KB document + 32 MiB binary": json.dumps({"a": list(range(1000))}).encode() + noise,
        "JSON start + 32 MiB binary": b'{"a": [1, 2, ' + noise,
        "2.2 MB document + 32 MiB binary": json.dumps({"a": list(range(300_000))}).encode() + noise,
        "valid 43 MiB document": json.dumps({"a": list(range(5_500_000))}).encode(),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as d, ScratchStore(Path(d) / "root") as store:
        scope = store.scope("run", "agent")
        for name, data in cases().items():
            stub = scope.spill(data, source_tool="bench")
            began = time.perf_counter()
            try:
                outcome = "ok " + json.dumps(ScratchTools(scope).call("read_handle", {"handle": stub.handle,
                                                                                      "jq": "keys"}))[:120]
            except Exception as exc:  # (the refusal is the figure)
                outcome = f"{type(exc).__name__}: {str(exc)[:160]}"
            print(f"{name}: {stub.content_type}; {time.perf_counter() - began:.3f} s; {outcome}")


if __name__ == "__main__":
    main()
