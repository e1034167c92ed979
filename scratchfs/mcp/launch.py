"""The launcher of ``scratchfs mcp-proxy``'s upstream: it stops the upstream, and the upstream's own children, when
the proxy dies -- by any signal, SIGKILL included.

Run by path with the standard library alone (``python -I -S launch.py FD GRACE -- COMMAND ARGS...``, as
:func:`scratchfs.mcp.upstream_stdio.upstream_stdio` starts it; the interpreter's start added to the upstream's: 50 to
110 ms on a loaded 2-core machine; ``python -c pass`` 22 ms alone, 53 ms launched at a load of 4.3, ``python
bench/notice_gate_cost.py``'s last line), it starts ``COMMAND`` in a session (and process group) of its own, inheriting
the launcher's stdin, stdout and stderr -- the proxy's pipes -- and keeps no copy of them; then it waits for one of
three things:

* **the proxy's death**: ``FD`` is one end of a socket pair whose other end only the proxy holds (it is not
  inheritable, so none of the proxy's other children has it); when the proxy exits, however it exits, the kernel
  closes that end and the launcher reads the end of the socket;
* **a signal** (SIGTERM, SIGINT, SIGHUP: the proxy's own stop of its upstream sends SIGTERM here);
* **the upstream's exit**.

On the first two it stops the upstream's process group: SIGTERM, up to ``GRACE`` seconds for the upstream to exit,
then SIGKILL to the whole group (children that stayed in it, ``npx`` -> ``node``, included), reaps the upstream and
exits. On the upstream's own exit it sends SIGTERM to what is left of its group, up to ``GRACE`` seconds for that to
exit, then SIGKILL (a child ignoring SIGTERM kept the proxy's pipe open: the proxy waited ``--timeout`` on an exited
upstream, and the child outlived it), and exits with the upstream's status (128 + N for a signal N). The upstream
is waited for without being reaped (``waitid(WNOWAIT)``) until the group has been signalled: its pid, which is the
group's id, cannot be taken by another process meanwhile. On Linux the
upstream is also given ``PR_SET_PDEATHSIG`` (SIGKILL): a launcher killed before it could act (SIGKILL) takes the
upstream itself with it.

If ``COMMAND`` cannot be started, the launcher writes ``{"errno", "strerror", "filename"}`` as JSON to ``FD`` and exits
with code 127: the proxy reports it as it reports a command it cannot start itself.

Why a launcher that stays, and a socket (measured and weighed for the proxy, mcp 2.3, Linux 6.x): the proxy cannot
set anything in its child between fork and exec (``anyio.open_process`` and the SDK take no ``preexec_fn``);
``PR_SET_PDEATHSIG`` set by a launcher that then execs the upstream stops the upstream alone -- its children (``npx``'s
``node``) live on, busy --, fires when the *thread* that forked dies, not the process, and is cleared by a setuid
program; the upstream in the proxy's own process group would receive the terminal's ^C meant for the proxy, and no
group signal reaches anyone once the proxy is SIGKILLed. A socket end closes on every death, on every POSIX system
(macOS too), with no polling: the launcher sleeps in ``select`` until something happens.

A child that leaves the upstream's process group (``setsid``, a daemon) escapes every group signal. On Linux the
launcher is a subreaper (``PR_SET_CHILD_SUBREAPER``, no privilege needed): such a child, once its parent is gone (a
daemon's double fork, or the upstream's exit or kill), is the launcher's child, which it reaps when it exits and
SIGKILLs -- with its process group, and the orphans that leaves, adopted in turn -- when it stops the upstream or
the upstream exited (found in ``/proc`` by their parent pid: never another's process; a group of such an orphan's
session, which only the upstream's descendants can be in). ``/proc`` is read only for those kills: an exited child is
found by ``waitid``, and the grace an exited upstream's group gets is slept through, woken by a child's exit (SIGCHLD)
or every :data:`GROUP_POLL_SECONDS` (a look at it every 20 ms took 0.49 s of CPU over a 5 s grace beside 117
processes, ``python bench/launcher_grace_cpu.py``; 0.04-0.05 s now). Limits: elsewhere such a child escapes (the proxy
still takes the launcher's exit for the upstream's, though such a child holds its pipe open), and on Linux too one
whose parent, still in the group, outlives the SIGKILL (another user's); an upstream running as another user
(setuid) cannot be signalled; a launcher itself SIGKILLed leaves the upstream's
children on systems without ``PR_SET_PDEATHSIG`` (and them alone on Linux); a SIGSTOPped launcher acts when
continued.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable

STOP_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")
"""The signals on which the launcher stops the upstream's group (and exits)."""
NOT_STARTED = 127
"""The launcher's exit code when ``COMMAND`` cannot be started (as a shell's for a command not found)."""
GROUP_POLL_SECONDS = 0.1
"""Longest sleep between two looks at whether the group of an upstream that exited by itself is empty, during the
grace its members get after SIGTERM: a member that is the launcher's child (adopted) wakes it as it exits (SIGCHLD); a
look costs a ``killpg(0)`` and a ``waitid``, no scan of ``/proc``."""
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _death_signal() -> Callable[[], None] | None:
    """What the upstream runs between fork and exec on Linux: ``PR_SET_PDEATHSIG`` (SIGKILL when the launcher dies),
    found here, in the launcher, so that the child only calls it; ``None`` elsewhere or without ``prctl``."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return lambda: prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def _adopt_orphans() -> bool:
    """On Linux, make the launcher the subreaper of its descendants (``PR_SET_CHILD_SUBREAPER``, no privilege needed):
    an orphan among them -- a daemon that left the upstream's group with ``setsid`` and whose parent exited -- becomes
    the launcher's child, which :func:`_adopted` finds. Returns whether it is set (never elsewhere)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _adopted(upstream: int) -> list[int]:
    """The launcher's children but the upstream (orphans it adopted), from ``/proc`` (``[]`` without it)."""
    me, found = os.getpid(), []
    try:
        entries = [entry for entry in os.listdir("/proc") if entry.isdigit() and int(entry) != upstream]
    except OSError:
        return []
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # (gone meanwhile)
        if len(fields) > 1 and fields[1] == str(me).encode():
            found.append(int(entry))
    return found


