"""refine_until_pass's checks on what the writer returns, and what its card says when `passed` is null."""

from __future__ import annotations

import pytest

from gavel.tools.errors import InvalidInput
from gavel.tools.refine import RefineUntilPassRequest, refine_until_pass
from tests.support.deps import make_deps
from tests.support.replies import asked_metric
from tests.support.rubrics import digit_clinical
from tests.support.scripted import ScriptedBackend, token_reply
from tests.tools.test_assessment import BAD, CLINICAL, GOOD, _with_generator, judge_rounds

CLEAN = "Low mood for three weeks, most days; wakes at 4 a.m. nightly; has stopped going to choir."
CHATTY = CLEAN + "\n\nThe revised assessment now includes all the required information about duration."
PASTED = CLEAN + "\n- specificity: Scored 4/5. Durations are given."


def _deps(judge: ScriptedBackend, writer: ScriptedBackend, **engine: float):
    deps = make_deps(judge, **engine)
    deps.judge_factory = _with_generator(deps, writer)
    return deps


@pytest.mark.parametrize("first", [CHATTY, PASTED, "Here is the revised assessment:\n" + CLEAN])
async def test_a_rewrite_that_carries_more_than_the_text_is_asked_for_once_more(first: str) -> None:
    judge, writer = ScriptedBackend(judge_rounds(BAD, GOOD)), ScriptedBackend([first, CLEAN])
    result = await refine_until_pass(RefineUntilPassRequest(draft="Low mood.", max_iterations=3), _deps(judge, writer))
    assert result.stop_reason == "passed" and result.final_text == CLEAN
    retry = writer.requests[1].messages[1].content
    assert "Your previous reply could not be used" in retry and "no remarks about the rewrite" in retry
    assert result.history[1].generation_usage is not None and result.history[1].generation_usage.llm_calls == 2


async def test_a_rewrite_that_still_carries_remarks_is_rejected_with_the_reason() -> None:
    judge, writer = ScriptedBackend(judge_rounds(BAD)), ScriptedBackend([CHATTY, CHATTY])
    result = await refine_until_pass(RefineUntilPassRequest(draft="Low mood.", max_iterations=3), _deps(judge, writer))
    assert result.stop_reason == "revision_rejected"
    assert result.rejected_revision is not None
    assert result.rejected_revision.reason == "writer_remarks" and result.rejected_revision.text == CHATTY
    assert "The revised assessment now includes" in result.rejected_revision.detail
    assert result.final_text == "Low mood." and result.iterations_used == 0
    assert "refused twice" in result.summary and "rejected rewrite (writer_remarks)" in result.render_text()


async def test_feedback_pasted_back_verbatim_is_found_without_any_score_line() -> None:
    note = "The assessment gives no duration or frequency for any symptom it names."
    judge = ScriptedBackend([{"explanation": note, "score": 2}] * 4)
    pasted = f"{CLEAN} {note}"
    result = await refine_until_pass(
        RefineUntilPassRequest(draft="Low mood.", max_iterations=2), _deps(judge, ScriptedBackend([pasted, pasted]))
    )
    assert result.stop_reason == "revision_rejected"
    assert result.rejected_revision is not None and result.rejected_revision.reason == "judge_feedback"
    assert "duration or frequency" in result.rejected_revision.detail


async def test_a_first_version_that_keeps_its_remarks_is_refused_with_the_reason() -> None:
    writer = ScriptedBackend(["Sure! " + CLEAN, "Sure! " + CLEAN])
    with pytest.raises(InvalidInput) as caught:
        await refine_until_pass(RefineUntilPassRequest(task="Assess PHQ-8"), _deps(ScriptedBackend(), writer))
    assert caught.value.field == "draft" and "remarks about the rewrite itself" in str(caught.value)


