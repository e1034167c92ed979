"""The class of every ``scratchfs`` command (:class:`ScratchCommand`): a usage error raised while its arguments are
parsed names the command, so that its one stderr line points at the command's own ``--help``."""

from __future__ import annotations

from typing import Any

import click


class ScratchCommand(click.Command):
    """A click command whose usage errors carry its context: click's parser raises an option given without its
    value (``read-handle h_... --match``) with none, and the line then named ``scratchfs --help``, not
    ``scratchfs read-handle --help``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> Any:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            if exc.ctx is None:
                exc.ctx = ctx
            raise


__all__ = ["ScratchCommand"]
