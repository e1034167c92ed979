"""A package's public names imported from their modules on first use (PEP 562, "Module __getattr__ and __dir__":
https://peps.python.org/pep-0562/), so that importing the package stays cheap: ``import scratchfs`` before the
command line's entry point runs, ``scratchfs.engine.structure`` before a structure read needs its reader.

A library does this (scientific-python's ``lazy_loader``); these dozen lines are not worth a dependency of the
package's own (it would be one more install for every user)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, where: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the package named ``package``: a name of ``where`` (``name -> module``) is
    imported from its module on first use and kept in the package's namespace (the next use is a plain lookup).
    The ``__getattr__`` raises AttributeError for a name the package does not have."""

    def get(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def listed() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return get, listed
