"""The report's charts as Vega-Lite specs (rendered in the page by the vendored vega-embed).

Every spec carries its data inline (`data.values`): the page fetches nothing. The numbers a chart shows are
computed here from the run (the ROC curve's points, the reliability diagram's bins), so the page only draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"  # an identifier only: vega-embed does not fetch it
WIDTH = 360
HEIGHT = 220
VERDICT_COLORS = {
    "approved": "#2e7d32", "passed": "#2e7d32", "targets_met": "#2e7d32", "best_found": "#2e7d32", "good": "#2e7d32",
    "needs_improvement": "#f9a825", "targets_unmet": "#f9a825", "undecided": "#9e9e9e", "no_targets": "#90a4ae",
    "rejected": "#c62828", "failed": "#c62828", "none_approved": "#c62828", "bad": "#c62828",
    "unscored": "#757575", "error": "#6a1b9a",
}  # fmt: skip


def _spec(title: str, values: list[dict[str, Any]], **rest: Any) -> dict[str, Any]:
    return {"$schema": SCHEMA, "title": title, "width": WIDTH, "height": HEIGHT, "data": {"values": values}, **rest}


def _color(field: str, present: Sequence[str]) -> dict[str, Any]:
    domain = sorted(set(present))
    return {
        "field": field,
        "type": "nominal",
        "scale": {"domain": domain, "range": [VERDICT_COLORS.get(v, "#1565c0") for v in domain]},
    }


def score_histogram(
    points: list[dict[str, Any]], *, color_by: str = "verdict", title: str = "Scores"
) -> dict[str, Any]:
    """Items' scores in 20 bins, stacked by verdict (or label). `points`: {id, score, verdict|label}."""
    return _spec(
        title,
        points,
        mark={"type": "bar", "tooltip": True},
        encoding={
            "x": {"field": "score", "type": "quantitative", "bin": {"maxbins": 20}, "title": "score"},
            "y": {"aggregate": "count", "type": "quantitative", "title": "items"},
            "color": _color(color_by, [str(p[color_by]) for p in points]),
        },
    )


def verdict_bars(verdicts: list[str], title: str = "Verdicts") -> dict[str, Any]:
    counts: dict[str, int] = {}
    for verdict in verdicts:
        counts[verdict] = counts.get(verdict, 0) + 1
    values = [{"verdict": v, "items": n} for v, n in counts.items()]
    return _spec(
        title,
        values,
        mark={"type": "bar", "tooltip": True},
        encoding={
            "y": {"field": "verdict", "type": "nominal", "sort": "-x", "title": None},
            "x": {"field": "items", "type": "quantitative"},
            "color": {**_color("verdict", list(counts)), "legend": None},
        },
    )


def metric_boxplot(values: list[dict[str, Any]], title: str = "Scores per metric") -> dict[str, Any]:
    """Each metric's scores as a box plot. `values`: {metric, score}."""
    return _spec(
        title,
        values,
        mark={"type": "boxplot", "extent": "min-max"},
        encoding={
            "y": {"field": "metric", "type": "nominal", "title": None},
            "x": {"field": "score", "type": "quantitative", "title": "score"},
        },
    )


def _diagonal(
    x: tuple[str, str], y: tuple[str, str], low: float, high: float, *, fixed: bool = False
) -> dict[str, Any]:
    """The dashed y = x line from `low` to `high`, the layer under a chart whose ideal is the diagonal. `x` and
    `y` are (field, title); `fixed` pins both axes to [low, high]."""
    scale = {"scale": {"domain": [low, high]}} if fixed else {}
    return {
        "data": {"values": [{x[0]: low, y[0]: low}, {x[0]: high, y[0]: high}]},
        "mark": {"type": "line", "color": "#9e9e9e", "strokeDash": [4, 4]},
        "encoding": {
            "x": {"field": x[0], "type": "quantitative", "title": x[1], **scale},
            "y": {"field": y[0], "type": "quantitative", "title": y[1], **scale},
        },
    }


