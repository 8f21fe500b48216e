"""`score_candidates`: weighted multi-criteria scoring, diversity-aware selection, explanations.

Generalizes two judges: a music recommender's (planner-given weights and diversity targets, one weighted
score per candidate, a greedy two-pass diversity selection, template explanations, a reasoning log) and an
idea judge's (a model scores each idea on a rubric, accepts at a threshold, rejects with reasons, lists key
points for the accepted ones).

The deterministic path needs no model: the judge is resolved only when a weighted criterion has to be read
from a candidate's text, or when a narrative explanation is asked for. Everything is linear in the number of
candidates except one stable sort, so 100k candidates stay cheap.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

import anyio
from pydantic import BaseModel, Field, Strict
from typing_extensions import TypedDict

from gavel.tools.common import ModelOverride, NoCache, RubricId, Samples, ToolResult, check_samples
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.judge import Judge, Judgment
from gavel.tools.engine.verdict import MetricScore, Provenance, Usage
from gavel.tools.errors import InvalidInput
from gavel.tools.guards import PROMPT_INJECTION_FLAG
from gavel.tools.rubrics import CustomRubric, Metric, Rubric

DEFAULT_TOP_K = 3
# How many ids a warning or log line lists before it says "and N more": messages stay readable at 100k.
IDS_SHOWN = 10
# Pass-1 picks logged one per line; beyond this the log summarizes, so it stays bounded for a huge top_k.
PICKS_LOGGED = 50
NAME_MAX_CHARS = 120
VALUE_MAX_CHARS = 60
NARRATIVE_MAX_TOKENS = 220
KEY_POINTS_MAX_TOKENS = 400
# How many selected candidates get a narrative or key points (each costs a model call).
MODEL_EXTRAS_MAX = 50
HELD_BACK_REASON = (
    "text aimed at the judge was found (prompt_injection_suspected): not accepted on the model's word alone; "
    "have a person check it"
)
DEFAULT_KEY_POINTS_INSTRUCTION = (
    "List 3 to 5 short key points that make this {subject} a strong choice, each one line, drawn from the "
    "{subject} itself."
)
NARRATIVE_INSTRUCTION = (
    "Explain to the user, in 2 or 3 natural sentences, why the {subject} in the block above was recommended. "
    "Use only the facts in the blocks: name its key strengths on the criteria that contributed most to its "
    "score, relate them to what the weights say matters, mention its genre, mood or similar attributes when "
    "they are given, and if it adds variety to the selection, say so briefly. Reply with the explanation only."
)

Source = Literal["given", "judge", "missing"]
Status = Literal["selected", "not_selected", "rejected", "unscored"]


# -- request ------------------------------------------------------------------------------------------------


class ScoreCandidatesRequest(BaseModel):
    candidates: Annotated[
        list[dict[str, Any]],
        Field(
            min_length=1,
            description="JSON objects; optional keys: id, title/name, text/description (judged in rubric mode), "
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
    top_k: Annotated[int, Field(default=DEFAULT_TOP_K, ge=1, description="How many to select.")] = DEFAULT_TOP_K
    rubric: RubricId = None
    custom_rubric: CustomRubric = None
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
    source: Source = Field(
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


class RejectedCandidate(BaseModel):
    index: int = Field(description="0-based position in the request.")
    id: str = Field(description="The candidate's id.")
    name: str = Field(description="Display name.")
    judge_score: float = Field(description="Its weighted score (it is rejected regardless).")
    average: float = Field(description="Its rubric average, below the accept threshold.")
    reasons: list[str] = Field(description="The average, then each low metric with the judge's explanation.")


class UnscoredCandidate(BaseModel):
    index: int = Field(description="0-based position in the request.")
    id: str = Field(description="The candidate's id.")
    name: str = Field(description="Display name.")
    reasons: list[str] = Field(description="Each judge-scored criterion the model gave no valid score for, and why.")


class DiversityOutcome(BaseModel):
    attribute: str = Field(description="The target attribute.")
    target: int = Field(description="Distinct values wanted.")
    achieved: int = Field(description="Distinct values among the selected.")
    values: list[Any] = Field(description="Those distinct values, in selection order.")
    met: bool = Field(description="achieved >= target.")


# The warnings written below when a model call failed and a fallback was used.
_MODEL_FAILURE_WARNINGS = ("narrative explanation failed", "key points could not be produced")


class ScoreCandidatesResult(ToolResult):
    ledger_serves: ClassVar[bool] = True

    selected: list[SelectedCandidate] = Field(
        description="The selection: diversity picks (pass 1) first, then score picks (pass 2)."
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
    flags: list[str] = Field(default_factory=list, description="e.g. prompt_injection_suspected.")
    usage: Usage | None = Field(default=None, description="Model usage; null when no model was used.")
    provenance: Provenance | None = Field(default=None, description="Which model judged; null when none was used.")
    summary: str = Field(description="One line: what was selected and whether the diversity targets were met.")

    def render_text(self) -> str:
        lines = [self.summary, "", "| rank | id | name | score | selected for |", "|---|---|---|---|---|"]
        for item in self.selected:
            name = item.name.replace("|", "/").replace("\n", " ")
            cid = item.id.replace("|", "/").replace("\n", " ")
            lines.append(f"| {item.rank} | {cid} | {name} | {_num(item.judge_score)} | {item.selected_for} |")
        unmet = [d for d in self.diversity if not d.met]
        if unmet:
            lines.append(
                "unmet diversity targets: " + ", ".join(f"{d.attribute} {d.achieved}/{d.target}" for d in unmet)
            )
        if self.rejected:
            lines.append(f"rejected ({len(self.rejected)}): {_id_list([r.id for r in self.rejected])}")
        if self.unscored:
            lines.append(f"unscored ({len(self.unscored)}): {_id_list([u.id for u in self.unscored])}")
        if self.flags:
            lines.append(f"flags: {', '.join(self.flags)}")
        if self.warnings:
            lines.append("warnings:")
            lines.extend(f"- {w}" for w in self.warnings[:IDS_SHOWN])
            if len(self.warnings) > IDS_SHOWN:
                lines.append(f"- ... and {len(self.warnings) - IDS_SHOWN} more (see warnings)")
        return "\n".join(lines)

    def is_cacheable(self) -> bool:
        # A fallback stands in for a model call that failed: such a result is recorded, never served.
        return (
            not self.unscored
            and all(item.explanation_source != "template_fallback" for item in self.selected)
            and not any(w.startswith(_MODEL_FAILURE_WARNINGS) for w in self.warnings)
        )


class KeyPoints(BaseModel):
    """What the judge returns for an accepted candidate."""

    key_points: list[Annotated[str, Field(min_length=1, max_length=240)]] = Field(
        min_length=3, max_length=5, description="3 to 5 short key points, one line each."
    )


# -- formatting helpers --------------------------------------------------------------------------------------


def _num(value: float) -> str:
    """Two decimals like the source design, but small non-zero values keep two significant digits."""
    if value != 0 and abs(value) < 0.005:
        return f"{value:.2g}"
    return f"{value:.2f}"


def _pct(weight: float) -> str:
    return f"{weight * 100:.4g}%"


def _show(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    text = text.replace("\n", " ")
    return text if len(text) <= VALUE_MAX_CHARS else text[: VALUE_MAX_CHARS - 3] + "..."


def _id_list(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:IDS_SHOWN])
    return shown + (f" and {len(ids) - IDS_SHOWN} more" if len(ids) > IDS_SHOWN else "")


def _clip(text: str, limit: int = NAME_MAX_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def candidate_id(candidate: Mapping[str, Any], index: int) -> str:
    raw = candidate.get("id")
    if raw is None:
        return str(index)
    if isinstance(raw, str):
        return raw
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw)
    return _show(raw)


def display_name(candidate: Mapping[str, Any], cid: str) -> str:
    """'title' by artist, as the source design names a track; falls back to the id."""
    title = next((candidate[k] for k in ("title", "name") if candidate.get(k) not in (None, "")), None)
    name = f"'{_clip(str(title))}'" if title is not None else f"candidate {cid!r}"
    by = next((candidate[k] for k in ("artist", "author") if candidate.get(k) not in (None, "")), None)
    return f"{name} by {_clip(str(by))}" if by is not None else name


# -- values ------------------------------------------------------------------------------------------------


def canonical_key(value: Any) -> Any:
    """A hashable key under which equal JSON values collide: 1 and 1.0 are one number, true is not 1.

    Scalars take a fast path (this runs once per candidate and target attribute); lists and objects, which
    are unhashable, go through canonical JSON.
    """
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int):
        return ("n", value)
    if isinstance(value, float):
        return ("n", int(value)) if value.is_integer() else ("n", value)
    return ("j", json.dumps(_normalize_numbers(value), sort_keys=True, ensure_ascii=False, default=repr))


def _normalize_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _normalize_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normalize_numbers(v) for v in value]
    return value


def given_value(
    candidate: Mapping[str, Any], criterion: str, index: int, cid: str, score_key: str | None = None
) -> tuple[float, str] | None:
    """The candidate's own number for `criterion`: '<criterion>_score', else '<criterion>'.

    A null counts as absent (the lookup moves on), so a candidate can say "no score, judge me". Runs once
    per candidate and criterion, so plain finite floats take a fast path before the full checks.
    """
    key = score_key or f"{criterion}_score"
    raw = candidate.get(key)
    if raw is None:
        key = criterion
        raw = candidate.get(key)
        if raw is None:
            return None
    if type(raw) is float and raw - raw == 0.0:  # finite: inf - inf and nan - nan are nan
        return raw, key
    return _checked_number(raw, key, criterion, index, cid), key


def _checked_number(raw: Any, key: str, criterion: str, index: int, cid: str) -> float:
    where = f"candidates[{index}].{key}"
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise InvalidInput(
            f"candidate {cid!r} has {_show(raw)} ({type(raw).__name__}) for the weighted criterion "
            f"{criterion!r}; criterion values must be numbers (or null / absent to be judged or counted as 0)",
            field=where,
        )
    try:
        value = float(raw)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise InvalidInput(
            f"candidate {cid!r} has {raw!r} for {criterion!r}; criterion values must be finite numbers",
            field=where,
        )
    return value


def candidate_text(candidate: Mapping[str, Any]) -> str:
    """What the judge reads: 'text' or 'description', else the candidate's JSON minus its numbers.

    Numbers are left out so the judge is not anchored by scores the candidate already carries.
    """
    for key in ("text", "description"):
        value = candidate.get(key)
        if isinstance(value, str) and value.strip():
            return value
    rest = {
        k: v for k, v in candidate.items() if v is not None and (isinstance(v, bool) or not isinstance(v, int | float))
    }
    return json.dumps(rest, ensure_ascii=False, sort_keys=True, default=repr) if rest else ""


# -- selection ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pick:
    index: int
    by_diversity: bool
    # (attribute, value) pairs that were new and wanted when the candidate was taken in pass 1.
    new_values: tuple[tuple[str, Any], ...] = ()


@dataclass
class SelectionTrace:
    picks: list[Pick]
    pass1_end: str


def select_diverse(
    order: Sequence[int], candidates: Sequence[Mapping[str, Any]], targets: Mapping[str, int], top_k: int
) -> SelectionTrace:
    """The source design's selection, reproduced exactly (same set, same order).

    `order` is the eligible candidates' indices sorted by score. Without targets: the first top_k. With
    targets, pass 1 walks the order and takes a candidate when some target attribute has a non-null value
    that is new and the attribute is still short of its target; taking it records all its non-null target
    values. Pass 2 fills the remaining slots from the top of the order. Candidates are told apart by index,
    and membership is a set lookup, so both passes are linear.
    """
    if not targets:
        return SelectionTrace([Pick(i, False) for i in order[:top_k]], "no diversity targets")
    seen: dict[str, set[Any]] = {attr: set() for attr in targets}
    short = {attr for attr, target in targets.items() if target > 0}
    taken: set[int] = set()
    picks: list[Pick] = []
    pass1_end = "walked every eligible candidate"
    for index in order:
        if len(picks) >= top_k:
            pass1_end = f"top_k ({top_k}) reached"
            break
        if not short:
            # Every target is met, and met sets only grow, so no later candidate can qualify in pass 1.
            pass1_end = "every diversity target met"
            break
        candidate = candidates[index]
        keys: list[tuple[str, Any]] = []
        new: list[tuple[str, Any]] = []
        for attr, target in targets.items():
            value = candidate.get(attr)
            if value is None:
                continue
            key = canonical_key(value)
            keys.append((attr, key))
            if len(seen[attr]) < target and key not in seen[attr]:
                new.append((attr, value))
        if new:
            picks.append(Pick(index, True, tuple(new)))
            taken.add(index)
            for attr, key in keys:
                seen[attr].add(key)
                if len(seen[attr]) >= targets[attr]:
                    short.discard(attr)
    for index in order:
        if len(picks) >= top_k:
            break
        if index not in taken:
            picks.append(Pick(index, False))
            taken.add(index)
    return SelectionTrace(picks[:top_k], pass1_end)


# -- the tool ----------------------------------------------------------------------------------------------


@dataclass
class _Plan:
    rubric: Rubric | None
    weights: dict[str, float]
    weights_source: Literal["request", "rubric"]
    targets: dict[str, int]
    targets_source: Literal["request", "rubric", "none"]
    threshold: float | None
    threshold_given: bool


@dataclass
class _Scored:
    """Everything the result needs per candidate, kept in flat lists so 100k candidates stay cheap."""

    ids: list[str]
    scores: list[float | None]
    judged: dict[int, dict[str, MetricScore]] = field(default_factory=dict)
    averages: dict[int, float] = field(default_factory=dict)
    unscored: dict[int, list[str]] = field(default_factory=dict)
    rejected: dict[int, list[str]] = field(default_factory=dict)
    missing: dict[str, list[int]] = field(default_factory=dict)
    usage: Usage | None = None
    provenance: Provenance | None = None
    flags: set[str] = field(default_factory=set)
    flagged: list[int] = field(default_factory=list)
    # Rejected because their text addresses the judge, whatever their scores (a subset of `rejected`).
    held_back: list[int] = field(default_factory=list)


def _score(scored: _Scored, index: int) -> float:
    """The score of a candidate known to be scored (ranked, selected or rejected; never an unscored one)."""
    score = scored.scores[index]
    if score is None:
        raise RuntimeError(f"candidate {index} has no score but was ranked")
    return score


def _plan(request: ScoreCandidatesRequest, deps: ToolDeps) -> _Plan:
    count = len(request.candidates)
    if count == 0:
        raise InvalidInput("is empty; give at least one candidate", field="candidates")
    if count > deps.limits.max_candidates:
        raise InvalidInput(
            f"has {count:,} candidates; the limit is {deps.limits.max_candidates:,} (GAVEL_MAX_CANDIDATES). "
            "Pre-filter them or split the call.",
            field="candidates",
        )
    for index, candidate in enumerate(request.candidates):
        if not isinstance(candidate, Mapping):
            raise InvalidInput(f"candidate {index} is not a JSON object", field=f"candidates[{index}]")
    if request.top_k < 1:
        raise InvalidInput("must be at least 1", field="top_k")
    check_samples(request.samples, deps.limits)

    rubric: Rubric | None = None
    if request.rubric is not None or request.custom_rubric is not None:
        rubric = deps.registry.resolve(request.rubric, request.custom_rubric, default=request.rubric or "")

    weights_source: Literal["request", "rubric"]
    if request.weights:
        weights, weights_source = dict(request.weights), "request"
    elif rubric is not None:
        weights, weights_source = {m.id: m.weight for m in rubric.metrics}, "rubric"
    else:
        raise InvalidInput(
            "give weights ({criterion: weight}) or a rubric whose metric weights are used", field="weights"
        )
    for criterion, weight in weights.items():
        if not criterion.strip():
            raise InvalidInput("criterion names must not be empty", field="weights")
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight):
            raise InvalidInput(f"the weight of {criterion!r} is {weight!r}; weights must be finite numbers",
                               field="weights")  # fmt: skip

    if request.diversity_targets is not None:
        targets = dict(request.diversity_targets)
        targets_source: Literal["request", "rubric", "none"] = "request" if targets else "none"
    elif rubric is not None and rubric.diversity_targets:
        targets, targets_source = dict(rubric.diversity_targets), "rubric"
    else:
        targets, targets_source = {}, "none"
    for attribute, target in targets.items():
        if isinstance(target, bool) or not isinstance(target, int) or target < 1:
            raise InvalidInput(
                f"the target for {attribute!r} is {target!r}; a target is a whole number of distinct values >= 1 "
                "(leave the attribute out to have no target)",
                field="diversity_targets",
            )

    threshold = request.accept_threshold
    if threshold is not None:
        if rubric is None:
            raise InvalidInput("is on a rubric's scale; give rubric (or custom_rubric) too", field="accept_threshold")
        if not math.isfinite(threshold) or not rubric.scale.contains(threshold):
            raise InvalidInput(
                f"{threshold:g} is outside the rubric's scale {rubric.scale.min:g}..{rubric.scale.max:g}",
                field="accept_threshold",
            )
    elif rubric is not None:
        threshold = rubric.pass_threshold
    return _Plan(
        rubric=rubric,
        weights=weights,
        weights_source=weights_source,
        targets=targets,
        targets_source=targets_source,
        threshold=threshold,
        threshold_given=request.accept_threshold is not None,
    )


def _scan(
    candidates: Sequence[Mapping[str, Any]], plan: _Plan, deps: ToolDeps
) -> tuple[_Scored, dict[int, list[Metric]]]:
    """Validate every criterion value and find which need the judge, before any model call."""
    covered = {m.id: m for m in plan.rubric.metrics} if plan.rubric is not None else {}
    weight_items = [(criterion, weight, f"{criterion}_score") for criterion, weight in plan.weights.items()]
    ids = [candidate_id(c, i) for i, c in enumerate(candidates)]
    scores: list[float | None] = [None] * len(candidates)
    needs: dict[int, list[Metric]] = {}
    missing: dict[str, list[int]] = {criterion: [] for criterion in plan.weights}
    found: dict[str, int] = dict.fromkeys(plan.weights, 0)
    for index, candidate in enumerate(candidates):
        total = 0.0
        for criterion, weight, score_key in weight_items:
            hit = given_value(candidate, criterion, index, ids[index], score_key)
            if hit is not None:
                found[criterion] += 1
                total += hit[0] * weight
            elif criterion in covered:
                needs.setdefault(index, []).append(covered[criterion])
            else:
                missing[criterion].append(index)
        if not math.isfinite(total):
            raise InvalidInput(
                f"candidate {ids[index]!r}: the weighted sum overflows; use smaller weights or values", field="weights"
            )
        scores[index] = total
    for criterion in plan.weights:
        if found[criterion] == 0 and criterion not in covered:
            hint = f" and rubric {plan.rubric.id!r} has no metric of that id" if plan.rubric is not None else ""
            raise InvalidInput(
                f"no candidate has a value for {criterion!r} (looked for '{criterion}_score' and '{criterion}'){hint}; "
                "fix the criterion name, add the values, or give a rubric that covers it",
                field="weights",
            )
    for index in needs:
        text = candidate_text(candidates[index])
        if not text:
            raise InvalidInput(
                f"candidate {ids[index]!r} needs the judge for {', '.join(m.id for m in needs[index])} but has no "
                "text, description or attributes to read",
                field=f"candidates[{index}]",
            )
        if len(text) > deps.limits.max_text_chars:
            raise InvalidInput(
                f"candidate {ids[index]!r}: the text the judge would read is {len(text):,} characters; the limit is "
                f"{deps.limits.max_text_chars:,} (GAVEL_MAX_TEXT_CHARS)",
                field=f"candidates[{index}].text",
            )
    if needs and plan.rubric is not None and plan.rubric.scale.max == 0:
        raise InvalidInput(
            "its scale's maximum is 0, so judge scores cannot be normalized (score ÷ max); use another rubric",
            field="rubric",
        )
    return _Scored(ids=ids, scores=scores, missing=missing), needs


async def _judge_criteria(
    judge: Judge,
    rubric: Rubric,
    jobs: Mapping[int, tuple[str, list[Metric]]],
    *,
    samples: int,
    model: str | None,
    deps: ToolDeps,
) -> dict[int, Judgment]:
    """Score each candidate's missing rubric criteria from its text, all candidates concurrently.

    The judge's process-wide limiter bounds the real concurrency; the task group only queues the work.
    """
    results: dict[int, Judgment] = {}
    total = len(jobs)
    step = max(1, total // 100)  # at most ~100 progress notifications however many candidates

    async def one(index: int, text: str, metrics: list[Metric]) -> None:
        results[index] = await judge.score_metrics(
            rubric=rubric, metrics=metrics, subject=text, samples=samples, model=model,
            readout=judge.config.candidate_readout,
        )  # fmt: skip
        done = len(results)
        if done % step == 0 or done == total:
            await deps.progress(done, total, f"judged {done} of {total} candidates")

    async with anyio.create_task_group() as tg:
        for index, (text, metrics) in jobs.items():
            tg.start_soon(one, index, text, metrics)
    return results


def _is_low(score: float, threshold: float, rubric: Rubric) -> bool:
    return score < threshold if rubric.scale.higher_is_better else score > threshold


def _apply_judgments(
    scored: _Scored,
    candidates: Sequence[Mapping[str, Any]],
    plan: _Plan,
    judgments: Mapping[int, Judgment],
) -> None:
    """Fold the judge's scores into the weighted sums; unscored stays unscored, below threshold is rejected."""
    rubric = plan.rubric
    assert rubric is not None
    for index in sorted(judgments):
        judgment = judgments[index]
        if judgment.flags:
            scored.flags.update(judgment.flags)
            scored.flagged.append(index)
        scored.usage = judgment.usage if scored.usage is None else scored.usage.add(judgment.usage)
        scored.provenance = scored.provenance or judgment.provenance
        by_metric = {s.metric: s for s in judgment.scores}
        scored.judged[index] = by_metric
        failed = [s for s in judgment.scores if s.status != "scored" or s.score is None]
        if failed:
            scored.scores[index] = None
            scored.unscored[index] = [f"{s.metric}: {s.reason or 'no valid score'}" for s in failed]
            continue
        raw = {s.metric: s.score for s in judgment.scores if s.score is not None}
        # Recomputed in weights order so the sum is the same float as a purely given candidate's.
        total = 0.0
        for criterion, weight in plan.weights.items():
            if criterion in raw:
                total += raw[criterion] / rubric.scale.max * weight
            else:
                hit = given_value(candidates[index], criterion, index, scored.ids[index])
                if hit is not None:  # absent and not judged: counted as 0.0, already warned about
                    total += hit[0] * weight
        scored.scores[index] = total
        average = sum(raw.values()) / len(raw)
        scored.averages[index] = average
        if PROMPT_INJECTION_FLAG in judgment.flags:
            # As for RAG answers and assessments: a candidate whose text addresses its judge is not accepted on
            # the model's word alone (measured on the embedded default: such text raised its score).
            scored.rejected[index] = [HELD_BACK_REASON]
            scored.held_back.append(index)
        elif plan.threshold is not None and _is_low(average, plan.threshold, rubric):
            reasons = [f"rubric average {average:.2f} is below the accept threshold {plan.threshold:g}"]
            for s in judgment.scores:
                if s.score is not None and _is_low(s.score, plan.threshold, rubric):
                    reasons.append(f"{s.name} {s.score:g}/{rubric.scale.max:g}: {s.explanation or 'no explanation'}")
            scored.rejected[index] = reasons


