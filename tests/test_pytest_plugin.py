"""The pytest plugin, run in a fresh pytest session (pytester), and the loader behind ``scratchfs load``."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import socket
import time
from importlib.metadata import entry_points

from click.testing import CliRunner

from scratchfs import ScratchStore, loader
from scratchfs.api.scope import Scope
from scratchfs.cli import main
from scratchfs.loader import Skipped, iter_files, load_dir

from .conftest import FIXTURES


def test_the_plugin_is_installed_as_a_pytest11_entry_point():
    assert [ep.value for ep in entry_points(group="pytest11") if ep.name == "scratchfs"] == ["scratchfs.pytest_plugin"]


def test_fixtures_in_a_fresh_session(pytester):
    pytester.makepyfile(r'''
        import pytest
        from scratchfs import NotFound, ScratchStore

        STORES = []

        def test_ttl_and_sweep_without_sleeping(scratch_scope, scratch_clock, scratch_store):
            assert isinstance(scratch_store, ScratchStore) and scratch_store.clock is scratch_clock
            assert (scratch_scope.run_id, scratch_scope.agent_id) == ("run-1", "agent-1")
            stub = scratch_scope.spill("x" * 100, ttl=10)
            scratch_scope.scratch_write("note", "y", ttl=10)
            scratch_clock.advance(9.5)
            assert scratch_scope.read_handle(stub.handle).data == b"x" * 100
            scratch_clock.advance(0.5)
            with pytest.raises(NotFound):
                scratch_scope.read_handle(stub.handle)  # a read that finds it expired removes it at once
            assert scratch_store.sweep().rows_deleted == 1  # the note, expired but never read
            STORES.append(scratch_store)

        def test_the_store_was_closed_after_its_test():
            assert STORES[0].closed

        @pytest.mark.scratch_store(frame_bytes=4096, preview_bytes=10, default_ttl=5)
        @pytest.mark.scratch_scope("r-x", "a-y")
        def test_markers_set_the_store_and_scope(scratch_scope, scratch_clock):
            assert (scratch_scope.run_id, scratch_scope.agent_id) == ("r-x", "a-y")
            stub = scratch_scope.spill("abcdefghijklmnop")
            assert stub.preview == "abcdefghij"
            (entry,) = scratch_scope.list_entries()
            assert entry.expires_at == scratch_clock.now + 5

        def test_more_stores_share_the_clock(scratch_store_factory, scratch_clock, tmp_path):
            one, two = scratch_store_factory("one"), scratch_store_factory("two", default_ttl=60)
            assert one.root == tmp_path / "one" and one.clock is two.clock is scratch_clock
            two.scope("r", "a").scratch_write("k", "v")
            scratch_clock.advance(61)
            assert two.scope("r", "a").scratch_list() == []
    ''')
    result = pytester.runpytest("-W", "error", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)


def test_the_plugin_s_store_is_embedded_whatever_the_environment_says(pytester, monkeypatch):
    """With the fleet quick start's variables exported, the plugin's ``scratch_store`` opened the shared fleet store:
    its clock of 2027 found every real entry there expired, and a test's ``sweep()`` deleted them all (a new user's
    trial: 3 live entries of a day's TTL gone). The test's store is the embedded one in ``tmp_path``, whatever
    ``$SCRATCHFS_INDEX``, ``$SCRATCHFS_BLOBS`` and ``$SCRATCHFS_SEGMENT_ENTRY_BYTES`` say; a marker may still ask for
    a fleet (here an unreachable one, refused as such)."""
    monkeypatch.setenv("SCRATCHFS_INDEX", "postgresql://nobody@127.0.0.1:9/shared")
    monkeypatch.setenv("SCRATCHFS_BLOBS", "s3://shared-bucket/prod")
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", "0")
    pytester.makepyfile(r'''
        import pytest
        from scratchfs import StorageError

        def test_embedded(scratch_store, scratch_scope, scratch_store_factory, tmp_path):
            assert (scratch_store.index_url, scratch_store.blobs_url) == ("", "")
            assert scratch_store.settings.segment_entry_bytes == 65536
            assert (tmp_path / "scratchfs" / "index.sqlite").is_file()
            scratch_scope.spill("x" * 100)
            assert scratch_store.sweep().rows_deleted == 0
            assert scratch_store_factory("two").index_url == ""

        @pytest.mark.scratch_store(index="postgresql://nobody@127.0.0.1:9/shared?connect_timeout=2", blobs="")
        def test_a_marker_asks_for_a_fleet(request):
            with pytest.raises(StorageError):
                request.getfixturevalue("scratch_store")
    ''')
    result = pytester.runpytest("-W", "error", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_a_test_s_store_stays_live_on_the_wall_clock_for_decades(scratch_scope, scratch_store, tmp_path):
    """The README sends a newcomer to read a failing test's store from the shell (``scratchfs --root
    .../test_x0/scratchfs ls``), where the store runs on the wall clock. The plugin's clock started at 2027-01-15
    08:00 UTC: from an hour after that date every entry a test wrote read as expired on the wall clock (``ls``
    empty, ``read-handle`` not found, the read removing its row), so the store a failing test left behind told
    nothing. It starts in 2100 now: what a test wrote is live on any wall clock of this century."""
    stub = scratch_scope.spill("hello\n" * 5000, source_tool="t")
    scratch_store.close()
    in_50_years = time.time() + 50 * 365.25 * 86400
    with ScratchStore(tmp_path / "scratchfs", clock=lambda: in_50_years) as store:
        scope = store.scope("run-1", "agent-1")
        assert [e.key for e in scope.list_entries()] == [stub.handle]
        assert scope.read_lines(stub.handle, line=1, lines=1).data == b"hello\n"
    result = CliRunner().invoke(main, ["--root", str(tmp_path / "scratchfs"), "ls", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)[0]["key"] == stub.handle


def test_load_spills_every_file_of_a_folder(scratch_scope):
    stubs = load_dir(scratch_scope, FIXTURES, ttl=60)
    files = iter_files(FIXTURES)
    assert list(stubs) == [p.relative_to(FIXTURES).as_posix() for p in files]
    assert "query-packages-by-month.csv" in stubs and "README.md" in stubs
    for path in files:
        stub = stubs[path.relative_to(FIXTURES).as_posix()]
        data = path.read_bytes()
        assert stub.size == len(data) and stub.source_tool == path.stem
        assert scratch_scope.read_handle(stub.handle, len(data) // 2, 100).data == data[len(data) // 2 :][:100]


def test_load_from_the_command_line(tmp_path):
    folder = tmp_path / "outputs"
    (folder / "nested").mkdir(parents=True)
    (folder / "sql.query.csv").write_text("a,b\n1,2\n")
    (folder / "nested" / "grep.txt").write_bytes(b"\xff\x00 binary")
    (folder / ".hidden").write_text("skipped")
    result = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "r",
                                       "--agent", "a", "--json"])
    assert result.exit_code == 0, result.output
    loaded = json.loads(result.stdout)
    assert [(x["file"], x["source_tool"], x["size"]) for x in loaded] == [
        ("nested/grep.txt", "grep", 9), ("sql.query.csv", "sql.query", 8)]
    with ScratchStore(tmp_path / "root") as store:
        assert store.scope("r", "a").read_handle(loaded[0]["handle"]).data == b"\xff\x00 binary"
    tool = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "r",
                                     "--agent", "a", "--tool", "recorded"])
    assert {x["source_tool"] for x in json.loads(tool.stdout)} == {"recorded"}
    missing = CliRunner().invoke(main, ["load", str(tmp_path / "nope"), "--run", "r", "--agent", "a"])
    assert missing.exit_code == 2


def test_load_names_what_it_skips_and_follows_no_link(tmp_path):
    """Links, FIFOs and links to folders were left out without a word; they are named on stderr now, and nothing
    behind a link is read."""
    folder = tmp_path / "outputs"
    folder.mkdir()
    (folder / "a.json").write_text('{"a": 1}')
    os.mkfifo(folder / "p.txt")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    (folder / "link.txt").symlink_to(secret)
    (folder / "dirlink").symlink_to(tmp_path)
    result = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "r",
                                       "--agent", "a"])
    assert result.exit_code == 0, result.output
    assert [x["file"] for x in json.loads(result.stdout)] == ["a.json"]
    assert result.stderr == ("scratchfs: skipped 3 that are not tool outputs: dirlink (a symbolic link, not "
                             "followed), link.txt (a symbolic link, not followed), p.txt (a FIFO)\n")


def _deep_folder(folder, levels: int = 20) -> str:
    """A file ``deep.txt`` ``levels`` folders of 250-character names down (over 5,000 bytes of path: past PATH_MAX,
    4096), made through directory descriptors; its relative path."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("d" * 250, dir_fd=fd)
            fd, parent = os.open("d" * 250, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd), fd
            os.close(parent)
        out = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, b"deep down")
        os.close(out)
    finally:
        os.close(fd)
    return "/".join(["d" * 250] * levels + ["deep.txt"])


