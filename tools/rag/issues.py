"""The issues of one judgment: short, actionable problems, most important first."""

from __future__ import annotations

from collections.abc import Mapping

from gavel.tools.common import one_line
from gavel.tools.engine.scores import MetricScore
from gavel.tools.guards import PROMPT_INJECTION_FLAG
from gavel.tools.rag.citations import Citations
from gavel.tools.rag.diagnosis import passages_address_question
from gavel.tools.rag.grounding import Grounding
from gavel.tools.rag.prepare import Prepared
from gavel.tools.rag.render import first_sentence
from gavel.tools.rag.rules import needs_grounding, weighted_unscored
from gavel.tools.rag.sentence_support import ProbabilityGrounding
from gavel.tools.rubrics import Rubric

_MAX_ISSUES_PER_KIND = 5


def issues(
    *,
    prepared: Prepared,
    answer: str,
    scores: Mapping[str, MetricScore],
    grounding: Grounding | None,
    grounding_error: str | None,
    citations: Citations,
    injection: list[str],
    error: str | None,
    on_topic: float,
) -> list[str]:
    return [
        *([f"not judged: {error}"] if error else []),
        *[f"{PROMPT_INJECTION_FLAG}: {finding}" for finding in injection[:_MAX_ISSUES_PER_KIND]],
        *([] if error else _unscored(scores, prepared.rubric)),
        *_low_scores(scores, prepared.rubric),
        *_passage_issues(prepared, answer, grounding, grounding_error, error, on_topic),
        *_citation_issues(prepared, citations),
    ]


def _unscored(scores: Mapping[str, MetricScore], rubric: Rubric) -> list[str]:
    return [
        f"{metric_id} unscored: {one_line(scores[metric_id].reason or 'no valid score', 160)}"
        for metric_id in weighted_unscored(scores, rubric)
    ]


def _low_scores(scores: Mapping[str, MetricScore], rubric: Rubric) -> list[str]:
    low = [
        s for s in scores.values() if s.status == "scored" and s.score is not None and s.score < rubric.pass_threshold
    ]
    return [
        f"{score.metric} {score.score:.3g}: {first_sentence(score.explanation)}".rstrip(": ")
        for score in sorted(low, key=lambda s: s.score if s.score is not None else 0)
    ]


def _passage_issues(
    prepared: Prepared,
    answer: str,
    grounding: Grounding | None,
    grounding_error: str | None,
    error: str | None,
    on_topic: float,
) -> list[str]:
    rules = prepared.rules
    found: list[str] = []
    if rules.sources_expected and not prepared.sources:
        found.append(
            "no passages were given: send the retrieved passages, or use DIAGNOSTIC for answers without retrieval"
        )
    if grounding is None:
        if grounding_error and needs_grounding(rules) and prepared.sources and not error:
            found.append(f"grounding could not be checked: {one_line(grounding_error, 160)}")
        return found
    if rules.sources_expected and passages_address_question(grounding, on_topic) is False:
        found.append("the passages do not address the question: improve retrieval")
    if grounding.contradicts_passages:
        found.append("the answer contradicts the passages")
    return found + _claim_issues(grounding, answer)


def _without(p: float | None) -> str:
    """A claim above the cut is unsupported when the passages do not raise it: say so, with the number."""
    return f", {p:.2f} without the passages" if p is not None else ""


def _claim_issues(grounding: Grounding, answer: str) -> list[str]:
    if isinstance(grounding, ProbabilityGrounding):
        return [
            f"unsupported claim (P(supported) {s.p_supported:.2f}{_without(s.p_without_passages)}): “{s.sentence}”"
            for s in grounding.sentences
            if s.supported is False and s.p_supported is not None
        ][:_MAX_ISSUES_PER_KIND]
    return [_claim_issue(claim, answer) for claim in grounding.unsupported_claims[:_MAX_ISSUES_PER_KIND]]


def _claim_issue(claim: str, answer: str) -> str:
    # The judge is asked to quote the answer, but a small model sometimes writes its own sentence instead
    # ("The answer states that ..."). That is still a finding; it must not be shown as the answer's words.
    if _folded(claim) in _folded(answer):
        return f"unsupported claim: “{claim}”"
    return f"unsupported claim (the judge's words, not found in the answer): {claim}"


def _folded(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .\"'“”‘’")


def _citation_issues(prepared: Prepared, citations: Citations) -> list[str]:
    found: list[str] = []
    if prepared.rules.sources_expected and prepared.sources and not citations.has_sources:
        found.append("cites none of the passages: credit them, e.g. [1] or (Source: <title>)")
    if citations.unknown:
        shown = ", ".join(citations.unknown[:_MAX_ISSUES_PER_KIND])
        found.append(f"cites sources that are not among the passages: {shown}")
    return found
