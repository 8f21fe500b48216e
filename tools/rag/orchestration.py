"""`judge_rag_answer` and `judge_rag_answers`: prepare the request, let the model judge each answer
(`model_part.py`), assemble each judgment deterministically (`assemble.py`), and for a batch rank them.
With a reference answer, its context recall (`reference.py`) is asked once per request, beside the answers.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio

from gavel.tools.deps import Tool, ToolDeps
from gavel.tools.engine.concurrency import both
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.logprobs import failure_code
from gavel.tools.engine.scores import Usage
from gavel.tools.errors import BackendError
from gavel.tools.narrative import narrate
from gavel.tools.rag import own_answer, reference, render, yes_no_part
from gavel.tools.rag.assemble import assemble, failed
from gavel.tools.rag.model_part import concurrent, judge_answer
from gavel.tools.rag.prepare import AnswerInput, Prepared, prepare_answer, prepare_answers
from gavel.tools.rag.reference import ReferenceFigure
from gavel.tools.rag.verdicts import RagBatchResult, RagJudgment

T = TypeVar("T")


async def _judge_one(prepared: Prepared, deps: ToolDeps) -> RagJudgment:
    started = time.perf_counter()
    item = prepared.answers[0]
    judge = await deps.judge()
    own, part = own_answer.for_request(judge, prepared), yes_no_part.for_request(judge, prepared)
    judged, recall, recall_usage = await _with_recall(
        judge, prepared, lambda: judge_answer(judge, prepared, item, own, part)
    )
    if recall is not None:
        judged = dataclasses.replace(judged, usage=concurrent(judged.usage, recall_usage, started))
    result = assemble(prepared, item, judged, recall=recall)
    if prepared.request.explain == "narrative":
        text, why, used = await narrate(judge, result.render_text(), prepared.model)
        result = result.model_copy(update={"narrative": text, "narrative_error": why, "usage": result.usage.add(used)})
    return result


async def _judge_batch(prepared: Prepared, deps: ToolDeps) -> RagBatchResult:
    started = time.perf_counter()
    judge = await deps.judge()
    everyone, recall, usage = await _with_recall(
        judge, prepared, lambda: _judge_all(judge, prepared, prepared.answers, deps)
    )
    if recall is not None:
        # The same figure for every answer: it is the request's, asked once (its calls are in the batch's usage).
        everyone = [r.model_copy(update={"context_recall": recall}) for r in everyone]
    counts = any(m.id == "completeness" and m.weight > 0 for m in prepared.rubric.metrics)
    judged = sorted(everyone, key=lambda r: rank_key(r, counts))
    best = next((r.agent_name for r in judged if r.verdict == "approved"), None)
    for result in judged:
        usage = usage.add(result.usage)
    return RagBatchResult(
        evaluation_context=prepared.context,
        results=judged,
        best=best,
        flags=list(dict.fromkeys(flag for r in judged for flag in r.flags)),
        usage=usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000}),
        provenance=next((r.provenance for r in judged if r.provenance is not None), None),
        summary=render.batch_summary(judged, prepared.context, prepared.rubric, best),
    )


# Each tool prepares its request once (checked, the rubric resolved, every text scanned); the server's ledger lookup
# and the run both take what it prepared.
judge_rag_answer = Tool(prepare_answer, _judge_one)
judge_rag_answers = Tool(prepare_answers, _judge_batch)


async def _with_recall(
    judge: Judge, prepared: Prepared, work: Callable[[], Awaitable[T]]
) -> tuple[T, ReferenceFigure | None, Usage]:
    """`work`'s result, and beside it, when there is a reference answer, the context recall and its usage."""
    if prepared.reference is None:
        return await work(), None, Usage()
    result, (recall, used) = await both(work, lambda: reference.context_recall(judge, prepared))
    return result, recall, used


async def _judge_all(
    judge: Judge, prepared: Prepared, items: Sequence[AnswerInput], deps: ToolDeps
) -> list[RagJudgment]:
    """Every answer's judgment, in the order given, judged concurrently; progress after each one."""
    results: list[RagJudgment | None] = [None] * len(items)
    done = 0
    # One question, one set of passages: the judge's own answer, and a yes/no part's statements, are asked once for
    # every answer of the batch.
    own, part = own_answer.for_request(judge, prepared), yes_no_part.for_request(judge, prepared)

    async def run(index: int, item: AnswerInput) -> None:
        nonlocal done
        try:
            result = assemble(prepared, item, await judge_answer(judge, prepared, item, own, part))
        except BackendError as exc:
            # One answer's failure must not cost the others their judgments.
            result = failed(prepared, item, str(exc), failure_code(exc))
        results[index] = result
        done += 1
        await deps.progress(done, len(items), f"judged {item.agent_name}: {result.verdict}")

    async with anyio.create_task_group() as tg:
        for index, item in enumerate(items):
            tg.start_soon(run, index, item)
    return [r for r in results if r is not None]


# How verdicts rank in a batch (also what bench.rag_partial recomputes a ranking with).
VERDICT_RANK = {"approved": 0, "needs_improvement": 1, "rejected": 2}


def rank_key(result: RagJudgment, completeness_counts: bool) -> tuple[int, int, int, float]:
    """Where `result` ranks in its batch (`completeness_counts`: the rubric weighs completeness); see `ranking`."""
    completeness = result.completeness.score if completeness_counts else None
    return ranking(result.verdict, result.overall_score, completeness)


def ranking(verdict: str | None, overall: float | None, completeness: float | None) -> tuple[int, int, int, float]:
    """Unscored last; then by verdict, so an answer with unsupported claims never outranks a supported one; then by
    the overall score plus completeness (None: not counted), an answer without an overall (a weighted metric
    unscored) after those of its verdict that have one.

    Completeness is added again beside its weight in the overall because the other dimensions cannot tell an answer
    to half the question from a whole one: both are supported, relevant and coherent. Ranked by the overall alone, a
    partial answer came first in 74 of 222 recorded dev questions; with completeness added, in 53, and in no set of
    them more often. On four sets written blind and read once, the complete answer came first in 37 of 48 against 35.
    Right HaluEval answers ranked above hallucinated ones in one batch moved by at most 1 pair in 50 across six
    recorded runs (bench/README.md, "RAG: completeness in the ranking"). The overall score is unchanged."""
    unscored = verdict in (None, "unscored")
    return (
        1 if unscored else 0,
        VERDICT_RANK.get(verdict or "", 3),
        1 if overall is None else 0,
        -((overall or 0.0) + (completeness or 0.0)),
    )
