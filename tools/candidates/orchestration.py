"""`score_candidates`: the phases in order, each returning what it found, and the result assembled from them.

The deterministic phases (checking and summing every candidate, ranking, selecting, building the ranking) run in
a worker thread: for 10,000 candidates they take up to a second of CPU, which on the event loop held every
other client's call.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from gavel.tools.candidates.display import display_name, id_list, show
from gavel.tools.candidates.explain import add_key_points, add_narratives, contributions, template_explanation
from gavel.tools.candidates.models import (
    DiversityOutcome,
    RankingEntry,
    RejectedCandidate,
    ScoreCandidatesRequest,
    ScoreCandidatesResult,
    SelectedCandidate,
    Status,
    UnscoredCandidate,
)
from gavel.tools.candidates.notes import Notes, joined
from gavel.tools.candidates.plan import Plan, Scan, make_plan, scan, weight_notes
from gavel.tools.candidates.ranking import Ranking, diversity_outcomes, rank, select, selection_notes
from gavel.tools.candidates.scoring import JudgedCandidates, Scored, judge_phase, unused_threshold
from gavel.tools.deps import FromRequest, Tool, ToolDeps
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.scores import Provenance, Usage
from gavel.tools.rubrics import Rubric, rubric_identity


@dataclass
class _Outcome:
    ranking: Ranking
    selected: list[SelectedCandidate]
    notes: Notes
    usage: Usage | None
    provenance: Provenance | None


@dataclass(frozen=True)
class PreparedCandidates(FromRequest):
    """A score_candidates request, checked once: its plan and every candidate's given values (`Scan`)."""

    request: ScoreCandidatesRequest
    plan: Plan
    scan: Scan

    @property
    def needs_model(self) -> bool:
        # Without a criterion the judge must score, or a narrative, the call is deterministic: no model, no lookup.
        return bool(self.scan.needs) or self.request.explain == "narrative"

    @property
    def rubric(self) -> Rubric | None:
        return self.plan.rubric


async def _prepare(request: ScoreCandidatesRequest, deps: ToolDeps) -> PreparedCandidates:
    """The plan and the per-candidate checks (up to a second of CPU for 10,000 candidates: in a worker thread)."""
    plan, scan = await anyio.to_thread.run_sync(_plan_and_scan, request, deps)
    return PreparedCandidates(request, plan, scan)


def _plan_and_scan(request: ScoreCandidatesRequest, deps: ToolDeps) -> tuple[Plan, Scan]:
    plan = make_plan(request, deps)
    return plan, scan(request.candidates, plan, deps)


async def _score(prepared: PreparedCandidates, deps: ToolDeps) -> ScoreCandidatesResult:
    """Scores, ranks and selects; asks for the judge only when a criterion or a narrative needs it."""
    started = time.perf_counter()
    request, plan, scan = prepared.request, prepared.plan, prepared.scan
    candidates = request.candidates
    notes = [weight_notes(plan, scan)]

    judge: Judge | None = None
    judged = JudgedCandidates()
    if scan.needs:
        judge = await deps.judge()
        judged, judge_notes = await judge_phase(
            judge, candidates, plan, scan, source=request.source, samples=request.samples, model=request.model,
            deps=deps,
        )  # fmt: skip
        notes.append(judge_notes)
    notes.append(unused_threshold(plan, judged))
    scored = Scored.of(scan, judged)

    ranking, selected, selection = await anyio.to_thread.run_sync(
        _rank_and_select, candidates, plan, scored, request.top_k
    )
    notes.append(selection)
    usage, provenance = judged.usage, judged.provenance
    if request.explain == "narrative" and selected:
        judge = judge or await deps.judge()
        used, narrative_notes = await add_narratives(judge, selected, candidates, plan, request.model)
        usage = used if usage is None else usage.add(used)
        notes.append(narrative_notes)
        if provenance is None:
            provenance = await judge.provenance(rubric=plan.rubric, samples=1, model=request.model, readout="generated")
    if judge is not None and plan.rubric is not None:
        used_by_points, points_notes = await add_key_points(
            judge, plan.rubric, selected, candidates, scored, request.model
        )
        if used_by_points is not None:
            usage = used_by_points if usage is None else usage.add(used_by_points)
        notes.append(points_notes)

    if usage is not None:
        # Calls ran concurrently, so summed per-call durations overstate the time; report the wall time.
        usage = usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})
    outcome = _Outcome(ranking, selected, joined(notes), usage, provenance)
    return await anyio.to_thread.run_sync(_result, candidates, plan, scored, request, outcome)


# The plan and the scan are made once, before the server's ledger lookup; the run takes them.
score_candidates = Tool(_prepare, _score)


