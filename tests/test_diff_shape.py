"""A unified diff's shape (``git show``, ``git log -p``, ``diff -u``): its files, each with the line its diff starts
at and the lines it adds and removes, against the plain answer (difflib's own diff, git's ``--numstat``); a text that
only quotes a patch stays text."""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_diff import DIFF_SHAPE
from scratchfs.api.shape_words import called_name

_FILE_RE = re.compile(r"(?:: |, )([^,:]+?) \(line ([\d,]+), \+([\d,]+) -([\d,]+)\)")


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def listed(shape: str) -> list[tuple[str, int, int, int]]:
    return [(name, int(line.replace(",", "")), int(a.replace(",", "")), int(r.replace(",", "")))
            for name, line, a, r in _FILE_RE.findall(shape)]


# lines a diff could mistake for its own headers: a removed "-- x" is written "--- x", an added "++ y" "+++ y"
_LINES = st.lists(st.sampled_from(["a", "b", "-- x", "++ y", "@@ -1 +1 @@", "", " c", "diff --git a/q b/q", "\\ z"]),
                  max_size=30)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_LINES, _LINES), min_size=1, max_size=6))
@example([(["-- x", "a"], ["++ y", "a"])])
def test_a_diff_u_of_several_files_lists_each_with_its_first_line_and_its_counts(pairs):
    text, expected, line = [], [], 1
    for n, (old, new) in enumerate(pairs):
        diff = list(difflib.unified_diff(old, new, f"a/f{n}.txt", f"b/f{n}.txt", lineterm=""))
        if not diff:
            continue
        body = diff[2:]  # difflib's own counts of its hunks' lines
        expected.append((f"f{n}.txt", line, sum(1 for d in body if d.startswith("+")),
                         sum(1 for d in body if d.startswith("-"))))
        text += diff
        line += len(diff)
    data = ("\n".join(text) + "\n").encode()
    shape = shape_of(data)
    if not expected:
        return
    assert shape.startswith(DIFF_SHAPE), shape
    assert listed(shape) == expected
    assert f"+{sum(e[2] for e in expected):,} -{sum(e[3] for e in expected):,}" in shape


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_show_and_log_p_of_a_real_repository_match_numstat(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> bytes:
        return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
                              check=True, capture_output=True).stdout

    git("init", "-q")
    (repo / "keep.txt").write_text("".join(f"line {i}\n" for i in range(200)))
    (repo / "gone.txt").write_text("bye\n" * 5)
    (repo / "bin.dat").write_bytes(b"\x00\x01" * 50)
    git("add", "-A")
    git("commit", "-qm", "first")
    (repo / "keep.txt").write_text("".join(f"line {i}\n" if i % 37 else f"changed {i}\n" for i in range(210)))
    (repo / "gone.txt").unlink()
    (repo / "new file.md").write_text("# title\n\n-- a line starting with two dashes\n")
    (repo / "bin.dat").write_bytes(b"\x00\x02" * 50)
    git("add", "-A")
    git("commit", "-qm", "second\n\nwith a body line\n--- not a header\n")
    numstat = [line.split("\t") for line in git("show", "--numstat", "--format=").decode().split("\n") if line]
    shown = git("show")
    shape = shape_of(shown)
    assert shape.startswith(f"{DIFF_SHAPE}, ") and "1 commit, 4 files" in shape, shape
    lines = shown.split(b"\n")
    by_name = {name: (line, added, removed) for name, line, added, removed in listed(shape)}
    assert sorted(by_name) == sorted(name for _, _, name in numstat)
    for added, removed, name in numstat:
        line, got_added, got_removed = by_name[name]
        assert lines[line - 1].startswith(b"diff --git ") and lines[line - 1].endswith(b" b/" + name.encode())
        assert (got_added, got_removed) == ((0, 0) if added == "-" else (int(added), int(removed)))
    log = git("log", "-p")
    assert "2 commits, 7 file diffs of 4 files" in shape_of(log)
    with ScratchStore(tmp_path / "store") as store:
        stub = store.scope("r", "a").spill(log * 20, source_tool="git_log")
        assert stub.content_type == "text" and stub.shape.startswith(f"{DIFF_SHAPE}, ")


def test_a_readme_quoting_a_short_patch_and_a_git_log_without_p_stay_text():
    readme = ("# Project\n\n" + "Some prose about the project, line after line.\n" * 40 + "Apply this:\n\n"
              "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new\n\n" + "More prose here.\n" * 40).encode()
    assert not shape_of(readme).startswith(DIFF_SHAPE)
    log = b"".join(b"commit %040x\nAuthor: t <t@e>\nDate:   today\n\n    message %d\n\n" % (n, n) for n in range(50))
    assert not shape_of(log).startswith(DIFF_SHAPE)
    hunk_only = b"@@ -1,2 +1,2 @@\n-a\n+b\n c\n" * 30  # hunks without a file header: no file to name
    assert not shape_of(hunk_only).startswith(DIFF_SHAPE)


