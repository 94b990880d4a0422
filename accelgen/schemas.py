"""JSON Schemas of the YAML formats: architecture descriptions, sweep files, regression descriptions, build configs.

Each schema is made from what validates the format, so that it cannot drift from it: the pydantic models
(:class:`accelgen.ppa.arch.Arch` with the PPA units' parameter schemas, :mod:`accelgen.gen.config`'s build schema,
:mod:`accelgen.cosim.regression.spec`'s regression schema, each block family's parameter schema) through
pydantic's ``model_json_schema``, and the sweep file, which :func:`accelgen.fit.sweep.load_sweep` checks by hand,
described here from the limits that loader and :mod:`accelgen.fit.model` state. Cross-field rules a JSON Schema
can say are added (a family's parameters under its ``block``, an architecture's clock *or* target TOPS, the
technology table's node range); the others stay with the loader, named in the descriptions.

Every field gets a description (its pydantic description, else the ``#:`` or trailing comment beside it in the
model's source) and, where its name carries one, a unit (``x-unit``, also in the description): the project's
names carry their units (``clock_mhz``, ``area_mm2``; docs/architecture.md). The schemas are JSON Schema 2020-12
documents with ``$schema``, ``$id``, ``title`` and ``description``, for editors' YAML validation (a
``# yaml-language-server: $schema=...`` line) and for the reference pages :mod:`accelgen.schema_docs` writes.
"""

from __future__ import annotations

import copy
import inspect
import io
import re
import tokenize
import typing
from typing import Any

from pydantic import BaseModel

from .cosim.regression.spec import MODE_HELP, _RegressSchema
from .family import SIMULATORS, BlockFamily
from .fit.mapping import DEFAULT_CLOCK_MHZ
from .fit.model import TARGETS
from .fit.sweep import SweepSpec
from .gen.config import MAX_VECTORS, _BuildSchema
from .operand_profiles import PROFILES
from .ppa.arch import Arch
from .ppa.process import node_range
from .ppa.units import placeable_kinds, unit_class

DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: a GEMM shape as :func:`accelgen.cosim.vectors.parse_gemm` reads it: M,N,K (or MxNxK), integers >= 1
GEMM_PATTERN = r"^\s*0*[1-9][0-9]*\s*[,x]\s*0*[1-9][0-9]*\s*[,x]\s*0*[1-9][0-9]*\s*$"
#: the formats, each with its title and what it is for
FORMATS: dict[str, tuple[str, str]] = {
    "arch": ("accelgen architecture description",
             "An accelerator for `accelgen estimate`, `perf` and `dse` (examples/arch/*.yaml, the shipped chips)."),
    "sweep": ("accelgen sweep file",
              "A synthesis and activity sweep of one block family, fitted into a model (`accelgen sweep`, "
              "`accelgen fit`; fit/sweeps/*.yaml)."),
    "regress": ("accelgen regression description",
                "A co-simulation regression: blocks, parameter matrices, modes, seeds, simulators, and whole "
                "accelerators of architecture files on layers (`accelgen regress`; the shipped default, nightly, fp "
                "and accelerator). It lists at least one block or one accelerator."),
    "build": ("accelgen build config",
              "Blocks to generate, co-simulate and synthesize (`accelgen build`, `gen --config`, `cosim --config`; "
              "examples/quickstart.yaml)."),
}
#: a field name's ending -> its unit (the project names quantities with their unit)
UNIT_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("_pj_per_cycle", "pJ/cycle"), ("_per_s", "1/s"), ("_nm", "nm"), ("_mhz", "MHz"), ("_mm2", "mm^2"),
    ("_um2", "um^2"), ("_gbps", "Gb/s"), ("_bytes", "bytes"), ("_bits", "bits"), ("_width", "bits"), ("_mw", "mW"),
    ("_uw", "uW"), ("_w", "W"), ("_ms", "ms"), ("_ns", "ns"), ("_pj", "pJ"), ("_v", "V"), ("_s", "s"),
    ("_tops", "TOPS"))
EXACT_UNITS = {"mm2": "mm^2", "tops": "TOPS", "width": "bits", "w": "W"}