def _rank_and_select(
    candidates: Sequence[Mapping[str, Any]], plan: Plan, scored: Scored, top_k: int
) -> tuple[Ranking, list[SelectedCandidate], Notes]:
    ranked, rank_of = rank(scored.scores)
    eligible = [i for i in ranked if i not in scored.judged.rejected]
    trace = select(eligible, candidates, plan.targets, top_k, scored.scores)
    ranking = Ranking(ranked, rank_of, eligible, trace, diversity_outcomes(trace, candidates, plan.targets))
    notes = selection_notes(ranking, candidates, plan, scored, top_k)
    return ranking, _selected(ranking, candidates, plan, scored, top_k), notes


def _selected(
    ranking: Ranking, candidates: Sequence[Mapping[str, Any]], plan: Plan, scored: Scored, top_k: int
) -> list[SelectedCandidate]:
    out = []
    for pick in ranking.trace.picks:
        i = pick.index
        candidate, cid, rank_i = candidates[i], scored.ids[i], ranking.rank_of[i]
        score = scored.score(i)
        name = display_name(candidate, cid)
        parts = contributions(candidate, i, cid, plan, scored.judged.metrics.get(i))
        attributes = {a: candidate[a] for a in plan.targets if candidate.get(a) is not None}
        selected_for = (
            "diversity: " + ", ".join(f"{a}={show(v)}" for a, v in pick.new_values) if pick.by_diversity else "score"
        )
        out.append(
            SelectedCandidate(
                index=i, id=cid, name=name, rank=rank_i, judge_score=score, contributions=parts,
                attributes=attributes, selected_for=selected_for,
                explanation=template_explanation(
                    name, score, rank_i, parts, pick, attributes, bool(plan.targets), top_k
                ),
                explanation_source="template", rubric_average=scored.judged.averages.get(i),
            )
        )  # fmt: skip
    return out


def _result(
    candidates: Sequence[Mapping[str, Any]],
    plan: Plan,
    scored: Scored,
    request: ScoreCandidatesRequest,
    outcome: _Outcome,
) -> ScoreCandidatesResult:
    ranking, judged = outcome.ranking, scored.judged
    status: dict[int, Status] = {p.index: "selected" for p in ranking.trace.picks}
    entries = [
        RankingEntry(
            index=i, id=scored.ids[i], rank=ranking.rank_of[i], judge_score=scored.scores[i],
            status=status.get(i, "rejected" if i in judged.rejected else "not_selected"),
        )
        for i in ranking.ranked
    ]  # fmt: skip
    entries += [
        RankingEntry(index=i, id=scored.ids[i], rank=None, judge_score=None, status="unscored")
        for i in sorted(judged.unscored)
    ]
    rejected = [
        RejectedCandidate(
            index=i, id=scored.ids[i], name=display_name(candidates[i], scored.ids[i]),
            judge_score=scored.score(i), average=judged.averages[i], reasons=reasons,
        )
        for i, reasons in sorted(judged.rejected.items(), key=lambda item: ranking.rank_of[item[0]])
    ]  # fmt: skip
    unscored = [
        UnscoredCandidate(index=i, id=scored.ids[i], name=display_name(candidates[i], scored.ids[i]), reasons=reasons)
        for i, reasons in sorted(judged.unscored.items())
    ]
    return ScoreCandidatesResult(
        selected=outcome.selected,
        ranking=entries,
        rejected=rejected,
        unscored=unscored,
        diversity=ranking.diversity,
        **_plan_fields(plan),
        top_k=request.top_k,
        reasoning_log=outcome.notes.log,
        warnings=outcome.notes.warnings,
        failures=outcome.notes.failures,
        flags=sorted(judged.flags),
        usage=outcome.usage,
        provenance=outcome.provenance,
        summary=_summary(outcome.selected, ranking.diversity, rejected, unscored, len(candidates), request.top_k),
    )


def _plan_fields(plan: Plan) -> dict[str, Any]:
    """What the plan settled (weights, targets, rubric, threshold) under the result's names for it."""
    return {
        "weights": plan.weights,
        "weights_source": plan.weights_source,
        "diversity_targets": plan.targets,
        "diversity_targets_source": plan.targets_source,
        **rubric_identity(plan.rubric),
        "accept_threshold": plan.threshold,
    }


def _summary(
    selected: Sequence[SelectedCandidate],
    diversity: Sequence[DiversityOutcome],
    rejected: Sequence[RejectedCandidate],
    unscored: Sequence[UnscoredCandidate],
    count: int,
    top_k: int,
) -> str:
    chosen = id_list([s.id for s in selected]) if selected else "none eligible"
    parts = [f"Selected {len(selected)} of {count} candidate(s) (top_k {top_k}): {chosen}"]
    if diversity:
        met = [d for d in diversity if d.met]
        unmet = [d for d in diversity if not d.met]
        if unmet:
            parts.append(
                "diversity targets NOT met: "
                + ", ".join(f"{d.attribute} {d.achieved}/{d.target} ({d.reason})" for d in unmet)
            )
        if met:
            parts.append("met: " + ", ".join(f"{d.attribute} {d.achieved}/{d.target}" for d in met))
    if rejected:
        parts.append(f"{len(rejected)} rejected")
    if unscored:
        parts.append(f"{len(unscored)} unscored")
    return "; ".join(parts) + "."
