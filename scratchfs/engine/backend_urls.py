"""The URLs that name a store's backends: which backends an index URL and a blobs URL name, a PostgreSQL URL split
into libpq's URL and scratchfs's own parameters (``schema``, ``runs_table``), a URL described without its password,
and the optional extras (``pyproject.toml``) each backend needs, checked before anything is opened.

A PostgreSQL URL is a libpq connection URI (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING),
checked by psycopg's reading of it (``psycopg.conninfo.conninfo_to_dict``) when psycopg is installed. A URL is never
put in an error message whole (it may hold a password). :mod:`scratchfs.engine.backends` opens what they name."""

from __future__ import annotations

import difflib
import importlib.util
import shlex
import sys
from urllib.parse import parse_qsl, unquote, urlsplit

from scratchfs.foundation.errors import InvalidArgument

__all__ = ["BAD_PORT", "check_urls", "describe_url", "local_blobs", "local_index", "require_extra",
           "split_postgres_url"]

_DEFAULT = ("", "sqlite", "file")


def local_index(url: str | None) -> bool:
    """True if an index URL names the SQLite index under the root (unset, ``sqlite`` or ``file``)."""
    return (url or "") in _DEFAULT


def local_blobs(url: str | None) -> bool:
    """True if a blobs URL names local blob files (a killed writer leaves a partial one; an upload is whole or none)."""
    return (url or "") in _DEFAULT


def describe_url(url: str | None) -> str:
    """``url`` without its password or query (for a ``repr`` or a report); ``"local"`` when unset."""
    if not url or url in _DEFAULT:
        return "local"
    parts = urlsplit(url)
    userinfo, _, hosts = parts.netloc.rpartition("@")  # hosts as written: several ('h1:5432,h2'), [IPv6], none
    user = userinfo.partition(":")[0]
    return f"{parts.scheme}://{user + '@' if user else ''}{hosts}{parts.path}"


BAD_PORT = ("the index URL names a port that is not a number from 1 to 65535 (an '@', ':' or '/' in a user name "
            "or password is written %40, %3A, %2F)")
"""The refusal of an index URL whose port -- after the host (``h:99999``, ``h:abc``, and a password read as one
when no host follows it, never echoed) or as libpq reads it (``?port=abc``, a host of several) -- is no port."""


def split_postgres_url(url: str) -> tuple[str, str, str | None]:
    """``(libpq URL, schema, runs_table)``: scratchfs's own query parameters taken out of a ``postgresql://`` URL.

    Raises:
        InvalidArgument: not a valid URL (a bad port, IPv6 brackets, a control character), or one libpq refuses
            (an unknown parameter); not a ``postgresql://`` or ``postgres://`` URL; ``schema`` or ``runs_table``
            given twice (which one was meant cannot be told, and the last one silently winning could open another
            store).
    """
    _refuse_controls(url, "index")
    try:
        parts = urlsplit(url)
        if "," not in parts.netloc.rpartition("@")[2]:  # (several hosts, 'h1:5432,h2:5433': libpq's to read)
            parts.port  # noqa: B018 - a port that is no number raises here, not as a host name lookup's failure
    except ValueError as exc:
        # "Invalid IPv6 URL", a port out of range or not a number; its text not echoed: with no host,
        # 'postgresql://u:s3cret/db' has the password as its port
        if str(exc).startswith("Port "):  # (urllib's "Port out of range 0-65535", "Port could not be cast ...":
            raise InvalidArgument(BAD_PORT) from None  # told as libpq's reading of ?port= is, one message)
        told = str(exc).split(" as '")[0]
        raise InvalidArgument(f"the index URL is not a valid URL: {told}" + (
            " (not shown; a ':' in a user name or password is written %3A)" if told != str(exc) else "")) from None
    if parts.scheme not in ("postgresql", "postgres"):
        got = f" (got a {parts.scheme}:// URL)" if parts.scheme else ""
        raise InvalidArgument(f"the index must be a postgresql:// URL, or unset for SQLite{got}"
                              f"{_sqlite_advice(parts.scheme, parts.path)}")
    query = parse_qsl(parts.query, keep_blank_values=True)
    own = {k: v for k, v in query if k in ("schema", "runs_table")}
    for name in own:
        if sum(k == name for k, _ in query) > 1:
            raise InvalidArgument(f"{name} is given twice in the index URL: give it once")
    # the others as written: decoded and encoded again, a '%20' came back as '+' (a plus sign to libpq), and a URL
    # with no host ('postgresql:///db?host=/tmp', a Unix socket) lost its '//'
    rest = [piece for piece in parts.query.split("&") if piece and not any(
        k in ("schema", "runs_table") for k, _ in parse_qsl(piece, keep_blank_values=True))]
    dsn = f"{parts.scheme}://{parts.netloc}{parts.path}" + ("?" + "&".join(rest) if rest else "") + (
        f"#{parts.fragment}" if parts.fragment else "")
    _check_libpq(dsn)
    return dsn, own.get("schema", "scratchfs"), own.get("runs_table")


