"""``accelgen regress``: run a cosim regression (blocks x parameters x modes x seeds x simulators, then accelerators
x layers x seeds x simulators)."""

from __future__ import annotations

from pathlib import Path

import click

from ..family import SIMULATORS
from .console import console
from .options import with_opt


def _print_summary(con, res) -> None:
    if res.results:
        _print_blocks(con, res)
    if res.accelerators:
        _print_accelerators(con, res)


def _print_blocks(con, res) -> None:
    from rich.table import Table

    from ..cosim.regression.report import pct_text

    code = (res.code_coverage or {}).get("families")
    verdict = "FAIL" if res.failures else "PASS"    # the blocks' (the accelerators have their own table)
    table = Table("family", "tests", "passed", "failed", "reused", "cycles", "checks", "sim time (s)", "coverage",
                  *(("line", "toggle") if code is not None else ()),
                  title=f"accelgen regress {res.name}: {verdict} "
                        f"({res.wall_s:.1f} s on {res.jobs}; {_builds_text(res)})")
    cov = res.coverage()
    fams: dict[str, list] = {}
    for r in res.results:
        fams.setdefault(r.family, []).append(r)
    for fam, rs in fams.items():
        c = cov.get(fam)
        table.add_row(fam, str(len(rs)), str(sum(r.passed for r in rs)),
                      str(sum(r.status in ("failed", "timeout", "error") for r in rs)),
                      str(sum(r.reused for r in rs)), str(sum(r.cycles for r in rs)), str(sum(r.checks for r in rs)),
                      f"{sum(r.sim_s for r in rs):.1f}",
                      f"{c.covered}/{len(c.bins)} bins ({100 * c.fraction:.0f}%)" if c and c.bins else "-",
                      *((pct_text(code.get(fam, {}).get("line_pct")), pct_text(code.get(fam, {}).get("toggle_pct")))
                        if code is not None else ()))
    con.print(table)
    for fam, c in cov.items():
        if c.missed:
            con.print(f"  coverage {fam}: never hit: {', '.join(c.missed)}")
    if res.closure:
        con.print(f"  closure: {res.closure['tests_added']} tests added in {res.closure['rounds']} rounds; stopped: "
                  f"{res.closure['stopped']}")
    not_run = res.count("not-run")
    if not_run:
        con.print(f"  {not_run} tests not run (--rerun-failed runs earlier failures only)")
    for r in res.failures:
        con.print(f"[bold red]{r.status.upper()}[/] {r.test_id}: {r.error or f'{r.mismatches} mismatches'}")
        for mm in r.first_mismatches[:3]:
            con.print(f"    cycle {mm['cycle']}: {mm['port']} expected {mm['expected']}, got {mm['got']}")
        if r.waveform:
            con.print(f"    waveform: {r.waveform}")
        con.print(f"    reproduce: {r.reproduce}", soft_wrap=True)


def _print_accelerators(con, res) -> None:
    """One row per accelerator, then each failing test with the command that reproduces it."""
    from rich.table import Table

    from ..cosim.regression.results import accelerator_summary

    failed = res.accelerator_failures
    table = Table("accelerator", "tests", "passed", "failed", "reused", "cycles", "worst |cycle error|",
                  title=f"accelerators: {'FAIL' if failed else 'PASS'}")
    for arch, s in accelerator_summary(res.accelerators).items():
        worst = s["worst_cycle_error"]
        table.add_row(f"{s['accelerator']} ({arch})", str(s["tests"]), str(s["passed"]), str(s["failed"]),
                      str(s["reused"]), str(s["cycles"]), "-" if worst is None else f"{worst:.1%}")
    con.print(table)
    not_run = sum(r.status == "not-run" for r in res.accelerators)
    if not_run:
        con.print(f"  {not_run} accelerator tests not run (--rerun-failed runs earlier failures only)")
    for r in failed:
        con.print(f"[bold red]{r.status.upper()}[/] {r.test_id}: {r.error}", soft_wrap=True)
        if r.log:
            con.print(f"    log: {r.log}", soft_wrap=True)
        con.print(f"    reproduce: {r.reproduce}", soft_wrap=True)


def _builds_text(res) -> str:
    """The build side of the build/run split: ``builds 31.2 s (3 compiled at -O2, 7 cached)``."""
    if not res.builds:
        return "no builds"
    compiled = [b for b in res.builds if not b["cached"]]
    levels = sorted({b["opt"] for b in compiled if b["opt"]})
    cached = len(res.builds) - len(compiled)
    return (f"builds {res.build_s:.1f} s ({len(compiled)} compiled" + (f" at {'/'.join(levels)}" if levels else "")
            + (f", {cached} cached" if cached else "") + ")")


@click.command("regress")
@click.argument("reg_path", metavar="REGRESSION", type=click.Path())
@click.option("-j", "--jobs", type=click.IntRange(1, 512), default=None,
              help="Parallel local worker processes [default: the number of cores].")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Run the tests on this Dask scheduler's workers instead of local processes.")
@click.option("--sim", type=click.Choice(SIMULATORS), default=None, help="Run every test on this simulator.")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=None, help="Run every test with this seed.")
@click.option("--rerun-failed", is_flag=True, help="Run only the tests that failed in the previous run.")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), default=None, help="Write JUnit XML here.")
@click.option("--report", "--out", "report_dir", type=click.Path(file_okay=False), default=None,
              help="Output directory: report.html, results.json, the resume state, failing runs' waveforms "
                   "[default: out/regress/<regression name>].")
