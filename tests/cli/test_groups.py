"""The grouped command line (``accelgen hw|model|ppa ...``, family commands under their family) and its aliases.

Every earlier flat name must keep working for scripts: it resolves to the very command object of its grouped path
(so options, behaviour and exit codes are the same by construction), and ``accelgen --help`` lists it.
"""

import json
import re
import subprocess
import sys

import click
import pytest

from accelgen.cli import blocks, cli, dse, estimate, fit, flexdpe, main, perf, regress, study, tech, tensordash, tree
from accelgen.cli import ladder, schema, warmup

#: the command line before it was grouped: every top-level name of ``accelgen --help``, and ``cycles systolic``
FLAT_NAMES = ["blocks", "build", "cosim", "cycles", "dse", "estimate", "fit", "fit-report", "gen", "perf", "predict",
              "regress", "schema", "sigma-report", "sram", "study", "sweep", "synth", "tech", "tensordash-speedup",
              "tensordash-sweep", "validate-chips", "validate-components", "warmup", "workload"]

GROUPS = {
    "hw": ["gen", "cosim", "synth", "build", "regress", "blocks", "schema", "warmup"],
    "model": ["sweep", "fit", "report", "predict"],
    "ppa": ["estimate", "perf", "dse", "study", "validate", "components", "sram", "tech", "workload"],
    "sigma": ["report"],
    "systolic": ["cycles"],
    "tensordash": ["speedup"],
}


def accelgen(*args):
    return subprocess.run([sys.executable, "-m", "accelgen", *map(str, args)], capture_output=True, text=True)


def resolve(path: str) -> click.Command:
    """The command ``accelgen PATH`` runs, found the way click finds it (``resolve_command`` word by word)."""
    command, ctx = cli, click.Context(cli, info_name="accelgen")
    for word in path.split():
        _, command, _ = command.resolve_command(ctx, [word])
        ctx = click.Context(command, parent=ctx, info_name=word)
    return command


def test_the_groups_hold_their_commands_in_workflow_order():
    ctx = click.Context(cli)
    assert [name for name in cli.list_commands(ctx) if name in GROUPS] == list(GROUPS)
    for group, commands in GROUPS.items():
        assert resolve(group).list_commands(ctx) == commands, group


@pytest.mark.parametrize("old", tree.ALIASES)
def test_an_alias_runs_the_same_command_as_its_grouped_path(old):
    assert resolve(old) is resolve(tree.ALIASES[old])


def test_every_flat_name_is_an_alias():
    assert sorted({old.split()[0] for old in tree.ALIASES}) == FLAT_NAMES
    assert set(tree.ALIASES.values()) == {f"{g} {c}" for g, commands in GROUPS.items() for c in commands}
    assert resolve("cycles systolic") is perf.cycles_systolic_cmd


MODULES = [blocks, dse, estimate, fit, flexdpe, ladder, perf, regress, schema, study, tech, tensordash, warmup]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_module_command_keeps_its_own_name(module):
    for command in module.COMMANDS:
        assert resolve(command.name) is command


@pytest.mark.parametrize("old,new", [("fit-report", "model report"), ("validate-chips", "ppa validate"),
                                     ("sigma-report", "sigma report"), ("tensordash-speedup", "tensordash speedup"),
                                     ("tensordash-sweep", "tensordash speedup"), ("build", "hw build")])
def test_renamed_commands(old, new):
    assert resolve(old) is resolve(new)


def test_help_lists_the_groups_and_every_alias():
    proc = accelgen("--help")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for section in ("Commands:", "Block family commands:", "Aliases (kept for scripts):"):
        assert f"\n{section}\n" in out, section
    commands, families, aliases = (out.split(s, 1)[1] for s in ("Commands:", "Block family commands:", "Aliases"))
    for group in GROUPS:
        where = commands if group in ("hw", "model", "ppa") else families
        assert re.search(rf"^  {group} +{re.escape(resolve(group).help[:20])}", where, re.M), group
    for old, new in tree.ALIASES.items():
        assert re.search(rf"^  {re.escape(old)} +-> {new}$", aliases, re.M), old


def run(capsys, *args) -> tuple[int, str, str]:
    rc = main(list(map(str, args)))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("group", GROUPS)
def test_group_help_lists_its_commands_with_summaries(capsys, group):
    rc, out, err = run(capsys, group, "--help")
    assert rc == 0, err
    assert out.startswith(f"Usage: accelgen {group} [OPTIONS] COMMAND [ARGS]...")
    listed = out.split("Commands:\n", 1)[1]
    for name in GROUPS[group]:
        summary = resolve(f"{group} {name}").get_short_help_str(limit=200)[:15]
        assert re.search(rf"^  {re.escape(name)} +{re.escape(summary)}", listed, re.M), name


@pytest.mark.parametrize("new,old", [
    (["ppa", "tech", "show", "--json"], ["tech", "show", "--json"]),
    (["model", "predict", "mac", "a_width=8", "b_width=8", "acc_width=32", "--json"],
     ["predict", "mac", "a_width=8", "b_width=8", "acc_width=32", "--json"]),
    (["systolic", "cycles", "--rows", "8", "--cols", "8", "--gemm", "16,16,16", "--json"],
     ["cycles", "systolic", "--rows", "8", "--cols", "8", "--gemm", "16,16,16", "--json"]),
])
def test_a_grouped_command_runs_like_its_alias(capsys, new, old):
    rc, out, err = run(capsys, *new)
    assert rc == 0, err
    assert json.loads(out)
    assert run(capsys, *old) == (rc, out, err)


@pytest.mark.parametrize("new,old", [
    (["hw", "gen", "foo"], ["gen", "foo"]),
    (["systolic", "cycles", "--rows", "4", "--cols", "4", "--gemm", "4,4,4", "--dataflow", "os",
      "--weight-load", "double"],
     ["cycles", "systolic", "--rows", "4", "--cols", "4", "--gemm", "4,4,4", "--dataflow", "os",
      "--weight-load", "double"]),
])
def test_a_grouped_command_fails_like_its_alias(capsys, new, old):
    rc, out, err = run(capsys, *new)
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    rc_old, out_old, err_old = run(capsys, *old)
    assert (rc_old, out_old) == (rc, out)
    assert err_old.split(": error: ")[1] == err.split(": error: ")[1]     # the prefix names the path typed


def test_an_alias_shows_the_name_it_was_called_by():
    proc = accelgen("tensordash-sweep", "--help")
    assert proc.returncode == 0 and proc.stdout.startswith("Usage: accelgen tensordash-sweep [OPTIONS]")
