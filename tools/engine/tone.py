"""A rubric metric read against its own anchors, sentence by sentence (checks of kind 'anchors'): does any sentence
of the text read like the metric's worst anchor rather than its best?

"Is the comment collegial, without sarcasm, blame or condescension?" asked as one digit, the small default model gives
a sarcastic code review the tone of a collegial one (4.65 against 4.66), and asked of each sentence "is it rude?" it
answers near 0.5 for every sentence. It does know which text it would write when told to write like the metric's
best anchor ("Direct and collegial throughout") and which when told to write like its worst ("Sarcastic,
condescending or blaming"): each token's log-probability after the first instruction, minus the same after the
second, cancels the text's fluency and content and leaves how far its manner follows one anchor rather than the
other. Summed over the whole text that was tried and, held out, ordered tone no better than the digit: two sarcastic
sentences among ten constructive ones sum to about what a polite review does (bench/README.md, "Tone from
likelihood"). Told apart by sentence (engine/sentence_gain.py), the sarcastic sentences stand out: the text is read by
the nats of its sentences that lean to the worst anchor by more than the sentence cut, added up, and placed on the
scale around judge.toml's [tone] centre and spread; those sentences are its findings, so a rewrite's feedback names
what to reword (bench/README.md, "Tone read by its worst sentences").

The metric is recognised by its words (engine/derived_checks.py says when it is asked): tone, respectful, courteous,
polite, rude, condescending or sarcastic, with anchors at two levels. The text is decoded twice, token by token, so a
backend that cannot score a given text keeps the metric's plain readout (`text_not_scored`), and so does a text
longer than judge.toml's [tone] max_chars.
"""

from __future__ import annotations

import re

from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.likelihood import placed, read_or_unscored
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import metric_score
from gavel.tools.engine.scores import Finding, MetricScore, Usage
from gavel.tools.engine.sentence_gain import sentence_gains
from gavel.tools.guards import break_chat_markup
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric, Rubric, Scale

QUOTE_CHARS = 160
_SPEAKS_OF_TONE = re.compile(r"\b(?:tone|respectful|courteous|polite|rude|condescen|sarcas)", re.IGNORECASE)


def reads(words: str, metric: Metric) -> bool:
    """Whether a metric whose id, name and description are `words` asks about the text's tone, with anchors at two
    levels to read it against."""
    return _SPEAKS_OF_TONE.search(words) is not None and len({w.strip() for w in metric.levels.values()}) >= 2


def checks() -> Checks:
    """The checks a tone metric that states none is read with: judge.toml's [tone]."""
    shipped = prompts.tone()
    return Checks(kind="anchors", centre=shipped.centre, spread=shipped.spread, sentence_cut=shipped.sentence_cut)


def note(metric: Metric) -> str:
    """What a score read this way says first: the rubric stated no checks, so Gavel chose these."""
    return (
        f"{metric.name} states no checks and asks about tone, so each sentence was read for how much likelier the "
        "model finds it when asked for the metric's best anchor than for its worst: "
    )


def anchors(metric: Metric, scale: Scale) -> tuple[str, str] | None:
    """The metric's anchors at its best and its worst stated levels; None without two different ones."""
    if not metric.levels:
        return None
    ordered = sorted(metric.levels.items(), key=lambda item: float(item[0]))
    low, high = ordered[0][1].strip(), ordered[-1][1].strip()
    if low == high:
        return None
    return (high, low) if scale.higher_is_better else (low, high)


async def score_anchors(
    calls: ModelCalls, rubric: Rubric, metric: Metric, checks: Checks, text: str, source: str | None, model: str | None
) -> tuple[MetricScore, Usage]:
    """The metric from the nats by which the text's sentences lean to its worst anchor rather than its best."""
    assert checks.centre is not None and checks.spread is not None
    subject, label = rubric.prompt.subject, rubric.prompt.source_label
    ends = anchors(metric, rubric.scale)
    if ends is None:
        reason = f"{metric.name} is read against its anchors; state levels at both ends of the scale"
        return metric_score(metric.id, metric.name, Readout.failed("anchors_missing", reason), ""), Usage()
    if len(text) > prompts.tone().max_chars:
        # Each 100 tokens cost about 10 s decoded twice on 2 cores: the metric's plain readout instead.
        reason = f"{metric.name}: the {subject} is longer than the anchors reading decodes"
        return metric_score(metric.id, metric.name, Readout.failed("text_not_scored", reason), ""), Usage()
    texts = prompts.prompt_set()
    given = f"{label[:1].upper()}{label[1:]}:\n{source}\n\n" if source and source.strip() else ""

    def asked(anchor: str) -> tuple[ChatMessage, ...]:
        ask = texts.substitute("anchors_ask", subject=subject, anchor=anchor)
        return ChatMessage("system", texts.text["anchors_system"]), ChatMessage("user", given + ask)

    tally = Tally()
    layouts = {"best anchor": asked(ends[0]), "worst anchor": asked(ends[1])}
    read = await read_or_unscored(calls, layouts, text, model, metric, subject, tally)
    if isinstance(read, MetricScore):
        return read, tally.usage
    # The scored text is the one sent: chat markup in it broken up as in every call (engine/calls.py).
    gains = sentence_gains(break_chat_markup(text), read.ends, *read.entries) if read.ends else None
    if gains is None:
        reason = f"{metric.name}: the backend's readings of the {subject} do not line up with its sentences"
        return metric_score(metric.id, metric.name, Readout.failed("text_not_scored", reason), ""), tally.usage
    # Only the sentences that lean past the cut count: every sentence leans a little one way or the other, and a long
    # polite text would otherwise add up its noise to what one sneer costs.
    cut = checks.sentence_cut if checks.sentence_cut is not None else 0.0
    leaning = [gain for gain in gains if gain.nats < cut]
    nats = sum(gain.nats for gain in leaning)
    score = rubric.scale.from_share(placed(nats, checks.centre, checks.spread))
    findings = sorted((Finding(item=g.sentence, nats=g.nats) for g in leaning), key=lambda f: f.nats or 0.0)
    explanation = (
        f"{len(leaning)} of {len(gains)} sentences lean to the worst anchor rather than the best by more than "
        f"{-cut:g} nats, {nats:+.1f} nats in all ({read.counted()}; {checks.centre:g} nats is the middle of the "
        f"scale, {checks.spread:g} its spread)"
    )
    if findings:
        quoted = "; ".join(finding.quoted(QUOTE_CHARS) for finding in findings[:3])
        explanation += f": {quoted}"
    scored = metric_score(metric.id, metric.name, Readout(value=score, distribution={}, mass=None), explanation)
    return scored.model_copy(update={"findings": findings}), tally.usage
