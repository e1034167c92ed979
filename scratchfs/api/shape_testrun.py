"""The shape of a test run's output (pytest, unittest, ``cargo test``, TAP producers such as ``node --test``), for
:mod:`scratchfs.api.shape`: its result line, its sections and its failures, each with the line it starts at, so
that a model goes to one failure's traceback with one line read (``line=N``) instead of paging through the passes.
Such text stays content type ``text``; its shape starts with :data:`TEST_RUN_SHAPE`.

The formats, as their tools write them:

- **pytest** (https://docs.pytest.org/en/stable/how-to/output.html): sections under bars of ``=`` (``FAILURES``,
  ``ERRORS``, ``warnings summary``, ``short test summary info``), each failure under a bar of ``_`` with its name (one
  character a side around a title that fills the line: ``= 3 failed, ... 2 errors in 0.10s =``), and
  the result in the last bar of ``=`` (``9 failed, 292 passed in 0.23s``) or, with ``-q``, on the last line alone;
  bars of ``!`` tell an interrupted run. ``--collect-only``: ``639 tests collected in 3.27s`` for a result, and with
  ``-q`` a test's node id a line (``tests/test_cli.py::test_x[a]``), each file's first one a section.
- **unittest** (Python's ``unittest.TextTestRunner``): each failure and error after a line of ``=`` as ``FAIL: name``
  or ``ERROR: name``; the result ``Ran N tests in Xs`` and ``OK`` or ``FAILED (failures=N, errors=M)``.
- **cargo test** (the Rust test harness, libtest): ``Running`` and ``Doc-tests`` lines per test binary, each
  failure's output under ``---- name stdout ----`` (with ``--nocapture``, where it ran: its ``thread 'name'
  panicked at`` line), the result of each binary as ``test result: FAILED. 1 passed;
  2 failed; 1 ignored; ...``.
- **TAP** (the Test Anything Protocol, https://testanything.org/tap-version-14-specification.html): ``ok N`` and
  ``not ok N - description`` lines, subtests indented; a ``not ok`` with a ``# TODO`` directive is no failure;
  ``node --test``'s totals as ``# tests N``, ``# pass N``, ``# fail N`` comments.

Told only on a runner's own mark in the content's first lines -- pytest's ``test session starts`` banner or its
progress line, a TAP version, plan or test line, unittest's ``... ok`` lines or dots line (at the start, however long,
or after Django's test runner's preamble), cargo's status lines (any verb right-aligned to column 12: ``Dirty``
with ``-v``) or the build's ``warning:`` blocks (``cargo test
-q``) then ``running N tests`` -- and only with a result, a failure or a section found. A result is told whole (up to
160 characters: pytest's of every outcome runs past 60). On text that is none of them the
marks cost a few matches at its start and short scans of its first 2 KiB (``python bench/text_kinds.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from scratchfs.api.shape_parts import Parts, cargo_status, numbered
from scratchfs.api.shape_words import listed_within, plural, short_name
from scratchfs.foundation.text import bitmap_classes

__all__ = ["TEST_RUN_SHAPE", "failure_reasons", "runner_shape"]

TEST_RUN_SHAPE = "test run"
"""How the shape of a test run's output starts."""

_FIRST_BYTES = 2048
_MARK_BYTES = 512  # where a runner's first line is looked for (after a preamble: Django's test runner writes three)
_HEAD_BYTES = 64 * 1024  # where cargo's "running N tests" is looked for, after its build's lines
_NAME_CHARS = 60
_RESULT_CHARS = 160  # a result is told whole: pytest's of every outcome ("2 failed, 5 passed, 1 skipped, 1 xfailed, 1
# warning, 1 error in 0.08s") or unittest's "FAILED (failures=1, errors=1, skipped=1)" run past 60 characters
_SECTION_CHARS = 200  # the most a shape gives its sections, before its failures

