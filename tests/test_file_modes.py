"""Files accelgen writes honour the umask like any other program's (issue 51): ``mkstemp`` alone made every output
0600, so a teammate could not read a generated Verilog file or report."""

import os
import stat

import pytest

from accelgen.util import atomic_files, write_atomic


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_is_0644_under_umask_022(tmp_path, umask_022):
    write_atomic(tmp_path / "a.v", "module a; endmodule\n")
    assert _mode(tmp_path / "a.v") == 0o644


def test_a_new_file_follows_a_stricter_umask(tmp_path):
    old = os.umask(0o077)
    try:
        write_atomic(tmp_path / "a.v", "x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "a.v") == 0o600


def test_a_rewritten_file_keeps_its_mode_and_no_temporary_is_left(tmp_path, umask_022):
    target = tmp_path / "run.sh"
    target.write_text("old")
    target.chmod(0o755)
    with atomic_files([target, tmp_path / "b.json"]) as (t1, t2):
        t1.write_text("new")
        t2.write_text("{}")
    assert _mode(target) == 0o755 and target.read_text() == "new"
    assert _mode(tmp_path / "b.json") == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json", "run.sh"]


def test_the_cli_writes_readable_verilog(tmp_path, umask_022, accelgen_main):
    result = accelgen_main("gen", "mac", "-o", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and all(_mode(p) == 0o644 for p in written), {p.name: oct(_mode(p)) for p in written}
