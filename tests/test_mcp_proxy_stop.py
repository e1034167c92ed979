"""``scratchfs mcp-proxy`` stopped while its upstream is busy, with real processes: SIGKILL, SIGTERM or ^C to the
proxy stops the upstream and the child it started (scratchfs.mcp.launch), and a signal the proxy can handle answers
every request still in flight with a JSON-RPC error naming the stop (scratchfs.mcp.stop_signals)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

psutil = pytest.importorskip("psutil")
pytest.importorskip("mcp")

from .mcp_support import raw_upstream  # noqa: E402 (it imports the SDK)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: a subreaper reaps the orphans")

BUSY_UPSTREAM = raw_upstream("busy", [{"name": "busy", "inputSchema": {"type": "object"}}], prelude="""
    import os, subprocess, time
    PIDS = sys.argv[1]
""", call="""
    # a slow call: a child of its own (npx's node), then an hour's work; its stdin is no longer read
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    with open(PIDS + ".tmp", "w") as f:
        f.write(json.dumps([os.getpid(), child.pid]))
    os.rename(PIDS + ".tmp", PIDS)
    time.sleep(3600)
    continue
""")
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "stop-test", "version": "1"}}
_PR_SET_CHILD_SUBREAPER = 36


@contextmanager
def subreaper():
    """This process adopts its descendants' orphans meanwhile (PID 1 of a container may reap none: every orphan
    would stay a zombie whoever made it), so that the test can reap them and tell a zombie left behind."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        yield
    finally:
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def gone_within(pids: list[int], seconds: float) -> list[int]:
    """Wait up to ``seconds`` for every process of ``pids`` to be gone, reaping those this process adopted; the
    pids still there (alive, or a zombie nobody reaped) at the end."""
    deadline = time.monotonic() + seconds
    while True:
        left = []
        for pid in pids:
            try:
                process = psutil.Process(pid)
                if process.status() == psutil.STATUS_ZOMBIE and process.ppid() == os.getpid():
                    os.waitpid(pid, 0)
                    continue
                left.append(pid)
            except (psutil.NoSuchProcess, ChildProcessError):
                pass
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def _cmdline(pid: int) -> list[str]:
    try:
        return psutil.Process(pid).cmdline()[:3]
    except psutil.Error:
        return []


def send(proc, message: dict) -> None:
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


@pytest.mark.parametrize(("signame", "code", "line"), [
    ("SIGKILL", -9, None), ("SIGTERM", 143, "scratchfs: terminated"), ("SIGINT", 130, "scratchfs: interrupted"),
    ("SIGHUP", 129, "scratchfs: hung up")])
def test_a_proxy_stopped_mid_call_stops_its_upstream_and_answers_what_is_in_flight(signame, code, line, tmp_path):
    """A SIGKILLed proxy left its upstream, busy in a slow call, running in a session of its own (for the call's
    hour), with the child it had started: the upstream now runs under a launcher that stops its process group
    when the proxy's end of a socket closes. SIGTERM wrote nothing for the call in flight, ^C '-32000 Connection
    closed': both now answer each request in flight, by its id as sent, with -32000 naming the signal, and exit with
    the CLI's line and code. No process of the upstream's is left, not even a zombie."""
    script, pids = tmp_path / "busy_upstream.py", tmp_path / "pids.json"
    script.write_text(BUSY_UPSTREAM)
    command = [sys.executable, "-m", "scratchfs", "--root", str(tmp_path / "store"), "mcp-proxy", "--run", "r",
               "--agent", "a", "--sweep-interval", "0", "--timeout", "60", "--", sys.executable, str(script),
               str(pids)]
    with subreaper(), (tmp_path / "stderr.txt").open("wb") as err:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        try:
            send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
            assert json.loads(proc.stdout.readline())["id"] == 1
            send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            for rid in (2, "07"):
                send(proc, {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                            "params": {"name": "busy", "arguments": {}}})
            deadline = time.monotonic() + 60
            while not pids.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            upstream, grandchild = json.loads(pids.read_text())
            started = [p.pid for p in psutil.Process(proc.pid).children(recursive=True)]
            assert {upstream, grandchild} <= set(started), started
            time.sleep(0.3)  # (the second call reached the proxy's upstream session too)
            proc.send_signal(getattr(signal, signame))
            out = proc.stdout.read()
            assert proc.wait(30) == code
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass  # (stdin: what it held was for a process gone)
            left = gone_within(started, 10)
            shown = [_cmdline(pid) for pid in left]
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            gone_within(left, 5)
    assert left == [], f"{signame}: left running {shown}"
    replies = [json.loads(text) for text in out.splitlines()]
    if line is None:
        assert replies == []
        return
    assert (tmp_path / "stderr.txt").read_text().splitlines()[-1] == line
    stopped = f"scratchfs mcp-proxy stopped ({signame}) before answering this request"
    assert sorted(replies, key=lambda r: str(r["id"])) == [
        {"jsonrpc": "2.0", "id": rid, "error": {"code": -32000, "message": stopped}} for rid in ("07", 2)], replies


