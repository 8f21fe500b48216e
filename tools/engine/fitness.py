"""Judge fitness: how far to trust a verdict, from the judge's own calibration on a labelled set.

A calibration (tools/calibration/) is keyed by what decides a verdict: the backend, the model and its digest,
the readout and the prompt template hash. Every judgment's provenance carries its key and the newest calibration
for it (`judge_fitness`), or null with the flag `judge_uncalibrated`; when the 95% interval of the balanced
accuracy does not lie wholly above 0.5 (or could not be computed), the flag `judge_near_chance`. A set graded by
people (a score per item, no good/bad label) has no balanced accuracy: its fitness is Spearman's rho with the
people, near chance unless its interval lies above 0. Fitness informs: it never
changes a score or a verdict. Only `GAVEL_USE_CALIBRATED_CUT=true` lets a calibration's decision cut decide,
and the result then says so (`DecisionCut`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

UNCALIBRATED_FLAG = "judge_uncalibrated"
NEAR_CHANCE_FLAG = "judge_near_chance"
FITNESS_FLAGS = (UNCALIBRATED_FLAG, NEAR_CHANCE_FLAG)
CHANCE = 0.5


class JudgeFitness(BaseModel):
    """The newest calibration of this judge (backend, model digest, readout, prompt templates)."""

    model_config = ConfigDict(extra="forbid")

    calibration_id: str = Field(description="Read it in full as calibration://{key}.")
    set: str = Field(description="The labelled set it was measured on.")
    n: int = Field(description="Items judged.")
    complete: bool = Field(description="False when the run was interrupted: the figures cover the n items judged.")
    balanced_accuracy: float | None
    balanced_accuracy_ci95: tuple[float | None, float | None]
    auroc: float | None
    auroc_ci95: tuple[float | None, float | None]
    spearman: float | None = Field(default=None, description="Rank correlation with a graded set's human scores.")
    spearman_ci95: tuple[float | None, float | None] = (None, None)
    calibrated_cut: float | None = Field(default=None, description="The cut that maximized balanced accuracy.")
    date: str = Field(description="When it was measured (UTC).")
    near_chance: bool = Field(
        description="The balanced accuracy's 95% interval does not lie wholly above 0.5 (it includes 0.5, lies below "
        "it, or is unknown); on a graded set, Spearman's interval does not lie above 0."
    )


class DecisionCut(BaseModel):
    """Which cut on a probability decided the verdict."""

    model_config = ConfigDict(extra="forbid")

    value: float
    source: Literal["default", "calibrated"] = Field(
        description="'default': Gavel's fixed cut; 'calibrated': the judge's calibration's cut "
        "(GAVEL_USE_CALIBRATED_CUT=true)."
    )
    calibration_id: str | None = None


class FitnessSource(Protocol):
    """Where a judge finds its calibration (the ledger, through tools/calibration/records.py)."""

    async def fitness_for(self, key: str) -> JudgeFitness | None: ...


def fitness_key(backend: str, model: str | None, digest: str | None, readout: str | None, template: str | None) -> str:
    """The calibration key: 16 hex digits of the sha256 of what decides a verdict."""
    parts = {"backend": backend, "model": model, "digest": digest, "readout": readout, "template": template}
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def near_chance(low: float | None, high: float | None) -> bool:
    """Whether the interval fails to lie wholly above chance (0.5): it includes it, lies below it, or too few items
    gave none."""
    return low is None or high is None or low <= CHANCE


def near_chance_graded(low: float | None, high: float | None) -> bool:
    """Whether a rank correlation's interval fails to lie wholly above 0 (no correlation, or the wrong way round)."""
    return low is None or high is None or low <= 0


def fitness_flags(fitness: JudgeFitness | None) -> list[str]:
    if fitness is None:
        return [UNCALIBRATED_FLAG]
    return [NEAR_CHANCE_FLAG] if fitness.near_chance else []


def fitness_line(fitness: JudgeFitness | None, key: str | None) -> str:
    """The one line a text rendering gives about the judge's fitness."""
    if fitness is None:
        return f"judge fitness: uncalibrated (key {key}); run 'gavel calibrate' to measure this judge"
    name, value, (low, high) = "balanced accuracy", fitness.balanced_accuracy, fitness.balanced_accuracy_ci95
    if value is None and fitness.spearman is not None:
        name, value, (low, high) = "Spearman", fitness.spearman, fitness.spearman_ci95
    figure = "n/a" if value is None else f"{value:.2f}"
    interval = "" if low is None or high is None else f" [{low:.2f}, {high:.2f}]"
    partial = ", partial run" if not fitness.complete else ""
    trust = "NEAR CHANCE: treat this verdict as a guess" if fitness.near_chance else "better than chance"
    if high is not None and high < (0 if name == "Spearman" else CHANCE):
        trust = "WORSE THAN CHANCE: do not act on this verdict"
    return (
        f"judge fitness: {trust} ({name} {figure}{interval} on {fitness.set}, n={fitness.n}{partial}, "
        f"{fitness.date[:10]})"
    )