def _refuse_controls(url: str | None, what: str) -> None:
    """Raise InvalidArgument when ``url`` holds a control character (C0 or DEL): ``urlsplit`` deletes a tab, CR or
    LF wherever it stands (the WHATWG URL standard's "remove all ASCII tab or newline"), so ``h:5432\\n/db``, a line
    break pasted into a variable, opened another URL than the one written; the others reached libpq or S3 as they
    were. The character is named by its position, the URL not echoed (it may hold a password)."""
    if not url:
        return
    at = next((i for i, char in enumerate(url) if char < " " or char == "\x7f"), None)
    if at is not None:
        raise InvalidArgument(f"the {what} URL holds a control character ({url[at]!r}) at character {at + 1}: a "
                              "line break or tab pasted with it? Remove it, or write it %-encoded (%0A, %09)")


def _sqlite_advice(scheme: str, path: str) -> str:
    """What to give instead of an index URL that names a SQLite file (``sqlite:///tmp/s/index.sqlite``, ``file:``, a
    bare path): the root its store is at, where the SQLite index always is (``<root>/index.sqlite``); ``""`` for
    another scheme. The path is named (a file's path holds no password); newuser13 gave one and was told only
    that it is no postgresql:// URL."""
    if scheme not in ("sqlite", "file", ""):
        return ""
    root = shlex.quote(path.rpartition("/")[0]) if path.endswith("/index.sqlite") else None
    return (": a SQLite index is the file index.sqlite under the store's root, so leave the index unset and give "
            f"the root instead ({'--root ' + root if root else '--root DIR'}, $SCRATCHFS_ROOT, or ScratchStore's "
            "root)")


def _check_libpq(dsn: str) -> None:
    """Raise InvalidArgument when libpq's parser refuses the URL (an unknown parameter), or reads a port in it that
    is no port number: a usage error before any connection, not a storage failure. Without psycopg: no check."""
    try:
        from psycopg import ProgrammingError
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        return
    try:
        found = conninfo_to_dict(dsn)
    except ProgrammingError as exc:
        told = " ".join(str(exc).split())
        userinfo = urlsplit(dsn).netloc.rpartition("@")[0]
        password = userinfo.partition(":")[2]
        quoted = told.partition(' "')[2]  # libpq quotes the token it refused
        if password and (password in quoted or unquote(password) in quoted):
            told = told.partition(' "')[0].rstrip(":") + " in the password (not shown)"
        raise InvalidArgument(f"the index URL is not a valid libpq URL: {told[:200]}{_meant(told)}") from None
    # libpq's reading, one port per host; not echoed (a password with an '@' ends up here)
    for port in str(found.get("port") or "").split(","):
        if port and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
            raise InvalidArgument(BAD_PORT)


