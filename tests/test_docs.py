"""The docs: nothing cites a file outside the repository, the README stays a short front page whose quick-start
commands are exactly the ones CI runs, every relative link resolves, and the generated parts of docs/ are current."""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

from accelgen.ppa.docs import replace_study_section, study_markers
from accelgen.ppa.studies import run_study, study_names
from accelgen.ppa.units.base import ENTRY_POINT_GROUP

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: the README's two quick-start commands, exactly: a fresh clone must be able to paste them (.ci/run runs the second)
QUICK_START = (
    'python3 -m venv .venv && . .venv/bin/activate && pip install -e . && accelgen build examples/quickstart.yaml',
    'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && pytest -n 2',
)
#: the user guide's pages
GUIDE = ("generate.md", "check.md", "refit.md", "estimate.md", "explore.md", "accelerator.md", "architecture.md",
         "adding-a-family.md", "validation.md", "studies.md")
#: what a source file or doc must not cite: the design brief kept outside the repository, a sibling folder of
#: the checkout, a machine path (spelled in pieces so that this file does not cite them itself)
OUTSIDE = ("DESIGN" + ".md", "../" + "shared", "/" + "work/")
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ".cfg", ".ini", ".sh", ".v", ".cpp", ".h", ""}
#: studies that run in seconds; the others run only with -m slow
FAST_STUDIES = ("sigma-reduction", "sigma-vs-systolic", "tensordash-overhead")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _tracked_files() -> list[Path]:
    """The repository's tracked files (every file under the root when git is not there, as in an sdist)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        names = [n for n in out.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not {".git", ".venv", "__pycache__"} & set(p.relative_to(ROOT).parts)]
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))]


def test_no_source_or_doc_cites_a_file_outside_the_repository():
    hits = []
    for path in _tracked_files():
        if path.suffix not in TEXT_SUFFIXES or path == Path(__file__).resolve():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            hits += [f"{path.relative_to(ROOT)}:{number}: {needle}" for needle in OUTSIDE if needle in line]
    assert not hits, "cite the paper (name, section, table) or docs/architecture.md instead:\n" + "\n".join(hits)


def test_readme_is_a_short_front_page_with_the_quick_start_commands():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200, "README.md is over 200 lines: move the detail to docs/"
    blocks = re.findall(r"```sh\n(.*?)\n```", text.split("## Quick start", 1)[1], flags=re.S)
    assert blocks[:2] == list(QUICK_START), blocks[:2]


def test_the_guide_has_its_pages_and_the_readme_links_them():
    readme = (ROOT / "README.md").read_text()
    for page in GUIDE:
        assert (DOCS / page).is_file(), page
        assert f"docs/{page}" in readme, f"README.md does not link docs/{page}"
    assert (ROOT / "CHANGELOG.md").is_file() and "CHANGELOG.md" in readme


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    if not path.exists():
        pytest.fail(f"{path.relative_to(ROOT)} is missing")
    broken = []
    for target in LINK.findall(path.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if not (path.parent / target.split("#", 1)[0]).exists():
            broken.append(target)
    assert not broken, f"{path.relative_to(ROOT)} links to files that do not exist: {broken}"


def _exists(dotted: str) -> bool:
    """A module of that name, or an attribute of one (``accelgen.golden.fp``, ``accelgen.ppa.estimate.estimate``)."""
    module, _, attribute = dotted.rpartition(".")
    try:
        if importlib.util.find_spec(dotted) is not None:
            return True
    except ImportError:  # the parent is a module, not a package: the name may be one of its attributes
        pass
    try:
        return hasattr(importlib.import_module(module), attribute)
    except ImportError:
        return False


@pytest.mark.parametrize("path", [ROOT / "README.md", *sorted(DOCS.glob("*.md"))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_named_modules_and_files_exist(path):
    """The guide names modules (`accelgen.ppa.relaxed`) and files (`bench/relaxed_mapping.py`) that exist today; the
    changelog, which records history, may name what has since moved."""
    text = path.read_text()
    # the plug-in entry-point group is spelled like a module and is none
    modules = sorted(set(re.findall(r"`(accelgen(?:\.\w+)+)", text)) - {ENTRY_POINT_GROUP})
    files = sorted(set(re.findall(r"`((?:[a-z_]+/)+[\w.-]+\.(?:py|yaml|md|csv|json))`", text)))
    missing = [m for m in modules if not _exists(m)]
    missing += [f for f in files if not f.startswith("out/") and "NAME" not in f and not (ROOT / f).exists()]
    assert not missing, f"{path.relative_to(ROOT)} names what does not exist: {missing}"


def test_every_study_has_its_section_in_the_studies_doc():
    text = (DOCS / "studies.md").read_text()
    for name in study_names():
        begin, end = study_markers(name)
        assert begin in text and end in text, f"docs/studies.md has no section for {name}"


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=() if name in FAST_STUDIES else pytest.mark.slow(
        reason="runs a design-space study (20 s to a few minutes)"))
    for name in study_names()])
def test_studies_doc_is_current(name, tmp_path):
    text = (DOCS / "studies.md").read_text()
    assert replace_study_section(text, run_study(name, tmp_path)) == text, \
        f"docs/studies.md's section for {name} is stale: run `accelgen study {name} --doc docs/studies.md`"
