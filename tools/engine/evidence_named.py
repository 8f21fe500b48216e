"""A rubric metric that states no checks but asks for evidence or examples ("Are the essay's claims supported by
specific evidence?"): read as checks of kind 'named', each paragraph asked which specific place, person, study,
event, date or figure it names as evidence, and counted as judge.toml's [evidence_named] says.

Read as one score for the whole text, such a metric does not judge on the small default model: a user's short-essay
rubric passed every essay of the dev sets, 48 of 48, rambling and unsupported ones included, and no question,
anchor, calibration or cut tried separated them (bench/README.md, "Essays: a user's own rubric, not met"). Asked to
*name* the evidence, the model answers None where there is none, and with this reading the same rubric's rambling
essays failed on both blind sets (0 of 12 passed) while 11 of 12 good ones passed ("Essays: evidence counted"),
and read this way on a plain rubric, on a third blind set, 0 of 6 rambling and 6 of 6 good essays passed against 6
and 6 before ("Essays: a metric named for evidence").

The metric is recognised by its name: "evidence" or "example(s)" in its id or name. Not its description, where the
word often means something else ("every symptom the transcript gives evidence of", clinical completeness). A rubric
author who wants another reading states `checks` or a `question`; an `overall` metric keeps its own readout
(engine/overall.py), and a reply to a conversation the likelihood reading (engine/reply_likelihood.py).
"""

from __future__ import annotations

import re

from gavel.tools.engine import prompts
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric

_ASKS_FOR_EVIDENCE = re.compile(r"\b(?:evidence|examples?)\b", re.IGNORECASE)


def reads(name: str) -> bool:
    """Whether a metric named `name` (its id and name; engine/derived_checks.py says when it is asked) asks for
    evidence."""
    return _ASKS_FOR_EVIDENCE.search(name) is not None


def checks() -> Checks:
    """The named checks such a metric is read with (judge.toml's [evidence_named])."""
    shipped = prompts.evidence_named()
    return Checks(kind="named", question=shipped.question, enough=shipped.enough)


def note(metric: Metric) -> str:
    """What a score read this way says first: the rubric stated no checks, so Gavel chose these."""
    return f"{metric.name} states no checks and is named for evidence, so each paragraph was asked what it names: "