def _awkward_folder(tmp_path, monkeypatch):
    """A folder with a path past PATH_MAX, a name that makes no valid tool name, a link loop, a FIFO, a socket, a
    file nobody may read, and ``z.txt`` that is deleted while ``a.txt`` is being spilled; returns it, the deep
    file's relative path and the socket."""
    folder = tmp_path / "outputs"
    folder.mkdir()
    (folder / "a.txt").write_text("first")
    (folder / "m.txt").write_text("middle")
    (folder / "n\nl.txt").write_text("a newline in its name: no valid tool name")
    (folder / "z.txt").write_text("gone before it is read")
    deep = _deep_folder(folder)
    (folder / "loop").symlink_to("loop")
    os.mkfifo(folder / "p.fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "s.sock"))
    (folder / "secret.txt").write_text("no access")
    (folder / "secret.txt").chmod(0)
    real_open = os.open

    def refusing_open(path, flags, mode=0o777, *, dir_fd=None):
        if path == "secret.txt" and dir_fd is not None and os.geteuid() == 0:  # root reads anything: as a user would
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(loader.os, "open", refusing_open)
    real_spill = Scope.spill

    def spill_and_delete(self, content, **kwargs):
        if (folder / "z.txt").exists():
            (folder / "z.txt").unlink()
        return real_spill(self, content, **kwargs)

    monkeypatch.setattr(Scope, "spill", spill_and_delete)
    return folder, deep, sock


def test_load_skips_and_names_each_file_it_cannot_load_and_loads_the_rest(tmp_path, monkeypatch):
    """One file with a path past PATH_MAX failed the whole load (ENAMETOOLONG); now each entry that cannot be loaded
    is skipped with its reason, and every other file (the deep one too) is loaded byte-exact."""
    folder, deep, sock = _awkward_folder(tmp_path, monkeypatch)
    skipped: list[Skipped] = []
    with ScratchStore(tmp_path / "root") as store, sock:
        scope = store.scope("r", "a")
        stubs = load_dir(scope, folder, skipped=skipped)
        assert list(stubs) == ["a.txt", deep, "m.txt", "n\nl.txt"]
        assert scope.read_handle(stubs[deep].handle).data == b"deep down"
        assert stubs["n\nl.txt"].source_tool == "nl"  # the name's control character dropped
        assert scope.read_handle(stubs["m.txt"].handle).data == b"middle"
    assert skipped == [Skipped("loop", "a symbolic link, not followed", False),
                       Skipped("p.fifo", "a FIFO", False), Skipped("s.sock", "a socket", False),
                       Skipped("secret.txt", "Permission denied (EACCES)", True),
                       Skipped("z.txt", "gone before it was read (ENOENT)", True)]
    regular = ["a.txt", "deep.txt", "m.txt", "n\nl.txt", "secret.txt"]
    assert [p.name for p in iter_files(folder)] == regular


def test_load_from_the_command_line_loads_the_rest_and_exits_4_naming_what_it_could_not_read(tmp_path,
                                                                                               monkeypatch):
    folder, deep, sock = _awkward_folder(tmp_path, monkeypatch)
    with sock:
        result = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "r",
                                           "--agent", "a"])
    assert result.exit_code == 4, result.output
    assert [x["file"] for x in json.loads(result.stdout)] == ["a.txt", deep, "m.txt", "n\nl.txt"]
    assert result.stderr == ("scratchfs: storage: loaded 4 files; could not load 2: secret.txt (Permission denied "
                             "(EACCES)), z.txt (gone before it was read (ENOENT)); also skipped 3 that are not "
                             "tool outputs\n")


