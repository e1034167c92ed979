"""Coloured output (``pytest --color=yes``, ``cargo --color always``, gcc's ``-fdiagnostics-color=always``, ``ruff``
under ``FORCE_COLOR``, ``git log --color``, ``ls -R --color``) told as its kind -- a test run, diagnostics, a git log,
a listing -- from its text with the colours removed, saying it is coloured: real outputs in ``fixtures/tools``, each
against the shape of the same text without its colours (removed here by the test's own rule) and every ``(line N)``
read back; colour sprinkled anywhere by hypothesis changes nothing but the words that say so; and terminal output
that is more than colour (a progress bar, a cursor move, overstrikes) or of no kind staying terminal output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_said import split_by_controls
from scratchfs.api.shape_terminal import TERMINAL_SHAPE

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
_SGR = re.compile(rb"\x1b\[[0-9;]*[mK]")  # (the test's own rule: what these tools write)
COLOURED = '; view="text" shows it without them): '  # (the words, as the model reads them)
_LINE_RE = re.compile(r"\(line ([\d,]+)[,)]")

CASES = [("pytest-color-failures.txt", "test run (pytest)", "5 failed, 27 passed in 0.13s (line 67)"),
         ("cargo-test-color.txt", "test run (cargo test)", "FAILED, 1 passed, 2 failed, 1 ignored (line 80)"),
         ("cargo-build-color.txt", "diagnostics", "2 errors, 0 warnings"),
         ("gcc-fdiagnostics-color.txt", "diagnostics", "2 errors, 4 warnings, 1 note"),
         ("ruff-check-color.txt", "diagnostics", "4 errors, 0 warnings"),
         ("git-log-stat-color.txt", "git log", "12 commits"),
         ("ls-R-color.txt", "ls -R listing", "directories")]


def _describe(data: bytes):
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n")))


def _said(data: bytes) -> str:
    escapes = data.count(b"\x1b[")
    return f"coloured ({escapes:,} escape sequences{COLOURED}"


def _lines(data: bytes) -> str:
    count = data.count(b"\n")
    return f", {count:,} lines"


@pytest.mark.parametrize(("name", "kind", "counts"), CASES)
def test_coloured_output_is_told_as_its_kind(name, kind, counts):
    """Each was 'terminal output, 67 lines, longest 376 bytes, 24% blank, 333 escape sequences': its failures, its
    errors, its commits lost. Now it is its kind, as the same text without colours is, the words saying it is coloured
    first, and the tool's own counts."""
    data = (TOOLS / name).read_bytes()
    plain = _SGR.sub(b"", data)
    assert b"\x1b" not in plain and plain.count(b"\n") == data.count(b"\n")
    shape, told = _describe(data), _describe(plain)
    assert told.content_type == "text" and told.text.startswith(kind), told.text
    assert _lines(data) in told.text
    want = _said(data) + told.text  # (the words that say so first, where no word is the content's)
    assert shape.content_type == "text"
    assert shape.text == want or (len(want) > 600 and len(shape.text) <= 600
                                  and shape.text.startswith(want[: len(_said(data)) + 40])), shape.text
    assert counts in shape.text and split_by_controls(shape.text)


@pytest.mark.parametrize(("name", "kind", "counts"), CASES)
def test_every_line_a_coloured_shape_names_is_read_back(scope, name, kind, counts):
    """Every ``(line N)`` the shape names is the stored output's line: a line read of it, colours removed, holds a
    word of what the shape says stands there (a failure's name, a commit's hash, a directory); the note offers
    view="text", and it reads the text without escapes."""
    data = (TOOLS / name).read_bytes()
    stub = scope.spill(data * 3 if len(data) < 8192 else data, source_tool="sh")  # (spilled whatever its size)
    tools = ScratchTools(scope)
    found = list(_LINE_RE.finditer(stub.shape))
    assert found, stub.shape
    for previous, match in zip([None, *found], found, strict=False):
        start = previous.end() if previous is not None else match.start() - 60
        said = set(re.findall(r"[\w./\[\]-]{3,}", stub.shape[max(start, match.start() - 60) : match.start()]))
        got = tools.call("read_handle", {"handle": stub.handle, "line": int(match[1].replace(",", "")), "lines": 1})
        line = _SGR.sub(b"", got["data"].encode()).decode()
        assert any(word.strip("…") in line for word in said), (match[0], said, line)
    assert 'view="text"' in stub.note
    page = tools.call("read_handle", {"handle": stub.handle, "view": "text"})
    plain = _SGR.sub(b"", data).decode()
    assert page["text"] == (plain * 3)[: len(page["text"])] and len(page["text"]) > 500


