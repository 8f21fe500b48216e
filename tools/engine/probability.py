"""Metric scores read from token probabilities: one call per check, one reply token, nothing generated.

Every check of one judgment shares one prompt prefix (the system text, then the source and the context in
fenced blocks); only the judged text (or the sentence checked) and the question come after it, so
llama.cpp's and Ollama's prompt caches evaluate the long material once per judgment.

A metric whose scale values are single digits (1-5) is read as the probability-weighted mean of the digits
(G-Eval); any other scale (0-1, 0-10) as one Yes/No question whose P(yes) is placed on the scale. The
explanation is written by Gavel from the numbers; the model writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage, ChatRequest
from gavel.tools.engine.readout import TOP_LOGPROBS, Readout, scale_expectation, single_token_values, yes_probability
from gavel.tools.engine.results import MetricScore, SampleRecord
from gavel.tools.errors import BackendError, BackendTimeout
from gavel.tools.rubrics import Metric, Rubric

if TYPE_CHECKING:
    from gavel.tools.engine.judge import Judge, Tally


@dataclass(frozen=True)
class Prefix:
    """The shared start of every check's prompt in one judgment: the system text, the source, then the context."""

    blocks: dict[str, str]
    section: str
    system: str = "probability_system"  # the judge.toml entry the checks' system message is


def prefix(rubric: Rubric, source: str | None, context: Mapping[str, str]) -> Prefix:
    """The source first, then the context (the question): what the checks of one judgment, and the answers
    to one question, share. The judged text follows in each check's own part."""
    blocks: dict[str, str] = {}
    if source:
        blocks[rubric.prompt.source_label] = source
    blocks.update({k: v for k, v in context.items() if v})
    return Prefix(blocks, "\n\n".join(prompts.fenced(label, text) for label, text in blocks.items()))


def document_prefix(document: str | None, question: str | None) -> Prefix:
    """The probe's layout (../shared/probes/yes_probability.py): a fact checker's system text, the document fenced,
    then the question on one line.

    Measured on the embedded default (first 20 HaluEval dev pairs, one check per answer): AUROC 0.84, pairwise 0.85
    with the fact checker's system text (`document_system`), against 0.78 and 0.80 in the same layout with the
    general `probability_system`, and 0.78 and 0.85 with that and the passages and question fenced under the
    rubric's labels. The system text decides most of it.
    """
    blocks = {k: v for k, v in {"document": document, "question": question}.items() if v}
    parts = [prompts.fenced("Document", document)] if document else []
    if question:
        parts.append(prompts.inline("Question", question))
    return Prefix(blocks, "\n\n".join(parts), system="document_system")


def user_prompt(shared: Prefix, instruction: str, extra: Mapping[str, str] | None = None) -> str:
    parts = [shared.section] if shared.section else []
    parts += [prompts.fenced(label, text) for label, text in (extra or {}).items()]
    parts.append(instruction)
    return "\n\n".join(parts)


async def ask(
    judge: Judge,
    user: str,
    tally: Tally,
    *,
    model: str | None,
    values: Sequence[int] | None = None,
    system: str = "probability_system",
    step: str = "a yes/no check",
) -> Readout:
    """One one-token call; its first token read as P(yes), or as the expectation over `values`. `step` names it
    in progress."""
    request = ChatRequest(
        messages=(ChatMessage("system", prompts.prompt_set().text[system]), ChatMessage("user", user)),
        temperature=0.0,
        seed=judge.config.seed,
        max_tokens=1,
        top_k=None,
        top_p=None,
        model=model,
        top_logprobs=TOP_LOGPROBS,
    )
    try:
        reply = await judge._call(request, tally, step=step)
    except BackendTimeout as exc:
        return Readout.failed("timeout", f"the model call timed out: {exc}")
    except BackendError as exc:
        return Readout.failed("backend_error", f"the model call failed: {exc}")
    return scale_expectation(reply.top_logprobs, values) if values else yes_probability(reply.top_logprobs)


def metric_score(metric_id: str, name: str, readout: Readout, explanation: str) -> MetricScore:
    """A metric from one readout: scored with Gavel's explanation, or unscored with the reason and its code."""
    if readout.value is None:
        return MetricScore(
            metric=metric_id, name=name, score=None, status="unscored", reason=readout.reason,
            samples=[SampleRecord(score=None, error=readout.reason)], readout="probability",
            distribution=readout.distribution or None, answer_mass=readout.mass, reason_code=readout.reason_code,
        )  # fmt: skip
    return MetricScore(
        metric=metric_id, name=name, score=readout.value, status="scored", explanation=explanation,
        samples=[SampleRecord(score=readout.value, explanation=explanation)], spread=0.0, readout="probability",
        distribution=readout.distribution, answer_mass=readout.mass,
    )  # fmt: skip


