"""The command line's start-up: what a shell agent (and the test suite) pays on every ``scratchfs`` command.

``python bench/cli_startup.py [--reps N] [--top K] [OTHER_ROOT]``: times, each in a fresh subprocess, best of N
(default 7) wall and CPU seconds (the child's user + system, ``RUSAGE_CHILDREN``):

- ``scratchfs --help``; ``ls`` of a store holding a few entries; ``read-handle`` of a small entry (a 2 KiB range);
  ``spill`` of 20 KB of a real tool output (a ``git diff``) from stdin; ``scratch-read`` of a small key;
- ``python -c "import scratchfs"``;

against ``python -c pass``, the anchor each is quoted as a ratio of (wall). Then, for each command, the top K
(default 10) modules by self import time (``python -X importtime``, one run; microseconds).

With ``OTHER_ROOT`` (a checkout, e.g. ``git archive main | tar -x -C /tmp/main-x``) the same commands run from it
too, alternating with this checkout's command by command, each run in its checkout's directory (``-m`` puts it first
on the path) on a store of its own under a temporary directory, after one untimed round (bytecode written); the
import tables are printed for both. Nothing outside that directory is written.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SMALL_SOURCE = HERE / "fixtures" / "tools" / "apt-cache-show.txt"
SPILL_SOURCE = HERE / "fixtures" / "tools" / "git-diff-25-files.txt"  # (more than SPILL_BYTES)
SPILL_BYTES = 20_000


def _env(checkout: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRATCHFS_")}
    env["PYTHONPATH"] = str(checkout)
    env["SCRATCHFS_RUN_ID"] = "bench"
    env["SCRATCHFS_AGENT_ID"] = "a1"
    return env


def _prepare(checkout: Path, root: Path) -> dict[str, list[str]]:
    """A store at ``root`` holding one small spilled entry and one scratchpad key; the commands to time, by name."""
    cli = [sys.executable, "-m", "scratchfs"]
    env = _env(checkout)
    small = SMALL_SOURCE.read_bytes()[:8192]
    out = subprocess.run([*cli, "spill", "--root", str(root), "-"], input=small, env=env, capture_output=True,
                         check=True, cwd=checkout)
    handle = out.stdout.decode().split('"handle": "', 1)[1].split('"', 1)[0]
    subprocess.run([*cli, "scratch-write", "--root", str(root), "notes", "-"], input=b"a small note\n", env=env,
                   capture_output=True, check=True, cwd=checkout)
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import scratchfs": [sys.executable, "-c", "import scratchfs"],
        "--help": [*cli, "--help"],
        "ls": [*cli, "ls", "--root", str(root)],
        "read-handle": [*cli, "read-handle", "--root", str(root), handle, "--offset", "0", "--length", "2048"],
        "spill 20 KB": [*cli, "spill", "--root", str(root), "-"],
        "scratch-read": [*cli, "scratch-read", "--root", str(root), "notes"],
    }


def _once(argv: list[str], checkout: Path, stdin: bytes | None) -> tuple[float, float]:
    """One run's wall and CPU seconds (the child's user + system), run in ``checkout`` (``-m`` puts the working
    directory first on the path)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=_env(checkout), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False, cwd=checkout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr.decode(errors='replace')[-400:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _self_times(argv: list[str], checkout: Path, stdin: bytes | None, top: int) -> list[tuple[int, str]]:
    """The ``top`` modules by self import time (microseconds) of one run under ``-X importtime``."""
    done = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], input=stdin, env=_env(checkout),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, cwd=checkout)
    rows = []
    for line in done.stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and "|" in line:
            self_us, _cumulative, name = line[len("import time:"):].split("|", 2)
            if self_us.strip().isdigit():
                rows.append((int(self_us), name.strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", nargs="?", help="another checkout's root, alternated with this one")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    checkouts = {"this": HERE}
    if args.other:
        checkouts["other"] = Path(args.other).resolve()
    stdin = {"spill 20 KB": SPILL_SOURCE.read_bytes()[:SPILL_BYTES]}
    with tempfile.TemporaryDirectory(prefix="cli_startup-") as tmp:
        commands = {name: _prepare(path, Path(tmp) / name) for name, path in checkouts.items()}
        best: dict[tuple[str, str], tuple[float, float]] = {}
        for rep in range(args.reps + 1):  # (the first round untimed: each checkout's bytecode cached first)
            for command in commands["this"]:
                for name, path in checkouts.items():  # (alternating: each command of each checkout in turn)
                    wall, cpu = _once(commands[name][command], path, stdin.get(command))
                    if rep == 0:
                        continue
                    old = best.get((name, command), (wall, cpu))
                    best[(name, command)] = (min(old[0], wall), min(old[1], cpu))
        print(f"best of {args.reps}, seconds; ratio: wall against `python -c pass`; load "
              f"{os.getloadavg()[0]:.1f}")
        heads = "".join(f" | {name} wall | cpu | ratio" for name in checkouts)
        print(f"| command{heads} |")
        print("|---" * (1 + 3 * len(checkouts)) + "|")
        for command in commands["this"]:
            cells = ""
            for name in checkouts:
                wall, cpu = best[(name, command)]
                cells += f" | {wall:.3f} | {cpu:.3f} | {wall / best[(name, 'python -c pass')][0]:.1f}x"
            print(f"| {command}{cells} |")
        for name, path in checkouts.items():
            for command, argv in commands[name].items():
                if command == "python -c pass":
                    continue
                rows = _self_times(argv, path, stdin.get(command), args.top)
                print(f"\n{name} ({path}): {command}: top {args.top} modules by self import time (us)")
                print("  " + ", ".join(f"{module} {us}" for us, module in rows))


if __name__ == "__main__":
    main()
