"""What `gavel eval` reads off each tool's result: an item's score and verdict, and the run's summary figures.

Every function here takes results as JSON (a tool result's `model_dump(mode="json")`), so a run read back from an
earlier results.jsonl is summed up exactly as the run that wrote it.

The figures, per tool (`FIGURES`), each with what it is. Two kinds:
- a rate is a share of ALL the items of the run: an item in error, or one the judge left unscored, counts as not
  approved / not passing, so broken inputs lower a rate instead of leaving the run;
- a mean is over the items the judge scored; it has no value (None) when none was scored, and then
  `--fail-under` on it fails (nothing was shown to be above the bar).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

ERROR = "error"


@dataclass(frozen=True)
class Headline:
    score: float | None  # the item's score for the distribution (None when the judge gave none)
    verdict: str  # the item's outcome in a word


def _rag(result: dict[str, Any]) -> Headline:
    return Headline(result.get("overall_score"), str(result.get("verdict")))


def _rag_batch(result: dict[str, Any]) -> Headline:
    scores = [r["overall_score"] for r in result.get("results", []) if r.get("overall_score") is not None]
    return Headline(max(scores) if scores else None, "best_found" if result.get("best") else "none_approved")


def _passed(passed: Any) -> str:
    return "undecided" if passed is None else "passed" if passed else "failed"


def _assessment(result: dict[str, Any]) -> Headline:
    return Headline(result.get("average"), _passed(result.get("passed")))


def _refine(result: dict[str, Any]) -> Headline:
    return Headline((result.get("final_evaluation") or {}).get("average"), _passed(result.get("passed")))


def _candidates(result: dict[str, Any]) -> Headline:
    scores = [s["judge_score"] for s in result.get("selected", [])]
    diversity = result.get("diversity", [])
    verdict = "no_targets" if not diversity else "targets_met" if all(d["met"] for d in diversity) else "targets_unmet"
    return Headline(statistics.fmean(scores) if scores else None, verdict)


HEADLINES: dict[str, Callable[[dict[str, Any]], Headline]] = {
    "judge_rag_answer": _rag,
    "judge_rag_answers": _rag_batch,
    "evaluate_assessment": _assessment,
    "refine_until_pass": _refine,
    "score_candidates": _candidates,
}
TOOLS = tuple(HEADLINES)


def headline(tool: str, row: dict[str, Any]) -> Headline:
    """A results.jsonl row's headline: an item in error has no score."""
    result = row.get("result")
    return Headline(None, ERROR) if result is None else HEADLINES[tool](result)


# -- the figures -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FigureDef:
    description: str
    compute: Callable[[Sequence[dict[str, Any]]], float | None]


