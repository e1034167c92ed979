"""The test servers' own housekeeping (:mod:`tests.services`): a session killed before its end leaves its
PostgreSQL directory (and server) behind; the next session removes it, and never another live session's."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from tests import services


def test_a_killed_sessions_server_directory_is_reaped_and_a_live_ones_is_kept(tmp_path, monkeypatch):
    """Five ``scratchfs-pg-*`` directories and one running server were left in /tmp by sessions killed by a
    ``timeout`` (a new user's trial): their teardown never ran. A directory whose owning session is gone is now
    removed by the next session; one whose owner runs (this process) is kept."""
    # in a temporary directory of this test's own: in the shared one, the other worker's session (or any other
    # test session on the machine) starting its PostgreSQL server reaps the 'dead' directory first
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()  # a process id that no longer runs
    dead = tempfile.mkdtemp(prefix=services._PG_PREFIX)
    live = tempfile.mkdtemp(prefix=services._PG_PREFIX)
    for path, pid in ((dead, gone), (live, str(os.getpid()))):
        with open(os.path.join(path, "owner"), "w") as owner:
            owner.write(pid)
        os.mkdir(os.path.join(path, "data"))
    try:
        removed = services.reap_stale(services.pg_bin() or "/nonexistent")
        assert dead in removed and not os.path.exists(dead)
        assert live not in removed and os.path.isdir(live)
    finally:
        for path in (dead, live):
            subprocess.run(["rm", "-rf", path], check=False)
