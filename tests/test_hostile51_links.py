"""hostile51: the refusal of an index file with another name (a hard link) told the user to ``cp index.sqlite
index.sqlite.own && mv index.sqlite.own index.sqlite`` and to ``find / -samefile on this file``: names relative to a
store root the message never named, so the command pasted from any other directory failed (``cp: cannot stat``) or
copied another directory's ``index.sqlite``. The message now names the file by its whole path, its commands
shell-quoted (a root with a space and a quote here), and the pasted command gives the store its own copy."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from scratchfs.api.store import ScratchStore
from scratchfs.foundation.errors import StorageError


def test_the_own_copy_command_pasted_from_elsewhere_lets_the_store_open(tmp_path):
    root, other = tmp_path / "my store's root", tmp_path / "snap.sqlite"
    with ScratchStore(root, index_write_behind=False) as store:
        store.scope("r", "a").spill(b"a\n", source_tool="t")
    os.link(root / "index.sqlite", other)
    with pytest.raises(StorageError) as refused:
        ScratchStore(root, index_write_behind=False)
    message = str(refused.value)
    assert "\n" not in message and f"{root / 'index.sqlite'} has 2 names" in message
    command = re.search(r"\(cp (.*)\)$", message)
    assert command is not None, message
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    subprocess.run(["/bin/sh", "-c", "cp " + command.group(1)], cwd=elsewhere, check=True, capture_output=True)
    assert os.stat(other).st_nlink == 1 and list(elsewhere.iterdir()) == []
    with ScratchStore(root, index_write_behind=False) as store:  # its own copy now: opens, writes, the snapshot kept
        store.scope("r", "a").spill(b"b\n", source_tool="t")
        assert len(store.list_entries()) == 2
    found = re.search(r"find / -xdev -samefile (.*) lists them", message)
    assert found is not None and os.path.samefile(root / "index.sqlite", other) is False
