"""Rubric mode's judge phase: the model scores the criteria candidates lack, and the scores decide their fate.

A judged candidate ends up scored (its weighted sum recomputed with the judge's scores), unscored (the judge
gave no valid score for one of its criteria: it is neither selected nor rejected), or rejected (its rubric
average is below the accept threshold, or its text addresses the judge).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import anyio

from gavel.tools.candidates.display import id_list
from gavel.tools.candidates.notes import Notes
from gavel.tools.candidates.plan import Plan, Scan
from gavel.tools.candidates.values import candidate_text, given_value
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.judge import Judge, Judgment
from gavel.tools.engine.scores import MetricScore, Provenance, Usage
from gavel.tools.guards import PROMPT_INJECTION_FLAG
from gavel.tools.rubrics import Metric, Rubric

HELD_BACK_REASON = (
    "text aimed at the judge was found (prompt_injection_suspected): not accepted on the model's word alone; "
    "have a person check it"
)


@dataclass
class JudgedCandidates:
    """What the judge phase found, per judged candidate index; empty when no criterion needed the judge."""

    # The weighted sum recomputed with the judge's scores; None when unscored.
    sums: dict[int, float | None] = field(default_factory=dict)
    metrics: dict[int, dict[str, MetricScore]] = field(default_factory=dict)
    averages: dict[int, float] = field(default_factory=dict)
    unscored: dict[int, list[str]] = field(default_factory=dict)
    rejected: dict[int, list[str]] = field(default_factory=dict)
    # Rejected because their text addresses the judge, whatever their scores (a subset of `rejected`).
    held_back: list[int] = field(default_factory=list)
    flagged: list[int] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    usage: Usage | None = None
    provenance: Provenance | None = None


@dataclass
class Scored:
    """Every candidate's final weighted sum (None: unscored) with what the judge found."""

    ids: list[str]
    scores: list[float | None]
    judged: JudgedCandidates

    @classmethod
    def of(cls, scan: Scan, judged: JudgedCandidates) -> Scored:
        scores = scan.scores  # taken over, not copied: it can hold 100k entries and the scan is done
        for index, total in judged.sums.items():
            scores[index] = total
        return cls(ids=scan.ids, scores=scores, judged=judged)

    def score(self, index: int) -> float:
        """The score of a candidate known to be scored (ranked, selected or rejected; never an unscored one)."""
        score = self.scores[index]
        if score is None:
            raise RuntimeError(f"candidate {index} has no score but was ranked")
        return score


async def judge_phase(
    judge: Judge, candidates: Sequence[Mapping[str, Any]], plan: Plan, scan: Scan, *, source: str | None,
    samples: int, model: str | None, deps: ToolDeps,
) -> tuple[JudgedCandidates, Notes]:  # fmt: skip
    """The judge scores the criteria candidates lack, each candidate's text as an answer to `source` when one is
    given; the notes say what came of it."""
    rubric = plan.rubric
    assert rubric is not None
    jobs = {index: (candidate_text(candidates[index]), metrics) for index, metrics in scan.needs.items()}
    judgments = await _judge_criteria(judge, rubric, jobs, source=source, samples=samples, model=model, deps=deps)
    judged = _apply_judgments(candidates, plan, scan.ids, judgments)
    notes = Notes()
    judged_criteria = sorted({m.id for metrics in scan.needs.values() for m in metrics})
    answering = f" as answers to the {rubric.prompt.source_label}" if source is not None else ""
    notes.log.append(
        f"The judge scored {', '.join(judged_criteria)} from the text of {len(scan.needs)} candidate(s){answering} "
        f"with rubric {rubric.id!r} v{rubric.version}; judge scores enter the sum as score ÷ {rubric.scale.max:g}."
    )
    if not rubric.scale.higher_is_better:
        notes.warnings.append(
            f"rubric {rubric.id!r} scores lower-is-better, yet judge scores enter the sum as score ÷ max; "
            "use negative weights for its criteria if a lower score should rank higher"
        )
    if judged.unscored:
        ids = [scan.ids[i] for i in judged.unscored]
        notes.warn_and_log(
            f"{len(ids)} candidate(s) are unscored (the judge gave no valid score for a criterion), so they have "
            f"no judge_score and are neither selected nor rejected: {id_list(ids)}"
        )
        notes.failures.append("candidates_unscored")
    low = [i for i in judged.rejected if i not in judged.held_back]
    if low and plan.threshold is not None:
        ids = [scan.ids[i] for i in low]
        notes.log.append(
            f"Rejected {len(ids)} candidate(s) whose rubric average is below {plan.threshold:g}: {id_list(ids)}."
        )
    if judged.held_back:
        held = [scan.ids[i] for i in judged.held_back]
        notes.log.append(f"Rejected {len(held)} candidate(s) whose text addresses the judge: {id_list(held)}.")
    if judged.flagged:
        notes.warnings.append(
            "possible prompt injection in the text of: " + id_list([scan.ids[i] for i in judged.flagged])
        )
    return judged, notes


