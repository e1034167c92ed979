"""Shared pieces of the benchmark scripts: the real data, streamed to any size, and peak-RSS probes.

Data: the real tool outputs in ``fixtures/`` (see ``fixtures/README.md``), concatenated in name order into one
*corpus* of about 2 MiB and repeated to the size a figure needs. Nothing else is read.

RSS: on Linux, writing ``5`` to ``/proc/self/clear_refs`` resets the peak resident set size (``VmHWM``) to the
current one (``proc(5)``), so ``peak_after - rss_before`` is exactly the growth of the step between. Where that
file cannot be written, the peak since the process started (``ru_maxrss``) stands in; it can only over-state the
growth, never hide it.

Two checkouts: :func:`alternating_runs` runs a script's ``--one ROOT`` mode for each, alternating.
"""

from __future__ import annotations

import io
import json
import os
import re
import resource
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
FIXTURE_SUFFIXES = {".html", ".json", ".csv", ".txt"}
KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


def fixture_files() -> list[Path]:
    """The real data files, in name order."""
    return sorted(p for p in FIXTURES.iterdir() if p.suffix in FIXTURE_SUFFIXES)


def corpus() -> bytes:
    """All fixtures concatenated in name order (about 2 MiB of CSV, JSON, HTML and grep output)."""
    return b"".join(p.read_bytes() for p in fixture_files())


def file_listing(limit: int, top: str = "/usr") -> tuple[bytes, str]:
    """A ``find top``-style listing of this machine (one path per line, directories before their contents, names
    sorted), cut after the last whole line within ``limit`` bytes: real data whose repeats (path prefixes) lie
    further apart than one frame. Falls back to the Python installation's prefix where ``top`` lists nothing.
    Returns the listing and the directory listed."""
    for root in (top, sys.prefix):
        out: list[bytes] = []
        size = 0
        for directory, dirs, files in os.walk(root):
            dirs.sort()
            for name in [directory, *(os.path.join(directory, f) for f in sorted(files))]:
                line = os.fsencode(name) + b"\n"
                size += len(line)
                if size > limit:
                    return b"".join(out), root
                out.append(line)
        if out:
            return b"".join(out), root
    return b"", top


def repeated(source: bytes, size: int, start: int = 0) -> bytes:
    """``size`` bytes of ``source`` repeated, starting at byte ``start`` of it."""
    if not source:
        raise ValueError("source is empty")
    start %= len(source)
    reps = (start + size) // len(source) + 1
    return (source * reps)[start : start + size]


