"""Which commits touched a file, asked of a spilled ``git log -p``: the shape's search finds the file's ``diff --git``
lines only, and each window names its commit (hash, author, date: :mod:`scratchfs.api.search_commits`), in one read
of a few hundred bytes. Real fixture: ``fixtures/tools/git-log-p-8.txt`` (fixtures/README.md); the expected commits
are read off the fixture's own lines here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scratchfs.api import search_commits
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_text

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
_SUGGESTED_RE = re.compile(r'match="(diff --git a/NAME b/NAME)", context="line" finds the commits that changed a file')


def commits_of(text: str, name: str) -> list[tuple[int, str]]:
    """Each ``diff --git`` line of ``name`` in ``text`` (1-based) with its commit said as a window says it."""
    lines, out, said = text.split("\n"), [], ""
    for number, line in enumerate(lines, 1):
        if line.startswith("commit "):
            author = re.sub(r" *<[^<>]*>$", "", lines[number][len("Author: "):])
            said = f"{line.split()[1][:8]}, {author}, {lines[number + 1][len('Date:'):].strip()}"
        elif line == f"diff --git a/{name} b/{name}":
            out.append((number, said))
    return out


@pytest.fixture
def spilled(scratch_scope):
    data = (_TOOLS / "git-log-p-8.txt").read_bytes()
    return ScratchTools(scratch_scope), scratch_scope.spill(data, source_tool="bash"), data.decode()


@pytest.mark.parametrize("name", ["README.md", "tests/test_page_words.py", "tests/test_web_methods.py"])
def test_the_shapes_search_names_each_commit_that_changed_a_file(spilled, name):
    tools, stub, text = spilled
    suggested = _SUGGESTED_RE.search(stub.shape)
    assert suggested, stub.shape
    reply = tools.call("read_handle", {"handle": stub.handle, "match": suggested[1].replace("NAME", name),
                                       "context": "line"})
    expected = commits_of(text, name)
    assert expected and [(w["line"], w["commit"]) for w in reply["windows"]] == expected
    assert reply["next_call"] is None and len(reply_text(reply).encode()) < 300 * len(expected) + 300


def test_readme_was_changed_by_three_commits(spilled):
    tools, stub, _ = spilled
    reply = tools.call("read_handle", {"handle": stub.handle, "match": "diff --git a/README.md b/README.md",
                                       "context": "line"})
    assert [w["commit"][:8] for w in reply["windows"]] == ["91280bc4", "78fbc808", "d7a14e9a"]
    assert reply["windows"][0]["commit"].endswith(", Mon Dec 7 16:49:32 2026 +0000")


def test_a_window_of_bytes_and_several_in_one_commit_name_it_too(spilled):
    tools, stub, text = spilled
    reply = tools.call("read_handle", {"handle": stub.handle, "match": "+++ b/", "context": 20, "max_matches": 50})
    lines = text.split("\n")
    for window in reply["windows"]:
        above = [line for line in lines[: window["line"]] if line.startswith("commit ")][-1]
        assert window["commit"].startswith(above.split()[1][:8])


def test_a_commit_past_the_bound_is_not_named(spilled, monkeypatch):
    tools, stub, _ = spilled
    monkeypatch.setattr(search_commits, "LOOK_BACK_BYTES", 100)  # (the README's diff --git line: 1 KiB past its)
    reply = tools.call("read_handle", {"handle": stub.handle, "match": "diff --git a/README.md b/README.md",
                                       "context": "line"})
    assert len(reply["windows"]) == 3 and all("commit" not in w for w in reply["windows"])


def test_a_diff_of_no_commits_has_none(scratch_scope):
    data = (_TOOLS / "git-diff-25-files.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert "finds the commits" not in stub.shape
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "match": "diff --git",
                                                             "context": "line"})
    assert reply["windows"] and not any("commit" in w for w in reply["windows"])
    assert "commit" not in json.dumps(reply["windows"])


@pytest.mark.parametrize("name", ["git-log-name-status-8.txt", "git-log-stat-8.txt"])
def test_a_log_listing_its_files_names_the_search_of_a_files_commits(scratch_scope, name):
    data = (_TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert '; match="FILE", context="line" finds the commits that changed a file' in stub.shape
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "match": "README.md",
                                                             "context": "line"})
    patched = commits_of((_TOOLS / "git-log-p-8.txt").read_text(), "README.md")  # (the same 8 commits)
    assert [w["commit"] for w in reply["windows"]] == [said for _, said in patched]
    assert len(reply_text(reply).encode()) < 800


def test_a_log_without_its_files_names_no_such_search(scratch_scope):
    text = (_TOOLS / "git-log-stat-8.txt").read_text()
    plain = "".join(line for line in text.splitlines(True) if not line.startswith(" ") or line.startswith("    "))
    stub = scratch_scope.spill(plain.encode(), source_tool="bash")
    assert stub.shape.startswith("git log, ") and "finds the commits" not in stub.shape


@pytest.mark.parametrize("name", ["git-log-graph-stat.txt", "git-log-stat-color.txt", "git-log-graph.txt",
                                  "git-log-stat-8.txt"])
def test_each_window_names_the_commit_above_it_behind_a_graph_or_colours(scratch_scope, name):
    data = (_TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "match": "e", "context": "line",
                                                             "max_matches": 200, "budget": 65536})
    plain = re.sub(r"\x1b\[[0-9;]*m", "", data.decode()).split("\n")
    heads = [(n, re.match(r"[|/\\_. ]*\*?[|/\\_. ]*commit ([0-9a-f]+)", line)) for n, line in enumerate(plain, 1)]
    heads = [(n, found[1][:8]) for n, found in heads if found]
    assert len(reply["windows"]) >= 15
    for window in reply["windows"]:
        above = [short for n, short in heads if n <= window["line"]]
        assert window.get("commit", "")[:8] == (above[-1] if above else ""), window


def test_a_patchs_lines_that_read_as_a_commit_are_none(scratch_scope):
    head = "commit 1a2b3c4d5e6f\nAuthor: Real One <r@e>\nDate:   Mon Dec 7 16:49:32 2026 +0000\n\n    subject\n\n"
    patch = ("diff --git a/log.txt b/log.txt\n--- a/log.txt\n+++ b/log.txt\n@@ -1,3 +1,6 @@\n"
             " commit 9999999999\n Author: Context <c@e>\n Date:   then\n"
             "+commit 8888888888\n+Author: Added <a@e>\n+Date:   now\n")
    stub = scratch_scope.spill((head + patch).encode(), source_tool="bash")
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "match": "Date:   now",
                                                             "context": "line"})
    assert reply["windows"][0]["commit"] == "1a2b3c4d, Real One, Mon Dec 7 16:49:32 2026 +0000"
