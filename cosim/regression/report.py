"""Regression reports: JUnit XML for CI (:func:`write_junit`) and a self-contained HTML page (:func:`write_html`)."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from pathlib import Path

from ...util import write_atomic
from .results import RegressionResult, TestResult


def write_junit(res: RegressionResult, path: str | Path) -> Path:
    """JUnit XML: one ``testsuite`` per family, one ``testcase`` per test (reproduce command in its output)."""
    path = Path(path)
    root = ET.Element("testsuites", name=f"accelgen regress {res.name}", tests=str(len(res.results)),
                      failures=str(res.count("failed")), errors=str(res.count("timeout") + res.count("error")),
                      skipped=str(res.count("not-run")), time=f"{res.wall_s:.3f}")
    by_family: dict[str, list[TestResult]] = {}
    for r in res.results:
        by_family.setdefault(r.family, []).append(r)
    for fam, rs in by_family.items():
        suite = ET.SubElement(root, "testsuite", name=fam, tests=str(len(rs)),
                              failures=str(sum(r.status == "failed" for r in rs)),
                              errors=str(sum(r.status in ("timeout", "error") for r in rs)),
                              skipped=str(sum(r.status == "not-run" for r in rs)),
                              time=f"{sum(r.wall_s for r in rs if not r.reused):.3f}")
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
    ET.indent(root)
    write_atomic(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
    return path


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


def write_html(res: RegressionResult, path: str | Path) -> Path:
    """A self-contained HTML report: summary, coverage per family, and one row per test."""
    path = Path(path)
    e = html.escape
    counts = ", ".join(f"{res.count(s)} {s}" for s in ("passed", "failed", "timeout", "error", "not-run")
                       if res.count(s))
    reused = sum(r.reused for r in res.results)
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
    doc = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>accelgen regress {e(res.name)}</title>
<style>{_CSS}</style></head><body>
<h1>accelgen regress {e(res.name)}: {'PASS' if res.passed else 'FAIL'}</h1>
<p>{len(res.results)} tests: {e(counts)}{f' ({reused} passes reused from earlier runs)' if reused else ''};
wall time {res.wall_s:.1f} s on {e(res.jobs)}; source {e(str(res.source))}; run {e(res.run_id)}</p>
<h2>Functional coverage</h2>
<table><tr><th>family</th><th>bins hit</th><th>never hit</th><th>unreachable (why)</th><th>hits per bin</th></tr>
{''.join(cov_rows)}</table>
{_closure_html(res.closure, e)}
<h2>Tests</h2>
<table><tr><th>status</th><th>block</th><th>parameters</th><th>mode</th><th>seed</th><th>sim</th><th>cycles</th>
<th>checks</th><th>sim time (s)</th><th>waveform</th><th>reproduce</th></tr>
{''.join(rows)}</table></body></html>
"""
    write_atomic(path, doc)
    return path