_PYTEST_PROGRESS_RE = re.compile(rb"[.FEsxXR]+ +\[ *\d{1,3}%\]\r?\n")
_PYTEST_BANNER_RE = re.compile(rb"(?:\A|\n)={3,} test session starts ={3,}")
_LONG_TITLE = rb"(?=[^\r\n]{66})"  # a bar of one or two characters a side holds a title this long or longer: pytest
# fills its line (80 characters piped) around a title with at least one on each side
_PYTEST_BAR_RE = re.compile(rb"\n(=|!)(?:[=!]{2,} |[=!]? %s)([^\n]*?) [=!]+\r?(?=\n|\Z)" % _LONG_TITLE)
_PYTEST_SUMMARY_RE = re.compile(rb"\n(?:FAILED|ERROR) ([^\r\n]*?)(?: - [^\r\n]*)?\r?(?=\n|\Z)")
_PYTEST_ERROR_RE = re.compile(rb"\nERROR ")  # (a line of the short summary that names an error, not a failure)
_PYTEST_FAILURE_RE = re.compile(rb"\n(?:_{3,} |_{1,2} %s)([^\n]*?) _+\r?(?=\n|\Z)" % _LONG_TITLE)
_COLLECTED = rb"\d+(?:/\d+)? tests? collected(?: \(\d+ deselected\))?(?:, \d+ errors?)? in \d[\d.]*s\b"
# (--collect-only's result: "639 tests collected in 3.27s", with -k "3/639 tests collected (636 deselected) in 0.5s")
_PYTEST_RESULT_RE = re.compile(rb"(?:\d+ [a-z]+(?:, )?)+ in \d[\d.]*s\b[^\n]*|no tests ran\b[^\n]*|%s[^\n]*"
                               % _COLLECTED)
_PYTEST_LAST_RE = re.compile(rb"\n((?:(?:\d+ [a-z]+, )*\d+ [a-z]+ in \d[\d.]*s|%s)\b[^\r\n]*)\r?\n?\Z" % _COLLECTED)
_NODE_ID_RE = re.compile(bitmap_classes(rb"[^\s:]+\.py::[^\s]"))  # a test's node id, as --collect-only -q lists one
_UNITTEST_START_RE = re.compile(rb"[.FEsxu]+\r?\n(?:={20,}|-{20,})\r?\n")
_UNITTEST_AFTER_RE = re.compile(rb"\n[.FEsxu]+\r?\n(?:={20,}|-{20,})\r?\n")  # (its dots line after a preamble)
_PREAMBLE_RE = re.compile(rb"Found \d+ test|Creating test database|Using existing test database|System check identified"
                          rb"|Testing against Django")  # (how Django's test runner starts, before unittest's dots)
_UNITTEST_LINE_RE = re.compile(rb"\) \.\.\. (?:ok|FAIL|ERROR|skipped|expected failure|unexpected success)")
_UNITTEST_FAILURE_RE = re.compile(rb"\n={20,}\r?\n((?:FAIL|ERROR|UNEXPECTED SUCCESS): [^\r\n]*)")
_UNITTEST_RESULT_RE = re.compile(rb"\nRan (\d+ tests?) in (\d[\d.]*s)\r?\n\r?\n(OK|FAILED)([^\r\n]*)")
_CARGO_START_RE = re.compile(rb" {0,16}(?:Compiling|Finished|Running|running \d|Blocking|Updating|Locking|Downloading|"
                             rb"Downloaded|Checking|Fresh|Doc-tests)\b|(?:warning|error)(?:\[\w{1,64}\])?: ")
# (``cargo test -q`` hides the build's progress lines: a build's warnings, then the tests' "running N tests")
_CARGO_RUNNING_RE = re.compile(rb"\nrunning \d+ tests?\r?\n")
_CARGO_BINARY_RE = re.compile(rb"\n *((?:Running|Doc-tests) [^\r\n(]*)")
_CARGO_FAILURE_RE = re.compile(rb"\n---- ([^\r\n]*?) std(?:out|err) ----")
_CARGO_PANIC_RE = re.compile(rb"\nthread '([^'\r\n]{1,300})'(?: \(\d+\))? panicked at ")
_CARGO_RESULT_RE = re.compile(rb"\ntest result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored")
_GO_PACKAGE = rb"(?! +\t)"  # (go test's "ok  \tpkg\t0.01s" is no TAP test line: fmt's "ok  \t%s\t%s")
_TAP_START_RE = re.compile(rb"(?:TAP version \d+|1\.\.\d+|(?:not )?ok\b" + _GO_PACKAGE + rb")")
_TAP_FAILURE_RE = re.compile(rb"\n *not ok\b[ \d]*(?:- )?([^\r\n]*)")
_TAP_TOTAL_RE = re.compile(rb"\n# (tests|pass|fail|cancelled|skipped|todo) (\d+)\r?(?=\n|\Z)")
_TAP_TOP_RE = re.compile(rb"\n(not )?ok\b" + _GO_PACKAGE)
_TAP_TODO_RE = re.compile(rb"#\s*todo\b", re.IGNORECASE)

