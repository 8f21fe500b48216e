"""Rubrics: the pydantic models a rubric's data is validated into, and what they check of it.

A rubric file is TOML (stdlib `tomllib`). Built-ins ship in the `gavel.rubrics` package; extra directories add to
and override them by id. Reading the files and serving them by id is `gavel.tools.rubric_registry`.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator, model_validator

from gavel.tools.errors import InvalidInput
from gavel.tools.rubric_checks import Checks

RUBRIC_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
# A level's key: a score in ASCII digits ('５' or '1e0' would be anchors a reader cannot match to a score).
_LEVEL_KEY_RE = re.compile(r"-?[0-9]+(\.[0-9]+)?")

Identifier = Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$")]
ShortText = Annotated[str, Field(min_length=1, max_length=4000)]
# Every level goes into every metric prompt: an inline rubric must not be able to blow up the prompt.
MAX_LEVELS = 21
# Every number in a rubric is finite and within these bounds: beyond them a scale or a weight is a mistake, and the
# engine's arithmetic (exact fractions, integer score schemas) must never meet an infinity, a NaN or a 1e30.
MAX_MAGNITUDE = 1_000_000
MAX_WEIGHT = 1_000_000
MAX_DIVERSITY_TARGET = 1_000
# A number as written in a rubric: finite (NaN, Infinity and overflowing literals such as 1e400 are refused).
Finite = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_MAGNITUDE, le=MAX_MAGNITUDE)]
# Results give scores to 4 decimals (tools/common.py's OUTPUT_DECIMALS): a scale's bounds must survive that, and
# its width must leave room for scores a reader can tell apart (a 5e-324 wide scale rounds to a single point).
SCALE_DECIMALS = 4
MIN_SCALE_WIDTH = 0.01


class Scale(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min: Finite = Field(description=f"Lowest score on the scale (a finite number, at least -{MAX_MAGNITUDE:,}).")
    max: Finite = Field(description=f"Highest score on the scale (a finite number, at most {MAX_MAGNITUDE:,}).")
    higher_is_better: bool = Field(default=True, description="Whether a higher score means better.")
    integer: bool = Field(default=False, description="Whether only whole-number scores are valid.")

    @model_validator(mode="after")
    def _ordered(self) -> Scale:
        if not self.min < self.max:
            raise ValueError(f"scale.min ({self.min:g}) must be below scale.max ({self.max:g})")
        if self.max - self.min < MIN_SCALE_WIDTH:
            raise ValueError(
                f"the scale from {self.min:g} to {self.max:g} is too narrow: scale.max must be at least "
                f"{MIN_SCALE_WIDTH:g} above scale.min (a 1-5 or 0-10 scale is usual)"
            )
        for name, bound in (("min", self.min), ("max", self.max)):
            if round(bound, SCALE_DECIMALS) != bound:
                raise ValueError(f"scale.{name} ({bound:g}) must have at most {SCALE_DECIMALS} decimals")
        if self.integer and not (self.min.is_integer() and self.max.is_integer()):
            raise ValueError(
                f"an integer scale needs whole-number bounds; scale.min is {self.min:g} and scale.max {self.max:g}"
            )
        return self

    def contains(self, value: float) -> bool:
        return self.min <= value <= self.max

    def from_share(self, share: float) -> float:
        """A share of the way from the worst end of the scale (0) to its best (1), as a score: where a Yes
        probability lands, whichever way the scale points."""
        if self.higher_is_better:
            return self.min + share * (self.max - self.min)
        return self.max - share * (self.max - self.min)

    def share_of(self, score: float) -> float:
        """A score as a share of the way from the worst end (0) to the best (1): `from_share` undone."""
        share = (score - self.min) / (self.max - self.min)
        return share if self.higher_is_better else 1 - share

    def best_level(self, levels: dict[str, str]) -> tuple[str, str] | None:
        """The anchor at the best end of the scale (its highest score, or its lowest when lower is better)."""
        if not levels:
            return None
        pick = max if self.higher_is_better else min
        return pick(levels.items(), key=lambda item: float(item[0]))


class Metric(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Identifier = Field(description="Metric id, used in requests and results.")
    name: str = Field(min_length=1, max_length=200, description="Human-readable name.")
    description: ShortText = Field(description="What the metric measures and what counts as a mistake.")
    weight: float = Field(
        default=1.0,
        ge=0,
        le=MAX_WEIGHT,
        allow_inf_nan=False,
        description=f"Weight in the rubric-weighted mean (a finite number from 0 to {MAX_WEIGHT:,}).",
    )
    levels: dict[str, ShortText] = Field(
        default_factory=dict,
        max_length=MAX_LEVELS,
        description=f"Score anchors: score (as text) → what that score means; at most {MAX_LEVELS}.",
    )
    question: ShortText | None = Field(
        default=None,
        pattern=r"\?\s*$",
        description=(
            "A yes/no question whose Yes means the metric is met, ending in '?'. The probability readout asks it "
            "instead of the description on a scale whose values are not single tokens (0-10, 0-1)."
        ),
    )
    checks: Checks | None = Field(
        default=None,
        description=(
            "How the probability readout checks this metric item by item (see Checks). Without it the metric is "
            "read as one score for the whole text."
        ),
    )
    judged_against: Literal["source", "question", "text"] = Field(
        default="source",
        description=(
            "What the judge compares the text with for this metric. 'source': the source (the judge quotes "
            "the claim and what the source says before scoring). 'question': the question or task only, "
            "without the source (the judge first states what was asked and what the text gives), as for "
            "relevance. 'text': the text alone, with its question, as for coherence."
        ),
    )

    @field_validator("weight", mode="before")
    @classmethod
    def _weight_is_a_number(cls, value: object) -> object:
        # pydantic reads true as 1.0 and false as 0.0: a weight written as a boolean is a mistake, not a weight.
        if isinstance(value, bool):
            raise ValueError(
                f"must be a number, not {str(value).lower()}: give 1 for an ordinary weight, 0 to leave it out"
            )
        return value


class ContextRules(BaseModel):
    """Verdict thresholds and judge instructions for one evaluation context (RAG, DIAGNOSTIC, TOOLS)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sources_expected: bool = Field(description="Whether the answer is expected to cite retrieved passages.")
    not_applicable: list[str] = Field(
        default_factory=list, description="Metric ids that do not apply (no score, no weight) in this context."
    )
    approve_at: Finite = Field(description="Approve when overall ≥ this (and grounded, see below).")
    approve_ungrounded_at: Finite | None = Field(
        default=None, description="Approve even when not grounded once overall ≥ this; null: grounding not required."
    )
    reject_below: Finite = Field(description="Reject when overall < this.")
    reject_ungrounded_unsourced_below: Finite | None = Field(
        default=None, description="Reject an answer that is neither grounded nor cites sources below this."
    )
    instructions: ShortText = Field(description="What the judge is told about this context.")

    @model_validator(mode="after")
    def _ordered(self) -> ContextRules:
        if self.reject_below > self.approve_at:
            raise ValueError(
                f"reject_below ({self.reject_below:g}) must not be above approve_at ({self.approve_at:g}): "
                "an answer would be approved and rejected at once"
            )
        if self.approve_ungrounded_at is not None and self.approve_ungrounded_at < self.approve_at:
            raise ValueError(
                f"approve_ungrounded_at ({self.approve_ungrounded_at:g}) must be at least approve_at "
                f"({self.approve_at:g}): an ungrounded answer cannot need less than a grounded one"
            )
        limit = self.reject_ungrounded_unsourced_below
        if limit is not None and limit < self.reject_below:
            raise ValueError(
                f"reject_ungrounded_unsourced_below ({limit:g}) must be at least reject_below ({self.reject_below:g})"
            )
        return self

    def thresholds(self) -> dict[str, float]:
        named = {
            "approve_at": self.approve_at,
            "approve_ungrounded_at": self.approve_ungrounded_at,
            "reject_below": self.reject_below,
            "reject_ungrounded_unsourced_below": self.reject_ungrounded_unsourced_below,
        }
        return {name: value for name, value in named.items() if value is not None}


