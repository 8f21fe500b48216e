"""A rubric metric that asks for a text organized into paragraphs ("Is the essay organized into paragraphs that
develop one point each, in a logical order?") and states no checks: a text that is not in paragraphs cannot meet it,
so it scores the scale's worst end, read from the text's layout without a model call, and the explanation says so.

Read as digits, such a metric gives every essay of the blind sets 4.0-4.6, a two-sentence draft as much as a
five-paragraph essay, and nothing asked of the 1.5B model has told a draft that develops nothing from an essay
(bench/README.md, "Essays: organization"). Whether a text is in paragraphs is what the metric's words name, and it
can be read exactly: at least two of its blocks (the lines between line breaks) hold two sentences or more. A line of
one sentence develops nothing, so a three-line draft of one sentence a line is not three paragraphs; paragraphs kept
apart by a single line break still count. A text in paragraphs is read as the metric would be without this rule:
whether its paragraphs develop one point each, in a logical order, is the model's to say.

The metric is recognised by its words (id, name or description): "organized" or "structured", with "paragraphs", or
with "essay" there or in the rubric's subject ("Is the essay well organized?"): an essay's organization is its
paragraphs. Not "paragraph" alone: "Does each paragraph open with a topic sentence?" asks about paragraphs a
one-paragraph text may meet; nor "organized" alone: "Is the answer well organized?" asks it of any answer, and a
clinical assessment is one paragraph by design. engine/derived_checks.py says when a metric is asked (not when its
author stated checks or a question).
"""

from __future__ import annotations

import re

from gavel.tools.engine import prompts
from gavel.tools.engine.scores import MetricScore, SampleRecord
from gavel.tools.engine.sentences import every_sentence
from gavel.tools.rubrics import Metric, Rubric

_PARAGRAPHS = re.compile(r"\bparagraphs\b", re.IGNORECASE)
_ESSAY = re.compile(r"\bessays?\b", re.IGNORECASE)
_ORGANIZED = re.compile(r"\b(?:organi[sz]|structur)", re.IGNORECASE)
# A text is in paragraphs when at least this many of its blocks hold at least this many sentences.
MIN_PARAGRAPHS = 2
MIN_SENTENCES = 2


def reads(words: str, subject: str) -> bool:
    """Whether a metric whose id, name and description are `words`, of a rubric that judges a `subject`, asks for a
    text organized into paragraphs: its words say organized or structured, and paragraphs or an essay (an essay's
    organization is its paragraphs), in its own words or the rubric's subject."""
    about = _PARAGRAPHS.search(words) is not None or _ESSAY.search(f"{words} {subject}") is not None
    return about and _ORGANIZED.search(words) is not None


def developed(text: str) -> int:
    """How many of the text's blocks (its non-blank lines) hold two sentences or more."""
    return sum(len(every_sentence(line)) >= MIN_SENTENCES for line in text.splitlines() if line.strip())


def unorganized(rubric: Rubric, metric: Metric, text: str) -> MetricScore | None:
    """The metric at the scale's worst end when `text` is not in paragraphs; None when it is (read as before)."""
    found = developed(text)
    if found >= MIN_PARAGRAPHS:
        return None
    worst = rubric.scale.from_share(0.0)
    subject = rubric.prompt.subject
    blocks = f"{found} paragraph" + ("" if found == 1 else "s")
    explanation = (
        f"the {subject} is not in paragraphs: it has {blocks} of two or more sentences, and {metric.name} asks for "
        f"a {subject} organized into paragraphs, so it scores the scale's worst end, read from the layout without "
        "asking the model"
    )
    return layout_score(metric, worst, explanation)


def layout_score(metric: Metric, score: float, explanation: str) -> MetricScore:
    """A metric read from the text's layout (here, and engine/wall.py): scored, with no readout and one sample."""
    return MetricScore(
        metric=metric.id, name=metric.name, score=score, status="scored", explanation=explanation,
        samples=[SampleRecord(score=score, explanation=explanation)], spread=0.0, readout=None,
    )  # fmt: skip


def is_layout_score(score: MetricScore) -> bool:
    """Whether a scored metric was read from the layout (`unorganized`): the one scored reading with no readout."""
    return score.status == "scored" and score.readout is None


def feedback(score: MetricScore, rubric: Rubric, top: str, template: str = "feedback_paragraphs") -> str:
    """What a rewrite is told about a text read from its layout: judge.toml's `feedback_paragraphs` for one not in
    paragraphs, `feedback_wall` for a wall of text (engine/wall.py)."""
    assert score.score is not None
    return prompts.prompt_set().substitute(template, score=f"{score.score:.3g}", max=top, subject=rubric.prompt.subject)
