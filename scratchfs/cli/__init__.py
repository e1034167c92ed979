"""The ``scratchfs`` command line (click): the store's verbs for shells and scripts (:mod:`scratchfs.cli.verbs`) and its
scratchpad (:mod:`scratchfs.cli.scratchpad`), the
inspector (:mod:`scratchfs.cli.admin`), the MCP servers (:mod:`scratchfs.cli.servers`) and the web inspector
(:mod:`scratchfs.cli.serve`), on the group of :mod:`scratchfs.cli.app`. Importing this package registers every
command."""

from scratchfs.cli import admin, scratchpad, serve, servers, verbs
from scratchfs.cli.app import main

__all__ = ["admin", "main", "scratchpad", "serve", "servers", "verbs"]
