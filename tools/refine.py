"""`refine_until_pass`: judge a text, give the writer feedback on the low metrics, check its rewrite, judge
again, until every metric passes or the budget ends.

A rewrite is checked before it is judged (`gavel.tools.refine_writer`): one that still carries the writer's
remarks about itself or the judge's feedback is asked for once more, and if the second reply carries them
too the loop stops with `revision_rejected` and the reason, keeping the last clean text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

import anyio
from pydantic import BaseModel, Field

from gavel.tools.assessment import (
    EvaluationResult,
    PreparedRubric,
    RubricChoice,
    UndecidedReason,
    evaluate_text,
    prepare,
)
from gavel.tools.common import ToolResult, flags_line, one_line, require_text
from gavel.tools.deps import Tool, ToolDeps
from gavel.tools.engine import prompts
from gavel.tools.engine.scores import Usage
from gavel.tools.errors import InvalidInput
from gavel.tools.guards import PROMPT_INJECTION_FLAG
from gavel.tools.refine_writer import write
from gavel.tools.revision import RevisionProblemCode, feedback_for
from gavel.tools.rubrics import Scale

FEEDBACK_CHARS = 400  # a feedback note in the rendered text, its quoted items on one line

StopReason = Literal[
    "passed", "max_iterations", "plateau", "no_low_metrics", "nothing_scored", "generator_failed", "revision_rejected"
]


class RefineUntilPassRequest(RubricChoice):
    task: Annotated[
        str | None,
        Field(default=None, description="What the text must be; required without draft."),
    ] = None  # fmt: skip
    draft: Annotated[
        str | None,
        Field(default=None, description="A first version (default: written from task and source)."),
    ] = None  # fmt: skip
    max_iterations: Annotated[
        int,
        Field(default=10, ge=0, le=20, description="Revisions allowed; 0 only judges."),
    ] = 10
    generator: Annotated[
        Literal["server", "sampling"],
        Field(default="server", description="'server' (configured model) or 'sampling' (yours, via MCP sampling)."),
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
    removed_from_reply: str | None = Field(
        default=None,
        description="What was cut from the writer's reply around the text: its own title line or a closing section "
        "of remarks ('### Explanation: …'). Kept for audit; the text judged is without it.",
    )


class RejectedRevision(BaseModel):
    reason: RevisionProblemCode = Field(
        description="'writer_remarks': the rewrite talked about itself ('The revised assessment now includes…'); "
        "'judge_feedback': it carried the judge's feedback or scores ('- specificity: Scored 4/5.')."
    )
    detail: str = Field(description="What was found, quoted.")
    text: str = Field(description="The rejected rewrite (its second attempt), never judged.")


class RefinementResult(ToolResult):
    final_text: str
    final_evaluation: EvaluationResult
    best_text: str
    best_evaluation: EvaluationResult
    best_iteration: int
    passed: bool | None
    undecided_reason: UndecidedReason | None = Field(
        default=None, description="Why passed is null (the final evaluation's reason); null when it is not."
    )
    iterations_used: int = Field(description="Revisions made (not counting the first version).")
    improved: bool | None = Field(
        description="Final average better than the initial one (higher, or lower on a lower-is-better scale); null "
        "if either is missing or covers only some metrics (one unscored), or if either text carries text aimed at "
        "the judge (its scores are not taken on the model's word, so neither is the rise)."
    )
    stop_reason: StopReason = Field(
        description="Why the loop stopped: passed; max_iterations; plateau (stop_on_plateau revisions without a "
        "better average); no_low_metrics (not passed, yet no scored metric is below the threshold to revise "
        "against: some are unscored, or text aimed at the judge was found); nothing_scored (the judge scored no "
        "metric, see final_evaluation for why); generator_failed; revision_rejected."
    )
    error: str | None = Field(default=None, description="The generator's error when stop_reason is generator_failed.")
    rejected_revision: RejectedRevision | None = Field(
        default=None, description="When stop_reason is revision_rejected: why, and the rewrite that was refused."
    )
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
        if self.rejected_revision:
            lines.append(f"rejected rewrite ({self.rejected_revision.reason}): {self.rejected_revision.detail}")
        lines += flags_line(self.flags)
        lines += ["", "| iteration | average | passed | low metrics |", "|---|---|---|---|"]
        for item in self.history:
            e = item.evaluation
            lines.append(f"| {item.iteration} | {_average(e)} | {_passed(e)} | {', '.join(e.low_metrics) or '-'} |")
        for item in self.history:
            if item.feedback:
                # What the writer was told to fix, so a reader can check the rewrite against it.
                lines += ["", f"Feedback after iteration {item.iteration}:"]
                lines += [f"- {metric}: {one_line(note, FEEDBACK_CHARS)}" for metric, note in item.feedback.items()]
        lines += ["", f"Best text (iteration {self.best_iteration}):", self.best_text]
        return "\n".join(lines)

    def ledger_items(self) -> list[ToolResult]:
        return [item.evaluation for item in self.history]


def _standing(evaluation: EvaluationResult, scale: Scale) -> float | None:
    """The average as a share of the way to the scale's best end, so a lower-is-better scale compares the right way
    round; None when a metric is unscored: an average over some of the metrics is not comparable with one over all."""
    if evaluation.average is None or evaluation.unscored_metrics:
        return None
    return scale.share_of(evaluation.average)


def _rank(evaluation: EvaluationResult, scale: Scale) -> tuple[int, float]:
    standing = _standing(evaluation, scale)
    return (1 if evaluation.passed else 0, standing if standing is not None else float("-inf"))


@dataclass(frozen=True)
class _Stop:
    """Why the loop ended; the generator's error and the refused rewrite come only with their own reasons."""

    reason: StopReason
    error: str | None = None
    rejected: RejectedRevision | None = None