_Found = tuple[tuple[str, int] | None, Parts | list[tuple[int, bytes]], Parts | list[tuple[int, bytes]]]
"""A run's ``(result and its offset, or None; sections; failures)``, each part ``(offset, raw name)``; an offset is that
of the newline before its line, in the text that starts with a newline."""


def _runner(sample: bytes) -> str | None:
    """Which runner wrote ``sample``, from its mark at its start or in its first :data:`_MARK_BYTES`, else ``None``.
    Each mark is matched where it must stand, not scanned for: a scan of the sample for a literal of several bytes
    costs more than all of this on text that is none of them (``python bench/text_kinds.py`` gives the kinds' cost
    on 4 and 16 KiB slices)."""
    first = sample[:_FIRST_BYTES]
    if _TAP_START_RE.match(first) and (first.startswith((b"TAP", b"1..")) or b"\nok " in first
                                       or b"\nnot ok " in first or b"\n1.." in first):
        return "TAP"
    if _PYTEST_PROGRESS_RE.match(first):
        return "pytest"
    if _NODE_ID_RE.match(first):  # (--collect-only -q: node ids, the count at the end)
        return "pytest --collect-only"
    if _UNITTEST_START_RE.match(sample):  # (not ``first``: a suite of thousands writes one dots line past 2 KiB)
        return "unittest"
    if _CARGO_START_RE.match(first) or cargo_status(first):
        return "cargo test" if _CARGO_RUNNING_RE.search(sample, 0, _HEAD_BYTES) else None
    lines = first[:_MARK_BYTES]
    if b" test session starts " in lines and _PYTEST_BANNER_RE.search(lines):
        return "pytest"
    if b" ... " in lines and _UNITTEST_LINE_RE.search(lines):
        return "unittest"
    return "unittest" if _PREAMBLE_RE.match(lines) and _dots_after_preamble(sample, lines) else None


def _dots_after_preamble(sample: bytes, lines: bytes) -> bool:
    """Whether unittest's dots line, then its bar, starts one of the lines that start in ``lines`` (a runner's
    preamble before it: Django's ``Found 4 test(s).``, ``Creating test database ...``): a match at each newline."""
    at = lines.find(b"\n")
    while at >= 0:
        if _UNITTEST_AFTER_RE.match(sample, at):
            return True
        at = lines.find(b"\n", at + 1)
    return False


def _name(raw: bytes, chars: int = _NAME_CHARS) -> str:
    return short_name(raw.strip().decode("utf-8", "replace"), chars)


def _pytest_result(text: bytes) -> tuple[tuple[str, int] | None, bool]:
    """``((pytest's result, its offset) or None, whether a bar starts its last line that starts with "=")``: the
    result in the last bar of ``=``, else (``-q``) on the last line."""
    last = text.rfind(b"\n=")
    bar = _PYTEST_BAR_RE.match(text, last) if last >= 0 else None  # (the result is the last bar of "=")
    if bar is not None and bar[1] == b"=" and _PYTEST_RESULT_RE.fullmatch(bar[2].strip()):
        return (_name(bar[2], _RESULT_CHARS), bar.start()), True
    if (found := _PYTEST_LAST_RE.search(text, max(0, len(text) - 1024))) is not None:  # (-q: the last line)
        return (_name(found[1], _RESULT_CHARS), found.start()), bar is not None
    return None, bar is not None


