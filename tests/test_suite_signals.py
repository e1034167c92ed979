"""The suite's own set-up: the processes a test starts can be interrupted with SIGINT even when the run itself was
started with SIGINT ignored (``nohup``, ``pytest ... &`` in a script), which its tests of SIGINT need (before: each
waited out its 300 s timeout; see ``pytest_configure`` in ``tests/conftest.py``)."""

from __future__ import annotations

import signal
import subprocess
import sys


def test_a_child_of_a_test_starts_with_sigint_not_ignored():
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
    shown = subprocess.run([sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT) is "
                            "signal.default_int_handler)"], capture_output=True, text=True, timeout=60, check=True)
    assert shown.stdout.strip() == "True"
