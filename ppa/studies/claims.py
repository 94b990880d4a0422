"""A paper's claim beside accelgen's figure: the difference, and outside the tolerance the component it is traced to.

Issue 50 item 4 asks each paper-comparison study to reproduce the papers' ratios within :data:`TOLERANCE`, or to
trace each miss to a component with the measurement that shows it. A study builds one :func:`claim` per published
figure, keeps them in its JSON (``claims``) and prints them with :func:`claim_notes`.
"""

from __future__ import annotations

#: the agreement asked of a ratio (issue 50 item 4: "within +-0.15 of the papers' ratios")
TOLERANCE = 0.15


def claim(name: str, published: float, source: str, accelgen: float, cause: str) -> dict:
    """One claim: ``published`` (from ``source``, a section or table of the paper), ``accelgen``'s figure, their
    ``difference`` (accelgen - paper), whether it is ``within`` :data:`TOLERANCE`, and ``cause``: the component a
    miss is traced to, with its measurement (kept when within too: what the agreement rests on)."""
    diff = float(accelgen) - float(published)
    return {"claim": name, "published": float(published), "accelgen": float(accelgen), "difference": diff,
            "within": abs(diff) <= TOLERANCE, "source": source, "cause": cause}


def claim_notes(claims: list[dict]) -> list[str]:
    """One line per claim: paper, accelgen, difference, and the traced cause."""
    return [f"{c['claim']}: paper {c['published']:.3g} ({c['source']}), accelgen {c['accelgen']:.3g}, difference "
            f"{c['difference']:+.2f} ({'within' if c['within'] else 'outside'} +-{TOLERANCE}); {c['cause']}"
            for c in claims]