def unit_of(field: str) -> str | None:
    """The unit a field's name carries (``clock_mhz`` -> ``MHz``), or ``None``."""
    if field in EXACT_UNITS:
        return EXACT_UNITS[field]
    return next((unit for suffix, unit in UNIT_SUFFIXES if field.endswith(suffix)), None)


# --------------------------------------------------------------------------- descriptions from the models' source

def field_comments(cls: type) -> dict[str, str]:
    """``{field: comment}`` of a class's annotated fields: the ``#:`` lines just above each, else the comment
    at the end of its line."""
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    above: list[str] = []
    out: dict[str, str] = {}
    lines = source.splitlines()
    body_indent = None
    for line in lines[1:]:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if not stripped:
            above = []
            continue
        if body_indent is None:
            body_indent = indent
        if indent != body_indent:
            continue
        if stripped.startswith("#:"):
            above.append(stripped[2:].strip())
            continue
        m = re.match(r"([A-Za-z_]\w*)\s*:", stripped)
        if m and not stripped.startswith(("def ", "class ", "@")):
            text = " ".join(above) or _trailing_comment(stripped)
            if text:
                out[m.group(1)] = text
        above = []
    return out


def _trailing_comment(line: str) -> str:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line).readline))
    except (tokenize.TokenError, IndentationError):
        return ""
    return next((t.string[1:].strip() for t in tokens if t.type == tokenize.COMMENT), "")


def _models_in(cls: type, found: dict[str, type]) -> dict[str, type]:
    """``{name: class}`` of ``cls`` and every pydantic model its fields refer to (the names pydantic's ``$defs``
    use)."""
    if cls.__name__ in found:
        return found
    found[cls.__name__] = cls
    for info in cls.model_fields.values():
        stack = [info.annotation]
        while stack:
            ann = stack.pop()
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                _models_in(ann, found)
            stack.extend(typing.get_args(ann))
    return found


