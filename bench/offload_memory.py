"""A large structured tool result's memory and time, written as JSON text (issue 16's M figures; the last notes'
"a dict or list given to offload takes about twice its JSON text"): ``ITEMS`` small records (about 140 bytes of
JSON each; 400,000 make 54 MiB of text), each way in a fresh process, its peak RSS growth over the value built:

- ``dumps``: ``json.dumps(value, ensure_ascii=False)`` (what ``Scope.offload`` wrote before ``json_pieces``);
- ``iterencode``: the standard library's pure-Python streaming encoder, consumed piece by piece;
- ``pieces``: :func:`scratchfs.foundation.json_pieces.json_pieces`, consumed piece by piece;
- ``pieces-1m``: the same with 1 MiB pieces (``piece_chars=1 << 20``; what ``PIECE_CHARS``'s docstring compares);
- ``offload``: ``Scope.offload`` of the value into a fresh store (its stub's size checked).

    python bench/offload_memory.py [ITEMS]       # default 400000

What it printed is quoted in bench/README.md (its row in the table of scripts).
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

MODES = ("dumps", "iterencode", "pieces", "pieces-1m", "offload")


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one(mode: str, items: int) -> None:
    """Run one mode in this process and print its line."""
    from scratchfs import Observation, ScratchStore
    from scratchfs.foundation.json_pieces import json_pieces

    value = [{"id": i, "name": f"item {i}", "tags": ["a", "b", "c"], "score": i * 0.5, "text": "lorem ipsum " * 4}
             for i in range(items)]
    root = tempfile.mkdtemp(prefix="offload-memory-")
    try:
        with ScratchStore(root) as store:
            scope = store.scope("bench", "offload")
            before, start = _rss_mib(), time.perf_counter()
            if mode == "dumps":
                chars = len(json.dumps(value, ensure_ascii=False))
            elif mode == "iterencode":
                chars = sum(map(len, json.JSONEncoder(ensure_ascii=False).iterencode(value)))
            elif mode == "pieces":
                chars = sum(map(len, json_pieces(value)))
            elif mode == "pieces-1m":
                chars = sum(map(len, json_pieces(value, 1 << 20)))
            else:
                out = scope.offload(Observation(tool="bench.offload", content=value, result_class="query"))
                assert out.stub is not None, "not spilled"
                chars = out.stub.size
            took = time.perf_counter() - start
            print(f"{mode:<11} {chars / 2**20:6.1f} MiB of text  {took:6.2f} s  peak RSS growth "
                  f"{_rss_mib() - before:6.1f} MiB", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        one(argv[1], int(argv[2]))
        return 0
    items = int(argv[0]) if argv else 400_000
    for mode in MODES:
        subprocess.run([sys.executable, __file__, "--one", mode, str(items)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
