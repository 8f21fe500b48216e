"""`evaluate_assessment`: judge a text on every metric of a rubric (the clinical-assessment judge, generalized
to any rubric). The self-refinement loop built on it is `gavel.tools.refine`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, Field

from gavel.tools.common import (
    ModelOverride,
    NoCache,
    RubricId,
    Samples,
    ToolResult,
    check_samples,
    flags_line,
    require_text,
    table_cell,
)
from gavel.tools.deps import FromRequest, Tool, ToolDeps
from gavel.tools.engine.fitness import DecisionCut
from gavel.tools.engine.scores import MetricScore, Provenance, Usage
from gavel.tools.engine.screen import UNSCORED as SCREEN_UNSCORED
from gavel.tools.errors import InvalidInput
from gavel.tools.guards import PROMPT_INJECTION_FLAG
from gavel.tools.narrative import Explain, narrate
from gavel.tools.rubrics import CustomRubric, Rubric, rubric_identity

if TYPE_CHECKING:
    from gavel.tools.engine.judge import Judge

DEFAULT_RUBRIC = "clinical-assessment"
# The evaluate table's cells: a row stays readable in a chat window.
REASON_CHARS = 140
UNSCORED_CHARS = 80
QUOTE_CHARS = 80  # a finding quoted below the table
FINDINGS_SHOWN = 3  # per low metric; the structured result carries them all
# Why `passed` is null: a metric the judge gave no valid score, or text aimed at the judge.
UndecidedReason = Literal["unscored_metrics", "text_aimed_at_judge"]


class ScaleInfo(BaseModel):
    min: float
    max: float
    higher_is_better: bool = True


class RubricChoice(BaseModel):
    source: Annotated[
        str | None,
        Field(default=None, description="What the text was written from."),
    ]  # fmt: skip
    rubric: RubricId = None
    custom_rubric: CustomRubric = None
    metrics: Annotated[
        list[str] | None,
        Field(default=None, max_length=32, description="Only these metric ids (default: all)."),
    ] = None
    pass_threshold: Annotated[
        float | None,
        Field(default=None, description="Overrides the rubric's pass threshold."),
    ] = None  # fmt: skip
    samples: Samples = 1
    model: ModelOverride = None


class EvaluateAssessmentRequest(RubricChoice):
    assessment: Annotated[str, Field(min_length=1, description="The text under judgment.")]
    explain: Explain = "template"
    no_cache: NoCache = False


class EvaluationResult(ToolResult):
    ledger_serves: ClassVar[bool] = True

    rubric_id: str
    rubric_version: str
    scores: list[MetricScore] = Field(description="One entry per metric, in rubric order.")
    average: float | None = Field(description="Mean over the scored metrics; null when none was scored.")
    low_metrics: list[str] = Field(description="Metric ids that scored below the threshold.")
    unscored_metrics: list[str] = Field(description="Metric ids the judge gave no valid score for.")
    passed: bool | None = Field(
        description="True when every metric reaches the threshold (or, decided at a calibrated cut, when the mean "
        "does: see pass_cut); null when any metric is unscored, or when text aimed at the judge was found (see "
        "flags): a pass is never taken on the model's word alone then."
    )
    pass_cut: DecisionCut | None = Field(
        default=None,
        description="Set when passed was decided at the judge's calibrated cut (GAVEL_USE_CALIBRATED_CUT=true and "
        "no pass_threshold in the request): the mean, as a share of the scale (0-1), against this cut.",
    )
    undecided_reason: UndecidedReason | None = Field(
        default=None,
        description="Why passed is null: 'unscored_metrics' (see unscored_metrics) or 'text_aimed_at_judge' "
        "(the text addresses its judge, e.g. grades itself; flags has prompt_injection_suspected). Null when "
        "passed is true or false.",
    )
    pass_threshold: float
    scale: ScaleInfo
    flags: list[str] = Field(default_factory=list, description="e.g. prompt_injection_suspected.")
    usage: Usage
    provenance: Provenance
    narrative: str | None = Field(
        default=None, description="explain='narrative': the judge model's prose explanation, written after the verdict."
    )
    narrative_error: str | None = Field(default=None, description="Why the asked-for narrative could not be written.")
    summary: str

    def render_text(self) -> str:
        lines = [self.summary, "", "| metric | score | reason |", "|---|---|---|"]
        for s in self.scores:
            shown = (
                f"{s.score:.3g}/{self.scale.max:g}"
                if s.score is not None
                else table_cell(f"unscored ({s.reason or ''})", UNSCORED_CHARS)
            )
            said = s.explanation if s.score is None or not s.reason else f"{s.reason}. {s.explanation}"
            reason = table_cell(said or s.reason or "", REASON_CHARS)
            lines.append(f"| {s.metric} | {shown} | {reason} |")
        lines += _what_cost(self)
        lines += flags_line(self.flags)
        return "\n".join(lines)

    def is_cacheable(self) -> bool:
        # passed is null exactly when a metric is unscored or text aimed at the judge was found. A screen or a
        # narrative that failed may have failed for a moment: kept in the ledger, not served again.
        return (
            self.passed is not None
            and all(s.every_sample_scored() for s in self.scores)
            and SCREEN_UNSCORED not in self.flags
            and self.narrative_error is None
        )


def _what_cost(result: EvaluationResult) -> list[str]:
    """Below the table, what each low metric's checks found, quoted: the table's reason column is cut short."""
    lines = []
    for s in result.scores:
        if s.metric in result.low_metrics and s.findings:
            quoted = "; ".join(finding.quoted(QUOTE_CHARS) for finding in s.findings[:FINDINGS_SHOWN])
            more = f"; and {len(s.findings) - FINDINGS_SHOWN} more" if len(s.findings) > FINDINGS_SHOWN else ""
            lines.append(f"- {s.metric}: {quoted}{more}")
    return ["", "What cost the low metrics:", *lines] if lines else []


def _threshold(rubric: Rubric, override: float | None) -> float:
    if override is None:
        return rubric.pass_threshold
    if not rubric.scale.contains(override):
        raise InvalidInput(
            f"{override:g} is outside the rubric's scale {rubric.scale.min:g}..{rubric.scale.max:g}",
            field="pass_threshold",
        )
    return override


async def calibrated_pass_cut(judge: Judge, rubric: Rubric, request: RubricChoice) -> DecisionCut | None:
    """The cut `passed` is decided at instead of the threshold: the judge's calibration's cut on the mean, with
    GAVEL_USE_CALIBRATED_CUT=true and a calibration of this judge on this rubric, unless the request sets its
    own pass_threshold (what a caller asks for wins). `gavel calibrate` measures the same figure against the
    same kind of cut (`calibration.sets`), so a calibrated pass agrees with the calibration's balanced accuracy."""
    if request.pass_threshold is not None:
        return None
    cut = await judge.decision_cut(rubric, rubric.scale.share_of(rubric.pass_threshold), request.model)
    return cut if cut.source == "calibrated" else None