async def _prepare(request: RefineUntilPassRequest, deps: ToolDeps) -> PreparedRubric[RefineUntilPassRequest]:
    prepared = prepare(request, deps)
    require_text(request.draft, "draft", deps.limits, required=False)
    require_text(request.task, "task", deps.limits, required=request.draft is None)
    if request.max_iterations > deps.limits.max_iterations:
        raise InvalidInput(f"must be at most {deps.limits.max_iterations}", field="max_iterations")
    if request.draft is not None and not request.draft.strip():
        raise InvalidInput("must not be empty or whitespace only; omit it to have a first version written",
                           field="draft")  # fmt: skip
    return prepared


async def _refine(prepared: PreparedRubric[RefineUntilPassRequest], deps: ToolDeps) -> RefinementResult:
    request, rubric, threshold = prepared.request, prepared.rubric, prepared.threshold
    judge = await deps.judge()
    writer = judge
    if request.generator == "sampling":
        if deps.sampling_judge_factory is None:
            raise InvalidInput(
                "'sampling' needs a client that supports MCP sampling, and this client did not declare it; "
                "use generator='server'",
                field="generator",
            )
        writer = await deps.sampling_judge()
    writer_model = request.model if request.generator == "server" else None
    subject, source = rubric.prompt.subject, {rubric.prompt.source_label: request.source} if request.source else {}
    template = prompts.prompt_set()

    total = Usage()
    history: list[Iteration] = []
    task = request.task or template.fill("default_task", subject=subject, rubric_title=rubric.title)

    text = request.draft
    generation_usage: Usage | None = None
    removed: str | None = None
    if text is None:
        # A rubric's own `write` instruction replaces the general one, as its `revise` does for rewrites.
        first_instruction = rubric.prompt.write or template.fill("write_first", subject=subject)
        created = await write(
            writer, rubric, data={"task": task, **source}, instruction=first_instruction, model=writer_model
        )  # fmt: skip
        total = total.add(created.usage)
        if created.text is None:
            why = created.error or (created.problem.describe() if created.problem else "no text")
            raise InvalidInput(f"the generator could not write a first version ({why}); give a draft instead",
                               field="draft")  # fmt: skip
        text, generation_usage, removed = created.text, created.usage, created.removed

    evaluation = await evaluate_text(judge, rubric, threshold, text, request)
    total = total.add(evaluation.usage)
    history.append(
        Iteration(iteration=0, text=text, evaluation=evaluation, generation_usage=generation_usage,
                  removed_from_reply=removed)
    )  # fmt: skip
    best = history[0]
    best_standing = _standing(evaluation, rubric.scale)
    stale = 0
    stop = _Stop("max_iterations")
    await deps.progress(0, request.max_iterations, _progress_message(0, evaluation))

    iteration = 0
    while True:
        if evaluation.passed:
            stop = _Stop("passed")
            break
        if not evaluation.low_metrics:
            # Nothing to give feedback on: no metric was scored at all, or every scored one passes but some are
            # unscored (or the text carries words aimed at the judge).
            stop = _Stop(
                "no_low_metrics" if len(evaluation.unscored_metrics) < len(evaluation.scores) else "nothing_scored"
            )
            break
        if iteration >= request.max_iterations:
            stop = _Stop("max_iterations")
            break
        if request.stop_on_plateau is not None and stale >= request.stop_on_plateau:
            stop = _Stop("plateau")
            break
        feedback = feedback_for(evaluation, rubric)
        history[-1].feedback = feedback
        revised = await write(
            writer,
            rubric,
            data={
                **source,
                "task": task,
                f"previous {subject}": text,
                "feedback": "\n".join(f"- {metric}: {note}" for metric, note in feedback.items()),
            },
            instruction=rubric.prompt.revise or template.fill("revise", subject=subject),
            model=writer_model,
            feedback=feedback,
            carried=text,
        )
        total = total.add(revised.usage)
        if revised.problem is not None:
            rejected = RejectedRevision(
                reason=revised.problem.code, detail=revised.problem.describe(), text=revised.rejected_text or ""
            )
            stop = _Stop("revision_rejected", rejected=rejected)
            break
        if revised.text is None:
            stop = _Stop("generator_failed", error=revised.error)
            break
        iteration += 1
        text = revised.text
        evaluation = await evaluate_text(judge, rubric, threshold, text, request)
        total = total.add(evaluation.usage)
        history.append(
            Iteration(iteration=iteration, text=text, evaluation=evaluation, generation_usage=revised.usage,
                      removed_from_reply=revised.removed)
        )  # fmt: skip
        standing = _standing(evaluation, rubric.scale)
        if standing is not None and (best_standing is None or standing > best_standing):
            best_standing, stale = standing, 0
        else:
            stale += 1
        if _rank(evaluation, rubric.scale) > _rank(best.evaluation, rubric.scale):
            best = history[-1]
        await deps.progress(iteration, request.max_iterations, _progress_message(iteration, evaluation))
        await anyio.lowlevel.checkpoint()

    return _result(history, best, total, stop, rubric.scale)


