"""The two hazards the frame pool's queue is built against (``scratchfs.engine.frame_pool``, module docstring):

    python bench/pool_hazards.py timeout [ROUNDS]     # default 200 rounds
    python bench/pool_hazards.py interrupts [READS]   # default 300 reads

- ``timeout``: for ``queue.SimpleQueue`` and ``queue.Queue``, ROUNDS rounds of three threads that wait for items with
  a 2 ms timeout and end on the first timeout, while this thread puts 50 items, holding the GIL a while after each
  (so that a woken thread finds its item taken and its deadline passed); then as many rounds of a ``FramePool`` of 3
  threads idle-ending after 2 ms, given 50 calls the same way. Printed: threads still waiting 2 s after each round
  (CPython 3.11's ``SimpleQueue.get(timeout=...)`` blocks for ever then).
- ``interrupts``: READS long reads (a 2 MiB blob of 4 KiB frames, read ahead on the frame threads), each interrupted
  by a ``KeyboardInterrupt`` from a ``SIGALRM`` handler after a random 0-30 ms; printed: reads interrupted and finished,
  wrong bytes, whether the pool still answers a call, and its threads and queued calls 3 s later (both 0 when no
  lock was left taken).
"""

from __future__ import annotations

import os
import queue
import random
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.engine.frame_pool import FramePool, frame_pool
from scratchfs.engine.seekable import SeekableReader, SeekableWriter, read_seek_table


def timeouts(rounds: int) -> str:
    stuck: dict[str, int] = {}
    for name, make in (("SimpleQueue", queue.SimpleQueue), ("Queue", queue.Queue)):
        stuck[name] = 0
        for _ in range(rounds):
            q = make()

            def wait(q=q) -> None:
                while True:
                    try:
                        q.get(timeout=0.002)
                    except queue.Empty:
                        return

            threads = [threading.Thread(target=wait, daemon=True) for _ in range(3)]
            for t in threads:
                t.start()
            for i in range(50):
                q.put(i)
                sum(range(2000))  # hold the GIL a while
            deadline = time.monotonic() + 2
            for t in threads:
                t.join(max(0.0, deadline - time.monotonic()))
            stuck[name] += sum(t.is_alive() for t in threads)
            for _ in threads:
                q.put(None)  # (wake the stuck ones, so that they end)
    stuck["FramePool"] = 0
    for _ in range(rounds):  # the pool itself: 3 threads ending after 2 ms idle
        pool = FramePool(workers=3, idle_seconds=0.002)
        for i in range(50):
            pool.submit(pow, i, 2)
            sum(range(2000))
        deadline = time.monotonic() + 2
        while pool.alive and time.monotonic() < deadline:
            time.sleep(0.005)
        stuck["FramePool"] += pool.alive
    return f"Python {sys.version.split()[0]}, {rounds} rounds of 3 threads: still waiting after 2 s: " + ", ".join(
        f"{name} {count}" for name, count in stuck.items())


def interrupts(reads: int) -> str:
    data = os.urandom(4096 * 7) * 73  # 2 MiB, 511 frames of 4 KiB
    fd, path = tempfile.mkstemp(prefix="pool-hazard-")
    try:
        writer = SeekableWriter(fd, frame_bytes=4096)
        writer.write(data)
        writer.close()
        reader = SeekableReader(fd, read_seek_table(fd, os.fstat(fd).st_size))

        def interrupt(*_) -> None:
            raise KeyboardInterrupt

        previous = signal.signal(signal.SIGALRM, interrupt)
        rng, counts = random.Random(1), {"interrupted": 0, "finished": 0, "wrong": 0}
        try:
            for _ in range(reads):
                try:
                    signal.setitimer(signal.ITIMER_REAL, rng.uniform(0, 0.03))
                    try:
                        got = b"".join(chunk for _, chunk in reader.iter_frames())
                    finally:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                    counts["finished"] += 1
                    counts["wrong"] += got != data
                except KeyboardInterrupt:
                    counts["interrupted"] += 1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    finally:
        os.close(fd)
        os.unlink(path)
    try:
        answers = frame_pool.submit(pow, 2, 5).result(timeout=10) == 32
    except TimeoutError:
        answers = False
    time.sleep(frame_pool.idle_seconds + 1)
    return (f"{reads} reads: {counts['interrupted']} interrupted, {counts['finished']} finished, {counts['wrong']} "
            f"with wrong bytes; the pool answers a call: {answers}; 3 s later: {frame_pool.alive} threads, "
            f"{frame_pool.queued} calls queued")


def main(argv: list[str]) -> int:
    if argv[:1] == ["timeout"]:
        print(timeouts(int(argv[1]) if len(argv) > 1 else 200))
    elif argv[:1] == ["interrupts"]:
        print(interrupts(int(argv[1]) if len(argv) > 1 else 300))
    else:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
