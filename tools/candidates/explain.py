"""Why each selected candidate was selected: the template explanation (no model), and on request a narrative
and, in rubric mode, key points written by the model. A model explanation that fails leaves the template one."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from gavel.tools.candidates.display import and_list, id_list, num, pct, show
from gavel.tools.candidates.models import Contribution, KeyPoints, SelectedCandidate
from gavel.tools.candidates.notes import Notes
from gavel.tools.candidates.plan import Plan
from gavel.tools.candidates.ranking import Pick
from gavel.tools.candidates.scoring import Scored
from gavel.tools.candidates.values import candidate_text, given_value
from gavel.tools.engine import prompts
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.scores import MetricScore, Usage
from gavel.tools.rubrics import Rubric

NARRATIVE_MAX_TOKENS = 220
KEY_POINTS_MAX_TOKENS = 400
# How many selected candidates get a narrative or key points (each costs a model call).
MODEL_EXTRAS_MAX = 50


def contributions(
    candidate: Mapping[str, Any], index: int, cid: str, plan: Plan, judged: Mapping[str, MetricScore] | None
) -> list[Contribution]:
    out: list[Contribution] = []
    for criterion, weight in plan.weights.items():
        metric_score = judged.get(criterion) if judged else None
        if metric_score is not None and metric_score.score is not None and plan.rubric is not None:
            value = metric_score.score / plan.rubric.scale.max
            out.append(
                Contribution(
                    criterion=criterion, value=value, weight=weight, contribution=value * weight, source="judge",
                    judge_score=metric_score.score, scale_max=plan.rubric.scale.max,
                    judge_explanation=metric_score.explanation or None,
                )
            )  # fmt: skip
            continue
        hit = given_value(candidate, criterion, index, cid)
        if hit is None:
            out.append(Contribution(criterion=criterion, value=0.0, weight=weight, contribution=0.0, source="missing"))
        else:
            value, key = hit
            out.append(
                Contribution(
                    criterion=criterion, value=value, weight=weight, contribution=value * weight, source="given",
                    field=key,
                )
            )  # fmt: skip
    return out


def _judged_note(c: Contribution) -> str:
    if c.source != "judge" or c.judge_score is None or c.scale_max is None:
        return ""
    return f" (judged {c.judge_score:g}/{c.scale_max:g})"


def template_explanation(
    name: str,
    score: float,
    rank: int,
    contributions: Sequence[Contribution],
    pick: Pick,
    attributes: Mapping[str, Any],
    has_targets: bool,
    top_k: int,
) -> str:
    """What it scored and why, each contribution with its weight, and the variety it adds."""
    sentences = [f"{name} scored {num(score)} (rank {rank})."]
    # Any value above 0 adds to the score; only one in the upper half of its 0-1 range is called a strength.
    positive = [
        f"{'strength in ' if c.value >= 0.5 else 'weak '}'{c.criterion}'{_judged_note(c)} contributes "
        f"{num(c.contribution)} of {num(score)} (weight {pct(c.weight)})"
        for c in contributions
        if c.contribution > 0
    ]
    sentences.append(
        f"Why: {'; '.join(positive)}." if positive else "No criterion contributed positively to its score."
    )
    negative = [
        f"'{c.criterion}' lowers it by {num(-c.contribution)} (weight {pct(c.weight)})"
        for c in contributions
        if c.contribution < 0
    ]
    if negative:
        sentences.append(f"Against it: {and_list(negative)}.")
    missing = [f"'{c.criterion}'" for c in contributions if c.source == "missing"]
    if missing:
        sentences.append(f"It had no value for {and_list(missing)}, counted as 0.")
    if pick.by_diversity:
        adds = [f"{attr}={show(value)}" for attr, value in pick.new_values]
        sentences.append(f"It adds {and_list(adds)} to the selection's variety.")
    elif has_targets:
        shown = [f"{attr}={show(value)}" for attr, value in attributes.items()]
        suffix = f" ({', '.join(shown)})" if shown else ""
        sentences.append(f"It fills a remaining slot on score{suffix}.")
    else:
        sentences.append(f"It is among the top {top_k} by score.")
    return " ".join(sentences)


async def add_narratives(
    judge: Judge,
    selected: list[SelectedCandidate],
    candidates: Sequence[Mapping[str, Any]],
    plan: Plan,
    model: str | None,
) -> tuple[Usage, Notes]:
    """Each selected candidate's explanation rewritten by the model; the template one stays where it fails."""
    outcomes: dict[int, tuple[str | None, str | None, Usage]] = {}

    async def one(position: int, item: SelectedCandidate) -> None:
        outcomes[position] = await _narrative(judge, item, candidates[item.index], plan, model)

    async with anyio.create_task_group() as tg:
        for position, item in enumerate(selected[:MODEL_EXTRAS_MAX]):
            tg.start_soon(one, position, item)
    total = Usage()
    failed: list[str] = []
    for position, item in enumerate(selected):
        if position not in outcomes:
            item.explanation_source = "template_fallback"
            failed.append(f"{item.id} (beyond the first {MODEL_EXTRAS_MAX})")
            continue
        text, error, used = outcomes[position]
        total = total.add(used)
        if text is None:
            item.explanation_source = "template_fallback"
            failed.append(f"{item.id} ({error})")
        else:
            item.explanation, item.explanation_source = text.strip(), "narrative"
    notes = Notes()
    if failed:
        notes.fail("narrative_failed", "narrative explanation failed, the template one is used for: " + id_list(failed))
    return total, notes


