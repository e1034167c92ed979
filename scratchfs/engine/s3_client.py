"""The boto3 client of the S3 blob store, every request bounded as a whole, and its failures told in one line.

**Bounds.** A request's attempts -- at most :data:`ATTEMPTS`, each with connect and read timeouts of a third of the
store's ``timeout`` (its ``busy_timeout``) -- and the waits between them all fit in that ``timeout``: an attempt is
not started unless its timeouts end within it (a deadline set when the request is made; botocore's own retry
decides which failures are retried). So a server that accepts connections and never answers fails a request within
about ``timeout`` seconds (plus the second botocore waits for a ``100 Continue`` before a body it uploads), not
``ATTEMPTS`` times it plus backoff (before: 4 attempts of ``timeout`` each). A store that answers with an error it
asks to retry (``503 SlowDown``) gets its ``ATTEMPTS`` without the deadline: each answer came within an attempt's
timeouts. A server that answers a byte at a time passes every read timeout: each connection also has a wall-clock
deadline, the request's bound plus one attempt's timeout (a hung server's own timeout ends first) plus its payload
at 1 MiB/s, past which its socket is shut down, the read of its
response body included, and the error says :data:`SLOW_REPLY` (:mod:`scratchfs.engine.s3_deadlines`).

**Circuit breaker.** A request that found the store out of reach (no answer within the bound, no connection) makes
every request of the same client fail at once, with the same one-line error, for :data:`DOWN_SECONDS`; then one
request tries again (the others still fail at once while it is under way): a hung store costs one bound a second,
not one per call -- and opening a store (which reads its marker and then checks the bucket) costs one, not one and a
half. Any answer from the store closes the breaker. As :mod:`scratchfs.engine.postgres_pool` does for PostgreSQL.

**Messages.** :func:`storage_error` turns a botocore failure into one :class:`StorageError` line that names what
failed and what to do: the endpoint that cannot be reached or did not answer (and ``AWS_ENDPOINT_URL`` when it is
unset, or as the setting to check), a missing bucket, refused or missing credentials. A store out of reach for now (not
reached, no answer, or slowing down) marks the error ``unavailable = True``.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from scratchfs.engine.s3_deadlines import Watchdog, bound_connections, cut_short, set_deadline
from scratchfs.foundation.errors import StorageError

__all__ = ["ATTEMPTS", "DOWN_SECONDS", "SKEW_IGNORED", "SLOW_REPLY", "NoAnswer", "StoreDown", "attempt_timeout",
           "client_errors", "clock_skew", "error_code", "make_client", "storage_error"]

ATTEMPTS = 3
"""Most attempts of one S3 request (the first and two retries), all within the store's ``timeout``."""

DOWN_SECONDS = 1.0
"""Seconds after a request found the store out of reach during which every request fails at once."""

SLOW_REPLY = "a reply too slow to finish"
"""What a request cut at its connection's deadline (:mod:`scratchfs.engine.s3_deadlines`) failed of."""

_DEADLINE = "scratchfs_deadline"
_LAST = "scratchfs_last_failure"
_AWAY_CODES = {"SlowDown", "ServiceUnavailable", "503", "RequestTimeout"}
_ENDPOINT_VARS = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")


def attempt_timeout(timeout: float) -> float:
    """The connect and read timeouts of one attempt (seconds): a third of ``timeout``, at least 1 (a real store's
    answer may take longer than less; a ``timeout`` of 1 then allows one attempt)."""
    return max(timeout / ATTEMPTS, 1.0)