def launched(tmp_path, shell: str, grace: float = 0.3):
    """``sh -c shell`` under the launcher, as the proxy starts it: ``(launcher, proxy's end of the socket, pids)``,
    the pids those ``shell`` wrote to ``tmp_path / "pids"`` (its own and its background child's)."""
    import socket

    from scratchfs.mcp.upstream_stdio import launch_command

    life, theirs = socket.socketpair()
    pids = tmp_path / "pids"
    command = launch_command(theirs.fileno(), "sh", ["-c", shell.replace("PIDS", str(pids))])
    command[command.index("0.3")] = f"{grace:g}"
    launcher = subprocess.Popen(command, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                start_new_session=True)
    theirs.close()
    deadline = time.monotonic() + 30
    while (not pids.exists() or len(pids.read_text().split()) < 2) and time.monotonic() < deadline:
        time.sleep(0.02)
    return launcher, life, [int(pid) for pid in pids.read_text().split()]


# (no `alone` mark: 5 s is over ten times the 0.3 s grace and the kill; a group left alive fails gone_within)
def test_the_launcher_stops_a_group_that_ignores_sigterm_once_the_proxys_end_closes(tmp_path):
    """The proxy's end of the socket closing (its death) stops the upstream's whole group, SIGKILL after the grace
    for what ignores SIGTERM; the launcher reaps the upstream and exits 128 + 9."""
    with subreaper():
        launcher, life, pids = launched(tmp_path, "trap '' TERM; sleep 3600 & echo $$ $! > PIDS.tmp; "
                                                  "mv PIDS.tmp PIDS; wait")
        began = time.monotonic()
        life.close()
        assert launcher.wait(10) == 137
        took = time.monotonic() - began
        assert gone_within(pids, 5) == []
    assert 0.25 < took < 5, took


def test_the_launcher_ends_with_its_upstream_and_sigterms_what_it_left_in_its_group(tmp_path):
    """An upstream that exits by itself: the launcher exits with its status and what it left in its process group
    gets SIGTERM (it would have lived on, orphaned)."""
    with subreaper():
        launcher, life, pids = launched(tmp_path, "sleep 3600 & echo $$ $! > PIDS.tmp; mv PIDS.tmp PIDS; exit 3")
        assert launcher.wait(10) == 3
        assert gone_within(pids, 5) == []
        assert life.recv(100) == b""  # (no report: it started)
    life.close()


def test_the_launcher_kills_what_its_exited_upstream_left_ignoring_sigterm(tmp_path):
    """An upstream that exits by itself leaving a child in its group that ignores SIGTERM (a forked worker holding
    the proxy's pipe): the child gets SIGKILL after the grace. It lived on, orphaned, past the proxy's exit, and
    held the upstream's stdout open, so that the proxy took the exited upstream for a silent one (hostile7: each call
    failed 'no answer within --timeout', the proxy's exit printed a traceback)."""
    with subreaper():
        launcher, life, pids = launched(tmp_path, "(trap '' TERM; sleep 3600) & echo $$ $! > PIDS.tmp; "
                                                  "mv PIDS.tmp PIDS; sleep 0.2; exit 3")
        assert launcher.wait(10) == 3
        assert gone_within(pids, 5) == []
        assert life.recv(100) == b""
    life.close()


