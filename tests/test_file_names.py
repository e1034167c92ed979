"""One check of a local store's own file names (:func:`scratchfs.engine.file_names.name_kind`) for fsck's walk, its
loose modes and its odd and foreign names, which had two: ``BLOB_NAME_RE`` and ``.zseg`` in private_modes,
``TOKEN_RE`` + ``.zst`` in odd_names. Against the plain Python answer."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from scratchfs.engine.file_names import name_kind

_TOKEN_CHARS = string.ascii_lowercase + "234567"


def _plain(name: str) -> str | None:
    for suffix, kind in ((".zst", "blob"), (".zseg", "segment")):
        stem = name[: -len(suffix)]
        if name.endswith(suffix) and len(stem) == 24 and all(c in _TOKEN_CHARS for c in stem):
            return kind
    return None


_NAMES = st.one_of(st.text(), st.builds(lambda t, s: t + s, st.text(_TOKEN_CHARS + "18A\n", min_size=23, max_size=25),
                                        st.sampled_from([".zst", ".zseg", ".zst\n", ".zs", ".zseg.zst", ""])))


@given(_NAMES)
def test_name_kind_is_the_plain_answer(name):
    assert name_kind(name) == _plain(name)


# The sweep and the write-behind journal told the names they judge with regexes of their own (open10): they ask
# name_kind now, and judge exactly the names it accepts.
_TOKEN = "abcdefghijklmnopqrstuvwx"
_ODD_NAMES = [_TOKEN + ".zst", "z" * 24 + ".zst", _TOKEN + ".zst\n", _TOKEN.upper() + ".zst", _TOKEN[:23] + ".zst",
              _TOKEN + "a.zst", "1" * 24 + ".zst", _TOKEN + ".ZST", _TOKEN + ".zst.zst", "x" + _TOKEN + ".zst",
              _TOKEN + ".zs", _TOKEN + ".zseg", _TOKEN + ".zseg\n", _TOKEN + ".zseg.zst", "notes.txt"]


def test_the_sweep_removes_as_orphans_only_what_name_kind_calls_a_blob(tmp_path):
    import os
    import time

    from scratchfs import ScratchStore

    root = tmp_path / "root"
    with ScratchStore(root, orphan_grace=0.0) as store:
        store.scope("r", "a").scratch_write("k", "v")
        folder = store.blobs.agent_dir("r", "a")
        for name in _ODD_NAMES:
            if name_kind(name) != "segment":  # (a segment is judged by its records: test_segments)
                (folder / name).write_bytes(b"not a blob")
                os.utime(folder / name, (time.time() - 86_400,) * 2)
        store.sweep(full=True)
        left = set(os.listdir(folder))
    planted = {n for n in _ODD_NAMES if name_kind(n) != "segment"}
    assert planted - left == {n for n in _ODD_NAMES if name_kind(n) == "blob"}, left


@given(st.lists(_NAMES.filter(lambda n: "/" not in n), max_size=8))
def test_a_journal_names_only_the_segments_name_kind_accepts(tmp_path_factory, names):
    import os

    from scratchfs.engine.journal import JOURNAL_DIR, journaled

    root = tmp_path_factory.mktemp("root")
    (root / JOURNAL_DIR).mkdir()
    lines = [f"runs/r/a/{name}" for name in [*names, *_ODD_NAMES] if "\n" not in name and "\r" not in name]
    (root / JOURNAL_DIR / _TOKEN).write_bytes("".join(f"{line}\n" for line in lines).encode("utf-8", "replace"))
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        found = journaled(fd)
    finally:
        os.close(fd)
    assert found == {line for line in lines if line.isascii() and name_kind(line.split("/", 3)[3]) == "segment"}


def test_no_module_but_file_names_matches_a_name_with_the_regexes():
    import pathlib
    import re

    package = pathlib.Path(__file__).resolve().parent.parent / "scratchfs"
    own = re.compile(r"(BLOB|SEGMENT)_NAME_RE\.(match|fullmatch|search)\(")
    users = sorted(str(path.relative_to(package)) for path in package.rglob("*.py") if own.search(path.read_text()))
    assert users == ["engine/file_names.py"], users
