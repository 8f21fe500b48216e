"""From what the model said about one answer (`JudgedAnswer`) to its `RagJudgment`, deterministically: the citations,
the overall score, the verdict, the prompt-injection check, the diagnosis, the confidence and the issues. Each
step is a function of the steps before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gavel.tools.engine import screen
from gavel.tools.engine.logprobs import ReasonCode
from gavel.tools.engine.scores import MetricScore, Usage
from gavel.tools.guards import PROMPT_INJECTION_FLAG
from gavel.tools.rag import render
from gavel.tools.rag.citations import Citations, detect_citations
from gavel.tools.rag.diagnosis import diagnose, question_terms_in_passages
from gavel.tools.rag.grounding import Grounding
from gavel.tools.rag.issues import issues
from gavel.tools.rag.model_part import JudgedAnswer
from gavel.tools.rag.prepare import AnswerInput, Prepared
from gavel.tools.rag.reference import ReferenceFigure, unavailable
from gavel.tools.rag.rules import (
    confidence_of,
    decide_from_checks,
    decide_verdict,
    overall_score,
    weighted_unscored,
)
from gavel.tools.rag.sentence_support import ProbabilityGrounding
from gavel.tools.rag.verdicts import DIMENSIONS, Diagnosis, RagJudgment, Verdict


def assemble(
    prepared: Prepared,
    item: AnswerInput,
    judged: JudgedAnswer,
    error: str | None = None,
    recall: ReferenceFigure | None = None,
) -> RagJudgment:
    """`recall` is the request's context recall (one per request: it does not depend on the answer)."""
    rubric, grounding = prepared.rubric, judged.grounding
    scores = _all_scores(judged.scores, prepared)
    grounding_error = "no passages were given" if prepared.passages is None else judged.grounding_error
    is_grounded = _is_grounded(prepared, grounding)
    citations = detect_citations(item.answer, prepared.sources, item.sources_used)
    overall = overall_score(list(scores.values()), rubric, prepared.rules.not_applicable)
    unscored = weighted_unscored(scores, rubric)
    codes = [code for m in unscored if (code := scores[m].reason_code) is not None]
    verdict, reason = decide_verdict(prepared.rules, overall, is_grounded, citations.has_sources, unscored, codes)
    if isinstance(grounding, ProbabilityGrounding) and (checked := decide_from_checks(grounding)) is not None:
        verdict, reason = checked
        if unscored:
            # The claims decide the verdict; the dimension left without a score is said, not passed over.
            reason += f"; no overall score: {', '.join(unscored)} unscored ({', '.join(codes) or 'no reason code'})"
    if error is not None:
        verdict, reason = "unscored", f"no verdict: the answer could not be judged ({error})"
    injection, flags = _injection(prepared, item, judged.flags)
    held_back = bool(injection) and verdict == "approved"
    if held_back:
        verdict, reason = "needs_improvement", _held_back(reason, injection)
    on_topic = question_terms_in_passages(prepared.question, prepared.passages)
    diagnosis, diagnosis_reason = _diagnosis(prepared, verdict, grounding, scores, on_topic, held_back)
    confidence, confidence_source = confidence_of(list(scores.values()), rubric, prepared.samples, grounding)
    found = issues(
        prepared=prepared, answer=item.answer, scores=scores, grounding=grounding, grounding_error=grounding_error,
        citations=citations, injection=injection, error=error, on_topic=on_topic,
    )  # fmt: skip
    return RagJudgment(
        agent_name=item.agent_name,
        evaluation_context=prepared.context,
        verdict=verdict,
        verdict_reason=reason,
        overall_score=overall,
        confidence=confidence,
        confidence_source=confidence_source,
        **{d: _dimension(scores, d, prepared) for d in DIMENSIONS},
        other_metrics=[s for mid, s in scores.items() if mid not in DIMENSIONS],
        **_citation_fields(citations),
        is_grounded=is_grounded,
        **_grounding_fields(grounding, grounding_error),
        answer_correctness=judged.correctness,
        fallbacks=list(judged.fallbacks),
        context_recall=recall,
        diagnosis=diagnosis,
        diagnosis_reason=diagnosis_reason,
        issues=found,
        agent_confidence=item.agent_confidence,
        flags=flags,
        error=error,
        usage=judged.usage,
        provenance=judged.provenance,
        summary=render.summary(item.agent_name, verdict, prepared.context, rubric, reason, diagnosis),
    )


