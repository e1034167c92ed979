"""The web inspector (``scratchfs serve``): a JSON API and a page over a store, for people debugging agent runs.

:func:`create_app` builds the ASGI app; :mod:`scratchfs.cli.serve` runs it. Needs the ``web`` extra
(``pip install 'scratchfs[web]'``: Starlette and uvicorn).
"""

from scratchfs.web.app import create_app

__all__ = ["create_app"]
