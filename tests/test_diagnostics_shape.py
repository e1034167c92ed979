"""A compiler's or linter's diagnostics: how many errors and warnings, and each error at the line of the output it
starts at, against the plain answer -- the tools' own totals in real outputs (``fixtures/tools``: cargo build, ruff
check), a real gcc run made here, and Hypothesis streams of GNU-format lines."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.shape import describe
from scratchfs.api.shape_diagnostics import DIAGNOSTICS_SHAPE

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
_LINE_RE = re.compile(r" \(line ([\d,]+)\)")


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def listed_lines(shape: str) -> list[int]:
    return [int(n.replace(",", "")) for n in _LINE_RE.findall(shape)]


def test_cargo_build_errors_are_counted_as_rustc_counts_them_and_listed_at_their_lines():
    data = (TOOLS / "cargo-build-errors.txt").read_bytes()
    lines = data.decode().splitlines()
    assert "due to 4 previous errors" in lines[-1]
    shape = shape_of(data)
    assert shape.startswith(f"{DIAGNOSTICS_SHAPE}, 51 lines: 4 errors, 0 warnings: error[E0425]: cannot find value "
                            "`z` in this scope at src/main.rs:6:20 (line 2), "), shape
    assert [lines[n - 1].split(":")[0] for n in listed_lines(shape)] == ["error[E0425]", "error[E0308]",
                                                                         "error[E0061]", "error[E0308]"]
    assert "note" not in shape  # (the note inside the third error is a part of it)


def test_ruff_full_output_counts_as_ruff_does():
    data = (TOOLS / "ruff-check-full.txt").read_bytes()
    lines = data.decode().splitlines()
    assert lines[-2] == "Found 11 errors."
    shape = shape_of(data)
    assert shape.startswith(f"{DIAGNOSTICS_SHAPE}, 127 lines: 11 errors, 0 warnings: CPY001 Missing copyright "), shape
    shown = listed_lines(shape)
    assert len(shown) >= 5
    assert all(re.match(r"[A-Z]+\d+ ", lines[n - 1]) and lines[n].lstrip().startswith("--> ") for n in shown)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_a_gcc_run_counts_its_errors_warnings_and_notes(tmp_path):
    body = ["int f(int a) { return a + 1; }", "int main(void) {"]
    body += [f"    int unused{i} = {i};" for i in range(12)]  # 12 warnings
    body += [f"    return_nothing{i} = 1;" for i in range(3)]  # 3 errors (and a note)
    body += ["    return 0;", "}"]
    (tmp_path / "bad.c").write_text("\n".join(body) + "\n")
    out = subprocess.run(["gcc", "-Wall", "-c", "bad.c", "-o", "/dev/null"], cwd=tmp_path, capture_output=True,
                         check=False).stderr
    lines = out.decode().splitlines()
    errors = [n for n, line in enumerate(lines, 1) if re.match(r"bad\.c:\d+:\d+: error: ", line)]
    warnings = sum(1 for line in lines if re.match(r"bad\.c:\d+:\d+: warning: ", line))
    notes = sum(1 for line in lines if re.match(r"bad\.c:\d+:\d+: note: ", line))
    assert len(errors) == 3 and warnings >= 12
    shape = shape_of(out)
    assert shape.startswith(f"{DIAGNOSTICS_SHAPE}, {len(lines)} lines: 3 errors, {warnings} warnings, "
                            f"{notes} note{'s' if notes != 1 else ''}: error: "), shape
    assert listed_lines(shape) == errors


_DIAGNOSTIC = st.tuples(st.sampled_from(["src/a.c", "lib/b.py", "x y.ts"]), st.integers(1, 9999),
                        st.sampled_from(["error", "warning", "note", "fatal error"]), st.integers(0, 3))


@settings(max_examples=150, deadline=None)
@given(st.lists(_DIAGNOSTIC, min_size=1, max_size=40))
def test_gnu_diagnostics_are_counted_by_severity_and_errors_listed_at_their_lines(points):
    out, errors = [], []
    for path, line, severity, frame in points:
        out.append(f"{path}:{line}:{frame + 1}: {severity}: message {len(out)}")
        if "error" in severity:
            errors.append(len(out))
        out += [f"  {line} | code", "    | ^~~"][:frame]
    data = "\n".join(out).encode() + b"\n"
    shape = shape_of(data)
    count = {s: sum(1 for p in points if p[2] == s) for s in ("error", "warning", "note", "fatal error")}
    e, w, n = count["error"] + count["fatal error"], count["warning"], count["note"]
    if not e and not w:
        assert not shape.startswith(DIAGNOSTICS_SHAPE)
        return
    def counted(count: int, word: str) -> str:
        return f"{count} {word}{'s' if count != 1 else ''}"

    assert shape.startswith(f"{DIAGNOSTICS_SHAPE}, {counted(len(out), 'line')}: {counted(e, 'error')}, "
                            f"{counted(w, 'warning')}, {counted(n, 'note')}: "), shape
    shown = listed_lines(shape)
    expected = errors if e else [i for i, line in enumerate(out, 1) if ": warning: " in line]
    assert shown == expected[: len(shown)] and shown


def test_texts_that_only_start_like_diagnostics_stay_what_they_were():
    assert not shape_of(b"error handling is hard\n" + b"and prose goes on\n" * 40).startswith(DIAGNOSTICS_SHAPE)
    grep = (TOOLS.parent / "workspace-grep-stdlib-defs.txt").read_bytes()[:65536]
    assert not shape_of(grep).startswith(DIAGNOSTICS_SHAPE)
    cargo_test = (TOOLS / "cargo-test.txt").read_bytes()
    assert shape_of(cargo_test).startswith("test run (cargo test)")


def test_gcc_whose_first_diagnostic_is_in_a_header_is_diagnostics():
    """gcc's output starting ``In file included from m.c:1:`` (its first diagnostic in an included header) was told as
    plain text, its error untold (helper realkinds; ``fixtures/tools/gcc-wall-include.txt``, a real run)."""
    data = (TOOLS / "gcc-wall-include.txt").read_bytes()
    lines = data.decode().splitlines()
    assert lines[0] == "In file included from m.c:1:"
    errors = [n for n, line in enumerate(lines, 1) if re.match(r"\S+:\d+:\d+: error: ", line)]
    warnings = sum(1 for line in lines if re.match(r"\S+:\d+:\d+: warning: ", line))
    notes = sum(1 for line in lines if re.match(r"\S+:\d+:\d+: note: ", line))
    assert (len(errors), warnings, notes) == (1, 7, 1)
    shape = shape_of(data)
    assert shape.startswith(f"{DIAGNOSTICS_SHAPE}, {len(lines)} lines: 1 error, 7 warnings, 1 note: error: ‘y’ "
                            "undeclared (first use in this function) at inc/h.h:1:30 (line 3)"), shape
    assert listed_lines(shape) == errors
    at_top = b"cc1: some warnings\nm.c: At top level:\n" + data.split(b"\n", 2)[2]
    assert shape_of(at_top[at_top.index(b"m.c: At top level"):]).startswith(f"{DIAGNOSTICS_SHAPE}, ")


def test_ruff_concise_output_counts_as_ruff_does_each_code_an_error():
    """``ruff check --output-format concise`` writes ``path:line:col: CODE message`` lines, a lint's code where gcc
    writes its severity: it was told as grep output (helper realkinds). Each is an error, as ruff's ``Found N errors.``
    counts them; pylint's lines (``C0114:``, a colon after the code; written here by hand) the same."""
    data = (TOOLS / "ruff-check-concise.txt").read_bytes()
    lines = data.decode().splitlines()
    found = int(re.fullmatch(r"Found (\d+) errors\.", lines[-2])[1])
    coded = [n for n, line in enumerate(lines, 1) if re.match(r"rf/\w+\.py:\d+:\d+: [A-Z]+\d+ ", line)]
    assert found == len(coded) == 20
    shape = shape_of(data)
    assert shape.startswith(f"{DIAGNOSTICS_SHAPE}, {len(lines)} lines: 20 errors, 0 warnings, 0 notes: INP001 "
                            "File `rf/a.py` is part of an implicit namespace package. Add an … at rf/a.py:1:1 "
                            "(line 3), "
                            ), shape
    assert listed_lines(shape) == coded[: len(listed_lines(shape))] and len(listed_lines(shape)) >= 5
    pylint = b"".join(b"m.py:%d:0: C0114: Missing module docstring (missing-module-docstring)\n" % n
                      for n in range(1, 6)) + b"\n-----\nYour code has been rated at 0.00/10\n"
    assert shape_of(pylint).startswith(f"{DIAGNOSTICS_SHAPE}, 8 lines: 5 errors, 0 warnings, 0 notes: C0114 Missing "
                                       "module docstring (missing-module-docstring) at m.py:1:0 (line 1), ")


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("make") is None, reason="gcc or make is missing")
def test_a_make_run_whose_commands_come_before_gccs_diagnostics_is_diagnostics(tmp_path):
    """``make`` writes each command (``gcc -Wall -c m.c ...``) before what gcc says about it: such a build was told as
    plain text, its errors untold (helper realkinds)."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "h.h").write_text("static int f(int x) { return y; }\n")
    (tmp_path / "m.c").write_text('#include "inc/h.h"\nint main(void) { int unused; return g(); }\n')
    (tmp_path / "n.c").write_text("int n(void) { return 0; }\n")
    flags = " ".join(f"-DFLAG_{i}=1" for i in range(40))  # (a long command line)
    (tmp_path / "Makefile").write_text(f"all:\n\tgcc {flags} -c n.c -o n.o\n\tgcc -Wall -c m.c -o m.o\n")
    out = subprocess.run(["make", "-k"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         check=False).stdout
    lines = out.decode().splitlines()
    assert lines[0].startswith("gcc -DFLAG_0=1") and lines[1].startswith("gcc -Wall")
    errors = [n for n, line in enumerate(lines, 1) if re.match(r"\S+:\d+:\d+: error: ", line)]
    warnings = sum(1 for line in lines if re.match(r"\S+:\d+:\d+: warning: ", line))
    assert errors and warnings
    shape = shape_of(out)
    assert shape.startswith(f"{DIAGNOSTICS_SHAPE}, {len(lines)} lines: {len(errors)} error"), shape
    assert f", {warnings} warning" in shape and listed_lines(shape) == errors[: len(listed_lines(shape))]
    later = b"gcc -c m.c\n" + b"".join(b"line %d of prose\n" % n for n in range(7)) + b"m.c:1:2: error: down\n"
    assert shape_of(later).startswith(DIAGNOSTICS_SHAPE)  # (the 8th line after the first)
    assert not shape_of(later.replace(b"\n", b"\nmore\n", 1)).startswith(DIAGNOSTICS_SHAPE)  # (its 9th after)
    assert not shape_of(later.replace(b"gcc -c", b"see")).startswith(DIAGNOSTICS_SHAPE)  # (prose first: no command)
    for first in (b"make[2]: Entering directory '/src'", b"[ 50%] Building C object m.o",
                  b"/usr/bin/x86_64-linux-gnu-gcc-12 -O2 -c m.c"):
        assert shape_of(first + later[later.index(b"\n"):]).startswith(DIAGNOSTICS_SHAPE), first


def test_a_make_run_whose_first_command_makes_a_directory_is_diagnostics():
    """A real ``make -k`` (helper newuser15) whose rule runs ``mkdir -p build`` before the first ``gcc``: the build's
    first line is no compiler's command, and its 32 warnings and the one error on line 44 were plain text ("text, 168
    lines"). Counted as grep counts them, the error at its line."""
    data = (TOOLS / "make-k-mkdir-first.txt").read_bytes()
    lines = data.decode().splitlines()
    assert lines[0] == "mkdir -p build" and lines[1].startswith("gcc -Wall")
    errors = [n for n, line in enumerate(lines, 1) if re.match(r"\S+:\d+:\d+: error: ", line)]
    warnings = sum(1 for line in lines if re.match(r"\S+:\d+:\d+: warning: ", line))
    notes = sum(1 for line in lines if re.match(r"\S+:\d+:\d+: note: ", line))
    shape = shape_of(data)
    assert shape.startswith(f"{DIAGNOSTICS_SHAPE}, {len(lines)} lines: {len(errors)} error, {warnings} warnings, "
                            f"{notes} note: "), shape
    assert errors == [44] and listed_lines(shape) == errors
    later = b"mkdir -p build\necho CC m.c\ngcc -c m.c\n" + b"".join(b"prose %d\n" % n for n in range(5))
    assert shape_of(later + b"m.c:1:2: error: down\n").startswith(DIAGNOSTICS_SHAPE)  # (the 8th line after the first)
    assert not shape_of(later + b"more\nm.c:1:2: error: down\n").startswith(DIAGNOSTICS_SHAPE)  # (its 9th after)
    assert not shape_of(later.replace(b"gcc -c", b"see") + b"m.c:1:2: error: down\n").startswith(DIAGNOSTICS_SHAPE)


