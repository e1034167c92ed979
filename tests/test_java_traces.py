"""Java's logs and stack traces in a shape: java.util.logging's two-line records (a date line, then ``SEVERE: ...``)
are log lines and ``SEVERE`` a severe level; a Java stack trace (``Throwable.printStackTrace``'s layout) is named
with its count, its line, its exception and the first one's root cause -- in a log and in text that is no log --
against the plain answer (the lines' enumeration) on real ``java`` runs (``fixtures/tools``, provenance in
``fixtures/README.md``) and Hypothesis texts (helper javalog1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.shape import describe
from scratchfs.api.shape_log import log_lines

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def shape_of(data: bytes):
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n")))


def traces(lines: list[str]) -> list[tuple[int, str, str]]:
    """``(line from 1, exception, root cause or "")`` of each Java stack trace in ``lines``, by plain enumeration: a
    line not indented, no ``Caused by:``, whose next line is a frame (``\\tat x(...)``); its root cause is the last
    ``Caused by:`` before the next trace."""
    found: list[list] = []
    for n, line in enumerate(lines[:-1]):
        if not re.match(r"\tat [^\s(]+\(", lines[n + 1]):
            continue
        if line.startswith("Caused by: "):
            if found:
                found[-1][2] = line.removeprefix("Caused by: ")
        elif line and line[0] not in " \t":
            found.append([n + 1, re.sub(r'^Exception in thread "[^"]*" ', "", line), ""])
    return [tuple(each) for each in found]


def said(found: list[tuple[int, str, str]]) -> str:
    line, raised, root = found[0]
    noun = "Java stack trace" if len(found) == 1 else "Java stack traces"
    return f"{len(found)} {noun} (first at line {line}: {raised}" + (f"; root cause: {root})" if root else ")")


def test_a_java_util_logging_log_with_stack_traces_is_a_log_naming_its_severe_records_and_traces():
    """A program logging by java.util.logging, whose failures log their traces (the sample of a new user's session):
    it was "text, 339 lines" -- the date lines and ``SEVERE:`` lines no log lines, ``SEVERE`` no level, the traces
    untold. Now a log whose shape counts the ``SEVERE`` records and names the traces, the first one's exception and
    its root cause (the last ``Caused by:``)."""
    data = (_TOOLS / "java-log-stacktraces.txt").read_bytes()
    lines = data.decode().splitlines()
    severe = [n for n, line in enumerate(lines, 1) if line.startswith("SEVERE: ")]
    found = traces(lines)
    assert len(severe) == 2 and len(found) == 3 and found[0][1].startswith("App$ConfigException: ")
    assert found[0][2] == 'java.lang.NumberFormatException: For input string: "x3"'
    shape = shape_of(data)
    assert shape.content_type == "log" and shape.text.startswith("log, 339 lines, "), shape
    assert f", 2 SEVERE (first at line {severe[0]})" in shape.text, shape
    short = said(found).replace("tenant 'acme'", "tenant 'ac…")  # (an exception's words past 60 characters cut)
    assert shape.text.endswith(f", {short}"), shape


def test_a_real_java_run_names_every_trace_caught_logged_or_uncaught():
    """A real run (``java Shop``): 3 SEVERE records with a cause, a WARNING whose exception holds a suppressed one
    (its frames indented twice), an uncaught exception in a thread and one in main (``Exception in thread "main"``)."""
    data = (_TOOLS / "java-jul-shop.txt").read_bytes()
    lines = data.decode().splitlines()
    found = traces(lines)
    assert len(found) == 6 and any(line.startswith('Exception in thread "main" ') for line in lines)
    shape = shape_of(data)
    assert shape.content_type == "log", shape
    severe = [n for n, line in enumerate(lines, 1) if line.startswith("SEVERE: ")]
    assert f", {len(severe)} SEVERE (first at line {severe[0]})" in shape.text, shape
    assert shape.text.endswith(f", {said(found)}"), shape


def test_spring_boot_console_lines_count_their_levels_and_traces():
    """Spring Boot's console pattern (``2026-...Z ERROR 28380 --- [exec-3] logger : msg``), each error's trace
    under it: a log, its ERROR lines counted, its traces named."""
    data = (_TOOLS / "spring-boot-console.txt").read_bytes()
    lines = data.decode().splitlines()
    errors = [n for n, line in enumerate(lines, 1) if " ERROR " in line]
    shape = shape_of(data)
    assert shape.content_type == "log" and f", {len(errors)} ERROR (first at line {errors[0]})" in shape.text, shape
    found = traces(lines)
    assert len(found) == 2 and f", {len(found)} Java stack traces (first at line {found[0][0]}: " in shape.text, shape


def test_java_util_logging_records_start_log_lines():
    """Both lines of a java.util.logging record (its default format: ``%1$tb %1$td, %1$tY %1$tl:%1$tM:%1$tS %1$Tp
    %2$s%n%4$s: %5$s%6$s%n``) start as a log's, at every level it writes."""
    head = b"".join(b"\nDec 06, 2026 %d:11:09 PM App main\n%s: message" % (hour, level) for hour, level in zip(
        (3, 11, 12), (b"SEVERE", b"FINE", b"FINEST"), strict=True))
    assert log_lines(head) == 6


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["out", "trace", "uncaught", "chained", "quoted"]), min_size=1, max_size=10))
def test_text_names_its_java_traces_against_the_plain_answer(parts):
    """Java stack traces in a text that is no log: counted, the first one's line, exception and root cause as the
    lines' enumeration finds them; a frame quoted in a sentence makes none, and a text with none says nothing of
    them."""
    chunks = {"out": "step {n} done\n",
              "trace": "com.x.BadThing: no {n}\n\tat com.x.Y.m(Y.java:{n})\n\tat com.x.Y.main(Y.java:3)\n",
              "uncaught": 'Exception in thread "main" java.lang.IllegalStateException: failed {n}\n'
                          "\tat App.main(App.java:{n})\n",
              "chained": "java.lang.RuntimeException: wrapped {n}\n\tat A.b(A.java:1)\n"
                         "Caused by: java.io.IOException: disk {n}\n\tat A.c(A.java:2)\n\t... 1 more\n"
                         "Caused by: java.lang.ArithmeticException: / by zero {n}\n\tat A.d(A.java:3)\n\t... 2 more\n",
              "quoted": "the log said \tat App.main(App.java:{n}) here\n"}
    text = "".join(chunks[part].format(n=n) for n, part in enumerate(parts)) + "the end of the output\n" * 3
    lines = text.splitlines()
    found = traces(lines)
    shape = shape_of(text.encode()).text
    if not found:
        assert "Java stack trace" not in shape, shape
        return
    assert shape.endswith(f", {said(found)}"), (shape, text)


