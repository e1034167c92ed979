"""A search of the ``git_log`` result of ``mcp-server-git`` (the README's ``mcp-proxy`` example) names each window's
commit, as one of git's own layout does: its shape says ``git log``, and a ``context="line"`` window of a
``Message:`` line is otherwise no help in telling which commit said it. Real fixture:
``fixtures/tools/mcp-server-git-log.txt`` (fixtures/README.md); the expected commits are read off its own lines."""

from __future__ import annotations

from pathlib import Path

from scratchfs.api.contract import ScratchTools

_LOG = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "mcp-server-git-log.txt"


def commits_of(text: str, word: str) -> list[tuple[int, str]]:
    """Each ``Message:`` line holding ``word`` (1-based) with its commit said as a window says it."""
    lines, out, said = text.split("\n"), [], ""
    for number, line in enumerate(lines, 1):
        if line.startswith("Commit: ") and lines[number].startswith("Author: "):
            author, date = lines[number][len("Author: "):], lines[number + 1][len("Date: "):]
            said = f"{line.split()[1][:8]}, {author}, {date}"
        elif line.startswith("Message: ") and word in line:
            out.append((number, said))
    return out


def test_a_search_of_the_mcp_git_servers_log_names_each_windows_commit(scratch_scope):
    data = _LOG.read_bytes()
    stub = scratch_scope.spill(data, source_tool="git_log")
    assert stub.shape.startswith("git log")
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "match": "README",
                                                             "context": "line"})
    expected = commits_of(data.decode(), "README")
    assert len(expected) >= 2 and expected[0][1].startswith("c663c997, Seed 557fe884 maintainers, 2026-12-05")
    assert [(window["line"], window.get("commit")) for window in reply["windows"]] == expected


def test_a_window_of_bytes_in_a_tool_log_names_its_commit_too(scratch_scope):
    data = _LOG.read_bytes()
    stub = scratch_scope.spill(data, source_tool="git_log")
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "match": "not 40",
                                                             "context": 20})
    (window,) = reply["windows"]
    assert window["commit"] == commits_of(data.decode(), "not 40")[0][1]