_PLAIN_RUN = _SGR.sub(b"", (TOOLS / "pytest-color-failures.txt").read_bytes())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(_PLAIN_RUN) - 1), st.sampled_from([b"\x1b[31m", b"\x1b[0m", b"\x1b[1;32m",
                                                                           b"\x1b[m", b"\x1b[K", b"\x1b[01;34m"])),
                min_size=3, max_size=40))
def test_colour_anywhere_changes_only_the_words_that_say_so(inserted):
    """Colour sequences put anywhere (inside words, between a line's end and the next) in a pytest run: its shape is
    the plain run's, with the words that say it is coloured -- its counts, names and lines the same."""
    data = bytearray(_PLAIN_RUN)
    for at, escape in sorted(inserted, reverse=True):
        data[at:at] = escape
    data = bytes(data)
    told, shape = _describe(_PLAIN_RUN).text, _describe(data).text
    assert shape == _said(data) + told


@pytest.mark.parametrize("data", [
    # a coloured run redrawn by a cursor move: more than colour
    (TOOLS / "pytest-color-failures.txt").read_bytes().replace(b"\n", b"\n\x1b[2A", 3),
    # a progress bar (bare \r redraws) in front of a coloured run
    b"".join(b"\rDownloading %d%%" % n for n in range(0, 101, 5)) + b"\n"
    + (TOOLS / "pytest-color-failures.txt").read_bytes(),
    # overstrikes (man's bold) and colour
    b"N\bNA\bAM\bME\bE\n" + (TOOLS / "pytest-color-failures.txt").read_bytes(),
    # coloured text of no kind: a long listing of one directory (ls -l is no kind; ls -lR is a listing)
    (TOOLS / "ls-l-color.txt").read_bytes(),
    # a coloured log redrawn by a cursor move: more than colour
    b"".join(b"\x1b[32mINFO\x1b[0m worker %d started\n\x1b[1A" % n for n in range(200)),
])
def test_terminal_output_that_is_more_than_colour_stays_terminal(data):
    shape = _describe(data)
    assert shape.content_type == "log" and shape.text.startswith(TERMINAL_SHAPE), shape.text
    assert COLOURED not in shape.text


_OSC8 = re.compile(rb"\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)")  # (the test's own rule for a hyperlink: rich's)
_LEVEL_RE = re.compile(r"([\d,]+) (FATAL|CRITICAL|ERROR|WARNING|WARN) \(first at line ([\d,]+)\)")


@pytest.mark.parametrize(("data", "levels"), [
    ((TOOLS / "rich-logging-color.txt").read_bytes(), {"ERROR": (3, 10), "WARNING": (5, 5)}),
    ((TOOLS / "grep-color-klog.txt").read_bytes(), {"ERROR": (5, 1)}),
    (b"".join(b"\x1b[32mINFO\x1b[0m worker %d started\n" % n for n in range(200)), {}),
])
def test_a_coloured_log_is_told_as_a_log(data, levels):
    """A coloured log (rich's RichHandler, grep --color over klog lines; helper kinds3) was 'terminal output, 60 lines,
    ..., 938 escape sequences': its levels uncounted. Now it is the log its text without colours and links is (the
    same lines), the words saying it is coloured first, content type log; each level's first line reads back."""
    plain = _OSC8.sub(b"", _SGR.sub(b"", data))
    assert b"\x1b" not in plain and plain.count(b"\n") == data.count(b"\n")
    shape, told = _describe(data), _describe(plain)
    assert told.content_type == "log" and told.text.startswith("log, "), told.text
    assert shape.content_type == "log" and shape.text == _said(data) + told.text, shape.text
    found = {name: (int(count), int(line)) for count, name, line in _LEVEL_RE.findall(shape.text)}
    assert found == levels
    lines = plain.decode().splitlines()
    assert all(name in lines[line - 1] or lines[line - 1].startswith(name[0]) for name, (_, line) in found.items())
    assert split_by_controls(shape.text)


