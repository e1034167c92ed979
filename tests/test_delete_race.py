"""Writes racing a ``delete_agent`` / ``delete_run`` of their own scope never fail (issue 13).

Eight processes run a mixed load on one root: spills and scratchpad writes into scopes nobody deletes (each one is
read back at the end: nothing lost, no wrong byte), and spills, overwrites and reads in ``victim`` scopes that every
process deletes now and then with ``delete_agent`` (and ``delete_run``). A write overlapping a delete must behave as
if it came entirely before it (then it is deleted: a read says NotFound) or entirely after it (it survives, with the
right bytes): no error reaches any caller. About 5 s by default; ``SCRATCHFS_STRESS=1`` runs 10 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from reliability.harness import make_content
from scratchfs import ScratchStore

REPO = Path(__file__).resolve().parent.parent
STRESS = bool(os.environ.get("SCRATCHFS_STRESS"))
PROCESSES = 8
SECONDS = 10.0 if STRESS else 5.0

WORKER = """
    import json, random, sys, time
    from reliability.harness import content_seed, make_content
    from scratchfs import NotFound, ScratchStore
    root, wid, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    rng = random.Random(wid)
    errors, counts, kept, scratch = [], {}, [], {}

    def count(what):
        counts[what] = counts.get(what, 0) + 1

    with ScratchStore(root, orphan_grace=0.0, frame_bytes=16384) as store:
        mine = store.scope("keep", f"w{wid}")
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            roll = rng.random()
            victim = store.scope("victim", f"a{rng.randrange(3)}")
            try:
                if roll < 0.15:
                    seed, size = rng.getrandbits(40), rng.randrange(64, 60_000)
                    kept.append((mine.spill(make_content(seed, size), source_tool="t").handle, seed, size))
                    count("spill kept")
                elif roll < 0.25:
                    seed, size = rng.getrandbits(40), rng.randrange(64, 20_000)
                    key = f"k{rng.randrange(4)}"
                    mine.scratch_write(key, make_content(seed, size))
                    scratch[key] = (seed, size)
                    count("scratch write kept")
                elif roll < 0.6:
                    seed, size = rng.getrandbits(40), rng.randrange(64, 60_000)
                    handle = victim.spill(make_content(seed, size), source_tool="t").handle
                    try:
                        data = victim.read_handle(handle, 0, size).data
                        if data != make_content(seed, size)[:len(data)] or len(data) != min(size, 65536):
                            raise AssertionError("a victim read returned wrong bytes")
                        count("victim spill read back")
                    except NotFound:
                        count("victim spill deleted by a delete")
                elif roll < 0.8:
                    seed, size = rng.getrandbits(40), rng.randrange(64, 20_000)
                    victim.scratch_write("shared", make_content(seed, size))
                    try:
                        if content_seed(victim.scratch_read("shared")) is None:
                            raise AssertionError("a victim key read back wrong bytes")
                        count("victim key read back")
                    except NotFound:
                        count("victim key deleted by a delete")
                elif roll < 0.97:
                    store.delete_agent("victim", f"a{rng.randrange(3)}")
                    count("delete_agent")
                else:
                    store.delete_run("victim")
                    count("delete_run")
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
    print(json.dumps({"errors": errors, "counts": counts, "kept": kept, "scratch": scratch}))
"""


def test_writes_racing_deletes_of_their_scope_never_fail(tmp_path):
    root = tmp_path / "root"
    ScratchStore(root).close()  # the schema exists before the workers start
    code = textwrap.dedent(WORKER)
    workers = [subprocess.Popen([sys.executable, "-c", code, str(root), str(w), str(SECONDS)], cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE) for w in range(PROCESSES)]
    reports = []
    for w in workers:
        out, err = w.communicate(timeout=SECONDS + 120)
        assert w.returncode == 0, err.decode()[-2000:]
        reports.append(json.loads(out))
    errors = [e for r in reports for e in r["errors"]]
    assert errors == []
    totals: dict[str, int] = {}
    for r in reports:
        for what, n in r["counts"].items():
            totals[what] = totals.get(what, 0) + n
    assert totals.get("delete_agent", 0) > 20 and totals.get("victim spill read back", 0) > 20
    with ScratchStore(root) as store:
        for wid, r in enumerate(reports):
            scope = store.scope("keep", f"w{wid}")
            for handle, seed, size in r["kept"]:
                assert scope.read_handle(handle, 0, 65536).data == make_content(seed, size)[:65536]
            for key, (seed, size) in r["scratch"].items():
                assert scope.scratch_read(key) == make_content(seed, size)
        assert store.integrity_check() == "ok"
