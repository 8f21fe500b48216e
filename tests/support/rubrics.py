"""The clinical-assessment rubric as the G-Eval digit readout reads it: its metrics without their checks, for
tests of the one-score-per-metric path (a rubric without checks, such as a user's own)."""

from __future__ import annotations

from typing import Any

from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import Rubric


def digit_clinical() -> Rubric:
    rubric = RubricRegistry.load().get("clinical-assessment")
    metrics = [m.model_copy(update={"checks": None}) for m in rubric.metrics]
    return rubric.model_copy(update={"id": "clinical-digits", "metrics": metrics})


def digit_clinical_json() -> dict[str, Any]:
    return digit_clinical().model_dump(mode="json", exclude_none=True)


# A user's own rubric, as a file in GAVEL_RUBRICS_DIR would hold it.
HOUSE_STYLE = """
id = "house-style"
version = "2.1"
title = "House style"
description = "Does the text follow the house style guide?"
pass_threshold = 3

[scale]
min = 1
max = 5

[[metrics]]
id = "tone"
name = "Tone"
description = "Plain, direct, no jargon."
"""