def _contributions(
    candidate: Mapping[str, Any], index: int, cid: str, plan: _Plan, judged: Mapping[str, MetricScore] | None
) -> list[Contribution]:
    out: list[Contribution] = []
    for criterion, weight in plan.weights.items():
        metric_score = judged.get(criterion) if judged else None
        if metric_score is not None and metric_score.score is not None and plan.rubric is not None:
            value = metric_score.score / plan.rubric.scale.max
            out.append(
                Contribution(
                    criterion=criterion, value=value, weight=weight, contribution=value * weight, source="judge",
                    judge_score=metric_score.score, scale_max=plan.rubric.scale.max,
                    judge_explanation=metric_score.explanation or None,
                )
            )  # fmt: skip
            continue
        hit = given_value(candidate, criterion, index, cid)
        if hit is None:
            out.append(Contribution(criterion=criterion, value=0.0, weight=weight, contribution=0.0, source="missing"))
        else:
            value, key = hit
            out.append(
                Contribution(
                    criterion=criterion, value=value, weight=weight, contribution=value * weight, source="given",
                    field=key,
                )
            )  # fmt: skip
    return out


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _judged_note(c: Contribution) -> str:
    if c.source != "judge" or c.judge_score is None or c.scale_max is None:
        return ""
    return f" (judged {c.judge_score:g}/{c.scale_max:g})"


