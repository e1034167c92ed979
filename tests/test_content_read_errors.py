"""A content whose own read fails mid-stream (a file on a failing disk, a pipe's reader erroring, a chunk iterator
raising OSError) was told as the store's failure: the blob stores turn every OSError in their write loop into
``StorageError('cannot write the blob: ...')``, and the content's reads run inside that loop -- ``scratchfs spill``
said ``scratchfs: storage: cannot write the blob: an input/output error`` for its input's read error (hostile37:
``spill --threshold`` reads its input in two parts, the second always inside the store's write). The content's own
error now reaches the caller as it was raised (the CLI's ``input: cannot read '...'``); nothing is stored."""

from __future__ import annotations

import errno
import io

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main
from scratchfs.engine.chunks import READ_CHUNK_BYTES


class FailingFile(io.RawIOBase):
    """A binary file of ``good`` bytes of 'x' whose read past them fails with EIO, as a failing disk's does."""

    def __init__(self, good: int) -> None:
        super().__init__()
        self.good, self.given = good, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.given >= self.good:
            raise OSError(errno.EIO, "Input/output error")
        n = min(len(buffer), self.good - self.given)
        buffer[:n] = b"x" * n
        self.given += n
        return n


def _chunks_then_error(good_chunks: int):
    for _ in range(good_chunks):
        yield b"y" * READ_CHUNK_BYTES
    raise OSError(errno.EIO, "Input/output error")


@pytest.mark.parametrize("content", [lambda: FailingFile(3 * READ_CHUNK_BYTES), lambda: _chunks_then_error(3),
                                     lambda: FailingFile(100), lambda: _chunks_then_error(0)],
                         ids=["file-mid-stream", "chunks-mid-stream", "file-at-once", "chunks-at-once"])
def test_the_contents_own_read_error_is_raised_as_it_was_and_nothing_is_stored(tmp_path, content):
    with ScratchStore(tmp_path / "s") as store:
        scope = store.scope("r", "a")
        with pytest.raises(OSError) as raised:
            scope.spill(content())
        assert type(raised.value) is OSError and raised.value.errno == errno.EIO  # not StorageError
        with pytest.raises(OSError):
            scope.scratch_write("k", content())
        assert store.list_entries() == []
        assert scope.spill(b"after").size == 5  # the store goes on


@pytest.mark.parametrize("args", [[], ["--threshold", "8KiB"], ["--threshold", "0"]])
def test_spill_names_its_inputs_read_error_mid_stream(tmp_path, args):
    done = CliRunner().invoke(main, ["spill", "--root", str(tmp_path / "s"), "--run", "r", "--agent", "a", *args,
                                     "-"], input=FailingFile(3 * READ_CHUNK_BYTES))
    assert (done.exit_code, done.stdout) == (4, ""), done.output
    assert done.stderr == "scratchfs: input: cannot read 'standard input': Input/output error\n"
    with ScratchStore(tmp_path / "s") as store:
        assert store.list_entries() == []
