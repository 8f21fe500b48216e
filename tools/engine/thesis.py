"""An essay's thesis metric ("Does the essay take a clear position on the prompt and keep to it?") that states no
checks, judged against a prompt that is one question: gated on whether any sentence states the writer's side more
clearly than a sentence that takes none. An essay that fails the gate scores the scale's worst end ("no position");
one that passes it is read as the metric would be without this rule (the digit readout).

Read as digits, such a metric gives every essay of the blind sets 4.4-4.6, a rambling essay that never takes a side
as much as a good one (bench/README.md, "Essays: a position"). Asked of each sentence alone, "Does this sentence say
which answer to the question "<prompt>" the writer supports?" ranks the good essay of a prompt above its rambling
one, but the level moves with the prompt. So the same question is also asked of a sentence that takes no side
(judge.toml's `thesis_hedge`), and the essay's reading is its highest P(yes) less that one's: under `CUT`, no
sentence states a side more clearly than a hedge does. Fitted on essay_dev prompts 1-12; on prompts 13-42 good
essays reached the cut in 29 of 30 and rambling ones in 7 of 30, other rambling essays than the repetition reading
of clarity lets through (bench/README.md, "The side per sentence against the prompt's own hedge").

The metric is recognised by its words (id, name or description): thesis, position or stance, with "essay" there or
in the rubric's subject. The source must be one question on one line (the essay prompt), which the sentences are
asked about; otherwise the metric is read as before. engine/derived_checks.py says when a metric is asked.
"""

from __future__ import annotations

import re

from gavel.tools.engine import prompts
from gavel.tools.engine.calls import ModelCalls
from gavel.tools.engine.check_items import Claim
from gavel.tools.engine.checks import check_claim
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import metric_score
from gavel.tools.engine.scores import MetricScore, Usage
from gavel.tools.engine.sentences import every_sentence
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric, Rubric

_THESIS = re.compile(r"\b(?:thesis|position|stance)\b", re.IGNORECASE)
_ESSAY = re.compile(r"\bessays?\b", re.IGNORECASE)
# The highest sentence's P(yes) less the hedge sentence's, under which the essay states no side (fitted on
# essay_dev prompts 1-12: good essays 0.09-0.43, rambling ones -0.02-0.10).
CUT = 0.11
_MAX_QUESTION_CHARS = 300


def reads(words: str, subject: str) -> bool:
    """Whether a metric whose id, name and description are `words`, of a rubric that judges a `subject`, asks for
    an essay's thesis."""
    return _THESIS.search(words) is not None and _ESSAY.search(f"{words} {subject}") is not None


def question_of(source: str | None) -> str | None:
    """The essay prompt when the source is one question on one line; None otherwise."""
    text = (source or "").strip()
    if not text or "\n" in text or not text.endswith("?") or len(text) > _MAX_QUESTION_CHARS:
        return None
    return text


async def unstated(
    calls: ModelCalls, rubric: Rubric, metric: Metric, text: str, question: str, model: str | None
) -> tuple[MetricScore | None, Usage]:
    """The metric at the scale's worst end when no sentence of `text` states a side more clearly than the hedge
    sentence does; unscored when a check is unanswered; None when a sentence does (read as before)."""
    texts = prompts.prompt_set()
    checks = Checks(kind="sentence", question=texts.substitute("thesis_side", question=question))
    usage = Usage()

    async def ask(sentence: str) -> Readout:
        nonlocal usage
        readout, used = await check_claim(calls, rubric, checks, Claim(sentence, None), None, {}, model, metric.name)
        usage = usage.add(used)
        return readout

    hedge = await ask(texts.text["thesis_hedge"])
    if hedge.value is None:
        return metric_score(metric.id, metric.name, hedge, ""), usage
    best: tuple[float, str] | None = None
    for sentence in every_sentence(text):
        readout = await ask(sentence)
        if readout.value is None:
            return metric_score(metric.id, metric.name, readout, ""), usage
        if best is None or readout.value > best[0]:
            best = (readout.value, sentence)
    if best is not None and best[0] - hedge.value >= CUT:
        return None, usage
    worst = rubric.scale.from_share(0.0)
    subject = rubric.prompt.subject
    said = f"its clearest, “{best[1]}”, reads P(yes) {best[0]:.2f}" if best is not None else "it has no sentence"
    explanation = (
        f"no sentence of the {subject} says which answer to “{question}” the writer supports more clearly than a "
        f"sentence that takes no side (P(yes) {hedge.value:.2f}): {said}, under the {CUT:g} more it needs; "
        f"{metric.name} asks for a position, so it scores the scale's worst end"
    )
    # The score is the rule's, not one answer's: no distribution of answer tokens is reported for it.
    return metric_score(metric.id, metric.name, Readout(value=worst), explanation), usage
