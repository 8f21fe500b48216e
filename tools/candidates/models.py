"""The request and result models of `score_candidates`: what a client sends and what it gets back."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field, Strict, WithJsonSchema
from typing_extensions import TypedDict

from gavel.tools.candidates.display import IDS_SHOWN, id_list, num
from gavel.tools.common import ModelOverride, NoCache, RubricId, Samples, ToolResult, flags_line, table_cell
from gavel.tools.engine.scores import Provenance, Usage
from gavel.tools.rubrics import CustomRubric

DEFAULT_TOP_K = 3

ValueSource = Literal["given", "judge", "missing"]
Status = Literal["selected", "not_selected", "rejected", "unscored"]
# What did not come out as asked, one code per kind; the ledger reads these, never the warnings' wording.
Failure = Literal["candidates_unscored", "narrative_failed", "key_points_failed"]
# A diversity attribute's value as the candidate gave it: any JSON value but null (null means "no value"). Typed
# so the output schema says what the array holds (strict schema checkers refuse an item schema without a type).
AttributeValue = Annotated[Any, WithJsonSchema({"type": ["string", "number", "boolean", "array", "object"]})]


# -- request ------------------------------------------------------------------------------------------------


class ScoreCandidatesRequest(BaseModel):
    candidates: Annotated[
        list[dict[str, Any]],
        Field(
            min_length=1,
            description="JSON objects; optional keys: id, title/name, text/description, "
            "attributes for diversity_targets, a number per criterion as <criterion>_score or <criterion>.",
        ),
    ]
    weights: Annotated[
        dict[str, Annotated[float, Strict()]] | None,
        Field(
            default=None,
            max_length=64,
            description="{criterion: weight}; judge_score = sum of weight x value (default: the rubric's).",
        ),
    ] = None
    diversity_targets: Annotated[
        dict[str, Annotated[int, Strict(), Field(ge=1)]] | None,
        Field(
            default=None,
            max_length=32,
            description='{attribute: distinct values wanted among the picks}, e.g. {"genre": 2}; '
            "{} turns the rubric's off.",
        ),
    ] = None
    top_k: Annotated[
        int,
        Strict(),
        Field(default=DEFAULT_TOP_K, ge=1, description="How many to select (at most the candidates limit)."),
    ] = DEFAULT_TOP_K
    rubric: RubricId = None
    custom_rubric: CustomRubric = None
    source: Annotated[
        str | None,
        Field(
            default=None,
            description="The request the candidates answer; the judge reads them as answers to it.",
        ),
    ] = None
    accept_threshold: Annotated[
        float | None,
        Field(
            default=None,
            description="Reject candidates whose rubric average is below it (default: the rubric's pass_threshold).",
        ),
    ] = None
    explain: Annotated[
        Literal["template", "narrative"],
        Field(
            default="template",
            description="'narrative': the model writes 2-3 sentences per pick.",
        ),
    ] = "template"
    samples: Samples = 1
    model: ModelOverride = None
    no_cache: NoCache = False


# -- result -------------------------------------------------------------------------------------------------


class Contribution(BaseModel):
    criterion: str = Field(description="The weighted criterion.")
    value: float = Field(description="The value that entered the sum (judge scores normalized to 0-1).")
    weight: float = Field(description="The criterion's weight, as given.")
    contribution: float = Field(description="weight x value.")
    source: ValueSource = Field(
        description="'given' (read from the candidate), 'judge' (scored by the model from its text) or "
        "'missing' (absent, counted as 0.0 and warned about)."
    )
    field: str | None = Field(default=None, description="The candidate key the given value was read from.")
    judge_score: float | None = Field(default=None, description="The judge's raw score on the rubric's scale.")
    scale_max: float | None = Field(
        default=None, description="The rubric scale's maximum the raw score was divided by."
    )
    judge_explanation: str | None = Field(default=None, description="The judge's reasoning for its score.")


class SelectedCandidate(BaseModel):
    index: int = Field(description="0-based position in the request; tells apart candidates with equal ids.")
    id: str = Field(description="The candidate's id, or its index when it has none.")
    name: str = Field(description="Display name: title or name (with artist or author), else the id.")
    rank: int = Field(description="1-based position in the judge_score order.")
    judge_score: float = Field(description="Sum of weight x value over the weighted criteria.")
    contributions: list[Contribution] = Field(description="One entry per weighted criterion, in weights order.")
    attributes: dict[str, Any] = Field(description="The candidate's values for the diversity-target attributes.")
    selected_for: str = Field(
        description="'score', or 'diversity: genre=jazz, ...' naming the new values that got it picked."
    )
    explanation: str = Field(description="Why it was selected.")
    explanation_source: Literal["template", "narrative", "template_fallback"] = Field(
        description="'template_fallback' when a narrative was asked for and the model could not write one."
    )
    rubric_average: float | None = Field(
        default=None, description="Mean of its judge-scored metrics on the rubric's scale; null if none."
    )
    key_points: list[str] | None = Field(
        default=None, description="3-5 key points (rubric mode, accepted candidates); null when not produced."
    )


# A TypedDict, not a model: the ranking can hold 100k rows, and plain dicts validate and serialize
# several times faster than model instances.
class RankingEntry(TypedDict):
    """One row of the full ranking."""

    index: Annotated[int, Field(description="0-based position in the request.")]
    id: Annotated[str, Field(description="The candidate's id.")]
    rank: Annotated[int | None, Field(description="1-based position in the judge_score order; null when unscored.")]
    judge_score: Annotated[
        float | None, Field(description="Weighted score; null when a judge-scored criterion is unscored.")
    ]
    status: Annotated[Status, Field(description="selected, not_selected, rejected (below threshold) or unscored.")]


class _SetAside(BaseModel):
    """What names a candidate that was set aside (rejected or unscored): the fields both lists open with."""

    index: int = Field(description="0-based position in the request.")
    id: str = Field(description="The candidate's id.")
    name: str = Field(description="Display name.")


class RejectedCandidate(_SetAside):
    judge_score: float = Field(description="Its weighted score (it is rejected regardless).")
    average: float = Field(description="Its rubric average, below the accept threshold.")
    reasons: list[str] = Field(description="The average, then each low metric with the judge's explanation.")


class UnscoredCandidate(_SetAside):
    reasons: list[str] = Field(description="Each judge-scored criterion the model gave no valid score for, and why.")


class DiversityOutcome(BaseModel):
    attribute: str = Field(description="The target attribute.")
    target: int = Field(description="Distinct values wanted.")
    achieved: int = Field(description="Distinct values among the selected.")
    values: list[AttributeValue] = Field(description="Those distinct values, in selection order.")
    met: bool = Field(description="achieved >= target.")
    reason: str | None = Field(
        default=None,
        description="Why the target is unmet: too few distinct values among the eligible, too few picks, or the "
        "picks it would need together with the targets met. Null when met.",
    )


class ScoreCandidatesResult(ToolResult):
    ledger_serves: ClassVar[bool] = True

    selected: list[SelectedCandidate] = Field(
        description="The selection: diversity picks first, then score picks. When the two passes missed a "
        "target and a same-size set meets more, that set, told the same way."
    )
    ranking: list[RankingEntry] = Field(
        description="Every candidate, in judge_score order (unscored ones last, in input order)."
    )
    rejected: list[RejectedCandidate] = Field(description="Candidates whose rubric average is below the threshold.")
    unscored: list[UnscoredCandidate] = Field(description="Candidates the judge could not score; never selected.")
    diversity: list[DiversityOutcome] = Field(description="Per target attribute: target, achieved, values, met.")
    weights: dict[str, float] = Field(description="The weights used.")
    weights_source: Literal["request", "rubric"] = Field(description="Where the weights came from.")
    diversity_targets: dict[str, int] = Field(description="The diversity targets used.")
    diversity_targets_source: Literal["request", "rubric", "none"] = Field(description="Where the targets came from.")
    top_k: int = Field(description="How many were asked for.")
    rubric_id: str | None = Field(default=None, description="The rubric used, if any.")
    rubric_version: str | None = Field(default=None, description="Its version.")
    accept_threshold: float | None = Field(default=None, description="The accept threshold used, if any.")
    reasoning_log: list[str] = Field(description="The decisions, in order, human-readable.")
    warnings: list[str] = Field(description="Missing values, negative weights, unmet targets, fallbacks.")
    failures: list[Failure] = Field(
        default_factory=list,
        description="Machine-readable: what the model did not deliver, one code per kind. 'candidates_unscored' "
        "(the judge gave no valid score for some candidate), 'narrative_failed' (a narrative was asked for and "
        "the template text was used for some candidate), 'key_points_failed'. Empty when everything asked for "
        "was produced; unmet diversity targets and missing values are outcomes, not failures.",
    )
    flags: list[str] = Field(default_factory=list, description="e.g. prompt_injection_suspected.")
    usage: Usage | None = Field(default=None, description="Model usage; null when no model was used.")
    provenance: Provenance | None = Field(default=None, description="Which model judged; null when none was used.")
    summary: str = Field(description="One line: what was selected and whether the diversity targets were met.")

    def is_cacheable(self) -> bool:
        """Whether this result may answer a later identical request: nothing the model was asked for failed.

        A failure may be transient (a timeout, a reply that did not parse), so a result with one is recorded
        but not served again.
        """
        return not self.failures

    def render_text(self) -> str:
        lines = [self.summary, "", "| rank | id | name | score | selected for |", "|---|---|---|---|---|"]
        for item in self.selected:
            cells = f"{table_cell(item.id)} | {table_cell(item.name)} | {num(item.judge_score)}"
            lines.append(f"| {item.rank} | {cells} | {table_cell(item.selected_for)} |")
        unmet = [d for d in self.diversity if not d.met]
        if unmet:
            lines.append(
                "unmet diversity targets: "
                + ", ".join(f"{d.attribute} {d.achieved}/{d.target} ({d.reason})" for d in unmet)
            )
        if self.rejected:
            lines.append(f"rejected ({len(self.rejected)}): {id_list([r.id for r in self.rejected])}")
        if self.unscored:
            lines.append(f"unscored ({len(self.unscored)}): {id_list([u.id for u in self.unscored])}")
        lines += flags_line(self.flags)
        if self.warnings:
            lines.append("warnings:")
            lines.extend(f"- {w}" for w in self.warnings[:IDS_SHOWN])
            if len(self.warnings) > IDS_SHOWN:
                lines.append(f"- ... and {len(self.warnings) - IDS_SHOWN} more (see warnings)")
        return "\n".join(lines)


class KeyPoints(BaseModel):
    """What the judge returns for an accepted candidate."""

    key_points: list[Annotated[str, Field(min_length=1, max_length=240)]] = Field(
        min_length=3, max_length=5, description="3 to 5 short key points, one line each."
    )
