"""``fsck`` names what it finds in an agent directory as it is, on one line, in output that stays what it says it
is (hostile12): a name holding a terminal escape, a newline or a byte that is no UTF-8 -- of a file, a run or an
agent directory -- was written raw into the table (the ESC of ``\\x1b[2J`` cleared the terminal that printed it)
and into ``--json`` (a byte that is no UTF-8 in a document that must be UTF-8: no JSON parser read it)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from rich.console import Console

from scratchfs import ScratchStore
from scratchfs.cli.render import Listing

_NAMES = [b"ansi\x1b[31mRED\x1b[0m", b"new\nline", b"tab\there", b"bad\xff\xfe", b"L" * 255]


@pytest.fixture
def hostile_root(tmp_path):
    """A store with one entry, a file of each name in its agent directory, and a run and agent directory whose
    names hold a terminal escape and bytes that are no UTF-8."""
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("r", "a").scratch_write("k", "v")
    agent = os.fsencode(root / "runs" / "r" / "a")
    for name in _NAMES:
        with open(os.path.join(agent, name), "wb") as f:
            f.write(b"x")
    odd = os.path.join(os.fsencode(root / "runs"), b"r\x1b[2J\xff", b"a\xfe")
    os.makedirs(odd, mode=0o700)
    os.chmod(os.path.dirname(odd), 0o700)
    with open(os.path.join(odd, b"n\xffote"), "wb") as f:
        f.write(b"x")
    return root


def _fsck(root, *args):
    return subprocess.run([sys.executable, "-m", "scratchfs", "fsck", "--root", str(root), *args],
                          capture_output=True, timeout=120, env={**os.environ, "PYTHONIOENCODING": "utf-8"})


def test_json_is_utf8_and_gives_each_name_back(hostile_root):
    done = _fsck(hostile_root, "--json")
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout.decode("utf-8"))  # (strict: a raw \xff failed here)
    found = {os.fsencode(p["path"]).rsplit(b"/", 1)[-1] for p in report["problems"] if p["kind"] == "unexpected"}
    assert set(_NAMES) | {b"n\xffote"} <= found
    scopes = {(os.fsencode(p["run_id"]), os.fsencode(p["agent_id"])) for p in report["problems"]}
    assert (b"r\x1b[2J\xff", b"a\xfe") in scopes
    assert len(done.stderr.decode().splitlines()) == 1


def test_table_prints_no_control_character_nor_raw_byte(hostile_root):
    done = _fsck(hostile_root)
    assert done.returncode == 3, done.stderr
    text = done.stdout.decode("utf-8")  # (strict)
    assert "\x1b" not in text and "\r" not in text
    rows = text.splitlines()
    assert sum("did not write" in row for row in rows) == len(_NAMES) + 1  # (each on one row)
    assert "runs/r/a/ansi\\x1b[31mRED\\x1b[0m\t" in text and "runs/r/a/bad\\xff\\xfe\t" in text
    assert "runs/r\\x1b[2J\\xff/a\\xfe/n\\xffote\t" in text and "runs/r/a/new line\t" in text


def test_terminal_table_escapes_them_too():
    row = ["unexpected", "r\x1b[2J\udcff", "a", "-", "runs/x/ansi\x1b[31m\udcfe", "d", "no"]
    out = io.StringIO()
    listing = Listing(["problem", "run", "agent", "key", "file", "detail", "repaired"], rows=[row])
    Console(file=out, width=200, force_terminal=False).print(listing.table(200))
    text = out.getvalue()
    assert "\x1b" not in text and "\udcff" not in text
    assert "r\\x1b[2J\\xff" in text and "ansi\\x1b[31m\\xfe" in text


def test_odd_entry_at_a_segment_name_is_called_a_segment_name(tmp_path):
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("r", "a").scratch_write("k", "v")
    agent = root / "runs" / "r" / "a"
    os.mkfifo(agent / ("b" * 24 + ".zseg"))
    os.mkfifo(agent / ("c" * 24 + ".zst"))
    done = _fsck(root, "--json")
    details = {p["path"].rsplit("/", 1)[-1]: p["detail"] for p in json.loads(done.stdout)["problems"]}
    assert details["b" * 24 + ".zseg"].startswith("a FIFO at a segment's name, where only a regular file belongs")
    assert details["c" * 24 + ".zst"].startswith("a FIFO at a blob's name, where only a regular file belongs")


def test_web_fsck_names_a_byte_that_is_no_utf8_not_a_500(hostile_root):
    from starlette.testclient import TestClient

    from scratchfs.web import create_app

    token = "hostile12-token-0123456789abcdef"
    with ScratchStore(hostile_root) as store, TestClient(create_app(store, token), raise_server_exceptions=False,
                                                          headers={"Authorization": f"Bearer {token}"}) as client:
        answer = client.get("/api/fsck")
    assert answer.status_code == 200, answer.content[:300]
    paths = {p["path"] for p in answer.json()["problems"]}
    assert "runs/r/a/bad\\xff\\xfe" in paths and "runs/r\x1b[2J\\xff/a\\xfe/n\\xffote" in paths