def template_explanation(
    name: str,
    score: float,
    rank: int,
    contributions: Sequence[Contribution],
    pick: Pick,
    attributes: Mapping[str, Any],
    has_targets: bool,
    top_k: int,
) -> str:
    """What it scored and why, each contribution with its weight, and the variety it adds."""
    sentences = [f"{name} scored {_num(score)} (rank {rank})."]
    # Any value above 0 adds to the score; only one in the upper half of its 0-1 range is called a strength.
    positive = [
        f"{'strength in ' if c.value >= 0.5 else 'weak '}'{c.criterion}'{_judged_note(c)} contributes "
        f"{_num(c.contribution)} of {_num(score)} (weight {_pct(c.weight)})"
        for c in contributions
        if c.contribution > 0
    ]
    sentences.append(
        f"Why: {'; '.join(positive)}." if positive else "No criterion contributed positively to its score."
    )
    negative = [
        f"'{c.criterion}' lowers it by {_num(-c.contribution)} (weight {_pct(c.weight)})"
        for c in contributions
        if c.contribution < 0
    ]
    if negative:
        sentences.append(f"Against it: {_and(negative)}.")
    missing = [f"'{c.criterion}'" for c in contributions if c.source == "missing"]
    if missing:
        sentences.append(f"It had no value for {_and(missing)}, counted as 0.")
    if pick.by_diversity:
        adds = [f"{attr}={_show(value)}" for attr, value in pick.new_values]
        sentences.append(f"It adds {_and(adds)} to the selection's variety.")
    elif has_targets:
        shown = [f"{attr}={_show(value)}" for attr, value in attributes.items()]
        suffix = f" ({', '.join(shown)})" if shown else ""
        sentences.append(f"It fills a remaining slot on score{suffix}.")
    else:
        sentences.append(f"It is among the top {top_k} by score.")
    return " ".join(sentences)


