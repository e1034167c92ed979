"""The README's Python API snippet runs as written (from the repository's root, on the fixtures) and gives what
its comments say."""

from __future__ import annotations

import json
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


def next_call_flags() -> dict[str, str]:
    """The README's table from a ``next_call`` argument to its ``scratchfs read-handle`` flag."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text[text.index("| `next_call` | `scratchfs` |"):].split("\n\n", 1)[0].splitlines()[2:]
    flags: dict[str, str] = {}
    for row in table:
        left, right = row.strip("|").split("|")[:2]
        if re.match(r"\s*`\w+\(", left):  # a verb's row (read_handle's handle, scratch_read, scratch_list)
            continue
        names, options = re.findall(r"`(\w+)=", left), re.findall(r"`(--[\w-]+)", right)
        assert len(names) == len(options) > 0, row
        flags.update(zip(names, options, strict=True))
    return flags


def test_the_readme_translates_every_next_call_to_the_cli_flags_that_continue_it(tmp_path, monkeypatch,
                                                                                  fixture_data):
    """Each read's next_call, written as a command line by the README's table, gives the page the model's call
    gives."""
    import ast

    from click.testing import CliRunner

    from scratchfs import ScratchStore
    from scratchfs.api.contract import ScratchTools
    from scratchfs.cli import main

    flags = next_call_flags()
    root = tmp_path / "store"
    for name, value in (("SCRATCHFS_ROOT", str(root)), ("SCRATCHFS_RUN_ID", "run-1"), ("SCRATCHFS_AGENT_ID", "a")):
        monkeypatch.setenv(name, value)
    with ScratchStore(root=root) as store:
        scope = store.scope("run-1", "a")
        tools = ScratchTools(scope)
        h = {name: scope.spill(fixture_data[name]).handle for name in fixture_data}
        lines = scope.spill(b"".join(b'{"id": %d, "ok": true}\n' % i for i in range(3000))).handle
        firsts = [
            {"handle": h["query-packages-by-month.csv"], "row": 2, "rows": 40, "columns": ["name", 1]},
            {"handle": h["browser-rust-book.html"], "view": "text", "budget": 4096},
            {"handle": h["browser-rust-book.html"], "select": "p", "budget": 2048},
            {"handle": h["workspace-grep-stdlib-defs.txt"], "pattern": "^./FILE.*:DEF ", "ignore_case": True,
             "context": 40, "max_matches": 3},
            {"handle": h["workspace-grep-stdlib-defs.txt"], "match": "def", "context": 10},
            {"handle": h["workspace-grep-stdlib-defs.txt"], "line": 3, "lines": 20},
            {"handle": h["api-ec2-service-model.json"], "jq": ".operations | keys[]"},
            {"handle": h["api-ec2-service-model.json"], "offset": 10, "length": 1000},
            {"handle": lines, "record": 5, "records": 30, "jq": ".id"},
        ]
        used = set()
        for first in firsts:
            call = tools.call("read_handle", first)["next_call"]
            assert call is not None, first
            node = ast.parse(call, mode="eval").body
            arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            assert arguments.get("budget") == first.get("budget")  # the call's budget is carried on, as it says
            words = ["read-handle", arguments["handle"], "--json"]
            for key, value in arguments.items():
                if key != "handle":
                    used.add(key)
                    values = value if isinstance(value, list) else [value]
                    words += [flags[key]] if value is True else [w for v in values for w in (flags[key], str(v))]
            result = CliRunner().invoke(main, words, catch_exceptions=False)
            assert result.exit_code == 0, (words, result.output)
            assert json.loads(result.stdout) == tools.call("read_handle", arguments), words
    assert used >= {"row", "rows", "columns", "view", "cursor", "budget", "select", "pattern", "ignore_case",
                    "context", "max_matches", "match", "line", "lines", "jq", "offset", "length", "record",
                    "records"}


def test_help_names_every_way_to_read_back():
    """``scratchfs --help`` said results are read back "by range or by match" only."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    text = " ".join(CliRunner().invoke(main, ["--help"]).output.split())
    for way in ("byte range", "by lines", "pattern match", "a jq filter over JSON", "JSON-lines records",
                "CSV/TSV rows", "the text of an HTML page", "CSS selector"):
        assert way in text, way


