"""`evaluate_assessment` and `refine_until_pass`: rubric judging and the self-refinement loop.

Generalizes the clinical-assessment judge and its feedback loop to any rubric: judge every metric, give
the generator feedback for the low ones, revise, judge again, until every metric passes or the budget ends.
"""

from __future__ import annotations

from typing import Annotated, Literal

import anyio
from pydantic import BaseModel, Field

from gavel.tools.common import ModelOverride, NoCache, RubricId, Samples, ToolResult, check_samples, require_text
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.verdict import MetricScore, Provenance, Usage
from gavel.tools.errors import InvalidInput
from gavel.tools.guards import PROMPT_INJECTION_FLAG
from gavel.tools.narrative import Explain, narrate
from gavel.tools.rubrics import Rubric

DEFAULT_RUBRIC = "clinical-assessment"
# Enough for a one-page assessment; a small local model writing more mostly repeats itself.
# Room for a revision plus the prompt material small models echo first (stripped afterwards).
GENERATOR_MAX_TOKENS = 1024


class ScaleInfo(BaseModel):
    min: float
    max: float
    higher_is_better: bool = True


class _RubricChoice(BaseModel):
    source: Annotated[
        str | None,
        Field(default=None, description="What the text was written from (a transcript, a document). The judge "
              "compares the text against it."),
    ]  # fmt: skip
    rubric: RubricId = None
    custom_rubric: Annotated[
        Rubric | None,
        Field(default=None, description="An inline rubric with the same schema as the rubric:// resources."),
    ] = None
    metrics: Annotated[
        list[str] | None,
        Field(default=None, max_length=32, description="Judge only these metric ids (default: all of the rubric's)."),
    ] = None
    pass_threshold: Annotated[
        float | None,
        Field(default=None, description="Overrides the rubric's threshold: a metric scoring below it is low. On "
              "clinical-assessment, 3 reproduces the original script (scores of 2 or less are low), 4 the paper."),
    ] = None  # fmt: skip
    samples: Samples = 1
    model: ModelOverride = None


class EvaluateAssessmentRequest(_RubricChoice):
    assessment: Annotated[str, Field(min_length=1, description="The text under judgment.")]
    explain: Explain = "template"
    no_cache: NoCache = False


