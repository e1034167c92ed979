"""The web API's downloads: a live entry's whole content streamed a frame at a time as an attachment, with its file
name (``Content-Disposition``, RFC 6266 and RFC 8187), closed as soon as the response ends, and cut short -- never
wrong bytes -- when a frame turns out damaged after the first byte went out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from scratchfs.foundation import checks
from scratchfs.foundation.errors import ScratchError, StoreBusy
from scratchfs.foundation.text import one_line
from scratchfs.web.endpoint import app_store, error_response, internal_error, path_params, query_params
from scratchfs.web.security import TRANSPORT_KEY, CutShort

log = logging.getLogger("scratchfs.web.api")  # (the logger these lines always had: hosts filter on it)


def content_endpoint(kind: str) -> Callable[[Request], Response]:
    """The download of a live entry's whole content (``kind`` ``"handle"``: ``.../handles/{handle}/content``;
    ``"scratch"``: ``.../scratchpad/content?key=``): every byte, streamed a frame at a time
    (:meth:`~scratchfs.api.scope.Scope.iter_content`), as ``application/octet-stream`` with a
    ``Content-Disposition: attachment`` file name (the handle, or the key with every character outside
    ``[A-Za-z0-9._-]`` as ``_``, and the extension of its content type). An error found before the first byte is the
    JSON error of :func:`~scratchfs.web.endpoint.endpoint`; one met later (a damaged frame) is logged in one line and
    the response cut short, so a client sees an incomplete transfer, never wrong bytes."""

    def handler(request: Request) -> Response:
        slots: DownloadSlots = request.app.state.downloads
        taken = False
        try:
            params = path_params(request)
            if kind == "handle":
                key = params.pop("handle")
                query_params(request, ())
            else:
                key = checks.check_key(query_params(request, ("key",), required=("key",), tool="scratch_read")["key"])
            taken = slots.take()
            entry, chunks = app_store(request).scope(params["run"], params["agent"]).open_content(kind, key)
            response = _ClosingStream(chunks, request.url.path, slots.give_back, media_type="application/octet-stream",
                                      headers={"Content-Disposition": attachment(key, entry.content_type)},
                                      stall=getattr(request.app.state, "stall_seconds", STALL_SECONDS))
        except ScratchError as exc:
            response = error_response(exc, request)
        except Exception:  # a bug: logged, and a JSON 500 without details
            response = internal_error(request)
        if taken and not isinstance(response, _ClosingStream):
            slots.give_back()
        return response

    handler.__name__ = f"{kind}_content"
    return handler


def attachment(key: str, content_type: str | None) -> str:
    """The ``Content-Disposition`` value of a download named ``key`` (at most 100 characters of it) with the extension
    of ``content_type``: ``attachment; filename="..."`` with every character outside ``[A-Za-z0-9._-]`` as ``_``, and
    where that changed a letter of another script, also ``filename*=UTF-8''...`` (RFC 6266 section 4.3, RFC 8187's
    percent-encoding), which browsers prefer: the key's own letters, with a path separator or control character
    still ``_``."""
    extension = _EXTENSIONS.get(content_type or "", ".bin")
    ascii_name = re.sub(r"[^A-Za-z0-9._-]", "_", key[:100]) + extension
    own = re.sub(r"[\x00-\x1f\x7f-\x9f/\\]", "_", key[:100]) + extension
    if own.isascii() or not own.isprintable():
        return f'attachment; filename="{ascii_name}"'
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{urllib.parse.quote(own, safe='')}"


_EXTENSIONS = {"json": ".json", "jsonl": ".jsonl", "csv": ".csv", "tsv": ".tsv", "html": ".html", "xml": ".xml",
               "text": ".txt", "log": ".log"}
"""The file name extension of a download, by the entry's content type (any other: ``.bin``)."""


MAX_DOWNLOADS = 16
"""Most downloads one server streams at once. Each holds its blob open and up to about 6 MiB of frames read and
decompressed ahead (:meth:`~scratchfs.api.scope.Scope.iter_content`) while its client reads: 256 clients that asked
for a download and never read it held 1.4 GiB."""


STALL_SECONDS = 30.0
"""Seconds a write of a download may wait for a client that takes nothing of what was sent (:func:`watched_send`)
before the download is cut short, its connection closed, and its slot, its blob and its frames read ahead come back:
the app's own deadline, under any ASGI server (a client that asked for 16 downloads and read none held every slot
for as long as it stayed connected). Read by :func:`~scratchfs.web.app.create_app`."""


