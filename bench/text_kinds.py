"""The cost of telling the kinds of text by their lines (a test run, a unified diff, YAML, Markdown, a file listing:
``scratchfs.api.shape_kinds``) and the bytes of the stubs that name their parts. Per call, best of 5, process CPU:
``told_by_lines`` on what is none of them (T1's 4 and 16 KiB slices of the bench corpus, T2's 512 KiB samples), and
each kind on content it tells, made at bench time (this repository's README and ``git log -p``, a Kubernetes-like YAML
stream, a ``find`` listing of 15,000 package directories, a dense 512 KiB diff, 50,000 bare hunk headers, a pytest run
of 5,000 tests, texts of 40,000 to 100,000 test failures, man sections and pydoc members, the fixtures' ``cargo
test``), a log's levels (``log_events``); then each
of those spilled, with the bytes of its stub as the model receives it (compact JSON, at most 1,536).

    python bench/text_kinds.py
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs import ScratchStore
from scratchfs.api.shape_kinds import KINDS, told_by_lines
from scratchfs.api.shape_log import log_events

HERE = Path(__file__).resolve().parent
SAMPLE = 512 * 1024


def _per_call(function, items: list[bytes]) -> float:
    """Best of 5 loops over ``items``, microseconds of process CPU a call."""
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for item in items:
            function(item)
        best = min(best, (time.process_time() - start) / len(items))
    return best * 1e6


def _positives() -> dict[str, bytes]:
    made = {"README.md (Markdown)": (HERE.parent / "README.md").read_bytes()}
    if shutil.which("git"):
        log = subprocess.run(["git", "-C", str(HERE.parent), "log", "-p", "-30"], capture_output=True,
                             check=False).stdout
        if log:
            made["git log -p -30 (diff)"] = log
    made["YAML stream of 150 objects"] = b"".join(
        b"---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-%d\n  labels:\n    app: web\nspec:\n"
        b"  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: c\n        image: nginx:1.25\n" % n
        for n in range(150))
    made["find of 15,000 package directories"] = b"".join(b"./node_modules/pkg%05d/index.js\n" % n
                                                           for n in range(15000))
    made["dense diff, 512 KiB"] = b"".join(b"--- a/%d\n+++ b/%d\n@@ -1 +1 @@\n-a\n+b\n" % (n, n)
                                           for n in range(30000))[:SAMPLE]
    made["50,000 bare hunk headers"] = b"\n@@ -1 +1 @@" * 50_000
    bar = b"=" * 30
    made["pytest -v, 5,000 tests, 500 failures"] = b"\n".join(
        [bar + b" test session starts " + bar, b"collected 5000 items", b""]
        + [b"tests/test_a.py::test_case[%d] %s [ %d%%]" % (n, b"FAILED" if n % 10 == 3 else b"PASSED", n // 50)
           for n in range(5000)]
        + [b"", bar + b" FAILURES " + bar]
        + [b"_" * 20 + b" test_case[%d] " % n + b"_" * 20 + b"\n\n    def test_case(n):\n>       assert n %% 10 != 3\n"
           b"E       assert 3 != 3\n\ntests/test_a.py:5: AssertionError" for n in range(3, 5000, 10)]
        + [bar + b" 500 failed, 4500 passed in 12.34s " + bar]) + b"\n"
    made.update(_worst())
    made["gcc, 20,000 warnings"] = b"".join(b"src/m%d.c:%d:5: warning: unused variable 'x' [-Wunused-variable]\n"
                                            b"  %d |     int x;\n      |         ^\n" % (n % 50, n, n)
                                            for n in range(20000))[:SAMPLE]
    made["cargo test (fixtures/tools/cargo-test.txt)"] = (HERE.parent / "fixtures/tools/cargo-test.txt").read_bytes()
    return made


def _worst() -> dict[str, bytes]:
    """Texts of many parts, each 512 KiB: what a shape that made a name per part paid for each (46-128 ms before
    ``scratchfs.api.shape_parts``)."""
    bar = b"=" * 10 + b" test session starts " + b"=" * 10 + b"\n"
    made = {"52,000 pytest failure bars": bar + b"___ t ___\n" * 60000,
            "40,000 TAP not ok lines": b"TAP version 13\n" + b"not ok 1 - x\n" * 40000,
            "100,000 man sections": b"LS(1) x LS(1)\n" + b"NAME\n" * 100000,
            "40,000 pydoc methods": b"Help on class x in y:\n" + b" |  \n |  f(\n" * 40000,
            "58,000 pydoc sections": b"Help on package x:\n" + b"CLASSES\nFUNCTIONS\n" * 40000}
    return {name: data[:SAMPLE] for name, data in made.items()}


def _log_levels() -> None:
    """A log's levels and tracebacks (``scratchfs.api.shape_log.log_events``) on 4 KiB and 512 KiB of a Python
    ``logging`` output made here, and one level's pattern against the same word led by ``\\b`` (tried at every
    position: what the shape's first version paid)."""
    lines = []
    for n in range(20000):
        level = "ERROR" if n % 250 == 17 else "WARNING" if n % 40 == 3 else "INFO"
        lines.append(f"2026-12-05 00:34:34,{n % 1000:03d} {level} app.worker: job {n} done in 0.{n % 997:03d}s")
        if level == "ERROR":
            lines += ["Traceback (most recent call last):", '  File "app.py", line 8, in <module>',
                      f"KeyError: 'missing_key_{n}'"]
    log = "\n".join(lines).encode()[:SAMPLE]
    log = log[: log.rfind(b"\n") + 1]
    small = log[: log.rfind(b"\n", 0, 4096) + 1]
    for name, data in (("4 KiB", small), ("512 KiB", log)):
        print(f"log_events, {name} of a log: {_per_call(log_events, [data] * 20):.1f} us a call")
    word, led = re.compile(rb"ERROR(?![A-Za-z0-9_])(?<![A-Za-z0-9_]ERROR)"), re.compile(rb"\bERROR\b")
    print(f"one level over 512 KiB: {_per_call(word.findall, [log] * 5) / 1000:.2f} ms from its literal, "
          f"{_per_call(led.findall, [log] * 5) / 1000:.2f} ms led by \\b")