async def _narrative(
    judge: Judge, item: SelectedCandidate, candidate: Mapping[str, Any], plan: Plan, model: str | None
) -> tuple[str | None, str | None, Usage]:
    subject = plan.rubric.prompt.subject if plan.rubric is not None else "candidate"
    facts = {
        "weights": plan.weights,
        "diversity_targets": plan.targets,
        "judge_score": item.judge_score,
        "contributions": [
            {"criterion": c.criterion, "value": c.value, "weight": c.weight, "contribution": c.contribution}
            for c in item.contributions
        ],
        "adds_variety": item.selected_for,
    }
    shown = {k: v for k, v in candidate.items() if not (isinstance(v, str) and len(v) > 2000)}
    generated = await judge.generate(
        data={
            "evaluation": json.dumps(facts, ensure_ascii=False, default=repr),
            # Keys in name order, as the ledger's key reads them: the same request gets the same prompt.
            subject: json.dumps(shown, ensure_ascii=False, default=repr, sort_keys=True),
        },
        instruction=prompts.prompt_set().substitute("candidates_narrative", subject=subject),
        model=model,
        max_tokens=NARRATIVE_MAX_TOKENS,
    )
    return generated.text, generated.error, generated.usage


async def add_key_points(
    judge: Judge,
    rubric: Rubric,
    selected: list[SelectedCandidate],
    candidates: Sequence[Mapping[str, Any]],
    scored: Scored,
    model: str | None,
) -> tuple[Usage | None, Notes]:
    """Key points for the selected candidates the judge scored and accepted (the idea judge's 3-5 points).

    The usage is None when no candidate qualified, so no model call was made.
    """
    notes = Notes()
    wanted = [item for item in selected if item.index in scored.judged.averages][:MODEL_EXTRAS_MAX]
    if not wanted:
        return None, notes
    outcomes: dict[int, tuple[list[str] | None, str | None, Usage]] = {}

    async def one(item: SelectedCandidate) -> None:
        outcomes[item.index] = await _key_points(judge, rubric, candidate_text(candidates[item.index]), model)

    async with anyio.create_task_group() as tg:
        for item in wanted:
            tg.start_soon(one, item)
    total = Usage()
    failed: list[str] = []
    for item in wanted:
        points, error, used = outcomes[item.index]
        total = total.add(used)
        if points is None:
            failed.append(f"{item.id} ({error})")
        else:
            item.key_points = points
    if failed:
        notes.fail("key_points_failed", "key points could not be produced for: " + id_list(failed))
    return total, notes


async def _key_points(
    judge: Judge, rubric: Rubric, text: str, model: str | None
) -> tuple[list[str] | None, str | None, Usage]:
    prompt_set = prompts.prompt_set()
    instruction = rubric.prompt.key_points or prompt_set.substitute(
        "candidates_key_points", subject=rubric.prompt.subject
    )
    result = await judge.structured(
        output=KeyPoints,
        data={rubric.prompt.subject: text},
        instruction=instruction + " " + prompt_set.text["candidates_key_points_reply"],
        model=model,
        max_tokens=KEY_POINTS_MAX_TOKENS,
    )
    if result.value is None:
        return None, result.error or "no valid key points", result.usage
    return [" ".join(p.split()) for p in result.value.key_points], None, result.usage