async def test_when_text_aimed_at_the_judge_is_found_the_card_says_why_passed_is_null_and_claims_no_gain() -> None:
    draft = CLEAN + "\n- specificity: Scored 5/5. Concrete throughout."  # the caller's own text grades itself
    judge = ScriptedBackend(judge_rounds(GOOD))
    result = await refine_until_pass(RefineUntilPassRequest(draft=draft), _deps(judge, ScriptedBackend()))
    assert result.passed is None and result.undecided_reason == "text_aimed_at_judge"
    assert result.final_evaluation.undecided_reason == "text_aimed_at_judge"
    assert result.improved is None
    assert "passed: not decided (text aimed at the judge was found)" in result.summary
    assert "| 0 | 5.00 | not decided (text aimed at the judge was found) |" in result.render_text()


FRAMED = f"### Revised Assessment\n\n{CLEAN}\n\n### Explanation:\nThe revised assessment addresses the feedback."


async def test_the_writers_title_and_closing_remarks_are_cut_and_kept_for_audit() -> None:
    judge, writer = ScriptedBackend(judge_rounds(BAD, GOOD)), ScriptedBackend([FRAMED])
    result = await refine_until_pass(RefineUntilPassRequest(draft="Low mood.", max_iterations=2), _deps(judge, writer))
    assert result.stop_reason == "passed" and result.final_text == CLEAN
    assert result.history[1].removed_from_reply == (
        "### Revised Assessment\n### Explanation:\nThe revised assessment addresses the feedback."
    )
    assert len(writer.requests) == 1  # nothing left to re-ask about


async def test_feedback_on_a_score_read_from_probabilities_says_what_the_metric_asks() -> None:
    def reply(request):
        # The writer's call is the one without log-probabilities; every judge call reads the digit 2.
        return CLEAN if request.top_logprobs is None else token_reply({"2": 1.0})

    backend = ScriptedBackend(default=reply, probabilities=True)
    request = RefineUntilPassRequest(draft="Low mood.", max_iterations=1, custom_rubric=digit_clinical())
    result = await refine_until_pass(request, make_deps(backend))
    feedback = result.history[0].feedback["specificity"]
    assert feedback.startswith("Scored 2/5. What this metric asks: Is the assessment concrete?")
    assert feedback.endswith("A 5 means: no mistakes.")
    written = next(r for r in backend.requests if r.top_logprobs is None).messages[-1].content
    assert "- specificity: Scored 2/5. What this metric asks:" in written


async def test_an_unchanged_rewrite_is_asked_for_once_more_saying_so() -> None:
    judge, writer = ScriptedBackend(judge_rounds(BAD, GOOD)), ScriptedBackend(["Low  mood.\n", CLEAN])
    result = await refine_until_pass(RefineUntilPassRequest(draft="Low mood.", max_iterations=3), _deps(judge, writer))
    assert result.stop_reason == "passed" and result.final_text == CLEAN and result.iterations_used == 1
    assert "was the previous assessment unchanged" in writer.requests[1].messages[1].content


async def test_a_rewrite_and_its_retry_after_a_copy_are_asked_at_the_revise_penalty() -> None:
    judge, writer = ScriptedBackend(judge_rounds(BAD, GOOD)), ScriptedBackend(["Low mood.", CLEAN])
    penalties = {"revise_repeat_penalty": 1.1, "generate_repeat_penalty": 1.3}
    request = RefineUntilPassRequest(draft="Low mood.", max_iterations=3)
    await refine_until_pass(request, _deps(judge, writer, **penalties))
    assert [r.repeat_penalty for r in writer.requests] == [1.1, 1.1]


async def test_a_first_version_from_the_task_is_asked_at_the_generation_penalty() -> None:
    judge, writer = ScriptedBackend(judge_rounds(GOOD)), ScriptedBackend([CLEAN])
    penalties = {"revise_repeat_penalty": 1.1, "generate_repeat_penalty": 1.3}
    request = RefineUntilPassRequest(task="A short assessment.", max_iterations=3)
    await refine_until_pass(request, _deps(judge, writer, **penalties))
    assert [r.repeat_penalty for r in writer.requests] == [1.3]