async def _narrative(
    judge: Judge, rubric: Rubric | None, item: SelectedCandidate, candidate: Mapping[str, Any], plan: _Plan,
    model: str | None,
) -> tuple[str | None, str | None, Usage]:  # fmt: skip
    subject = rubric.prompt.subject if rubric is not None else "candidate"
    facts = {
        "weights": plan.weights,
        "diversity_targets": plan.targets,
        "judge_score": item.judge_score,
        "contributions": [
            {"criterion": c.criterion, "value": c.value, "weight": c.weight, "contribution": c.contribution}
            for c in item.contributions
        ],
        "adds_variety": item.selected_for,
    }
    shown = {k: v for k, v in candidate.items() if not (isinstance(v, str) and len(v) > 2000)}
    generated = await judge.generate(
        data={
            "evaluation": json.dumps(facts, ensure_ascii=False, default=repr),
            subject: json.dumps(shown, ensure_ascii=False, default=repr),
        },
        instruction=NARRATIVE_INSTRUCTION.format(subject=subject),
        model=model,
        max_tokens=NARRATIVE_MAX_TOKENS,
    )
    return generated.text, generated.error, generated.usage


async def _key_points(
    judge: Judge, rubric: Rubric, text: str, model: str | None
) -> tuple[list[str] | None, str | None, Usage]:
    instruction = rubric.prompt.key_points or DEFAULT_KEY_POINTS_INSTRUCTION.format(subject=rubric.prompt.subject)
    result = await judge.structured(
        output=KeyPoints,
        data={rubric.prompt.subject: text},
        instruction=instruction + ' Reply as JSON: {"key_points": ["...", "...", "..."]}',
        model=model,
        max_tokens=KEY_POINTS_MAX_TOKENS,
    )
    if result.value is None:
        return None, result.error or "no valid key points", result.usage
    return [" ".join(p.split()) for p in result.value.key_points], None, result.usage


