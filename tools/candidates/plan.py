"""Before any model call: the weights, targets and threshold a call uses, and every candidate's given values.

Everything a request can get wrong is found here, so a bad request is refused before it costs a model call.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gavel.tools.candidates.display import id_list
from gavel.tools.candidates.models import ScoreCandidatesRequest
from gavel.tools.candidates.notes import Notes
from gavel.tools.candidates.values import candidate_id, candidate_text, given_value
from gavel.tools.common import check_samples, require_text
from gavel.tools.deps import ToolDeps
from gavel.tools.errors import InvalidInput
from gavel.tools.rubrics import Metric, Rubric


@dataclass
class Plan:
    rubric: Rubric | None
    weights: dict[str, float]
    weights_source: Literal["request", "rubric"]
    targets: dict[str, int]
    targets_source: Literal["request", "rubric", "none"]
    threshold: float | None
    threshold_given: bool


@dataclass
class Scan:
    """Every candidate's id and weighted sum of its given values, in flat lists so 100k candidates stay cheap."""

    ids: list[str]
    scores: list[float | None]
    # Per criterion, the candidates with no value for it and no judge to score it (counted as 0.0).
    missing: dict[str, list[int]]
    # Per candidate, the rubric criteria it lacks, for the judge to score from its text.
    needs: dict[int, list[Metric]]


def make_plan(request: ScoreCandidatesRequest, deps: ToolDeps) -> Plan:
    _check_shape(request, deps)
    rubric: Rubric | None = None
    if request.rubric is not None or request.custom_rubric is not None:
        rubric = deps.registry.resolve(request.rubric, request.custom_rubric, default=request.rubric or "")

    weights_source: Literal["request", "rubric"]
    if request.weights:
        # In name order: the ledger's key reads the mapping in name order, so the weighted sum (floating-point
        # addition, whose result depends on the order) must be added up in that order too.
        weights, weights_source = dict(sorted(request.weights.items())), "request"
    elif rubric is not None:
        weights, weights_source = {m.id: m.weight for m in rubric.metrics}, "rubric"
    else:
        raise InvalidInput(
            "give weights ({criterion: weight}) or a rubric whose metric weights are used", field="weights"
        )
    for criterion, weight in weights.items():
        if not criterion.strip():
            raise InvalidInput("criterion names must not be empty", field="weights")
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight):
            raise InvalidInput(f"the weight of {criterion!r} is {weight!r}; weights must be finite numbers",
                               field="weights")  # fmt: skip

    if request.diversity_targets is not None:
        targets = dict(request.diversity_targets)
        targets_source: Literal["request", "rubric", "none"] = "request" if targets else "none"
    elif rubric is not None and rubric.diversity_targets:
        targets, targets_source = dict(rubric.diversity_targets), "rubric"
    else:
        targets, targets_source = {}, "none"
    if weights and not any(weights.values()) and not targets:
        # Every score would be 0 and the order the candidates came in would pass for a ranking. (With diversity
        # targets, zero weights select by the targets alone.)
        raise InvalidInput(
            "every weight is 0 and there are no diversity targets, so nothing ranks the candidates: give a criterion "
            "a weight other than 0",
            field="weights",
        )
    for attribute, target in targets.items():
        if isinstance(target, bool) or not isinstance(target, int) or target < 1:
            raise InvalidInput(
                f"the target for {attribute!r} is {target!r}; a target is a whole number of distinct values >= 1 "
                "(leave the attribute out to have no target)",
                field="diversity_targets",
            )
    return Plan(
        rubric=rubric,
        weights=weights,
        weights_source=weights_source,
        targets=targets,
        targets_source=targets_source,
        threshold=_threshold(request.accept_threshold, rubric),
        threshold_given=request.accept_threshold is not None,
    )


def _check_shape(request: ScoreCandidatesRequest, deps: ToolDeps) -> None:
    count = len(request.candidates)
    if count == 0:
        raise InvalidInput("is empty; give at least one candidate", field="candidates")
    if count > deps.limits.max_candidates:
        raise InvalidInput(
            f"has {count:,} candidates; the limit is {deps.limits.max_candidates:,} (GAVEL_MAX_CANDIDATES). "
            "Pre-filter them or split the call.",
            field="candidates",
        )
    for index, candidate in enumerate(request.candidates):
        if not isinstance(candidate, Mapping):
            raise InvalidInput(f"candidate {index} is not a JSON object", field=f"candidates[{index}]")
    require_text(request.source, "source", deps.limits, required=False)
    if request.source is not None and request.rubric is None and request.custom_rubric is None:
        raise InvalidInput(
            "is read by the judge in rubric mode only; give a rubric or custom_rubric, or leave source out",
            field="source",
        )
    if request.top_k < 1:
        raise InvalidInput("must be at least 1", field="top_k")
    if request.top_k > deps.limits.max_candidates:
        raise InvalidInput(
            f"must be at most {deps.limits.max_candidates:,} (GAVEL_MAX_CANDIDATES): no call holds more candidates "
            "to select",
            field="top_k",
        )
    check_samples(request.samples, deps.limits)