def test_load_skips_the_stores_own_directory_inside_the_folder(scratch_scope, tmp_path):
    """load_dir(scratch_scope, tmp_path), the store living under tmp_path, spilled the store's own files
    (index.sqlite, -wal, -shm, locks/*, reserve, blobs); its root is skipped now, told by device and inode."""
    root = scratch_scope.store.root
    assert root.parent == tmp_path
    scratch_scope.spill(os.urandom(200_000).hex().encode(), source_tool="big")  # a blob file of its own
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "grep.txt").write_text("a:1:match\n")
    skipped: list[Skipped] = []
    stubs = load_dir(scratch_scope, tmp_path, skipped=skipped)
    assert list(stubs) == ["outputs/grep.txt"]
    assert skipped == [Skipped(root.name, "the store's own directory", False)]
    # the root itself, and the root reached by another path (a link above it): the same directory
    (tmp_path / "via").symlink_to(tmp_path, target_is_directory=True)
    for folder in (root, tmp_path / "via" / root.name):
        skipped = []
        assert load_dir(scratch_scope, folder, skipped=skipped) == {}
        assert skipped == [Skipped(".", "the store's own directory", False)]
    with ScratchStore(tmp_path / "via" / "outputs" / "store") as store:  # named through a link, found by identity
        skipped = []
        stubs = load_dir(store.scope("r", "a"), tmp_path / "outputs", skipped=skipped)
        assert list(stubs) == ["grep.txt"] and skipped == [Skipped("store", "the store's own directory", False)]


