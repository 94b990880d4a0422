"""The installed wheel: build it, install it into a fresh virtualenv and run the commands from elsewhere.

A checkout hides what a wheel lacks (``Path(__file__).parents[1] / "examples"`` exists only there), so
the wheel is built from the current sources, installed without dependencies into a new virtualenv and
run with the working directory and the cache outside the repository. The dependencies are the running
interpreter's: a ``.pth`` file in the new site-packages lists this environment's site-packages
directories. A path line of a ``.pth`` file is only appended to ``sys.path``; the ``.pth`` files inside
that directory (the editable-install finder of the dev checkout among them) are not processed, so the
checkout does not leak in -- the first test checks that ``accelgen`` is imported from the new venv.

The wheel is built from a copy of the package folders (``pyproject.toml``'s ``package-dir``), not in the
checkout: an in-tree setuptools build writes ``build/`` and ``accelgen.egg-info/`` there, and a stale
``build/lib`` can slip deleted modules into the wheel. Without build isolation when the running
environment can build wheels (setuptools >= 70.1, or the ``wheel`` package), else isolated (pip fetches
setuptools from the configured index). About 30 s on 2 cores, the build a third of it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from accelgen import shipped

try:
    import tomllib
except ModuleNotFoundError:    # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
CHIPS = ("diannao", "eyeriss", "shidiannao", "sigma", "sigma_systolic", "tensordash", "tensordash_baseline", "tpu_v1", "tpu_v2", "tpu_v3", "tpu_v4i")


@dataclass(frozen=True)
class Installed:
    venv: Path
    wheel: Path
    cwd: Path
    env: dict

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([*args], check=False, cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=300)
        if check:
            assert proc.returncode == 0, f"{args} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
        return proc

    def accelgen(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return self.run(str(self.venv / "bin" / "accelgen"), *args, check=check)

    def python(self, code: str) -> str:
        return self.run(str(self.venv / "bin" / "python"), "-c", code).stdout


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _can_build_without_isolation() -> bool:
    if importlib.util.find_spec("wheel") is not None:
        return True
    try:
        major, minor = (int(x) for x in importlib.metadata.version("setuptools").split(".")[:2])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (70, 1)   # setuptools builds wheels itself from 70.1 on


def _copy_sources(dest: Path) -> Path:
    """What the sdist would hold: pyproject.toml, the readme and the package folders."""
    project = _pyproject()
    dest.mkdir()
    shutil.copy2(ROOT / "pyproject.toml", dest)
    readme = project["project"].get("readme")
    if isinstance(readme, str):
        shutil.copy2(ROOT / readme, dest)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for folder in sorted(set(project["tool"]["setuptools"]["package-dir"].values())):
        shutil.copytree(ROOT / folder, dest / folder, ignore=ignore)
    return dest


def _check(args: list[str], what: str) -> None:
    proc = subprocess.run(args, check=False, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{what} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    base = tmp_path_factory.mktemp("wheel")
    src = _copy_sources(base / "src")
    dist = base / "dist"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)]
    if _can_build_without_isolation():
        build.insert(4, "--no-build-isolation")
    _check(build, "building the wheel")
    (wheel,) = dist.glob("accelgen-*.whl")

    venv = base / "venv"
    _check([sys.executable, "-m", "venv", "--without-pip", str(venv)], "creating the virtualenv")
    py = str(venv / "bin" / "python")
    _check([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps", "--no-index", str(wheel)],
           "installing the wheel")
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    deps = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]
    deps = [d for d in deps if Path(d).is_dir()]
    (Path(purelib) / "_accelgen_test_dependencies.pth").write_text("".join(f"{d}\n" for d in deps))

    cwd = base / "elsewhere"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(ACCELGEN_CACHE_DIR=str(base / "cache"), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    return Installed(venv=venv, wheel=wheel, cwd=cwd, env=env)


def _inside(path: str, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(folder.resolve())


def test_accelgen_is_imported_from_the_new_venv(installed):
    where = installed.python("import accelgen, pathlib; print(accelgen.__file__)").strip()
    assert _inside(where, installed.venv), where
    assert not _inside(where, ROOT), where


def test_wheel_holds_every_module_and_the_shipped_data(installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    package_dir = _pyproject()["tool"]["setuptools"]["package-dir"]
    missing = []
    for package, folder in package_dir.items():
        for f in sorted((ROOT / folder).rglob("*.py")):
            rel = f.relative_to(ROOT / folder)
            if "__pycache__" in rel.parts or (package == "accelgen" and rel.parts[0] in
                                              {p.split(".", 1)[1] for p in package_dir if "." in p}):
                continue
            member = "/".join([*package.split("."), *rel.parts])
            if member not in names:
                missing.append(f"{folder}/{rel} ({member})")
    for kind, (package, sub, _) in shipped.KINDS.items():
        for name in shipped.names(kind):
            member = "/".join([*package.split("."), sub, f"{name}.yaml"])
            if member not in names:
                missing.append(member)
    for package, patterns in _pyproject()["tool"]["setuptools"]["package-data"].items():
        # a subpackage without a package-dir entry of its own lives in its parent's folder (accelgen.system)
        parent = max((p for p in package_dir if package == p or package.startswith(p + ".")), key=len)
        folder = ROOT / package_dir[parent] / Path(*package[len(parent):].split(".")[1:])
        for pattern in patterns:
            for f in folder.glob(pattern):
                member = "/".join([*package.split("."), *f.relative_to(folder).parts])
                if member not in names:
                    missing.append(member)
    assert not missing, "not in the wheel (a subpackage missing from [tool.setuptools] packages, or data " \
        "from package-data?):\n" + "\n".join(missing)


def test_every_module_imports_from_the_wheel(installed):
    out = installed.python(
        "import importlib, pkgutil, accelgen\n"
        "mods = [m.name for m in pkgutil.walk_packages(accelgen.__path__, 'accelgen.') "
        "if not m.name.endswith('__main__')]\n"
        "for m in mods: importlib.import_module(m)\n"
        "print(len(mods))")
    assert int(out) > 50


def test_validate_chips_lists_the_shipped_chips(installed):
    out = installed.accelgen("validate-chips").stdout
    rows = [line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")]
    assert set(CHIPS) <= set(rows), out


def test_workload_list(installed):
    out = installed.accelgen("workload", "list").stdout
    listed = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert {"resnet50", "mobilenet_v2", "bert_base", "irregular"} <= set(listed), out
    assert any(line.startswith("resnet50") and " 54 layers " in line for line in out.splitlines()), out


def test_estimate_by_name_uses_the_shipped_fitted_models(installed):
    out = installed.accelgen("estimate", "tpu_v1").stdout
    assert out.startswith("tpu_v1: 28 nm"), out
    assert "fit/models/systolic.json (held-out MAPE" in out, out


def test_estimate_of_a_file_in_the_working_directory(installed):
    shutil.copy(shipped.path("chips", "eyeriss"), installed.cwd / "my_chip.yaml")
    d = json.loads(installed.accelgen("estimate", "my_chip.yaml", "--json").stdout)
    assert d["name"] == "eyeriss" and d["area_mm2"] > 0


def test_perf_by_names(installed):
    out = installed.accelgen("perf", "tpu_v1", "resnet50", "--batch", "8").stdout
    assert "resnet50 on tpu_v1, batch 8" in out, out
    assert "total: 54 layers" in out and "TOPS/W" in out, out


def test_studies_run_from_the_wheel(installed):
    for name in ("sigma-reduction", "sigma-vs-systolic"):
        doc = json.loads(installed.accelgen("study", name, "--json", "--out", installed.cwd / name).stdout)
        assert doc["study"] == name and doc["rows"], doc
        assert (installed.cwd / name).is_dir()


def test_unknown_name_is_one_line_exit_2(installed):
    proc = installed.accelgen("estimate", "tpu_v9", check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "accelgen: error: tpu_v9: file not found and not a shipped chip; shipped: " + ", ".join(CHIPS)]


def test_blocks_and_gen_emit_from_the_wheel(installed):
    out = installed.accelgen("blocks").stdout
    assert "mac:" in out and "systolic:" in out, out
    installed.accelgen("gen", "mac", "-o", "out")
    assert "module mac" in (installed.cwd / "out" / "mac.v").read_text()
    assert json.loads((installed.cwd / "out" / "mac.json").read_text())
