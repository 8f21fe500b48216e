"""What a reference answer adds to `judge_rag_answer`: answer correctness and context recall, both read sentence by
sentence from token probabilities, exactly as grounding is (`sentence_support.check_sentences`, the fact checker's
`rag_sentence` question, the checked text shown as the "Document"). Rules, fixed here and documented:

- answer_correctness: each sentence (and leading clause) of the answer checked against the reference answer as
  the document; the weakest claim's P(supported) decides, as accuracy does: one claim the reference does not
  support makes the answer incorrect. The claims below the cut are listed verbatim. Its question comes after the
  claim, unlike grounding's: against a reference of a few words, on HaluEval dev pairs 21-100 (bench.reference_layout),
  right answers ranked above hallucinated ones at AUROC 0.98 that way and 0.92 with the question first, and a
  short document leaves little for a shared prefix to save.
- context_recall: each sentence (and leading clause) of the reference checked against the passages as the
  document; the mean P(supported) over those claims, i.e. the expected share of the reference's claims the
  passages support (RAGAS's context recall is that share counted). The mean and not the weakest: one missing
  claim leaves retrieval partly useful, where one false claim makes an answer wrong.
- a figure is unscored (null score, with the reason and its code) when any of its claims is, when the judge's
  readout is generated (no log-probabilities to read), or, for recall, when there are no passages.

Neither figure changes the verdict: they inform. Recall depends only on the reference and the passages, so a
batch asks it once.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import TYPE_CHECKING, cast

from pydantic import BaseModel, ConfigDict, Field

from gavel.tools.common import one_line
from gavel.tools.engine.logprobs import ReasonCode
from gavel.tools.engine.one_token import document_prefix
from gavel.tools.engine.scores import Usage
from gavel.tools.rag import sentence_support
from gavel.tools.rag.sentence_support import CLAIM_CHARS, SentenceSupport

if TYPE_CHECKING:
    from gavel.tools.engine.judge import Judge
    from gavel.tools.rag.prepare import Prepared


class ReferenceFigure(BaseModel):
    """One figure read against the reference answer: its value, or why it has none, and every claim checked."""

    model_config = ConfigDict(extra="forbid")

    score: float | None = Field(description="0-1, from P(yes) per claim; null when unscored.")
    reason_code: ReasonCode | None = Field(default=None, description="Why it is unscored (machine-readable).")
    reason: str | None = Field(default=None, description="Why it is unscored.")
    explanation: str = Field(default="", description="Gavel's account of the numbers.")
    unsupported: list[str] = Field(default_factory=list, description="The claims below the cut, verbatim.")
    sentences: list[SentenceSupport] = Field(default_factory=list, description="Every claim checked, with its P.")


def unavailable(code: ReasonCode, reason: str) -> ReferenceFigure:
    return ReferenceFigure(score=None, reason_code=code, reason=reason)


async def answer_correctness(judge: Judge, prepared: Prepared, answer: str) -> tuple[ReferenceFigure, Usage]:
    """The answer's claims against the reference: the weakest decides."""
    if (missing := await _no_probabilities(judge, prepared)) is not None:
        return missing, Usage()
    assert prepared.reference is not None
    shared = document_prefix(prepared.reference, prepared.question)
    return await _figure(judge, prepared, shared, answer, "correctness claim", weakest=True, question_first=False)


async def context_recall(judge: Judge, prepared: Prepared) -> tuple[ReferenceFigure, Usage]:
    """The reference's claims against the passages: their mean P(supported)."""
    if (missing := await _no_probabilities(judge, prepared)) is not None:
        return missing, Usage()
    if prepared.passages is None:
        return unavailable("source_missing", "no passages were given, so there is nothing to recall from"), Usage()
    assert prepared.reference is not None
    # The grounding checks' own prefix: the prompt cache evaluates the passages once for both.
    shared = document_prefix(prepared.passages, prepared.question)
    return await _figure(
        judge, prepared, shared, prepared.reference, "recall claim", weakest=False, question_first=True
    )


async def _no_probabilities(judge: Judge, prepared: Prepared) -> ReferenceFigure | None:
    if await judge.readout_kind(prepared.model) == "probability":
        return None
    return unavailable(
        "no_logprobs",
        "the reference figures are read from token probabilities, and this judge's readout is generated "
        "(GAVEL_READOUT, or a backend without log-probabilities)",
    )


async def _figure(
    judge: Judge,
    prepared: Prepared,
    shared: sentence_support.Prefix,
    text: str,
    step: str,
    *,
    weakest: bool,
    question_first: bool,
) -> tuple[ReferenceFigure, Usage]:
    cut = await judge.decision_cut(prepared.rubric, sentence_support.SUPPORT_CUT, prepared.model)
    support, usage = await sentence_support.check_sentences(
        judge, shared, prepared.rubric, text, prepared.model, cut.value, step=step, question_first=question_first
    )
    return _read(support, cut.value, weakest=weakest), usage


def _read(support: Sequence[SentenceSupport], cut: float, *, weakest: bool) -> ReferenceFigure:
    unscored = next((s for s in support if s.p_supported is None), None)
    if unscored is not None or not support:
        if unscored is None:
            return unavailable("answer_tokens_missing", "there is no sentence to check")
        reason = f"claim {list(support).index(unscored) + 1} of {len(support)} was not scored: {unscored.reason}"
        return ReferenceFigure(
            score=None,
            reason_code=cast("ReasonCode | None", unscored.reason_code),
            reason=reason,
            sentences=list(support),
        )
    ps = [s.p_supported for s in support if s.p_supported is not None]
    held = sum(1 for s in support if s.supported)
    unsupported = [s.sentence for s in support if s.supported is False]
    counted = f"{held} of {len(support)} claims supported (P(supported) >= {cut:.3g})"
    if weakest:
        low = min(support, key=lambda s: s.p_supported or 0.0)
        score = min(ps)
        explanation = f"{counted}; the weakest decides: P {score:.2f} for “{one_line(low.sentence, CLAIM_CHARS)}”"
    else:
        score = fmean(ps)
        explanation = f"{counted}; mean P(supported) {score:.2f}"
    return ReferenceFigure(score=score, explanation=explanation, unsupported=unsupported, sentences=list(support))