def make_client(timeout: float, data_loader: Any = None) -> Any:
    """A boto3 S3 client from the AWS environment whose every request, retries included, ends within about
    ``timeout`` seconds (see the module docstring). ``data_loader``: botocore's, to share between clients.

    Raises:
        StorageError: boto3 is not installed.
    """
    try:
        import boto3
        import botocore.session
        from botocore.config import Config
    except ImportError:
        raise StorageError("the S3 blob store needs boto3: pip install 'scratchfs[s3]' (from a clone: "
                           "pip install -e '.[s3]')") from None
    custom_endpoint = any(os.environ.get(name) for name in _ENDPOINT_VARS)
    each = attempt_timeout(timeout)
    config = Config(
        connect_timeout=each, read_timeout=each,
        retries={"total_max_attempts": ATTEMPTS, "mode": "standard"}, max_pool_connections=32,
        s3={"addressing_style": "path" if custom_endpoint else "auto"},
        region_name=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or None,
    )
    session = botocore.session.get_session()  # credentials and endpoint: the environment, now
    if data_loader is not None:
        session.register_component("data_loader", data_loader(session))
    client = boto3.session.Session(botocore_session=session).client("s3", config=config)

    def start(context: dict, **_: Any) -> None:
        now = time.monotonic()
        context[_DEADLINE] = now + max(timeout, each)
        set_deadline(context[_DEADLINE] + each, now)  # (its connection's too: :mod:`scratchfs.engine.s3_deadlines`)

    def failed(request_dict: dict, caught_exception: BaseException | None = None, response: Any = None,
               **_: Any) -> None:
        if caught_exception is not None:  # (what it was, and whether the store answered)
            slow = cut_short() is not None  # (its connection cut at its deadline: s3_deadlines)
            request_dict["context"][_LAST] = (SLOW_REPLY if slow else type(caught_exception).__name__, False)
        elif response is not None:
            request_dict["context"][_LAST] = (f"HTTP {response[0].status_code}", True)

    def before_send(request: Any, **_: Any) -> None:
        deadline = request.context.get(_DEADLINE)
        last, answered = request.context.get(_LAST, ("", False))
        now = time.monotonic()
        if deadline is not None and not answered and now + each > deadline + 0.05:  # (not retried: it fails)
            raise NoAnswer(timeout, last or "no answer", now - (deadline - max(timeout, each)))

    bound_connections(client, Watchdog())
    breaker = _Breaker(timeout)
    client.meta.events.register("before-call.s3", breaker.before)
    client.meta.events.register("before-call.s3", start)
    client.meta.events.register("after-call.s3", breaker.answered)
    client.meta.events.register("after-call-error.s3", breaker.failed)
    client.meta.events.register_first("needs-retry.s3", failed)
    client.meta.events.register_first("before-send.s3", before_send)
    return client


class _Breaker:
    """One client's circuit breaker (see the module docstring): open for :data:`DOWN_SECONDS` after a request found
    the store out of reach; then one request at a time tries."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.lock = threading.Lock()
        self.until = 0.0
        self.cause: BaseException | None = None

    def before(self, **_: Any) -> None:
        with self.lock:
            if self.cause is None:
                return
            now = time.monotonic()
            if now < self.until:
                raise StoreDown(self.cause)
            self.until = now + self.timeout + 1.0  # this request tries; the others fail at once meanwhile

    def answered(self, **_: Any) -> None:
        if self.cause is not None:
            with self.lock:
                self.cause = None

    def failed(self, exception: BaseException | None = None, **_: Any) -> None:
        from botocore.exceptions import ConnectionError as BotoConnectionError
        from botocore.exceptions import ReadTimeoutError

        with self.lock:  # (a connect timeout is a ConnectionError; a read timeout is not)
            if isinstance(exception, (NoAnswer, BotoConnectionError, ReadTimeoutError)):
                self.cause, self.until = exception, time.monotonic() + DOWN_SECONDS
            else:
                self.cause = None


class NoAnswer(Exception):
    """A request whose next attempt could not end within the store's ``timeout`` (raised in place of that attempt;
    botocore does not retry it). ``after``: the previous attempt's failure (an exception's type name); ``waited``:
    seconds since the request began (its attempts and the waits between them)."""

    def __init__(self, timeout: float, after: str, waited: float | None = None) -> None:
        super().__init__(f"no answer within {timeout:g} s ({after})")
        self.after = after
        self.waited = waited


class StoreDown(Exception):
    """A request not made: an earlier one found the store out of reach less than :data:`DOWN_SECONDS` ago.
    ``cause``: that request's failure (its message is this one's)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


SKEW_IGNORED = 2.0
"""Seconds of difference between this host's clock and the object store's that :func:`clock_skew` leaves alone:
the ``Date`` header's one-second resolution and a request's time in flight."""


def clock_skew(response: Any) -> float:
    """Seconds this host's clock (``time.time``) is ahead of the object store's, read from a response's ``Date``
    header: an object's ``LastModified`` plus this is its time on this host's clock. 0 without a readable header,
    or when within :data:`SKEW_IGNORED` seconds. A host whose clock ran minutes ahead judged every object younger
    than that many minutes older than it is: the fleet sweep removed a write in flight as an orphan."""
    from email.utils import parsedate_to_datetime

    date = (response.get("ResponseMetadata") or {}).get("HTTPHeaders", {}).get("date")
    try:
        skew = time.time() - parsedate_to_datetime(date).timestamp() if date else 0.0
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return skew if abs(skew) > SKEW_IGNORED else 0.0