def _meant(told: str) -> str:
    """For libpq's refusal of an unknown URL parameter (``invalid URI query parameter: "shema"``): the parameter
    likely meant -- scratchfs's own (``schema``, ``runs_table``) or libpq's -- and the ones scratchfs takes, as a
    clause to end the line with; ``""`` for another refusal. The line named the typo alone, so ``?shema=`` left a
    newcomer to find the word in the docs (newuser22)."""
    word = told.partition(' "')[2].rpartition('"')[0]
    if not told.startswith("invalid URI query parameter:") or not word:  # (a token of the password is not shown)
        return ""
    try:
        from psycopg import pq
        known = [option.keyword.decode() for option in pq.Conninfo.get_defaults()]
    except (ImportError, AttributeError, OSError):
        known = []
    close = difflib.get_close_matches(word.lower(), ["schema", "runs_table", *known], n=1, cutoff=0.7)
    guess = f" (did you mean {close[0]!r}?)" if close else ""
    return (f"{guess}; scratchfs takes schema and runs_table, and libpq its connection parameters (sslmode, "
            "connect_timeout, ...)")


_EXTRAS = {"postgres": ("psycopg", "psycopg_pool"), "s3": ("boto3", "botocore")}
"""The modules each optional extra of ``pyproject.toml`` installs, by extra."""


def require_extra(extra: str, what: str) -> None:
    """Raise InvalidArgument naming the install command when a module of the optional ``extra`` (``postgres``,
    ``s3``) is missing or does not import (psycopg without a libpq): a backend the caller named but did not install
    is a set-up mistake, told in one line (the CLI's exit code 2), never an ``ImportError`` from deep inside a
    backend. The modules are imported here (the backend imports them next)."""
    missing = [name for name in _EXTRAS[extra] if not _installed(name)]
    if missing:
        raise InvalidArgument(f"{what} needs the {extra} extra ({', '.join(missing)} not installed): pip install "
                              f"'scratchfs[{extra}]' (from a clone: pip install -e '.[{extra}]')")
    # installed, but a package that does not import (psycopg without a libpq) would be an ImportError traceback
    # from inside the backend (the backend imports them next anyway)
    for name in _EXTRAS[extra]:
        try:
            importlib.import_module(name)
        except (ImportError, OSError) as exc:
            raise InvalidArgument(f"{what} needs the {extra} extra ({name} cannot be imported: "
                                  f"{' '.join(str(exc).split())[:200]}): pip install 'scratchfs[{extra}]' (from a "
                                  f"clone: pip install -e '.[{extra}]')") from None


def check_urls(index_url: str, blobs_url: str) -> tuple[str, str, str | None] | None:
    """:func:`split_postgres_url` of a PostgreSQL ``index_url`` (``None``: the local index), after checking that the
    two URLs name backends a store can have and whose extras are installed.

    Raises:
        InvalidArgument: an unknown URL scheme, S3 blobs without a PostgreSQL index, a missing extra
            (:func:`require_extra`), a malformed PostgreSQL URL (:func:`split_postgres_url`), a control character
            in either URL.
    """
    for what, url in (("index", index_url), ("blobs", blobs_url)):
        _refuse_controls(url, what)
    postgres = None
    if index_url not in _DEFAULT:
        if index_url.lower().startswith(("postgresql:", "postgres:")):  # (another scheme is told as such)
            require_extra("postgres", "a postgresql:// index")
        postgres = split_postgres_url(index_url)
    if blobs_url not in _DEFAULT:
        if not blobs_url.startswith("s3://"):
            raise InvalidArgument("blobs must be an s3://bucket/prefix URL, or unset for files under the root")
        if postgres is None:
            raise InvalidArgument("s3:// blobs need a postgresql:// index (its locks are shared by every host)")
        require_extra("s3", "s3:// blobs")
    return postgres


def _installed(name: str) -> bool:
    """Whether the top-level module ``name`` is there (looked up, not imported: :func:`require_extra` imports it)."""
    if name in sys.modules:
        return sys.modules[name] is not None  # None: an import blocked on purpose
    return importlib.util.find_spec(name) is not None
