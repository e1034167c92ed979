"""rich's console for the command line's tables (:func:`scratchfs.cli.render.show`, the demo): a module of its own so
that ``rich`` (tens of ms of every command's start) loads only when a table is printed to a terminal."""

from __future__ import annotations

from rich.console import Console


class PipedConsole(Console):
    """rich's console, but a reader that goes away (``| head``) raises :class:`BrokenPipeError`, which the command
    line ends with exit code 0 as for every command's output -- rich's own ends the process with exit code 1 and
    nothing said (``scratchfs demo | head -c 10``)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError(32, "Broken pipe")


__all__ = ["PipedConsole"]
