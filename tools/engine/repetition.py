"""A rubric metric that states no checks but speaks of repetition ("Is the writing clear and concise, without
filler, repetition or digression?"): read as checks of kind 'repeated', each sentence asked whether what the
text says before it already states it, the share of sentences that add something placed on the scale.

Read as one score for the whole text, such a metric does not judge on the small default model: as digits, the
rambling essays of a blind set read clarity 4.46-4.50 against the good ones' 4.60-4.68, all over the pass mark, and
asked of each sentence on its own ("repeats, hedges or wanders?") the model says Yes of nearly every sentence
(bench/README.md, "Essays: a user's own rubric, not met"). Asked whether the text before a sentence states it, the
framing that judges facts, a rambling essay's sentences read as already stated more often than a good essay's in
6 of 6 tuning prompts and 6 of 6 held out ("Essays: repetition").

A metric that also speaks of a text longer than it needs to be ("no longer than it needs to be", "wordy",
"bloated") is read by the count of restated sentences, not their share (judge.toml's [repetition_counted]): a padded
support reply restates a few sentences among many, so its share sat near a good reply's, and 6 of 15 good replies
read under the pass mark while the count told the two apart (bench/README.md, "Concision counted"). The count's scale
is a support reply's: a padded summary restates 1-4 sentences, under its cut, so a summary's "brief" keeps the share
(which failed 6 of 15 padded summaries where the count failed none), and so does an essay's "clear and concise" (a
rambling essay is shorter than a good one, and the share sorted them).

The metric is recognised by its words: repetition, repetitive, repeats or redundant in its id, name or description
(unlike "evidence", these words mean the same thing wherever they appear). Not "concise" alone: a metric that asks
"Is the response short?" asks about length, which a text can fail without repeating itself. A rubric author who wants
another reading states `checks` or a `question`; an `overall` metric keeps its own readout (engine/overall.py), and
a reply to a conversation the likelihood reading (engine/reply_likelihood.py).
"""

from __future__ import annotations

import re

from gavel.tools.engine import prompts
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric

_SPEAKS_OF_REPETITION = re.compile(r"\b(?:repetit|repeat|redundan)", re.IGNORECASE)
_SPEAKS_OF_LENGTH = re.compile(r"\b(?:longer|length|lengthy|wordy|verbose|bloated)\b", re.IGNORECASE)
CHECKS = Checks(kind="repeated")


def reads(words: str) -> bool:
    """Whether a metric whose id, name and description are `words` (engine/derived_checks.py says when it is asked)
    speaks of repetition."""
    return _SPEAKS_OF_REPETITION.search(words) is not None


def checks(words: str) -> Checks:
    """The repeated checks a metric that speaks of repetition is read with: counted when `words` also speak of
    length, shared otherwise."""
    if _SPEAKS_OF_LENGTH.search(words) is None:
        return CHECKS
    shipped = prompts.repetition_counted()
    return Checks(kind="repeated", centre=shipped.centre, spread=shipped.spread)


def note(metric: Metric) -> str:
    """What a score read this way says first: the rubric stated no checks, so Gavel chose these."""
    return (
        f"{metric.name} states no checks and speaks of repetition, so each sentence was asked whether what comes "
        "before it already says it: "
    )