async def _judge_phase(
    judge: Judge,
    scored: _Scored,
    candidates: Sequence[Mapping[str, Any]],
    plan: _Plan,
    needs: Mapping[int, list[Metric]],
    request: ScoreCandidatesRequest,
    deps: ToolDeps,
    log: list[str],
    warnings: list[str],
) -> None:
    """Rubric mode: the judge scores the criteria candidates lack; log and warn about what came of it."""
    rubric = plan.rubric
    assert rubric is not None
    jobs = {index: (candidate_text(candidates[index]), metrics) for index, metrics in needs.items()}
    judgments = await _judge_criteria(judge, rubric, jobs, samples=request.samples, model=request.model, deps=deps)
    _apply_judgments(scored, candidates, plan, judgments)
    judged_criteria = sorted({m.id for metrics in needs.values() for m in metrics})
    log.append(
        f"The judge scored {', '.join(judged_criteria)} from the text of {len(needs)} candidate(s) with rubric "
        f"{rubric.id!r} v{rubric.version}; judge scores enter the sum as score ÷ {rubric.scale.max:g}."
    )
    if not rubric.scale.higher_is_better:
        warnings.append(
            f"rubric {rubric.id!r} scores lower-is-better, yet judge scores enter the sum as score ÷ max; "
            "use negative weights for its criteria if a lower score should rank higher"
        )
    if scored.unscored:
        ids = [scored.ids[i] for i in scored.unscored]
        message = (
            f"{len(ids)} candidate(s) are unscored (the judge gave no valid score for a criterion), so they have "
            f"no judge_score and are neither selected nor rejected: {_id_list(ids)}"
        )
        warnings.append(message)
        log.append(message[0].upper() + message[1:] + ".")
    low = [i for i in scored.rejected if i not in scored.held_back]
    if low and plan.threshold is not None:
        ids = [scored.ids[i] for i in low]
        log.append(
            f"Rejected {len(ids)} candidate(s) whose rubric average is below {plan.threshold:g}: {_id_list(ids)}."
        )
    if scored.held_back:
        held = [scored.ids[i] for i in scored.held_back]
        log.append(f"Rejected {len(held)} candidate(s) whose text addresses the judge: {_id_list(held)}.")
    if scored.flagged:
        warnings.append(
            "possible prompt injection in the text of: " + _id_list([scored.ids[i] for i in scored.flagged])
        )


