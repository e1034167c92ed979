"""The engine: the storage backends (index, blob store) behind the protocols of :mod:`scratchfs.engine.protocols`,
the seekable format, line reads, search, caches and the sweeper. It stores and finds bytes; no face, no model-facing
JSON."""
