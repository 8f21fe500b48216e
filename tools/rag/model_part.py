"""The model's part of one answer's judgment, by the model's readout. Everything after it is deterministic.

- generated: the dimensions and one grounding check (`grounding.py`), concurrently;
- probability (when there are passages): every dimension but accuracy and completeness, and one Yes/No check per
  sentence of the answer (`sentence_support.py`) after one shared prompt prefix and the judge's own answer to the
  question (`own_answer.py`); accuracy is the weakest sentence's P(supported), completeness whether the answer
  states everything that own answer says (`coverage.py`) and, when the question opens with a yes/no part, that
  part's answer (`yes_no_part.py`).

With a reference answer, the answer's correctness against it (`reference.py`) is checked alongside, either way.
Either way the result is a `JudgedAnswer` value: what the model said, with the usage and provenance of saying it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass

from gavel.tools.engine.concurrency import both
from gavel.tools.engine.judge import Judge, Judgment
from gavel.tools.engine.one_token import document_prefix
from gavel.tools.engine.scores import MetricScore, Provenance, Usage
from gavel.tools.rag import coverage, own_answer, reference, sentence_support, yes_no_part
from gavel.tools.rag.grounding import Grounding, check_grounding
from gavel.tools.rag.prepare import AnswerInput, Prepared
from gavel.tools.rubrics import Metric


@dataclass(frozen=True)
class JudgedAnswer:
    """What the model established about one answer."""

    scores: Sequence[MetricScore]
    grounding: Grounding | None
    grounding_error: str | None  # why the generated check gave no decision
    flags: Sequence[str]
    usage: Usage
    provenance: Provenance | None
    correctness: reference.ReferenceFigure | None = None  # against the reference answer, when one was given
    # What was read another way because a model call failed, perhaps only this time (RagJudgment.fallbacks).
    fallbacks: Sequence[str] = ()


async def judge_answer(
    judge: Judge,
    prepared: Prepared,
    item: AnswerInput,
    own: own_answer.OwnAnswers | None,
    part: yes_no_part.YesNoPart | None = None,
) -> JudgedAnswer:
    """`own`: the judge's own answer to the request's question (`own_answer.for_request`), shared by a batch's
    answers; None only without passages. `part`: the question's yes/no part (`yes_no_part.for_request`), shared
    the same way; None when the question opens with none."""
    started = time.perf_counter()
    data = {"question": prepared.question}
    if item.agent_reasoning:
        data["agent_reasoning"] = item.agent_reasoning
    by_probability = prepared.passages is not None and await judge.readout_kind(prepared.model) == "probability"

    async def main() -> JudgedAnswer:
        if by_probability:
            assert prepared.passages is not None
            assert own is not None  # passages given: the request made one
            return await _by_probability(judge, prepared, item, data, own, part)
        return await _generated(judge, prepared, item, data)

    if prepared.reference is None:
        return await main()
    judged, (correctness, used) = await both(main, lambda: reference.answer_correctness(judge, prepared, item.answer))
    return dataclasses.replace(judged, correctness=correctness, usage=concurrent(judged.usage, used, started))


def concurrent(first: Usage, second: Usage, started: float) -> Usage:
    """Two usages of work run side by side: their calls and tokens summed, the duration the wall time since
    `started`."""
    return first.add(second).model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})


async def _generated(judge: Judge, prepared: Prepared, item: AnswerInput, data: dict[str, str]) -> JudgedAnswer:
    started = time.perf_counter()
    rubric, rules = prepared.rubric, prepared.rules
    metrics = [m for m in rubric.metrics if m.id not in rules.not_applicable]

    async def dimensions() -> Judgment:
        return await judge.score_metrics(
            rubric=rubric, metrics=metrics, subject=item.answer, source=prepared.passages, data=data,
            context_instructions=rules.instructions, samples=prepared.samples, model=prepared.model,
            texts_checked=True, screen_subject=True,
        )  # fmt: skip

    # The dimensions and the grounding check are independent; the engine's limiter bounds the real concurrency.
    judgment, grounded = await both(dimensions, lambda: check_grounding(judge, prepared, item))
    usage = judgment.usage.add(grounded.usage) if grounded is not None else judgment.usage
    return JudgedAnswer(
        scores=judgment.scores,
        grounding=grounded.value if grounded is not None else None,
        grounding_error=grounded.error if grounded is not None else None,
        flags=judgment.flags,
        usage=usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000}),
        provenance=judgment.provenance,
    )


async def _by_probability(
    judge: Judge,
    prepared: Prepared,
    item: AnswerInput,
    data: dict[str, str],
    own: own_answer.OwnAnswers,
    part: yes_no_part.YesNoPart | None,
) -> JudgedAnswer:
    """Every dimension and every sentence read from probabilities, after one shared prompt prefix; the sentences
    after the judge's own answer to the question (`own_answer.py`) and a yes/no part's statements, which the
    dimensions do not wait for; last, completeness against that own answer, whose prompt does not share the
    passages' prefix."""
    started = time.perf_counter()
    rubric, rules = prepared.rubric, prepared.rules
    applicable = [m for m in rubric.metrics if m.id not in rules.not_applicable]
    accuracy = next((m for m in applicable if m.id == "accuracy"), None)
    complete = next((m for m in applicable if m.id == "completeness"), None)
    others = [m for m in applicable if m is not accuracy and m is not complete]
    shared = document_prefix(prepared.passages, prepared.question)
    cut = await judge.decision_cut(rubric, sentence_support.SUPPORT_CUT, prepared.model)

    async def dimensions(metrics: Sequence[Metric], *, screen: bool) -> Judgment:
        return await judge.score_metrics(
            rubric=rubric, metrics=metrics, subject=item.answer, source=prepared.passages, data=data,
            context_instructions=rules.instructions, model=prepared.model, shared=shared,
            texts_checked=True, screen_subject=screen,
        )  # fmt: skip

    part_failed: list[str] = []

    async def own_and_part() -> tuple[own_answer.OwnAnswer, Usage]:
        if part is None:
            return await own.get()
        # The part is settled before any claim is checked: where it rejects the own answer's "Yes" or "No", the
        # claims are hinted with the statement the passages settle instead (yes_no_part.aligned).
        (answer, asked), (statements, settled) = await both(own.get, part.get)
        if statements.failed:
            part_failed.append(statements.reason or "no reason given")
        return yes_no_part.aligned(answer, statements), asked.add(settled)

    async def sentences() -> tuple[list[sentence_support.SentenceSupport], Usage, own_answer.OwnAnswer]:
        answer, asked = await own_and_part()
        support, used = await sentence_support.check_sentences(
            judge, own_answer.hinted(shared, answer), rubric, item.answer, prepared.model, cut.value,
            without=document_prefix(None, prepared.question),
        )  # fmt: skip
        return support, used.add(asked), answer

    judgment, (support, support_usage, answer) = await both(lambda: dimensions(others, screen=True), sentences)
    usage = judgment.usage.add(support_usage)
    contradicts = relevant = None
    if sentence_support.needs_follow_up(support):
        contradicts, relevant, used = await sentence_support.follow_up(judge, shared, rubric, prepared.model)
        usage = usage.add(used)
    scores = list(judgment.scores)
    if accuracy is not None:
        scores.append(sentence_support.accuracy_score(accuracy, support, cut.value))
    if complete is not None:
        read = await coverage.completeness(
            judge, rubric, complete, item.answer, answer, prepared.model, prepared.question, part
        )
        if read is None:  # no own answer: the dimension's own question, as the others were asked (and screened)
            fallback = await dimensions([complete], screen=False)
            read = (fallback.scores[0], fallback.usage)
        scores.append(read[0])
        usage = usage.add(read[1])
    fallbacks = []
    if answer.failed:
        fallbacks.append(
            f"the claims were checked without the judge's own answer, and completeness read by its own question: "
            f"asking for that answer failed ({answer.reason})"
        )
    fallbacks += [f"completeness was read without the question's yes/no part: reading it failed ({why})"
                  for why in part_failed]  # fmt: skip
    return JudgedAnswer(
        scores=scores,  # assemble.py puts them in the rubric's order
        grounding=sentence_support.grounding(support, contradicts, relevant, cut, own_answer.note(answer)),
        grounding_error=None,
        flags=judgment.flags,
        fallbacks=tuple(fallbacks),
        usage=usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000}),
        provenance=judgment.provenance,
    )
