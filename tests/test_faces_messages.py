"""Small wording a new user met: counts agree with their nouns."""

from __future__ import annotations

import pytest

from scratchfs import ScratchStore
from scratchfs.foundation.errors import QuotaExceeded


def test_a_quota_of_no_entries_says_one_entry_not_one_entries(tmp_path):
    with ScratchStore(tmp_path / "s", run_quota_entries=0) as store, \
            pytest.raises(QuotaExceeded, match=r"would hold 1 entry, over its quota of 0;"):
        store.scope("r", "a").scratch_write("k", "v")
    with ScratchStore(tmp_path / "t", run_quota_entries=1) as store:
        store.scope("r", "a").scratch_write("k", "v")
        with pytest.raises(QuotaExceeded, match=r"would hold 2 entries, over its quota of 1;"):
            store.scope("r", "a").scratch_write("j", "v")


def test_a_read_one_byte_over_64_kib_follows_each_faces_rule_as_the_readme_says_it(tmp_path):
    """``scope.read_range(h, 0, 65537)`` returns 65,536 bytes and goes on (a program's read, as read(2)); MCP's
    read_handle (its schema) and the CLI's ``--length`` refuse it. The README says which face does which."""
    from pathlib import Path

    from click.testing import CliRunner

    from scratchfs import MAX_READ_BYTES, InvalidArgument
    from scratchfs.api.contract import ScratchTools
    from scratchfs.cli import main

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert "`scope.read_range(h, 0, 65537)` reads\n  65,536 bytes and its `next_offset` and `remaining` go on" in readme
    with ScratchStore(tmp_path / "s") as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"x" * 100_000).handle
        got = scope.read_range(handle, 0, MAX_READ_BYTES + 1)
        assert (len(got.data), got.next_offset, got.remaining) == (MAX_READ_BYTES, MAX_READ_BYTES,
                                                                   100_000 - MAX_READ_BYTES)
        with pytest.raises(InvalidArgument, match="65536"):
            ScratchTools(scope).call("read_handle", {"handle": handle, "length": MAX_READ_BYTES + 1})
    result = CliRunner().invoke(main, ["read-handle", handle, "--length", str(MAX_READ_BYTES + 1), "--root",
                                       str(tmp_path / "s"), "--run", "r", "--agent", "a"])
    assert result.exit_code == 2 and "65,536" in result.stderr and "--all" in result.stderr
