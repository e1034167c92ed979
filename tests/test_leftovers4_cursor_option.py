"""Every paged command takes its cursor as ``--cursor`` (leftovers4): ``ls`` and ``fsck`` paged with ``--after``,
``scratch-list`` (and ``read-handle``) with ``--cursor``; ``--after`` is kept as an alias of each. Entries are
``fixtures/tools/dmesg.txt`` (a real ``dmesg``), spilled three times."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from tests.cli_run import invoke

_DMESG = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "dmesg.txt"


_cli = functools.partial(invoke, scope=())  # (scratchfs ARGS --root ROOT: each command names its scope)


def _pages(root, command: list[str], option: str) -> list:
    """Every item of ``command`` paged one at a time, each next page asked with ``option``."""
    seen, cursor = [], []
    for _ in range(10):
        page = _cli(root, *command, "--limit", "1", *cursor)
        assert page.exit_code == 0, page.output
        seen += json.loads(page.stdout)
        found = re.search(r" --(cursor|after) (\S+)", page.stderr)
        if found is None:
            return seen
        assert found[1] == "cursor", page.stderr  # (the next page's command names --cursor)
        cursor = [option, found[2]]
    raise AssertionError("more pages than items")


def test_ls_fsck_and_scratch_list_page_with_cursor_and_after(tmp_path):
    root = tmp_path / "root"
    for n in range(3):
        assert _cli(root, "spill", str(_DMESG), "--run", "r", "--agent", "a").exit_code == 0
        assert _cli(root, "scratch-write", f"k{n}", str(_DMESG), "--run", "r", "--agent", "a").exit_code == 0
    whole_ls = json.loads(_cli(root, "ls", "--json").stdout)
    keys = [item["key"] for item in json.loads(_cli(root, "scratch-list", "--run", "r", "--agent", "a").stdout)]
    assert len(whole_ls) == 6 and keys == ["k0", "k1", "k2"]
    for option in ("--cursor", "--after"):
        assert _pages(root, ["ls", "--json"], option) == whole_ls
        listed = _pages(root, ["scratch-list", "--run", "r", "--agent", "a"], option)
        assert [item["key"] for item in listed] == keys
    fsck = _cli(root, "fsck", "--quick", "--limit", "2", "--json")
    cursor = re.search(r" --cursor (\S+)", fsck.stderr)
    assert cursor is not None, fsck.stderr
    for option in ("--cursor", "--after"):
        rest = _cli(root, "fsck", "--quick", "--json", option, cursor[1])
        assert rest.exit_code == 0 and json.loads(rest.stdout)["entries_checked"] == 4, rest.output