def compare_scatter(
    values: list[dict[str, Any]], title: str = "Score: previous run against this one"
) -> dict[str, Any]:
    """Each item's score then and now, with the no-change diagonal. `values`: {id, before, after, changed}."""
    scores = [v[k] for v in values for k in ("before", "after")]
    low, high = (min(scores), max(scores)) if scores else (0.0, 1.0)
    return {
        "$schema": SCHEMA,
        "title": title,
        "width": WIDTH,
        "height": WIDTH,
        "layer": [
            _diagonal(("before", "previous score"), ("after", "this run's score"), low, high),
            {
                "data": {"values": values},
                "mark": {"type": "point", "filled": True, "tooltip": True},
                "encoding": {
                    "x": {"field": "before", "type": "quantitative"},
                    "y": {"field": "after", "type": "quantitative"},
                    "color": {"field": "changed", "type": "nominal", "title": "changed"},
                },
            },
        ],
    }


# -- calibration --------------------------------------------------------------------------------------------


def roc_points(scored: Sequence[tuple[bool, float]]) -> list[dict[str, float]]:
    """The ROC curve of `scored` (label good?, score): one point per distinct cut, from (0,0) to (1,1)."""
    positives = sum(1 for good, _ in scored if good)
    negatives = len(scored) - positives
    if not positives or not negatives:
        return []
    # The first point's cut is above every score (JSON has no infinity); `step` orders the line.
    points = [{"step": 0, "fpr": 0.0, "tpr": 0.0, "cut": round(1.0 + max(score for _, score in scored), 4)}]
    for step, cut in enumerate(sorted({score for _, score in scored}, reverse=True), start=1):
        tp = sum(1 for good, score in scored if good and score >= cut)
        fp = sum(1 for good, score in scored if not good and score >= cut)
        points.append({"step": step, "fpr": round(fp / negatives, 4), "tpr": round(tp / positives, 4),
                       "cut": round(cut, 4)})  # fmt: skip
    return points


def roc_curve(points: list[dict[str, float]], auroc: float | None) -> dict[str, Any]:
    shown = "n/a" if auroc is None else f"{auroc:.3f}"
    return {
        "$schema": SCHEMA,
        "title": f"ROC curve (AUROC {shown})",
        "width": WIDTH,
        "height": WIDTH,
        "layer": [
            _diagonal(("fpr", "false positive rate"), ("tpr", "true positive rate"), 0, 1),
            {
                "data": {"values": points},
                # Straight segments: tied scores move both rates at once, a diagonal step.
                "mark": {"type": "line", "point": True, "tooltip": True},
                "encoding": {
                    "x": {"field": "fpr", "type": "quantitative"},
                    "y": {"field": "tpr", "type": "quantitative"},
                    "order": {"field": "step", "type": "quantitative"},
                },
            },
        ],
    }


def reliability_bins(scored: Sequence[tuple[bool, float]], bins: int = 10) -> list[dict[str, Any]]:
    """Scores cut into `bins` equal bins on 0-1: each bin's mean score, share labelled good, and count."""
    grouped: list[list[tuple[bool, float]]] = [[] for _ in range(bins)]
    for good, score in scored:
        grouped[min(int(score * bins), bins - 1) if score >= 0 else 0].append((good, score))
    return [
        {
            "bin": f"{i / bins:.1f}-{(i + 1) / bins:.1f}",
            "mean_score": round(sum(s for _, s in group) / len(group), 4),
            "observed_good": round(sum(1 for g, _ in group if g) / len(group), 4),
            "items": len(group),
        }
        for i, group in enumerate(grouped)
        if group
    ]


def reliability_diagram(values: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "$schema": SCHEMA,
        "title": "Reliability: share labelled good per score bin",
        "width": WIDTH,
        "height": WIDTH,
        "layer": [
            _diagonal(
                ("mean_score", "mean score in the bin"), ("observed_good", "share labelled good"), 0, 1, fixed=True
            ),
            {
                "data": {"values": values},
                "mark": {"type": "line"},
                "encoding": {
                    "x": {"field": "mean_score", "type": "quantitative"},
                    "y": {"field": "observed_good", "type": "quantitative"},
                },
            },
            {
                "data": {"values": values},
                "mark": {"type": "circle", "tooltip": True},
                "encoding": {
                    "x": {"field": "mean_score", "type": "quantitative"},
                    "y": {"field": "observed_good", "type": "quantitative"},
                    "size": {"field": "items", "type": "quantitative", "title": "items"},
                },
            },
        ],
    }  # fmt: skip
