"""Syslog's lines and dpkg's log were told with no programs, priorities nor actions: RFC 3164 lines with their
``<PRI>`` (as ``logger -n`` sends them) were plain text, RFC 5424's were read as grep output (``<131>1 2026-12-08T02``
a file, ``35`` a line number), a syslog file's counted the word ERROR alone, and ``/var/log/dpkg.log`` was "log, 5,880
lines" -- "which program logged most" or "how many crit" took a count search a program, each guessed, or a priority
(15 calls, 3.7 KB). Their shape now counts what their format writes (helper modeltask14)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from scratchfs.api.shape import describe

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
NAMES = ("emerg", "alert", "crit", "err", "warning")


def shape_of(name: str):
    data = (TOOLS / name).read_bytes()
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n")))


def expected(lines: list[str], program: int, pri: bool) -> str:
    """What the shape says of syslog lines, counted here by splitting each at its spaces: the ``program``-th word
    (its ``[pid]`` and ``:`` taken off), and the ``<PRI>``'s severity (``pri``)."""
    programs = Counter(line.split()[program].split("[")[0].rstrip(":") for line in lines)
    most = ", ".join(f"{name} {count}" for name, count in programs.most_common(5))
    said = f", {len(programs)} programs (most lines: {most}, … {len(programs) - 5} more)"
    if not pri:
        return said
    severities = [int(line[1 : line.index(">")]) % 8 for line in lines]
    named = [f"{severities.count(at)} {NAMES[at]} (first at line {severities.index(at) + 1})" for at in range(5)
             if at in severities]
    return f"{said}; priorities: {', '.join(named)}, {sum(at >= 5 for at in severities)} notice to debug"


@pytest.mark.parametrize(("name", "program", "pri"), [("logger-rfc3164.txt", 4, True), ("logger-rfc5424.txt", 3, True),
                                                      ("syslog-file-by-hand.txt", 4, False)])
def test_syslog_lines_are_told_with_their_programs_and_priorities(name, program, pri):
    lines = (TOOLS / name).read_text().splitlines()
    shape = shape_of(name)
    assert shape.content_type == "log" and shape.text.startswith(f"log, {len(lines)} lines, "), shape.text
    assert shape.text.endswith(expected(lines, program, pri)), shape.text
    assert "grep" not in shape.text, shape.text
    severities = [int(line[1 : line.index(">")]) % 8 for line in lines] if pri else []
    first_error = min((at + 1 for at, severity in enumerate(severities) if severity <= 3), default=None)
    words = min((at + 1 for at, line in enumerate(lines) if "ERROR" in line), default=None)
    assert shape.first_error == min(line for line in (first_error, words) if line is not None)


def test_journalctl_s_short_layout_names_its_programs():
    shape = shape_of("journalctl-short-by-hand.txt")
    assert ", 1 program (most lines: python3 80)" in shape.text, shape.text


def test_dpkg_s_log_is_told_with_its_package_actions():
    lines = (TOOLS / "dpkg-log-head.txt").read_text().splitlines()
    actions = [line.split()[2] for line in lines]
    told = [f"{actions.count(action)} {action}" + (f" (first at line {actions.index(action) + 1})" if action in
                                                    actions else "") for action in ("install", "upgrade", "remove",
                                                                                    "purge")]
    rest = sum(action not in ("install", "upgrade", "remove", "purge") for action in actions)
    shape = shape_of("dpkg-log-head.txt")
    assert shape.text == f"log, {len(lines)} lines, longest 87 bytes, 0% blank, dpkg's log: {', '.join(told)}; " \
        f"{rest} other lines (status, configure, trigproc, startup)", shape.text


def test_other_logs_get_no_programs():
    for name in ("java-jul-shop.txt", "kubectl-v6-klog.txt", "dmesg.txt"):
        said = shape_of(name).text
        assert "program" not in said and "priorities" not in said and "dpkg" not in said, (name, said)
