"""`judge_rag_answer`'s grounding read from probabilities: one Yes/No check per sentence of the answer.

The answer is split into sentences deterministically (`sentences.split_sentences`); each is asked "is every
part of this sentence supported by the passages?" after the judgment's shared prompt prefix (passages,
question) and with the question before the sentence, so the prompt cache evaluates the passages and the question
once and each check its sentence alone. Rules, fixed here and documented:

- a sentence is supported when P(yes) >= SUPPORT_CUT (or, with GAVEL_USE_CALIBRATED_CUT=true, the cut the judge's
  calibration found best: the result's decision_cut says which) and the passages do not lower it: the same check
  asked with the passages left out (`without`, the model's belief from the question alone) must not read higher.
  A wrong answer the model finds plausible reads as supported behind the passages too; the passages then add
  nothing to it. HaluEval dev (bench/rag_prior.py): balanced accuracy 0.88 -> 0.92 on the tuning pairs 1-50,
  where the rule was chosen, and 0.80 -> 0.86 on pairs 51-100, held out; faithful whole-sentence answers approved
  86 % -> 82 %, hallucinated ones rejected 78 % -> 86 %. It is asked only of a claim at or above the cut;
- accuracy is the weakest sentence's P(supported): one unsupported sentence makes the answer unfaithful;
  it is unscored when any sentence is (its minimum is then unknown);
- is_grounded is False when a sentence is unsupported, True when every sentence is supported, else undecided;
- unsupported_claims are the answer's own unsupported sentences, verbatim;
- the contradiction and passage-relevance checks, which only the diagnosis reads, are asked only when
  something is wrong (a sentence unsupported or a dimension below the pass threshold).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
from pydantic import BaseModel, ConfigDict, Field

from gavel.tools.common import one_line
from gavel.tools.engine import prompts
from gavel.tools.engine.fitness import DecisionCut
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import Prefix, metric_score, yes_no
from gavel.tools.engine.scores import MetricScore, Usage
from gavel.tools.engine.sentences import leading_clause, split_sentences
from gavel.tools.rubrics import Metric, Rubric

if TYPE_CHECKING:
    from gavel.tools.engine.judge import Judge

# Chosen on HaluEval dev pairs 1-50. With the question before the claim their best cut is 0.54 (balanced accuracy
# 0.86) against 0.85 at 0.45, a difference of one answer in a hundred, so the cut stays where it was measured first.
SUPPORT_CUT = 0.45
SENTENCE_LABEL = "claim"
CLAIM_CHARS = 160  # a sentence quoted in an explanation


class SentenceSupport(BaseModel):
    """One sentence of the answer and the judge's probability that the passages support it."""

    model_config = ConfigDict(extra="forbid")

    sentence: str = Field(
        description="The claim checked: a sentence of the answer (citations kept with it), or its leading clause, "
        "verbatim."
    )
    p_supported: float | None = Field(description="P(yes) that every part of it is supported; null when unscored.")
    p_without_passages: float | None = Field(
        default=None,
        description="P(yes) of the same check with the passages left out; asked only when p_supported reaches the "
        "cut, null otherwise.",
    )
    supported: bool | None = Field(
        description=f"p_supported >= the cut ({SUPPORT_CUT} by default) and not below p_without_passages: the "
        "passages must not lower the claim's support; null when unscored."
    )
    reason_code: str | None = Field(default=None, description="Why it is unscored (machine-readable).")
    reason: str | None = Field(default=None, description="Why it is unscored.")


@dataclass
class ProbabilityGrounding:
    """What the per-sentence checks established; read by the verdict, diagnosis and issues like the generated
    grounding check, with None where a decision was not made or not needed."""

    sentences: list[SentenceSupport]
    is_grounded: bool | None
    passages_relevant: bool | None
    contradicts_passages: bool | None
    unsupported_claims: list[str]
    reasoning: str
    confidence: float | None
    cut: DecisionCut


def _support(sentence: str, readout: Readout, cut: float, without: Readout | None = None) -> SentenceSupport:
    """`without`: the check with the passages left out, when it was asked (the claim reached the cut)."""
    if readout.value is None:
        return SentenceSupport(
            sentence=sentence, p_supported=None, supported=None, reason_code=readout.reason_code, reason=readout.reason
        )
    if without is None:
        return SentenceSupport(sentence=sentence, p_supported=readout.value, supported=readout.value >= cut)
    if without.value is None:
        return SentenceSupport(
            sentence=sentence, p_supported=readout.value, supported=None, reason_code=without.reason_code,
            reason=f"the check without the passages is unscored: {without.reason}",
        )  # fmt: skip
    return SentenceSupport(
        sentence=sentence, p_supported=readout.value, p_without_passages=without.value,
        supported=readout.value >= _bar(cut, without.value),
    )  # fmt: skip