def _threshold(threshold: float | None, rubric: Rubric | None) -> float | None:
    if threshold is None:
        return rubric.pass_threshold if rubric is not None else None
    if rubric is None:
        raise InvalidInput("is on a rubric's scale; give rubric (or custom_rubric) too", field="accept_threshold")
    if not math.isfinite(threshold) or not rubric.scale.contains(threshold):
        raise InvalidInput(
            f"{threshold:g} is outside the rubric's scale {rubric.scale.min:g}..{rubric.scale.max:g}",
            field="accept_threshold",
        )
    return threshold


def scan(candidates: Sequence[Mapping[str, Any]], plan: Plan, deps: ToolDeps) -> Scan:
    """Validate every criterion value and find which need the judge, before any model call."""
    covered = {m.id: m for m in plan.rubric.metrics} if plan.rubric is not None else {}
    weight_items = [(criterion, weight, f"{criterion}_score") for criterion, weight in plan.weights.items()]
    ids = [candidate_id(c, i) for i, c in enumerate(candidates)]
    scores: list[float | None] = [None] * len(candidates)
    needs: dict[int, list[Metric]] = {}
    missing: dict[str, list[int]] = {criterion: [] for criterion in plan.weights}
    found: dict[str, int] = dict.fromkeys(plan.weights, 0)
    for index, candidate in enumerate(candidates):
        total = 0.0
        for criterion, weight, score_key in weight_items:
            hit = given_value(candidate, criterion, index, ids[index], score_key)
            if hit is not None:
                found[criterion] += 1
                total += hit[0] * weight
            elif criterion in covered:
                needs.setdefault(index, []).append(covered[criterion])
            else:
                missing[criterion].append(index)
        if not math.isfinite(total):
            raise InvalidInput(
                f"candidate {ids[index]!r}: the weighted sum overflows; use smaller weights or values", field="weights"
            )
        scores[index] = total
    for criterion in plan.weights:
        if found[criterion] == 0 and criterion not in covered:
            hint = f" and rubric {plan.rubric.id!r} has no metric of that id" if plan.rubric is not None else ""
            raise InvalidInput(
                f"no candidate has a value for {criterion!r} (looked for '{criterion}_score' and '{criterion}'){hint}; "
                "fix the criterion name, add the values, or give a rubric that covers it",
                field="weights",
            )
    _check_judged_texts(candidates, ids, needs, plan, deps)
    return Scan(ids=ids, scores=scores, missing=missing, needs=needs)


def _check_judged_texts(
    candidates: Sequence[Mapping[str, Any]], ids: list[str], needs: Mapping[int, list[Metric]], plan: Plan,
    deps: ToolDeps,
) -> None:  # fmt: skip
    for index in needs:
        text = candidate_text(candidates[index])
        if not text:
            raise InvalidInput(
                f"candidate {ids[index]!r} needs the judge for {', '.join(m.id for m in needs[index])} but has no "
                "text, description or attributes to read",
                field=f"candidates[{index}]",
            )
        if len(text) > deps.limits.max_text_chars:
            raise InvalidInput(
                f"candidate {ids[index]!r}: the text the judge would read is {len(text):,} characters; the limit is "
                f"{deps.limits.max_text_chars:,} (GAVEL_MAX_TEXT_CHARS)",
                field=f"candidates[{index}].text",
            )
    if needs and plan.rubric is not None and plan.rubric.scale.max == 0:
        raise InvalidInput(
            "its scale's maximum is 0, so judge scores cannot be normalized (score ÷ max); use another rubric",
            field="rubric",
        )


def weight_notes(plan: Plan, scan: Scan) -> Notes:
    """The weights used, and what about them or the candidates' values a caller should know."""
    notes = Notes()
    notes.log.append(
        f"Weights from the {plan.weights_source}"
        + (f" ({plan.rubric.id})" if plan.weights_source == "rubric" and plan.rubric else "")
        + ": "
        + ", ".join(f"{c}={w:g}" for c, w in plan.weights.items())
        + "; used as given (not renormalized); judge_score = sum of weight x value."
    )
    for criterion, weight in plan.weights.items():
        if weight < 0:
            notes.warnings.append(
                f"criterion {criterion!r} has a negative weight ({weight:g}): a higher value lowers the score"
            )
    if any(w < 0 for w in plan.weights.values()):
        notes.log.append("Negative weights: " + ", ".join(f"{c}={w:g}" for c, w in plan.weights.items() if w < 0) + ".")
    for criterion, indices in scan.missing.items():
        if indices:
            notes.warnings.append(
                f"{len(indices)} candidate(s) have no value for {criterion!r} (looked for '{criterion}_score' and "
                f"'{criterion}'), counted as 0.0: {id_list([scan.ids[i] for i in indices])}"
            )
    return notes