def test_load_skips_another_scratchfs_store_inside_the_folder(scratch_scope, tmp_path):
    """`scratchfs load fixtures/` (the README's example) spilled the fixtures' old store -- its index.sqlite and a
    0-byte locks/index.lock -- as tool outputs of source tool 'index'. A folder that is a scratchfs store
    (index.sqlite beside runs/ and locks/) is skipped, named; a folder with only some of those names is walked."""
    folder = tmp_path / "outputs"
    shutil.copytree(FIXTURES / "store-407dd2b", folder / "old-store")
    (folder / "notes").mkdir()
    (folder / "notes" / "index.sqlite").write_bytes(b"a file of that name alone is loaded")
    (folder / "grep.txt").write_text("a:1:match\n")
    skipped: list[Skipped] = []
    stubs = load_dir(scratch_scope, folder, skipped=skipped)
    assert sorted(stubs) == ["grep.txt", "notes/index.sqlite"]
    assert skipped == [Skipped("old-store", "another scratchfs store", False)]


def test_load_of_a_folder_inside_the_store_s_root_loads_none_of_its_files(scratch_scope, tmp_path):
    # load_dir(scope, root / "runs") spilled the store's own blobs (*.zst) as tool outputs: only the root itself,
    # or a root inside the folder, was told by its device and inode
    root = scratch_scope.store.root
    scratch_scope.spill(os.urandom(200_000).hex().encode(), source_tool="big")
    (tmp_path / "via").symlink_to(root, target_is_directory=True)
    for folder in (root / "runs", root / "runs" / scratch_scope.run_id, root / "locks", tmp_path / "via" / "runs"):
        skipped: list[Skipped] = []
        assert load_dir(scratch_scope, folder, skipped=skipped) == {}, folder
        assert skipped == [Skipped(".", "the store's own directory", False)]
    assert len(scratch_scope.store.list_entries_for_run(scratch_scope.run_id)) == 1