@click.option("--no-waves", is_flag=True, help="Do not rerun failing tests with tracing for a waveform.")
@click.option("--until-covered", is_flag=True,
              help="Then add random tests with fresh seeds until every reachable functional bin is hit, the budget "
                   "is spent or new seeds stop hitting new bins; report each open bin and why.")
@click.option("--max-tests", type=click.IntRange(1, 100000), default=None,
              help="With --until-covered: the most tests to add [default: as many as the regression has].")
@click.option("--code-coverage", is_flag=True,
              help="Run on models instrumented for Verilator line and toggle coverage (their own cached builds); "
                   "merge it per design and family into the report and results.json.")
@with_opt("-O2 for tests on the compiled testbench (testbench: native), -O0 for cocotb")
def regress_cmd(reg_path, jobs, scheduler, sim, seed, rerun_failed, junit_path, report_dir, no_waves, until_covered,
                max_tests, code_coverage, opt):
    """Run a cosim regression (a YAML file, or a shipped one by name: default, nightly, fp, accelerator): its blocks,
    then its accelerators (layers on the accelerator of an architecture file, local processes); skip what already
    passed (same design, seed, mode); report.

    Exit code 0 when every test passed, 1 when any failed, 2 for bad input.
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from .. import shipped
    from ..cosim.regression import (check_code_coverage, load_regression, run_regression, run_until_covered,
                                    write_html, write_junit)
    from ..registry import FAMILIES
    from ..system.regress import accelerator_tests, run_accelerator_tests
    from ..util import ensure_output_dir

    if max_tests is not None and not until_covered:
        raise click.UsageError("--max-tests is not allowed without --until-covered")
    if until_covered and rerun_failed:
        raise click.UsageError("--until-covered is not allowed with --rerun-failed")
    if scheduler is not None and jobs is not None:
        raise click.UsageError("give either -j (local processes) or --scheduler (Dask), not both")
    if scheduler is not None and "://" not in scheduler:
        raise click.UsageError(f"--scheduler {scheduler!r} is not allowed; expected an address like tcp://HOST:PORT")
    reg = load_regression(shipped.resolve("regressions", reg_path), FAMILIES, sims=[sim] if sim else None,
                          seeds=[seed] if seed is not None else None)
    accel_tests = accelerator_tests(reg)   # reads the architecture files and models: bad input fails before any run
    if code_coverage:
        check_code_coverage(reg)
    out = ensure_output_dir(report_dir or Path("out") / "regress" / reg.name)
    if junit_path:
        ensure_output_dir(Path(junit_path).parent)
    con = console()
    counts = {"passed": 0, "failed": 0}
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("[green]{task.fields[passed]} passed[/] [red]{task.fields[failed]} failed[/]"),
                        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=con, transient=False)
    tasks = {}

    def on_event(kind, payload):
        if kind == "render":
            if "render" not in tasks:
                tasks["render"] = progress.add_task("rendering designs", total=None, passed="-", failed="-")
            progress.update(tasks["render"], description=f"rendering {payload}")
        elif kind == "builds":
            if "render" in tasks:
                progress.update(tasks["render"], description="designs rendered", total=1, completed=1)
            tasks["build"] = progress.add_task("building simulators", total=payload, passed="-", failed="-")
        elif kind == "built":
            progress.advance(tasks["build"])
        elif kind == "tests":
            to_run, reused = payload
            if "test" in tasks:    # a closure round: the same bar grows
                progress.update(tasks["test"], total=progress.tasks[tasks["test"]].completed + to_run)
            else:
                tasks["test"] = progress.add_task(f"tests ({reused} reused)" if reused else "tests", total=to_run,
                                                  passed=0, failed=0)
        elif kind == "accel-tests":
            to_run, reused = payload
            counts.update(passed=0, failed=0)
            tasks["test"] = progress.add_task(f"accelerator tests ({reused} reused)" if reused else "accelerator tests",
                                              total=to_run, passed=0, failed=0)
        elif kind in ("result", "accel-result"):
            counts["passed" if payload.passed else "failed"] += 1
            progress.update(tasks["test"], advance=1, **counts)
            if not payload.passed:
                progress.console.print(f"[red]{payload.status.upper()}[/] {payload.test_id}")

    def on_round(n, open_bins):
        if n:
            left = sum(len(b) for b in open_bins.values())
            progress.console.print(f"closure round {n}: {left} bins open in {', '.join(open_bins) or 'no family'}")

    kw = dict(jobs=jobs, scheduler=scheduler, waves=not no_waves, on_event=on_event, opt=opt,
              code_coverage=code_coverage)
    with progress:
        if not reg.tests:
            res = None
        elif until_covered:
            res = run_until_covered(reg, out, max_tests=max_tests or len(reg.tests), on_round=on_round, **kw)
        else:
            res = run_regression(reg, out, rerun_failed=rerun_failed, **kw)
        if accel_tests or res is None:
            res = run_accelerator_tests(reg, accel_tests, out, res, jobs=jobs, rerun_failed=rerun_failed, opt=opt,
                                        on_event=on_event)
    html_path = write_html(res, out / "report.html")
    _print_summary(con, res)
    if junit_path:
        write_junit(res, junit_path)
        con.print(f"JUnit XML: {junit_path}")
    con.print(f"HTML report: {html_path}  (results: {out / 'results.json'}, state: {out / 'state.json'})")
    return 0 if res.passed else 1


COMMANDS = (regress_cmd,)