def _prepare(request: ScoreCandidatesRequest, deps: ToolDeps) -> tuple[_Plan, _Scored, dict[int, list[Metric]]]:
    plan = _plan(request, deps)
    scored, needs = _scan(request.candidates, plan, deps)
    return plan, scored, needs


async def check_candidates(request: ScoreCandidatesRequest, deps: ToolDeps) -> bool:
    """Refuse a bad request before any model is resolved; True when the call will ask for one.

    Without a rubric or a narrative the call is deterministic: only its plan is checked here, and the
    per-candidate checks run once, in the call (they cost up to a second for 10,000 candidates).
    """
    plan = _plan(request, deps)
    if plan.rubric is None and request.explain != "narrative":
        return False
    _, needs = await anyio.to_thread.run_sync(_scan, request.candidates, plan, deps)
    return bool(needs) or request.explain == "narrative"


async def score_candidates(request: ScoreCandidatesRequest, deps: ToolDeps) -> ScoreCandidatesResult:
    """Scores, ranks and selects. The deterministic parts (checking and summing every candidate, ranking,
    selecting, building the ranking) run in a worker thread: for 10,000 candidates they take up to a second
    of CPU, which on the event loop held every other client's call."""
    started = time.perf_counter()
    candidates = request.candidates
    plan, scored, needs = await anyio.to_thread.run_sync(_prepare, request, deps)
    log: list[str] = []
    warnings: list[str] = []

    log.append(
        f"Weights from the {plan.weights_source}"
        + (f" ({plan.rubric.id})" if plan.weights_source == "rubric" and plan.rubric else "")
        + ": "
        + ", ".join(f"{c}={w:g}" for c, w in plan.weights.items())
        + "; used as given (not renormalized); judge_score = sum of weight x value."
    )
    for criterion, weight in plan.weights.items():
        if weight < 0:
            warnings.append(
                f"criterion {criterion!r} has a negative weight ({weight:g}): a higher value lowers the score"
            )
    if any(w < 0 for w in plan.weights.values()):
        log.append("Negative weights: " + ", ".join(f"{c}={w:g}" for c, w in plan.weights.items() if w < 0) + ".")
    for criterion, indices in scored.missing.items():
        if indices:
            warnings.append(
                f"{len(indices)} candidate(s) have no value for {criterion!r} (looked for '{criterion}_score' and "
                f"'{criterion}'), counted as 0.0: {_id_list([scored.ids[i] for i in indices])}"
            )

    judge: Judge | None = None
    if needs:
        judge = await deps.judge()
        await _judge_phase(judge, scored, candidates, plan, needs, request, deps, log, warnings)
    if plan.threshold_given and not scored.averages:
        warnings.append(
            "accept_threshold applies to rubric averages of judge-scored criteria, and no candidate was judge-scored, "
            "so none was rejected"
        )

    trace, diversity, selected, rank_of, ranked = await anyio.to_thread.run_sync(
        _rank_and_select, candidates, plan, scored, request, log, warnings
    )
    usage, provenance = scored.usage, scored.provenance
    if request.explain == "narrative" and selected:
        judge = judge or await deps.judge()
        usage = await _add_narratives(judge, selected, candidates, plan, request.model, warnings, usage)
        if provenance is None:
            provenance = await judge.provenance(rubric=plan.rubric, samples=1, model=request.model, readout="generated")
    if judge is not None and plan.rubric is not None:
        usage = await _add_key_points(judge, plan.rubric, selected, candidates, scored, request.model, warnings, usage)

    if usage is not None:
        # Calls ran concurrently, so summed per-call durations overstate the time; report the wall time.
        usage = usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})
    parts = _Parts(trace, diversity, selected, rank_of, ranked, log, warnings, usage, provenance)
    return await anyio.to_thread.run_sync(_result, candidates, plan, scored, request, parts)


@dataclass
class _Parts:
    trace: SelectionTrace
    diversity: list[DiversityOutcome]
    selected: list[SelectedCandidate]
    rank_of: dict[int, int]
    ranked: list[int]
    log: list[str]
    warnings: list[str]
    usage: Usage | None
    provenance: Provenance | None


