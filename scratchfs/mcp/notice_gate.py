"""Which of the upstream's notifications ``scratchfs mcp-proxy`` drops before the SDK reads them: a flood of them
delayed the answers behind it past ``--timeout``.

Each line the SDK reads costs its parser (a pydantic union of every JSON-RPC message) and, the larger part, its
session's dispatch: 200,000 notifications before an answer delayed it by 10.6 s (log messages) to 12.1 s (progress)
through the proxy, at a load of 1.1 on 2 cores (``python bench/proxy_flood.py``; 28 s and 45 s at a load of 7 to 8);
0.7 and 0.9 s with the gate. :class:`NoticeGate` reads a short line that names one of
the two methods with Python's parser instead and drops it before both. ``python bench/notice_gate_cost.py`` measures
the parsers alone and the read stream without the session (12:48 UTC 2026-12-05, load 4.3: a log line 6.6 us through
:func:`~scratchfs.mcp.upstream_stdio.parse_line`, 2.8 us through :meth:`NoticeGate.drops`, 0.5 us added to an answer
line; 200,000 log lines then an answer 5.1 s, 1.2 s with the gate). It drops

* every log notification (``notifications/message``): the proxy passes them on to no one (its session has no
  logging callback, its client is not told), so nothing is lost;
* a progress notification (``notifications/progress``) of a request that had one passed on less than
  :data:`PROGRESS_INTERVAL` seconds ago -- MCP asks both sides to rate-limit progress --, unless it is the last
  (``progress`` reaching ``total``): at most 20 a second of each request's reach the client, and the drop is said
  once on stderr (200,000 of the call's own token before its answer: 31 passed on, the answer after 1.9 s at load
  1.3; ``python bench/proxy_flood.py 200000 --kind sent-progress``).

* a list-changed notification (``notifications/tools/list_changed``, ``prompts/``, ``resources/``) that comes less
  than :data:`LIST_INTERVAL` seconds after the last of its kind passed on: the gate keeps it *pending* and
  :meth:`NoticeGate.due` gives it back once that time has passed (the upstream's reader sends it then), so that the
  client hears of the last change, once. The proxy passes each on to its client, which lists again: 20,000 of them
  before an answer delayed it by 12.9 s, and the client got 20,000 notifications (hostile7, load 5; ``python
  bench/proxy_flood.py 20000 --kind list``).

* a progress notification for a token the proxy never sent (:meth:`NoticeGate.asked` is told each request it sends
  upstream), and a notification of a method no server sends (none of the SDK's ``ServerNotification``, a custom
  ``x/...``): the SDK reads both only to drop them, each at the cost above (20,000 before an answer: 2.7 s and 1.2 s
  at load 5, hostile7; ``--kind progress`` and ``--kind custom`` of that bench).

* an answer (``{"jsonrpc": "2.0", "id": ID, "result"`` or ``"error"``, as servers write one) to no request the
  proxy sent, or to one answered already (:meth:`NoticeGate.asked` keeps the ids of the last :data:`MAX_SENT`
  requests not answered): the SDK read each only to drop it (20,000 before an answer delayed it 2.1 s; hostile7;
  ``--kind answer``).

* a request of the upstream's (``ping``, which the SDK answers; ``sampling/createMessage``, ``roots/list``,
  ``elicitation/create``, which the proxy's session refuses) less than :data:`REQUEST_INTERVAL` seconds after the last
  one left to the SDK, which reads, dispatches and answers each: 100,000 pings before a call's answer delayed it by
  43.7 s (hostile18, load 5.7); such a request gets no answer (said once on stderr).

Every other line (a request within that rate, an answer, a notification the SDK acts on, a line over
:data:`MAX_LINE_BYTES`, one whose ``"method"`` key is written with an escape) is left to the SDK, as every line was.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("scratchfs.mcp.proxy")

LOG_METHOD = "notifications/message"
PROGRESS_METHOD = "notifications/progress"
MAX_LINE_BYTES = 65536
"""Longest line the gate reads (a longer one is read by the SDK's parser)."""
PROGRESS_INTERVAL = 0.05
"""Seconds between two progress notifications of one request passed on (at most 20 a second)."""
LIST_CHANGED = tuple(f"notifications/{kind}/list_changed" for kind in ("tools", "prompts", "resources"))
"""The list-changed notifications the gate thins (each kind on its own)."""
LIST_INTERVAL = 0.5
"""Seconds between two list-changed notifications of one kind passed on (the later ones meanwhile: one, after)."""
REQUEST_INTERVAL = 0.05
"""Seconds between two requests of the upstream left to the SDK (at most 20 a second; the others are dropped)."""
MAX_TOKENS = 1024
"""Most progress tokens remembered at once (then forgotten all together: a request's next one passes)."""
_METHOD = b'"method"'
ANSWER_HEAD = re.compile(r'\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,30}|"[^"\\]{0,200}")\s*,'
                         r'\s*"(?:result|error)"')
"""The start of an answer as JSON-RPC servers write it: its id, read even when the rest is unreadable (also
:data:`scratchfs.mcp.upstream_stdio.ANSWER_HEAD`, which reads a line the SDK's parser refused)."""
_ANSWER = re.compile(ANSWER_HEAD.pattern.encode())  # (the same, of bytes: the gate reads lines undecoded)
MAX_SENT = 4096
"""Most ids of requests sent upstream and not answered remembered at once (the oldest forgotten first)."""


@functools.cache
def server_notifications() -> frozenset[str]:
    """The methods of the notifications the SDK's client session reads (``mcp_types.ServerNotification``)."""
    import typing

    import mcp_types as types

    return frozenset(typing.get_args(kind.model_fields["method"].annotation)[0]
                     for kind in typing.get_args(types.ServerNotification))


def _key(token: str | int) -> Any:
    """``token`` as the SDK matches it to its request (``"7"`` is ``7``)."""
    from mcp.shared.dispatcher import coerce_request_id

    return coerce_request_id(token)


class NoticeGate:
    """The gate of one upstream connection: :meth:`drops` says whether a line of the upstream is dropped unread.

    ``clock``: seconds, monotonic (``time.monotonic``; a test gives its own).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, interval: float = PROGRESS_INTERVAL) -> None:
        self._clock, self._interval = clock, interval
        self._passed: dict[Any, float] = {}  # progress token -> when its last notification was passed on
        self._listed: dict[str, float] = {}  # list-changed method -> when its last notification was passed on
        self._pending: set[str] = set()  # list-changed methods dropped since (given back by due)
        self._asked: dict[Any, None] = {}  # the progress tokens of the requests sent upstream, oldest first
        self._sent: dict[Any, None] = {}  # the ids of the requests sent upstream not answered yet, oldest first
        self._requested: float | None = None  # when the last request of the upstream was left to the SDK
        self.dropped_progress = self.dropped_requests = 0

    def drops(self, line: bytes) -> bool:
        """Whether ``line`` (one line of the upstream, without its newline) is dropped (see the module docstring).
        Never raises."""
        if (head := _ANSWER.match(line)) is not None:
            return self._unsent(json.loads(head[1]))
        if len(line) > MAX_LINE_BYTES or _METHOD not in line:
            return False
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return False
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return False
        method, params = message.get("method"), message.get("params")
        if not isinstance(method, str):
            return False
        if "id" in message:  # a request of the upstream's (ping, sampling, roots, elicitation)
            return self._request_too_soon()
        if method in LIST_CHANGED:
            return self._held(method)
        if method == PROGRESS_METHOD:
            return self._unasked(params) or self._too_soon(params)
        return method == LOG_METHOD or method not in server_notifications()

    def asked(self, message: Any) -> None:
        """Note the id of ``message`` (a JSON-RPC message the proxy sends upstream) when it is a request, and its
        progress token (its ``params._meta``), the last :data:`MAX_SENT` and :data:`MAX_TOKENS` kept."""
        rid = getattr(message, "id", None)
        if getattr(message, "method", None) is not None and isinstance(rid, (str, int)) and not isinstance(rid, bool):
            self._sent[_key(rid)] = None
            if len(self._sent) > MAX_SENT:
                del self._sent[next(iter(self._sent))]
        params = getattr(message, "params", None)
        meta = params.get("_meta") if isinstance(params, dict) else None
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        if isinstance(token, (str, int)) and not isinstance(token, bool):
            self._asked[_key(token)] = None
            if len(self._asked) > MAX_TOKENS:
                del self._asked[next(iter(self._asked))]

    def _unsent(self, rid: int | str) -> bool:
        """Whether an answer of id ``rid`` answers no request sent and not answered (it is then forgotten)."""
        try:
            self._sent.pop(_key(rid))
        except (KeyError, ValueError):
            return True
        return False

    def _unasked(self, params: Any) -> bool:
        token = params.get("progressToken") if isinstance(params, dict) else None
        return isinstance(token, (str, int)) and not isinstance(token, bool) and _key(token) not in self._asked

    def _held(self, method: str) -> bool:
        """Whether a list-changed notification of ``method`` is kept pending (one passed on too recently)."""
        now, last = self._clock(), self._listed.get(method)
        if last is not None and now - last < LIST_INTERVAL:
            self._pending.add(method)
            return True
        self._listed[method] = now
        self._pending.discard(method)
        return False

    def wait(self) -> float:
        """Seconds until the first pending list-changed notification is due (:meth:`due`); ``math.inf`` when none
        is pending."""
        now = self._clock()
        return min((max(0.0, self._listed[method] + LIST_INTERVAL - now) for method in self._pending),
                   default=math.inf)

    def due(self) -> list[bytes]:
        """The lines of the pending list-changed notifications whose time has come (each counted passed on now)."""
        now = self._clock()
        ready = sorted(method for method in self._pending if now - self._listed[method] >= LIST_INTERVAL)
        for method in ready:
            self._pending.discard(method)
            self._listed[method] = now
        return [json.dumps({"jsonrpc": "2.0", "method": method}).encode() for method in ready]

    def _request_too_soon(self) -> bool:
        """Whether a request of the upstream comes less than :data:`REQUEST_INTERVAL` after the last one left to
        the SDK (then it is dropped, said once)."""
        now = self._clock()
        if self._requested is not None and now - self._requested < REQUEST_INTERVAL:
            if not self.dropped_requests:
                log.warning("scratchfs mcp-proxy: the upstream sends requests faster than %g a second; the proxy "
                            "answers at most that many and drops the others unanswered (said once)",
                            1 / REQUEST_INTERVAL)
            self.dropped_requests += 1
            return True
        self._requested = now
        return False

    def _too_soon(self, params: Any) -> bool:
        """Whether a progress notification with ``params`` comes too soon after its request's last one passed."""
        if not isinstance(params, dict):
            return False
        token, progress, total = params.get("progressToken"), params.get("progress"), params.get("total")
        if not isinstance(token, (str, int)) or (
                isinstance(total, (int, float)) and isinstance(progress, (int, float)) and progress >= total):
            return False  # (not a token the SDK reads, or the last one: passed on)
        now, last = self._clock(), self._passed.get(token)
        if last is not None and now - last < self._interval:
            if not self.dropped_progress:
                log.warning("scratchfs mcp-proxy: the upstream sends progress notifications faster than %g a second "
                            "for a request; the proxy passes on at most that many of each request's (and its last) "
                            "and drops the others (said once)", 1 / self._interval)
            self.dropped_progress += 1
            return True
        if len(self._passed) >= MAX_TOKENS:
            self._passed.clear()
        self._passed[token] = now
        return False


__all__ = ["ANSWER_HEAD", "LIST_CHANGED", "LIST_INTERVAL", "LOG_METHOD", "MAX_LINE_BYTES", "MAX_SENT", "MAX_TOKENS",
           "PROGRESS_INTERVAL", "PROGRESS_METHOD", "REQUEST_INTERVAL", "NoticeGate", "server_notifications"]
