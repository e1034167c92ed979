"""hostile39 over the adapter: ``call_scratch_tool`` never raises, its reply's text is at most 2 KiB of UTF-8 -- but
the text of an error that is no ScratchError was ``str(exc)``, unguarded: an exception whose ``__str__`` raises (a
scope function's, a library's) made the call raise that ``__str__``'s error, and a message past 2 KiB holding a lone
surrogate raised UnicodeEncodeError as it was cut (a short one went to the loop as text no UTF-8 carries). Now the
first is told by its type, and a lone surrogate is written as its escape (``error_text``, every face's)."""

from __future__ import annotations

import logging

import pytest

from scratchfs.adapter import Offloader
from scratchfs.api.contract import error_text


class Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("this message cannot be written")


def raising(exc: BaseException):
    def scope():
        raise exc
    return scope


@pytest.mark.parametrize(("exc", "said"), [
    (Unprintable(), "error: Unprintable: <its message cannot be written: str() raised ValueError>"),
    (RuntimeError("caf\udce9" * 1000), "error: RuntimeError: caf\\udce9caf\\udce9"),
    (RuntimeError("caf\udce9"), "error: RuntimeError: caf\\udce9"),
])
def test_a_failure_whose_message_is_unprintable_or_no_utf8_is_one_error_reply(exc, said, caplog):
    caplog.set_level(logging.CRITICAL)
    reply = Offloader(raising(exc)).call_scratch_tool("scratch_list", {})
    assert (reply.is_error, reply.kind) == (True, "error")
    assert reply.text.startswith(said), reply.text[:200]
    assert len(reply.text.encode("utf-8")) <= 2048  # (encodes: no lone surrogate)
    assert error_text(exc) == reply.text
