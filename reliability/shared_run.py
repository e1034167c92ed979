"""Processes sharing one run: the gap ``reliability/run.py`` leaves (each of its workers owns its runs).

    python reliability/shared_run.py [--seconds 40] [--seed 1] [--root DIR] [--tamper]

Three writer processes spill into the same run and agents (segments and blob files, TTLs of 1 s and 1 h, a read
back of some, a delete of some), a fourth deletes agent ``b`` (and now and then the whole run), a fifth sweeps with
``orphan_grace=0`` (incremental and full); a writer or the sweeper is killed with SIGKILL every 0.05-0.4 s and
started again. ``--tamper`` also swaps ``journal/`` for a regular file and back now and then (a dead writer's journal
unreadable meanwhile). Then one process checks what the workers printed once each call returned:

* every acknowledged spill not deleted since is there with its exact bytes, unless it expired or a delete of its
  scope ended after it began (``LOST``, ``WRONG BYTES``);
* no spill a delete that began after it returned (or its own delete) removed is back (``RESURRECTED``);
* a full sweep and ``fsck`` leave the store clean.

Exit status 0 only if nothing was found. Figures: RELIABILITY.md.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def content(seed: int, size: int) -> bytes:
    """The bytes of spill ``seed``: its number, then its hash repeated."""
    digest = hashlib.sha256(str(seed).encode()).digest()
    return (b"%d:" % seed + digest * (size // 32 + 1))[:size]


def _say(*words: object) -> None:
    print(*words, flush=True)


def _write_once(store, rng: random.Random, seed: int) -> None:
    agent = rng.choice(["a", "b"])
    size = rng.choice([100, 3000, 60_000, 70_000, 300_000])
    ttl = rng.choice([3600, 3600, 1])
    began = time.time()
    scope = store.scope("shared", agent)
    stub = scope.spill(content(seed, size), source_tool="t", ttl=ttl)
    _say("ack", agent, stub.handle, seed, size, began, ttl, time.time())
    if rng.random() < 0.3 and scope.read_handle(stub.handle, 0, 65536).data != content(seed, size)[:65536]:
        _say("BAD", stub.handle)
    if rng.random() < 0.1 and scope.delete_entry("handle", stub.handle):
        _say("deleted", agent, stub.handle)


def worker(root: str, role: str, seed: int) -> None:
    """One worker process's loop (``role``: writer, deleter, sweeper) until it is killed."""
    from scratchfs import ScratchStore
    from scratchfs.foundation.errors import ScratchError

    rng = random.Random(seed)
    store = ScratchStore(root, orphan_grace=0.0 if role == "sweeper" else 300.0)
    for n in range(1, 1 << 62):
        try:
            if role == "writer":
                _write_once(store, rng, seed * 1_000_000 + n)
            elif role == "deleter":
                time.sleep(rng.uniform(0.05, 0.3))
                began, whole = time.time(), rng.random() < 0.1
                count = store.delete_run("shared") if whole else store.delete_agent("shared", "b")
                _say("delete", "*" if whole else "b", began, time.time(), count)
            else:
                result = store.sweep(wait=5, full=rng.random() < 0.3)
                _say("swept", result.rows_deleted, result.files_deleted, result.orphans_removed)
                time.sleep(0.02)
        except ScratchError as exc:
            _say("err", type(exc).__name__)