_DIRTY = b"       Dirty ct v0.1.0 (/tmp/rk/ct): couldn't read metadata for file `target/debug/deps/libct.rlib`\n"
"""The first line of a real ``cargo build -v`` here (helper realkinds; its path shortened): a status verb that no list
of cargo's verbs held, so that the build's errors were plain text."""


@pytest.mark.parametrize("verb", ["Dirty", "Compiling", "Documenting", "Scraping", "Packaging", "Doc-tests"])
def test_cargo_output_starting_with_any_status_verb_right_aligned_is_told(verb):
    build = (TOOLS / "cargo-build-errors.txt").read_bytes()
    line = b"%12s x v0.1.0 (/src/x)\n" % verb.encode()
    assert shape_of(line + build).startswith(f"{DIAGNOSTICS_SHAPE}, 52 lines: 4 errors, 0 warnings: "), verb
    test = (TOOLS / "cargo-test.txt").read_bytes()
    assert shape_of(line + test).startswith("test run (cargo test), 73 lines: FAILED, 1 passed, 2 failed"), verb
    if verb not in ("Compiling", "Doc-tests"):  # (verbs the first line's own list names at any indent)
        assert not shape_of(b" " + line + build).startswith(DIAGNOSTICS_SHAPE)  # (a verb not at column 12)


