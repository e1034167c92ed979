"""T2's payload under zstd (issue 16): level 3 on the 4 MiB payload (the corpus repeated, as T2 makes it) as frames
of 128 KiB, 256 KiB and 1 MiB on one thread and on two (each thread its own compressor), against one frame; then,
for 128 KiB frames, zstd's parameters around level 3's (strategy, hash log, chain log, min match) and levels 1 and 2,
each with its ratio. Best of 7 passes (``--quick``: 2). The figures of bench/README, "T1 and T2 on 2026-12-03 (third
session)".

    python bench/t2_zstd.py [--quick]
"""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib

FRAME = 128 * 1024


def best(passes: int, run) -> float:
    """Seconds of the fastest of ``passes`` calls of ``run()``."""
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def frames(payload: bytes, size: int) -> list[memoryview]:
    view = memoryview(payload)
    return [view[i:i + size] for i in range(0, len(payload), size)]


def main(argv: list[str]) -> int:
    passes = 2 if "--quick" in argv else 7
    payload = benchlib.repeated(benchlib.corpus(), 4 * 1024 * 1024, start=1_000_003)
    one = zstandard.ZstdCompressor(level=3)
    whole = best(passes, lambda: one.compress(payload))
    print(f"one frame, level 3: {whole * 1e3:.1f} ms, ratio {len(payload) / len(one.compress(payload)):.2f}")
    local = threading.local()

    def compress(piece: memoryview) -> bytes:
        if not hasattr(local, "cctx"):
            local.cctx = zstandard.ZstdCompressor(level=3, write_checksum=True)
        return local.cctx.compress(piece)

    with ThreadPoolExecutor(2) as pool:
        for size in (FRAME, 256 * 1024, 1024 * 1024):
            parts = frames(payload, size)
            single = best(passes, lambda: [compress(p) for p in parts])  # noqa: B023
            double = best(passes, lambda: list(pool.map(compress, parts)))  # noqa: B023
            ratio = len(payload) / sum(map(len, map(compress, parts)))
            print(f"{size // 1024} KiB frames: 1 thread {single * 1e3:.1f} ms, 2 threads {double * 1e3:.1f} ms, "
                  f"ratio {ratio:.2f}")
    parts = frames(payload, FRAME)
    tried = [(f"level {level}", zstandard.ZstdCompressor(level=level, write_checksum=True)) for level in (3, 2, 1)]
    for strategy in (1, 2):
        for hash_log in (15, 16, 17):
            for chain_log in (14, 16):
                for min_match in (5, 6):
                    params = zstandard.ZstdCompressionParameters(
                        window_log=17, hash_log=hash_log, chain_log=chain_log, search_log=1, min_match=min_match,
                        target_length=0, strategy=strategy, write_checksum=True)
                    tried.append((f"strategy {strategy}, hash log {hash_log}, chain log {chain_log}, min match "
                                  f"{min_match}", zstandard.ZstdCompressor(compression_params=params)))
    for name, cctx in tried:
        seconds = best(passes, lambda: [cctx.compress(p) for p in parts])  # noqa: B023
        ratio = len(payload) / sum(len(cctx.compress(p)) for p in parts)
        print(f"128 KiB frames, {name}: {seconds * 1e3:.1f} ms, ratio {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