_YES_NO_QUESTION = ("is ", "are ", "does ", "do ", "did ", "can ", "could ", "has ", "have ", "will ", "would ")


def _anchor(rubric: Rubric, metric: Metric) -> str:
    """The scale's best level as what a Yes means, unless the description already asks a yes/no question."""
    best = rubric.scale.best_level(metric.levels)
    if best is None or metric.description.strip().lower().startswith(_YES_NO_QUESTION):
        return ""
    return f" Yes means: {best[1]}."


def _fmt(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if not float(value).is_integer() else str(int(value))


def _explain(rubric: Rubric, metric: Metric, readout: Readout, values: Sequence[int] | None) -> str:
    assert readout.value is not None
    if values:
        likely = max(readout.distribution.items(), key=lambda item: item[1])
        return (
            f"expected score {readout.value:.2f} on {values[0]}-{values[-1]}, read from the model's probabilities "
            f"of each score (most likely {likely[0]}: {likely[1]:.2f})"
        )
    p_yes = readout.distribution["yes"]
    met = "meets" if p_yes >= 0.5 else "does not meet"
    return (
        f"P(yes) {p_yes:.2f} that the {rubric.prompt.subject} fully meets {metric.name.lower()}: it {met} it by "
        f"the model's probabilities (score {_fmt(readout.value)} on {_fmt(rubric.scale.min)}-"
        f"{_fmt(rubric.scale.max)})"
    )


def _instruction(rubric: Rubric, metric: Metric, context_instructions: str | None, values: Sequence[int] | None) -> str:
    common = {
        "rubric_title": rubric.title,
        "rubric_guidance": rubric.prompt.guidance,
        "context_instructions": context_instructions or "",
        "subject": rubric.prompt.subject,
        "metric_name": metric.name,
        "metric_description": metric.description,
    }
    if values:
        return prompts.prompt_set().fill(
            "probability_scale", levels=prompts.anchors(metric), scale_min=values[0], scale_max=values[-1], **common
        )
    if metric.question:
        return prompts.prompt_set().fill("probability_question", question=metric.question)
    return prompts.prompt_set().fill("probability_yes_no", anchor=_anchor(rubric, metric), **common)


async def score_metric(
    judge: Judge,
    shared: Prefix,
    subject: str,
    rubric: Rubric,
    metric: Metric,
    context_instructions: str | None,
    tally: Tally,
    model: str | None,
) -> MetricScore:
    values = single_token_values(rubric.scale.min, rubric.scale.max, rubric.scale.integer)
    instruction = _instruction(rubric, metric, context_instructions, values)
    user = user_prompt(shared, instruction, {rubric.prompt.subject: subject})
    readout = await ask(judge, user, tally, model=model, values=values, system=shared.system, step=metric.name)
    if readout.value is not None and not values:
        # A Yes means the metric is met: P(yes) is the share of the way from the scale's worst end to its best.
        readout = Readout(
            value=rubric.scale.from_share(readout.value),
            distribution=readout.distribution,
            mass=readout.mass,
        )
    if readout.value is None:
        return metric_score(metric.id, metric.name, readout, "")
    return metric_score(metric.id, metric.name, readout, _explain(rubric, metric, readout, values))


async def score_metrics(
    judge: Judge,
    *,
    rubric: Rubric,
    metrics: Sequence[Metric],
    shared: Prefix,
    subject: str,
    context_instructions: str | None,
    model: str | None,
    tally: Tally,
    source: str | None = None,
    context: Mapping[str, str] | None = None,
) -> list[MetricScore]:
    """Every metric read from probabilities, concurrently (the engine's limiter bounds the real concurrency).
    A metric with `checks` is read item by item (`engine.checks`), against `source` and `context`."""
    from gavel.tools.engine import checks  # checks builds on this module's prefixes

    results: dict[str, MetricScore] = {}

    async def one(metric: Metric) -> None:
        results[metric.id] = await score_metric(
            judge, shared, subject, rubric, metric, context_instructions, tally, model
        )

    async def checked_in_turn() -> None:
        # One metric's checks after another's, those against the same document together: the backend keeps one
        # prompt cache for these one-token calls, and interleaved documents would evict each other's prefix.
        for metric in sorted((m for m in metrics if m.checks is not None), key=checks.document_order):
            score, used = await checks.score_checked(judge, rubric, metric, subject, source, context or {}, model)
            tally.merge(used)
            results[metric.id] = score

    async with anyio.create_task_group() as tg:
        tg.start_soon(checked_in_turn)
        for metric in metrics:
            if metric.checks is None:
                tg.start_soon(one, metric)
    return [results[m.id] for m in metrics]