def sh_blocks(section: str | None = None) -> list[str]:
    """The ```sh blocks of the README section headed ``## <section>`` (``None``: of the whole README)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    if section is not None:
        start = text.index(f"\n## {section}\n")
        end = text.find("\n## ", start + 1)
        text = text[start : end if end > 0 else None]
    return re.findall(r"```sh\n(.*?)```", text, flags=re.S)


def test_every_shell_command_of_the_readme_runs_from_the_venv_its_first_command_makes():
    """The README's fleet quick start ran bare `scratchfs`, `python`, `moto_server`: after its first command (which
    makes .venv, activating nothing) none is on the PATH. Every command the README's shell blocks run is
    .venv/bin/... or a system command."""
    bare = re.compile(r"(?:^|&&|\|\||[|;(]|\$\(|\s--)\s*(scratchfs|python|pip|pytest|moto_server|mcp-server-git)\b")
    blocks = sh_blocks()
    assert len(blocks) >= 6
    for block in blocks:
        for line in block.splitlines():
            command = line.split("  #", 1)[0]
            assert not bare.search(command), line


def test_the_command_line_session_of_the_readme_runs_as_written(tmp_path):
    """The Command line section's first block is a session that runs as written (placeholders such as h_... and
    notes.txt are gone), from the repository's root, into a store of its own."""
    import os
    import subprocess
    import sys

    block = sh_blocks("Command line")[0]
    script = "set -euo pipefail\n" + block.replace(".venv/bin/", os.path.dirname(sys.executable) + "/")
    env = {**os.environ, "SCRATCHFS_ROOT": str(tmp_path / "store"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"rows_deleted":' in done.stdout and "ownership" in done.stdout


def test_the_readme_gives_the_size_of_the_tool_definitions_as_they_are(tmp_path):
    """The agent-loop section says how many bytes of compact JSON ``tool_definitions(store)`` takes (sent with every
    request), as UTF-8 and with non-ASCII escaped; it said 12,785 where they were 13,159. The figures are read from
    the README, so they cannot drift."""
    from scratchfs import ScratchStore
    from scratchfs.adapter import tool_definitions

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"\(~([0-9.]+) KB: ([0-9,]+) bytes of compact UTF-8 JSON, ([0-9,]+) with\s+# non-ASCII escaped",
                      text)
    assert found is not None, "the README no longer gives the tool definitions' size"
    store = ScratchStore(tmp_path, default_ttl=3600.0, spill_threshold_bytes=8192, preview_bytes=1024)
    definitions = tool_definitions(store)
    size = len(json.dumps(definitions, separators=(",", ":"), ensure_ascii=False).encode())  # (what a model receives)
    escaped = len(json.dumps(definitions, separators=(",", ":")))
    assert (int(found.group(2).replace(",", "")), int(found.group(3).replace(",", ""))) == (size, escaped)
    assert found.group(1) == f"{size / 1000:.1f}"
    store.close()


def test_the_adapter_snippet_runs_as_written_and_gives_what_its_comments_say(tmp_path, monkeypatch):
    # it used store, url and h without making them, and its tool returned None: a new user's paste was a NameError
    (code,) = python_blocks("Agent-loop adapter")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "store"))
    ns: dict = {}
    exec(compile(code, "README.md#agent-loop-adapter", "exec"), ns)
    try:
        said = re.search(r'\("read_handle", \{"handle": h, "match": "ownership", "offset":.*?#\s*(\d+)\}', code, re.S)
        assert ns["name"] == "read_handle"
        assert ns["args"] == {"handle": ns["h"], "match": "ownership", "offset": int(said.group(1))}
        assert ns["reply"].kind is None and json.loads(ns["reply"].text)["windows"]
        assert [tool["name"] for tool in ns["tools"]][:1] == ["read_handle"]
        # it spilled the page twice (fetch_page(url), then fetch_page.observe(url)): the stub it showed named another
        # handle than the h it read; the stub's note names h, the one page stored (modelfollow1)
        assert [entry.key for entry in ns["offloader"].scope.list_entries() if entry.kind == "handle"] == [ns["h"]]
        stub = json.loads(ns["stub"])
        assert stub["handle"] == ns["h"] and f'read_handle(handle="{ns["h"]}"' in stub["note"]
    finally:
        ns["store"].close()


def test_the_quick_start_snippet_runs_and_gives_what_its_comments_say(tmp_path, monkeypatch, capsys):
    """The Quick start's Python block runs as written (from the repository's root, into the environment's store) and
    its comments hold: the stub's size in bytes of JSON, its shape's start, the reply's next_call."""
    (code,) = python_blocks("Quick start")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "store"))
    ns: dict = {}
    exec(compile(code, "README.md#quick-start", "exec"), ns)
    size = int(re.search(r"the stub, ([\d,]+) bytes of JSON", code).group(1).replace(",", ""))
    assert len(ns["out"].content.encode()) == size
    assert json.loads(ns["out"].content)["handle"] == ns["out"].stub.handle
    shape = re.search(r"shape \('([^']*)\.\.\.'\)", code).group(1)
    assert ns["out"].stub.shape.startswith(shape)
    said = re.search(r"go on: (read_handle\([^)]*), \.\.\.\)", code).group(1)
    assert re.sub(r"h_[a-z2-7]{24}", "h_...", ns["reply"]["next_call"]).startswith(said)
    assert ns["out"].stub.handle in capsys.readouterr().out