def _is_low(score: float, threshold: float, rubric: Rubric) -> bool:
    return score < threshold if rubric.scale.higher_is_better else score > threshold


def summarize(
    rubric: Rubric,
    threshold: float,
    scores: list[MetricScore],
    usage: Usage,
    provenance: Provenance,
    flags: list[str],
    cut: DecisionCut | None = None,
) -> EvaluationResult:
    scored = [s for s in scores if s.score is not None]
    unscored = [s.metric for s in scores if s.status == "unscored"]
    low = [s.metric for s in scored if s.score is not None and _is_low(s.score, threshold, rubric)]
    average = sum(s.score for s in scored if s.score is not None) / len(scored) if scored else None
    passed: bool | None = None if unscored else not low
    undecided: UndecidedReason | None = "unscored_metrics" if unscored else None
    at_cut = ""
    if cut is not None and passed is not None and average is not None:
        share = rubric.scale.share_of(average)
        passed = share >= cut.value
        at_cut = (
            f" (the mean is {share:.2f} of the scale, {'at or above' if passed else 'below'} the calibrated cut "
            f"{cut.value:.2f} of calibration {cut.calibration_id})"
        )
    if passed and PROMPT_INJECTION_FLAG in flags:
        # As for RAG answers: a text that addresses its judge (in refine_until_pass, a writer that graded its
        # own revision with "Scored 4/5" lines) does not pass on the model's word alone.
        passed, undecided = None, "text_aimed_at_judge"
        verdict = "not passed on the model's word alone: text aimed at the judge was found; have a person check it"
    elif passed is None:
        verdict = f"not decided: {len(unscored)} metric(s) unscored ({', '.join(unscored)})"
    elif passed:
        verdict = "passed" + at_cut
    else:
        verdict = f"did not pass{at_cut}" + (f": low {', '.join(low)}" if low else "")
    avg = f"{average:.2f}/{rubric.scale.max:g}" if average is not None else f"n/a/{rubric.scale.max:g}"
    if average is not None and unscored:  # a mean of some metrics is not the text's average
        avg += f" over {len(scored)} of {len(scored) + len(unscored)} metrics"
    summary = f"{rubric.id} v{rubric.version}: average {avg}, threshold {threshold:g}, {verdict}"
    return EvaluationResult(
        **rubric_identity(rubric),
        scores=scores,
        average=average,
        low_metrics=low,
        unscored_metrics=unscored,
        passed=passed,
        pass_cut=cut if at_cut else None,
        undecided_reason=undecided,
        pass_threshold=threshold,
        scale=ScaleInfo(min=rubric.scale.min, max=rubric.scale.max, higher_is_better=rubric.scale.higher_is_better),
        flags=flags,
        usage=usage,
        provenance=provenance,
        summary=summary,
    )