def _rank_and_select(
    candidates: Sequence[Mapping[str, Any]],
    plan: _Plan,
    scored: _Scored,
    request: ScoreCandidatesRequest,
    log: list[str],
    warnings: list[str],
) -> tuple[SelectionTrace, list[DiversityOutcome], list[SelectedCandidate], dict[int, int], list[int]]:
    dupes = [cid for cid, n in Counter(scored.ids).items() if n > 1]
    if dupes:
        warnings.append(
            f"{len(dupes)} id(s) appear more than once ({_id_list(dupes)}); entries are told apart by 'index'"
        )

    # Stable sort: ties keep input order (sorted() stays stable with reverse=True).
    ranked = sorted((i for i, s in enumerate(scored.scores) if s is not None), key=scored.scores.__getitem__,
                    reverse=True)  # fmt: skip
    rank_of = {index: position + 1 for position, index in enumerate(ranked)}
    eligible = [i for i in ranked if i not in scored.rejected]
    if ranked:
        best = ranked[0]
        log.append(
            f"Ranked {len(ranked)} candidate(s) by judge_score, descending; ties keep input order. Best: "
            f"{scored.ids[best]} ({_num(_score(scored, best))})."
        )

    trace = select_diverse(eligible, candidates, plan.targets, request.top_k)
    _log_selection(log, trace, plan, scored, rank_of, request.top_k)
    if len(eligible) < request.top_k:
        warnings.append(
            f"top_k is {request.top_k} but only {len(eligible)} candidate(s) are eligible; selected {len(trace.picks)}"
        )

    diversity = _diversity(trace, candidates, plan.targets)
    for outcome in diversity:
        if not outcome.met:
            available = len({canonical_key(candidates[i].get(outcome.attribute)) for i in eligible
                             if candidates[i].get(outcome.attribute) is not None})  # fmt: skip
            why = (
                f"the eligible candidates offer only {available}"
                if available < outcome.target
                else f"top_k {request.top_k} left no room for more"
            )
            message = (
                f"diversity target not met for {outcome.attribute!r}: {outcome.achieved} distinct value(s) among "
                f"the selected, target {outcome.target} ({why})"
            )
            warnings.append(message)
            log.append(message[0].upper() + message[1:] + ".")

    selected = _selected(trace, candidates, plan, scored, rank_of, request.top_k)
    return trace, diversity, selected, rank_of, ranked


def _result(
    candidates: Sequence[Mapping[str, Any]],
    plan: _Plan,
    scored: _Scored,
    request: ScoreCandidatesRequest,
    parts: _Parts,
) -> ScoreCandidatesResult:
    trace, diversity, selected, rank_of, ranked = (
        parts.trace,
        parts.diversity,
        parts.selected,
        parts.rank_of,
        parts.ranked,
    )
    log, warnings, usage, provenance = parts.log, parts.warnings, parts.usage, parts.provenance
    status: dict[int, Status] = {p.index: "selected" for p in trace.picks}
    ranking = [
        RankingEntry(
            index=i, id=scored.ids[i], rank=rank_of[i], judge_score=scored.scores[i],
            status=status.get(i, "rejected" if i in scored.rejected else "not_selected"),
        )
        for i in ranked
    ]  # fmt: skip
    ranking += [
        RankingEntry(index=i, id=scored.ids[i], rank=None, judge_score=None, status="unscored")
        for i in sorted(scored.unscored)
    ]
    rejected = [
        RejectedCandidate(
            index=i, id=scored.ids[i], name=display_name(candidates[i], scored.ids[i]),
            judge_score=_score(scored, i), average=scored.averages[i], reasons=reasons,
        )
        for i, reasons in sorted(scored.rejected.items(), key=lambda item: rank_of[item[0]])
    ]  # fmt: skip
    unscored = [
        UnscoredCandidate(index=i, id=scored.ids[i], name=display_name(candidates[i], scored.ids[i]), reasons=reasons)
        for i, reasons in sorted(scored.unscored.items())
    ]
    return ScoreCandidatesResult(
        selected=selected,
        ranking=ranking,
        rejected=rejected,
        unscored=unscored,
        diversity=diversity,
        weights=plan.weights,
        weights_source=plan.weights_source,
        diversity_targets=plan.targets,
        diversity_targets_source=plan.targets_source,
        top_k=request.top_k,
        rubric_id=plan.rubric.id if plan.rubric else None,
        rubric_version=plan.rubric.version if plan.rubric else None,
        accept_threshold=plan.threshold,
        reasoning_log=log,
        warnings=warnings,
        flags=sorted(scored.flags),
        usage=usage,
        provenance=provenance,
        summary=_summary(selected, diversity, rejected, unscored, len(candidates), request.top_k),
    )


def _log_selection(
    log: list[str], trace: SelectionTrace, plan: _Plan, scored: _Scored, rank_of: Mapping[int, int], top_k: int
) -> None:
    def label(index: int) -> str:
        return f"{scored.ids[index]} (rank {rank_of[index]}, score {_num(_score(scored, index))})"

    if not plan.targets:
        ids = [label(p.index) for p in trace.picks]
        log.append(f"No diversity targets: selected the first {len(ids)} eligible by score: {_id_list(ids)}.")
        return
    log.append(
        f"Diversity targets from the {plan.targets_source}: "
        + ", ".join(f"{a}={t}" for a, t in plan.targets.items())
        + f"; top_k {top_k}."
    )
    first = [p for p in trace.picks if p.by_diversity]
    for pick in first[:PICKS_LOGGED]:
        adds = ", ".join(f"{a}={_show(v)}" for a, v in pick.new_values)
        log.append(f"Pass 1 (diversity) took {label(pick.index)} for its new {adds}.")
    if len(first) > PICKS_LOGGED:
        log.append(f"Pass 1 took {len(first) - PICKS_LOGGED} more candidate(s) the same way.")
    log.append(f"Pass 1 ended ({trace.pass1_end}) with {len(first)} pick(s).")
    second = [label(p.index) for p in trace.picks if not p.by_diversity]
    if second:
        log.append(f"Pass 2 (score) filled {len(second)} remaining slot(s) from the top: {_id_list(second)}.")
    else:
        log.append("Pass 2 (score) had no slot left to fill.")