def first_call(note: str) -> str:
    return note.split("Next: ", 1)[1].split(" | ", 1)[0]


def test_a_stubs_first_call_reads_the_first_exception_the_preview_does_not_show(tmp_path):
    """A program's 200 lines of output, then an uncaught exception's trace (text, no log): the note's first call
    reads the line the trace starts on -- where it named the bytes after the preview first -- and that read gives
    the exception's line."""
    out = "".join(f"processed batch {n}: 120 rows\n" for n in range(200))
    data = (out + 'Exception in thread "main" java.lang.IllegalStateException: batch 200 failed\n'
            "\tat App.run(App.java:41)\n\tat App.main(App.java:12)\n").encode()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="java App")
        assert stub.shape.endswith("1 Java stack trace (first at line 201: java.lang.IllegalStateException: batch 200 "
                                   "failed)"), stub.shape
        assert re.fullmatch(rf'read_handle\(handle="{stub.handle}", line=201(, lines=\d+)?\)', first_call(stub.note)), \
            stub.note
        read = scope.read_handle(stub.handle, line=201, lines=1).data
        assert read.startswith(b'Exception in thread "main" java.lang.IllegalStateException'), read


def test_a_logs_stub_reads_its_first_error_first_and_not_when_the_preview_shows_it(tmp_path):
    """A log whose first ERROR (a Spring Boot line, its trace under it) is on line 300: the note's first call reads
    it; one whose first is on line 2, in the preview, names the bytes after the preview first, as before; and a log
    whose only severe line is a WARN has no such call (a warning is no error)."""
    def boot(level: str, n: int) -> str:
        return f"2026-12-06T15:25:18.{n % 1000:03d}Z {level:>5} 28380 --- [           main] c.e.demo.App : step {n}\n"

    def log(levels: dict[int, str], trace: bool = True) -> str:
        lines = [boot(levels.get(n, "INFO"), n) for n in range(400)]
        lines[299] += "java.lang.RuntimeException: step failed\n\tat App.main(App.java:29)\n" if trace else ""
        return "".join(lines)

    late, early, warned = log({299: "ERROR"}), log({1: "ERROR", 299: "ERROR"}), log({299: "WARN"}, trace=False)
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(late.encode(), source_tool="app")
        assert ", 1 ERROR (first at line 300)" in stub.shape and stub.content_type == "log", stub.shape
        assert re.fullmatch(rf'read_handle\(handle="{stub.handle}", line=300(, lines=\d+)?\)', first_call(stub.note)), \
            stub.note
        assert b" ERROR " in scope.read_handle(stub.handle, line=300, lines=1).data
        for data in (early, warned):
            stub = scope.spill(data.encode(), source_tool="app")
            assert first_call(stub.note).startswith(f'read_handle(handle="{stub.handle}", offset='), stub.note


_TRACE = ["java.lang.IllegalStateException: boom", "\tat com.x.App.run(App.java:42)", "\tat com.x.App.main(App.java:9)",
          "Caused by: java.io.IOException: disk full", "\tat com.x.Io.read(Io.java:7)", "\t... 2 more"]
_PREFIXES = {  # a line's number -> its prefix, as each writes it
    "docker compose": lambda n: "api-1  | ",
    "kubectl logs --prefix": lambda n: "[pod/api-7f9c4/api] ",
    "containerd CRI": lambda n: f"2026-12-05T10:00:{n:02d}.{n * 7}Z stderr F ",  # (RFC 3339 nano: zeros cut)
    "a timestamp and a level": lambda n: f"2026-12-05 10:00:{n:02d},{n * 3:03d} ERROR ",
}


@pytest.mark.parametrize("name", list(_PREFIXES))
def test_a_java_trace_behind_a_line_prefix_is_named(name):
    """Every line of the trace behind the prefix its collector writes (docker compose, kubectl, containerd, a
    timestamp and level): the trace finder looked for a frame at a line's start only (``\\n\\tat ``), and the shape
    named none. Now the prefix is taken away (its digits any digits) and the trace named as without it."""
    written = ["starting", "listening on 8080", *_TRACE, "exit 1"]
    lines = [_PREFIXES[name](n) + line for n, line in enumerate(written, 1)]
    data = ("\n".join(lines) + "\n").encode()
    assert ("1 Java stack trace (first at line 3: java.lang.IllegalStateException: boom; root cause: "
            "java.io.IOException: disk full)") in shape_of(data).text


def test_a_frame_like_cell_is_no_prefixed_trace():
    """A tab-separated table whose second cells read ``at name(``: its first cells (``row7``) pass for a prefix, but the
    lines without it are all frames, no exception over them: no trace."""
    data = b"".join(b"row%d\tat x%d(y)\n" % (n, n) for n in range(50))
    assert "Java" not in shape_of(data).text
