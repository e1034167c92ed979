"""Following a read's ``next_call`` to its end, as a model does: the one loop the jq tests share."""

from __future__ import annotations

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools


def outputs_to_end(tools: ScratchTools, arguments: dict) -> list:
    """Every output (``results``) of the ``read_handle`` call ``arguments`` and of each ``next_call`` after it, in
    order, until a reply names none."""
    out = []
    while True:
        reply = tools.call("read_handle", arguments)
        out += reply["results"]
        if reply["next_call"] is None:
            return out
        _, arguments = parse_call(reply["next_call"])
