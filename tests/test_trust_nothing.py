"""Two "trust nothing" faults: a root that is someone else's directory, and JSON nested deeper than a parser goes.

A root is refused (InvalidArgument, nothing in it changed) when it is an empty string or an existing directory that is
not empty and holds no store; an empty directory, a new one and an existing store keep working. Content nested
deeper than Python's JSON parser goes is still spilled whole (its shape says so), and structure reads over it give
one typed error, never a traceback.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest
from click.testing import CliRunner

from scratchfs import InvalidArgument, ScratchStore
from scratchfs.adapter import Offloader
from scratchfs.cli import main

# -- F3: the root ----------------------------------------------------------------------------------------------------


def _snapshot(path) -> tuple[int, list[str]]:
    return stat.S_IMODE(os.stat(path).st_mode), sorted(os.listdir(path))


def test_a_non_empty_directory_that_is_not_a_store_is_refused_untouched(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o755)
    (home / "notes.txt").write_text("mine")
    (home / "projects").mkdir()
    before = _snapshot(home)
    with pytest.raises(InvalidArgument, match="not a scratchfs store and not empty"):
        ScratchStore(home)
    assert _snapshot(home) == before == (0o755, ["notes.txt", "projects"])


def test_a_mount_point_holding_only_lost_and_found_is_taken_as_an_empty_root(tmp_path):
    mount = tmp_path / "mnt"
    mount.mkdir()
    (mount / "lost+found").mkdir(mode=0o700)
    with ScratchStore(mount) as store:
        store.scope("run", "agent").scratch_write("k", "value")
        assert store.scope("run", "agent").scratch_read("k") == b"value"
    assert {"runs", "trash", "lost+found"} <= set(os.listdir(mount))


def test_lost_and_found_beside_other_files_is_still_refused_untouched(tmp_path):
    mount = tmp_path / "mnt"
    mount.mkdir()
    os.chmod(mount, 0o755)
    (mount / "lost+found").mkdir(mode=0o700)
    (mount / "data.bin").write_bytes(b"mine")
    before = _snapshot(mount)
    with pytest.raises(InvalidArgument, match="not a scratchfs store and not empty"):
        ScratchStore(mount)
    assert _snapshot(mount) == before == (0o755, ["data.bin", "lost+found"])


@pytest.mark.parametrize("plant", ["link", "file"])
def test_a_lost_and_found_that_is_not_a_directory_is_refused_untouched(tmp_path, plant):
    mount = tmp_path / "mnt"
    mount.mkdir()
    os.chmod(mount, 0o755)
    if plant == "link":
        (mount / "lost+found").symlink_to(tmp_path)
    else:
        (mount / "lost+found").write_bytes(b"mine")
    before = _snapshot(mount)
    with pytest.raises(InvalidArgument, match="not a scratchfs store and not empty"):
        ScratchStore(mount)
    assert _snapshot(mount) == before == (0o755, ["lost+found"])


def test_an_empty_root_string_is_refused_and_the_current_directory_untouched(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.chmod(tmp_path, 0o755)
    with pytest.raises(InvalidArgument, match="empty string"):
        ScratchStore("")
    assert _snapshot(tmp_path) == (0o755, [])


def test_new_empty_and_existing_roots_still_work(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    os.chmod(empty, 0o755)
    with ScratchStore(empty) as store:
        handle = store.scope("r", "a").spill("x" * 5000).handle
    assert stat.S_IMODE(os.stat(empty).st_mode) == 0o700  # empty: ours now, made private
    with ScratchStore(empty) as store:  # an existing store (not empty) reopens
        assert store.scope("r", "a").read_handle(handle, 0, 5000).data == b"x" * 5000
    with ScratchStore(tmp_path / "new" / "root") as store:
        assert store.scope("r", "a").spill("y" * 5000).size == 5000


@pytest.mark.parametrize("name", ["index.sqlite", "runs", "locks", "trash", "reserve"])
def test_any_store_name_marks_a_store(tmp_path, name):
    """A store with a PostgreSQL index still has every one of these; any one is enough to be taken as a store."""
    root = tmp_path / "root"
    root.mkdir()
    (root / name).mkdir() if name in ("runs", "locks", "trash") else (root / name).write_bytes(b"")
    (root / "other").write_text("left by an operator")
    ScratchStore(root).close()
    assert "index.sqlite" in os.listdir(root)



def test_a_root_whose_path_is_not_utf8_works_like_any_other(tmp_path):
    """Attacker's trial: a root whose path holds bytes that are not UTF-8 (a Linux file name is bytes; Python hands
    them over as lone surrogates) died with a UnicodeEncodeError traceback while the index's URI was made -- after
    the root's directories and an empty index file were created -- instead of opening like any other root."""
    root = tmp_path / os.fsdecode(b"store-\xed\xa0\x80-\xff")
    data = b"line one\nline two\n" * 1000
    with ScratchStore(root) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(data).handle
        assert scope.read_range(handle, 17, 9).data == data[17:26]
        assert store.integrity_check() == "ok"
    with ScratchStore(root) as store:  # reopened: the same index (its file name is the root's bytes, not another)
        assert store.scope("r", "a").read_range(handle, 0, 8).data == b"line one"
    assert sorted(os.listdir(os.fsencode(root))) == [b"index.sqlite", b"journal", b"locks", b"reserve", b"runs",
                                                     b"trash"]  # journal/: the spill's row was written behind
    env = dict(os.environ, SCRATCHFS_ROOT=os.fsencode(root))
    result = subprocess.run([sys.executable, "-m", "scratchfs", "ls", "--json"], env=env, capture_output=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert [e["key"] for e in json.loads(result.stdout)] == [handle]

def test_cli_refuses_a_foreign_root_with_exit_2_and_one_line(tmp_path):
    foreign = tmp_path / "etc"
    foreign.mkdir()
    (foreign / "passwd").write_text("root:x:0:0")
    os.chmod(foreign, 0o755)
    for root in (str(foreign), ""):
        result = CliRunner().invoke(main, ["--root", root, "sweep"])
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("scratchfs: invalid argument: ")
        assert len(result.stderr.strip().splitlines()) == 1
    assert _snapshot(foreign) == (0o755, ["passwd"])


def test_a_root_too_long_for_sqlite_is_refused_before_anything_is_made_and_one_just_short_enough_works(tmp_path):
    """A root whose index.sqlite path is over SQLite's limit (504 bytes; the system's PATH_MAX is 4096) was made,
    with runs/, locks/ and trash/, and then failed as 'storage: the index failed while opening the index: the
    index file cannot be opened (unable to open database file, SQLITE_CANTOPEN)', exit 4 (atk28)."""
    SQLITE_PATH_BYTES = 504  # SQLite's MAX_PATHNAME (512) less its "-journal" (8)
    parent = tmp_path / ("p" * 200) / ("q" * 200)
    parent.mkdir(parents=True)
    fits = SQLITE_PATH_BYTES - len("/index.sqlite") - len(os.fsencode(parent)) - 1
    too_long, just_right = parent / ("r" * (fits + 1)), parent / ("s" * fits)
    result = CliRunner().invoke(main, ["--root", str(too_long), "spill", "-", "--run", "r", "--agent", "a"],
                                input="x" * 20_000)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("scratchfs: invalid argument: "), result.stderr
    assert f"choose a root of at most {SQLITE_PATH_BYTES - 13} bytes" in result.stderr
    assert not too_long.exists()
    with pytest.raises(InvalidArgument, match="too long a path for SQLite"):
        ScratchStore(too_long)
    assert len(os.fsencode(just_right / "index.sqlite")) == SQLITE_PATH_BYTES
    with ScratchStore(just_right) as store:
        handle = store.scope("r", "a").spill(b"y" * 20_000, source_tool="t").handle
        assert store.scope("r", "a").read_range(handle, 0, 5).data == b"yyyyy"


# -- F2: deep JSON -----------------------------------------------------------------------------------------------

DEEP_ARRAY = "[" * 5000 + "]" * 5000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000
DEEP_JSONL = "\n".join(["[" * 50_000 + "]" * 50_000] * 3) + "\n"
DEEP_LARGE = "[" * 200_000 + " " * 700_000 + "]" * 200_000  # larger than the shape sample: the streaming path


def _read_all(scope, handle: str, size: int) -> bytes:
    out = b""
    while len(out) < size:
        out += scope.read_range(handle, len(out), size - len(out)).data
    return out


@pytest.fixture
def scope(tmp_path):
    with ScratchStore(tmp_path / "root") as store:
        yield store.scope("r", "a")


@pytest.mark.parametrize("content", [DEEP_ARRAY, DEEP_OBJECT, DEEP_JSONL, DEEP_LARGE],
                         ids=["array", "object", "jsonl", "large"])
def test_deeply_nested_json_is_spilled_whole(scope, content):
    stub = scope.spill(content)
    if _python_parses(content):  # Python 3.13's json goes about 8,000 levels deep (3.11's and 3.12's: under 5,000)
        assert stub.content_type in ("json", "jsonl")
    else:
        assert stub.content_type == "text"
        assert stub.shape.startswith("JSON nested too deeply to parse")
    assert _read_all(scope, stub.handle, len(content)) == content.encode()


def _python_parses(text: str) -> bool:
    """This Python's ``json`` parses every line of ``text`` (how deep it goes depends on the version)."""
    try:
        for line in text.splitlines():
            json.loads(line)
    except RecursionError:
        return False
    return True


def test_shallow_json_keeps_its_shape(scope):
    stub = scope.spill(json.dumps([{"id": i, "name": "x" * 20} for i in range(300)]))
    assert stub.content_type == "json"
    assert stub.shape.startswith("JSON array of 300 items")


def test_structure_reads_over_deep_json_give_a_typed_error(scope):
    jsonl = scope.spill(DEEP_JSONL).handle
    with pytest.raises(InvalidArgument, match=r"record 1 .* nested too deeply"):
        scope.structure.records(jsonl)
    deep = scope.spill(DEEP_ARRAY).handle
    for budget in (8192, 65536):  # jq (C) parses it and writes its text, given whole or in pieces: no Python value
        page = scope.structure.jq(deep, ".", budget=budget)
        whole = page.part if page.part is not None else page.items[0]
        if isinstance(whole, list):  # a Python whose json goes this deep (3.13) has the value itself
            assert _python_parses(DEEP_ARRAY) and whole == json.loads(DEEP_ARRAY)
            continue
        assert whole == DEEP_ARRAY[: len(whole)] and len(whole) > 4000
        assert page.part is not None or page.extra["as_text"] == [0]
    if _python_parses(DEEP_ARRAY):
        page = scope.structure.records(deep)  # one record, larger than the page: its text, in parts
        assert page.items == [] and len(page.part) > 4000 and DEEP_ARRAY.startswith(page.part)
    else:
        with pytest.raises(InvalidArgument, match="nested too deeply"):
            scope.structure.records(deep)
    assert scope.structure.jq(deep, "[paths] | length").items == [4999]  # a shallow result over it still works


def test_the_adapter_spills_deep_json(tmp_path):
    with ScratchStore(tmp_path / "root") as store:
        obs = Offloader(store.scope("r", "a")).offload("db.query", DEEP_ARRAY, result_class="query")
        assert obs.stub is not None
        assert _read_all(store.scope("r", "a"), obs.stub.handle, len(DEEP_ARRAY)) == DEEP_ARRAY.encode()
        deep: list = []
        for _ in range(5000):
            deep = [deep]
        observed = Offloader(store.scope("r", "a")).offload("db.query", deep, result_class="query")
        if _python_parses(DEEP_ARRAY):  # this Python's json writes it (3.13): spilled like any large result
            assert observed.stub is not None and observed.stub.size == len(json.dumps(deep))
        else:  # it cannot be written as JSON: handed on as it is, never a failed tool call
            assert observed.content is deep


def test_cli_spills_deep_json_without_a_traceback(tmp_path):
    path = tmp_path / "n5k.json"
    path.write_text(DEEP_ARRAY)
    env = dict(os.environ, SCRATCHFS_ROOT=str(tmp_path / "root"))
    exe = os.path.join(os.path.dirname(sys.executable), "scratchfs")
    result = subprocess.run([exe, "spill", str(path), "--run", "r", "--agent", "a"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["size"] == len(DEEP_ARRAY)


def test_a_root_that_is_a_fifo_is_a_bad_root_exit_2_in_one_line(tmp_path):
    """A FIFO given as ``--root`` (or ``$SCRATCHFS_ROOT``, or a link to one) exited 4 ("storage: cannot create the
    store root ...: File exists", the code of a busy or failing disk), where a regular file there is a usage error
    (exit 2). A root that is there and no directory -- a FIFO, a link to one, a regular file given to the library
    -- is now an invalid argument (exit 2, one line naming what is there); the library raises InvalidArgument."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "to-fifo").symlink_to(fifo)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidArgument, match="is a regular file, not a directory"):
        ScratchStore(tmp_path / "file")
    for root in (fifo, tmp_path / "to-fifo"):
        with pytest.raises(InvalidArgument, match="is a FIFO, not a directory"):
            ScratchStore(root)
        for args, env in ((["--root", str(root), "ls"], {}), (["sweep"], {"SCRATCHFS_ROOT": str(root)}),
                          (["fsck", "--root", str(root)], {})):
            result = subprocess.run([sys.executable, "-m", "scratchfs", *args], env={**os.environ, **env},
                                    capture_output=True, text=True, timeout=60)
            assert result.returncode == 2, (root, args, result.stderr)
            assert result.stderr.startswith("scratchfs: ") and result.stderr.count("\n") == 1, result.stderr
            assert "not a directory" in result.stderr, result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and (tmp_path / "file").read_text() == "x"