#: what a field means where its model's source says nothing (by ``Model.field``, else by field name); the
#: models' own descriptions and comments come first
MEANINGS: dict[str, str] = {
    "name": "a name for messages and breakdowns",
    "Arch.name": "the accelerator's name in reports",
    "Arch.node_nm": "technology node (the node table's range: accelgen tech)",
    "vdd_v": "supply voltage [default: the node's nominal supply]",
    "Arch.target_tops": "peak TOPS to reach: the clock is derived from it (instead of clock_mhz)",
    "Arch.cores": "number of identical cores",
    "Arch.core": "what one core holds",
    "Arch.chip": "the chip-level parts (network, off-chip memory, host link, white space)",
    "Arch.activity": "activity factors of the dynamic power per kind of unit, and the operand density",
    "Activity.default": "activity of every unit without its own factor",
    "Activity.tensor": "activity of the tensor units", "Activity.vector": "activity of the vector unit",
    "Activity.memory": "activity of the on-chip memories", "Activity.noc": "activity of the on-chip network",
    "Activity.dram": "activity of the off-chip memory interface", "Activity.host": "activity of the host link",
    "Activity.scalar": "activity of the scalar core",
    "Chip.noc": "the on-chip network joining the cores", "Chip.offchip": "the off-chip memory (DRAM) interface",
    "Chip.host": "the host link (PCIe)", "Chip.die_budget_mm2": "die area budget the design space keeps within",
    "Core.tensor_units": "systolic arrays", "Core.reduction_trees": "reduction trees (FAN, ART, linear, adder tree)",
    "Core.dot_products": "dot-product units", "Core.flex_dpes": "SIGMA Flex-DPEs",
    "Core.tensordash": "TensorDash PEs or tiles", "Core.vector_unit": "the vector unit",
    "Core.vector_regfile": "the vector register file", "Core.scalar_unit": "a small in-order scalar core",
    "Core.memories": "on-chip memories (scratch pads, buffers)",
    "count": "number of identical instances",
    "inputs": "number of inputs reduced (or of products summed)",
    "width": "operand or sum width", "dtype": "datatype: int, or a floating-point format (fp16, bf16, fp32)",
    "pipeline": "auto (the least energy per op among the stages that meet the clock) or explicit register stages",
    "k": "multipliers per Flex-DPE", "lanes": "lanes (parallel operands)",
    "rows": "rows of the array", "cols": "columns of the array",
    "dataflow": "ws (weight-), os (output-) or is (input-stationary)",
    "interconnect": "how operands reach the PEs: unicast or multicast",
    "ReductionTree.kind": "the tree's structure (fan, linear, tree, art, linear_reduction)",
    "RegisterFile.entries": "entries per register file",
    "Memory.name": "the memory's name (unique in the core)", "Memory.capacity_bytes": "capacity",
    "Memory.block_bytes": "access (block) size", "Memory.cell": "bit cell: sram, sram_lp (low power), dff, or auto (low power unless its macro misses the clock)",
    "Memory.banks": "banks [default: chosen to meet bandwidth_gbps]", "Memory.ports": "ports per bank",
    "Memory.latency_ns": "access latency to meet [default: the model's]",
    "NoC.topology": "mesh, ring or bus", "NoC.tx": "mesh columns", "NoC.ty": "mesh rows",
    "NoC.flit_bits": "flit (link) width",
    "OffChip.bandwidth_gbps": "off-chip bandwidth", "OffChip.channels": "DRAM channels",
    "Host.pcie_gen": "PCIe generation", "Host.lanes": "PCIe lanes",
    "DieBlock.name": "the block's name", "DieBlock.area_mm2": "its published area at ref_node_nm",
    "DieBlock.energy_pj_per_cycle": "its published energy per cycle",
    "DieBlock.leakage_mw": "its published leakage", "DieBlock.ref_node_nm": "the node of the published figures",
    "DieBlock.ref_vdd_v": "the supply of the published figures",
    "source": "where the figure is published (paper, section, table)",
    "scope": "what the figure covers (chip, core, compute array)", "parts": "the figure's published breakdown",
    "share": "share of the figure's total", "AreaFigure.mm2": "published area",
    "PowerFigure.w": "published power", "PowerFigure.batch": "batch size of the workload run",
    "PowerFigure.dram_word_bits": "DRAM word width of the published traffic",
    "PowerFigure.layers_source": "where the per-layer figures are published",
    "LayerFigure.latency_ms": "the layer's latency (the whole batch)", "LayerFigure.power_w": "its average power",
    "Published.area": "the published area", "Published.power": "the published power",
    "Published.tops": "published peak TOPS", "Published.clock_mhz": "published clock",
    "Published.dtype": "the datatype of the published TOPS",
    "Published.unmodelled": "blocks of the real die the description does not model",
    "Published.comparison": "why the chip has no absolute figure to compare with",
    "Unmodelled.name": "the block's name", "Unmodelled.share": "its published share of the area",
    "seeds": "stimulus seeds (each test runs with each)", "timeout_s": "per test: a hung simulation is killed",
    "testbench": "cocotb, or the compiled Verilator testbench (same checks)",
    "_RegressSchema.name": "the regression's name [default: the file's]",
    "_RegressSchema.blocks": "the blocks and their parameter matrices",
    "_RegressSchema.accelerators": "whole accelerators of architecture files, run on layers after the blocks",
    "_BlockEntry.vectors": "random vectors per mode (else the mode's default)",
    "_BuildSchema.sim": "the simulator of every co-simulation", "_BuildSchema.cosim": "cosim options of every block",
    "_BuildSchema.synth": "synthesize every block (Yosys statistics)",
    "_BuildSchema.blocks": "the blocks to generate, co-simulate and synthesize",
}


def _describe(schema: dict, cls: type | None) -> None:
    """Fill a model schema's missing field descriptions from ``cls``'s comments (its bases' too), else
    :data:`MEANINGS`, and add each field's unit."""
    comments: dict[str, str] = {}
    for base in reversed(cls.__mro__ if cls is not None else ()):
        if isinstance(base, type) and issubclass(base, BaseModel) and base.__module__.startswith("accelgen"):
            comments |= field_comments(base)
    model = cls.__name__ if cls is not None else ""
    for name in schema.get("properties", {}):
        meaning = MEANINGS.get(f"{model}.{name}", MEANINGS.get(name))
        if meaning and name not in comments:
            comments[name] = meaning
    if cls is not None and "description" not in schema and cls.__doc__ and cls.__module__.startswith("accelgen"):
        schema["description"] = inspect.cleandoc(cls.__doc__).split("\n\n")[0].replace("\n", " ")
    for name, prop in schema.get("properties", {}).items():
        if "description" not in prop and name in comments:
            prop["description"] = comments[name]
        unit = unit_of(name)
        if unit and "x-unit" not in prop:
            prop["x-unit"] = unit
            prop["description"] = (prop.get("description", "") + f" Unit: {unit}.").strip()