R = TypeVar("R", bound=RubricChoice)


@dataclass(frozen=True)
class PreparedRubric(FromRequest, Generic[R]):
    """A request that judges against a rubric, checked once: the rubric resolved and its pass threshold."""

    request: R
    rubric: Rubric
    threshold: float
    needs_model: bool = True


def prepare(request: R, deps: ToolDeps) -> PreparedRubric[R]:
    rubric = deps.registry.resolve(request.rubric, request.custom_rubric, default=DEFAULT_RUBRIC)
    require_text(request.source, "source", deps.limits, required=False)
    check_samples(request.samples, deps.limits)
    rubric.select(request.metrics)  # unknown metric ids fail here, before any model call
    return PreparedRubric(request, rubric, _threshold(rubric, request.pass_threshold))


async def evaluate_text(
    judge: Judge, rubric: Rubric, threshold: float, text: str, request: RubricChoice
) -> EvaluationResult:
    judgment = await judge.score_metrics(
        rubric=rubric,
        metrics=rubric.select(request.metrics),
        subject=text,
        source=request.source,
        samples=request.samples,
        model=request.model,
        screen_subject=True,
    )
    cut = await calibrated_pass_cut(judge, rubric, request)
    return summarize(rubric, threshold, judgment.scores, judgment.usage, judgment.provenance, judgment.flags, cut)


async def _prepare_evaluation(
    request: EvaluateAssessmentRequest, deps: ToolDeps
) -> PreparedRubric[EvaluateAssessmentRequest]:
    prepared = prepare(request, deps)
    require_text(request.assessment, "assessment", deps.limits)
    return prepared


async def _evaluate(prepared: PreparedRubric[EvaluateAssessmentRequest], deps: ToolDeps) -> EvaluationResult:
    request = prepared.request
    judge = await deps.judge()
    result = await evaluate_text(judge, prepared.rubric, prepared.threshold, request.assessment, request)
    if request.explain == "narrative":
        text, why, used = await narrate(judge, result.render_text(), request.model)
        result = result.model_copy(update={"narrative": text, "narrative_error": why, "usage": result.usage.add(used)})
    return result


evaluate_assessment = Tool(_prepare_evaluation, _evaluate)