def test_cargo_build_v_starting_with_dirty_is_diagnostics():
    build = (TOOLS / "cargo-build-errors.txt").read_bytes()
    assert shape_of(_DIRTY + build).startswith(f"{DIAGNOSTICS_SHAPE}, 52 lines: 4 errors, 0 warnings: error[E0425]: "
                                               "cannot find value `z` in this scope at src/main.rs:6:20 (line 3), ")


def test_ruff_github_annotations_are_diagnostics_not_a_csv_table():
    """``ruff check --output-format github`` writes GitHub's workflow commands, ``::error title=ruff (F401),file=...,
    line=1,col=8,...::messy.py:1:8: F401 ...``: its stdout alone was told as ``CSV, 6 columns, no header, 29 rows; 7
    ragged rows`` (the fields' commas), with its stderr before it as plain text (helper devout1,
    ``fixtures/tools/ruff-check-github.txt``, a real run, stderr first). Each annotation counts as ruff's own lines
    do, listed at its line, its place read from its fields."""
    data = (TOOLS / "ruff-check-github.txt").read_bytes()
    lines = data.decode().splitlines()
    annotated = [n for n, line in enumerate(lines, 1) if line.startswith("::error ")]
    assert len(annotated) == 29 and lines[0].startswith("warning: ")
    stdout = data.split(b"\n", 2)[2]  # (what ruff wrote to stdout: the annotations alone)
    for text, first in ((data, 3), (stdout, 1)):
        count = text.count(b"\n")
        found = describe(text, len(text), count)
        assert found.content_type == "text", found
        assert found.text.startswith(f"{DIAGNOSTICS_SHAPE}, {count} lines: 29 errors, 0 warnings, "
                                     "0 notices: error: CPY001 Missing copyright notice at top of file at "
                                     f"/tmp/devout1/src/messy.py:1:1 (line {first}), error: E401 Multiple imports "
                                     f"on one line at /tmp/devout1/src/messy.py:1:1 (line {first + 1}), "), found.text
        shown = listed_lines(found.text)
        assert len(shown) >= 5 and shown == [n - 3 + first for n in annotated[: len(shown)]]


