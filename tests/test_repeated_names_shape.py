"""A table whose header repeats a name (``ps -eo pid,comm,args`` titles both ``COMMAND``; a join's ``SELECT *``
repeats ``name``) had its stub's shape list the name twice, ``COMMAND, COMMAND``, while a ``slurp=true`` read keys the
second ``COMMAND_2`` and ``columns=["COMMAND"]`` is refused as ambiguous: a model writing ``.COMMAND`` from the shape
read the program's name where it meant its arguments. The shape now names the key of each repeated column."""

from __future__ import annotations

from pathlib import Path

from scratchfs.api.contract import ScratchTools

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
# written by hand in the layout of `ps -eo pid,ppid,user,comm,args` (procps-ng 4.0.2), whose comm and args columns
# are both titled COMMAND
PS = ("    PID    PPID USER     COMMAND         COMMAND\n"
      + "".join(f"{i:>7} {1:>7} root     python          python -m worker --queue q{i}\n" for i in range(1, 60)))


def test_a_repeated_column_name_is_shown_with_the_key_a_slurp_read_gives_it(scratch_scope):
    tools = ScratchTools(scratch_scope)
    stub = scratch_scope.spill(PS.encode(), source_tool="ps")
    assert "5 columns: PID, PPID, USER, COMMAND, COMMAND (key COMMAND_2)" in stub.shape, stub.shape
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": ".[0].COMMAND_2", "slurp": True})
    assert reply["results"] == ["python -m worker --queue q1"]
    picked = tools.call("read_handle", {"handle": stub.handle, "row": 1, "rows": 1, "columns": ["COMMAND_2"]})
    assert picked["rows"] == [["python -m worker --queue q1"]]


def test_a_joins_repeated_csv_names_are_shown_with_their_keys(scratch_scope):
    # sqlite3 -csv -header of a self-join's SELECT * (fixtures/README.md): name, version, name, version, month
    tools = ScratchTools(scratch_scope)
    data = (TOOLS / "sqlite-csv-join-repeated-names.csv").read_bytes()
    stub = scratch_scope.spill(data, source_tool="sqlite3")
    assert stub.shape.startswith("CSV, 5 columns (name, version, name (key name_2), version (key version_2), month)")
    first = data.decode().splitlines()[1].split(",")
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": ".[0] | [.name, .name_2, .version_2]",
                                       "slurp": True})
    assert reply["results"] == [[first[0], first[2], first[3]]]