def model_schema(root: type[BaseModel]) -> dict:
    """``root``'s JSON Schema (its models in ``$defs``), every field described (:func:`_describe`)."""
    schema = root.model_json_schema(ref_template="#/$defs/{model}")
    classes = _models_in(root, {})
    _describe(schema, root)
    for name, sub in schema.get("$defs", {}).items():
        _describe(sub, classes.get(name))
    return schema


def _merge_defs(into: dict, schema: dict) -> dict:
    """Move ``schema``'s ``$defs`` into ``into`` (a name used twice must be one model); return ``schema``."""
    for name, sub in schema.pop("$defs", {}).items():
        if name in into and into[name] != sub:
            raise ValueError(f"two models named {name!r} in one schema")
        into[name] = sub
    return schema


def _document(kind: str, schema: dict) -> dict:
    title, description = FORMATS[kind]
    head = {"$schema": DIALECT, "$id": f"https://accelgen.invalid/schemas/{kind}.schema.json", "title": title,
            "description": description}
    own = schema.get("description", "")
    head["description"] = f"{description} {own}".strip()
    return head | {k: v for k, v in schema.items() if k not in ("title", "description")}


# --------------------------------------------------------------------------- the block families, by name

def _family_params(families: dict[str, BlockFamily], defs: dict) -> dict[str, str]:
    """Each family's parameter schema in ``defs`` (as ``params_<family>``); ``{family: its $ref}``."""
    refs = {}
    for name, fam in families.items():
        sub = _merge_defs(defs, model_schema(fam.params_model))
        sub["title"] = f"{name} parameters"
        sub["description"] = f"The parameters of block family {name!r}: {fam.summary}."
        defs[f"params_{name}"] = sub
        refs[name] = f"#/$defs/params_{name}"
    return refs


def _by_family(key: str, families: dict[str, BlockFamily], then: typing.Callable[[str, BlockFamily], dict]) -> list:
    """``if <key> is F then ...`` for each family ``F`` (what an editor can check of each block's own fields)."""
    return [{"if": {"properties": {key: {"const": name}}, "required": [key]}, "then": then(name, fam)}
            for name, fam in families.items()]


def _options_names(fam: BlockFamily) -> dict:
    names = [o.name for o in fam.cosim_options]
    return {"type": "object", "propertyNames": {"enum": names}} if names else {"type": "object", "maxProperties": 0}


# --------------------------------------------------------------------------- the four formats

def arch_schema() -> dict:
    """The architecture description's schema (:class:`accelgen.ppa.arch.Arch`); ``core.units`` entries by kind."""
    schema = model_schema(Arch)
    defs = schema["$defs"]
    lo, hi = node_range()
    schema["properties"]["node_nm"] |= {"minimum": lo, "maximum": hi}
    schema["properties"]["clock_mhz"]["anyOf"][1] |= {"exclusiveMinimum": 0, "maximum": 10000}
    schema["oneOf"] = [{"required": ["clock_mhz"]}, {"required": ["target_tops"]}]
    schema["description"] = ("Give exactly one of clock_mhz and target_tops. The loader also checks each unit's "
                             "cross-field rules, that a core has a compute unit and that a mesh NoC's tx x ty equals "
                             "cores.")
    kinds = placeable_kinds()
    branches = []
    for kind in kinds:
        sub = _merge_defs(defs, model_schema(unit_class(kind).params_schema))
        sub = copy.deepcopy(sub)
        sub["properties"] = {"kind": {"const": kind, "description": "the unit's kind"}} | sub["properties"]
        sub["required"] = ["kind", *sub.get("required", [])]
        sub["title"] = f"unit {kind}"
        defs[f"unit_{kind}"] = sub
        branches.append({"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
                         "then": {"$ref": f"#/$defs/unit_{kind}"}})
    defs["Core"]["properties"]["units"]["items"] = {
        "type": "object", "required": ["kind"],
        "properties": {"kind": {"enum": list(kinds), "description": "the kind of PPA unit (accelgen components)"}},
        "allOf": branches}
    return _document("arch", schema)