def test_a_coloured_logs_stub_offers_its_text_view_without_colours_and_links(scope):
    """The stub of rich's coloured log names view="text", which reads its text: no escape, no hyperlink."""
    data = (TOOLS / "rich-logging-color.txt").read_bytes()
    stub = scope.spill(data, source_tool="sh")
    assert stub.content_type == "log" and stub.shape.startswith("coloured (") and 'view="text"' in stub.note
    page = ScratchTools(scope).call("read_handle", {"handle": stub.handle, "view": "text"})
    plain = _OSC8.sub(b"", _SGR.sub(b"", data)).decode()
    assert "\x1b" not in page["text"] and page["text"] == plain[: len(page["text"])] and len(page["text"]) > 2000


_ERASED = re.compile(rb"(?m)^[^\n]*\r\x1b\[[02]?K")  # (the test's own rule: a line up to its last erase is gone)


def test_a_coloured_run_whose_progress_bar_is_erased_is_told_as_its_kind():
    """A real cargo build with its progress bar (``Building [   ] 0/1: progdemo(bin)``, then ``\\r ESC[K`` before each
    message) was 'terminal output, 32 lines, ..., 162 escape sequences and 6 overwritten lines': its error and
    warnings lost. A bare carriage return that erases the line after it overwrites nothing the line keeps: the run is
    its kind, told from the text after each erase with colours removed, at the stored output's lines."""
    data = (TOOLS / "cargo-build-progress-color.txt").read_bytes()
    plain = _SGR.sub(b"", _ERASED.sub(b"", data))
    assert b"\r" not in plain and b"\x1b" not in plain and plain.count(b"\n") == data.count(b"\n")
    shape, told = _describe(data), _describe(plain)
    assert told.text.startswith("diagnostics, 32 lines: 1 error, 3 warnings"), told.text
    assert shape.content_type == "text" and shape.text == _said(data) + told.text, shape.text
    assert data.split(b"\n")[1].endswith(b"mismatched types\x1b[0m") and "(line 2)" in shape.text


def test_coloured_grep_output_is_said_to_be_grep_output_with_its_files(tmp_path):
    # grep --color=always (an agent's shell with grep aliased so, or run in a pty) stayed "terminal output" with no
    # word of grep: its path:line: lines were looked for in the bytes with the escapes, where none matches
    import subprocess

    for n in range(12):
        (tmp_path / f"m{n}.py").write_text("".join(f"def f{n}_{i}():\n    return {i}\n" for i in range(n % 4 + 1)))
    (tmp_path / "none.py").write_text("x = 1\n")
    command = ["grep", "-rn", "def ", "--include=*.py", "."]
    coloured = subprocess.run([*command[:1], "--color=always", *command[1:]], cwd=tmp_path, capture_output=True,
                              check=True).stdout
    plain = _SGR.sub(b"", coloured)
    assert plain != coloured
    files = {line.split(b":", 1)[0] for line in plain.splitlines()}
    shape = _describe(coloured)
    assert shape.text.startswith(TERMINAL_SHAPE), shape.text
    said = f", grep-style path:line: output ({len(files)} files in all; most lines: ./m3.py (line 3, 4 lines), "
    assert said in shape.text, shape.text
    assert said in _describe(plain).text