def _pytest(text: bytes) -> _Found:
    result, barred = _pytest_result(text)  # (a bar: the sections end at the result)
    sections = Parts(_PYTEST_BAR_RE, text, 2, end=result[1] if barred and result else None,
                     keep=lambda title: title.strip() != b"test session starts")
    bars, summary = Parts(_PYTEST_FAILURE_RE, text), text.rfind(b" short test summary info ")
    listed = Parts(_PYTEST_SUMMARY_RE, text, start=summary) if summary >= 0 else []  # (--tb=line, --tb=no: no bar
    return result, sections, listed if len(listed) > len(bars) else bars  # for a failure, its summary line)


def _collected(text: bytes, cut: bool = False) -> _Found:
    """``pytest --collect-only -q``: its count (the last line) and, as its sections, the first test of each file;
    ``cut``: ``text`` is the first part of the content only, whose count stands past it (a suite of 10,776 tests
    writes 1.1 MB of node ids: its first 512 KiB were told plain text, no file named), told by its files alone."""
    result = _pytest_result(text)[0]  # (not _pytest: its sections and failures are none here)
    if result is None and not cut:  # (node ids with no count at the end: no collection of pytest's told)
        return None, [], []
    files, at, last = [], 0, b""
    while at >= 0:
        path = text[at + 1 : text.find(b"::", at + 1, at + 4097)]
        if path and path != last and _NODE_ID_RE.match(text, at + 1):
            files.append((at, path))
            last = path
        at = text.find(b"\n", at + 1)
    return result, files, []


def _unittest(text: bytes) -> _Found:
    result = None
    for found in _UNITTEST_RESULT_RE.finditer(text):
        result = (_name(b"Ran %s in %s: %s%s" % (found[1], found[2], found[3], found[4]), _RESULT_CHARS), found.start())
    return result, [], Parts(_UNITTEST_FAILURE_RE, text, at_group=True)


def _cargo(text: bytes) -> _Found:
    sections, failures = Parts(_CARGO_BINARY_RE, text), Parts(_CARGO_FAILURE_RE, text)
    if not failures and b" panicked at " in text:  # (--nocapture: each failure's output where it ran, no "----")
        failures = Parts(_CARGO_PANIC_RE, text)
    results = _CARGO_RESULT_RE.findall(text)
    if not results:
        return None, sections, failures
    passed, failed, ignored = (sum(int(found[i]) for found in results) for i in (1, 2, 3))
    verdict = "FAILED" if any(found[0] == b"FAILED" for found in results) else "ok"
    of = f" in {len(results):,} test results" if len(results) > 1 else ""
    last = text.rfind(b"\ntest result: ")
    return (f"{verdict}, {passed:,} passed, {failed:,} failed, {ignored:,} ignored{of}", last), sections, failures


def _tap(text: bytes) -> _Found:
    todo = (lambda name: b"#" not in name or not _TAP_TODO_RE.search(name)) if b"#" in text else None
    failures = Parts(_TAP_FAILURE_RE, text, keep=todo)
    totals = list(_TAP_TOTAL_RE.finditer(text, max(0, len(text) - 4096)))  # (node's, at the end)
    if totals:
        words = {found[1].decode(): int(found[2]) for found in totals}
        told = ", ".join(f"{words[word]:,} {word}" for word in ("tests", "pass", "fail", "cancelled", "skipped",
                                                                 "todo") if words.get(word))
        return (told or "0 tests", totals[0].start()), [], failures
    tops = _TAP_TOP_RE.findall(text)
    if not tops:
        return None, [], failures
    last = max(text.rfind(b"\nok"), text.rfind(b"\nnot ok"))
    while last > 0 and not _TAP_TOP_RE.match(text, last):  # ("\nokay" is no test line)
        last = max(text.rfind(b"\nok", 0, last), text.rfind(b"\nnot ok", 0, last))
    failed = tops.count(b"not ")
    return (f"{len(tops) - failed:,} ok, {failed:,} not ok", last), [], failures


_PARSERS: dict[str, Callable[[bytes], _Found]] = {"pytest": _pytest, "unittest": _unittest, "cargo test": _cargo,
                                                  "TAP": _tap, "pytest --collect-only": _collected}


