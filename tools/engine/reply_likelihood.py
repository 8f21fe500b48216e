"""A reply to a conversation, judged on a rating-scale metric that states no checks: the metric's own readout
averaged with a reading from likelihood.

Asked "how natural is this reply, 1 to 5?", the small default model gives every reply about the same answer: on
the Topical-Chat dev set an inline rubric read that way followed people at Spearman 0.13-0.18 on every USR
dimension (digits), or 0.04-0.52 (one yes/no question each). What it does know is how likely each reply is as the
next turn. So when the source is a conversation and the judged text is one short turn, a metric without checks on
a 3- to 7-point scale also reads the nats the conversation adds to the text's log-likelihood (`engine.likelihood`),
from two readings whose nats are added: the last turns alone as chat turns (how the reply follows on) and every
turn with the rest of the source, such as a fact, after the system text (what the reply takes up from all of it).
The metric's score is the mean of its own readout and that reading, which every such metric of a judgment shares:
its own question keeps half the say, so a property likelihood cannot see (politeness, safety) is not replaced by
how well the reply fits. On a backend that cannot score a given text the metric keeps its own readout alone.

The layout and the curve are judge.toml's (`reply_likelihood_*`, `[reply_likelihood]`), chosen and fitted on the
dev set's first 6 conversations (bench/README.md, "Dialogue: a rubric that states no checks").
"""

from __future__ import annotations

from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.conversations import conversation_of
from gavel.tools.engine.likelihood import as_turns, not_scored, placed, read_or_unscored
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import metric_score
from gavel.tools.engine.scores import MetricScore, Usage
from gavel.tools.rubrics import Metric, Rubric, Scale


def applies(metric: Metric, scale: Scale, text: str, source: str | None) -> bool:
    """Whether the metric is read this way: no checks, a rating scale of 3 to 7 points (1-5 with or without
    `integer`; not a 0-1 share nor a 10- or 100-point score), and the text a reply to a conversation."""
    return metric.checks is None and 2 <= scale.max - scale.min <= 6 and is_reply(text, source)


def is_reply(text: str, source: str | None) -> bool:
    """Whether the text is one short turn after a conversation: one paragraph, at most `max_chars` characters."""
    body = text.strip()
    if not body or "\n\n" in body or len(body) > prompts.reply_likelihood().max_chars:
        return False
    return source is not None and conversation_of(source) is not None


async def score_reply(
    calls: ModelCalls, metric: Metric, rubric: Rubric, text: str, source: str, model: str | None
) -> tuple[MetricScore, Usage]:
    """The metric from the nats the conversation adds to the reply, both readings summed."""
    if calls.probes.scores_text(calls.backend) is False:
        return not_scored(metric, rubric.prompt.subject), Usage()
    settings, texts = prompts.reply_likelihood(), prompts.prompt_set().text
    parsed = conversation_of(source)
    assert parsed is not None  # is_reply chose this path
    turns, rest = parsed
    system = texts["reply_likelihood_system"]
    layouts = {
        "last turns": as_turns(system, turns[-settings.turns :]),
        "every turn": as_turns(f"{system}\n{rest}" if rest else system, turns),
        "without": (ChatMessage("system", system), ChatMessage("user", texts["reply_likelihood_without"])),
    }
    tally = Tally()
    read = await read_or_unscored(calls, layouts, text, model, metric, rubric.prompt.subject, tally)
    if isinstance(read, MetricScore):
        return read, tally.usage
    last, every, alone = read.sums
    recent, whole = last - alone, every - alone
    score = rubric.scale.from_share(placed(recent + whole, settings.centre, settings.spread))
    explanation = (
        f"{_fmt(score)} read from likelihood as a reply to the conversation, a reading every metric without checks "
        f"shares: the last {settings.turns} turns make the {rubric.prompt.subject} {recent:+.1f} nats more likely "
        f"and the whole source {whole:+.1f} ({read.counted()}; {settings.centre:g} nats in all is the middle of the "
        f"scale, {settings.spread:g} its spread)"
    )
    return metric_score(metric.id, metric.name, Readout(value=score, distribution={}, mass=None), explanation), (
        tally.usage
    )


def _fmt(value: float) -> str:
    return f"{value:.2f}"
