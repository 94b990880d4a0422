"""The package's layering, read from every module's imports (issue 17).

Data flows one way: ``config -> rtl -> Verilog + manifest -> cosim`` and ``rtl -> sweep -> dataset
-> fitted model -> ppa``. The rules, checked on the source of every module of the installed
package (``accelgen/``, ``rtl/``, ``gen/``, ``cosim/``, ``fit/``, ``ppa/``):

* the block parameter schemas ``accelgen.params`` are a leaf: they import nothing but pydantic,
  annotated_types, numpy, the standard library and the root helpers, and every other layer may import them;
* ``rtl`` imports nothing of accelgen but the root helpers and the parameter schemas;
* the golden-model package ``accelgen.golden`` imports nothing but numpy, ml_dtypes, the standard
  library, the root helpers and the parameter schemas;
* ``ppa`` imports neither Amaranth nor cocotb, nor ``accelgen.rtl``, ``accelgen.gen`` or the cosim
  runner (``accelgen.cosim``);
* the layers (golden, rtl, gen, cosim, fit, ppa) receive the family object they work on: none
  imports the registry;
* nothing but the CLI imports the CLI;
* ``accelgen.system`` (the accelerator of an architecture file, issue 52) joins emission, cosim and the estimator, so
  it sits downstream of them all: the module-level cycle check keeps everything else from importing it;
* no import of an accelgen module inside a function (outside the CLI, which may import lazily to
  start fast): such an import is a cycle being dodged;
* no module-level import cycle between subpackages (each root module counts as its own node).

Every rule is also shown to fire on a module that breaks it.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: import name -> folder, as in pyproject.toml's package-dir
FOLDERS = {"accelgen": "accelgen", "accelgen.rtl": "rtl", "accelgen.gen": "gen", "accelgen.cosim": "cosim",
           "accelgen.fit": "fit", "accelgen.ppa": "ppa"}
#: root modules every layer may use (they import nothing but each other)
ROOT_HELPERS = {"accelgen", "accelgen.errors", "accelgen.util", "accelgen.problems", "accelgen.fpformat",
                "accelgen.expr", "accelgen.executor", "accelgen.shipped", "accelgen.technology",
                "accelgen.technology.nodes", "accelgen.technology.constants", "accelgen.operand_profiles"}
SUBPACKAGES = ("accelgen.cli", "accelgen.golden", "accelgen.rtl", "accelgen.gen", "accelgen.cosim", "accelgen.fit",
               "accelgen.ppa", "accelgen.params", "accelgen.system")
#: what every layer may import besides its own modules: the root helpers and the parameter schemas
SHARED = ROOT_HELPERS | {"accelgen.params"}


@dataclass(frozen=True)
class Import:
    module: str          # importing module
    target: str          # absolute name of the imported module (or of the package it names)
    line: int
    in_function: bool


def package_sources() -> dict[str, str]:
    """``{module name: source}`` of every module of the package (tests excluded)."""
    out = {}
    for pkg, folder in FOLDERS.items():
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([pkg, *parts])
            if pkg == "accelgen" and parts and parts[0] in {p.split(".")[1] for p in FOLDERS if "." in p}:
                continue
            out[name] = path.read_text()
    return out


def imports_of(name: str, source: str, is_package: bool) -> list[Import]:
    package = name if is_package else name.rpartition(".")[0]
    out = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                out.extend(Import(name, a.name, child.lineno, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[:len(base) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                # ``from pkg import submodule`` imports the submodule
                out.extend(Import(name, f"{target}.{a.name}" if f"{target}.{a.name}" in KNOWN else target,
                                  child.lineno, in_function) for a in child.names)
            visit(child, nested)

    visit(ast.parse(source), False)
    return out


SOURCES = package_sources()
KNOWN = set(SOURCES)


def _is_package(name: str) -> bool:
    return any(k.startswith(name + ".") for k in KNOWN) or name in FOLDERS


def node_of(module: str) -> str:
    """The layering node of a module: its subpackage, or the root module itself."""
    if module == "accelgen.__main__":      # ``python -m accelgen``: the command line's entry point
        return "accelgen.cli"
    for sub in SUBPACKAGES:
        if module == sub or module.startswith(sub + "."):
            return sub
    return module


def violations(sources: dict[str, str]) -> list[str]:
    problems = []
    graph: dict[str, set[str]] = {}
    for name, src in sources.items():
        node = node_of(name)
        for imp in imports_of(name, src, _is_package(name)):
            t = imp.target
            ours = t == "accelgen" or t.startswith("accelgen.")
            where = f"{name}:{imp.line} imports {t}"
            if node == "accelgen.params":
                top = t.split(".")[0]
                if (ours and node_of(t) != "accelgen.params" and t not in ROOT_HELPERS) or (
                        not ours and top not in ("pydantic", "annotated_types", "numpy", "__future__")
                        and top not in sys.stdlib_module_names):
                    problems.append(f"{where}: the parameter schemas are a leaf: they may import only pydantic, "
                                    "annotated_types, numpy and root helpers")
            if node == "accelgen.rtl" and ours and node_of(t) not in ("accelgen.rtl", "accelgen.params") \
                    and t not in ROOT_HELPERS:
                problems.append(f"{where}: rtl may import only the root helpers and the parameter schemas")
            if node == "accelgen.golden":
                top = t.split(".")[0]
                if ours and node_of(t) not in ("accelgen.golden", "accelgen.params") and t not in ROOT_HELPERS:
                    problems.append(f"{where}: the golden models may import only numpy, ml_dtypes and root helpers")
                elif not ours and top not in ("numpy", "ml_dtypes", "__future__") and top not in sys.stdlib_module_names:
                    problems.append(f"{where}: the golden models may import only numpy, ml_dtypes and root helpers")
            if node == "accelgen.ppa" and (t.split(".")[0] in ("amaranth", "cocotb", "cocotb_tools")
                                           or node_of(t) in ("accelgen.rtl", "accelgen.gen", "accelgen.cosim")):
                problems.append(f"{where}: ppa reads model files; it never imports generators, emission or cosim")
            if t == "accelgen.registry" and node in SUBPACKAGES[1:]:
                problems.append(f"{where}: a layer receives the family object it works on; only the CLI and the "
                                "flow look families up in the registry")
            if node != "accelgen.cli" and node_of(t) == "accelgen.cli":
                problems.append(f"{where}: only the CLI imports the CLI")
            if name in ROOT_HELPERS and ours and t not in ROOT_HELPERS:
                problems.append(f"{where}: a root helper may import only other root helpers")
            if imp.in_function and ours and node != "accelgen.cli":
                problems.append(f"{where} inside a function: import at module level (or fix the layering)")
            if ours and not imp.in_function and node_of(t) != node:
                graph.setdefault(node, set()).add(node_of(t))
    problems += [f"import cycle between {' -> '.join(c)}" for c in _cycles(graph)]
    return problems


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            strong(v)
    return out


def test_every_package_module_is_read():
    assert {"accelgen.rtl.mac", "accelgen.golden.fp", "accelgen.cli", "accelgen.ppa.estimate",
            "accelgen.registry", "accelgen.cosim.run", "accelgen.fit.sweep", "accelgen.gen.emit",
            "accelgen.params", "accelgen.params.mac"} <= KNOWN


def test_layering_holds():
    assert violations(SOURCES) == []


@pytest.mark.parametrize("module,source,rule", [
    ("accelgen.params.bad", "import amaranth\n", "parameter schemas are a leaf"),
    ("accelgen.params.bad", "from ..rtl.mac import MAC\n", "parameter schemas are a leaf"),
    ("accelgen.params.bad", "from ..ppa import arch\n", "parameter schemas are a leaf"),
    ("accelgen.params.bad", "from ..golden.fan import fan_latency\n", "parameter schemas are a leaf"),
    ("accelgen.rtl.bad", "from ..ppa import estimate\n", "rtl may import only the root helpers"),
    ("accelgen.rtl.bad", "from ..cosim.vectors import CycleTable\n", "rtl may import only the root helpers"),
    ("accelgen.golden.bad", "import amaranth\n", "golden models may import only"),
    ("accelgen.golden.bad", "from ..cosim import run\n", "golden models may import only"),
    ("accelgen.ppa.bad", "from amaranth import Module\n", "ppa reads model files"),
    ("accelgen.ppa.bad", "from ..rtl import MAC\n", "ppa reads model files"),
    ("accelgen.ppa.bad", "from ..cosim.run import run_cosim\n", "ppa reads model files"),
    ("accelgen.fit.bad", "from ..cli import main\n", "only the CLI imports the CLI"),
    ("accelgen.fit.bad", "from ..registry import FAMILIES\n", "receives the family object"),
    ("accelgen.cosim.bad", "def f():\n    from ..registry import FAMILIES\n", "inside a function"),
    ("accelgen.gen.bad", "from ..cosim import run_cosim\n", "import cycle"),
])
def test_each_rule_fires_on_a_module_that_breaks_it(module, source, rule):
    found = violations({**SOURCES, module: source})
    assert any(rule in v for v in found), found


@pytest.mark.parametrize("module", ["accelgen.rtl.ok", "accelgen.golden.ok", "accelgen.gen.ok", "accelgen.cosim.ok",
                                    "accelgen.fit.ok", "accelgen.ppa.ok", "accelgen.cli.ok"])
def test_every_layer_may_import_the_parameter_schemas(module):
    source = "from accelgen.params import SCHEMAS\nfrom accelgen.params.mac import MACParams\n"
    assert violations({**SOURCES, module: source}) == []