def unused_threshold(plan: Plan, judged: JudgedCandidates) -> Notes:
    notes = Notes()
    if plan.threshold_given and not judged.averages:
        notes.warnings.append(
            "accept_threshold applies to rubric averages of judge-scored criteria, and no candidate was judge-scored, "
            "so none was rejected"
        )
    return notes


async def _judge_criteria(
    judge: Judge,
    rubric: Rubric,
    jobs: Mapping[int, tuple[str, list[Metric]]],
    *,
    source: str | None,
    samples: int,
    model: str | None,
    deps: ToolDeps,
) -> dict[int, Judgment]:
    """Score each candidate's missing rubric criteria from its text.

    Generated judgments run for all candidates concurrently: the judge's process-wide limiter bounds the real
    concurrency, and the task group only queues the work. One-token checks go one candidate at a time: each
    candidate's checks then follow one another in the model's prompt cache (the source, the candidate, a
    question), where candidates judged side by side take turns in a one-slot cache and every check evaluates its
    candidate's text again (two responses of about 250 tokens to one request took 2.7 times as long side by side).
    """
    results: dict[int, Judgment] = {}
    total = len(jobs)
    step = max(1, total // 100)  # at most ~100 progress notifications however many candidates
    readout = judge.config.candidate_readout
    one_at_a_time = await judge.reads_probabilities(model, readout)

    async def one(index: int, text: str, metrics: list[Metric]) -> None:
        results[index] = await judge.score_metrics(
            rubric=rubric, metrics=metrics, subject=text, source=source, samples=samples, model=model,
            readout=readout,
        )  # fmt: skip
        await told()

    async def told() -> None:
        done = len(results)
        if done % step == 0 or done == total:
            await deps.progress(done, total, f"judged {done} of {total} candidates")

    if one_at_a_time:
        # Past the deadline a candidate is asked nothing, but judging it still scans its text: 10,000 candidates
        # ran 21 s past a 5 s deadline. Once one comes back unscored after the deadline, the others with the same
        # criteria get its unscored scores (the same reason) without being read.
        late: dict[tuple[str, ...], Judgment] = {}
        for index, (text, metrics) in jobs.items():
            criteria = tuple(m.id for m in metrics)
            if criteria in late:
                results[index] = late[criteria]
                await told()
                continue
            await one(index, text, metrics)
            judged = results[index]
            if judge.past_deadline() and all(s.score is None for s in judged.scores):
                late[criteria] = replace(judged, usage=Usage(), flags=[])
        return results
    async with anyio.create_task_group() as tg:
        for index, (text, metrics) in jobs.items():
            tg.start_soon(one, index, text, metrics)
    return results


def _is_low(score: float, threshold: float, rubric: Rubric) -> bool:
    return score < threshold if rubric.scale.higher_is_better else score > threshold


def _apply_judgments(
    candidates: Sequence[Mapping[str, Any]], plan: Plan, ids: Sequence[str], judgments: Mapping[int, Judgment]
) -> JudgedCandidates:
    """The judge's scores folded into the weighted sums; unscored stays unscored, below threshold is rejected."""
    rubric = plan.rubric
    assert rubric is not None
    judged = JudgedCandidates()
    for index in sorted(judgments):
        judgment = judgments[index]
        judged.flags.update(judgment.flags)
        if PROMPT_INJECTION_FLAG in judgment.flags:  # not the judge-fitness flags, which concern the judge
            judged.flagged.append(index)
        judged.usage = judgment.usage if judged.usage is None else judged.usage.add(judgment.usage)
        judged.provenance = judged.provenance or judgment.provenance
        judged.metrics[index] = {s.metric: s for s in judgment.scores}
        failed = [s for s in judgment.scores if s.status != "scored" or s.score is None]
        if failed:
            judged.sums[index] = None
            judged.unscored[index] = [f"{s.metric}: {s.reason or 'no valid score'}" for s in failed]
            continue
        raw = {s.metric: s.score for s in judgment.scores if s.score is not None}
        # Recomputed in weights order so the sum is the same float as a purely given candidate's.
        total = 0.0
        for criterion, weight in plan.weights.items():
            if criterion in raw:
                total += raw[criterion] / rubric.scale.max * weight
            else:
                hit = given_value(candidates[index], criterion, index, ids[index])
                if hit is not None:  # absent and not judged: counted as 0.0, already warned about
                    total += hit[0] * weight
        judged.sums[index] = total
        average = sum(raw.values()) / len(raw)
        judged.averages[index] = average
        if PROMPT_INJECTION_FLAG in judgment.flags:
            # As for RAG answers and assessments: a candidate whose text addresses its judge is not accepted on
            # the model's word alone (measured on the embedded default: such text raised its score).
            judged.rejected[index] = [HELD_BACK_REASON]
            judged.held_back.append(index)
        elif plan.threshold is not None and _is_low(average, plan.threshold, rubric):
            reasons = [f"rubric average {average:.2f} is below the accept threshold {plan.threshold:g}"]
            for s in judgment.scores:
                if s.score is not None and _is_low(s.score, plan.threshold, rubric):
                    reasons.append(f"{s.name} {s.score:g}/{rubric.scale.max:g}: {s.explanation or 'no explanation'}")
            judged.rejected[index] = reasons
    return judged
