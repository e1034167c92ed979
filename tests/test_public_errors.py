"""Every public error class scratchfs raises is importable from the package itself, as the README's examples import
them (``from scratchfs import NotFound, ...``): ``Changed`` (a scratchpad page's value written again) and
``UpstreamUnavailable`` (the MCP proxy's upstream) were only in ``scratchfs.foundation.errors``."""

from __future__ import annotations

import inspect

import scratchfs
from scratchfs.foundation import errors


def test_every_public_error_class_is_importable_from_scratchfs():
    public = {name for name, value in vars(errors).items()
              if inspect.isclass(value) and issubclass(value, errors.ScratchError) and not name.startswith("_")}
    assert {"Changed", "UpstreamUnavailable", "NotFound", "StoreClosed"} <= public
    for name in public:
        assert getattr(scratchfs, name) is getattr(errors, name), name
        assert name in scratchfs.__all__, name
