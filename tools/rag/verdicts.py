"""What `judge_rag_answer` and `judge_rag_answers` return. How they read as text is in `render.py`."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from gavel.tools.common import ToolResult
from gavel.tools.engine.fitness import DecisionCut
from gavel.tools.engine.scores import MetricScore, Provenance, Usage
from gavel.tools.engine.screen import UNSCORED as SCREEN_UNSCORED
from gavel.tools.rag import render
from gavel.tools.rag.reference import ReferenceFigure
from gavel.tools.rag.sentence_support import SentenceSupport

DIMENSIONS = ("relevance", "completeness", "accuracy", "source_attribution", "coherence")

Verdict = Literal["approved", "needs_improvement", "rejected", "unscored"]
Diagnosis = Literal["ok", "unsupported_by_context", "retrieval_miss", "answer_miss", "undetermined"]
ConfidenceSource = Literal["sample_spread", "judge_stated", "probability_margin"]


class RagJudgment(ToolResult):
    ledger_serves: ClassVar[bool] = True

    agent_name: str | None = Field(default=None, description="The agent, in judge_rag_answers.")
    evaluation_context: str
    verdict: Verdict = Field(description="approved | needs_improvement | rejected | unscored (no verdict guessed).")
    verdict_reason: str
    overall_score: float | None = Field(
        description="Rubric-weighted mean of the applicable dimensions, computed by Gavel; null when a weighted "
        "dimension is unscored."
    )
    confidence: float | None = Field(description="How sure the judgment is, 0-1; see confidence_source.")
    confidence_source: ConfidenceSource | None = Field(
        description="'sample_spread' (1 - mean normalized spread of the samples, when samples > 1), "
        "'judge_stated' (the judge's own estimate, generated readout) or 'probability_margin' (how far the weakest "
        "sentence's P(supported) is from the cut, probability readout); null when there is no confidence."
    )
    relevance: MetricScore
    completeness: MetricScore
    accuracy: MetricScore
    source_attribution: MetricScore
    coherence: MetricScore
    other_metrics: list[MetricScore] = Field(
        default_factory=list, description="Metrics of a custom rubric beyond the five RAG dimensions."
    )
    has_sources: bool = Field(description="Whether the answer cites sources; decided from its text, not by the model.")
    cited_source_ids: list[str] = Field(
        description="The passages the answer cites: their ids, or their 1-based positions when they have none."
    )
    unknown_citations: list[str] = Field(
        description="Cited or claimed sources that are not among the passages (sources_used ids, out-of-range [n])."
    )
    is_grounded: bool | None = Field(
        description="The judge's decision that the answer's claims are supported by the passages; null when undecided."
    )
    passages_relevant: bool | None = Field(description="The judge's decision that the passages address the question.")
    contradicts_passages: bool | None = Field(description="The judge's decision that the answer contradicts a passage.")
    unsupported_claims: list[str] = Field(
        default_factory=list,
        description="Probability readout: the answer's own sentences the passages do not support, verbatim (see "
        "sentence_support for each one's probability). Generated readout: the judge's short quotes.",
    )
    sentence_support: list[SentenceSupport] = Field(
        default_factory=list,
        description="Probability readout: every sentence of the answer with P(supported by the passages).",
    )
    grounding_error: str | None = Field(default=None, description="Why the grounding check gave no decision.")
    decision_cut: DecisionCut | None = Field(
        default=None,
        description="Probability readout: the P(supported) cut that decided is_grounded, Gavel's default or the "
        "judge's calibrated one (GAVEL_USE_CALIBRATED_CUT).",
    )
    answer_correctness: ReferenceFigure | None = Field(
        default=None,
        description="With reference_answer: the weakest P that the reference supports a claim of the answer, and "
        "the claims it does not. Informs; does not change the verdict. Null without a reference.",
    )
    context_recall: ReferenceFigure | None = Field(
        default=None,
        description="With reference_answer: the mean P that the passages support a claim of the reference (did "
        "retrieval bring what the right answer needs?). Informs; does not change the verdict. Null without a "
        "reference.",
    )
    fallbacks: list[str] = Field(
        default_factory=list,
        description="What was read another way because a model call failed, perhaps only this time (e.g. "
        "completeness by its own question when the judge's own answer could not be asked). A judgment with one is "
        "not served again from the ledger.",
    )
    diagnosis: Diagnosis = Field(
        description="What to fix: ok | unsupported_by_context | retrieval_miss | answer_miss | undetermined (no "
        "verdict, and no fault could be established)."
    )
    diagnosis_reason: str
    issues: list[str] = Field(description="Short, actionable problems, most important first.")
    reasoning: str = Field(description="The judge's reasoning on grounding.")
    agent_confidence: float | None = Field(default=None, description="The agent's own confidence, as given.")
    flags: list[str] = Field(default_factory=list, description="e.g. prompt_injection_suspected.")
    error: str | None = Field(default=None, description="Why this answer could not be judged at all (batch only).")
    narrative: str | None = Field(
        default=None, description="explain='narrative': the judge model's prose explanation, written after the verdict."
    )
    narrative_error: str | None = Field(default=None, description="Why the asked-for narrative could not be written.")
    usage: Usage
    provenance: Provenance | None
    summary: str

    def dimensions(self) -> list[MetricScore]:
        return [self.relevance, self.completeness, self.accuracy, self.source_attribution, self.coherence]

    def render_text(self) -> str:
        return render.card(self)

    def is_cacheable(self) -> bool:
        return (
            self.verdict != "unscored"
            and self.error is None
            and self.grounding_error is None
            and not self.fallbacks
            # A screen or a narrative that failed may have failed for a moment: kept, not served again.
            and SCREEN_UNSCORED not in self.flags
            and self.narrative_error is None
            and all(
                m.status != "unscored" and m.every_sample_scored() for m in [*self.dimensions(), *self.other_metrics]
            )
            and all(f is None or f.score is not None for f in (self.answer_correctness, self.context_recall))
        )


class RagBatchResult(ToolResult):
    ledger_serves: ClassVar[bool] = True

    evaluation_context: str
    results: list[RagJudgment] = Field(description="Ranked: verdict, then overall_score + completeness; unscored last.")
    best: str | None = Field(description="agent_name of the top approved answer; null when none is approved.")
    flags: list[str] = Field(default_factory=list, description="Flags raised on any answer.")
    usage: Usage = Field(description="Totals across all answers; duration is the batch's wall time.")
    provenance: Provenance | None = None
    summary: str

    def render_text(self) -> str:
        return render.table(self)

    def is_cacheable(self) -> bool:
        return all(item.is_cacheable() for item in self.results)

    def ledger_items(self) -> list[ToolResult]:
        return list(self.results)