def _grid_block(fam: BlockFamily | None, what: str) -> dict:
    """A sweep grid block: each parameter a value or a list of values (a cartesian product)."""
    block: dict[str, Any] = {"type": "object", "description": what,
                             "additionalProperties": {"description": "a value, or a list of values"}}
    if fam is not None:
        block["propertyNames"] = {"enum": list(fam.params_model.model_fields)}
    return block


def sweep_schema(families: dict[str, BlockFamily]) -> dict:
    """The sweep file's schema, from :func:`accelgen.fit.sweep.load_sweep`'s checks (the file is not a pydantic
    model): its keys, the ranges of :func:`accelgen.fit.sweep.settings_problems`, the targets of
    :data:`accelgen.fit.model.TARGETS`. Every point must also validate against the family's parameters (the
    loader checks the expanded points)."""
    defaults = SweepSpec(family="", grid=[])
    blocks = {"type": ["array", "null"], "items": _grid_block(None, "a block of the grid")}
    target = {"type": "object", "additionalProperties": False, "required": ["features"], "properties": {
        "features": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                     "description": "the regression's terms: expressions of the parameters and `density` "
                                    "(e.g. \"a_width*b_width\", \"1\")"},
        "positive": {"type": "boolean", "default": False,
                     "description": "fit non-negative coefficients (every feature an amount of hardware)"},
        "link": {"enum": ["identity", "log"], "default": "identity",
                 "description": "identity: y = sum coef*f; log: y = exp(sum coef*f)"}}}
    properties = {
        "family": {"enum": list(families), "description": "the block family (required for a variant's sweep, "
                                                          "mac-bf16: family: mac) [default: the sweep's name]"},
        "grid": {"type": "array", "minItems": 1, "items": _grid_block(None, "a cartesian product of parameters"),
                 "description": "the training points: a list of blocks, each a cartesian product"},
        "heldout": blocks | {"description": "points never used for fitting (none may also be in the grid)"},
        "derived": {"type": ["object", "null"], "additionalProperties": {"type": "string"},
                    "description": "parameters computed from the others (acc_width: \"a_width + b_width + 8\")"},
        "densities": {"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1},
                      "default": defaults.densities, "description": "operand densities simulated (fraction of "
                                                                    "non-zero operands)"},
        "profile": {"enum": list(PROFILES), "description": "how the non-zero operands are drawn (docs/refit.md, "
                                                           "'Stimulus profiles'; the model file records it) "
                                                           "[default: uniform for integer operands, normal for fp]"},
        "cycles": {"type": "integer", "minimum": 8, "maximum": 100_000, "default": defaults.cycles,
                   "description": "simulated cycles per stream"},
        "lanes": {"type": "integer", "minimum": 1, "maximum": 64, "default": defaults.lanes,
                  "description": "independent streams (seeds), simulated bit-parallel"},
        "seed": {"type": "integer", "minimum": 0, "default": defaults.seed, "description": "stimulus seed"},
        "clock_mhz": {"type": "number", "minimum": 1, "maximum": 20000, "default": DEFAULT_CLOCK_MHZ,
                      "description": "the target clock of the timing-driven mapping, at the library's node"},
        "glitch_samples": {"type": "integer", "minimum": 0, "maximum": 1000, "default": defaults.glitch_samples,
                           "description": "training points that also get a timed (glitch) simulation"},
        "glitch_extra": {"type": ["array", "null"], "items": {"type": "object"},
                         "description": "training points sampled besides those, each as a grid block lists it"},
        "targets": {"type": "object", "propertyNames": {"enum": list(TARGETS)}, "additionalProperties": target,
                    "description": "the regression form of each fitted quantity"},
    }
    for name in properties:
        if unit_of(name):
            properties[name] |= {"x-unit": unit_of(name),
                                 "description": properties[name]["description"] + f" Unit: {unit_of(name)}."}
    schema = {"type": "object", "additionalProperties": False, "required": ["grid"], "properties": properties,
              "allOf": _by_family("family", families, lambda name, fam: {"properties": {
                  "grid": {"items": _grid_block(fam, "a cartesian product of parameters")},
                  "heldout": {"items": _grid_block(fam, "a block of held-out points")}}})}
    return _document("sweep", schema)