def runner_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is a test run's output, else ``None``:
    ``"test run (pytest), 427 lines: 9 failed, 292 passed in 0.23s (line 427); FAILURES (line 311), short test summary
    info (line 417); 9 failures: test_many[5] (line 312), …; line=N reads from one"``.
    ``size`` (the content's bytes) is unused: the other kinds take it. Never raises."""
    runner = _runner(sample)
    if runner is None:
        return None
    if not complete:
        sample = sample[: sample.rfind(b"\n") + 1]  # whole lines only
    text = b"\n" + sample
    result, sections, failures = _PARSERS[runner](text)
    if runner == "pytest --collect-only" and result is None and not complete:  # (its count past the sample)
        result, sections, failures = _collected(text, cut=True)
    if result is None and not sections and not failures:
        return None
    return _text(runner, text, (result, sections, failures), lines, scope)


def _text(runner: str, text: bytes, found: _Found, lines: int, scope: str) -> str:
    """The shape's text: the result, the sections that fit in :data:`_SECTION_CHARS`, then the failures that fit."""
    result, sections, failures = found
    head = f"{TEST_RUN_SHAPE} ({runner}), {plural(lines, 'line')}{scope}"
    if result is not None:
        at = text.count(b"\n", 0, result[1] + 1)
        head += f": {result[0]} (line {at:,})"
    else:
        head += f", no result line{' in the sample' if scope else ''}"
    listed, room = [], _SECTION_CHARS
    for line, raw in numbered(text, sections):
        name = _name(raw)
        room -= len(name) + len(f" (line {line:,}), ")
        if room < 0:
            what = "files" if runner.endswith("--collect-only") else "sections"
            listed.append(f"… {len(sections) - len(listed):,} more {what}")
            break
        listed.append(f"{name} (line {line:,})")
    head += f"; {', '.join(listed)}" if listed else ""
    if not failures:
        return listed_within(head, [], "; line=N reads from one" if listed else "")
    items = (f"{_name(raw)} (line {line:,})" for line, raw in numbered(text, failures))
    return listed_within(f"{head}; {_failures_word(runner, text, failures)}: ", items, "; line=N reads from one",
                         len(failures))


def _failures_word(runner: str, text: bytes, failures: Parts | list[tuple[int, bytes]]) -> str:
    """``"9 failures"``, ``"40 errors"`` or ``"3 failures and 2 errors"``: pytest's and unittest's errors (a test's
    setup or teardown raised, a module failed to import: ``ERROR at setup of x``, ``ERROR: x``, a summary's ``ERROR
    x``) told apart from its failures, as its result line tells them."""
    errors = 0
    if isinstance(failures, Parts) and runner in ("pytest", "unittest"):
        if failures.pattern is _PYTEST_SUMMARY_RE:
            errors = len(Parts(_PYTEST_ERROR_RE, text, 0, start=failures.start))
        else:
            errors = len(Parts(failures.pattern, text, keep=_an_error))
    failed = len(failures) - errors
    if not errors:
        return plural(failed, "failure")
    return plural(errors, "error") if not failed else f"{plural(failed, 'failure')} and {plural(errors, 'error')}"


def _an_error(name: bytes) -> bool:
    return name.startswith(b"ERROR")


_PYTEST_SHAPE = f"{TEST_RUN_SHAPE} (pytest)"
_REASON_LINE = b"\nE  "  # (pytest writes a failure's reason and its assertion's explanation on lines "E" and spaces
# start, under its traceback: "E       assert (3 % 7) != 3", "E        +  where ...")


def failure_reasons(content_type: str | None, shape: str | None, head: bytes) -> bool:
    """Whether a content of ``content_type`` and ``shape`` (its stored shape) is pytest's output whose ``head`` (its
    first bytes) holds the ``E`` lines that give its failures' reasons -- a search of ``^E `` finds them all in one
    call (not a read of each failure's traceback); coloured output's stand behind escape sequences and ``--tb=line``
    writes none. Never raises."""
    return content_type == "text" and bool(shape) and shape.startswith(_PYTEST_SHAPE) and _REASON_LINE in head