def main() -> None:
    corpus = benchlib.corpus()
    for size, count in ((4096, 3000), (16384, 2000)):
        slices = [benchlib.repeated(corpus, size, start=n * size + n * 7) for n in range(count)]
        cost = _per_call(lambda s: told_by_lines(s, s.count(b"\n"), True, ""), slices)
        each = ", ".join(f"{told.__name__} {_per_call(lambda s, t=told: t(s, 100, True, ''), slices):.1f}"
                         for told in KINDS)
        print(f"told_by_lines, {size // 1024} KiB slices of the corpus: {cost:.1f} us a call ({each})")
    samples = [benchlib.repeated(corpus, 4 * 1024 * 1024, start=n * 1_000_003)[:SAMPLE] for n in range(8)]
    cost = _per_call(lambda s: told_by_lines(s, 50_000, False, "", 4 * 1024 * 1024), samples)
    print(f"told_by_lines, T2's 512 KiB samples: {cost / 1000:.2f} ms a call")
    _log_levels()
    directory = tempfile.mkdtemp(prefix="text-kinds-")
    try:
        with ScratchStore(directory) as store:
            scope = store.scope("bench", "kinds")
            for name, data in _positives().items():
                lines, whole, size = data.count(b"\n") + 1, len(data) <= SAMPLE, len(data)
                cost = _per_call(lambda s, n=lines, w=whole, z=size: told_by_lines(s, n, w, "", z), [data[:SAMPLE]])
                stub = scope.spill(data, source_tool="bench")
                print(f"{name}: {len(data):,} bytes, told in {cost / 1000:.1f} ms; stub "
                      f"{len(stub.to_json().encode('utf-8')):,} bytes; shape: {stub.shape[:90]}")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