def regress_schema(families: dict[str, BlockFamily]) -> dict:
    """The regression description's schema (:mod:`accelgen.cosim.regression.spec`), each block's parameters,
    matrix and options checked against its family's."""
    schema = model_schema(_RegressSchema)
    defs = schema["$defs"]
    refs = _family_params(families, defs)
    entry = defs["_BlockEntry"]
    entry["title"] = "regression block"
    entry["properties"]["block"] |= {"enum": list(families), "description": "the block family"}
    entry["properties"]["params"]["description"] = "base parameters of the family"
    entry["properties"]["matrix"]["description"] = "a cartesian product over these parameters' lists of values"
    entry["properties"]["modes"]["description"] = "; ".join(f"{m}: {h}" for m, h in MODE_HELP.items())
    entry["properties"]["options"]["description"] = "the family's cosim options (accelgen cosim BLOCK --help)"
    entry["allOf"] = _by_family("block", families, lambda name, fam: {"properties": {
        "params": {"$ref": refs[name]},
        "matrix": {"propertyNames": {"enum": list(fam.params_model.model_fields)}},
        "options": _options_names(fam)}})
    schema["properties"]["modes"]["description"] = entry["properties"]["modes"]["description"]
    accel = defs["_AccelEntry"]
    accel["title"] = "regression accelerator"
    accel["properties"]["gemms"]["items"] |= {"pattern": GEMM_PATTERN}
    accel["properties"]["seeds"]["description"] = "stimulus seeds (each layer runs with each) [default: the file's]"
    # at least one block or accelerator (the loader says so in one line; spec.parse_regression)
    schema["anyOf"] = [{"required": [key], "properties": {key: {"minItems": 1}}} for key in ("blocks", "accelerators")]
    for where in (schema, entry, accel):      # a single simulator may be given bare (spec._as_list)
        sims = where["properties"]["sim"]
        listed = {k: v for k, v in sims.items() if k not in ("default", "title", "description")}
        sims.clear()
        sims |= {"anyOf": [{"enum": list(SIMULATORS)}, listed] if "anyOf" not in listed else
                 [{"enum": list(SIMULATORS)}, *listed["anyOf"]], "default": ["verilator"] if where is schema else None,
                 "description": "a simulator or a list of them (each test runs on each)"}
    return _document("regress", schema)


def build_schema(families: dict[str, BlockFamily]) -> dict:
    """The build config's schema (:mod:`accelgen.gen.config`), each block's parameters and cosim options checked
    against its family's."""
    schema = model_schema(_BuildSchema)
    defs = schema["$defs"]
    refs = _family_params(families, defs)
    entry = defs["_BlockEntry"]
    entry["title"] = "build block"
    entry["properties"]["block"] |= {"enum": list(families), "description": "the block family"}
    entry["properties"]["name"]["description"] = "module and file name [default: the family's name]"
    entry["properties"]["params"]["description"] = "the family's parameters (accelgen blocks)"
    entry["properties"]["cosim"] = {"anyOf": [{"$ref": "#/$defs/CosimOptions"}, {"type": "null"}],
                                    "description": "this block's cosim options over the config's"}
    defs["CosimOptions"]["properties"]["vectors"]["anyOf"][0]["maximum"] = MAX_VECTORS
    defs["CosimOptions"]["properties"]["enabled"]["description"] = "co-simulate this block"
    entry["allOf"] = _by_family("block", families, lambda name, fam: {"properties": {
        "params": {"$ref": refs[name]},
        "cosim": {"anyOf": [{"properties": {"options": _options_names(fam)}}, {"type": "null"}]}}})
    return _document("build", schema)


def schema(kind: str, families: dict[str, BlockFamily]) -> dict:
    """The JSON Schema of format ``kind`` (one of :data:`FORMATS`); ``families``: name -> block family."""
    if kind == "arch":
        return arch_schema()
    makers = {"sweep": sweep_schema, "regress": regress_schema, "build": build_schema}
    if kind not in makers:
        raise ValueError(f"kind {kind!r} is not allowed; expected one of {', '.join(FORMATS)}")
    return makers[kind](families)
