"""A log's shape counts its severe levels with the line each first appears on, and Python's tracebacks with the first
one's exception, against the plain answer (``re.findall`` and the lines' enumeration) on real ``logging`` output
made here and on Hypothesis logs; the line a stub names reads back as that line."""

from __future__ import annotations

import io
import logging
import re
import shutil
import subprocess
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.shape import describe
from scratchfs.api.shape_log import log_events

_LEVEL_RE = re.compile(r"(\d[\d,]*) (FATAL|CRITICAL|ERROR|WARNING|WARN) \(first at line ([\d,]+)\)")


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def told(shape: str) -> dict[str, tuple[int, int]]:
    return {name: (int(count.replace(",", "")), int(line.replace(",", "")))
            for count, name, line in _LEVEL_RE.findall(shape)}


def plain(lines: list[str]) -> dict[str, tuple[int, int]]:
    found = {}
    for name in ("FATAL", "CRITICAL", "ERROR", "WARNING", "WARN"):
        at = [n for n, line in enumerate(lines, 1) if re.search(rf"\b{name}\b", line)]
        if at:
            found[name] = (sum(len(re.findall(rf"\b{name}\b", line)) for line in lines), at[0])
    return found


def logged(jobs: int) -> bytes:
    stream = io.StringIO()
    log = logging.getLogger(f"test_log_shape.{jobs}")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("2026-12-05 00:00:00,000 %(levelname)s %(name)s: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    for n in range(jobs):
        if n % 97 == 13:
            try:
                {}[f"key_{n}"]
            except KeyError:
                log.exception("job %d failed", n)
        elif n % 31 == 7:
            log.warning("job %d slow", n)
        elif n % 501 == 400:
            log.critical("disk full at job %d", n)
        else:
            log.info("job %d done", n)
    log.removeHandler(handler)
    return stream.getvalue().encode()


def test_a_python_log_names_its_levels_and_tracebacks_at_their_first_lines():
    data = logged(3000)
    lines = data.decode().splitlines()
    shape = shape_of(data)
    assert shape.startswith("log, "), shape
    assert told(shape) == plain(lines)
    tracebacks = [n for n, line in enumerate(lines, 1) if line == "Traceback (most recent call last):"]
    assert len(tracebacks) == 31
    assert f"31 Python tracebacks (first at line {tracebacks[0]}: KeyError: 'key_13')" in shape


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["INFO", "DEBUG", "ERROR", "WARNING", "WARN", "FATAL", "CRITICAL"]),
                          st.sampled_from(["ok", "an ERROR in the message", "WARNINGS", "x-ERROR-y", "ERRORS"])),
                min_size=5, max_size=60))
def test_levels_are_counted_as_words_wherever_they_stand(entries):
    lines = [f"2026-12-05T00:00:{n % 60:02d}Z {level} svc: {message}" for n, (level, message) in enumerate(entries)]
    data = ("\n".join(lines) + "\n").encode()
    shape = shape_of(data)
    assert shape.startswith("log, "), shape
    assert told(shape) == plain(lines)


def test_a_logs_first_error_reads_back_from_the_line_its_stub_names(tmp_path):
    data = logged(2000)
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="app")
        line = told(stub.shape)["ERROR"][1]
        assert b" ERROR " in scope.read_handle(stub.handle, line=line, lines=1).data


def test_a_log_without_severe_levels_says_nothing_more():
    data = b"".join(b"2026-12-05 00:00:%02d INFO job %d done\n" % (n % 60, n) for n in range(500))
    assert re.fullmatch(r"log, 500 lines, longest \d+ bytes, 0% blank", shape_of(data))


_PREFIX = st.one_of(st.builds(lambda pid: f"Dec 05 01:31:00 host python3[{pid}]: ", st.integers(1, 99999)),
                    st.builds(lambda name: f"{name}-1  | ", st.from_regex(r"[a-z]{1,12}", fullmatch=True)),
                    st.just(""))