# (no `alone` mark: a bound of the launcher's own CPU time, which a test on the other worker leaves as it is; the
# call sleeps through a 5 s grace: 0.06 s of CPU over 5.4 s, 2026-12-07. The fault's scans of /proc cost more, not
# less, with another test's processes beside it)
def test_the_launcher_sleeps_through_the_grace_of_what_its_exited_upstream_left(tmp_path):
    """helper mcp7: over the grace given to what an exited upstream left in its group, the launcher looked at every
    process of /proc every 20 ms (0.49 s of CPU over a 5 s grace beside 117 processes; more with more of them). It
    now sleeps until a child exits (SIGCHLD) or 0.1 s passes, and looks at the group alone: 0.04 s, the shells'
    and their children's CPU (reaped by the launcher) included."""
    with subreaper():
        launcher, life, pids = launched(tmp_path, "(trap '' TERM; sleep 3600) & echo $$ $! > PIDS.tmp; "
                                                  "mv PIDS.tmp PIDS; sleep 0.2; exit 3", grace=5.0)
        started = psutil.Process(launcher.pid).cpu_times()
        _, status, usage = os.wait4(launcher.pid, 0)
        launcher.returncode = os.waitstatus_to_exitcode(status)
        assert launcher.returncode == 3
        assert gone_within(pids, 5) == []
    life.close()
    spent = usage.ru_utime + usage.ru_stime - started.user - started.system
    assert spent < 0.1, f"{spent:.3f} s of CPU over a 5 s grace ({len(psutil.pids())} processes)"


def test_the_launcher_reaps_an_adopted_orphan_that_exits_while_its_upstream_runs(tmp_path):
    """An orphan of the upstream's, adopted by the launcher (a subreaper), that exits while the upstream runs on is
    reaped at once (its SIGCHLD), without the upstream being reaped: the launcher keeps no zombie."""
    with subreaper():
        launcher, life, pids = launched(tmp_path, "(sleep 0.3 & echo $! > PIDS.orphan); echo $$ $(cat PIDS.orphan) "
                                                  "> PIDS.tmp; mv PIDS.tmp PIDS; exec sleep 3600")
        upstream, orphan = pids
        keeper = psutil.Process(launcher.pid)
        deadline = time.monotonic() + 10
        while psutil.pid_exists(orphan) and time.monotonic() < deadline:
            time.sleep(0.05)  # (adopted by the launcher as its subshell exits, then exits itself)
        assert not psutil.pid_exists(orphan), "the adopted orphan was left a zombie"
        assert [child.pid for child in keeper.children()] == [upstream]
        assert psutil.Process(upstream).status() != psutil.STATUS_ZOMBIE
        life.close()
        assert launcher.wait(10) == 128 + signal.SIGTERM
        assert gone_within(pids, 5) == []


def test_a_command_the_launcher_cannot_start_is_reported_on_the_socket(tmp_path):
    import socket

    from scratchfs.mcp.upstream_stdio import launch_command, not_started

    life, theirs = socket.socketpair()
    launcher = subprocess.Popen(launch_command(theirs.fileno(), str(tmp_path / "no-such-server"), []),
                                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL)
    theirs.close()
    assert launcher.wait(30) == 127
    failure = not_started(life)
    life.close()
    assert isinstance(failure, OSError) and failure.strerror == "No such file or directory"
    assert failure.filename == str(tmp_path / "no-such-server")


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])  # (no `alone` mark: 20 s, a third of the 60 s limit)
def test_scratchfs_mcp_answers_its_request_in_flight_when_stopped_too(signame, tmp_path):
    """The server shares the proxy's wire: a search running into its time limit when SIGTERM or ^C comes is
    answered -32000 naming the stop (it got nothing on SIGTERM), and the server exits with the CLI's code -- at once,
    where it waited for the search to reach its time limit (5.03 s with the default 5 s; proxy2): the stop kills the
    search's worker process."""
    from scratchfs import ScratchStore

    with ScratchStore(tmp_path / "store") as store:
        handle = store.scope("r", "a").spill(b"a" * 6000 + b"b\n", source_tool="t").handle
    command = [sys.executable, "-m", "scratchfs", "--root", str(tmp_path / "store"), "mcp", "--run", "r", "--agent",
               "a", "--sweep-interval", "0", "--pattern-timeout", "60"]
    with (tmp_path / "stderr.txt").open("wb") as err:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        try:
            send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
            assert json.loads(proc.stdout.readline())["id"] == 1
            send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            send(proc, {"jsonrpc": "2.0", "id": "search", "method": "tools/call", "params": {
                "name": "read_handle", "arguments": {"handle": handle, "pattern": r"(a+)+$"}}})
            time.sleep(1.0)  # (the search runs for its 60 s)
            proc.send_signal(getattr(signal, signame))
            stopped = time.monotonic()
            out = proc.stdout.read()
            assert proc.wait(90) == {"SIGTERM": 143, "SIGINT": 130}[signame]
            assert time.monotonic() - stopped < 20  # (it waited for the search's time limit: 60 s)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdin.close()
            proc.stdout.close()
    assert [json.loads(text) for text in out.splitlines()] == [{"jsonrpc": "2.0", "id": "search", "error": {
        "code": -32000, "message": f"scratchfs mcp stopped ({signame}) before answering this request"}}]


