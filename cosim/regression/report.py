"""Regression reports: JUnit XML for CI (:func:`write_junit`) and a self-contained HTML page (:func:`write_html`)."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from pathlib import Path

from ...util import write_atomic
from .results import AccelTestResult, RegressionResult, TestResult, accelerator_summary


def write_junit(res: RegressionResult, path: str | Path) -> Path:
    """JUnit XML: one ``testsuite`` per family and per accelerator, one ``testcase`` per test (reproduce command in
    its output)."""
    path = Path(path)
    accel = res.accelerators

    def accel_count(*statuses):
        return sum(r.status in statuses for r in accel)

    root = ET.Element("testsuites", name=f"accelgen regress {res.name}", tests=str(len(res.results) + len(accel)),
                      failures=str(res.count("failed") + accel_count("failed")),
                      errors=str(res.count("timeout") + res.count("error") + accel_count("error")),
                      skipped=str(res.count("not-run") + accel_count("not-run")), time=f"{res.wall_s:.3f}")
    by_family: dict[str, list[TestResult]] = {}
    for r in res.results:
        by_family.setdefault(r.family, []).append(r)
    signoff = res.signoff()
    for fam, rs in by_family.items():
        suite = ET.SubElement(root, "testsuite", name=fam, tests=str(len(rs)),
                              failures=str(sum(r.status == "failed" for r in rs)),
                              errors=str(sum(r.status in ("timeout", "error") for r in rs)),
                              skipped=str(sum(r.status == "not-run" for r in rs)),
                              time=f"{sum(r.wall_s for r in rs if not r.reused):.3f}")
        s = signoff[fam]
        suite_props = ET.SubElement(suite, "properties")
        for k in ("functional_pct", "line_pct", "toggle_pct"):
            if s[k] is not None:
                ET.SubElement(suite_props, "property", name=k.replace("_pct", "_coverage_pct"), value=f"{s[k]:.1f}")
        ET.SubElement(suite_props, "property", name="open_bins", value=", ".join(s["open_bins"]))
        for r in rs:
            case = ET.SubElement(suite, "testcase", classname=f"accelgen.regress.{fam}", name=r.test_id,
                                 time=f"{0.0 if r.reused else r.wall_s:.3f}")
            props = ET.SubElement(case, "properties")
            for k, v in (("seed", r.seed), ("mode", r.mode), ("sim", r.sim), ("design_sha256", r.design),
                         ("cycles", r.cycles), ("checks", r.checks), ("reused", r.reused)):
                ET.SubElement(props, "property", name=k, value=str(v))
            message = _failure_text(r)
            if r.status == "failed":
                ET.SubElement(case, "failure", message=message, type="mismatch").text = message
            elif r.status in ("timeout", "error"):
                ET.SubElement(case, "error", message=message, type=r.status).text = message
            elif r.status == "not-run":
                ET.SubElement(case, "skipped", message=r.error or "not run")
            ET.SubElement(case, "system-out").text = "reproduce: " + r.reproduce + (
                f"\nwaveform: {r.waveform}" if r.waveform else "")
    _accelerator_suites(root, accel)
    ET.indent(root)
    write_atomic(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
    return path


def _accelerator_suites(root: ET.Element, results: list[AccelTestResult]) -> None:
    """One ``testsuite`` per architecture file, one ``testcase`` per layer, seed and simulator."""
    summary = accelerator_summary(results)
    for arch, s in summary.items():
        rs = [r for r in results if r.arch == arch]
        suite = ET.SubElement(root, "testsuite", name=f"accelerator {s['accelerator']}", tests=str(len(rs)),
                              failures=str(sum(r.status == "failed" for r in rs)),
                              errors=str(sum(r.status == "error" for r in rs)),
                              skipped=str(sum(r.status == "not-run" for r in rs)),
                              time=f"{sum(r.wall_s for r in rs if not r.reused):.3f}")
        suite_props = ET.SubElement(suite, "properties")
        ET.SubElement(suite_props, "property", name="arch", value=arch)
        if s["worst_cycle_error"] is not None:
            ET.SubElement(suite_props, "property", name="worst_cycle_error", value=f"{s['worst_cycle_error']:.4f}")
        for r in rs:
            case = ET.SubElement(suite, "testcase", classname=f"accelgen.regress.accelerator.{s['accelerator']}",
                                 name=r.test_id, time=f"{0.0 if r.reused else r.wall_s:.3f}")
            props = ET.SubElement(case, "properties")
            for k, v in (("layer", r.layer), ("M_N_K", ",".join(map(str, r.shape))), ("seed", r.seed), ("sim", r.sim),
                         ("cycles", r.cycles), ("predicted_cycles", r.predicted_cycles),
                         ("cycle_error", r.cycle_error), ("cycle_tolerance", r.cycle_tolerance),
                         ("reused", r.reused)):
                ET.SubElement(props, "property", name=k, value=str(v))
            message = r.error or ""
            if r.status == "failed":
                ET.SubElement(case, "failure", message=message, type="accelerator").text = message
            elif r.status == "error":
                ET.SubElement(case, "error", message=message, type="error").text = message
            elif r.status == "not-run":
                ET.SubElement(case, "skipped", message=r.error or "not run")
            ET.SubElement(case, "system-out").text = "reproduce: " + r.reproduce + (
                f"\nlog: {r.log}" if r.log else "")


def _failure_text(r: TestResult) -> str:
    parts = [r.error or f"{r.mismatches} mismatches"]
    for mm in r.first_mismatches[:3]:
        parts.append(f"cycle {mm['cycle']}: {mm['port']} expected {mm['expected']}, got {mm['got']}")
    return "; ".join(parts)


_CSS = """body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}th{background:#eee}
.passed{color:#176317;font-weight:bold}.failed,.timeout,.error{color:#b00020;font-weight:bold}.not-run{color:#777}
code{font-size:12px;white-space:pre-wrap;word-break:break-all}.bar{background:#ddd;width:120px;height:10px;display:inline-block}
.bar span{background:#3a7;height:10px;display:block}"""


def _closure_html(closure: dict | None, e) -> str:
    """The ``--until-covered`` outcome: why closure stopped, and each family's open bins with the reason."""
    if not closure:
        return ""
    rows = "".join(f"<tr><td>{e(f)}</td><td>{c['covered']}/{c['bins']}</td><td>"
                   + ("<br>".join(e(f"{b}: {why}") for b, why in c["open"].items()) or "-") + "</td></tr>"
                   for f, c in closure["families"].items())
    return (f"<h2>Coverage closure</h2><p>stopped: {e(closure['stopped'])}; {closure['rounds']} rounds, "
            f"{closure['tests_added']} tests added (budget {closure['max_tests']})</p>"
            f"<table><tr><th>family</th><th>bins hit</th><th>open (why)</th></tr>{rows}</table>")


def pct_text(value: float | None) -> str:
    """A coverage percentage for a table cell (``-`` when there is none)."""
    return "-" if value is None else f"{value:.1f}%"


def _signoff_html(res: RegressionResult, e) -> str:
    """Per family at a glance: tests, functional / line / toggle coverage, open bins."""
    rows = "".join(
        f"<tr><td>{e(f)}</td><td class='{'passed' if not s['failed'] else 'failed'}'>{s['passed']}/{s['tests']}</td>"
        f"<td>{s['failed']}</td><td>{pct_text(s['functional_pct'])} ({s['bins_hit']}/{s['bins']})</td>"
        f"<td>{pct_text(s['line_pct'])}</td><td>{pct_text(s['toggle_pct'])}</td>"
        f"<td>{e(', '.join(s['open_bins'])) or '-'}</td></tr>" for f, s in res.signoff().items())
    return ("<h2>Sign-off</h2><table><tr><th>family</th><th>passed</th><th>failed</th><th>functional</th>"
            f"<th>line</th><th>toggle</th><th>open bins</th></tr>{rows}</table>")


def _more(count: int, shown: int) -> str:
    return f" (the first {shown} listed)" if count > shown else ""


def _code_coverage_html(code: dict | None, e) -> str:
    """Per design: line and toggle figures, the unhit lines with their Verilog, the signals that never toggled."""
    if not code:
        return ""
    parts = [f"<h2>Code coverage</h2><p>Verilator line and toggle coverage, merged per design with "
             f"{e(str(code['merged_with']))}. A line point is a block or a branch of an <code>if</code>/"
             f"<code>case</code>/<code>?:</code>; a toggle point is one bit rising or falling.</p>"
             "<table><tr><th>design</th><th>tests</th><th>line</th><th>toggle</th><th>unhit lines</th>"
             "<th>signals with bits that never toggled</th></tr>"]
    for digest, d in code["designs"].items():
        if not d["tests"]:
            parts.append(f"<tr><td>{e(d['family'])} {e(digest)}</td><td>0</td><td colspan=4>no coverage data "
                         "(no test of this design ran to the end)</td></tr>")
            continue
        unhit = "".join(f"<tr><td>{e(u['module'])}:{u['line']}</td><td>{e(u['what'])}</td>"
                        f"<td><code>{e(u['source'])}</code></td></tr>" for u in d["unhit_lines"])
        stuck = "".join(f"<tr><td>{e(u['module'])}</td><td><code>{e(u['signal'])}</code></td><td>{e(u['bits'])}"
                        f"{' (never moved)' if u['never'] else ''}</td></tr>" for u in d["untoggled"])
        params = ", ".join(f"{k}={v}" for k, v in d["params"].items())
        parts.append(
            f"<tr><td>{e(d['family'])} {e(digest)}<br>{e(params)}</td><td>{d['tests']}</td>"
            f"<td>{pct_text(d['line_pct'])} ({d['line_hit']}/{d['line_points']})</td>"
            f"<td>{pct_text(d['toggle_pct'])} ({d['toggle_hit']}/{d['toggle_points']})</td>"
            f"<td><details><summary>{d['unhit_count']}{_more(d['unhit_count'], len(d['unhit_lines']))}</summary>"
            f"<table>{unhit}</table></details></td>"
            f"<td><details><summary>{d['untoggled_count']}{_more(d['untoggled_count'], len(d['untoggled']))}"
            f"</summary><table>{stuck}</table></details></td></tr>")
    return "".join(parts) + "</table>"


def cycle_error_text(value: float | None) -> str:
    """A cycle error for a table cell (``+2.8%``; ``-`` when the layer did not run to the end)."""
    return "-" if value is None else f"{value:+.1%}"


def _accelerators_html(results: list[AccelTestResult], e) -> str:
    """Per accelerator at a glance, then one row per test: bit-exact results and measured against predicted
    cycles."""
    if not results:
        return ""
    summary = "".join(
        f"<tr><td>{e(s['accelerator'])}<br>{e(arch)}</td>"
        f"<td class='{'passed' if not s['failed'] else 'failed'}'>{s['passed']}/{s['tests']}</td>"
        f"<td>{s['failed']}</td><td>{s['reused']}</td><td>{s['cycles']}</td>"
        f"<td>{pct_text(None if s['worst_cycle_error'] is None else 100 * s['worst_cycle_error'])}</td></tr>"
        for arch, s in accelerator_summary(results).items())
    order = {"failed": 0, "error": 0, "passed": 1, "not-run": 2}
    rows = "".join(
        f"<tr><td class='{e(r.status)}'>{e(r.status.upper())}{' (earlier run)' if r.reused else ''}</td>"
        f"<td>{e(r.accelerator)}</td><td>{e(r.layer)}</td><td>{' x '.join(map(str, r.shape))}</td><td>{r.seed}</td>"
        f"<td>{e(r.sim)}</td><td>{'' if r.cycles is None else r.cycles}</td>"
        f"<td>{'' if r.predicted_cycles is None else f'{r.predicted_cycles:.0f}'}</td>"
        f"<td>{cycle_error_text(r.cycle_error)} (tolerance {r.cycle_tolerance:.1%})</td>"
        f"<td><code>{e(r.reproduce)}</code>{'<br>' + e(r.error) if r.error and not r.passed else ''}</td></tr>"
        for r in sorted(results, key=lambda r: order.get(r.status, 0)))
    return ("<h2>Accelerators</h2><p>Layers on the accelerator of each architecture file: a test passes when its "
            "results are bit-exact and its measured cycles are within the tolerance of <code>accelgen perf</code>'s "
            "prediction.</p><table><tr><th>accelerator</th><th>passed</th><th>failed</th><th>reused</th>"
            f"<th>cycles</th><th>worst |cycle error|</th></tr>{summary}</table><h3>Accelerator tests</h3>"
            "<table><tr><th>status</th><th>accelerator</th><th>layer</th><th>M x N x K</th><th>seed</th><th>sim</th>"
            "<th>cycles</th><th>predicted</th><th>cycle error</th><th>reproduce</th></tr>"
            f"{rows}</table>")


def write_html(res: RegressionResult, path: str | Path) -> Path:
    """A self-contained HTML report: summary, coverage per family, and one row per test."""
    path = Path(path)
    e = html.escape
    counts = ", ".join(f"{res.count(s)} {s}" for s in ("passed", "failed", "timeout", "error", "not-run")
                       if res.count(s))
    reused = sum(r.reused for r in res.results)
    accel_counts = ", ".join(f"{n} {s}" for s in ("passed", "failed", "error", "not-run")
                             if (n := sum(r.status == s for r in res.accelerators)))
    if any(r.reused for r in res.accelerators):
        accel_counts += f" ({sum(r.reused for r in res.accelerators)} passes reused from earlier runs)"
    rows = []
    order = {"failed": 0, "timeout": 0, "error": 0, "passed": 1, "not-run": 2}
    for r in sorted(res.results, key=lambda r: order.get(r.status, 0)):
        params = ", ".join(f"{k}={v}" for k, v in r.params.items())
        opts = ", ".join(f"{k}={v}" for k, v in r.options.items())
        detail = "" if r.passed else e(_failure_text(r))
        rows.append(
            f"<tr><td class='{e(r.status)}'>{e(r.status.upper())}{' (earlier run)' if r.reused else ''}</td>"
            f"<td>{e(r.family)}</td><td>{e(params)}{'<br>options: ' + e(opts) if opts else ''}</td>"
            f"<td>{e(r.mode)}</td><td>{r.seed}</td><td>{e(r.sim)}</td><td>{r.cycles}</td><td>{r.checks}</td>"
            f"<td>{r.sim_s:.2f}</td><td>{e(r.waveform) if r.waveform else ''}</td>"
            f"<td><code>{e(r.reproduce)}</code>{'<br>' + detail if detail else ''}</td></tr>")
    cov_rows = []
    for fam, c in res.coverage().items():
        pct = 100 * c.fraction
        cov_rows.append(f"<tr><td>{e(fam)}</td><td><span class='bar'><span style='width:{pct:.0f}%'></span></span> "
                        f"{c.covered}/{len(c.bins)} ({pct:.0f}%)</td><td>{e(', '.join(c.missed)) or '-'}</td>"
                        f"<td>{'<br>'.join(e(f'{k}: {v}') for k, v in sorted(c.unreachable.items())) or '-'}</td>"
                        f"<td>{e(', '.join(f'{k}: {v}' for k, v in sorted(c.hits.items())))}</td></tr>")
    blocks = f"""{_signoff_html(res, e)}
<h2>Functional coverage</h2>
<table><tr><th>family</th><th>bins hit</th><th>never hit</th><th>unreachable (why)</th><th>hits per bin</th></tr>
{''.join(cov_rows)}</table>
{_closure_html(res.closure, e)}
{_code_coverage_html(res.code_coverage, e)}
<h2>Tests</h2>
<table><tr><th>status</th><th>block</th><th>parameters</th><th>mode</th><th>seed</th><th>sim</th><th>cycles</th>
<th>checks</th><th>sim time (s)</th><th>waveform</th><th>reproduce</th></tr>
{''.join(rows)}</table>""" if res.results or not res.accelerators else ""
    block_counts = f"{len(res.results)} tests: {e(counts)}" + (
        f" ({reused} passes reused from earlier runs)" if reused else "")
    accel_text = f"{len(res.accelerators)} accelerator tests: {e(accel_counts)}" if res.accelerators else ""
    doc = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>accelgen regress {e(res.name)}</title>
<style>{_CSS}</style></head><body>
<h1>accelgen regress {e(res.name)}: {'PASS' if res.passed else 'FAIL'}</h1>
<p>{'; '.join(t for t in (block_counts if blocks else '', accel_text) if t)};
wall time {res.wall_s:.1f} s on {e(res.jobs)}; source {e(str(res.source))}; run {e(res.run_id)}</p>
{blocks}
{_accelerators_html(res.accelerators, e)}
</body></html>
"""
    write_atomic(path, doc)
    return path
