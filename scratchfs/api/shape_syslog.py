"""What a log's shape adds for syslog's lines and dpkg's log, for :mod:`scratchfs.api.shape`: what a model asks of
them, counted where their format writes it -- which programs wrote the lines, how many of each priority, what dpkg
did to packages -- so that "which service logged most", "what failed" or "what was removed" needs no search.

Syslog's lines are RFC 5424's (``<131>1 2026-12-08T02:35:54.196480+00:00 vm postgres 7376 - [...] msg``: priority,
version, timestamp, host, app-name, procid, msgid), RFC 3164's (``<131>Dec  8 02:35:52 vm postgres[7138]: msg``) as
``logger -n`` sends them, and the same without the priority as a syslog file (rsyslog's ``/var/log/syslog``) and
``journalctl``'s ``short`` and ``short-iso`` layouts write them (``Dec 05 02:00:07 host python3[4001]: msg``). A
priority is a facility times 8 plus a severity (RFC 5424 section 6.2.1); the severities ``emerg`` to ``warning`` are
counted each, with the line of their first, and those below together. dpkg's log (``/var/log/dpkg.log``) writes a
date, a time and an action a line (``2025-06-24 14:36:25 upgrade libsystemd0:amd64 252.36-1 252.38-1``: dpkg(1),
FILES); its package actions (``install``, ``upgrade``, ``remove``, ``purge``) are counted each, with their first
line, and the rest (``status``, ``configure``, ``trigproc``, ``startup``, ``conffile``) together. Either is told when
its lines are half of the sample's or more; each is looked for first in the first 4 KiB alone (one search).
"""

from __future__ import annotations

import re
from collections import Counter

from scratchfs.api.shape_log import Told
from scratchfs.foundation.text import plural

__all__ = ["syslog_told"]

_HEAD = 4096
_SYSLOG_RE = re.compile(
    rb"\n(?:<(\d{1,3})>1 \S{1,64} \S{1,255} (\S{1,48}) |(?:<(\d{1,3})>)?(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|"
    rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S{0,16}) \S{1,255} ([^\s\[:]{1,64})(?:\[\d{1,10}\])?: )")
"""A syslog line's start: RFC 5424's priority and app-name (groups 1, 2), else a timestamp, a host and a tag, with a
priority before it (RFC 3164's; group 3) or none (a syslog file's, journalctl's), and the tag (group 4)."""
_SEVERITIES = ("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug")  # (RFC 5424, table 2)
_SEVERE = 5  # (emerg to warning: each named; the rest together)
_ERRORS = 4  # (emerg to err: a stub's note reads the first)
_SHOWN_PROGRAMS = 5
_DPKG_RE = re.compile(rb"\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (install|upgrade|remove|purge|status|configure|trigproc|"
                      rb"startup|conffile) ")
_DPKG_ACTIONS = ("install", "upgrade", "remove", "purge")


def syslog_told(sample: bytes, told: Told) -> Told:
    """``told`` (a log's :func:`~scratchfs.api.shape_log.log_told` of ``sample``, its first bytes, whole lines) with
    what syslog's lines or dpkg's log add (the module's docstring): ``", 12 programs (most lines: postgres 503,
    nginx 420, ...); priorities: 49 crit (first at line 510), 503 err (first at line 1), 1,712 notice to debug"``,
    the first line of ``err`` or worse its first error when it comes before ``told``'s; ``", dpkg's log: 412 install
    (first at line 5), ..."``. ``told`` as it is for other logs. Never raises."""
    head = b"\n" + sample[: _HEAD - 1]  # (the gates' text: the sample copied and its lines counted only past them,
    syslog = _SYSLOG_RE.search(head) is not None  # 0.3 ms of a 512 KiB log that is neither)
    if not syslog and _DPKG_RE.search(head) is None:
        return told
    text = b"\n" + sample
    lines = sample.count(b"\n") + (not sample.endswith(b"\n"))
    said, first = _syslog(text, lines) if syslog else (_dpkg(text, lines), None)
    errors = [line for line in (told.first_error, first) if line is not None]
    return Told(told.said + said, min(errors, default=None))


def _syslog(text: bytes, lines: int) -> tuple[str, int | None]:
    """What syslog's lines of ``text`` (a newline, then the sample; ``lines`` of it) add, and the line of the first
    of priority ``err`` or worse (``None``: none)."""
    programs: Counter[bytes] = Counter()
    severities: Counter[int] = Counter()
    firsts: dict[int, int] = {}
    for found in _SYSLOG_RE.finditer(text):
        name = found.group(2) or found.group(4)
        if name != b"-":  # (RFC 5424's nil value)
            programs[name] += 1
        priority = found.group(1) or found.group(3)
        if priority is not None and int(priority) < 192:  # (a facility of 0 to 23)
            severity = int(priority) % 8
            severities[severity] += 1
            if severity < _SEVERE and severity not in firsts:
                firsts[severity] = text.count(b"\n", 0, found.start() + 1)
    if 2 * (programs.total() + (not programs and severities.total())) < lines:
        return "", None
    said = ""
    if programs:
        most = ", ".join(f"{name.decode('utf-8', 'replace')} {count:,}" for name, count in programs.most_common(
            _SHOWN_PROGRAMS))
        more = f", … {len(programs) - _SHOWN_PROGRAMS:,} more" if len(programs) > _SHOWN_PROGRAMS else ""
        said = f", {plural(len(programs), 'program')} (most lines: {most}{more})"
    if severities:
        named = [f"{severities[at]:,} {_SEVERITIES[at]} (first at line {firsts[at]:,})" for at in sorted(firsts)]
        rest = sum(severities[at] for at in range(_SEVERE, len(_SEVERITIES)))
        named += [f"{rest:,} notice to debug"] if rest else []
        said += f"; priorities: {', '.join(named)}"
    return said, min((line for at, line in firsts.items() if at < _ERRORS), default=None)


def _dpkg(text: bytes, lines: int) -> str:
    """What dpkg's log of ``text`` (a newline, then the sample; ``lines`` of it) adds: its package actions' counts,
    each with the line of its first, then its other lines'."""
    actions: Counter[bytes] = Counter()
    firsts: dict[bytes, int] = {}
    for found in _DPKG_RE.finditer(text):
        action = found.group(1)
        actions[action] += 1
        if action not in firsts and action.decode() in _DPKG_ACTIONS:
            firsts[action] = text.count(b"\n", 0, found.start() + 1)
    if 2 * actions.total() < lines:
        return ""
    named = [f"{actions[action.encode()]:,} {action}" + (
        f" (first at line {firsts[action.encode()]:,})" if action.encode() in firsts else "")
        for action in _DPKG_ACTIONS]
    rest = actions.total() - sum(actions[action.encode()] for action in _DPKG_ACTIONS)
    return f", dpkg's log: {', '.join(named)}; {plural(rest, 'other line')} (status, configure, trigproc, startup)"
