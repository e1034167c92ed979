"""What a process pays for at its start: the CLI and the MCP servers import no library that only one kind of read
needs (lxml, cssselect and inscriptis for HTML; imagesize for an image's shape). Each of those was imported with
``scratchfs.cli`` (about 40 ms of CPU of every command's and every MCP server's start, measured at 269 against 231 ms:
the suite starts them by the hundred); they now come with the first read that needs them, which still works."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "apt-cache-show.txt"
ON_DEMAND = ("lxml", "cssselect", "inscriptis", "imagesize")


def test_the_cli_and_the_servers_start_without_the_libraries_of_one_kind_of_read():
    code = ("import sys, scratchfs.cli, scratchfs.mcp.server, scratchfs.mcp.proxy, scratchfs.web.app; "
            "import json; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(json.loads(done.stdout))
    assert loaded.isdisjoint(ON_DEMAND), sorted(loaded & set(ON_DEMAND))


def test_the_first_html_read_and_image_shape_of_a_process_import_what_they_need(tmp_path):
    """In a fresh process: a page's spill (its preview is the start of its text view: the first spill of an HTML page
    imports lxml and inscriptis, tests/test_html_preview.py), its text view and selector read, a search for a no-break
    space (the view's spaces, now in html_codec: seeking one in a page's text view seeks a space), and a PNG's
    dimensions in its shape."""
    code = """if True:
        import struct, sys
        from scratchfs import ScratchStore
        with ScratchStore(sys.argv[1]) as store:
            scope = store.scope("r", "a")
            assert "lxml" not in sys.modules
            page = scope.spill(b"<html><body><h1>Title</h1><p>one\\xc2\\xa0two</p></body></html>", source_tool="t")
            assert "lxml" in sys.modules and page.preview == "Title\\n\\none two\\n"  # (the start of its text view)
            print(scope.structure.text(page.handle).text.split())
            print(scope.structure.select(page.handle, "h1").items)
            print(len(scope.search(page.handle, match="one\\u00a0two", view="text").windows))
            header = struct.pack(">I", 13) + b"IHDR" + struct.pack(">IIBBBBB", 7, 3, 8, 2, 0, 0, 0)
            png = b"\\x89PNG\\r\\n\\x1a\\n" + header
            print(scope.spill(png + b"\\0" * 64, source_tool="t").shape)
    """
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    text, selected, windows, shape = done.stdout.splitlines()
    assert text == str(["Title", "one", "two"]) and selected == str(["Title"]) and windows == "1", done.stdout
    assert "PNG image, 7×3 pixels" in shape, shape


SHAPE_DETECTION = ("scratchfs.api.shape", "scratchfs.api.stub", "scratchfs.api.scope",
                   "scratchfs.engine.structure.jsondoc")


def test_opening_a_store_loads_no_shape_detection_until_a_spill_describes_something(tmp_path):
    """``ls``, ``stats`` or ``sweep`` open a store and write nothing: its import and opening load neither shape
    detection (``api.shape*``, ~380 regexes compiled), the stub's modules, the verbs' (``api.scope``) nor a structure
    reader (jq); the first spill loads them, and its stub and shape are what they were."""
    code = """if True:
        import json, sys
        from scratchfs.api.store import ScratchStore
        def loaded():
            return sorted(m for m in sys.modules if m.startswith("scratchfs.api.shape") or m in sys.argv[2:])
        with ScratchStore(sys.argv[1]) as store:
            store.list_entries()
            before = loaded()
            stub = store.scope("r", "a").spill(b'{"a": [1, 2, 3], "b": "text"}', source_tool="t")
            print(json.dumps([before, loaded(), stub.content_type, stub.shape]))
    """
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path), *SHAPE_DETECTION], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    before, after, content_type, shape = json.loads(done.stdout)
    assert before == [], before
    assert set(SHAPE_DETECTION) <= set(after), after
    assert content_type == "json" and shape.startswith("JSON object"), shape


def _modules_after(argv: list[str], env_root: str) -> tuple[str, list[str]]:
    """Run the command line with ``argv`` in a fresh process: its stdout and the modules it had loaded at exit."""
    code = ("import atexit, json, sys\n"
            "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules))))\n"
            "sys.argv = ['scratchfs', *sys.argv[1:]]\n"
            "from scratchfs.__main__ import run\n"
            "run()\n")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a",
                               "SCRATCHFS_ROOT": env_root})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, json.loads(done.stderr.rsplit("MODULES ", 1)[1])


def test_a_command_loads_the_modules_it_uses_not_every_command_s(tmp_path):
    """``--help`` and ``ls`` (a table piped: tab-separated rows) load neither shape detection, the stub's and the
    reads' modules (``api.contract``, ``api.scope``) nor rich; a spill and a read load what they need and answer."""
    unused = ("scratchfs.api.shape", "scratchfs.api.stub", "scratchfs.api.contract", "scratchfs.api.scope", "rich")
    handle = json.loads(_modules_after(["spill", str(FIXTURE)], str(tmp_path))[0])["handle"]
    for argv in (["--help"], ["ls"], ["ls", "--json"]):
        out, loaded = _modules_after(argv, str(tmp_path))
        assert handle in out or argv == ["--help"], out
        assert [m for m in loaded if m.split(".")[0] == "rich" or m.startswith(unused[:-1])] == [], argv
    out, loaded = _modules_after(["read-handle", handle, "--pattern", "Package: adduser", "--json"], str(tmp_path))
    assert json.loads(out)["windows"][0]["data"].startswith("Package: adduser"), out
    assert {"scratchfs.api.contract", "scratchfs.api.scope"} <= set(loaded)