@settings(max_examples=100, deadline=None)
@given(_PREFIX, st.integers(0, 5))
def test_a_tracebacks_exception_is_read_past_the_prefix_each_line_carries(prefix, before):
    """journald (``Dec 05 01:31:00 host python3[4242]: ``) and docker compose (``web-1  | ``) write a prefix on each
    line of a program's output: the first traceback's exception was told as ``Dec 05 01:31:00 host python3[4242]:
    File "/tmp/rk/svc.py"…``, its first line not indented (helper realkinds; the prefixes here are made as those
    tools write them, the log a real one of Python's logging)."""
    data = logged(40)
    lines = data.decode().splitlines()
    raised = next(line for line in lines if line.startswith("KeyError"))
    prefixed = "".join(f"{prefix}info line {n}\n" for n in range(before)) + "".join(f"{prefix}{line}\n"
                                                                                   for line in lines)
    assert f"(first at line {before + lines.index('Traceback (most recent call last):') + 1}: {raised})" in \
        log_events(prefixed.encode()), log_events(prefixed.encode())


_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


@pytest.mark.parametrize("name", ["docker-compose-logs-by-hand.txt", "kubectl-logs-prefix-by-hand.txt",
                                  "journalctl-short-by-hand.txt"])
def test_a_log_behind_a_containers_or_journals_prefix_is_a_log(name):
    """docker compose's ``web-1     | 2026-12-05 ... INFO ...`` and kubectl logs --prefix's ``[pod/web-.../web] ...``
    were 'text, 80 lines, longest 83 bytes': their levels and tracebacks not counted (journalctl's short lines were
    a log already). Each line behind such a prefix is a log line, and the shape's levels and tracebacks are the plain
    count's (fixtures/tools, written in the layouts these tools print: no daemon runs here)."""
    data = (_TOOLS / name).read_bytes()
    lines = data.decode().splitlines()
    found = describe(data, len(data), len(lines))
    assert found.content_type == "log" and found.text.startswith("log, "), found.text
    assert told(found.text) == plain(lines) and told(found.text)["ERROR"][0] == 2
    first = next(n for n, line in enumerate(lines, 1) if line.endswith("Traceback (most recent call last):"))
    assert f"2 Python tracebacks (first at line {first}: KeyError: 'k7')" in found.text


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["web-1  | ", "worker_2 | ", "api-gateway-12     | ", "[pod/web-7d4b9c8f6-x2x9q/web] ",
                        "[pod/db-0/postgres] "]),
       st.lists(st.sampled_from(["INFO", "DEBUG", "ERROR", "WARNING", "CRITICAL"]), min_size=4, max_size=60),
       st.booleans())
def test_levels_behind_any_prefix_are_counted_as_without_it(prefix, levels, stamped):
    """Behind a compose service's or a kubectl pod's prefix, with or without a timestamp: the same levels, at the same
    lines, as the same log without the prefix."""
    lines = [("2026-12-05T00:00:00Z " if stamped else "") + f"{level} svc: job {n}" for n, level in enumerate(levels)]
    bare = ("\n".join(lines) + "\n").encode()
    behind = "".join(f"{prefix}{line}\n" for line in lines).encode()
    assert shape_of(behind).startswith("log, ")
    assert told(shape_of(behind)) == told(shape_of(bare)) == plain(lines)


def test_a_table_with_a_pipe_is_no_log_for_it():
    """A psql table whose second column holds timestamps: its rows are no log lines for their ``name | `` (a compose
    prefix is a service's name and its replica number)."""
    rows = "".join(f" user{n} | 2026-12-05 00:00:{n % 60:02d}+00 | INFO\n" for n in range(40))
    table = (" name   |       created_at       | level\n--------+------------------------+-------\n" + rows).encode()
    assert not shape_of(table).startswith("log, ")


def test_klogs_levels_are_counted_as_error_warning_and_fatal_lines():
    """kubectl's own klog lines (``E1205 05:33:56.724479    5782 memcache.go:265] ...``: a real run of ``kubectl get
    pods -v=6`` with no cluster) were 'text, 18 lines': no log, their 5 errors uncounted. Each ``E`` line is an
    ERROR, at the line of the first."""
    data = (_TOOLS / "kubectl-v6-klog.txt").read_bytes()
    lines = data.decode().splitlines()
    found = describe(data, len(data), len(lines))
    errors = [n for n, line in enumerate(lines, 1) if re.match(r"E\d{4} \d\d:\d\d:\d\d\.\d{6} ", line)]
    assert found.content_type == "log" and found.text.startswith("log, "), found.text
    assert told(found.text) == {"ERROR": (len(errors), errors[0])} and len(errors) == 5