async def watched_send(send: Any, message: Any, stall: float, transport: Any, path: str) -> None:
    """``await send(message)``, unless it waits ``stall`` seconds with its client taking nothing of what was sent:
    then the send is cancelled, the connection ``transport`` aborted, one line logged, and :class:`CutShort` raised
    (the download ends there). The server's ``send`` waits while the connection's buffer is full; a client reading
    slowly keeps it waiting for tens of seconds (the kernel takes from the buffer a third of its send queue at a
    time: a write waited 30 s under a client reading 40 KB/s), so each period is judged by :func:`unsent` of
    ``transport`` (the server's asyncio transport, None when the server's is unknown: then by the wait alone)."""
    task = asyncio.ensure_future(send(message))
    try:
        before = unsent(transport) if transport is not None else None
        while True:
            done, _ = await asyncio.wait({task}, timeout=stall)
            if done:
                return task.result()
            now = unsent(transport) if transport is not None else None
            if now is None or before is None or now >= before:
                break
            before = now
    finally:
        if not task.done():
            task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    if transport is not None:
        transport.abort()  # (the connection's descriptor and buffer too, not only the download's slot)
    log.warning("web API %s: the download was cut short: its client took nothing for %g s", path, stall)
    raise CutShort(f"its client took nothing for {stall:g} s")


def unsent(transport: Any) -> int:
    """Bytes written to ``transport`` (an asyncio socket transport) that its client has not taken yet: those in its
    buffer, and on Linux those in the socket's send queue, not sent or not acknowledged (``SIOCOUTQ``; the kernel
    takes up to megabytes from the buffer on loopback, a third of its queue at a time, so the buffer alone sat still
    for tens of seconds under a client reading 40 KB/s). Elsewhere the buffer's alone."""
    import fcntl
    import struct
    import termios

    left = transport.get_write_buffer_size()
    sock = transport.get_extra_info("socket")
    with contextlib.suppress(OSError, AttributeError, ValueError):
        left += struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
    return left


class DownloadSlots:
    """The downloads being streamed, at most ``most`` at once (:data:`MAX_DOWNLOADS`); thread-safe."""

    def __init__(self, most: int = MAX_DOWNLOADS) -> None:
        self.most, self.used = most, 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Take a slot; returns True. Raises StoreBusy (a 503 with ``Retry-After``) when all are taken."""
        with self._lock:
            if self.used >= self.most:
                raise StoreBusy(f"{self.most} downloads are being served already, the most at once: retry in a few "
                                "seconds, once one ends")
            self.used += 1
        return True

    def give_back(self) -> None:
        """Give a slot back (once per :meth:`take`)."""
        with self._lock:
            self.used -= 1


class _ClosingStream(StreamingResponse):
    """A download's response, whose frame iterator (holding the blob open) is closed as soon as the response ends
    -- sent whole, cut short by a damaged frame, left by its client, or never iterated (``HEAD``) -- not whenever
    the garbage collector finds it. A ``HEAD`` gets the headers alone: Starlette's streaming response iterates the
    whole body for it too (every frame decompressed, for a body the server then drops)."""

    def __init__(self, chunks: Iterator[bytes], path: str, done: Callable[[], None], stall: float = STALL_SECONDS,
                 **kwargs: Any) -> None:
        self._close = getattr(chunks, "close", None)  # (Scope.iter_content's generator)
        self._done = done  # (its download slot given back)
        self._path, self._stall = path, stall
        super().__init__(_cut_on_error(chunks, path), **kwargs)

    def _stall_guarded(self, scope: Any, send: Any) -> Any:
        """``send``, each write of the body watched by :func:`watched_send` (``stall`` seconds; ``math.inf``: not)."""
        if not math.isfinite(self._stall):
            return send
        transport = scope.get(TRANSPORT_KEY)

        async def guarded(message: Any) -> None:
            await watched_send(send, message, self._stall, transport, self._path)

        return guarded

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            if scope.get("method") == "HEAD":  # the headers only: no frame is decompressed for a body never sent
                await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            await super().__call__(scope, receive, self._stall_guarded(scope, send))
        finally:
            try:
                if self._close is not None:
                    with contextlib.suppress(ValueError):  # ("generator already executing": a worker thread's next()
                        self._close()                     # is waited for on cancellation, so never expected)
            finally:
                self._done()


def _cut_on_error(chunks: Iterator[bytes], path: str) -> Iterator[bytes]:
    try:
        yield from chunks
    except ScratchError as exc:
        log.warning("web API %s: the download was cut short: %s", path, one_line(str(exc)))
        raise CutShort(str(exc)) from None


__all__ = ["MAX_DOWNLOADS", "STALL_SECONDS", "DownloadSlots", "attachment", "content_endpoint", "unsent",
           "watched_send"]