def _diversity(
    trace: SelectionTrace, candidates: Sequence[Mapping[str, Any]], targets: Mapping[str, int]
) -> list[DiversityOutcome]:
    outcomes = []
    for attribute, target in targets.items():
        values: dict[Any, Any] = {}
        for pick in trace.picks:
            value = candidates[pick.index].get(attribute)
            if value is not None:
                values.setdefault(canonical_key(value), value)
        outcomes.append(
            DiversityOutcome(
                attribute=attribute, target=target, achieved=len(values), values=list(values.values()),
                met=len(values) >= target,
            )
        )  # fmt: skip
    return outcomes


def _selected(
    trace: SelectionTrace,
    candidates: Sequence[Mapping[str, Any]],
    plan: _Plan,
    scored: _Scored,
    rank_of: Mapping[int, int],
    top_k: int,
) -> list[SelectedCandidate]:
    out = []
    for pick in trace.picks:
        i = pick.index
        candidate, cid = candidates[i], scored.ids[i]
        score = _score(scored, i)
        name = display_name(candidate, cid)
        contributions = _contributions(candidate, i, cid, plan, scored.judged.get(i))
        attributes = {a: candidate[a] for a in plan.targets if candidate.get(a) is not None}
        selected_for = (
            "diversity: " + ", ".join(f"{a}={_show(v)}" for a, v in pick.new_values) if pick.by_diversity else "score"
        )
        out.append(
            SelectedCandidate(
                index=i, id=cid, name=name, rank=rank_of[i], judge_score=score, contributions=contributions,
                attributes=attributes, selected_for=selected_for,
                explanation=template_explanation(
                    name, score, rank_of[i], contributions, pick, attributes, bool(plan.targets), top_k
                ),
                explanation_source="template", rubric_average=scored.averages.get(i),
            )
        )  # fmt: skip
    return out


async def _add_narratives(
    judge: Judge,
    selected: list[SelectedCandidate],
    candidates: Sequence[Mapping[str, Any]],
    plan: _Plan,
    model: str | None,
    warnings: list[str],
    usage: Usage | None,
) -> Usage:
    total = usage or Usage()
    outcomes: dict[int, tuple[str | None, str | None, Usage]] = {}

    async def one(position: int, item: SelectedCandidate) -> None:
        outcomes[position] = await _narrative(judge, plan.rubric, item, candidates[item.index], plan, model)

    async with anyio.create_task_group() as tg:
        for position, item in enumerate(selected[:MODEL_EXTRAS_MAX]):
            tg.start_soon(one, position, item)
    failed: list[str] = []
    for position, item in enumerate(selected):
        if position not in outcomes:
            item.explanation_source = "template_fallback"
            failed.append(f"{item.id} (beyond the first {MODEL_EXTRAS_MAX})")
            continue
        text, error, used = outcomes[position]
        total = total.add(used)
        if text is None:
            item.explanation_source = "template_fallback"
            failed.append(f"{item.id} ({error})")
        else:
            item.explanation, item.explanation_source = text.strip(), "narrative"
    if failed:
        warnings.append("narrative explanation failed, the template one is used for: " + _id_list(failed))
    return total


async def _add_key_points(
    judge: Judge,
    rubric: Rubric,
    selected: list[SelectedCandidate],
    candidates: Sequence[Mapping[str, Any]],
    scored: _Scored,
    model: str | None,
    warnings: list[str],
    usage: Usage | None,
) -> Usage | None:
    """Key points for the selected candidates the judge scored and accepted (the idea judge's 3-5 points)."""
    wanted = [item for item in selected if item.index in scored.averages][:MODEL_EXTRAS_MAX]
    if not wanted:
        return usage
    outcomes: dict[int, tuple[list[str] | None, str | None, Usage]] = {}

    async def one(item: SelectedCandidate) -> None:
        outcomes[item.index] = await _key_points(judge, rubric, candidate_text(candidates[item.index]), model)

    async with anyio.create_task_group() as tg:
        for item in wanted:
            tg.start_soon(one, item)
    total = usage or Usage()
    failed: list[str] = []
    for item in wanted:
        points, error, used = outcomes[item.index]
        total = total.add(used)
        if points is None:
            failed.append(f"{item.id} ({error})")
        else:
            item.key_points = points
    if failed:
        warnings.append("key points could not be produced for: " + _id_list(failed))
    return total


def _summary(
    selected: Sequence[SelectedCandidate],
    diversity: Sequence[DiversityOutcome],
    rejected: Sequence[RejectedCandidate],
    unscored: Sequence[UnscoredCandidate],
    count: int,
    top_k: int,
) -> str:
    chosen = _id_list([s.id for s in selected]) if selected else "none eligible"
    parts = [f"Selected {len(selected)} of {count} candidate(s) (top_k {top_k}): {chosen}"]
    if diversity:
        met = [d for d in diversity if d.met]
        unmet = [d for d in diversity if not d.met]
        if unmet:
            parts.append(
                "diversity targets NOT met: " + ", ".join(f"{d.attribute} {d.achieved}/{d.target}" for d in unmet)
            )
        if met:
            parts.append("met: " + ", ".join(f"{d.attribute} {d.achieved}/{d.target}" for d in met))
    if rejected:
        parts.append(f"{len(rejected)} rejected")
    if unscored:
        parts.append(f"{len(unscored)} unscored")
    return "; ".join(parts) + "."


__all__ = [
    "Contribution",
    "DiversityOutcome",
    "KeyPoints",
    "RankingEntry",
    "RejectedCandidate",
    "ScoreCandidatesRequest",
    "ScoreCandidatesResult",
    "SelectedCandidate",
    "UnscoredCandidate",
    "canonical_key",
    "score_candidates",
    "select_diverse",
]
