"""The command tree: commands grouped by what a user does, the flat names that came before kept as aliases.

``accelgen hw ...`` generates and checks hardware, ``accelgen model ...`` builds and queries the fitted PPA models,
``accelgen ppa ...`` estimates chips and explores designs; a command that belongs to one block family sits under that
family (``accelgen sigma report``). Each command is defined once, in its module (:mod:`.blocks`, :mod:`.fit`, ...);
this module only places it. Every earlier name (``accelgen gen``, ``accelgen fit-report``, ``accelgen cycles
systolic``) is the *same* click command object registered under that name too, so its options, behaviour and exit
codes cannot drift from the grouped command's; ``accelgen --help`` lists the aliases in a section of their own.
"""

from __future__ import annotations

import click

from . import blocks, dse, estimate, fit, flexdpe, ladder, perf, regress, schema, study, tech, tensordash, warmup


class OrderedGroup(click.Group):
    """A group that lists its commands in the order they were added (a workflow's order, not the alphabet's)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


def _group(name: str, summary: str, commands: dict[str, click.Command]) -> OrderedGroup:
    group = OrderedGroup(name, help=summary)
    for command_name, command in commands.items():
        group.add_command(command, command_name)
    return group


hw = _group("hw", "Hardware: generate, co-simulate, synthesize and regress blocks.", {
    "gen": blocks.gen_group, "cosim": blocks.cosim_group, "synth": blocks.synth_group, "build": blocks.build_cmd,
    "regress": regress.regress_cmd, "blocks": blocks.blocks_cmd, "schema": schema.schema_cmd,
    "warmup": warmup.warmup_cmd})
model = _group("model", "Fitted PPA models: sweep, fit, report, predict.", {
    "sweep": fit.sweep_cmd, "fit": fit.fit_cmd, "report": fit.fit_report_cmd, "predict": fit.predict_cmd})
ppa = _group("ppa", "Chips: estimate, performance, design space, studies, inputs.", {
    "estimate": estimate.estimate_cmd, "perf": perf.perf_cmd, "dse": dse.dse_cmd, "study": study.study_cmd,
    "validate": estimate.validate_chips_cmd, "components": ladder.validate_components_cmd, "sram": estimate.sram_cmd,
    "tech": tech.tech_group,
    "workload": perf.workload_group})
sigma = _group("sigma", "SIGMA's Flex-DPE: cycles and efficiency of GEMMs.", {
    "report": flexdpe.sigma_report_cmd})
systolic = _group("systolic", "Systolic array: cycles and utilization of GEMMs.", {
    "cycles": perf.cycles_systolic_cmd})
tensordash_group = _group("tensordash", "TensorDash PE: speedup over dense versus sparsity.", {
    "speedup": tensordash.tensordash_speedup_cmd})

#: the sections of ``accelgen --help``, each with its groups
SECTIONS: dict[str, tuple[OrderedGroup, ...]] = {
    "Commands": (hw, model, ppa),
    "Block family commands": (sigma, systolic, tensordash_group),
}

#: every earlier command name -> its path in the grouped tree (the two run the same command object)
ALIASES: dict[str, str] = {
    "gen": "hw gen", "cosim": "hw cosim", "synth": "hw synth", "build": "hw build", "regress": "hw regress",
    "blocks": "hw blocks", "schema": "hw schema", "warmup": "hw warmup",
    "sweep": "model sweep", "fit": "model fit", "fit-report": "model report", "predict": "model predict",
    "estimate": "ppa estimate", "perf": "ppa perf", "dse": "ppa dse", "study": "ppa study",
    "validate-chips": "ppa validate", "validate-components": "ppa components", "sram": "ppa sram", "tech": "ppa tech",
    "workload": "ppa workload",
    "sigma-report": "sigma report", "cycles systolic": "systolic cycles",
    "tensordash-speedup": "tensordash speedup", "tensordash-sweep": "tensordash speedup",
}

#: the earlier groups an alias of two words runs through (``cycles systolic``): its subcommand is the grouped command
ALIAS_GROUPS: tuple[click.Group, ...] = (perf.cycles_group,)


def command_at(path: str) -> click.Command:
    """The command at a path of the grouped tree (``"ppa tech"``); ``KeyError`` names a path the tree lacks."""
    first, *rest = path.split()
    command: click.Command = {g.name: g for groups in SECTIONS.values() for g in groups}[first]
    for word in rest:
        command = command.commands[word]
    return command


def alias_commands() -> dict[str, click.Command]:
    """Each earlier top-level name with the command it runs: a grouped command itself, or an earlier group."""
    commands: dict[str, click.Command] = {old: command_at(new) for old, new in ALIASES.items() if " " not in old}
    commands.update({group.name: group for group in ALIAS_GROUPS})
    return commands


class RootGroup(OrderedGroup):
    """``accelgen``: the groups of :data:`SECTIONS` plus the aliases of :data:`ALIASES`, each listed in its section."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        for title, groups in SECTIONS.items():
            limit = formatter.width - 6 - max(len(g.name) for g in groups)     # click's own spacing
            with formatter.section(title):
                formatter.write_dl([(g.name, g.get_short_help_str(limit)) for g in groups])
        with formatter.section("Aliases (kept for scripts)"):
            formatter.write_dl([(old, f"-> {new}") for old, new in ALIASES.items()])


def register(root: click.Group) -> None:
    """Add the grouped tree and every alias to the root command."""
    for groups in SECTIONS.values():
        for group in groups:
            root.add_command(group)
    for old, command in alias_commands().items():
        root.add_command(command, old)
