"""The ``scratchfs`` command line (click): the store's verbs for shells and scripts (:mod:`scratchfs.cli.verbs`), the
inspector (:mod:`scratchfs.cli.admin`), the MCP servers (:mod:`scratchfs.cli.servers`) and the web inspector
(:mod:`scratchfs.cli.serve`), on the group of :mod:`scratchfs.cli.app`. Importing this package registers every
command."""

from scratchfs.cli import admin, serve, servers, verbs
from scratchfs.cli.app import main

__all__ = ["admin", "main", "serve", "servers", "verbs"]
