"""The read path's per-call work cut by readpath1, with what it still checks: a scratchpad key passed once is not
scanned again (a bad key is still refused), and the index's lookup reads ``PRAGMA data_version`` through one kept
cursor of its thread (another connection's commit is still seen at once)."""

from __future__ import annotations

import sqlite3

import pytest

from scratchfs import ScratchStore
from scratchfs.foundation import checks
from scratchfs.foundation.errors import InvalidArgument


def test_a_key_passed_once_is_not_scanned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    scanned: list[object] = []
    real = checks.check_text

    def counting(value: object, *args: object, **kwargs: object) -> str:
        scanned.append(value)
        return real(value, *args, **kwargs)

    monkeypatch.setattr(checks, "check_text", counting)
    key = "readpath1-key-\u00e9"
    assert checks.check_key(key) == key
    assert checks.check_key(key) == key
    assert scanned == [key]

    class Text(str):
        pass

    for _ in range(2):
        assert checks.check_key(Text("sub")) == "sub"  # a subclass is checked every time, never kept
    assert scanned == [key, "sub", "sub"]


def test_bad_keys_are_refused_every_time() -> None:
    for bad in ("a\x00b", "x" * 513, "\ud800", "", 5, b"k"):
        for _ in range(2):
            with pytest.raises(InvalidArgument):
                checks.check_key(bad)


def test_lookup_keeps_one_cursor_and_sees_other_commits(tmp_path) -> None:
    with ScratchStore(tmp_path / "store") as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", b"one")
        assert scope.scratch_read("k") == b"one"
        conn = store.index.connections.local.conn
        kept = conn.versions
        assert isinstance(kept, sqlite3.Cursor)
        assert scope.scratch_read("k") == b"one"
        assert conn.versions is kept
        other = sqlite3.connect(store.index.connections.path, isolation_level=None)  # a commit by someone else
        try:
            other.execute("UPDATE entries SET expires_at = 1 WHERE key = 'k'")
        finally:
            other.close()
        with pytest.raises(Exception) as got:
            scope.scratch_read("k")
        assert type(got.value).__name__ in ("NotFound", "Expired")
