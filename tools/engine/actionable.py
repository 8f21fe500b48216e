"""A code review's metric that states no checks but is named for actionability ("Does the comment tell the author
what to change and where, so they could act on it without guessing?"): read as checks of kind 'named', each
sentence outside fenced code asked which line, function or variable of the code it points to, the mean
P(it names one) placed on the scale (judge.toml's [actionable]).

As the model's digit such a metric reads a review that voices worries without saying where or what to change
within tenths of the good one, and half such reviews passed (6 of 12 on two blind sets). Asked to *name* the place
a sentence points to, the model answers None more often for a sentence that describes a symptom than for one that
names the code; over a review's sentences the mean put the actionability version below the good one in 39 of 39
read cases, and held out on 8 more it failed 5 of them where the digit failed 1, with no good review failing
(bench/README.md, "A code review's actionability"). It does not read whether the fix is right.

Recognised by its name ("actionable" or "actionability" in the id or name) on a rubric about code: its subject or
source label speaks of code, a review, a change, a diff, a patch or a pull request. The question asks about code,
so a support reply's "actionable next steps" keeps its own readout. A rubric author who wants another reading
states `checks` or a `question`.
"""

from __future__ import annotations

import re

from gavel.tools.engine import prompts
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric

_NAMED_FOR_ACTION = re.compile(r"\bactionab", re.IGNORECASE)
_ABOUT_CODE = re.compile(r"\b(?:code|review|change|diff|patch|pull request|commit)", re.IGNORECASE)


def reads(name: str, about: str) -> bool:
    """Whether a metric named `name` (its id and name), of a rubric whose subject and source label are `about`,
    asks whether a code review can be acted on."""
    return _NAMED_FOR_ACTION.search(name) is not None and _ABOUT_CODE.search(about) is not None


def checks() -> Checks:
    """The named checks such a metric is read with (judge.toml's [actionable])."""
    shipped = prompts.actionable()
    return Checks(kind="named", per="sentence", question=shipped.question, centre=shipped.centre, spread=shipped.spread)


def note(metric: Metric) -> str:
    """What a score read this way says first: the rubric stated no checks, so Gavel chose these."""
    return (
        f"{metric.name} states no checks and is named for actionability, so each sentence was asked where in the "
        "code it points: "
    )