refine_until_pass = Tool(_prepare, _refine)


def _result(history: list[Iteration], best: Iteration, usage: Usage, stop: _Stop, scale: Scale) -> RefinementResult:
    """The loop's outcome: its final and its best iteration (the final one's verdict is the result's), and why
    it stopped."""
    final = history[-1]
    first, last = history[0].evaluation, final.evaluation
    improved, improvement = _improvement(first, last, scale)
    summary = (
        f"{stop.reason} after {final.iteration} revision(s); average {_average(first)} → {_average(last)}"
        f"{improvement} (best {_average(best.evaluation)} at iteration {best.iteration}); passed: {_passed(last)}"
    )
    if stop.rejected is not None:
        summary += f"; the next rewrite was refused twice: it carried {stop.rejected.detail}"
    if stop.reason == "nothing_scored":
        summary += "; the judge scored no metric, so there was nothing to revise against (see the evaluation's reasons)"
    return RefinementResult(
        final_text=final.text,
        final_evaluation=last,
        best_text=best.text,
        best_evaluation=best.evaluation,
        best_iteration=best.iteration,
        passed=last.passed,
        undecided_reason=last.undecided_reason,
        iterations_used=final.iteration,
        improved=improved,
        stop_reason=stop.reason,
        error=stop.error,
        rejected_revision=stop.rejected,
        flags=list(dict.fromkeys(flag for item in history for flag in item.evaluation.flags)),
        history=history,
        usage=usage,
        summary=summary,
    )


def _improvement(first: EvaluationResult, last: EvaluationResult, scale: Scale) -> tuple[bool | None, str]:
    """Whether the average moved toward the scale's best end, and a note when that is not claimed although both
    averages exist."""
    if first.average is None or last.average is None:
        return None, ""
    if PROMPT_INJECTION_FLAG in first.flags or PROMPT_INJECTION_FLAG in last.flags:
        return None, " (no improvement claimed: text aimed at the judge was found, so the scores are not trusted)"
    before, after = _standing(first, scale), _standing(last, scale)
    if before is None or after is None:
        return None, " (no improvement claimed: a metric is unscored, so the averages cover different metrics)"
    return after > before, ""


def _passed(evaluation: EvaluationResult) -> str:
    if evaluation.passed is not None:
        return "yes" if evaluation.passed else "no"
    why = {"unscored_metrics": "metrics unscored", "text_aimed_at_judge": "text aimed at the judge was found"}
    return f"not decided ({why.get(evaluation.undecided_reason or '', 'see the evaluation')})"


def _fmt(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "n/a"


def _average(evaluation: EvaluationResult) -> str:
    """The average, and how many metrics it covers when some are unscored."""
    shown, total = _fmt(evaluation.average), len(evaluation.scores)
    unscored = len(evaluation.unscored_metrics)
    if evaluation.average is None or not unscored:
        return shown
    return f"{shown} over {total - unscored} of {total} metrics"


def _progress_message(iteration: int, evaluation: EvaluationResult) -> str:
    low = ", ".join(evaluation.low_metrics) or "none"
    return f"iteration {iteration}: average {_average(evaluation)}, low metrics: {low}"
