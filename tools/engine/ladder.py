"""The repair ladder: what the judge does with a reply that does not validate, before it gives up.

Clean → parse → validate; then one re-ask with the validation error; then, for a metric, the reply's last
`Score: N` line when it is on the scale and follows real reasoning. Otherwise the result says why it failed
and keeps the raw reply: never a default score, never a clamp.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import anyio
from pydantic import BaseModel

from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage, ChatReply, ChatRequest
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.logprobs import ReasonCode, failure_code
from gavel.tools.engine.parse import (
    Parsed,
    ReplyCode,
    explanation_before_score,
    is_placeholder,
    last_score_line,
    parse_reply,
)
from gavel.tools.engine.scores import SampleRecord, Usage
from gavel.tools.errors import BackendError
from gavel.tools.rubrics import Rubric

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

# Replies up to this many characters are read on the event loop; longer ones in a worker thread, so that a
# long reply (its parsing is linear but not free) does not hold other clients' requests meanwhile.
INLINE_PARSE_CHARS = 4096


@dataclass
class Structured(Generic[T]):
    value: T | None
    error: str | None
    raw: str | None
    usage: Usage
    code: ReasonCode | ReplyCode | None = None  # machine-readable, when value is None


async def _read(function: Callable[[str], R], text: str) -> R:
    """`function(text)`, off the event loop when the text is long."""
    if len(text) <= INLINE_PARSE_CHARS:
        return function(text)
    return await anyio.to_thread.run_sync(function, text)


async def _parse(text: str, model: type[T]) -> Parsed[T]:
    return await _read(lambda reply: parse_reply(reply, model), text)


def _reask(request: ChatRequest, reply: ChatReply, rubric: Rubric | None, error: str) -> ChatRequest:
    """The request again, with the model's reply and the validation error it should fix."""
    return ChatRequest(
        **{
            **request.__dict__,
            "messages": (
                *request.messages,
                ChatMessage("assistant", reply.text[:4000]),
                ChatMessage("user", prompts.reask_instruction(rubric, error)),
            ),
        }
    )


async def metric_sample(
    calls: ModelCalls,
    rubric: Rubric,
    reply_model: type[BaseModel],
    request: ChatRequest,
    seed: int,
    tally: Tally,
    step: str,
) -> SampleRecord:
    """Run one metric sample through the repair ladder. `step` names it in progress."""
    try:
        reply = await calls.call(request, tally, step=step)
    except BackendError as exc:
        return SampleRecord(score=None, seed=seed, error=f"the model call failed: {exc}", reason_code=failure_code(exc))
    record = await _record(reply_model, reply, seed)
    if record.score is not None or record.error == "placeholder echo":
        return record
    first_error = record.error or "no score"
    code = record.reason_code
    retry = _reask(request, reply, rubric, first_error)
    try:
        second = await calls.call(retry, tally, step=f"{step}, re-asked")
    except BackendError as exc:
        second = None
        retry_error = f"the re-ask failed: {exc}"
    if second is not None:
        record = await _record(reply_model, second, seed, repaired="re-asked with the validation error")
        if record.score is not None or record.error == "placeholder echo":
            return record
        retry_error = record.error or "no score"
        code = record.reason_code
    last = second if second is not None else reply
    raw = last.text
    # A reply cut off mid-stream may end inside a number ("Score: 1" of "Score: 10"): never read it.
    fallback = None if last.truncated else await _read(last_score_line, raw)
    if fallback is not None and rubric.scale.contains(fallback) and (not rubric.scale.integer or fallback.is_integer()):
        explanation = await _read(explanation_before_score, raw)
        if not is_placeholder(explanation):
            return SampleRecord(
                score=fallback, explanation=explanation, seed=seed, repaired="last 'Score:' line", raw_reply=raw
            )
    reason = f"{first_error}; after one re-ask: {retry_error}"
    if fallback is not None:
        reason += f"; its last 'Score:' line ({fallback:g}) is not a valid score on this scale"
    return SampleRecord(score=None, seed=seed, error=reason, reason_code=code, raw_reply=raw[:4000])


async def _record(
    reply_model: type[BaseModel], reply: ChatReply, seed: int, repaired: str | None = None
) -> SampleRecord:
    parsed = await _parse(reply.text, reply_model)
    if parsed.value is None:
        error, code = parsed.error or "no score", parsed.code
        if reply.truncated:
            error, code = f"the reply was cut off before it was complete ({error})", "reply_truncated"
        return SampleRecord(score=None, seed=seed, error=error, reason_code=code, raw_reply=reply.text[:4000])
    explanation = str(getattr(parsed.value, "explanation", ""))
    if is_placeholder(explanation):
        return SampleRecord(
            score=None, seed=seed, error="placeholder echo", reason_code="reply_placeholder",
            raw_reply=reply.text[:4000],
        )  # fmt: skip
    how = ", ".join(x for x in (repaired, parsed.repaired) if x) or None
    return SampleRecord(
        score=float(getattr(parsed.value, "score")),  # noqa: B009 - dynamic model
        explanation=explanation,
        seed=seed,
        repaired=how,
        raw_reply=reply.text[:4000] if how else None,
    )


async def structured(
    calls: ModelCalls, output: type[T], request: ChatRequest, tally: Tally, rubric: Rubric | None = None, *, step: str
) -> Structured[T]:
    """Any structured reply (a joint reply, a grounding check) through parse, validate and one re-ask."""
    try:
        reply = await calls.call(request, tally, step=step)
    except BackendError as exc:
        return Structured(None, f"the model call failed: {exc}", None, tally.usage, failure_code(exc))
    parsed = await _parse(reply.text, output)
    if parsed.value is not None:
        return Structured(parsed.value, None, reply.text, tally.usage)
    retry = _reask(request, reply, rubric, parsed.error or "invalid")
    try:
        second = await calls.call(retry, tally, step=f"{step}, re-asked")
    except BackendError as exc:
        error = f"{parsed.error}; the re-ask failed: {exc}"
        return Structured(None, error, reply.text, tally.usage, parsed.code)
    reparsed = await _parse(second.text, output)
    if reparsed.value is not None:
        return Structured(reparsed.value, None, second.text, tally.usage)
    error = f"{parsed.error}; after one re-ask: {reparsed.error}"
    return Structured(None, error, second.text, tally.usage, reparsed.code)


__all__ = ["Structured", "metric_sample", "structured"]