def test_logfmt_lines_are_a_log():
    """The Docker CLI's logrus lines (``time="2026-12-05T05:34:12Z" level=debug msg="..."``, a real ``docker -D
    login``) between its plain lines were 'text': now a log, whose only severe words are its 3 ``WARNING!``."""
    data = (_TOOLS / "docker-debug-login-logfmt.txt").read_bytes()
    lines = data.decode().splitlines()
    found = describe(data, len(data), len(lines))
    assert found.content_type == "log" and found.text.startswith("log, "), found.text
    assert told(found.text) == plain(lines) == {"WARNING": (3, 1)}


_KLOG_LETTERS = {"E": "ERROR", "W": "WARNING", "F": "FATAL"}
_LOGFMT_NAMES = {"error": "ERROR", "err": "ERROR", "eror": "ERROR", "warning": "WARNING", "warn": "WARN",
                 "fatal": "FATAL", "panic": "FATAL", "crit": "CRITICAL", "critical": "CRITICAL"}


def written(lines: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """The plain answer for lines ``(kind, level)``: each klog letter and logfmt value under its name, with the
    upper-case words of ``plain`` (a message may hold one)."""
    found = plain([text for _, text in lines])
    for n, (level, _) in enumerate(lines, 1):
        name = _KLOG_LETTERS.get(level) or _LOGFMT_NAMES.get(level)
        if name:
            count, first = found.get(name, (0, n))
            found[name] = (count + 1, min(first, n))
    return found


_LINE = st.one_of(
    st.builds(lambda letter, n, msg: (letter, f"{letter}1205 05:33:{n % 60:02d}.{n:06d}    5782 main.go:{n}] {msg}"),
              st.sampled_from("IWEF"), st.integers(0, 999999), st.sampled_from(["ok", "an ERROR here", "Error x"])),
    st.builds(lambda stamp, key, value, quote, msg: (value, f"{stamp}{key}={quote}{value}{quote} msg=\"{msg}\""),
              st.sampled_from(["", 'time="2026-12-05T05:34:12Z" ', "ts=2026-12-05T05:34:12.1Z caller=a.go:1 "]),
              st.sampled_from(["level", "lvl"]), st.sampled_from([*sorted(_LOGFMT_NAMES), "info", "debug", "dbug"]),
              st.sampled_from(["", '"']), st.sampled_from(["done", "WARN soon", "level=error is a word here"])),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINE, min_size=4, max_size=60))
def test_klog_and_logfmt_levels_are_counted_as_the_plain_answer(lines):
    """klog's letters and logfmt's lower-case ``level=`` values are counted under the level names, at the line of
    their first, with the upper-case words a message holds (``level=error`` in a quoted message counts as it
    stands)."""
    data = ("\n".join(text for _, text in lines) + "\n").encode()
    shape = shape_of(data)
    assert shape.startswith("log, "), shape
    expected = written(lines)
    for n, (_, text) in enumerate(lines, 1):  # (a quoted level=error in a message is a logfmt value to both)
        for value in re.findall(r'(?<![\w.])level=("?)(error|err|eror|warning|warn|fatal|panic|crit|critical)\1'
                                r'(?![\w."])', text.split(" msg=", 1)[1] if " msg=" in text else ""):
            name = _LOGFMT_NAMES[value[1]]
            count, first = expected.get(name, (0, n))
            expected[name] = (count + 1, min(first, n))
    assert told(shape) == expected