def _reap(upstream: int | None) -> None:
    """Reap every child of the launcher that exited -- the adopted orphans -- but ``upstream`` (``None``: it was
    reaped), which stays unreaped until its group is signalled (its pid is the group's id). No look at ``/proc``: a
    ``waitid`` that leaves the child to reap (``WNOWAIT``) tells which one exited, then ``waitpid`` reaps it. An
    exited upstream met first leaves the others to the next call (:meth:`Launcher.ended`'s, once it is reaped).
    Without ``waitid`` (macOS before Python 3.13, where no orphan is adopted) it reaps only once the upstream was."""
    while True:
        try:
            if hasattr(os, "waitid"):
                found = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                pid = None if found is None else found.si_pid
            else:  # pragma: no cover - Linux has waitid
                pid = None if upstream is not None else os.waitpid(-1, os.WNOHANG)[0] or None
            if pid is None or pid == upstream:
                return
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # (no child left)
            return


def _kill_adopted(upstream: int, seconds: float) -> None:
    """SIGKILL every adopted orphan with its process group -- and the orphans their deaths leave, adopted in turn --
    and reap them, until a look finds none, for at most ``seconds``. The group: a daemon that forks and exits over and
    over (its pid hops on) outran the kills of one pid at a time, and a look that found only its exited ones ended
    the kills; a group signal reaches every member at once, a fork under way too (its members are the upstream's
    descendants: an adopted orphan's session was started by one, and no other process can join it)."""
    deadline, mine = time.monotonic() + seconds, os.getsid(0)
    while (adopted := _adopted(upstream)) and time.monotonic() < deadline:
        groups: set[int] = set()  # (each killed once a look: a hopper leaves many exited members)
        for pid in adopted:  # (the launcher's children, unreaped until waitpid: their pids and group ids stay taken)
            try:
                if (group := os.getpgid(pid)) not in groups and os.getsid(pid) != mine:
                    groups.add(group)
                    os.killpg(group, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _reap(None)
        time.sleep(0.01)


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone, or a member is another user's: what could be signalled was


def _group_left(pgid: int) -> bool:
    """Whether a process of the group ``pgid`` that the launcher may signal is left."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _exited(child: subprocess.Popen) -> bool:
    """Whether the upstream exited, without reaping it where ``waitid`` is (its pid, the group's id, stays taken);
    elsewhere reaped (a group id then free for the instant before it is signalled)."""
    if not hasattr(os, "waitid"):  # pragma: no cover - Python builds waitid on Linux and the BSDs
        return child.poll() is not None
    try:
        return os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _status(child: subprocess.Popen, timeout: float | None) -> int:
    """Reap the upstream (within ``timeout`` seconds) and return its status as an exit code."""
    try:
        code = child.wait(timeout)
    except subprocess.TimeoutExpired:  # (a process the group's SIGKILL could not reach: another user's)
        return 128 + int(signal.SIGKILL)
    return code if code >= 0 else 128 - code


class Launcher:
    """The upstream's keeper: :meth:`run` starts it, waits, and stops its group (see the module docstring)."""

    def __init__(self, life: socket.socket, grace: float, command: list[str]) -> None:
        self.life, self.grace, self.command = life, grace, command
        self.stops: list[int] = []
        self.wake, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        for name in STOP_SIGNALS:
            signal.signal(getattr(signal, name), lambda signum, _frame: self.stops.append(signum))
        signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)  # (its wake-up byte ends the select)
        signal.set_wakeup_fd(wake_w)

    def run(self) -> int:
        """Start the upstream and keep it; returns the launcher's exit code."""
        adopting = _adopt_orphans()
        try:
            child = subprocess.Popen(self.command, start_new_session=True,  # (the launcher runs no thread:)
                                     preexec_fn=_death_signal())  # noqa: PLW1509
        except OSError as exc:
            report = {"errno": exc.errno, "strerror": exc.strerror, "filename": exc.filename}
            self.life.sendall(json.dumps(report, default=repr).encode())
            return NOT_STARTED
        null = os.open(os.devnull, os.O_RDWR)  # the proxy's pipes are the upstream's alone: their ends are its ends
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        while True:
            if _exited(child):
                return self.ended(child)
            if self.stops:
                return self.stop(child)
            ready, _, _ = select.select([self.life, self.wake], [], [])
            if self.life in ready:  # the proxy's end closed: it is gone
                return self.stop(child)
            os.read(self.wake, 512)
            if adopting:  # (a SIGCHLD: an adopted orphan that exited is reaped, no zombie left)
                _reap(child.pid)

    def pause(self, seconds: float) -> None:
        """Sleep until a signal comes (a child's exit: SIGCHLD) or ``seconds`` pass."""
        if select.select([self.wake], [], [], seconds)[0]:
            os.read(self.wake, 512)

    def ended(self, child: subprocess.Popen) -> int:
        """The upstream exited by itself: SIGTERM to what it left in its group, up to :attr:`grace` seconds for that
        to exit, SIGKILL to the rest (a child ignoring SIGTERM lived on, orphaned, and kept the proxy's pipe open:
        the proxy took the exited upstream for a silent one) and to the orphans the launcher adopted (Linux:
        :func:`_adopt_orphans`). Returns the upstream's status."""
        _signal_group(child.pid, signal.SIGTERM)
        code = _status(child, None)  # (reaped: the group's id is not reused while the group has a member, POSIX)
        deadline = time.monotonic() + self.grace
        while True:
            _reap(None)  # (members adopted, once orphaned, are reaped: a zombie is still in the group)
            if not _group_left(child.pid) or (left := deadline - time.monotonic()) <= 0:
                break
            self.pause(min(left, GROUP_POLL_SECONDS))
        _signal_group(child.pid, signal.SIGKILL)
        _kill_adopted(child.pid, max(self.grace, 0.5))
        return code

    def stop(self, child: subprocess.Popen) -> int:
        """SIGTERM to the upstream's group, :attr:`grace` seconds for the upstream to exit, SIGKILL to the group and
        to the orphans the launcher adopted (Linux: :func:`_adopt_orphans`)."""
        _signal_group(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        while not _exited(child) and (left := deadline - time.monotonic()) > 0:
            self.pause(left)
        _signal_group(child.pid, signal.SIGKILL)
        code = _status(child, 5.0)
        _kill_adopted(child.pid, max(self.grace, 0.5))
        return code


def main(argv: list[str]) -> int:
    """``launch.py FD GRACE -- COMMAND ARGS...``; returns the exit code (2: a usage error)."""
    try:
        if len(argv) < 5 or argv[3] != "--":
            raise ValueError("expected FD GRACE -- COMMAND [ARGS...]")
        life = socket.socket(fileno=int(argv[1]))
        grace = float(argv[2])
    except (ValueError, OSError) as exc:
        print(f"scratchfs launch: usage: launch.py FD GRACE -- COMMAND [ARGS...] ({exc})", file=sys.stderr)
        return 2
    life.set_inheritable(False)
    return Launcher(life, grace, argv[4:]).run()


__all__ = ["NOT_STARTED", "STOP_SIGNALS", "Launcher", "main"]

if __name__ == "__main__":
    sys.exit(main(sys.argv))