def _instruction(name: str, rubric: Rubric) -> str:
    # The passages are shown as the "Document" (engine.one_token.document_prefix), so the checks name it so.
    return prompts.prompt_set().fill(name, subject=rubric.prompt.subject, sentence_label=SENTENCE_LABEL)


def claims(answer: str) -> list[str]:
    """What `check_sentences` checks: each sentence of the answer and, where it has one, its leading clause on its
    own."""
    out = []
    for sentence in split_sentences(answer) or [answer.strip()]:
        out.append(sentence)
        if (clause := leading_clause(sentence)) is not None:
            out.append(clause)
    return out


async def check_sentences(
    judge: Judge,
    shared: Prefix,
    rubric: Rubric,
    answer: str,
    model: str | None,
    cut: float = SUPPORT_CUT,
    step: str = "sentence",
    *,
    question_first: bool = True,
    without: Prefix | None = None,
) -> tuple[list[SentenceSupport], Usage]:
    """Every sentence of `answer` (and its leading clause) checked against the shared prefix's document.
    `step` names the checks in progress ("sentence 2 of 5"); `question_first` as in `one_token.user_prompt`.
    `without`: the prefix with the document left out; given, each claim at or above the cut is asked again behind
    it, after every claim was checked against the document (so the document's prefix is evaluated first)."""
    sentences = claims(answer)
    readouts: list[Readout | None] = [None] * len(sentences)
    beliefs: list[Readout | None] = [None] * len(sentences)
    usage = Usage()
    instruction = _instruction("rag_sentence", rubric)

    async def one(index: int, sentence: str, prefix: Prefix, into: list[Readout | None], label: str) -> None:
        nonlocal usage
        readout, used = await yes_no(
            judge.calls, prefix, instruction, extra={SENTENCE_LABEL: sentence}, model=model,
            step=f"{step} {index + 1} of {len(sentences)}{label}", question_first=question_first,
        )  # fmt: skip
        into[index] = readout
        usage = usage.add(used)

    async with anyio.create_task_group() as tg:
        for index, sentence in enumerate(sentences):
            tg.start_soon(one, index, sentence, shared, readouts, "")
    if without is not None:
        async with anyio.create_task_group() as tg:
            for index, sentence in enumerate(sentences):
                readout = readouts[index]
                if readout is not None and readout.value is not None and readout.value >= cut:
                    tg.start_soon(one, index, sentence, without, beliefs, ", without the passages")
    return [
        _support(s, r, cut, b) for s, r, b in zip(sentences, readouts, beliefs, strict=True) if r is not None
    ], usage


_FOLLOW_UPS = {"rag_contradicts": "the contradiction check", "rag_passages_relevant": "the passages' relevance check"}


async def follow_up(judge: Judge, shared: Prefix, rubric: Rubric, model: str | None) -> tuple[Readout, Readout, Usage]:
    """(contradicts, passages relevant) as P(yes) readouts, asked concurrently."""
    results: dict[str, tuple[Readout, Usage]] = {}

    async def one(name: str) -> None:
        results[name] = await yes_no(
            judge.calls, shared, _instruction(name, rubric), model=model, step=_FOLLOW_UPS[name]
        )

    async with anyio.create_task_group() as tg:
        tg.start_soon(one, "rag_contradicts")
        tg.start_soon(one, "rag_passages_relevant")
    contradicts, used_a = results["rag_contradicts"]
    relevant, used_b = results["rag_passages_relevant"]
    return contradicts, relevant, used_a.add(used_b)


def needs_follow_up(support: Sequence[SentenceSupport]) -> bool:
    """Whether the contradiction and relevance checks can tell anything: only when the checks will not approve the
    answer (a claim unsupported or unchecked, or none to check). With every claim supported the verdict is approved
    (rules.decide_from_checks) and the diagnosis ok, so their answers would only list "contradicts the passages"
    beside an approval; skipping them saves about a second of a lone judgment (two calls on 2 cores)."""
    return not support or any(s.supported is not True for s in support)


