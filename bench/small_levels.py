"""zstd levels on small contents (issue 16): CPU per compression of T1's payloads (the corpus repeated, 300 per size,
median of 5 passes) and stored bytes against level 3 on slices of each fixture (the first 50 slices of each size),
as one frame with checksum and content size, as the store writes a small entry.

    python bench/small_levels.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib

LEVELS = (3, 1, -1, -3)
SIZES = (4096, 16384, 65536)


def main() -> int:
    corpus = benchlib.corpus()
    make = {level: zstandard.ZstdCompressor(level=level, write_checksum=True, write_content_size=True)
            for level in LEVELS}
    for size in SIZES:
        payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(300)]
        times: dict[int, list[float]] = {level: [] for level in LEVELS}
        stored = {level: sum(len(make[level].compress(p)) for p in payloads) for level in LEVELS}
        for _ in range(5):
            for level in LEVELS:
                start = time.thread_time()
                for p in payloads:
                    make[level].compress(p)
                times[level].append((time.thread_time() - start) / len(payloads) * 1e6)
        print(f"{size:,} B payloads: " + ", ".join(
            f"level {level} {statistics.median(times[level]):.1f} µs ({stored[level] / stored[3]:.3f}x the bytes)"
            for level in LEVELS))
    for path in benchlib.fixture_files():
        data = path.read_bytes()
        for size in SIZES:
            chunks = [data[i:i + size] for i in range(0, len(data) - size, size)][:50]
            if chunks:
                sizes = {level: sum(len(make[level].compress(c)) for c in chunks) for level in LEVELS}
                print(f"{path.name} {size:,} B slices: " + ", ".join(
                    f"level {level} {sizes[level] / sizes[3]:.3f}x" for level in LEVELS[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