def test_a_diff_of_many_files_lists_those_that_fit_and_counts_the_rest():
    text = "".join(f"--- a/dir/file-{n:04d}.py\n+++ b/dir/file-{n:04d}.py\n@@ -1 +1 @@\n-x\n+y\n"
                   for n in range(300))
    shape = shape_of(text.encode())
    assert len(shape) <= 600
    shown = listed(shape)
    assert 5 < len(shown) < 300 and f"… {300 - len(shown)} more" in shape
    assert shown[3] == ("dir/file-0003.py", 16, 1, 1)
    assert "300 files, 300 hunks, +300 -300" in shape


def test_a_hostile_hunk_header_or_a_text_of_bare_hunk_headers_costs_little_and_never_raises():
    huge = b"--- a/x\n+++ b/x\n@@ -1," + b"9" * 5000 + b" +1,2 @@\n-a\n+b\n"  # (int() refuses 4,301 digits)
    assert not shape_of(huge).startswith(DIFF_SHAPE)
    bare = b"\n@@ -1 +1 @@" * 50_000
    assert shape_of(bare).startswith("text, 50,001 lines")


def test_diff_r_files_start_at_their_command_line_and_a_log_counts_a_file_changed_twice_once():
    stamp = b"\t2026-12-04 10:00:00\n"
    data = (b"diff -ruN a/x b/x\n--- a/x" + stamp + b"+++ b/x" + stamp + b"@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
            b"diff -ruN a/y b/y\n--- a/y" + stamp + b"+++ b/y" + stamp + b"@@ -1 +1 @@\n-1\n+2\n") * 40
    shape = shape_of(data)
    lines = data.split(b"\n")
    assert all(lines[line - 1].startswith(b"diff -ruN ") for _, line, _, _ in listed(shape)), shape
    assert "80 file diffs of 2 files" in shape, shape


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_show_of_a_merge_lists_its_combined_diffs_at_their_lines_with_their_columns_counted(tmp_path):
    """A merge's ``git show`` is a combined diff (``diff --cc``, ``@@@ -a,b -c,d +e,f @@@``, a column a parent):
    before, it was text (no ``@@ -`` at a line start), and inside a ``git log -p --cc`` each file was listed at its
    ``---`` line with +0 -0, its body taken for other lines. Each file now starts at its ``diff --cc`` line, its hunk
    read by the counts of every parent and the result; a line is added when a column is ``+``, removed when one is
    ``-`` (counted here from the columns, as git-diff(1) defines them)."""
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str, check: bool = True) -> bytes:
        return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
                              check=check, capture_output=True).stdout

    git("init", "-q", "-b", "main")
    for name in ("a.txt", "b.txt"):
        (repo / name).write_text("".join(f"line {i}\n" for i in range(40)))
    git("add", "-A")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "side")
    for name in ("a.txt", "b.txt"):
        (repo / name).write_text("".join(f"side {i}\n" if i % 7 == 3 else f"line {i}\n" for i in range(40)))
    git("commit", "-qam", "side")
    git("checkout", "-q", "main")
    for name in ("a.txt", "b.txt"):
        (repo / name).write_text("".join(f"main {i}\n" if i % 7 == 3 else f"line {i}\n" for i in range(42)))
    git("commit", "-qam", "main")
    git("merge", "-q", "side", check=False)  # (conflicts, resolved by hand below)
    for name in ("a.txt", "b.txt"):
        (repo / name).write_text("".join(f"both {i}\n" if i % 7 == 3 else f"line {i}\n" for i in range(41)))
    git("commit", "-qam", "merge")
    shown = git("show", "--format=", "HEAD")
    assert shown.startswith(b"diff --cc a.txt")
    lines = shown.split(b"\n")
    expected, name = {}, None
    for number, line in enumerate(lines, 1):
        if line.startswith(b"diff --cc "):
            name = line[10:].decode()
            expected[name] = [number, 0, 0]
        elif name and line[:2].strip(b" +-") == b"" and not line.startswith((b"--- ", b"+++ ")) and line:
            expected[name][1] += b"+" in line[:2]
            expected[name][2] += b"-" in line[:2]
    shape = shape_of(shown)
    assert shape.startswith(f"{DIFF_SHAPE}, "), shape
    assert listed(shape) == [(name, *counts) for name, counts in expected.items()], shape
    log = git("log", "-p", "--cc")
    logged = listed(shape_of(log))
    assert len(logged) == 2 + 2 + 2 + 2 and "1 commit" not in shape_of(log)  # (base, side, main, the merge)
    assert all(log.split(b"\n")[line - 1].startswith((b"diff --cc ", b"diff --git ")) for _, line, _, _ in logged)


def test_a_hunk_cut_short_by_the_next_files_header_lists_that_file_at_its_header():
    """A hunk whose lines end before its counts do (a diff cut or edited by hand) ends at the first line that is no
    hunk line, and that line is read as a header: before, it was dropped, so the next file's ``diff --git`` line was
    lost and the file listed at its ``---`` line, two lines after it starts (after git's ``index`` line)."""
    data = (b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n-a\n+b\n"
            b"diff --git a/y b/y\nindex 1234567..89abcde 100644\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n")
    assert listed(shape_of(data)) == [("x", 1, 1, 1), ("y", 7, 1, 1)]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@settings(max_examples=15, deadline=None)
