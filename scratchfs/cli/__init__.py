"""The ``scratchfs`` command line (click): the store's verbs for shells and scripts (:mod:`scratchfs.cli.verbs`), the
inspector (:mod:`scratchfs.cli.admin`) and the MCP servers (:mod:`scratchfs.cli.servers`), on the group of
:mod:`scratchfs.cli.app`. Importing this package registers every command."""

from scratchfs.cli import admin, servers, verbs
from scratchfs.cli.app import main

__all__ = ["admin", "main", "servers", "verbs"]
