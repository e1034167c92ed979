"""The README's Python API snippet runs as written (from the repository's root, on the fixtures) and gives what
its comments say."""

from __future__ import annotations

import re

from .conftest import FIXTURES

ROOT = FIXTURES.parent


def python_blocks(section: str) -> list[str]:
    """The ```python blocks of the README section headed ``## <section>``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start : end if end > 0 else None], flags=re.S)


def test_the_python_api_snippet_runs_and_gives_what_its_comments_say(tmp_path, monkeypatch):
    (code,) = python_blocks("Python API")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "store"))  # root=None: the environment's
    ns: dict = {}
    exec(compile(code, "README.md#python-api", "exec"), ns)
    shape = re.search(r"out\.stub\.shape: '([^']*)'", code).group(1)
    assert ns["out"].stub.shape == shape
    example = re.search(r"e\.g\. '(read_handle\([^']*\))'", code).group(1)
    assert re.sub(r"h_[a-z2-7]{24}", "h_...", ns["sl"].next_call) == example
    assert f"j.items == {ns['j'].items!r}" in code
    keys = re.search(r"read_handle\(csv_h, row=1, rows=2\)\s*# \{([^}]*)\}", code.replace("\n" + " " * 64 + "#", ""))
    assert list(ns["reply"]) == [k.strip() for k in keys.group(1).split(",")]
    assert ns["r"].extra["header"] == ["name", "month"] and len(ns["r"].items) == 50
    assert ns["t"].offset == 0 and ns["t"].more and ns["t"].extra["size"] > len(ns["t"].text.encode()) > 4000
    assert ns["e"].items[0] == "The Rust Programming Language"