class PromptText(BaseModel):
    """Per-rubric prompt text. Placeholders use `$name` and are filled by safe substitution only."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: str = Field(default="text", max_length=200, description="What is being judged, e.g. 'assessment'.")
    source_label: str = Field(default="source", max_length=200, description="What the source is called.")
    guidance: str = Field(default="", max_length=4000, description="Rubric-wide instructions to the judge.")
    key_points: str = Field(
        default="", max_length=4000, description="Instruction for key points of accepted candidates."
    )
    write: str = Field(default="", max_length=4000, description="Instruction to the generator for a first version.")
    revise: str = Field(default="", max_length=4000, description="Instruction to the generator when revising.")

    @property
    def about(self) -> str:
        """What the rubric judges and against what, in its own words (engine/derived_checks.py reads them)."""
        return f"{self.subject} {self.source_label}"


class Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=RUBRIC_ID_PATTERN, description="Rubric id, as in rubric://<id>.")
    version: str = Field(min_length=1, max_length=40, description="Rubric version; part of every provenance.")
    title: str = Field(min_length=1, max_length=200)
    description: ShortText
    scale: Scale
    pass_threshold: Finite = Field(description="A metric scoring below this is low; all at or above it pass.")
    metrics: list[Metric] = Field(min_length=1, max_length=32)
    prompt: PromptText = Field(default_factory=PromptText)
    contexts: dict[Literal["RAG", "DIAGNOSTIC", "TOOLS"], ContextRules] = Field(default_factory=dict)
    diversity_targets: dict[Identifier, Annotated[int, Field(ge=1, le=MAX_DIVERSITY_TARGET)]] = Field(
        default_factory=dict, max_length=16, description="Default diversity targets for score_candidates (at most 16)."
    )

    @model_validator(mode="after")
    def _consistent(self) -> Rubric:
        ids = [m.id for m in self.metrics]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate metric ids: {', '.join(dupes)}")
        if not any(m.weight > 0 for m in self.metrics):
            raise ValueError("every metric weighs 0: give at least one a weight above 0 (the default is 1)")
        scale = f"{self.scale.min:g}..{self.scale.max:g}"
        if not self.scale.contains(self.pass_threshold):
            raise ValueError(f"pass_threshold {self.pass_threshold:g} is outside the scale {scale}")
        for metric in self.metrics:
            # Two keys naming one score ('5' and '5.0') would show the judge two anchors for it.
            seen: dict[float, str] = {}
            for key in metric.levels:
                if not _LEVEL_KEY_RE.fullmatch(key.strip()):
                    raise ValueError(
                        f"metrics.{metric.id}.levels: key {key!r} is not a score in plain ASCII digits; "
                        "write it as in '5' or '2.5'"
                    )
                level = float(key)
                if not math.isfinite(level) or not self.scale.contains(level):
                    raise ValueError(f"metrics.{metric.id}.levels: {key} is outside the scale {scale}")
                if level in seen:
                    raise ValueError(
                        f"metrics.{metric.id}.levels: {key!r} and {seen[level]!r} both name score {level:g}; keep one"
                    )
                seen[level] = key
        for name, rules in self.contexts.items():
            for field, value in rules.thresholds().items():
                if not self.scale.contains(value):
                    raise ValueError(
                        f"contexts.{name}.{field} ({value:g}) is outside the scale {scale}: the overall score is "
                        "on the rubric's scale, so a threshold outside it can never or always be reached"
                    )
            unknown = sorted(set(rules.not_applicable) - set(ids))
            if unknown:
                raise ValueError(f"contexts.{name}.not_applicable names unknown metrics: {', '.join(unknown)}")
        return self

    def metric(self, metric_id: str) -> Metric:
        for m in self.metrics:
            if m.id == metric_id:
                return m
        raise InvalidInput(
            f"unknown metric {metric_id!r} for rubric {self.id!r}; its metrics are: "
            + ", ".join(m.id for m in self.metrics),
            field="metrics",
        )

    def select(self, metric_ids: list[str] | None) -> list[Metric]:
        if not metric_ids:
            return list(self.metrics)
        seen: list[Metric] = []
        for metric_id in metric_ids:
            metric = self.metric(metric_id)
            if metric not in seen:
                seen.append(metric)
        return seen

    def summary(self) -> dict[str, object]:
        return {
            "id": self.id,
            "version": self.version,
            "title": self.title,
            "metrics": [m.id for m in self.metrics],
            "scale": {"min": self.scale.min, "max": self.scale.max},
        }


def rubric_identity(rubric: Rubric | None) -> dict[str, str | None]:
    """How a result or a provenance names the rubric it was made with; both null when there was none."""
    if rubric is None:
        return {"rubric_id": None, "rubric_version": None}
    return {"rubric_id": rubric.id, "rubric_version": rubric.version}


# Where the schema of an inline rubric is published (by the server, as a resource).
RUBRIC_SCHEMA_URI = "schema://rubric"


# The `custom_rubric` parameter: a Rubric, validated when the call arrives, whose inputSchema is only "an
# object" so that every tool does not repeat the whole rubric schema; the field's description points to it.
InlineRubric = Annotated[Rubric | None, WithJsonSchema({"type": ["object", "null"]})]
CustomRubric = Annotated[InlineRubric, Field(default=None, description=f"Inline rubric; schema: {RUBRIC_SCHEMA_URI}.")]