DAEMONIZING_UPSTREAM = raw_upstream("daemon", [{"name": "detach", "inputSchema": {"type": "object"}}], prelude="""
    import os, signal, time
    PID = sys.argv[1]
""", call="""
    # a daemon of its own session, deaf to SIGTERM, keeping the proxy's pipe; then the upstream exits
    if os.fork() == 0:
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with open(PID + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(PID + ".tmp", PID)
        time.sleep(3600)
        os._exit(0)
    while not os.path.exists(PID):
        time.sleep(0.01)
    os._exit(0)
""")


# (no `alone` mark: the answer takes tenths of the 5 s bound; the fault waited out the 10 s --timeout)
def test_an_upstream_that_exits_leaving_a_daemon_on_its_pipe_is_told_exited_and_the_proxy_exits_clean(tmp_path):
    """A daemon that left the upstream's session (out of the reach of the launcher's group signals) keeps
    the upstream's stdout open after the upstream exits: the proxy took the exited upstream for a silent one (the
    call failed 'no answer within 10 s'), and its exit wrote 'read() called while another coroutine is already
    waiting' as the upstream's failure and a traceback ('Event loop is closed'; hostile7). The launcher's exit now
    ends the connection (the call fails 'exited' at once) and the proxy's exit closes the pipe: one stderr line."""
    script, pid_file = tmp_path / "daemon_upstream.py", tmp_path / "daemon.pid"
    script.write_text(DAEMONIZING_UPSTREAM)
    command = [sys.executable, "-m", "scratchfs", "--root", str(tmp_path / "store"), "mcp-proxy", "--run", "r",
               "--agent", "a", "--sweep-interval", "0", "--timeout", "10", "--", sys.executable, str(script),
               str(pid_file)]
    with subreaper(), (tmp_path / "stderr.txt").open("wb") as stderr:  # (a file: the daemon holds it open too)
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        try:
            send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
            assert json.loads(proc.stdout.readline())["id"] == 1
            send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            began = time.monotonic()
            send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "detach"}})
            answer = json.loads(proc.stdout.readline())
            took = time.monotonic() - began
            proc.stdin.close()
            assert proc.wait(30) == 0
            err = (tmp_path / "stderr.txt").read_text()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            if pid_file.exists() and gone_within([int(pid_file.read_text())], 5):  # (the launcher killed it: Linux)
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
                gone_within([int(pid_file.read_text())], 5)
    text = answer["result"]["content"][0]["text"]
    assert "the server exited with code 0" in text and took < 5, (took, text)
    assert "Traceback" not in err and "Exception ignored" not in err and "another coroutine" not in err, err


DOUBLE_FORKING_UPSTREAM = raw_upstream("daemon", [{"name": "detach", "inputSchema": {"type": "object"}}],
                                       prelude="""
    import os, signal, time
    PID = sys.argv[1]
""", call="""
    # a proper daemon: fork, setsid, fork again, its parent gone; deaf to SIGTERM, none of the proxy's pipes kept
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            with open(PID + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.rename(PID + ".tmp", PID)
            time.sleep(3600)
        os._exit(0)
    while not os.path.exists(PID):
        time.sleep(0.01)
    result = {"content": [{"type": "text", "text": "detached"}]}
""")