def test_load_from_the_command_line_skips_the_stores_own_directory(tmp_path, monkeypatch):
    """`scratchfs load selfload --root selfload/store` spilled index.sqlite, locks/* and the rest of the store."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "selfload").mkdir()
    (tmp_path / "selfload" / "sql.query.csv").write_text("a,b\n1,2\n")
    args = ["load", "selfload", "--root", "selfload/store", "--run", "r", "--agent", "a"]
    for _ in range(2):  # the second time the store exists, with its index, locks and reserve
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert [x["file"] for x in json.loads(result.stdout)] == ["sql.query.csv"]
        assert result.stderr == ("scratchfs: skipped 1 that are not tool outputs: store (the store's own "
                                 "directory)\n")
    assert {"index.sqlite", "locks", "reserve"} <= set(os.listdir(tmp_path / "selfload" / "store"))


def test_load_reads_a_file_as_it_was_when_opened_and_never_follows_its_growth(tmp_path, monkeypatch):
    """A file another process keeps appending to (a hostile tree, a log being written) was read until a read found
    its end: a writer that stays ahead of the load kept it going without end, filling the store. A file is now read
    as tar reads it: the bytes it held when it was opened (its size then), not what is appended while it is read;
    one that shrinks meanwhile gives what is left. (The writer here appends before each of the load's reads, so it
    is always ahead; it stops after 64 MiB, which the load followed before.)"""
    data = (FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes()
    folder = tmp_path / "tree"
    folder.mkdir()
    (folder / "growing.log").write_bytes(data)
    (folder / "shrinking.log").write_bytes(data)
    real_spill = Scope.spill
    appended = {"bytes": 0}

    class Growing:
        def __init__(self, source, path):
            self.source, self.path = source, path

        def read(self, size=-1):
            if self.path.name == "growing.log" and appended["bytes"] < 64 << 20:
                with open(self.path, "ab") as out:
                    out.write(data)
                appended["bytes"] += len(data)
            elif self.path.name == "shrinking.log":
                os.truncate(self.path, len(data) // 2)
            return self.source.read(size)

    def spill_while_it_changes(self, content, **kwargs):
        path = folder / os.path.basename(os.readlink(f"/proc/self/fd/{content.file.fileno()}"))
        return real_spill(self, Growing(content, path), **kwargs)

    monkeypatch.setattr(Scope, "spill", spill_while_it_changes)
    skipped: list[Skipped] = []
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("r", "a")
        stubs = load_dir(scope, folder, skipped=skipped)
        assert skipped == []
        assert stubs["growing.log"].size == len(data)
        assert b"".join(scope.iter_content("handle", stubs["growing.log"].handle)) == data
        assert b"".join(scope.iter_content("handle", stubs["shrinking.log"].handle)) == data[: len(data) // 2]
    assert 0 < appended["bytes"] < 64 << 20  # the load stopped reading while the writer was still ahead


def test_load_counts_a_folder_that_became_a_link_mid_load_as_a_link_not_a_failure(tmp_path, monkeypatch):
    """A file that became a symbolic link between the listing and its opening is left out as a link (not followed,
    not a failure: exit code 0), but a folder that did was named among the files that could not be loaded, and
    ``scratchfs load`` exited with 4. Both are links now, and neither is followed: nothing of the link's target
    (here /etc) is read."""
    folder = tmp_path / "tree"
    (folder / "b").mkdir(parents=True)
    (folder / "a.txt").write_bytes(b"first")
    (folder / "b" / "c.txt").write_bytes(b"inside")
    real_spill = Scope.spill

    def spill_and_swap(self, content, **kwargs):
        if (folder / "b").is_dir() and not (folder / "b").is_symlink():
            shutil.rmtree(folder / "b")
            (folder / "b").symlink_to("/etc")
        return real_spill(self, content, **kwargs)

    monkeypatch.setattr(Scope, "spill", spill_and_swap)
    result = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "r",
                                       "--agent", "a"])
    assert result.exit_code == 0, result.output
    assert [x["file"] for x in json.loads(result.stdout)] == ["a.txt"]
    assert result.stderr == "scratchfs: skipped 1 that are not tool outputs: b (a symbolic link, not followed)\n"


def test_load_of_something_that_is_no_folder_makes_no_store(tmp_path):
    """``scratchfs load FIFO --root NEW`` made a new empty store at NEW, then said "not a folder" (exit 2), and
    ``scratchfs demo --fixtures FIFO --root NEW`` made one and said "storage: Not a directory" (exit 4): click's
    ``file_okay=False`` turns away regular files only, so a FIFO, socket or device went through to the command
    after the store was opened. Both are now refused as the command's argument, before any store is opened."""
    fifo, device = tmp_path / "p.fifo", "/dev/null"
    os.mkfifo(fifo)
    for folder in (str(fifo), device):
        root = tmp_path / "new-root"
        result = CliRunner().invoke(main, ["load", folder, "--root", str(root), "--run", "r", "--agent", "a"])
        assert result.exit_code == 2, result.output
        assert result.stdout == "" and result.stderr.count("\n") == 1
        assert f"'{folder}' is not a folder" in result.stderr, result.stderr
        assert not root.exists()
        demo = CliRunner().invoke(main, ["demo", "--fixtures", folder, "--root", str(root)])  # the same kind
        assert demo.exit_code == 2 and demo.stderr.count("\n") == 1, demo.output
        assert f"'{folder}' is not a folder" in demo.stderr, demo.stderr  # (was "storage: Not a directory", exit 4)
        assert not root.exists()