def repeated_chunks(source: bytes, size: int, chunk_bytes: int = MIB) -> Iterator[memoryview]:
    """Yield ``size`` bytes of ``source`` repeated, in chunks of ``chunk_bytes``, holding only ``source`` plus one
    chunk (the chunks are read-only views into one buffer)."""
    doubled = memoryview(source + source[: min(chunk_bytes, len(source))] * (chunk_bytes // len(source) + 1))
    pos = done = 0
    while done < size:
        n = min(chunk_bytes, size - done)
        yield doubled[pos : pos + n]
        done += n
        pos = (pos + n) % len(source)


class RepeatedReader(io.RawIOBase):
    """A binary file object whose content is ``source`` repeated to ``size`` bytes, generated as it is read."""

    def __init__(self, source: bytes, size: int) -> None:
        super().__init__()
        self._source = source
        self._size = size
        self._pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        view = memoryview(buffer).cast("B")
        n = min(len(view), self._size - self._pos)
        done = 0
        while done < n:
            at = (self._pos + done) % len(self._source)
            take = min(n - done, len(self._source) - at)
            view[done : done + take] = self._source[at : at + take]
            done += take
        self._pos += n
        return n


def pick_needle(period: bytes, per_period: int) -> bytes:
    """A word of the data (8 to 24 letters) that occurs ``per_period`` times in ``period`` as a substring, or as
    close to that as any word does; among equals the alphabetically first, so the choice is stable."""
    counts = Counter(re.findall(rb"\b[A-Za-z]{8,24}\b", period))
    for word in sorted(counts, key=lambda w: (abs(counts[w] - per_period), w)):
        if period.count(word) == counts[word]:  # no occurrence hides inside a longer word
            return word
    raise ValueError("the data has no word of 8 to 24 letters")


# -- resident set size -------------------------------------------------------------------------------------------

def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            text = f.read()
    except OSError:
        return None
    match = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    return int(match.group(1)) if match else None


def rss_bytes() -> int:
    """The current resident set size of this process, in bytes (the peak so far where it cannot be read)."""
    kib = _status_kib("VmRSS")
    return kib * KIB if kib is not None else peak_rss_bytes()


def peak_rss_bytes() -> int:
    """The peak resident set size of this process since start or the last :func:`reset_peak_rss`, in bytes."""
    kib = _status_kib("VmHWM")
    if kib is not None:
        return kib * KIB
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss if sys.platform == "darwin" else maxrss * KIB  # bytes on macOS, KiB elsewhere


def reset_peak_rss() -> bool:
    """Reset the peak RSS to the current RSS; False where the platform cannot (the peak then stays since start)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def percentile(values, q: float, scale: float = 1.0) -> float | None:
    """The ``q`` quantile (0..1) of ``values`` times ``scale`` (1000: seconds to milliseconds, 1e-6: nanoseconds to
    milliseconds), by linear interpolation between the closest ranks (so ``q=0.5`` is ``statistics.median``);
    ``None`` for no values. The one definition every benchmark quotes."""
    ordered = sorted(values)
    if not ordered:
        return None
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return (ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)) * scale


def alternating_runs(script: str, before: str, after: str, rounds: int) -> dict[str, list]:
    """Run ``python script --one ROOT`` for the checkout roots ``before`` and ``after``, alternating, ``rounds``
    times each, writing no bytecode into either (``PYTHONDONTWRITEBYTECODE``): each root's runs, their stdout read
    as JSON, in order. Raises ``subprocess.CalledProcessError`` if a run fails."""
    runs: dict[str, list] = {before: [], after: []}
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    for _ in range(rounds):
        for root in (before, after):
            out = subprocess.run([sys.executable, script, "--one", root], check=True, capture_output=True, text=True,
                                 env=env)
            runs[root].append(json.loads(out.stdout))
    return runs


def checkout_pair(script: str, argv: list[str], one: Callable[[str], object], rounds: int
                  ) -> tuple[str, str, dict[str, list]] | None:
    """The command line of a script that measures two checkouts side by side (``[BEFORE_ROOT] [ROUNDS]``, default
    ``/work/main`` and ``rounds``; the other is the checkout holding ``script``): ``(before, after, runs)`` from
    :func:`alternating_runs`, or ``None`` when ``argv`` is ``--one ROOT`` -- one run's figures, ``one(ROOT)``,
    printed as JSON (what :func:`alternating_runs` reads back). Raises ``subprocess.CalledProcessError`` if a run
    fails."""
    if argv[:1] == ["--one"]:
        print(json.dumps(one(argv[1])))
        return None
    before = argv[0] if argv else "/work/main"
    after = str(Path(script).resolve().parent.parent)
    return before, after, alternating_runs(script, before, after, int(argv[1]) if len(argv) > 1 else rounds)


def machine() -> dict:
    """What the figures were measured on."""
    import platform

    import zstandard

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "zstd": zstandard.ZSTD_VERSION and ".".join(map(str, zstandard.ZSTD_VERSION)),
        "python-zstandard": zstandard.__version__,
    }


def s3_emulator() -> tuple[object, str]:
    """Start moto's S3 API server (an emulator, in this process: its request costs are not a real object store's)
    on a free loopback port, point boto3 at it (this process's ``AWS_*`` variables), quiet its request log, and make
    a bucket of a new name: ``(the server, to stop(), the bucket's name)``. Needs moto and boto3 (``.[bench]``)."""
    import logging
    import uuid

    import boto3
    from moto.server import ThreadedMotoServer

    from tests.services import free_port

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ.update({"AWS_ENDPOINT_URL": f"http://{host}:{port}", "AWS_ACCESS_KEY_ID": "bench",
                       "AWS_SECRET_ACCESS_KEY": "bench", "AWS_REGION": "us-east-1"})
    bucket = f"scratchfs-bench-{uuid.uuid4().hex[:8]}"
    boto3.client("s3").create_bucket(Bucket=bucket)
    return server, bucket