def test_logfmt_levels_of_512_kib_are_counted_without_a_tuple_a_match():
    """512 KiB of logfmt lines of 3 severe values each (``tests/test_text_kinds_cost.py``'s case, 29 ms in a CI run
    against a 25 ms bound) are counted from one ``findall`` a key whose matches are the key and the value, no group:
    a tuple of two values a match made its peak 3.6 times the sample and its count 5 times plain text's CPU; now
    under 2.5 times (one short bytes a match), with the counts right."""
    data = (b'lvl="eror" level=warn t=2026-12-05T00:00 level=fatal\n' * 10_000)[: 512 * 1024]
    lines = data.count(b"\n")
    log_events(data)  # (the patterns compiled and cached before measuring)
    tracemalloc.start()
    try:
        said = log_events(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert said == (f", {lines:,} FATAL (first at line 1), {lines + 1:,} ERROR (first at line 1), "
                    f"{lines:,} WARN (first at line 1)")
    assert peak < 2.5 * len(data), peak / len(data)


def test_a_scripts_output_ending_in_a_traceback_names_it_and_what_was_raised():
    """A script that printed 40 lines and died of a ``RecursionError`` (a real run, ``fixtures/tools``): its output is
    no log, and its shape said only "text, 490 lines"; it names the traceback, the line it starts at and the
    exception (its last line, 450 lines further), as a log's shape does (helper newuser15)."""
    data = (_TOOLS / "python-traceback-after-output.txt").read_bytes()
    lines = data.decode().splitlines()
    start = lines.index("Traceback (most recent call last):") + 1
    raised = lines[-1]
    assert start == 41 and raised.startswith("RecursionError: ")
    shape = shape_of(data)
    assert shape.startswith("text, 490 lines, ") and f", 1 Python traceback (first at line {start}: RecursionError: " \
        f"maximum recursion depth exceeded" in shape, shape


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["out", "tb", "quoted"]), min_size=1, max_size=12))
def test_text_counts_the_tracebacks_that_start_a_line_and_names_the_first_ones_exception(parts):
    """Tracebacks in a text that is no log: each ``Traceback`` line that starts a line is one, its exception the
    first line after it not indented; one quoted in a sentence is none (plain Python counts them)."""
    chunks = {"out": "progress {n}: done\n",
              "tb": 'Traceback (most recent call last):\n  File "x.py", line {n}, in f\n    g()\nValueError: bad {n}\n',
              "quoted": "a run printed Traceback (most recent call last): here, {n}\n"}
    text = "".join(chunks[part].format(n=n) for n, part in enumerate(parts)) + "the end of the output\n" * 3
    data = text.encode()
    lines = text.splitlines()
    starts = [n for n, line in enumerate(lines, 1) if line == "Traceback (most recent call last):"]
    shape = shape_of(data)
    if not starts:
        assert "Python traceback" not in shape, shape
        return
    noun = "Python traceback" if len(starts) == 1 else "Python tracebacks"
    assert f", {len(starts)} {noun} (first at line {starts[0]}: {lines[starts[0] + 2]})" in shape, (shape, text)


def test_a_failing_setup_py_under_pip_names_its_indented_traceback():
    """``pip install`` of a package whose ``setup.py`` raises (a real run, ``fixtures/tools``) prints the build's
    output indented by six spaces, its traceback among it: the shape said only "text, 188 lines" and the note offered
    ``line=18`` and ``line=-50``; the traceback indented as a whole is one, its exception read past the indentation,
    and the note reads its line first (helper devout1)."""
    data = (_TOOLS / "pip-install-setup-traceback.txt").read_bytes()
    lines = data.decode().splitlines()
    start = lines.index("      Traceback (most recent call last):") + 1
    assert start == 160 and lines[177] == "      RuntimeError: gcc failed with exit status 1"
    found = describe(data, len(data), len(lines))
    assert found.text == ("text, 188 lines, longest 162 bytes, 1% blank, 1 Python traceback (first at line 160: "
                          "RuntimeError: gcc failed with exit status 1)"), found.text
    assert found.first_error == start


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["out", "indented", "doctest", "quoted"]), min_size=1, max_size=12))
def test_text_counts_tracebacks_indented_as_a_whole_and_no_doctests(parts):
    """A traceback indented as a whole (pip's build output), a frame's ``File`` line under its ``Traceback`` line, is
    one, wherever it stands (the first line too); a doctest's (``...`` under it) and one quoted in a sentence are
    none."""
    chunks = {"out": "progress {n}: done\n",
              "indented": '      Traceback (most recent call last):\n        File "x.py", line {n}, in f\n'
                          '          g()\n      ValueError: bad {n}\n',
              "doctest": "    >>> f({n})\n    Traceback (most recent call last):\n    ...\n    ValueError: doc {n}\n",
              "quoted": "a run printed Traceback (most recent call last): here, {n}\n"}
    text = "".join(chunks[part].format(n=n) for n, part in enumerate(parts)) + "the end of the output\n" * 3
    lines = text.splitlines()
    starts = [n for n, line in enumerate(lines, 1) if line == "      Traceback (most recent call last):"]
    shape = shape_of(text.encode())
    if not starts:
        assert "Python traceback" not in shape, shape
        return
    noun = "Python traceback" if len(starts) == 1 else "Python tracebacks"
    assert f", {len(starts)} {noun} (first at line {starts[0]}: {lines[starts[0] + 2].strip()})" in shape, (shape, text)


