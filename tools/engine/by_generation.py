"""Metric scores read from generated replies: a schema-constrained reply per metric and sample (or one joint
reply for all metrics per sample), each through the repair ladder.

The judged text comes first, then the source: measured on the embedded default, with the source first the
model quotes the judged text back as "what the source says". All blocks are shared by the metrics of one
evaluation, so the prompt cache still reuses the whole prefix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import anyio
from pydantic import BaseModel

from gavel.tools.engine import ladder, prompts
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.parse import is_placeholder
from gavel.tools.engine.reply_schema import joint_model, metric_max_tokens, metric_reply_model, request_schema
from gavel.tools.engine.scores import MetricScore, SampleRecord
from gavel.tools.rubrics import Metric, Rubric


def _evidence_for(metric: Metric, *, has_source: bool, has_context: bool) -> prompts.Evidence:
    """What the judge quotes before it scores this metric, given what the call has to compare with."""
    if metric.judged_against == "source" and has_source:
        return "source"
    if metric.judged_against == "question" and has_context:
        return "question"
    return None


def _step(what: str, seed: int, seeds: Sequence[int]) -> str:
    """How progress names one model call: the metric, and the sample when there are several."""
    return f"{what}, sample {seeds.index(seed) + 1} of {len(seeds)}" if len(seeds) > 1 else what


async def score_metrics(
    calls: ModelCalls,
    *,
    rubric: Rubric,
    metrics: Sequence[Metric],
    subject: str,
    source: str | None,
    data: Mapping[str, str] | None,
    context_instructions: str | None,
    samples: int,
    model: str | None,
    strategy: str,
    tally: Tally,
) -> tuple[list[MetricScore], list[str]]:
    """The metrics' scores, and the untrusted texts the prompts showed (for the injection check)."""
    context = {k: v for k, v in (data or {}).items() if v}
    blocks: dict[str, str] = {rubric.prompt.subject: subject}
    if source:
        blocks[rubric.prompt.source_label] = source
    blocks.update(context)
    nonce = prompts.nonce_for(blocks)
    shared = prompts.data_section(blocks, nonce)
    evidence = {m.id: _evidence_for(m, has_source=bool(source), has_context=bool(context)) for m in metrics}
    # A metric not judged against the source (relevance, coherence) sees the context (the question)
    # first and then the judged text, nothing else. Measured on the embedded default: shown the
    # passages as well, it judged the passages instead of the answer ("Bananas are rich in potassium"
    # scored 1.0 for relevance to an Eiffel Tower question) in every block order tried. Built only when
    # such a metric is judged: the judged text may be long, and neutralizing it costs a pass.
    sourceless = (
        prompts.data_section({**context, rubric.prompt.subject: subject}, nonce)
        if any(e != "source" for e in evidence.values())
        else shared
    )
    seeds = [calls.config.seed + index for index in range(samples)]
    call = _Call(
        calls, rubric, prompts.prompt_set().text["system"], context_instructions,
        calls.config.temperature if samples == 1 else calls.config.sample_temperature, model, tally,
    )  # fmt: skip

    per_metric: dict[str, list[SampleRecord]] = {m.id: [] for m in metrics}
    if strategy == "joint" and len(metrics) > 1:
        async with anyio.create_task_group() as tg:
            for seed in seeds:
                tg.start_soon(
                    _joint_sample,
                    call, metrics, shared, seed, per_metric, "source" if source else None,
                    _step("every metric", seed, seeds),
                )  # fmt: skip
    else:
        async with anyio.create_task_group() as tg:
            for metric in metrics:
                for seed in seeds:
                    tg.start_soon(
                        _metric_sample,
                        call, metric, shared if evidence[metric.id] == "source" else sourceless, seed,
                        per_metric[metric.id], evidence[metric.id], _step(metric.name, seed, seeds),
                    )  # fmt: skip

    scores = []
    for metric in metrics:
        records = sorted(per_metric[metric.id], key=lambda r: seeds.index(r.seed) if r.seed in seeds else 0)
        score = MetricScore.from_samples(metric.id, metric.name, records)
        score.readout = "generated"
        scores.append(score)
    return scores, list(blocks.values())


@dataclass(frozen=True)
class _Call:
    """What every model call of one generated judgment shares."""

    calls: ModelCalls
    rubric: Rubric
    system: str
    context_instructions: str | None
    temperature: float
    model: str | None
    tally: Tally

    def request(self, user: str, output: type[BaseModel], seed: int, max_tokens: int) -> ChatRequest:
        return self.calls.request(
            self.system, user, request_schema(output), seed=seed, temperature=self.temperature,
            max_tokens=max_tokens, model=self.model,
        )  # fmt: skip


async def _metric_sample(
    call: _Call,
    metric: Metric,
    shared: str,
    seed: int,
    out: list[SampleRecord],
    evidence: prompts.Evidence,
    step: str,
) -> None:
    rubric = call.rubric
    reply_model = metric_reply_model(rubric, evidence=evidence)
    user = shared + "\n\n" + prompts.metric_instruction(rubric, metric, call.context_instructions, evidence)
    request = call.request(user, reply_model, seed, metric_max_tokens(reply_model))
    out.append(await ladder.metric_sample(call.calls, rubric, reply_model, request, seed, call.tally, step))


async def _joint_sample(
    call: _Call,
    metrics: Sequence[Metric],
    shared: str,
    seed: int,
    out: dict[str, list[SampleRecord]],
    evidence: prompts.Evidence,
    step: str,
) -> None:
    rubric = call.rubric
    joint = joint_model(rubric, metrics, evidence=evidence)
    user = shared + "\n\n" + prompts.joint_instruction(rubric, metrics, call.context_instructions, evidence)
    per_metric = metric_max_tokens(metric_reply_model(rubric, evidence=evidence))
    request = call.request(user, joint, seed, per_metric * len(metrics))
    result = await ladder.structured(call.calls, joint, request, call.tally, rubric, step=step)
    for metric in metrics:
        if result.value is None:
            raw = (result.raw or "")[:4000]
            out[metric.id].append(
                SampleRecord(score=None, seed=seed, error=result.error, reason_code=result.code, raw_reply=raw)
            )
            continue
        item = getattr(result.value, metric.id)
        explanation = str(item.explanation)
        if is_placeholder(explanation):
            out[metric.id].append(
                SampleRecord(score=None, seed=seed, error="placeholder echo", reason_code="reply_placeholder")
            )
        else:
            out[metric.id].append(SampleRecord(score=float(item.score), explanation=explanation, seed=seed))
