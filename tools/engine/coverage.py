"""A rubric metric that states no checks but asks whether the text covers its source ("Does the email capture all
the decisions and action items from the notes?", "Coverage of key points"): read as checks of kind 'covered', each
statement of the source checked against the text, the share stated placed on the scale.

As one digit for the whole text such a metric does not judge on the small default model: on a user's own rubrics
(bench/data/user_rubrics_dev.jsonl) the status email that drops the owners and dates, and the summary that drops
the article's key points, read within 0.03 of the good versions (4.40-4.53 against 4.42-4.53). Asked of each
statement of the source, the framing clinical-assessment's completeness uses, they read 3.43-4.16 against
4.08-5.00, below the good version in 6 of 6 cases (bench/README.md, "A user's own rubrics: coverage").

The metric is recognised by words that mean "states what the source says": coverage, covers, captures, complete or
completeness, omits, missing, leaves out. Not when its words speak of the question the text answers: rag-answer's
completeness ("cover what the question needs") asks about the question, not about every statement of the passages,
which a right answer leaves out. Only with a source to check against; without one the metric keeps its plain
readout. A rubric author who wants another reading states `checks` or a `question`.
"""

from __future__ import annotations

import re

from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric

_SPEAKS_OF_COVERAGE = re.compile(
    r"\b(?:cover(?:s|age|ed)?\b|captur|complete(?:ness)?\b|omit|omission|missing|leaves? out|left out)", re.IGNORECASE
)
# "the question" is what a text answers (a RAG answer); "open questions" are items of the notes to cover.
_SPEAKS_OF_A_QUESTION = re.compile(r"\bthe question\b", re.IGNORECASE)
CHECKS = Checks(kind="covered")


def reads(words: str) -> bool:
    """Whether a metric whose id, name and description are `words` (engine/derived_checks.py says when it is asked)
    asks whether the text covers its source."""
    return _SPEAKS_OF_COVERAGE.search(words) is not None and _SPEAKS_OF_A_QUESTION.search(words) is None


def note(metric: Metric) -> str:
    """What a score read this way says first: the rubric stated no checks, so Gavel chose these."""
    return (
        f"{metric.name} states no checks and asks whether the text covers its source, so each statement of the "
        "source was checked against the text: "
    )
