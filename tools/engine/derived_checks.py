"""The checks Gavel reads a rubric metric with when the metric states none but its words say what to count:
evidence (`evidence_named`) or repetition (`repetition`). One place, so the judgment and the feedback a rewrite
gets (tools/revision.py) always read a metric the same way."""

from __future__ import annotations

from gavel.tools.engine import evidence_named, repetition
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric


def checks_for(metric: Metric) -> Checks | None:
    """The derived checks, evidence first; None when the metric states its own or asks for neither."""
    return evidence_named.checks_for(metric) or repetition.checks_for(metric)


def note(metric: Metric, checks: Checks) -> str:
    """What the metric's explanation says first: why Gavel chose `checks`, the checks it was read with."""
    return evidence_named.note(metric) if checks.kind == "named" else repetition.note(metric)