@given(st.lists(st.text("abé ü\t\"\\-", min_size=1, max_size=8).map(lambda t: t.strip() or "n"), min_size=1,
                max_size=4, unique=True))
def test_names_git_quotes_are_listed_unquoted(tmp_path_factory, names):
    """git quotes a path holding a tab, a quote, a backslash or a byte past ASCII (``core.quotePath``: ``diff --git
    "a/t\\303\\251st" "b/t\\303\\251st"``): before, the shape listed that whole quoted pair as the file's name; each is
    now the name of the file, as ``git diff --name-only -z`` gives it."""
    repo = tmp_path_factory.mktemp("repo")

    def git(*args: str) -> bytes:
        return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
                              check=True, capture_output=True).stdout

    git("init", "-q")
    for n, name in enumerate(names):
        (repo / f"{name}.{n}").write_text("a\n")
    git("add", "-A")
    git("commit", "-qm", "one")
    for n, name in enumerate(names):
        (repo / f"{name}.{n}").write_text("b\n")
    git("commit", "-qam", "two")
    shown = git("show", "--format=")
    expected = [name.decode() for name in git("show", "--format=", "--name-only", "-z").split(b"\0") if name]
    shape = shape_of(shown)
    assert [name for name, _, _, _ in listed(shape)] == [called_name(name, 80) for name in expected], shape
    assert [json.loads(name) if name.startswith('"') else name for name, _, _, _ in listed(shape)] == expected  # (a
    # name holding a tab or a quote in JSON quotes, its tab \t: "?" for a tab named a search that found nothing;
    # shapenames1)


def test_a_diff_of_more_files_than_fit_lists_those_changed_most_and_the_search_that_finds_another(scratch_scope):
    # git diff of 30 commits (modeltask4), its first 25 files: was its first 10 files in order and "… 15 more", so
    # the file changed most (bounds.py, +142 -14) was named only when it came early, another found by guessing
    data = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "git-diff-25-files.txt").read_bytes()
    lines = data.split(b"\n")
    counts: dict[str, list[int]] = {}
    for line in lines:
        if line.startswith(b"diff --git "):
            name = line.rsplit(b" b/", 1)[1].decode()
            counts[name] = [lines.index(line) + 1, 0, 0]
        elif line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- ")):
            counts[name][1 if line[:1] == b"+" else 2] += 1
    stub = scratch_scope.spill(data, source_tool="git diff")
    assert stub.shape.startswith(f"{DIFF_SHAPE}, 1,500 lines, 25 files, 79 hunks, +691 -103: most changed: "), \
        stub.shape
    shown = listed(stub.shape)
    by_change = sorted(counts.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))
    assert shown == [(name, *got) for name, got in by_change[: len(shown)]]
    assert shown[0] == ("scratchfs/api/bounds.py", 204, 142, 14) and f"… {25 - len(shown)} more" in stub.shape
    needle = re.search(r'match="(.+?)", context="line" finds another', stub.shape)[1]
    unlisted = "scratchfs/api/deferred_store.py"
    assert unlisted in counts and unlisted not in {name for name, *_ in shown}
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "context": "line",
                                                             "match": needle.replace("NAME", unlisted)})
    assert reply["windows"][0]["line"] == counts[unlisted][0]
    assert reply["windows"][0]["data"] == f"diff --git a/{unlisted} b/{unlisted}"
    assert [w["data"] for w in reply["windows"]] == [f"diff --git a/{unlisted} b/{unlisted}", f"+++ b/{unlisted}"]


@pytest.mark.parametrize("name", ["include/c++/v1/vector", "app/(shop)/[id]/page.tsx", "a b/c.txt"])
@pytest.mark.parametrize("git", [True, False])
def test_the_search_for_an_unlisted_file_finds_its_header_whatever_its_name_holds(scratch_scope, name, git):
    """The search a diff of more files than fit names finds a file's header by its path pasted as it is: a pattern
    holding it found nothing for `+`, `(`, `[` (hostile35)."""
    files = [f"src/f{i:02}.py" for i in range(70)] + [name]

    def header(path: str) -> str:
        return (f"diff --git a/{path} b/{path}\nindex 1..2 100644\n--- a/{path}\n+++ b/{path}\n" if git else
                f"--- {path}\t2026-12-07\n+++ {path}\t2026-12-07\n")

    data = "".join(header(path) + "@@ -1 +1 @@\n-a\n+b\n" for path in files).encode()
    stub = scratch_scope.spill(data, source_tool="diff")
    needle = re.search(r'match="(.+?)", context="line" finds another', stub.shape)[1]
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "context": "line",
                                                             "match": needle.replace("NAME", name)})
    want = [f"diff --git a/{name} b/{name}", f"+++ b/{name}"] if git else [f"+++ {name}\t2026-12-07"]
    assert [w["data"] for w in reply["windows"]] == want