def accuracy_score(metric: Metric, support: Sequence[SentenceSupport], cut: float = SUPPORT_CUT) -> MetricScore:
    """The weakest sentence's P(supported), with Gavel's explanation of which sentence decided it."""
    # A claim is undecided when either of its checks is unscored: accuracy then rests on a check that gave no answer.
    unscored = [s for s in support if s.p_supported is None or s.supported is None]
    if unscored or not support:
        first = unscored[0] if unscored else None
        reason = (
            f"sentence {support.index(first) + 1} of {len(support)} was not scored: {first.reason}"
            if first is not None
            else "the answer has no sentence to check"
        )
        code = first.reason_code if first is not None else "answer_tokens_missing"
        return metric_score(metric.id, metric.name, Readout.failed(code, reason), "")  # type: ignore[arg-type]
    weakest = min(support, key=lambda s: s.p_supported or 0.0)
    p = weakest.p_supported or 0.0
    held = sum(1 for s in support if s.supported)
    explanation = (
        f"{held} of {len(support)} sentences supported by the passages (P(supported) >= {cut:.3g}, and no lower "
        f"than without the passages); the weakest decides: P {p:.2f} for “{one_line(weakest.sentence, CLAIM_CHARS)}”"
    )
    lowered = [s for s in support if not_raised(s)]
    if lowered:
        first = lowered[0]
        explanation += (
            f"; “{one_line(first.sentence, CLAIM_CHARS)}” reads P {first.p_supported:.2f} with the passages and "
            f"{first.p_without_passages:.2f} without them: the passages do not support it beyond what the model "
            "already believed"
        )
    return metric_score(metric.id, metric.name, Readout(value=p, distribution={"yes": p, "no": 1 - p}), explanation)


def grounding(
    support: Sequence[SentenceSupport],
    contradicts: Readout | None,
    relevant: Readout | None,
    cut: DecisionCut | None = None,
    note: str | None = None,
) -> ProbabilityGrounding:
    """`note`: how the claims were checked, when the reader should know (the judge's own answer shown with them)."""
    cut = cut or DecisionCut(value=SUPPORT_CUT, source="default")
    if any(s.supported is False for s in support):
        is_grounded: bool | None = False
    elif support and all(s.supported is True for s in support):
        is_grounded = True
    else:
        is_grounded = None
    unsupported = [s.sentence for s in support if s.supported is False]
    decided = [s for s in support if s.supported is not None and s.p_supported is not None]
    # The deciding claim is the one nearest (or furthest below) the bar it had to clear: the cut, or its support
    # without the passages when that is higher.
    deciding = min(decided, key=lambda s: (s.p_supported or 0.0) - _bar(cut.value, s.p_without_passages), default=None)
    supported = sum(s.supported is True for s in support)
    parts = [f"{supported} of {len(support)} sentences supported (cut {cut.value:.3g}, {cut.source})"]
    if unread := sum(s.supported is None for s in support):
        parts[0] += f", {unread} not scored"
    if unsupported:
        parts.append(f"unsupported: {'; '.join(f'“{one_line(s, CLAIM_CHARS)}”' for s in unsupported[:3])}")
    lowered = [s for s in support if not_raised(s)]
    if lowered:
        parts.append(f"{len(lowered)} of them read no higher with the passages than without them")
    for name, readout in (("contradicts the passages", contradicts), ("passages address the question", relevant)):
        if readout is not None and readout.value is not None:
            parts.append(f"P({name}) {readout.value:.2f}")
    if note:
        parts.append(note)
    return ProbabilityGrounding(
        sentences=list(support),
        is_grounded=is_grounded,
        passages_relevant=_decided(relevant),
        contradicts_passages=_decided(contradicts),
        unsupported_claims=unsupported,
        reasoning="; ".join(parts),
        confidence=_margin(deciding.p_supported or 0.0, _bar(cut.value, deciding.p_without_passages))
        if deciding is not None and is_grounded is not None
        else None,
        cut=cut,
    )


def not_raised(sentence: SentenceSupport) -> bool:
    """Unsupported although it reached the cut: the passages did not raise it (only such claims are asked again)."""
    return sentence.supported is False and sentence.p_without_passages is not None


def _bar(cut: float, p_without_passages: float | None) -> float:
    """What a claim's P(supported) must reach to be supported: the cut, or its P without the passages when that was
    asked and is higher. The one statement of the rule, for the decision and for its margin."""
    return cut if p_without_passages is None else max(cut, p_without_passages)


def _margin(p: float, cut: float) -> float:
    """How far the deciding (weakest) sentence is from the cut, as a share of the way to certainty on its side."""
    room = cut if p < cut else 1 - cut
    return min(1.0, abs(p - cut) / room) if room > 0 else 1.0


def _decided(readout: Readout | None) -> bool | None:
    if readout is None or readout.value is None:
        return None
    return readout.value >= SUPPORT_CUT