def client_errors() -> tuple[type[BaseException], ...]:
    """What a call of a :func:`make_client` client raises for a failure of the store (botocore's and
    :class:`NoAnswer`)."""
    from botocore.exceptions import BotoCoreError, ClientError

    return (BotoCoreError, ClientError, NoAnswer, StoreDown)


def error_code(exc: BaseException) -> str:
    """The S3 error code of a botocore ``ClientError`` (else its HTTP status, else ``""``)."""
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", "")) or str(response.get("ResponseMetadata", {}).get(
        "HTTPStatusCode", ""))


def storage_error(exc: BaseException, doing: str, endpoint: str | None = None, timeout: float | None = None
                  ) -> StorageError:
    """One line for a botocore failure ``exc`` while ``doing`` (e.g. ``"uploading <key>"``): ``the object store
    failed while <doing> (<why>: <what to do>)``. ``endpoint``: the URL the client talks to (named when the failure
    is one of reaching it); ``timeout``: the store's bound on a request (seconds). Never echoes credentials."""
    if isinstance(exc, StoreDown):  # (the same line as the failure that opened the breaker)
        exc = exc.cause
    cut = cut_short()
    if cut is not None and not isinstance(exc, NoAnswer) and not error_code(exc):  # (a reply too slow to finish)
        exc = NoAnswer(timeout or 0.0, SLOW_REPLY, cut)
    code = error_code(exc)
    reason = f"error {code}" if code else (exc.after if isinstance(exc, NoAnswer) else type(exc).__name__)
    if code == "NoSuchBucket":  # a set-up step, told as one: scratchfs never creates a bucket
        bucket = str((getattr(exc, "response", None) or {}).get("Error", {}).get("BucketName", ""))
        named = f"the bucket {bucket!r}" if bucket else "the s3:// URL's bucket"
        reason += f": {named} does not exist; create it first (scratchfs never creates a bucket)"
    elif code in ("AccessDenied", "403", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
        reason += ": check the AWS credentials and the bucket's policy"
    elif type(exc).__name__ in ("NoCredentialsError", "PartialCredentialsError"):
        reason += (": no AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE "
                   "to a profile of ~/.aws/credentials (or run where an instance or task role gives them)")
    elif not code:
        reason = _unreached(exc, reason, endpoint, timeout) or reason
    error = StorageError(f"the object store failed while {doing} ({reason})")
    if code in _AWAY_CODES or (not code and reason != type(exc).__name__):
        error.unavailable = True  # type: ignore[attr-defined]  # out of reach for now: the web answers 503
    return error


def _unreached(exc: BaseException, name: str, endpoint: str | None, timeout: float | None) -> str | None:
    """Why ``endpoint`` was not reached, and the fix, for a connection or timeout failure; else None."""
    from botocore.exceptions import ConnectionError as BotoConnectionError
    from botocore.exceptions import ConnectTimeoutError, ReadTimeoutError

    where = f"the endpoint {endpoint}" if endpoint else "the S3 endpoint"
    configured = next((n for n in _ENDPOINT_VARS if os.environ.get(n)), None)
    fix = (f"check that the store is up and ${configured} names it" if configured else
           "$AWS_ENDPOINT_URL is unset: for an S3-compatible store set it to the store's URL")
    if isinstance(exc, NoAnswer) and exc.waited is not None and timeout is not None:
        # (the time waited: a request ends when another attempt would pass the bound, so a 30 s bound gave up after
        # two attempts of 10 s, 22 s, and said "within 30 s" (newuser22))
        return (f"{name}: {where} did not answer in {exc.waited:.0f} s (another attempt would pass the {timeout:g} s "
                f"bound); {fix}")
    if isinstance(exc, (NoAnswer, ReadTimeoutError, ConnectTimeoutError)):
        within = f" within {timeout:g} s" if timeout is not None else ""
        return f"{name}: {where} did not answer{within}; {fix}"
    if isinstance(exc, BotoConnectionError):
        return f"{name}: cannot connect to {where}; {fix}"
    return None
