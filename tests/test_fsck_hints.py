"""``fsck``'s words against what ``fsck --repair`` does (newuser9).

A new user's trial found three things: a file the user left in an agent directory (``notes.txt``) was ignored at
mode 0600 and called "a blob file open to other users" at 0644; the hint on stderr then said "`scratchfs fsck
--repair` removes them" while the repair only ran chmod on it; and the ``segment files: ...`` line (about 280 bytes)
printed on every run, with nothing to say. Now a file scratchfs did not write is told as such whatever its mode, and
left alone; every hint says, kind by kind, what the repair does -- the table below checks each hint against what the
repair did; and the segment line prints only when segments hold dead bytes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import time

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.api import inspector
from scratchfs.cli import main

BIG = os.urandom(100_000).hex().encode()  # (over segment_entry_bytes: a blob file of its own)


def _cli(*args):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def store_root(tmp_path):
    """A store with one blob file (``runs/r/a/<token>.zst``) and one scratch value in a segment; ``(root, blob)``."""
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        scope = store.scope("r", "a")
        scope.spill(BIG, source_tool="t")
        scope.scratch_write("note", "small")
    [blob] = (root / "runs" / "r" / "a").glob("*.zst")
    return root, blob


def _at(blob, name: str):
    return blob.parent / name


def _missing(root, blob):
    blob.unlink()
    return blob


def _corrupt(root, blob):
    data = bytearray(blob.read_bytes())
    data[len(data) // 2] ^= 0xFF
    blob.write_bytes(bytes(data))
    return blob


def _corrupt_record(root, blob):
    [segment] = blob.parent.glob("*.zseg")
    data = bytearray(segment.read_bytes())
    data[len(data) // 2] ^= 0xFF
    segment.write_bytes(bytes(data))
    return segment


def _orphan(root, blob):
    copy = _at(blob, "a" * 24 + ".zst")
    shutil.copy(blob, copy)
    os.utime(copy, (time.time() - 86_400,) * 2)
    return copy


def _abandoned_ahead(root, blob):
    cut = _at(blob, "b" * 24 + ".zst")
    cut.write_bytes(blob.read_bytes()[:1000])  # (no seek table: an abandoned write, dated years ahead)
    os.utime(cut, (time.time() + 10 * 365 * 86_400,) * 2)
    return cut


def _fifo(root, blob):
    fifo = _at(blob, "c" * 24 + ".zst")
    os.mkfifo(fifo, 0o600)
    return fifo


def _socket(root, blob):
    where = _at(blob, "d" * 24 + ".zseg")
    os.mknod(where, stat.S_IFSOCK | 0o600)  # (not bind(): a socket's path is at most 107 bytes, an xdist tmp_path more)
    return where


_ODD = "link, FIFO, socket or device at a blob's or segment's name (never a link's target)"


def _directory(root, blob):
    folder = _at(blob, "d" * 24 + ".zst")
    folder.mkdir(0o700)
    return folder


def _open_blob(root, blob):
    blob.chmod(0o644)
    return blob


def _foreign(mode: int):
    def planted(root, blob):
        notes = _at(blob, "notes.txt")
        notes.write_bytes(b"my notes\n")
        notes.chmod(mode)
        return notes
    return planted


def _loose_in(depth: int, kind: str):
    """A file (or a link) planted directly in ``runs/`` (``depth`` 0) or in the run directory (1): scratchfs writes
    only directories there (open10: they were not reported)."""
    def planted(root, blob):
        where = (root / "runs", blob.parent.parent)[depth] / "loose.txt"
        if kind == "link":
            where.symlink_to(blob.parent)
        else:
            where.write_bytes(b"mine\n")
        return where
    return planted


def _agent_link(root, blob):
    agent = blob.parent
    agent.rename(root.parent / "elsewhere")
    agent.symlink_to(root.parent / "elsewhere")
    return agent


def _trash(root, blob):
    left = root / "trash" / "x"
    left.mkdir(parents=True, exist_ok=True)
    (left / "f").write_bytes(b"left")
    return left


def _journal(root, blob):
    shutil.rmtree(root / "journal", ignore_errors=True)
    (root / "journal").write_bytes(b"not a journal")
    return root / "journal"


# kind of problem -> the hint's words -> what the repair did to what was planted ("gone", "kept", "0600", a row gone)
TABLE = [
    ("missing", _missing, "removes 1 missing entry's row", "row gone"),
    ("corrupt", _corrupt, "removes 1 corrupt entry (row and file)", "gone"),
    ("corrupt segment entry", _corrupt_record, "removes 1 corrupt segment entry's row (the sweep reclaims its bytes "
                                               "with the segment)", "segment row gone"),
    ("orphaned", _orphan, "removes 1 orphan", "gone"),
    ("incomplete, dated ahead", _abandoned_ahead, "removes 1 abandoned write", "gone"),
    ("FIFO at a blob's name", _fifo, f"removes 1 {_ODD}", "gone"),
    ("socket at a segment's name", _socket, f"removes 1 {_ODD}", "gone"),
    ("directory at a blob's name", _directory, "no repair touches it (its detail says what it is)", "kept"),
    ("blob file open to others", _open_blob, "makes private (0700, 0600) 1 directory or file open to other users",
     "0600"),
    ("foreign file, 0600", _foreign(0o600), "no repair touches it (its detail says what it is)", "kept"),
    ("foreign file, 0644", _foreign(0o644), "no repair touches it (its detail says what it is)", "kept"),
    ("file directly in runs/", _loose_in(0, "file"), "no repair touches it (its detail says what it is)", "kept"),
    ("file in a run directory", _loose_in(1, "file"), "no repair touches it (its detail says what it is)", "kept"),
    ("link in a run directory", _loose_in(1, "link"), "no repair touches it (its detail says what it is)", "kept"),
    ("agent directory a link", _agent_link, "no repair touches these 2 (their details say what they are)", "kept"),
    ("left in the trash", _trash, "removes what it can of 1 entry left in the trash", "gone"),
    ("journal not a directory", _journal, "it is the store's own file or directory out of place, which no repair "
                                          "touches: move it away (its detail says what it is)", "kept"),
]


@pytest.mark.parametrize(("kind", "damage", "words", "did"), TABLE, ids=[row[0] for row in TABLE])
def test_each_hint_says_what_the_repair_then_does(store_root, monkeypatch, kind, damage, words, did):
    root, blob = store_root
    monkeypatch.setattr(inspector, "TRASH_GRACE_SECONDS", -3600.0)  # (a trash entry counts at once)
    planted = damage(root, blob)
    before = (planted.read_bytes(), stat.S_IMODE(planted.lstat().st_mode)) if planted.is_file() else None
    found = _cli("fsck", "--root", str(root))
    assert found.exit_code == 3, (found.stdout, found.stderr)
    last = found.stderr.strip().splitlines()[-1]
    named = kind.split()[0].rstrip(",")  # the problems named by their kind, as the table says (never "corrupt" for
    named = named if named in ("missing", "corrupt", "orphaned", "incomplete") else "unexpected"  # a foreign file)
    assert re.match(rf"scratchfs: not clean: (1 problem remains \({named}\)|(\d+) problems remain \(\2 {named}\)); ",
                    last) and last.endswith(words), last
    if "no repair touches" in words:
        assert "--repair" not in last, last  # (no command to run that would do nothing)
    repaired = _cli("fsck", "--root", str(root), "--repair", "--json")
    report = json.loads(repaired.stdout)
    told = [p for p in report["problems"] if p["path"].startswith(str(planted))]  # (a trash entry gone: untold)
    if did == "kept":
        assert repaired.exit_code == 3 and told and not any(p["repaired"] for p in told), told
        assert os.path.lexists(planted)
        if before is not None:
            assert (planted.read_bytes(), stat.S_IMODE(planted.lstat().st_mode)) == before
    else:
        assert repaired.exit_code == 0 and all(p["repaired"] for p in told), (told, repaired.stderr)
        if did == "gone":
            assert not os.path.lexists(planted)
        elif did == "segment row gone":  # (its bytes stay in the segment, dead: the sweep's)
            with ScratchStore(root) as store:
                assert [e.kind for e in store.list_entries()] == ["handle"] and planted.exists()
        elif did == "0600":
            assert stat.S_IMODE(planted.stat().st_mode) == 0o600
        else:  # the row of the missing entry
            with ScratchStore(root) as store:
                assert [e.key for e in store.list_entries()] == ["note"]
        assert _cli("fsck", "--root", str(root)).exit_code == 0


def test_a_hint_names_each_kind_and_what_the_repair_leaves(store_root):
    root, blob = store_root
    _open_blob(root, blob)
    _orphan(root, blob)
    _foreign(0o644)(root, blob)
    found = _cli("fsck", "--root", str(root))
    assert found.exit_code == 3
    assert found.stderr.strip().endswith(
        "3 problems remain (1 orphaned, 2 unexpected); `scratchfs fsck --repair --root " + str(root) + "` removes 1 "
        "orphan, makes private "
        "(0700, 0600) 1 directory or file open to other users and leaves 1 as it is (its detail says what it is)"), \
        found.stderr


@pytest.mark.parametrize("mode", [0o600, 0o644, 0o666])
def test_a_file_scratchfs_did_not_write_is_told_as_such_whatever_its_mode(store_root, mode):
    root, blob = store_root
    notes = _foreign(mode)(root, blob)
    found = _cli("fsck", "--root", str(root), "--json")
    assert found.exit_code == 3
    [told] = json.loads(found.stdout)["problems"]
    assert (told["kind"], told["path"], told["run_id"], told["agent_id"]) == ("unexpected", str(notes), "r", "a")
    assert told["detail"].startswith("a file scratchfs did not write (not a blob or segment)"), told
    assert "blob file open" not in told["detail"] and "fsck --repair leaves it" in told["detail"]


def test_the_segment_line_prints_only_when_segments_hold_dead_bytes(store_root):
    root, _blob = store_root
    clean = _cli("fsck", "--root", str(root))
    assert clean.exit_code == 0 and "segment" not in clean.stdout, clean.stdout
    assert len(clean.stdout.splitlines()) == 1
    assert _cli("--root", str(root), "--run", "r", "--agent", "a", "scratch-delete", "note").exit_code == 0
    dead = _cli("fsck", "--root", str(root))
    assert dead.exit_code == 0
    [line] = [x for x in dead.stdout.splitlines() if x.startswith("segment files:")]
    assert "dead (1 segment wholly dead)" in line and len(line) < 240, line


@pytest.mark.parametrize(("depth", "scope", "what"), [(0, ("", ""), "a run"), (1, ("r", ""), "an agent")])
def test_a_file_directly_in_runs_or_a_run_directory_is_told_and_left(store_root, depth, scope, what):
    root, blob = store_root
    loose = _loose_in(depth, "file")(root, blob)
    found = _cli("fsck", "--root", str(root), "--json")
    assert found.exit_code == 3
    [told] = json.loads(found.stdout)["problems"]
    assert (told["kind"], told["path"], told["run_id"], told["agent_id"]) == ("unexpected", str(loose), *scope)
    assert told["detail"].startswith(f"a file scratchfs did not write (not {what} directory)"), told
    assert ("deleting this run removes it" in told["detail"]) == bool(depth), told
    table = _cli("fsck", "--root", str(root), "--repair")
    assert table.exit_code == 3 and f"{loose.relative_to(root)}\t" in table.stdout, table.stdout
    assert loose.read_bytes() == b"mine\n"
