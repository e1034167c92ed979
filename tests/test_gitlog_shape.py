"""A ``git log`` without patches: its commits, each with its short hash, subject and the line it starts at, against
git's own answer (``--format=%h %s``, ``--shortstat``) in a real repository made here; ``git log -p`` stays a diff."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from scratchfs.api.shape import describe
from scratchfs.api.shape_diff import DIFF_SHAPE
from scratchfs.api.shape_gitlog import GIT_LOG_SHAPE
from scratchfs.foundation.text import plural

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
_ITEM_RE = re.compile(r"([0-9a-f]{7})(?: ([^,]*?))? \(line ([\d,]+)\)")


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


@pytest.fixture(scope="module")
def git(tmp_path_factory):
    repo = tmp_path_factory.mktemp("repo")

    def run(*args: str) -> bytes:  # (fixed times: the same hashes each run -- a short log of hashes all digits,
        # as one run in ~250 made, is told as no log by design: a column of numbers is none)
        fixed = {"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
        return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
                              check=True, capture_output=True, env={**os.environ, **fixed}).stdout

    run("init", "-q", "-b", "main")
    for n in range(30):
        (repo / f"f{n % 4}.txt").write_text("".join(f"{n} {i}\n" for i in range(n + 3)))
        run("add", "-A")
        run("commit", "-qm", f"change {n}: {'é' * (n % 3)} a subject\n\n    an indented body line\ncommit deadbeef0\n")
        if n == 20:
            run("checkout", "-qb", "side")
            (repo / "side.txt").write_text("side\n")
            run("add", "-A")
            run("commit", "-qm", "on the side")
            run("checkout", "-q", "main")
            run("merge", "-q", "--no-ff", "-m", "merge side", "side")
    return run


@pytest.mark.parametrize("flags", [[], ["--stat"], ["--shortstat", "--decorate"], ["--name-status"]])
def test_a_git_log_lists_each_commit_at_its_line_with_its_subject(git, flags):
    log = git("log", *flags)
    shape = shape_of(log)
    commits = git("log", "--format=%h %s").decode().splitlines()
    count = log.count(b"\n")
    assert shape.startswith(f"{GIT_LOG_SHAPE}, {count:,} lines, {len(commits)} commits"), shape
    lines = log.decode().splitlines()
    starts = [n for n, line in enumerate(lines, 1) if line.startswith("commit ")]
    listed = _ITEM_RE.findall(shape)
    assert len(listed) >= 5
    for (short, subject, line), (n, expected) in zip(listed, zip(starts, commits, strict=False), strict=False):
        assert int(line.replace(",", "")) == n
        assert f"{short} {subject}".rstrip("…") == expected[: len(short) + 1 + len(subject.rstrip("…"))]
    assert f"… {len(commits) - len(listed)} more" in shape or len(listed) == len(commits)
    if flags[:1] in (["--stat"], ["--shortstat"]):
        files = added = removed = 0
        for line in git("log", "--shortstat", "--format=").decode().splitlines():
            counts = {word.rstrip("s"): int(n) for n, word in re.findall(r"(\d+) (\w+)", line)}
            files += counts.get("file", 0)
            added += counts.get("insertion", 0)
            removed += counts.get("deletion", 0)
        assert f", +{added:,} -{removed:,} in {files} file changes" in shape


@pytest.mark.parametrize("oneline", [[], ["--oneline"]])
def test_a_git_log_p_graph_counts_its_patches_as_the_diff_of_git_log_p(git, oneline):
    """``git log -p --graph`` was told as a plain ``git log --graph`` (its patches unmentioned: each of its diff
    lines stands behind ``| ``), and ``--oneline -p --graph`` as text. Its patches are counted as the unified diff
    of ``git log -p`` (the same commits in the graph's order) counts them: files, file diffs, hunks, lines added and
    removed."""
    graph = shape_of(git("log", "-p", "--graph", *oneline))
    diff = shape_of(git("log", "-p", "--topo-order"))
    counts = re.search(r"commits, (.*? hunks, \+[\d,]+ -[\d,]+): ", diff)[1]
    assert counts.startswith("31 file diffs of 5 files, ")  # (31 commits, a merge without a patch)
    assert f", patches ({counts}): " in graph, (graph, diff)


def test_a_git_log_p_stays_a_diff_and_other_texts_are_no_log(git):
    assert shape_of(git("log", "-p")).startswith(DIFF_SHAPE)
    prose = b"commit to the plan\nAuthor: someone wrote this\n" + b"and more prose\n" * 50  # (no hash)
    assert not shape_of(prose).startswith(GIT_LOG_SHAPE)


TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
_ANY_ITEM_RE = re.compile(r"([0-9a-f]{7,40}) (.*?) \(line ([\d,]+)\)(?:, |; |$)")


def _check_commits(log: bytes, shape: str, commits: list[str], name: str) -> None:
    """``shape`` names ``name``, the log's lines and every commit (``commits``: git's ``%h %s``, in the log's order),
    and lists the first ones in order, each with its hash and subject as git writes them and the line of ``log`` that
    holds its hash."""
    count = log.count(b"\n")
    assert shape.startswith(f"{name}, {count:,} lines, {len(commits)} commits"), shape
    lines = log.decode().splitlines()
    listed = _ANY_ITEM_RE.findall(shape.split(": ", 1)[1])
    assert len(listed) >= 5, shape
    for (short, subject, line), expected in zip(listed, commits, strict=False):
        assert f"{short} {subject}".rstrip("…") == expected[: len(short) + 1 + len(subject.rstrip("…"))], expected
        assert any(word.startswith(short) for word in lines[int(line.replace(",", "")) - 1].split()), (line, short)
    assert f"… {len(commits) - len(listed)} more" in shape or len(listed) == len(commits)


@pytest.mark.parametrize(("flags", "name"), [(["--graph"], "git log --graph"),
                                             (["--graph", "--stat"], "git log --graph"),
                                             (["--graph", "--oneline"], "git log --oneline --graph"),
                                             (["--graph", "--oneline", "--decorate"], "git log --oneline --graph"),
                                             (["--graph", "-p"], "git log -p --graph"),
                                             (["--graph", "-p", "--oneline"], "git log --oneline -p --graph"),
                                             (["--oneline"], "git log --oneline"),
                                             (["--format=%h %s"], "git log --oneline")])
def test_a_git_log_graph_or_oneline_lists_each_commit_at_its_line(git, flags, name):
    """``git log --graph`` (each line behind its graph, a merge's ``|\\``) and ``--oneline`` were 'text, 33 lines,
    longest 60 bytes': its commits lost. Against git's own ``%h %s`` (in the graph's order, ``--topo-order``)."""
    log = git("log", *flags)
    commits = git("log", *flags[:1], "--format=%h %s").decode().splitlines()  # (--graph: in its order, behind it)
    commits = [re.sub(r"^[*|/\\ _.-]*\* +", "", line) for line in commits if "*" in line or "--graph" not in flags]
    _check_commits(log, shape_of(log), commits, name)


@pytest.mark.parametrize(("path", "name", "commits"), [("git-log-graph-oneline.txt", "git log --oneline --graph", 60),
                                                       ("git-log-graph.txt", "git log --graph", 16),
                                                       ("git-log-graph-stat.txt", "git log --graph", 8),
                                                       ("git-log-oneline.txt", "git log --oneline", 40)])
def test_this_repositorys_graph_is_told_as_git_log(path, name, commits):
    """A real history with merges of branches (fixtures/tools/git-log-graph*.txt: this repository at c663c99), against
    git's ``--topo-order --format='%h %s'`` of the same commits (git-log-graph-h-s.txt)."""
    log = (TOOLS / path).read_bytes()
    reference = (TOOLS / "git-log-graph-h-s.txt").read_text().splitlines()
    if "graph" not in path:  # (--oneline alone is in date order: its own lines are git's %h %s)
        reference = log.decode().splitlines()
    _check_commits(log, shape_of(log), reference[:commits], name)


@pytest.mark.parametrize("text", [
    b"".join(b"%07d item %d\n" % (n * 7919, n) for n in range(50)),  # a column of numbers
    b"".join(b"%040x  path/f%d.py\n" % (n * 104729, n) for n in range(50)),  # sha1sum's two spaces
    b"* deadbeef is a word\n* cafe0123 too\n* plain bullet\n" * 20,  # a Markdown list
    b"abcdef1 one\nfedcba2 two\nnot a commit line\n" * 10,  # a line that is no commit
    b"abc1234 x\nabcdef0123456789abcdef0123 y\n" * 10,  # hashes of lengths no log mixes
    b"0000000 6f23 2123 7375 2f72\n0000010 6962 2f6e 6e65 2076\n" * 20,  # od -x: offsets of digits
    b"deadbeef is a magic number\ncafebabe is another one\n",  # words of hex letters (helper kinds3: a git log)
    b"".join(b"%s %d\n" % (word, n) for n, word in enumerate([b"defaced", b"effaced", b"acceded", b"cafebabe"] * 5)),
    b"abc1234 first\nabc1234 again\n",  # a hash twice: no log lists a commit twice
    b"1a2b3c4 first\nbeefcafe0 second\n5a5a5a5 third\n1a2b3c4 first\n",
])
def test_texts_that_look_like_a_oneline_log_are_no_log(text):
    assert not shape_of(text).startswith(GIT_LOG_SHAPE)


@pytest.mark.parametrize("count", [2, 3, 25])
def test_a_short_oneline_log_is_told_whole(git, count):
    """A log of fewer lines than the first ones looked at (20): its last line read as the others."""
    log = git("log", "--oneline", "-n", str(count))
    first = log.split(b"\n", 1)[0].decode()
    assert shape_of(log).startswith(f"git log --oneline, {count} lines, {count} commits: {first[:30]}")


@pytest.mark.parametrize("flags", [["--graph"], ["--graph", "--stat"], [], ["--name-only"]])
def test_a_message_or_file_line_reading_commit_hash_is_no_commit(tmp_path, flags):
    """A message's bullet '* commit <hash>' behind a --graph lost its indent with the graph (whose '*' it read as the
    commit's) and counted as a commit: 5 commits were told as 15, each bullet listed as one with no subject (hostile2
    helper); a file named 'commit <hash>' in --name-only did so too, and the last commit of a graph, behind the
    graph's padding, lost its subject. A commit is a 'commit <hash>' line over its Author: or Merge: one."""
    repo = tmp_path / "repo"
    repo.mkdir()

    def run(*args: str) -> bytes:  # (fixed times: the same hashes each run -- a short log of hashes all digits,
        # as one run in ~250 made, is told as no log by design: a column of numbers is none)
        fixed = {"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
        return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
                              check=True, capture_output=True, env={**os.environ, **fixed}).stdout

    run("init", "-q", "-b", "main")
    for n in range(6):
        (repo / ("commit deadbeef00112233" if n == 3 else f"f{n}.txt")).write_text(f"{n}\n")
        run("add", "-A")
        run("commit", "-qm", f"subject {n}\n\nReverts:\n* commit deadbeef00112233 broke it\n* commit 0123456789abcdef")
    log = run("log", *flags)
    commits = run("log", "--format=%h %s").decode().splitlines()
    name = "git log --graph" if flags[:1] == ["--graph"] else "git log"
    _check_commits(log, shape_of(log), commits, name)
    assert "deadbee" not in shape_of(log)


def test_the_git_log_of_mcp_server_git_lists_each_commit_at_its_line_with_its_subject():
    """The README's mcp-proxy example spills the git_log results of mcp-server-git, whose layout is its own
    ("Commit history:", then "Commit: <hash>", "Author:", "Date:", "Message: <subject>" per commit): the stub said
    only "text, 3,487 lines, longest 1,402 bytes, 31% blank" for 500 commits (found by the newuser helper running
    that example). Its commits are listed as a git log's are, each at the line of its "Commit:"."""
    from pathlib import Path

    log = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "mcp-server-git-log.txt").read_bytes()
    shape = shape_of(log)
    lines = log.decode().splitlines()
    starts = [n for n, line in enumerate(lines, 1) if line.startswith("Commit: ")]
    subjects = [line.removeprefix("Message: ") for line in lines if line.startswith("Message: ")]
    assert shape.startswith(f"{GIT_LOG_SHAPE}, {len(lines)} lines, {len(starts)} commits: "), shape
    assert shape.endswith("; line=N reads from a commit")
    listed = re.findall(r"(?:: |, )([0-9a-f]{7}) (.*?) \(line ([\d,]+)\)", shape)  # (subjects hold commas)
    assert len(listed) >= 5
    for (short, subject, line), n, expected in zip(listed, starts, subjects, strict=False):
        assert int(line.replace(",", "")) == n and lines[n - 1] == f"Commit: {lines[n - 1][8:]}"
        assert lines[n - 1][8:].startswith(short)
        assert expected.startswith(subject.rstrip("…"))
    # told at the start only: the same lines after other text are text
    assert not shape_of(b"Some output\n" + log).startswith(GIT_LOG_SHAPE)


def test_a_message_line_of_the_mcp_git_servers_layout_is_no_commit():
    """The MCP git server writes each message unindented, so a message's own line 'Commit: <hash>' (a revert's, a
    cherry-pick's, quoted history) was taken for a commit: 12 commits were told as 24, every other one a hash with no
    subject at a message's line (hostile2 helper). A commit is a 'Commit:' line over its Author:, Date: and Message:
    lines."""
    parts = ["Commit history:"]
    for i in range(12):
        parts += [f"Commit: {i + 1:040x}", "Author: A <a@b>", "Date: 2026-12-05 10:00:00+00:00",
                  f"Message: subject {i}\n\nThis reverts\nCommit: {'f' * 40}\nwhich broke it.\n"]
    log = ("\n".join(parts) + "\n").encode()
    shape = shape_of(log)
    lines = log.decode().splitlines()
    starts = [n for n, line in enumerate(lines, 1) if line.startswith("Commit: ") and lines[n].startswith("Author: ")]
    assert shape.startswith(f"{GIT_LOG_SHAPE}, {len(lines)} lines, 12 commits: "), shape
    listed = re.findall(r"([0-9a-f]{7}) (subject \d+) \(line ([\d,]+)\)", shape)
    assert [int(line) for _, _, line in listed] == starts[: len(listed)] and len(listed) >= 5, shape
    assert "fffffff" not in shape


@pytest.mark.parametrize("subject", [b"Merge commit 'v1.2' into main", b'Revert "commit 3e56789"', b"commit the rest"])
def test_a_oneline_graph_whose_first_subject_holds_commit_is_told(subject):
    """``git log --oneline --graph`` whose first commit's hash has no ``c`` and whose subject holds ``commit `` before
    any other ``c`` (git's own ``Merge commit 'v1.2' into main``) was read as the full format behind a graph (the
    first ``c`` of the line was looked at for ``commit ``), found no ``Author:`` line and was plain text."""
    log = b"* 1a34567 " + subject + b"\n* 89ab012 second thing\n* 3e56789 third\n"
    assert shape_of(log).startswith(f"git log --oneline --graph, 3 lines, 3 commits: 1a34567 {subject.decode()}")


@pytest.mark.parametrize("oneline", [[], ["--oneline"]])
def test_a_hunk_line_that_reads_as_a_graph_commit_is_the_hunk_s(tmp_path, oneline):
    """A patch's line `` * 1a2b3c4 fix the parser`` (a changelog's context line behind ``|   ``) was read as a
    commit's line of ``git log -p --graph``: the graph width taken off the lines after it was its own, so the
    ``-more`` after it lost its ``-`` (``-1`` where git says ``-2``), and ``--oneline`` was told as text
    (the changelog's hashes, counted as commits, repeated). Against git's own counts, in a repository made here."""
    def run(*args: str) -> bytes:
        return subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@e", *args],
                              check=True, capture_output=True).stdout

    run("init", "-q", "-b", "main")
    changes = tmp_path / "CHANGES.md"
    changes.write_text("Changes\n\n* 1a2b3c4 fix the parser\n  * 5d6e7f8 add tests\n* commit 9a8b7c6d\nmore\n")
    run("add", "-A")
    run("commit", "-qm", "first")
    run("checkout", "-qb", "side")
    (tmp_path / "side.txt").write_text("x\n")
    run("add", "-A")
    run("commit", "-qm", "side")
    run("checkout", "-q", "main")
    changes.write_text(changes.read_text().replace("more", "more lines").replace("  * 5d6e", "-* 5d6e"))
    run("commit", "-qam", "second")
    run("merge", "-q", "--no-ff", "-m", "merge side", "side")
    changes.write_text(changes.read_text().replace("Changes", "Changelog").replace("-* 5d6e", "* 5d6e"))
    run("commit", "-qam", "third")
    graph = shape_of(run("log", "-p", "--graph", *oneline))
    diff = shape_of(run("log", "-p", "--topo-order"))
    counts = re.search(r"commits, (.*? hunks, \+[\d,]+ -[\d,]+): ", diff)[1]
    numstat = [line.split("\t") for line in run("log", "--numstat", "--format=").decode().splitlines() if line]
    added, removed = (sum(int(row[i]) for row in numstat) for i in (0, 1))
    assert counts == f"4 file diffs of 2 files, 4 hunks, +{added} -{removed}" == "4 file diffs of 2 files, 4 hunks, " \
        "+11 -4"
    name = f"{GIT_LOG_SHAPE}{' --oneline' if oneline else ''} -p --graph"
    assert graph.startswith(f"{name}, ") and ", 5 commits, " in graph, graph
    assert f", patches ({counts}): " in graph, (graph, diff)


def _shortstat_totals(git) -> str:
    """git's own ``--shortstat`` of the log's commits, summed as the shape says it: ``+A -R in N file changes``."""
    files = added = removed = 0
    for line in git("log", "--shortstat", "--format=").decode().splitlines():
        counts = {word.rstrip("s"): int(n) for n, word in re.findall(r"(\d+) (\w+)", line)}
        files, added, removed = (files + counts.get("file", 0), added + counts.get("insertion", 0),
                                 removed + counts.get("deletion", 0))
    return f"+{added:,} -{removed:,} in {plural(files, 'file change')}"


def test_a_git_log_graph_stat_counts_the_stats_of_commits_behind_a_collapsed_column(git):
    """A commit on a side branch whose column closes under it (``| * commit``, then ``|/  Author:``) keeps the
    graph's padding on its lines: ``|    1 file changed``, three spaces once the graph is taken off, and its
    changes were left out of the sum (the first 10,000 lines of this repository's ``--graph --stat``: +37,868
    where git says +46,204; a real 1.3 MiB one: +26,803 -5,402 in 1,304 file changes where git says +32,474 -6,491
    in 1,519). Against git's own ``--shortstat`` of the same commits. (Two branches merged in turn, ``| |/
    Author:``, give the same three spaces: no other case of it.)"""
    log = git("log", "--graph", "--stat")
    assert re.search(rb"\n\|/ +Author: ", log) and re.search(rb"\n\| {4}\d+ files? changed", log), log.decode()
    assert f", {_shortstat_totals(git)}" in shape_of(log), shape_of(log)
