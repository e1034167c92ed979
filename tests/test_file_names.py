"""One check of a local store's own file names (:func:`scratchfs.engine.file_names.name_kind`) for fsck's walk, its
loose modes and its odd and foreign names, which had two: ``BLOB_NAME_RE`` and ``.zseg`` in private_modes,
``TOKEN_RE`` + ``.zst`` in odd_names. Against the plain Python answer."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from scratchfs.engine.file_names import name_kind

_TOKEN_CHARS = string.ascii_lowercase + "234567"


def _plain(name: str) -> str | None:
    for suffix, kind in ((".zst", "blob"), (".zseg", "segment")):
        stem = name[: -len(suffix)]
        if name.endswith(suffix) and len(stem) == 24 and all(c in _TOKEN_CHARS for c in stem):
            return kind
    return None


_NAMES = st.one_of(st.text(), st.builds(lambda t, s: t + s, st.text(_TOKEN_CHARS + "18A\n", min_size=23, max_size=25),
                                        st.sampled_from([".zst", ".zseg", ".zst\n", ".zs", ".zseg.zst", ""])))


@given(_NAMES)
def test_name_kind_is_the_plain_answer(name):
    assert name_kind(name) == _plain(name)
