"""The deterministic decisions from the judge's scores: the overall score (exact decimal arithmetic), the verdict
by the rubric's per-context rules, and how sure the judgment is. Nothing the model did not decide is filled in.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Mapping, Sequence
from fractions import Fraction

from gavel.tools.engine.scores import MetricScore
from gavel.tools.rag.grounding import Grounding
from gavel.tools.rag.render import fmt
from gavel.tools.rag.sentence_support import ProbabilityGrounding
from gavel.tools.rag.verdicts import ConfidenceSource, Verdict
from gavel.tools.rubrics import ContextRules, Rubric


def _exact(value: float) -> Fraction:
    # Scores and weights are decimals written by people and models (0.7, 0.35); summing their binary
    # approximations would put an answer at exactly 0.7 on the wrong side of a 0.7 threshold.
    return Fraction(repr(value))


def overall_score(scores: Sequence[MetricScore], rubric: Rubric, not_applicable: Collection[str]) -> float | None:
    """The rubric-weighted mean of the applicable metrics, weights renormalized over them.

    Null when a weighted applicable metric has no score (nothing is guessed) or when no applicable metric
    carries weight.
    """
    by_id = {s.metric: s for s in scores}
    total = Fraction(0)
    weights = Fraction(0)
    for metric in rubric.metrics:
        if metric.id in not_applicable or metric.weight == 0:
            continue
        score = by_id.get(metric.id)
        if score is None or score.score is None:
            return None
        weight = _exact(metric.weight)
        total += weight * _exact(score.score)
        weights += weight
    if weights == 0:
        return None
    return float(total / weights)


BACKEND_FAILURES = ("backend_error", "timeout")


def weighted_unscored(scores: Mapping[str, MetricScore], rubric: Rubric) -> list[str]:
    """The metrics that carry weight but have no score: any one of them leaves no overall score."""
    weights = {m.id: m.weight for m in rubric.metrics}
    return [mid for mid, s in scores.items() if s.status == "unscored" and weights.get(mid, 0) > 0]


def _unscored_advice(codes: Collection[str]) -> str:
    if "context_too_long" in codes:
        return (
            "the prompt does not fit the judge model's context window (see the metrics' reasons): shorten the "
            "answer or the passages, or raise GAVEL_NUM_CTX"
        )
    if any(code in BACKEND_FAILURES for code in codes):
        return (
            "the model backend failed (see the metrics' reasons): check that it is running and answering, or "
            "raise GAVEL_TIMEOUT_S / GAVEL_CALL_DEADLINE_S"
        )
    return "re-run, raise samples, or use a stronger judge model"


def needs_grounding(rules: ContextRules) -> bool:
    return rules.approve_ungrounded_at is not None or rules.reject_ungrounded_unsourced_below is not None


def _apply_rules(rules: ContextRules, overall: float, grounded: bool, has_sources: bool) -> tuple[Verdict, str]:
    if overall >= rules.approve_at:
        if rules.approve_ungrounded_at is None:
            return "approved", f"overall {fmt(overall)} ≥ {rules.approve_at:g}"
        if grounded:
            return (
                "approved",
                f"overall {fmt(overall)} ≥ {rules.approve_at:g} and the answer is grounded in the passages",
            )
        if overall >= rules.approve_ungrounded_at:
            return "approved", (
                f"overall {fmt(overall)} ≥ {rules.approve_ungrounded_at:g}, high enough although the answer is not "
                "grounded in the passages"
            )
    if overall < rules.reject_below:
        return "rejected", f"overall {fmt(overall)} < {rules.reject_below:g}"
    limit = rules.reject_ungrounded_unsourced_below
    if limit is not None and not grounded and not has_sources and overall < limit:
        return "rejected", f"the answer is not grounded, cites no sources and overall {fmt(overall)} < {limit:g}"
    if overall >= rules.approve_at:
        return "needs_improvement", (
            f"overall {fmt(overall)} ≥ {rules.approve_at:g} but the answer is not grounded in the passages and below "
            f"{rules.approve_ungrounded_at:g}"
        )
    return "needs_improvement", f"overall {fmt(overall)} is between {rules.reject_below:g} and {rules.approve_at:g}"


def decide_verdict(
    context_rules: ContextRules,
    overall: float | None,
    is_grounded: bool | None,
    has_sources: bool,
    unscored: list[str],
    unscored_codes: Collection[str] = (),
) -> tuple[Verdict, str]:
    """The verdict and why, by the context's rules from the rubric, evaluated in order approve, reject, else
    needs_improvement. `unscored` lists the weighted dimensions without a score, and `unscored_codes` their reason
    codes, which say what to do: a backend that failed (timed out, unreachable, an error) or a prompt too long for
    the model's window is not fixed by a stronger model.

    With grounding undecided (None) the rules are evaluated both ways: when they agree the verdict stands,
    since it does not depend on grounding; otherwise there is no verdict.
    """
    if unscored:
        return "unscored", (
            f"no verdict: the judge gave no valid score for {', '.join(unscored)}, which carr"
            f"{'ies' if len(unscored) == 1 else 'y'} weight; " + _unscored_advice(unscored_codes)
        )
    if overall is None:
        return "unscored", "no verdict: no applicable dimension carries weight, so there is no overall score"
    if is_grounded is not None or not needs_grounding(context_rules):
        return _apply_rules(context_rules, overall, bool(is_grounded), has_sources)
    if_grounded = _apply_rules(context_rules, overall, True, has_sources)
    if_not = _apply_rules(context_rules, overall, False, has_sources)
    if if_grounded[0] == if_not[0]:
        return if_grounded[0], f"{if_not[1]} (grounding was not decided; this verdict does not depend on it)"
    return "unscored", (
        f"no verdict: at overall {fmt(overall)} the verdict depends on whether the answer is grounded in the passages, "
        "and the judge could not decide that"
    )


def decide_from_checks(grounding: ProbabilityGrounding) -> tuple[Verdict, str] | None:
    """The verdict from the per-claim support checks, when every claim was checked: approved when each is
    supported (at the cut, and no lower than without the passages), rejected when none is, needs_improvement in
    between. None when a check is missing (the overall rules then decide, and say so). Measured on HaluEval dev:
    the weakest claim's P(supported) ranks right above hallucinated answers (AUROC 0.86), and this rule keeps what
    the ranking found, where the weighted overall of five Yes/No dimensions, all leaning low, approved only half of
    the right answers."""
    claims = grounding.sentences
    if not claims or any(c.supported is None for c in claims):
        return None
    held = sum(1 for c in claims if c.supported)
    cut = f"P(supported) ≥ {grounding.cut.value:.3g}, {grounding.cut.source} cut, not lower without the passages"
    if held == len(claims):
        return "approved", f"all {len(claims)} claim(s) are supported by the passages ({cut})"
    if held == 0:
        return "rejected", f"none of the {len(claims)} claim(s) is supported by the passages ({cut})"
    return (
        "needs_improvement",
        f"{len(claims) - held} of {len(claims)} claims are not supported by the passages ({cut})",
    )


def confidence_of(
    scores: Sequence[MetricScore], rubric: Rubric, samples: int, grounding: Grounding | None
) -> tuple[float | None, ConfidenceSource | None]:
    """With several samples: 1 - the mean spread of the scored metrics, as a fraction of the scale.
    With one: the judge's own stated confidence from the grounding check, or none. Read from probabilities:
    the weakest sentence's distance from the cut."""
    if isinstance(grounding, ProbabilityGrounding):
        return (grounding.confidence, "probability_margin") if grounding.confidence is not None else (None, None)
    if samples > 1:
        width = rubric.scale.max - rubric.scale.min
        spreads = [s.spread / width for s in scores if s.status == "scored" and s.spread is not None]
        if not spreads:
            return None, None
        return 1 - statistics.fmean(spreads), "sample_spread"
    if grounding is not None and grounding.confidence is not None:
        return grounding.confidence, "judge_stated"
    return None, None