_NODE_SCRIPT = """for (let i = 0; i < 300; i++) console.log(`processed record ${i} ok`);
function inner(x) { if (x > 3) throw new TypeError(`bad value ${x}`); return inner(x + 1); }
try { inner(0); } catch (e) { throw new Error("wrapper failed", { cause: e }); }
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_node_scripts_uncaught_error_is_named_with_its_cause_and_line(tmp_path):
    """A Node.js script that printed 300 lines and died of an uncaught ``Error`` with a ``cause`` (run here): its
    shape said only "text, 325 lines", and the note offered ``line=41`` and ``line=-50``; V8's stack trace (the error's
    line over ``    at f (file:line:col)`` frames) is named with its cause, and the note reads its line first
    (helper devout1)."""
    (tmp_path / "t.js").write_text(_NODE_SCRIPT)
    run = subprocess.run(["node", str(tmp_path / "t.js")], capture_output=True, text=True, timeout=60)
    data = (run.stdout + run.stderr).encode()
    lines = data.decode().splitlines()
    start = lines.index("Error: wrapper failed") + 1
    assert lines[start].startswith("    at ") and start > 300
    found = describe(data, len(data), len(lines))
    assert found.text.endswith(f", 1 JavaScript stack trace (first at line {start}: Error: wrapper failed; cause: "
                               "TypeError: bad value 4)"), found.text
    assert found.first_error == start


def test_lines_indented_under_a_line_that_name_no_place_are_no_javascript_trace():
    prose = b"We met\n    at the station, at noon\n" * 30 + b"Error: x\n    at the end of the day\n"
    assert "JavaScript" not in shape_of(prose)
    two = b"Error: a\n    at f (/app/a.js:1:2)\nok\nTypeError: b\n    at /app/b.js:3:4\n    at g (x.js:1:1)\n"
    assert shape_of(two).endswith(", 2 JavaScript stack traces (first at line 1: Error: a)"), shape_of(two)


@pytest.mark.parametrize("name", ["dmesg.txt", "dmesg-t-boot.txt"])
def test_the_kernels_ring_buffer_is_a_log(name):
    """``dmesg`` opens each line with the seconds since boot in brackets (``[    0.255769] Memory: ...``, as
    ``journalctl -k -o short-monotonic`` does), ``dmesg -T`` with the date (``[Mon Dec  7 10:21:49 2026] ...``): both
    were 'text, 347 lines', told apart from no other text; each is a log (fixtures/tools, real output made here)."""
    data = (_TOOLS / name).read_bytes()
    lines = data.count(b"\n")
    found = describe(data, len(data), lines)
    assert found.content_type == "log" and found.text.startswith(f"log, {lines} lines"), found.text


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 999_999)), min_size=3, max_size=40),
       st.sampled_from(["", "host kernel: "]))
def test_any_seconds_since_boot_in_brackets_start_a_log_line(stamps, host):
    """The seconds are right-aligned in at least 5 places before the point, 6 after it, whatever their size."""
    lines = [f"[{whole:5d}.{micro:06d}] {host}usb 1-1: new device {n}" for n, (whole, micro) in enumerate(stamps)]
    assert shape_of(("\n".join(lines) + "\n").encode()).startswith("log, ")


def test_brackets_of_numbers_that_are_no_kernel_time_make_no_log():
    """A numbered list (``[1] ...``) or a version in brackets is no timestamp: the text stays text."""
    data = b"".join(b"[%d] see section %d.%d\n" % (n, n, n) for n in range(40))
    assert shape_of(data).startswith("text, ")