class EvaluationResult(ToolResult):
    rubric_id: str
    rubric_version: str
    scores: list[MetricScore] = Field(description="One entry per metric, in rubric order.")
    average: float | None = Field(description="Mean over the scored metrics; null when none was scored.")
    low_metrics: list[str] = Field(description="Metric ids that scored below the threshold.")
    unscored_metrics: list[str] = Field(description="Metric ids the judge gave no valid score for.")
    passed: bool | None = Field(
        description="True when every metric reaches the threshold; null when any metric is unscored, or when "
        "text aimed at the judge was found (see flags): a pass is never taken on the model's word alone then."
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
            shown = f"{s.score:.3g}/{self.scale.max:g}" if s.score is not None else f"unscored ({s.reason or ''})"[:80]
            reason = (s.explanation or s.reason or "").replace("\n", " ").replace("|", "/")
            lines.append(f"| {s.metric} | {shown} | {reason[:140]} |")
        if self.flags:
            lines.append(f"flags: {', '.join(self.flags)}")
        return "\n".join(lines)


def _threshold(rubric: Rubric, override: float | None) -> float:
    if override is None:
        return rubric.pass_threshold
    if not rubric.scale.contains(override):
        raise InvalidInput(
            f"{override:g} is outside the rubric's scale {rubric.scale.min:g}..{rubric.scale.max:g}",
            field="pass_threshold",
        )
    return override


def _is_low(score: float, threshold: float, rubric: Rubric) -> bool:
    return score < threshold if rubric.scale.higher_is_better else score > threshold


def summarize(
    rubric: Rubric, threshold: float, scores: list[MetricScore], usage: Usage, provenance: Provenance, flags: list[str]
) -> EvaluationResult:
    scored = [s for s in scores if s.score is not None]
    unscored = [s.metric for s in scores if s.status == "unscored"]
    low = [s.metric for s in scored if s.score is not None and _is_low(s.score, threshold, rubric)]
    average = sum(s.score for s in scored if s.score is not None) / len(scored) if scored else None
    passed: bool | None = None if unscored else not low
    if passed and PROMPT_INJECTION_FLAG in flags:
        # As for RAG answers: a text that addresses its judge (in refine_until_pass, a writer that graded its
        # own revision with "Scored 4/5" lines) does not pass on the model's word alone.
        passed = None
        verdict = "not passed on the model's word alone: text aimed at the judge was found; have a person check it"
    elif passed is None:
        verdict = f"not decided: {len(unscored)} metric(s) unscored ({', '.join(unscored)})"
    elif passed:
        verdict = "passed"
    else:
        verdict = f"did not pass: low {', '.join(low)}"
    avg = f"{average:.2f}" if average is not None else "n/a"
    summary = f"{rubric.id} v{rubric.version}: average {avg}/{rubric.scale.max:g}, threshold {threshold:g}, {verdict}"
    return EvaluationResult(
        rubric_id=rubric.id,
        rubric_version=rubric.version,
        scores=scores,
        average=average,
        low_metrics=low,
        unscored_metrics=unscored,
        passed=passed,
        pass_threshold=threshold,
        scale=ScaleInfo(min=rubric.scale.min, max=rubric.scale.max, higher_is_better=rubric.scale.higher_is_better),
        flags=flags,
        usage=usage,
        provenance=provenance,
        summary=summary,
    )


def _prepare(request: _RubricChoice, deps: ToolDeps) -> tuple[Rubric, float]:
    rubric = deps.registry.resolve(request.rubric, request.custom_rubric, default=DEFAULT_RUBRIC)
    require_text(request.source, "source", deps.limits, required=False)
    check_samples(request.samples, deps.limits)
    rubric.select(request.metrics)  # unknown metric ids fail here, before any model call
    return rubric, _threshold(rubric, request.pass_threshold)


async def _evaluate(
    judge: Judge, rubric: Rubric, threshold: float, text: str, request: _RubricChoice
) -> EvaluationResult:
    judgment = await judge.score_metrics(
        rubric=rubric,
        metrics=rubric.select(request.metrics),
        subject=text,
        source=request.source,
        samples=request.samples,
        model=request.model,
    )
    return summarize(rubric, threshold, judgment.scores, judgment.usage, judgment.provenance, judgment.flags)


async def evaluate_assessment(request: EvaluateAssessmentRequest, deps: ToolDeps) -> EvaluationResult:
    rubric, threshold = _prepare(request, deps)
    require_text(request.assessment, "assessment", deps.limits)
    judge = await deps.judge()
    result = await _evaluate(judge, rubric, threshold, request.assessment, request)
    if request.explain == "narrative":
        text, why, used = await narrate(judge, result.render_text(), request.model)
        result = result.model_copy(update={"narrative": text, "narrative_error": why, "usage": result.usage.add(used)})
    return result


# -- refine_until_pass ------------------------------------------------------------------------------

StopReason = Literal["passed", "max_iterations", "plateau", "no_low_metrics", "generator_failed"]


class RefineUntilPassRequest(_RubricChoice):
    task: Annotated[
        str | None,
        Field(default=None, description="What the text must be, e.g. 'Qualitative assessment of depression "
              "symptoms per PHQ-8 from this interview'. Required when draft is absent."),
    ] = None  # fmt: skip
    draft: Annotated[
        str | None,
        Field(default=None, description="A first version to improve. If absent the generator writes one from "
              "task and source."),
    ] = None  # fmt: skip
    max_iterations: Annotated[
        int,
        Field(default=10, ge=0, le=20, description="Revisions allowed (0-20). 0 judges once and never rewrites."),
    ] = 10
    generator: Annotated[
        Literal["server", "sampling"],
        Field(default="server", description="Who rewrites: 'server' (the configured model) or 'sampling' (the "
              "calling client's model, through MCP sampling)."),
    ] = "server"  # fmt: skip
    stop_on_plateau: Annotated[
        int | None,
        Field(default=None, ge=1, le=20, description="Stop after this many revisions without a better average."),
    ] = None


class Iteration(BaseModel):
    iteration: int = Field(description="0 is the first version; n the n-th revision.")
    text: str
    evaluation: EvaluationResult
    feedback: dict[str, str] = Field(default_factory=dict, description="Feedback given for the NEXT revision.")
    generation_usage: Usage | None = None


class RefinementResult(ToolResult):
    final_text: str
    final_evaluation: EvaluationResult
    best_text: str
    best_evaluation: EvaluationResult
    best_iteration: int
    passed: bool | None
    iterations_used: int = Field(description="Revisions made (not counting the first version).")
    improved: bool | None = Field(description="Final average above the initial one; null if either is missing.")
    stop_reason: StopReason
    error: str | None = Field(default=None, description="The generator's error when stop_reason is generator_failed.")
    flags: list[str] = Field(
        default_factory=list, description="Flags raised on any iteration, e.g. prompt_injection_suspected."
    )
    history: list[Iteration]
    usage: Usage = Field(description="Totals across the loop: judging and generation.")
    summary: str

    def render_text(self) -> str:
        lines = [self.summary]
        if self.error:
            lines.append(f"generator error: {self.error}")
        if self.flags:
            lines.append(f"flags: {', '.join(self.flags)}")
        lines += ["", "| iteration | average | passed | low metrics |", "|---|---|---|---|"]
        for item in self.history:
            e = item.evaluation
            avg = f"{e.average:.2f}" if e.average is not None else "n/a"
            lines.append(f"| {item.iteration} | {avg} | {e.passed} | {', '.join(e.low_metrics) or '-'} |")
        lines += ["", f"Best text (iteration {self.best_iteration}):", self.best_text]
        return "\n".join(lines)


def feedback_for(evaluation: EvaluationResult) -> dict[str, str]:
    """Feedback for each low metric, as the source design gives it: 'Scored s/max. <explanation>'."""
    by_id = {s.metric: s for s in evaluation.scores}
    return {
        metric: f"Scored {by_id[metric].score:.3g}/{evaluation.scale.max:g}. {by_id[metric].explanation}".strip()
        for metric in evaluation.low_metrics
    }


def _rank(evaluation: EvaluationResult) -> tuple[int, float]:
    return (1 if evaluation.passed else 0, evaluation.average if evaluation.average is not None else float("-inf"))


async def refine_until_pass(request: RefineUntilPassRequest, deps: ToolDeps) -> RefinementResult:
    rubric, threshold = _prepare(request, deps)
    require_text(request.draft, "draft", deps.limits, required=False)
    require_text(request.task, "task", deps.limits, required=request.draft is None)
    if request.max_iterations > deps.limits.max_iterations:
        raise InvalidInput(f"must be at most {deps.limits.max_iterations}", field="max_iterations")
    if request.draft is not None and not request.draft.strip():
        raise InvalidInput("must not be empty or whitespace only; omit it to have a first version written",
                           field="draft")  # fmt: skip
    judge = await deps.judge()
    writer = judge
    if request.generator == "sampling":
        if deps.sampling_judge_factory is None:
            raise InvalidInput(
                "'sampling' needs a client that supports MCP sampling, and this client did not declare it; "
                "use generator='server'",
                field="generator",
            )
        writer = await deps.sampling_judge_factory()

    total = Usage()
    history: list[Iteration] = []
    task = request.task or f"A {rubric.prompt.subject} that meets the rubric '{rubric.title}'."

    text = request.draft
    generation_usage: Usage | None = None
    if text is None:
        created = await writer.generate(
            data={"task": task, **({rubric.prompt.source_label: request.source} if request.source else {})},
            instruction=f"Write the {rubric.prompt.subject} the task asks for, from the material above. "
            f"Reply with the {rubric.prompt.subject} only.",
            max_tokens=GENERATOR_MAX_TOKENS,
            model=request.model if request.generator == "server" else None,
        )
        total = total.add(created.usage)
        if created.text is None:
            raise InvalidInput(
                f"the generator could not write a first version ({created.error}); give a draft instead",
                field="draft",
            )
        text, generation_usage = created.text, created.usage

    evaluation = await _evaluate(judge, rubric, threshold, text, request)
    total = total.add(evaluation.usage)
    history.append(Iteration(iteration=0, text=text, evaluation=evaluation, generation_usage=generation_usage))
    best = history[0]
    best_average = evaluation.average
    stale = 0
    stop_reason: StopReason = "max_iterations"
    error: str | None = None
    await deps.progress(0, request.max_iterations, _progress_message(0, evaluation))

    iteration = 0
    while True:
        if evaluation.passed:
            stop_reason = "passed"
            break
        if not evaluation.low_metrics:
            # Nothing to give feedback on: every scored metric passes but some are unscored.
            stop_reason = "no_low_metrics"
            break
        if iteration >= request.max_iterations:
            stop_reason = "max_iterations"
            break
        if request.stop_on_plateau is not None and stale >= request.stop_on_plateau:
            stop_reason = "plateau"
            break
        feedback = feedback_for(evaluation)
        history[-1].feedback = feedback
        revised = await writer.generate(
            data={
                **({rubric.prompt.source_label: request.source} if request.source else {}),
                "task": task,
                f"previous {rubric.prompt.subject}": text,
                "feedback": "\n".join(f"- {metric}: {note}" for metric, note in feedback.items()),
            },
            max_tokens=GENERATOR_MAX_TOKENS,
            instruction=rubric.prompt.revise
            or f"Revise the previous {rubric.prompt.subject} so that it fixes every problem named in the "
            f"feedback, staying faithful to the material. Reply with the revised {rubric.prompt.subject} only.",
            model=request.model if request.generator == "server" else None,
        )
        total = total.add(revised.usage)
        if revised.text is None:
            stop_reason, error = "generator_failed", revised.error
            break
        iteration += 1
        text = revised.text
        evaluation = await _evaluate(judge, rubric, threshold, text, request)
        total = total.add(evaluation.usage)
        history.append(Iteration(iteration=iteration, text=text, evaluation=evaluation, generation_usage=revised.usage))
        if evaluation.average is not None and (best_average is None or evaluation.average > best_average):
            best_average, stale = evaluation.average, 0
        else:
            stale += 1
        if _rank(evaluation) > _rank(best.evaluation):
            best = history[-1]
        await deps.progress(iteration, request.max_iterations, _progress_message(iteration, evaluation))
        await anyio.lowlevel.checkpoint()

    first, last = history[0].evaluation, history[-1].evaluation
    improved = None
    if first.average is not None and last.average is not None:
        improved = last.average > first.average
    summary = (
        f"{stop_reason} after {iteration} revision(s); average "
        f"{_fmt(first.average)} → {_fmt(last.average)} (best {_fmt(best.evaluation.average)} at iteration "
        f"{best.iteration}); passed: {last.passed}"
    )
    return RefinementResult(
        final_text=text,
        final_evaluation=last,
        best_text=best.text,
        best_evaluation=best.evaluation,
        best_iteration=best.iteration,
        passed=last.passed,
        iterations_used=iteration,
        improved=improved,
        stop_reason=stop_reason,
        error=error,
        flags=list(dict.fromkeys(flag for item in history for flag in item.evaluation.flags)),
        history=history,
        usage=total,
        summary=summary,
    )


def _fmt(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "n/a"


def _progress_message(iteration: int, evaluation: EvaluationResult) -> str:
    low = ", ".join(evaluation.low_metrics) or "none"
    return f"iteration {iteration}: average {_fmt(evaluation.average)}, low metrics: {low}"
