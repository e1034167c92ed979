"""Helpers of the member-read tests: a tar made in memory, and a rendered call's arguments."""

from __future__ import annotations

import ast
import io
import tarfile


def call_args(call: str) -> dict:
    """The keyword arguments of a rendered call (``read_handle(handle="h_...", offset=512, end=1024)``)."""
    node = ast.parse(call, mode="eval").body
    return {k.arg: ast.literal_eval(k.value) for k in node.keywords}


def tar_of(files: list[tuple[str, bytes]]) -> bytes:
    """An uncompressed USTAR archive of ``files`` (name, data), in that order."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()
