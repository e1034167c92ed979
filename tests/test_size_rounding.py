"""Sizes in binary units never read ``1024`` of a unit: a size that rounds up to it is written in the next unit.

newuser27: ``fsck --limit 2`` over two spills of the Rust book (524,273 bytes each, 1,048,546 together, 30 bytes
under 1 MiB) printed ``checked 2 entries (1024.0 KiB verified)``; the shapes' ``kib`` wrote ``1024 KiB`` alike."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.api.shape_words import kib
from scratchfs.cli import main
from scratchfs.cli.render import human_bytes


def test_fsck_of_two_rust_books_says_one_mib(tmp_path, fixture_data):
    page = fixture_data["browser-rust-book.html"]
    assert len(page) * 2 == 1_048_546  # (the fixture: 30 bytes short of 1 MiB)
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        scope = store.scope("run-1", "agent-1")
        scope.spill(page, source_tool="browser.get")
        scope.spill(page, source_tool="browser.get")
    result = CliRunner().invoke(main, ["fsck", "--limit", "2", "--root", str(root)])
    assert result.exit_code == 0, result.output
    assert "checked 2 entries (1.0 MiB verified)" in result.stdout, result.stdout


def test_human_bytes_moves_to_the_next_unit_where_it_rounds_to_1024():
    sizes = (1023, 1024, 1536, 1_048_546, 1_048_575, 1_048_576, 1024**3 - 1, 5 * 1024**4)
    assert [human_bytes(size) for size in sizes] == [
        "1023 B", "1.0 KiB", "1.5 KiB", "1.0 MiB", "1.0 MiB", "1.0 MiB", "1.0 GiB", "5120.0 GiB"]
    assert human_bytes(-1_048_546) == "-1.0 MiB"  # (a negative size, as a difference is, alike)


def test_shape_kib_moves_to_the_next_unit_where_it_rounds_to_1024():
    sizes = (512, 1024, 12 * 1024, 1_048_063, 1_048_064, 1_048_575, 1024**3 - 1, 1024**3)
    assert [kib(size) for size in sizes] == [
        "512 B", "1 KiB", "12 KiB", "1023 KiB", "1.0 MiB", "1.0 MiB", "1.0 GiB", "1.0 GiB"]


_APP_JS = Path(__file__).resolve().parent.parent / "scratchfs" / "web" / "static" / "app.js"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the inspector's script")
def test_web_inspector_bytes_moves_to_the_next_unit_where_it_rounds_to_1024():
    """The web inspector's ``bytes`` (its own formatter, in app.js) wrote ``1024 KiB`` alike; run here in node."""
    found = re.search(r"^function bytes\(n\) \{.*?^\}", _APP_JS.read_text(), re.S | re.M)
    assert found is not None
    sizes = [1023, 1024, 1536, 1_048_546, 1_048_575, 1_048_576, 10 * 1024**2]
    script = f"{found.group(0)}\nconsole.log(JSON.stringify({json.dumps(sizes)}.map(bytes)));"
    shown = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True, timeout=60).stdout
    assert json.loads(shown) == ["1023 B", "1.0 KiB", "1.5 KiB", "1.0 MiB", "1.0 MiB", "1.0 MiB", "10 MiB"]