def _detaching_proxy(tmp_path, upstream: str, name: str) -> tuple[subprocess.Popen, Path]:
    """``scratchfs mcp-proxy`` started over the upstream script ``upstream`` (whose ``detach`` tool leaves a process
    behind and writes its pid or group to ``tmp_path / name``): the proxy and that file's path."""
    script, pid_file = tmp_path / "upstream.py", tmp_path / name
    script.write_text(upstream)
    command = [sys.executable, "-m", "scratchfs", "--root", str(tmp_path / "store"), "mcp-proxy", "--run", "r",
               "--agent", "a", "--sweep-interval", "0", "--timeout", "10", "--", sys.executable, str(script),
               str(pid_file)]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL), pid_file


def _detach(proc: subprocess.Popen, pid_file: Path) -> int:
    """Initialise the proxy ``proc``, call its upstream's ``detach`` tool, and return the number it wrote."""
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
    assert json.loads(proc.stdout.readline())["id"] == 1
    send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "detach"}})
    answer = json.loads(proc.stdout.readline())
    assert answer["result"]["content"][0]["text"] == "detached", answer
    return int(pid_file.read_text())


@pytest.mark.parametrize("how", ["stdin closed", "SIGKILL"])
def test_a_setsid_daemon_of_the_upstream_is_killed_when_the_proxy_stops(how, tmp_path):
    """A daemon the upstream started (fork, setsid, fork: out of the upstream's process group and session, its
    parent gone) is adopted by the launcher, a subreaper on Linux, and killed with the upstream when the proxy
    stops -- its client closing stdin, or the proxy SIGKILLed. Before, it escaped every group signal and lived on
    (the limit scratchfs.mcp.launch's docstring named)."""
    proc, pid_file = _detaching_proxy(tmp_path, DOUBLE_FORKING_UPSTREAM, "daemon.pid")
    daemon = None
    try:
        daemon = _detach(proc, pid_file)
        assert psutil.Process(daemon).status() != psutil.STATUS_ZOMBIE
        if how == "SIGKILL":
            proc.kill()
            proc.wait(30)
        else:
            proc.stdin.close()
            assert proc.wait(30) == 0
        assert gone_within([daemon], 5) == [], f"the daemon {daemon} lived on: {_cmdline(daemon)}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()
        if daemon is not None and gone_within([daemon], 0):
            os.kill(daemon, signal.SIGKILL)


HOPPING_UPSTREAM = raw_upstream("hopper", [{"name": "detach", "inputSchema": {"type": "object"}}], prelude="""
    import os, signal, time
    PID = sys.argv[1]
""", call="""
    # a daemon whose pid hops on: setsid, then fork and exit over and over (for 30 s at most), deaf to SIGTERM
    if os.fork() == 0:
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        with open(PID + ".tmp", "w") as f:
            f.write(str(os.getpgid(0)))
        os.rename(PID + ".tmp", PID)
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if os.fork() != 0:
                os._exit(0)
        os._exit(0)
    while not os.path.exists(PID):
        time.sleep(0.01)
    result = {"content": [{"type": "text", "text": "detached"}]}
""")


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.alone  # (a bound of time)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the launcher is a subreaper on Linux alone")
@pytest.mark.parametrize("how", ["stdin closed", "SIGKILL"])
def test_a_daemon_whose_pid_hops_on_is_killed_when_the_proxy_stops(how, tmp_path):
    """helper hostile8: a daemon that forks and exits over and over (its pid hops on, each one adopted by the
    launcher as its parent exits) outran the launcher's kills of one adopted pid at a time, and a look at /proc that
    found only its exited ones ended the kills: it lived on. The launcher now kills each adopted orphan's process
    group, and looks again until it finds none."""
    proc, pid_file = _detaching_proxy(tmp_path, HOPPING_UPSTREAM, "hopper.pgid")
    group = None
    try:
        group = _detach(proc, pid_file)
        started = time.monotonic()
        if how == "SIGKILL":
            proc.kill()
            proc.wait(30)
        else:
            proc.stdin.close()
            assert proc.wait(30) == 0
        took = time.monotonic() - started
        deadline = time.monotonic() + 5
        while _group_alive(group) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _group_alive(group), f"the hopping daemon's group {group} lived on"
        assert took < 5, took
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if not proc.stdin.closed:
            proc.stdin.close()
        proc.stdout.close()
        if group is not None and _group_alive(group):
            os.killpg(group, signal.SIGKILL)
