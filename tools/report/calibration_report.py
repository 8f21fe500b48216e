"""The page `gavel calibrate --report FILE` writes: the figures with their intervals, the ROC curve, the
reliability diagram, the scores by label, and one card per item (its label, the decision at Gavel's cut, and
the judgment itself with its unsupported sentences or low metrics highlighted, when the ledger kept it).

The ROC curve and the reliability diagram are drawn from the items the judge scored; an unscored item is a
wrong prediction in the figures (see tools/calibration/measure.py) and is counted on the page, not placed on a curve.
"""

from __future__ import annotations

from typing import Any

from gavel.tools.evaluation.figures import HEADLINES
from gavel.tools.report import charts
from gavel.tools.report.cards import card
from gavel.tools.report.page import charts_block, document, esc, figure_table, filters


def _figure(value: dict[str, Any] | None) -> str:
    if not value or value.get("value") is None:
        return "n/a"
    low, high = value.get("low"), value.get("high")
    interval = "" if low is None or high is None else f" [{low:.2f}, {high:.2f}]"
    return f"{value['value']:.3f}{interval}"


def _decision(score: float | None, label: str | None, cut: float) -> tuple[str, bool | None]:
    """The badge for an item: predicted good/bad at the cut and whether that matches its label."""
    if score is None:
        return "unscored (counts as wrong)", False if label in ("good", "bad") else None
    predicted = "good" if score >= cut else "bad"
    return f"decided {predicted}", (predicted == label) if label in ("good", "bad") else None


def calibration_report(
    report: dict[str, Any], results: dict[str, dict[str, Any]], arguments: dict[str, dict[str, Any]]
) -> str:
    """The page for a `CalibrationReport` (as JSON). `results`: each item's stored judgment by item id, where the
    ledger has it; `arguments`: the tool's arguments per item id (the text the cards show)."""
    tool = report["tool"]
    cut = float(report["cut"]["default"])
    items = report.get("items", [])
    scored = [(row["label"] == "good", float(row["score"])) for row in items
              if row.get("score") is not None and row.get("label") in ("good", "bad")]  # fmt: skip
    auroc = (report.get("auroc") or {}).get("value")
    by_label = [{"id": r["id"], "score": r["score"], "label": str(r.get("label"))} for r in items
                if r.get("score") is not None]  # fmt: skip
    specs: dict[str, dict[str, Any]] = {
        "chart-roc": charts.roc_curve(charts.roc_points(scored), auroc),
        "chart-reliability": charts.reliability_diagram(charts.reliability_bins(scored)),
        "chart-scores": charts.score_histogram(by_label, color_by="label", title="Scores by label"),
    }
    judge = report.get("judge") or {}
    figures = [
        ("balanced accuracy", _figure(report.get("balanced_accuracy")), f"decided at Gavel's cut {cut:g}"),
        ("AUROC", _figure(report.get("auroc")), "how well the score ranks good above bad, any cut"),
        ("pairwise accuracy", _figure(report.get("pairwise_accuracy")), "share of pairs with the good item above"),
        ("Spearman", _figure(report.get("spearman")), "rank agreement with graded labels"),
        ("unscored", str(report.get("unscored")), "items the judge gave no score (wrong predictions above)"),
        ("base rate (good)", str(report.get("base_rate_good")), "share of the items labelled good"),
        ("best cut", str(report["cut"].get("best")), "the cut that maximizes balanced accuracy on this set"),
    ]
    cards = []
    verdicts = []
    for row in items:
        decision, right = _decision(row.get("score"), row.get("label"), cut)
        result = results.get(row["id"])
        verdict = HEADLINES[tool](result).verdict if result is not None and tool in HEADLINES else "error"
        if result is None and row.get("error") is None:
            verdict = "not_kept"
        verdicts.append(verdict)
        shown = {
            "id": row["id"], "score": row.get("score"), "verdict": verdict, "cached": row.get("cached"),
            "evaluation_id": row.get("evaluation_id"), "result": result,
            "error_kind": "error" if row.get("error") else "not kept",
            "error": row.get("error") or "the ledger keeps no judgment for this item (off, or not recorded)",
        }  # fmt: skip
        badges = (
            f'<span class="badge b-{esc(row.get("label"))}">labelled {esc(row.get("label"))}</span>'
            f'<span class="badge {"b-wrong" if right is False else "b-cached"}">{esc(decision)}'
            f"{' (wrong)' if right is False else ''}</span>"
        )
        cards.append(card(tool, shown, arguments.get(row["id"], {}), badges))
    state = "complete" if report.get("complete") else f"PARTIAL: {report.get('n')} of {report.get('requested')} items"
    body = (
        f"<h1>gavel calibrate: {esc(tool)} on {esc(report.get('set'))}</h1>"
        f'<p class="meta">{esc(state)}; judge {esc(judge.get("backend"))} {esc(judge.get("model"))} '
        f"({esc(judge.get('readout'))} readout); {report.get('from_cache', 0)} items from the ledger; "
        f"calibration {esc(report.get('calibration_id'))}, {esc(report.get('created_at'))}</p>"
        + figure_table(figures)
        + f'<p class="meta">rule: {esc(report.get("score", ""))}</p>'
        + "".join(f'<p class="meta">note: {esc(note)}</p>' for note in report.get("notes", []))
        + "<h2>ROC curve, reliability and score distribution</h2>"
        + charts_block(specs)
        + f"<h2>Items ({len(items)})</h2>"
        + filters(verdicts)
        + "".join(cards)
    )
    return document(f"gavel calibrate: {report.get('set')}", body, specs)
