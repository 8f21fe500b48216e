"""A rubric metric that states no checks but asks about tone ("Is the reply courteous, empathetic and professional,
treating the customer with respect?"): its own readout averaged with a reading from likelihood, how much more likely
the model finds the text when asked for the metric's best anchor than when asked for its worst.

Asked for a digit, the small default model gives a condescending support reply the tone a courteous one gets (4.66
against 4.67 on a user's own rubric), and asked of each sentence "is it rude, sarcastic, condescending or blaming?"
it answers near 0.5 for every sentence of both. What it does know is which text it would write when told to be
"warm, respectful and professional" and which when told to be "rude, condescending, blaming": the text's
log-likelihood after the source and the best anchor as an instruction, minus the same after the worst anchor, cancels
the text's own fluency and its content and leaves how far its manner follows one anchor rather than the other. On
the dev cases of a user's rubrics (code reviews, status emails, support replies) the version that breaks only its
tone read the lowest of the case's five versions in 8 of 9 cases (bench/README.md, "Tone from likelihood").

The metric is recognised by its words (tone, respectful, courteous, polite, rude, condescending, sarcastic) and needs
anchors at both ends of a 3- to 7-point scale, the rubric's own words being what is asked. Like the dialogue reading
(engine/reply_likelihood.py) the metric's own readout keeps half the say, and a backend that cannot score a given
text keeps that readout alone. The reading decodes the text twice, token by token, so a text longer than
`max_chars` keeps its own readout: on 2 cores each 100 tokens cost about 10 s.
"""

from __future__ import annotations

import re

from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.likelihood import not_scored, placed, read_or_unscored
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import metric_score
from gavel.tools.engine.scores import MetricScore, Usage
from gavel.tools.rubrics import Metric, Rubric

_SPEAKS_OF_TONE = re.compile(r"\b(?:tone|respectful|courteous|polite|rude|condescen|sarcas)", re.IGNORECASE)


def applies(metric: Metric, rubric: Rubric, text: str) -> bool:
    """Whether the metric is read this way: no checks or question of its author's, words about tone, a rating scale
    of 3 to 7 points with anchors at both ends, and a text no longer than `max_chars`."""
    if metric.checks is not None or metric.question is not None:
        return False
    scale = rubric.scale
    if not 2 <= scale.max - scale.min <= 6 or _anchors(metric, rubric) is None:
        return False
    words = " ".join((metric.id.replace("_", " "), metric.name, metric.description))
    return _SPEAKS_OF_TONE.search(words) is not None and 0 < len(text.strip()) <= prompts.tone().max_chars


def _anchors(metric: Metric, rubric: Rubric) -> tuple[str, str] | None:
    """The metric's best and worst anchors, those of the scale's two ends; None without both."""
    ends = {float(key): words for key, words in metric.levels.items()}
    scale = rubric.scale
    best, worst = (scale.max, scale.min) if scale.higher_is_better else (scale.min, scale.max)
    if best not in ends or worst not in ends or ends[best].strip() == ends[worst].strip():
        return None
    return ends[best], ends[worst]


async def score_tone(
    calls: ModelCalls, metric: Metric, rubric: Rubric, text: str, source: str | None, model: str | None
) -> tuple[MetricScore, Usage]:
    """The metric from the nats the best anchor adds to the text over the worst."""
    if calls.probes.scores_text(calls.backend) is False:
        return not_scored(metric, rubric.prompt.subject), Usage()
    anchors = _anchors(metric, rubric)
    assert anchors is not None  # applies() chose this path
    settings, texts = prompts.tone(), prompts.prompt_set()
    subject, label = rubric.prompt.subject, rubric.prompt.source_label
    given = f"{label[:1].upper()}{label[1:]}:\n{source}\n\n" if source and source.strip() else ""

    def asked(anchor: str) -> tuple[ChatMessage, ...]:
        ask = texts.substitute("tone_ask", subject=subject, anchor=anchor)
        return ChatMessage("system", texts.text["tone_system"]), ChatMessage("user", given + ask)

    tally = Tally()
    layouts = {"best anchor": asked(anchors[0]), "worst anchor": asked(anchors[1])}
    read = await read_or_unscored(calls, layouts, text, model, metric, subject, tally)
    if isinstance(read, MetricScore):
        return read, tally.usage
    best, worst = read.sums
    nats = best - worst
    score = rubric.scale.from_share(placed(nats, settings.centre, settings.spread))
    explanation = (
        f"{score:.2f} read from likelihood: asked for its best anchor rather than its worst, the model finds the "
        f"{subject} {nats:+.1f} nats more likely ({read.counted()}; {settings.centre:g} nats is the middle of the "
        f"scale, {settings.spread:g} its spread)"
    )
    return metric_score(metric.id, metric.name, Readout(value=score, distribution={}, mass=None), explanation), (
        tally.usage
    )