def failed(prepared: Prepared, item: AnswerInput, error: str, code: ReasonCode) -> RagJudgment:
    """An answer whose judging failed at the backend: unscored, with the deterministic findings kept."""
    unscored = [
        MetricScore(metric=m.id, name=m.name, score=None, status="unscored", reason=error, reason_code=code)
        for m in prepared.rubric.metrics
        if m.id not in prepared.rules.not_applicable
    ]
    correctness = unavailable(code, error) if prepared.reference is not None else None
    judged = JudgedAnswer(
        scores=unscored, grounding=None, grounding_error=None, flags=[], usage=Usage(), provenance=None,
        correctness=correctness,
    )  # fmt: skip
    return assemble(prepared, item, judged, error=error)


def _all_scores(judged: Sequence[MetricScore], prepared: Prepared) -> dict[str, MetricScore]:
    by_id = {s.metric: s for s in judged}
    out: dict[str, MetricScore] = {}
    for metric in prepared.rubric.metrics:
        if metric.id in prepared.rules.not_applicable:
            out[metric.id] = MetricScore.not_applicable(
                metric.id, metric.name, f"not applicable in {prepared.context}: sources are not expected"
            )
        elif metric.id in by_id:
            out[metric.id] = by_id[metric.id]
    return out


def _dimension(scores: dict[str, MetricScore], metric_id: str, prepared: Prepared) -> MetricScore:
    if metric_id in scores:
        return scores[metric_id]
    return MetricScore.not_applicable(metric_id, metric_id, f"rubric {prepared.rubric.id!r} has no {metric_id} metric")


def _is_grounded(prepared: Prepared, grounding: Grounding | None) -> bool | None:
    if grounding is not None:
        return grounding.is_grounded
    if prepared.passages is None and prepared.rules.sources_expected:
        # Nothing can be supported by passages that do not exist: a fact, not a model decision.
        return False
    return None


def _injection(prepared: Prepared, item: AnswerInput, engine_flags: Sequence[str]) -> tuple[list[str], list[str]]:
    """(findings of text aimed at the judge, the judgment's flags): every text was scanned once, when the request
    was prepared; the flag comes first when anything was found."""
    injection = list(dict.fromkeys([*prepared.injection, *item.injection]))
    if screen.FLAGGED in engine_flags:
        injection.append(f"{screen.FINDING} (in the answer)")
    flags = list(dict.fromkeys(engine_flags))
    if injection:
        flags = [PROMPT_INJECTION_FLAG, *(flag for flag in flags if flag != PROMPT_INJECTION_FLAG)]
    return injection, flags


def _held_back(reason: str, injection: list[str]) -> str:
    return (
        f"{reason}, but text aimed at the judge was found ({injection[0]}); not approved on the model's word alone: "
        "have a person check it"
    )


def _diagnosis(
    prepared: Prepared,
    verdict: Verdict,
    grounding: Grounding | None,
    scores: dict[str, MetricScore],
    on_topic: float,
    held_back: bool,
) -> tuple[Diagnosis, str]:
    accuracy = scores.get("accuracy")
    diagnosis, reason = diagnose(
        verdict=verdict,
        rules=prepared.rules,
        source_count=len(prepared.sources),
        grounding=grounding,
        accuracy=accuracy.score if accuracy is not None else None,
        pass_threshold=prepared.rubric.pass_threshold,
        on_topic=on_topic,
    )
    if held_back and diagnosis == "ok":
        reason = "no retrieval or grounding fault found; held back only because of suspected prompt injection"
    return diagnosis, reason


def _citation_fields(citations: Citations) -> dict[str, Any]:
    """The result's fields that report what the answer cites, read from its text."""
    return {
        "has_sources": citations.has_sources,
        "cited_source_ids": citations.cited,
        "unknown_citations": citations.unknown,
    }


def _grounding_fields(grounding: Grounding | None, grounding_error: str | None) -> dict[str, Any]:
    """The result's fields that report the grounding decision; the error only when there is no decision."""
    if grounding is None:
        return {
            "passages_relevant": None,
            "contradicts_passages": None,
            "unsupported_claims": [],
            "sentence_support": [],
            "decision_cut": None,
            "grounding_error": grounding_error,
            "reasoning": "",
        }
    return {
        "passages_relevant": grounding.passages_relevant,
        "contradicts_passages": grounding.contradicts_passages,
        "unsupported_claims": list(grounding.unsupported_claims),
        "sentence_support": grounding.sentences if isinstance(grounding, ProbabilityGrounding) else [],
        "decision_cut": grounding.cut if isinstance(grounding, ProbabilityGrounding) else None,
        "grounding_error": None,
        "reasoning": grounding.reasoning,
    }
