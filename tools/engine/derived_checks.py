"""The checks Gavel reads a rubric metric with when the metric states none but its words say what to count:
evidence (`evidence_named`), leading with the most serious problems (`leading`), a code review's actionability
(`actionable`), repetition (`repetition`),
faithfulness to the source (`faithfulness`) or covering the source (`coverage`); and whether
its words ask for paragraphs, or its anchors name a wall of text, which a text's layout can fail (`paragraphs`,
`wall`). One place, so the judgment and the
feedback a rewrite gets (tools/revision.py) always read a metric the same way."""

from __future__ import annotations

from gavel.tools.engine import (
    actionable,
    coverage,
    evidence_named,
    faithfulness,
    leading,
    paragraphs,
    repetition,
    wall,
)
from gavel.tools.engine.overall import OVERALL_ID
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric


def _authored(metric: Metric) -> bool:
    """Whether the metric's author chose a reading (`checks` or a `question`), or it is the overall judgment
    (engine/overall.py reads that): Gavel then derives nothing."""
    return metric.checks is not None or metric.question is not None or metric.id == OVERALL_ID


def _name(metric: Metric) -> str:
    return " ".join((metric.id.replace("_", " ").replace("-", " "), metric.name))


def checks_for(metric: Metric, has_source: bool = True, about: str = "") -> Checks | None:
    """The derived checks, evidence first; None when the metric asks for none of them, or its author chose a reading.
    Faithfulness and coverage only with a source (`has_source`) to check against; a metric that asks both (nothing
    invented, nothing missing) is read for faithfulness. `about`: the rubric's subject and source label, which say
    whether it judges code (`actionable`)."""
    if _authored(metric):
        return None
    name = _name(metric)
    if evidence_named.reads(name):  # not the description: "every symptom the transcript gives evidence of"
        return evidence_named.checks()
    if leading.reads(f"{name} {metric.description}"):
        return leading.CHECKS
    if actionable.reads(name, about):
        return actionable.checks()
    if repetition.reads(f"{name} {metric.description}"):
        return repetition.checks(f"{name} {metric.description}")
    if has_source and faithfulness.reads(f"{name} {metric.description}"):
        return faithfulness.CHECKS
    if has_source and coverage.reads(f"{name} {metric.description}"):
        return coverage.CHECKS
    return None


def asks_for_paragraphs(metric: Metric, subject: str) -> bool:
    """Whether a text that is not in paragraphs scores the metric's worst end (engine/paragraphs.py); `subject` is
    what the rubric judges ("essay")."""
    return not _authored(metric) and paragraphs.reads(f"{_name(metric)} {metric.description}", subject)


def names_a_wall(metric: Metric) -> bool:
    """Whether a text that is a wall of text scores the anchor that names one (engine/wall.py)."""
    return not _authored(metric) and wall.reads(metric)


def note(metric: Metric, checks: Checks) -> str:
    """What the metric's explanation says first: why Gavel chose `checks`, the checks it was read with."""
    if checks.kind == "named":
        return actionable.note(metric) if checks.per == "sentence" else evidence_named.note(metric)
    if checks.kind == "covered":
        return coverage.note(metric)
    if checks.kind == "leads":
        return leading.note(metric)
    return faithfulness.note(metric) if checks.kind == "supported" else repetition.note(metric)