class Fleet:
    """The worker processes, their output so far (whole lines only), and the kills."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.procs: dict[str, tuple[subprocess.Popen, str]] = {}
        self.lines: list[str] = []
        self.partial: dict[str, str] = {}
        self.kills = 0
        self.tracebacks: list[str] = []

    def start(self, name: str, role: str, seed: int) -> None:
        proc = subprocess.Popen([sys.executable, __file__, "--worker", role, "--seed", str(seed), "--root", self.root],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.set_blocking(proc.stdout.fileno(), False)
        self.procs[name] = (proc, role)

    def drain(self, name: str) -> None:
        data = (self.procs[name][0].stdout.read() or b"").decode("utf-8", "replace")
        *whole, self.partial[name] = (self.partial.get(name, "") + data).split("\n")
        self.lines += whole

    def kill(self, name: str) -> str:
        proc, role = self.procs[name]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        self.drain(name)
        self.partial[name] = ""  # a line torn by the kill: its call's caller never saw it end
        err = proc.stderr.read().decode("utf-8", "replace")
        if "Traceback" in err:
            self.tracebacks.append(err[-1500:])
        proc.stdout.close()
        proc.stderr.close()
        self.kills += 1
        return role


def _tamper(root: str, rng: random.Random | None, swapped: bool) -> bool:
    """Now and then (always with no ``rng``) swap ``journal/`` for a regular file, or back; whether it is swapped."""
    journal, aside = os.path.join(root, "journal"), os.path.join(root, "journal.aside")
    if rng is not None and rng.random() >= 0.3:
        return swapped
    if swapped:
        os.unlink(journal)
        os.rename(aside, journal)
        return False
    if os.path.isdir(journal):
        os.rename(journal, aside)
        Path(journal).write_bytes(b"not a directory\n")
        return True
    return swapped


def run(root: str, seconds: float, seed: int, tamper: bool) -> Fleet:
    """Start the fleet, kill and restart its members for ``seconds``, then kill them all."""
    rng = random.Random(seed)
    fleet = Fleet(root)
    next_seed = seed * 100
    for name, role in (("w0", "writer"), ("w1", "writer"), ("w2", "writer"), ("d", "deleter"), ("s", "sweeper")):
        next_seed += 1
        fleet.start(name, role, next_seed)
    swapped = False
    end = time.time() + seconds
    while time.time() < end:
        time.sleep(rng.uniform(0.05, 0.4))
        swapped = _tamper(root, rng, swapped) if tamper else swapped
        for name in fleet.procs:
            fleet.drain(name)
        victim = rng.choice(["w0", "w1", "w2", "s"])
        next_seed += 1
        fleet.start(victim, fleet.kill(victim), next_seed)
    for name in list(fleet.procs):
        fleet.kill(name)
    if swapped:
        _tamper(root, None, True)  # the journal goes back: the check's store recovers what it names
    return fleet


def check(root: str, fleet: Fleet) -> list[str]:
    """What the store holds against what the workers printed (see the module docstring)."""
    from scratchfs import ScratchStore
    from scratchfs.api.inspector import fsck

    acks, deleted, deletes = [], set(), []
    for words in (line.split() for line in fleet.lines):
        if words[:1] == ["ack"]:
            acks.append((words[1], words[2], int(words[3]), int(words[4]), *map(float, words[5:8])))
        elif words[:1] == ["deleted"]:
            deleted.add(words[2])
        elif words[:1] == ["delete"]:
            deletes.append((words[1], float(words[2]), float(words[3])))
    problems = [f"BAD read-after-write: {line}" for line in fleet.lines if line.startswith("BAD")]
    problems += [f"traceback: {tb}" for tb in fleet.tracebacks]
    with ScratchStore(root, orphan_grace=0) as store:
        for agent, handle, seed, size, began, ttl, returned in acks:
            ours = [(start, stop) for who, start, stop in deletes if who in (agent, "*")]
            entry = store.index.lookup("shared", agent, "handle", handle, store.now())
            if handle in deleted or any(start > returned for start, _stop in ours):
                if entry is not None:
                    problems.append(f"RESURRECTED {agent} {handle}")
            elif entry is None:
                if not (time.time() >= began + ttl or any(stop >= began for _start, stop in ours)):
                    problems.append(f"LOST {agent} {handle} ({size} bytes)")
            elif b"".join(store.scope("shared", agent).iter_content("handle", handle)) != content(seed, size):
                problems.append(f"WRONG BYTES {agent} {handle}")
        store.sweep(full=True)
        report = fsck(store)
        problems += [f"fsck: {p.kind} {p.path}: {p.detail}" for p in report.problems if not p.sweeps]
    print(f"{fleet.kills} kills, {len(acks)} spills acknowledged, {len(deleted)} deleted one by one, "
          f"{len(deletes)} scope deletes; fsck clean: {report.clean}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--root", help="the store's root (default: a new temporary directory)")
    parser.add_argument("--tamper", action="store_true", help="swap journal/ for a file and back now and then")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.root, args.worker, args.seed)
        return 0
    root = args.root or os.path.join(tempfile.mkdtemp(prefix="scratchfs-shared-"), "root")
    shutil.rmtree(root, ignore_errors=True)
    problems = check(root, run(root, args.seconds, args.seed, args.tamper))
    for problem in problems[:50]:
        print(problem)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
