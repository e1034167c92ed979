"""``strace`` output is told by its calls and their failures (helper modeltask11).

``strace -f python3 -c "import json, email.parser, urllib.request"`` wrote 10,260 lines (886 KiB), told ``text,
10,260 lines``: "which calls failed, and with what error" took a count of each error the model guessed, or pages of
all 1,402 failures. Its shape now counts the calls, the failed ones by error and the calls made most, and names the
search for one error's calls."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from scratchfs.api.contract import ScratchTools
from scratchfs.api.policy import Observation
from scratchfs.api.shape_strace import strace_shape

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def _calls(data: bytes) -> tuple[Counter, set]:
    """Each line's call (a name, then its arguments' parenthesis, after the process id) and the process ids, read
    line by line."""
    names, pids = Counter(), set()
    for line in data.decode().splitlines():
        pid, _, rest = line.partition("  ")
        pids.add(pid)
        name = rest.lstrip().split("(", 1)[0]
        if "(" in rest and name.isidentifier():
            names[name] += 1
    return names, pids


def test_a_trace_is_told_by_its_failures_and_calls(scratch_scope):
    data = (_TOOLS / "strace-f-python-imports.txt").read_bytes()
    names, pids = _calls(data)
    errors = Counter(re.findall(r"\) += -1 (E[A-Z]+) ", data.decode()))
    stub = json.loads(scratch_scope.offload(Observation(tool="bash", content=data.decode(),
                                                        result_class="workspace")).content)
    failed = ", ".join(f"{name} {n}" for name, n in errors.most_common(5))
    made = ", ".join(f"{name} {n}" for name, n in names.most_common(5))
    assert stub["shape"] == (f"strace output, 900 lines, {len(pids)} processes, {sum(names.values())} calls, "
                             f"{sum(errors.values())} failed: {failed}; most made: {made}, … {len(names) - 5} more; "
                             'match=" = -1 ERRNO", context="line" finds the calls that failed with one')
    assert len(pids) == 7 and errors["ENOENT"] == 104
    found = ScratchTools(scratch_scope).call("read_handle", {"handle": stub["handle"], "match": " = -1 ENOTTY",
                                                             "context": "line"})
    assert len(found["windows"]) == errors["ENOTTY"] and all("ENOTTY" in w["data"] for w in found["windows"])


def test_a_trace_without_failures_or_processes():
    trace = b'openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3\nclose(3)                    = 0\n' \
            b"read(3, <unfinished ...>\n<... read resumed>\"x\", 1) = 1\n+++ exited with 0 +++\n"
    assert strace_shape(trace, 5, True, "") == "strace output, 5 lines, 3 calls, 0 failed; most made: openat 1, " \
                                               "close 1, read 1"


def test_calls_in_source_code_are_no_trace():
    code = b"print(x)\nfoo(1) = 2\nbar(3)\n"
    assert strace_shape(code, 3, True, "") is None
    assert strace_shape(b'read(3, "x", 1) = 1\n' + b"some other text\n" * 3, 4, True, "") is None