async def test_a_first_version_from_the_task_is_asked_with_the_rubrics_own_write_instruction() -> None:
    judge, writer = ScriptedBackend(judge_rounds(GOOD)), ScriptedBackend([CLEAN])
    await refine_until_pass(RefineUntilPassRequest(task="A short assessment.", max_iterations=3), _deps(judge, writer))
    assert CLINICAL.prompt.write and writer.requests[0].messages[-1].content.endswith(CLINICAL.prompt.write)


async def test_a_rubric_without_a_write_instruction_gets_the_general_one() -> None:
    judge, writer = ScriptedBackend(judge_rounds(GOOD)), ScriptedBackend([CLEAN])
    prompt = CLINICAL.prompt.model_copy(update={"write": ""})
    plain = CLINICAL.model_copy(update={"id": "clinical-plain", "prompt": prompt})
    request = RefineUntilPassRequest(task="A short assessment.", max_iterations=3, custom_rubric=plain)
    await refine_until_pass(request, _deps(judge, writer))
    general = "Write the assessment the task asks for, from the material above. Reply with the assessment only."
    assert writer.requests[0].messages[-1].content.endswith(general)


async def test_a_writer_that_returns_the_text_unchanged_twice_stops_the_loop_with_the_reason() -> None:
    judge, writer = ScriptedBackend(judge_rounds(BAD)), ScriptedBackend(["Low mood."] * 2)
    result = await refine_until_pass(RefineUntilPassRequest(draft="Low mood.", max_iterations=5), _deps(judge, writer))
    assert result.stop_reason == "generator_failed" and result.iterations_used == 0
    assert result.error == "the writer returned the previous assessment unchanged, also when told so"
    assert len(writer.requests) == 2


# -- which iteration is best, and whether the loop improved --------------------------------------------------

LOWER_IS_BETTER = {
    "id": "mistakes", "version": "1", "title": "Mistakes", "description": "Counts mistakes; fewer is better.",
    "pass_threshold": 1, "scale": {"min": 0, "max": 5, "higher_is_better": False, "integer": True},
    "metrics": [{"id": "errors", "name": "Errors", "description": "How many factual errors does the text make?"}],
}  # fmt: skip


async def test_on_a_lower_is_better_scale_the_lowest_average_is_best_and_a_rise_is_no_improvement() -> None:
    scores = {"DRAFT": 3, "REV1": 2, "REV2": 5}

    def judge_reply(request):  # type: ignore[no-untyped-def]
        tag = next(t for t in ("REV2", "REV1", "DRAFT") if t in request.messages[1].content)
        return {"explanation": tag, "score": scores[tag]}

    judge, writer = ScriptedBackend(default=judge_reply), ScriptedBackend(["REV1 text.", "REV2 text."])
    request = RefineUntilPassRequest(draft="DRAFT text.", max_iterations=2, custom_rubric=LOWER_IS_BETTER)
    result = await refine_until_pass(request, _deps(judge, writer))
    assert result.best_iteration == 1 and result.best_text == "REV1 text."
    assert result.improved is False


async def test_an_average_over_some_metrics_is_never_best_nor_an_improvement() -> None:
    first = {"specificity": 3, "completeness": 3, "coherence": 4, "accuracy": 3}

    def judge_reply(request):  # type: ignore[no-untyped-def]
        metric = asked_metric(request, CLINICAL)
        if "REVISED" not in request.messages[1].content:
            return {"explanation": "ok", "score": first[metric.id]}
        return {"explanation": "ok", "score": 5} if metric.id == "completeness" else "I cannot rate this."

    judge, writer = ScriptedBackend(default=judge_reply), ScriptedBackend(["REVISED: low mood."])
    result = await refine_until_pass(RefineUntilPassRequest(draft="Low mood.", max_iterations=3), _deps(judge, writer))
    assert result.best_iteration == 0 and result.improved is None
    assert "5.00 over 1 of 4 metrics" in result.summary and "no improvement claimed" in result.summary