def test_load_leaves_out_a_file_larger_than_its_limit_without_reading_it(tmp_path):
    """A hostile tree may hold a sparse file of terabytes (``truncate -s 16T``: a second to make, no disk used):
    load read every byte of it -- about 200 MB/s, a day for 16 TiB -- and stored it all. A file larger than
    ``max_file_bytes`` (4 GiB by default; ``--max-file-bytes`` on the command line, 0 for no limit) is left out
    unread, named with its size, as a rule (not a failure: exit code 0); the others are loaded."""
    folder = tmp_path / "tree"
    folder.mkdir()
    (folder / "a.txt").write_bytes(b"0123456789")
    with open(folder / "huge.bin", "wb") as huge:
        huge.truncate(5 << 30)  # 5 GiB of holes
    skipped: list[Skipped] = []
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("r", "a")
        stubs = load_dir(scope, folder, skipped=skipped)
        assert list(stubs) == ["a.txt"] and scope.read_handle(stubs["a.txt"].handle).data == b"0123456789"
        assert skipped == [Skipped("huge.bin", "larger than the limit of 4294967296 bytes (5368709120 bytes)", False,
                                   too_large=True)]
        skipped.clear()
        assert list(load_dir(scope, folder, skipped=skipped, max_file_bytes=9)) == []
        assert [s.path for s in skipped] == ["a.txt", "huge.bin"]
        assert list(load_dir(scope, folder, max_file_bytes=10)) == ["a.txt"]
    result = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "r",
                                       "--agent", "a", "--max-file-bytes", "9"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == []
    assert result.stderr == ("scratchfs: skipped 2 that are not tool outputs or are larger than --max-file-bytes: "
                             "a.txt (larger than the limit of 9 bytes (10 bytes)), huge.bin (larger than the limit "
                             "of 9 bytes (5368709120 bytes))\n")


def test_a_bad_marker_fails_its_test_in_one_line_saying_what_to_fix(pytester):
    """@pytest.mark.scratch_store(default_ttl=0) or a misspelt spill_treshold_bytes gave ~100 lines of chained
    traceback starting inside the plugin, the TTL's bounds worded two ways, and no hint for the misspelling (an agent
    developer's trial). Each bad marker is now one line at its test's setup, the TTL's bounds worded once, a
    misspelt setting with the one it meant; the other tests run."""
    pytester.makepyfile(r'''
        import pytest

        @pytest.mark.scratch_store(default_ttl=0)
        def test_ttl(scratch_store):
            pass

        @pytest.mark.scratch_store(spill_treshold_bytes=100)
        def test_misspelt(scratch_scope):
            pass

        @pytest.mark.scratch_store(4096)
        def test_positional(scratch_store):
            pass

        @pytest.mark.scratch_scope("run-only")
        def test_one_id(scratch_scope):
            pass

        @pytest.mark.scratch_scope("run", "agent\n")
        def test_bad_id(scratch_scope):
            pass

        @pytest.mark.scratch_store(spill_threshold_bytes=100)
        def test_good(scratch_scope):
            assert scratch_scope.store.settings.spill_threshold_bytes == 100
    ''')
    result = pytester.runpytest("-W", "error", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=5)
    out = result.stdout.str()
    errors = out.split("= ERRORS =", 1)[1].split("= short test summary info =", 1)[0]
    sections = re.split(r"\n_+ ERROR at setup of (\w+) _+\n", errors)[1:]
    said = {name: body.strip().rstrip("=").strip() for name, body in zip(sections[::2], sections[1::2], strict=True)}
    assert said == {
        "test_ttl": "@pytest.mark.scratch_store: default_ttl must be finite seconds between 1 and 2592000: 0",
        "test_misspelt": "@pytest.mark.scratch_store: unknown store setting 'spill_treshold_bytes' (did you mean "
                         "'spill_threshold_bytes'?)",
        "test_positional": "@pytest.mark.scratch_store takes settings by name (frame_bytes=4096), not (4096,)",
        "test_one_id": "@pytest.mark.scratch_scope takes a run id and an agent id, (\"run-1\", \"agent-1\"), not "
                       "('run-only',)",
        "test_bad_id": "@pytest.mark.scratch_scope: agent id contains a control character: 'agent\\n'",
    }, errors
    assert "Traceback" not in out and "pytest_plugin.py" not in out and "During handling" not in out


def test_a_test_s_store_lists_within_its_ttl_on_the_wall_clock(scratch_scope, scratch_store, tmp_path):
    """rr9: ``scratchfs ls`` on a test's store said each entry expired in some 26,700 days (2100 less the wall
    clock), where ``scratch_list`` of the same store says at most its ttl -- an entry born in the future lives at most
    its ttl from the first read or sweep that sees it (``Entry.expires_in``) -- so the two faces disagreed."""
    stub = scratch_scope.spill("hello\n" * 5000, source_tool="t", ttl=600)
    scratch_store.close()
    result = CliRunner().invoke(main, ["--root", str(tmp_path / "scratchfs"), "ls", "--run", "run-1"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if stub.handle[:12] in line)
    assert "10m00s" in row and "d0" not in row, row
