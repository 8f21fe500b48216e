"""Metric scores read from token probabilities: one one-token call per metric (`one_token`), nothing generated.

A metric whose scale values are single digits (1-5) is read as the probability-weighted mean of the digits
(G-Eval); any other scale (0-1, 0-10) as one Yes/No question whose P(yes) is placed on the scale (a rubric's
overall judgment as that question and four general ones, averaged: `overall`). A metric with `checks` is read item
by item (`checks`), and so is one that states none but asks for evidence or speaks of repetition (`derived_checks`);
one that asks for paragraphs, of a text not in paragraphs, scores its worst end with no model call (`paragraphs`). The
explanation is written by Gavel from the numbers; the model writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import anyio

from gavel.tools.engine import checks, derived_checks, likelihood, overall, paragraphs, prompts, reply_likelihood, wall
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.logprobs import Readout, single_token_values
from gavel.tools.engine.one_token import Prefix, ask, metric_score, user_prompt
from gavel.tools.engine.scores import MetricScore
from gavel.tools.rubrics import Metric, Rubric

_YES_NO_QUESTION = ("is ", "are ", "does ", "do ", "did ", "can ", "could ", "has ", "have ", "will ", "would ")


def _anchor(rubric: Rubric, metric: Metric) -> str:
    """The scale's best level as what a Yes means, unless the description already asks a yes/no question."""
    best = rubric.scale.best_level(metric.levels)
    if best is None or metric.description.strip().lower().startswith(_YES_NO_QUESTION):
        return ""
    return f" Yes means: {best[1]}."


def _fmt(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if not float(value).is_integer() else str(int(value))


def _explain(
    rubric: Rubric, metric: Metric, readout: Readout, values: Sequence[int] | None, general: Mapping[str, float]
) -> str:
    assert readout.value is not None
    if values:
        likely = max(readout.distribution.items(), key=lambda item: item[1])
        return (
            f"expected score {readout.value:.2f} on {values[0]}-{values[-1]}, read from the model's probabilities "
            f"of each score (most likely {likely[0]}: {likely[1]:.2f})"
        )
    p_yes = readout.distribution["yes"]
    met = "meets" if p_yes >= 0.5 else "does not meet"
    if general:
        asked = ", ".join(f"{name} {p:.2f}" for name, p in general.items())
        return (
            f"mean P(yes) {p_yes:.2f} over the metric's own question and four general ones, 'fails' counted "
            f"against (P(yes): {asked}): it {met} {metric.name.lower()} by the model's probabilities (score "
            f"{_fmt(readout.value)} on {_fmt(rubric.scale.min)}-{_fmt(rubric.scale.max)})"
        )
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
    calls: ModelCalls,
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
    readout = await ask(calls, user, tally, model=model, values=values, system=shared.system, step=metric.name)
    general: dict[str, float] = {}
    if overall.applies(rubric, metric, shared, values):
        readout, general = await overall.overall_readout(
            calls, shared, rubric, subject, readout, tally, model=model, step=metric.name
        )
    if readout.value is not None and not values:
        # A Yes means the metric is met: P(yes) is the share of the way from the scale's worst end to its best.
        readout = Readout(
            value=rubric.scale.from_share(readout.value),
            distribution=readout.distribution,
            mass=readout.mass,
        )
    if readout.value is None:
        return metric_score(metric.id, metric.name, readout, "")
    return metric_score(metric.id, metric.name, readout, _explain(rubric, metric, readout, values, general))


def _layout_score(rubric: Rubric, metric: Metric, text: str) -> MetricScore | None:
    """The metric read from the text's layout (engine/paragraphs.py, engine/wall.py); None to read it as usual."""
    if derived_checks.asks_for_paragraphs(metric, rubric.prompt.subject):
        found = paragraphs.unorganized(rubric, metric, text)
        if found is not None:
            return found
    return wall.walled(rubric, metric, text) if derived_checks.names_a_wall(metric) else None


async def score_metrics(
    calls: ModelCalls,
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
    results: dict[str, MetricScore] = {}
    # A metric that states no checks but asks for evidence or speaks of repetition is read through the checks its
    # words call for (engine/derived_checks.py), unless it is a reply's.
    derived = {
        m.id: found
        for m in metrics
        if not reply_likelihood.applies(m, rubric.scale, subject, source)
        and (found := derived_checks.checks_for(m, bool(source and source.strip()), rubric.prompt.about)) is not None
    }
    metrics = [m.model_copy(update={"checks": derived[m.id]}) if m.id in derived else m for m in metrics]
    # A metric that asks for paragraphs, of a text that is not in paragraphs: its worst end; one whose anchors name a
    # wall of text, of a text that is one: that anchor. Both read from the layout, with no model call.
    laid_out = {
        m.id: found
        for m in metrics
        if not reply_likelihood.applies(m, rubric.scale, subject, source)
        and (found := _layout_score(rubric, m, subject)) is not None
    }
    results.update(laid_out)
    every, metrics = metrics, [m for m in metrics if m.id not in laid_out]

    async def one(metric: Metric) -> None:
        results[metric.id] = await score_metric(
            calls, shared, subject, rubric, metric, context_instructions, tally, model
        )

    # A rating-scale metric without checks on a reply to a conversation: its own readout and the reply's likelihood.
    replies = [m for m in metrics if reply_likelihood.applies(m, rubric.scale, subject, source)]
    likely: dict[str, MetricScore] = {}

    async def checked_in_turn(likelihood: bool) -> None:
        # One metric's checks after another's, those against the same document together: the backend keeps one
        # prompt cache for these one-token calls, and interleaved documents would evict each other's prefix.
        chosen = [m for m in metrics if m.checks is not None and (m.checks.kind == "likelihood") == likelihood]
        for metric in sorted(chosen, key=checks.document_order):
            score, used = await checks.score_checked(calls, rubric, metric, subject, source, context or {}, model)
            tally.merge(used)
            if score.reason_code == "text_not_scored":
                # A backend that cannot score a given text (Ollama, a sampling client): the metric's plain readout.
                score = await score_metric(calls, shared, subject, rubric, metric, context_instructions, tally, model)
            results[metric.id] = score
        for metric in replies if likelihood else []:
            assert source is not None
            likely[metric.id], used = await reply_likelihood.score_reply(calls, metric, rubric, subject, source, model)
            tally.merge(used)

    async with anyio.create_task_group() as tg:
        tg.start_soon(checked_in_turn, False)
        # Likelihood metrics beside the one-token checks: they decode the text token by token in the backend's
        # generation slots, which llama.cpp batches with the checks' calls. In turn among themselves, so the
        # metrics that read the same text's likelihood find the first one's readings remembered.
        tg.start_soon(checked_in_turn, True)
        for metric in metrics:
            if metric.checks is None:
                tg.start_soon(one, metric)
    for metric_id, reading in likely.items():
        results[metric_id] = likelihood.blended(results[metric_id], reading)
    for metric in metrics:
        said = results[metric.id]
        if metric.id in derived and said.status == "scored":
            results[metric.id] = said.model_copy(
                update={"explanation": derived_checks.note(metric, derived[metric.id]) + said.explanation}
            )
    return [results[m.id] for m in every]
