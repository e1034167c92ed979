"""``python -m scratchfs``: the command line (see :mod:`scratchfs.cli`)."""

from scratchfs.cli import main

if __name__ == "__main__":  # pragma: no cover
    main()
