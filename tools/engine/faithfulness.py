"""A rubric metric that states no checks but asks whether the text is faithful to its source ("Does every statement
in the summary agree with the article, with no changed facts, figures or attributions and no claims the article does
not make?"): read as checks of kind 'supported', each sentence of the text against the source, the share supported
placed on the scale.

As one digit for the whole text such a metric does not judge on the small default model: on a user's own rubrics
(bench/data/user_rubrics_dev.jsonl) the summary and status email that change a figure or invent a decision read
4.11-4.36 against the good versions' 4.30-4.37. Checked sentence by sentence against the source, the framing that
judges facts (judge_rag_answer's grounding, clinical-assessment's accuracy), they read 3.67-4.68 against 4.75-5.00,
below the good version in 6 of 6 cases (bench/README.md, "A user's own rubrics").

The metric is recognised by words that mean "agrees with the source": faithful, hallucinated, invented or
supported by. Not "accurate" or "correct" alone: a code review's "issue accuracy" asks whether the bugs it names are
real, which no sentence of the diff states (its good comments read 3.0 checked this way). Only with a source to check
against; without one the metric keeps its plain readout. A rubric author who wants another reading states `checks`
or a `question`.
"""

from __future__ import annotations

import re

from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric

_SPEAKS_OF_FAITHFULNESS = re.compile(r"\b(?:faithful|hallucinat|invent|supported by)", re.IGNORECASE)
CHECKS = Checks(kind="supported")


def reads(words: str) -> bool:
    """Whether a metric whose id, name and description are `words` (engine/derived_checks.py says when it is asked)
    asks whether the text is faithful to its source."""
    return _SPEAKS_OF_FAITHFULNESS.search(words) is not None


def note(metric: Metric) -> str:
    """What a score read this way says first: the rubric stated no checks, so Gavel chose these."""
    return (
        f"{metric.name} states no checks and asks whether the text is faithful to its source, so each sentence was "
        "checked against the source: "
    )