def test_github_annotations_count_by_severity_and_one_without_a_file_is_told_alone():
    """Written by hand in the layout ``golangci-lint --out-format github-actions`` prints, with a ``::notice::`` a CI
    step adds: a warning first, so the error listed is the one at line 2."""
    data = (b"::warning file=pkg/a.go,line=3,col=2::exported func A should have comment (golint)\n"
            b"::error file=main.go,line=10,col=5::Error return value of `f.Close` is not checked (errcheck)\n"
            b"::error::build failed\n::notice::2 issues\n")
    shape = shape_of(data)
    assert shape == (f"{DIAGNOSTICS_SHAPE}, 4 lines: 2 errors, 1 warning, 1 notice: error: Error return value of "
                     "`f.Close` is not checked (errcheck) at main.go:10:5 (line 2), error: build failed (line 3); "
                     "line=N reads from one"), shape


_RUST_LIB = """pub fn a() -> i32 { let unused = 1; "s" }
pub fn b() { undefined(); }
pub fn c(v: Vec<i32>) -> i32 { v.len() }
pub fn d() { let unused = 2; }
"""


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_cargo_short_message_format_counts_its_errors_with_their_codes(tmp_path):
    """``cargo build --message-format short`` (rustc's short format, run here) writes ``src/lib.rs:1:38:
    error[E0308]: mismatched types: ...``: its code after the severity made it no GNU diagnostic, and it was told as
    grep output, its errors uncounted (helper devout1). Counted as rustc's ``due to N previous errors`` says."""
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "ct"\nversion = "0.1.0"\nedition = "2021"\n')
    (tmp_path / "src" / "lib.rs").write_text(_RUST_LIB)
    run = subprocess.run(["cargo", "build", "--offline", "--message-format", "short"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, env={**os.environ, "CARGO_TERM_COLOR": "never"})
    out = run.stdout + run.stderr
    lines = out.splitlines()
    totals = re.search(r"due to (\d+) previous errors; (\d+) warning emitted", out)
    coded = [n for n, line in enumerate(lines, 1) if re.match(r"src/lib\.rs:\d+:\d+: error\[E\d+\]: ", line)]
    assert (int(totals[1]), int(totals[2])) == (len(coded), 1) == (3, 1)
    shape = shape_of(out.encode())
    assert shape.startswith(f"{DIAGNOSTICS_SHAPE}, {len(lines)} lines: 3 errors, 1 warning, 0 notes: error[E0308]: "
                            "mismatched types: expected `i32`, found `&str` at src/lib.rs:1:37 (line "), shape
    assert listed_lines(shape) == coded


_ANNOTATION = st.tuples(st.sampled_from(["error", "warning", "notice"]),
                        st.sampled_from(["", " ", " file=a.py,line=3", " title=x::y,file=b", " ::"]),
                        st.sampled_from(["", "m", "a::b", ":: x"]), st.booleans())


@settings(max_examples=150, deadline=None)
@given(st.lists(_ANNOTATION, min_size=1, max_size=40))
def test_github_annotations_are_counted_by_severity_as_written(points):
    """The severities are counted by a pattern of their own (one group, no tuple a line: hostile24's cost) that must
    count the lines the listing's pattern reads: ``::severity[ fields]::message``, and no line that is not one."""
    out = []
    for severity, fields, message, broken in points:
        out.append(f"::{severity}{fields}{':' if broken else '::'}{message}")  # (broken: one colon, no command)
    data = "\n".join(out).encode() + b"\n"
    shape = shape_of(data)
    real = [line for line in out if re.match(r"::(error|warning|notice)(?: [^\n]*?)?::", line)]
    e, w, n = (sum(1 for line in real if line.startswith(f"::{word}")) for word in ("error", "warning", "notice"))
    if not e and not w:
        assert not shape.startswith(DIAGNOSTICS_SHAPE), shape
        return

    def counted(count: int, word: str) -> str:
        return f"{count} {word}{'s' if count != 1 else ''}"

    assert shape.startswith(f"{DIAGNOSTICS_SHAPE}, {counted(len(out), 'line')}: {counted(e, 'error')}, "
                            f"{counted(w, 'warning')}, {counted(n, 'notice')}: "), shape
