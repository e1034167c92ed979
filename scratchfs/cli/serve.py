"""``scratchfs serve``: the web inspector (:mod:`scratchfs.web`) under uvicorn, on loopback by default.

Server: uvicorn (the reference ASGI server from the Starlette authors, well kept, pure Python with optional speed-ups),
run on a socket this command binds itself, so ``--port 0`` picks a free port and the printed URL names the real one.
Its access log is off (the first request's URL carries the token). Each request's line and headers must arrive within
10 s and at most 256 connections are kept, one too many closing the one that has waited on its client longest
(:mod:`scratchfs.cli.serve_guard`: uvicorn alone kept a connection that never completed a request for ever, and
enough of them took every file descriptor); an answer whose client takes none of it for 30 s is closed (a download
never read gives its slot back); a stop (SIGTERM, SIGHUP, Ctrl-C) closes the connections whose clients
do not read, and cancels what is left after 10 s.

A request's ``Host`` must name this server (421 otherwise: :func:`~scratchfs.web.security.host_problem`);
``--allow-host NAME`` (or ``NAME:PORT``, repeatable; ``$SCRATCHFS_ALLOW_HOST``, names split by spaces) adds the
names a reverse proxy in front sends, each checked as a host name (no wildcards: a usage error, exit 2).

A token given with ``--token`` gets a warning on stderr: the process's arguments are readable by every local user
(``ps``), and so is a loopback port; ``$SCRATCHFS_TOKEN`` is private to the user.

At start it prints one line on stdout, flushed, with the URL to open, the token in it (as Jupyter does):
``scratchfs inspector: http://127.0.0.1:8765/?token=...`` (with ``--json``: ``{url, host, port, token}``). Exit
codes as for every command: 2 for a bad option (a ``--host`` that is no address of this machine too) or a missing
``web`` extra, 4 when the address cannot be bound (the port in use, permission).

A store whose index is out of reach or busy at start-up is served anyway and opened when it answers
(:class:`~scratchfs.api.deferred_store.DeferredStore`): meanwhile its routes answer 503 with ``Retry-After`` and
``GET /api/health`` says so; a store that cannot be opened for another reason (a mistyped root or schema, a wrong
password, blobs of another index) ends the start-up with its exit code, before the address is bound.

SIGTERM and SIGHUP stop the server gracefully (exit 143 and 129, as for every command): from the start line on they
only ask uvicorn to stop (:func:`_stop_on_signals`) and are raised as ``Terminated`` once it has. Raising it at once,
as the other commands do, could land in uvicorn's or asyncio's start-up between two of their steps; a CI run saw a
server go on running after a SIGTERM sent just after its start line.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import ipaddress
import json
import re
import socket
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import click
from click.core import ParameterSource

from scratchfs.api.deferred_store import DeferredStore, store_name
from scratchfs.api.settings import Settings
from scratchfs.api.store import ScratchStore, existing_store
from scratchfs.cli.app import command_busy_timeout, command_settings, command_store, main, opened, resolve_root, warn
from scratchfs.cli.option_types import Integer
from scratchfs.cli.output import RootText
from scratchfs.cli.serve_guard import BACKLOG, SHUTDOWN_SECONDS, connection_bound, guarded_h11
from scratchfs.cli.settings_options import settings_options
from scratchfs.cli.termination import Terminated, handle_termination
from scratchfs.cli.usage import takes_no_scope
from scratchfs.foundation.errors import InvalidArgument, StorageError
from scratchfs.foundation.text import one_line

DEFAULT_PORT = 8765
"""The port ``scratchfs serve`` listens on when no ``--port`` is given."""
_TOKEN_RE = re.compile(r"[A-Za-z0-9._~-]{16,256}\Z")
_NOT_HERE = {errno.EADDRNOTAVAIL, socket.EAI_NONAME,
             *(getattr(socket, name) for name in ("EAI_NODATA", "EAI_ADDRFAMILY") if hasattr(socket, name))}
"""Errors of a bind to a host that is no address of this machine, or a name that resolves to none (a name server
out of reach, ``EAI_AGAIN``, is no fault of the option: a storage error as before)."""


def _listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (IPv6 when ``host`` is an IPv6 address).

    Raises:
        click.BadParameter: ``host`` is empty, no address of this machine, or a name that resolves to none (a
            usage error of ``--host``: exit 2).
        StorageError: the address cannot be bound (the port in use, permission).
    """
    if not host.strip("[] "):  # (bind's "" is every interface: a URL without a host, a warning naming none)
        raise click.BadParameter("is empty: give one of this machine's addresses, e.g. 127.0.0.1 (the default, this "
                                 "machine alone) or 0.0.0.0 (every interface)", param_hint="'--host'")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(connection_bound(BACKLOG, 8))
    except (OSError, OverflowError) as exc:
        sock.close()
        reason = getattr(exc, "strerror", None) or exc
        if getattr(exc, "errno", None) in _NOT_HERE:
            what = "names no address" if isinstance(exc, socket.gaierror) else "is no address of this machine"
            raise click.BadParameter(f"{host} {what} ({reason}): give one of this machine's, e.g. 127.0.0.1 (the "
                                     "default, this machine alone) or 0.0.0.0 (every interface)",
                                     param_hint="'--host'") from None
        then = ("; give another --port (--port 0: any free one), or stop what listens there"
                if getattr(exc, "errno", None) == errno.EADDRINUSE else "")
        raise StorageError(f"cannot listen on {host}:{port}: {reason}{then}") from None
    sock.set_inheritable(True)
    return sock


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _check_hosts(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """``--allow-host``'s names, each checked as the web guard reads it (a usage error, exit 2, for one that is no
    host name: a wildcard, a URL, a bad port)."""
    try:
        from scratchfs.web.security import allowed_host
    except ImportError:  # (no web extra: serve_command says so)
        return value
    for item in value:
        try:
            allowed_host(item)
        except ValueError as exc:
            raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    return value


@main.command("serve")
@takes_no_scope("it serves every run of the store: its page lists them", lambda option, value: (
    f"; open the printed URL, then /runs/{quote(value, safe='')} on its address for that run's"
    if option == "--run" else ", each run's page its agents"))
@click.option("--root", type=RootText(file_okay=False), default=None,
              help="Store root directory [default: $SCRATCHFS_ROOT, else the user cache directory].")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (loopback unless you mean to share the store).")
@click.option("--port", type=Integer(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="Port to listen on (0: any free port; the printed URL names it).")
@click.option("--token", envvar="SCRATCHFS_TOKEN", default=None,
              help="Access token (16-256 characters of A-Z a-z 0-9 . _ ~ -) [env: SCRATCHFS_TOKEN; default: random].")
@click.option("--allow-host", "allow_hosts", multiple=True, envvar="SCRATCHFS_ALLOW_HOST", callback=_check_hosts,
              help="A Host a reverse proxy in front sends, NAME (any port) or NAME:PORT, served besides this server's "
                   "own; repeatable, no wildcards [env: SCRATCHFS_ALLOW_HOST, names split by spaces; default: none].")
@click.option("--allow-delete", is_flag=True, help="Allow deleting entries, agents and runs (POST, from the page).")
@click.option("--json", "as_json", is_flag=True, help="Print the start line as JSON: {url, host, port, token}.")
@settings_options()
def serve_command(root: str | None, host: str, port: int, token: str | None, allow_hosts: tuple[str, ...],
                  allow_delete: bool, as_json: bool) -> None:
    """Serve the web inspector: a JSON API and a page over the store (needs: pip install 'scratchfs[web]').

    Every request needs the access token; open the printed URL, which carries it. Read-only unless --allow-delete.
    """
    try:
        import uvicorn  # noqa: F401

        from scratchfs.web import create_app  # noqa: F401
        from scratchfs.web.security import new_access_token
    except ImportError as exc:
        click.echo("scratchfs: missing dependency: serve needs the web extra (pip install 'scratchfs[web]'; from a "
                   f"clone: pip install -e '.[web]'): {exc}", err=True)
        sys.exit(2)
    if token is None:
        token = new_access_token()
    elif not _TOKEN_RE.match(token):
        raise InvalidArgument("the token must be 16 to 256 characters of A-Z a-z 0-9 . _ ~ -")
    elif click.get_current_context().get_parameter_source("token") == ParameterSource.COMMANDLINE:
        # the arguments are readable by every local user, and so is the loopback port
        warn("warning: --token puts the token in the process's arguments, which every local user can read (ps): "
             "give it in $SCRATCHFS_TOKEN instead")
    urls = command_store()
    settings = command_settings()
    deferred = DeferredStore(functools.partial(_open, resolve_root(root), urls, settings, command_busy_timeout()),
                             settings, on_open=opened, name=store_name(urls))
    deferred.start()  # a mistyped root or a setting to fix ends the start-up; an outage is served through
    try:
        sock = _listen(host, port)
        stopped = _run(deferred, sock, host, token, allow_hosts, allow_delete, as_json)
    finally:
        deferred.close()
    if stopped:
        raise Terminated(stopped[0])


def _open(root: Path, urls: dict[str, Any], settings: Settings | None, busy_timeout: float) -> ScratchStore:
    """The store at ``root`` with the index and blobs ``urls`` name, if it exists (a mistyped root is told, not served
    as a new empty store: :func:`existing_store`). Called again from the opening thread while the store is out of
    reach: it takes every setting as an argument (the command's context is this thread's).

    Raises:
        NotFound, InvalidArgument, StorageError, StoreBusy: as :func:`existing_store` and :class:`ScratchStore`.
    """
    path = existing_store(root, busy_timeout=busy_timeout, **urls)
    return ScratchStore(path, settings=settings, **urls)


def _run(deferred: DeferredStore, sock: socket.socket, host: str, token: str, allow_hosts: tuple[str, ...],
         allow_delete: bool, as_json: bool) -> list[int]:
    """Serve the app over ``deferred`` on ``sock`` until a signal or Ctrl-C; returns the signals received."""
    import uvicorn

    from scratchfs.web import create_app

    app = create_app(deferred, token, allow_delete=allow_delete, hosts=_own_names(host), allow_hosts=allow_hosts)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", server_header=False,
                            http=guarded_h11(), backlog=connection_bound(BACKLOG, 8),
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS)
    # (a deadline for each request's headers, connections bounded, and how many are accepted at once: serve_guard)
    bound = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    url = f"http://{shown}:{bound}/?token={token}"
    server = uvicorn.Server(config)
    stopped = _stop_on_signals(server)  # before the start line: whoever reads it may stop the server at once
    click.echo(json.dumps({"url": url, "host": host, "port": bound, "token": token}) if as_json
               else f"scratchfs inspector: {url}")
    sys.stdout.flush()
    mode = "deletes allowed" if allow_delete else "read-only"
    store = deferred.store
    if store is None:
        where = (f"{deferred.name}, not open yet ({one_line(str(deferred.failure))}; its routes answer 503 until it "
                 f"opens, tried again every {deferred.retry:g} s)")
    else:
        where = store.root if not (store.index_url or store.blobs_url) else repr(store)  # a fleet: its index, blobs
    warn(f"serving {where} ({mode}); Ctrl-C stops")
    if not _is_loopback(host):
        click.echo(f"scratchfs: warning: {host} is not a loopback address; anyone who can reach it and has the "
                   "token can read the store", err=True)
    server.run(sockets=[sock])
    return stopped


def _own_names(host: str) -> list[str]:
    """The names a request's ``Host`` may give to a server bound to ``host`` besides loopback's and the address a
    connection comes in on (:func:`~scratchfs.web.security.host_problem`): ``host`` itself, and for every interface
    (``0.0.0.0``, ``::``) this machine's name and full name too."""
    names = [host]
    with contextlib.suppress(ValueError):  # (a name, not an address)
        if ipaddress.ip_address(host.strip("[]")).is_unspecified:
            names += [socket.gethostname(), socket.getfqdn()]
    return names


def _stop_on_signals(server: Any) -> list[int]:
    """Make SIGTERM and SIGHUP set ``server.should_exit`` (uvicorn's graceful stop; its own handlers take SIGTERM
    while it serves and raise it again after, which lands here too); returns the list the signals received go to."""
    stopped: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        stopped.append(signum)
        server.should_exit = True

    handle_termination(stop)
    return stopped


__all__ = ["DEFAULT_PORT", "serve_command"]