def _results(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [row["result"] for row in rows if row.get("result") is not None]


def _rate(test: Callable[[dict[str, Any]], bool]) -> Callable[[Sequence[dict[str, Any]]], float | None]:
    def compute(rows: Sequence[dict[str, Any]]) -> float | None:
        return sum(1 for r in _results(rows) if test(r)) / len(rows) if rows else None

    return compute


def _mean(value: Callable[[dict[str, Any]], list[float | None]]) -> Callable[[Sequence[dict[str, Any]]], float | None]:
    def compute(rows: Sequence[dict[str, Any]]) -> float | None:
        values = [v for r in _results(rows) for v in value(r) if v is not None]
        return statistics.fmean(values) if values else None

    return compute


def _full_average(evaluation: dict[str, Any]) -> list[float | None]:
    # An average over some of the metrics (others unscored) is not averaged with those over all: a run mostly
    # unscored would pass a --fail-under on the few metrics that scored. unscored_rate counts those items.
    return [None if evaluation.get("unscored_metrics") else evaluation.get("average")]


def _error_rate(rows: Sequence[dict[str, Any]]) -> float | None:
    return sum(1 for row in rows if row.get("result") is None) / len(rows) if rows else None


ERROR_RATE = FigureDef("share of items that could not be judged (invalid input, refused, failed)", _error_rate)

FIGURES: dict[str, dict[str, FigureDef]] = {
    "judge_rag_answer": {
        "mean_overall": FigureDef(
            "mean overall_score (0-1) of the scored items", _mean(lambda r: [r["overall_score"]])
        ),
        "approved_rate": FigureDef("share of items approved", _rate(lambda r: r["verdict"] == "approved")),
        "rejected_rate": FigureDef("share of items rejected", _rate(lambda r: r["verdict"] == "rejected")),
        "grounded_rate": FigureDef("share of items judged grounded", _rate(lambda r: r.get("is_grounded") is True)),
        "unscored_rate": FigureDef("share of items left unscored", _rate(lambda r: r["verdict"] == "unscored")),
        "error_rate": ERROR_RATE,
    },
    "judge_rag_answers": {
        "mean_overall": FigureDef(
            "mean overall_score (0-1) of every scored answer",
            _mean(lambda r: [a.get("overall_score") for a in r["results"]]),
        ),
        "best_rate": FigureDef(
            "share of items with an approved best answer", _rate(lambda r: r.get("best") is not None)
        ),
        "error_rate": ERROR_RATE,
    },
    "evaluate_assessment": {
        "mean_average": FigureDef(
            "mean metric average (rubric scale) of the items with every metric scored", _mean(_full_average)
        ),
        "pass_rate": FigureDef("share of items that pass every metric", _rate(lambda r: r.get("passed") is True)),
        "unscored_rate": FigureDef("share of items left undecided", _rate(lambda r: r.get("passed") is None)),
        "error_rate": ERROR_RATE,
    },
    "refine_until_pass": {
        "pass_rate": FigureDef("share of items whose final text passes", _rate(lambda r: r.get("passed") is True)),
        "mean_average": FigureDef(
            "mean final metric average (rubric scale) of the items whose final text has every metric scored",
            _mean(lambda r: _full_average(r["final_evaluation"])),
        ),
        "improved_rate": FigureDef("share of items the loop improved", _rate(lambda r: r.get("improved") is True)),
        "error_rate": ERROR_RATE,
    },
    "score_candidates": {
        "targets_met_rate": FigureDef(
            "share of items whose selection meets every diversity target",
            _rate(lambda r: all(d["met"] for d in r.get("diversity", []))),
        ),
        "mean_selected_score": FigureDef(
            "mean judge_score of the selected candidates", _mean(lambda r: [s["judge_score"] for s in r["selected"]])
        ),
        "unscored_rate": FigureDef(
            "share of items with a candidate left unscored", _rate(lambda r: bool(r["unscored"]))
        ),
        "error_rate": ERROR_RATE,
    },
}


def figures(tool: str, rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    """Every figure of `tool` over results.jsonl rows, rounded to 4 places (None when it has no value)."""
    out: dict[str, float | None] = {}
    for name, figure in FIGURES[tool].items():
        value = figure.compute(rows)
        out[name] = None if value is None else round(value, 4)
    return out


def describe(tool: str) -> str:
    """The figures of `tool`, one per line, for --help and errors."""
    return "\n".join(f"  {name}: {figure.description}" for name, figure in FIGURES[tool].items())


@dataclass(frozen=True)
class Threshold:
    figure: str
    minimum: float


def parse_threshold(text: str) -> Threshold:
    """`FIGURE=VALUE` (e.g. mean_overall=0.7); which figures a tool has is checked once the tool is known."""
    name, sep, value = text.partition("=")
    try:
        minimum = float(value)
    except ValueError:
        minimum = float("nan")
    if not sep or not name.strip() or minimum != minimum:
        raise ValueError(f"--fail-under {text!r}: write FIGURE=NUMBER, e.g. mean_overall=0.7")
    return Threshold(name.strip(), minimum)


def failures(found: dict[str, float | None], thresholds: Sequence[Threshold]) -> list[str]:
    """One line per threshold the run is below (a figure with no value is below any threshold)."""
    lines = []
    for threshold in thresholds:
        value = found.get(threshold.figure)
        if value is None:
            lines.append(f"{threshold.figure} has no value (no item was scored); --fail-under {threshold.minimum:g}")
        elif value < threshold.minimum:
            lines.append(f"{threshold.figure} {value:.4g} is below {threshold.minimum:g}")
    return lines
