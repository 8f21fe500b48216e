"""The checks on a rewritten text: the writer's remarks and the judge's feedback are found, content is not."""

from __future__ import annotations

import pytest

from gavel.tools.revision import revision_problems, strip_frame

METRICS = ["specificity", "completeness", "coherence", "accuracy"]
CONTENT = "Low mood for three weeks, most days; wakes at 4 a.m. nightly; has stopped going to choir."


def codes(text: str, feedback: dict[str, str] | None = None) -> list[str]:
    found = revision_problems(text, subject="assessment", metric_ids=METRICS, scale_max=5, feedback=feedback)
    return [problem.code for problem in found]


@pytest.mark.parametrize(
    "text",
    [
        CONTENT + "\n\nThe revised assessment now includes all the required information.",
        "Here is the revised assessment:\n" + CONTENT,
        "Sure! " + CONTENT,
        CONTENT + "\nNote: I added the duration as requested.",
        CONTENT + "\nI have revised the text to address the feedback.",
        CONTENT + "\nThis revision adds the frequency of each symptom.",
        CONTENT + "\nLet me know if you need anything else.",
        CONTENT + "\nWhile the previous assessment does not give any duration, this one adds it.",
        CONTENT + "\nThe original assessment named no symptom.",
        CONTENT + "\nThe feedback suggests that the assessment should name durations.",
        CONTENT + "\nTherefore, I will revise the text by adding each symptom's duration.",
        CONTENT + " The feedback suggests that the assessment could name more details.",  # mid-line, a new sentence
        CONTENT + "\nThe first paragraph is well-organized and provides a clear introduction to the topic.",
    ],
)
def test_the_writers_remarks_about_its_rewrite_are_found(text: str) -> None:
    assert codes(text) == ["writer_remarks"]


@pytest.mark.parametrize(
    "text",
    [
        CONTENT + "\n- specificity: Scored 4/5. Concrete throughout.",
        CONTENT + "\nScored 5/5.",
        CONTENT + "\nOverall score: 4/5",
        CONTENT + "\n**Completeness**: every PHQ-8 item is covered.",
        CONTENT + "\nFeedback:",
    ],
)
def test_the_judges_feedback_or_scores_in_the_text_are_found(text: str) -> None:
    assert "judge_feedback" in codes(text)


def test_a_feedback_sentence_pasted_verbatim_is_found() -> None:
    note = "Scored 2/5. The assessment gives no duration or frequency for any symptom it names."
    text = CONTENT + " The assessment gives no  duration or frequency for any symptom it names."
    assert codes(text, {"specificity": note}) == ["judge_feedback"]
    assert codes(CONTENT, {"specificity": note}) == []


@pytest.mark.parametrize(
    "text",
    [
        CONTENT,
        CONTENT + "\nPHQ-8 score: 12/24 (moderate).",  # a clinical score on its own scale is content
        "Sleep: wakes at 4 a.m.\nMood: low, most days.\nAccuracy of her recall is limited.",
        "The patient gave feedback about the clinic's waiting times.",
        "Following the fall in March, she reports pain when walking.",
        "Here, in the clinic, she appeared tired.\n" + CONTENT,  # 'here' alone is no opener
        "Her previous episode, in 2019, lasted four months.",  # 'previous' about the patient, not the text
        "The original draft of the treaty named no patient.",  # another text's draft is content
        "Her manager's feedback suggests she works late most nights.",  # someone's feedback, mid-sentence
        "I will improve my sleep, she says, once the exams are over.",  # a quoted intention, not a rewrite
        "The first paragraph of her letter is about her sleep.",  # another text's paragraph
    ],
)
def test_content_is_not_mistaken_for_remarks_or_feedback(text: str) -> None:
    assert codes(text) == []


def test_each_problem_says_what_was_found() -> None:
    (problem,) = revision_problems(
        CONTENT + "\n- specificity: Scored 4/5.", subject="assessment", metric_ids=METRICS, scale_max=5
    )
    assert problem.describe() == "the judge's feedback or scores copied into the text ('- specificity: Scored 4/5.')"


@pytest.mark.parametrize(
    ("reply", "kept", "cut"),
    [
        ("### Revised Assessment\n\nLow mood.\n\n### Explanation:\nI added detail.", "Low mood.",
         "### Revised Assessment\n### Explanation:\nI added detail."),
        ("Low mood.\n**Changes made**\n- added durations", "Low mood.", "**Changes made**\n- added durations"),
        ("Improved version of the assessment:\nLow mood.", "Low mood.", "Improved version of the assessment:"),
        ("Low mood.\nExplanation of symptoms follows in the plan.", None, None),
        ("### Explanation:\nonly remarks", None, None),
    ],
)  # fmt: skip
def test_the_writers_frame_is_cut_and_what_was_cut_is_returned(reply: str, kept: str | None, cut: str | None) -> None:
    assert strip_frame(reply, subject="assessment") == (kept or reply, cut)


def test_a_section_the_previous_version_had_is_content_not_the_writers_frame() -> None:
    answer = "The answer is B.\n\nExplanation:\nB is the only option the passage supports."
    assert strip_frame(answer, subject="answer") == (
        "The answer is B.",
        "Explanation:\nB is the only option the passage supports.",
    )
    assert strip_frame(answer, subject="answer", carried="The answer is A.\nExplanation:\nA fits.") == (answer, None)


def test_a_line_the_previous_version_had_is_no_remark_about_the_rewrite() -> None:
    draft = "Low mood for three weeks.\nNote: the patient declined blood tests."
    revised = "Low mood most days for three weeks; wakes at 4 a.m.\nNote: the patient declined blood tests."
    check = {"subject": "assessment", "metric_ids": METRICS, "scale_max": 5}
    assert [p.code for p in revision_problems(revised, **check)] == ["writer_remarks"]  # without the draft
    assert revision_problems(revised, **check, carried=draft) == []
    added = revised + "\nNote: I have added the waking time."
    assert [p.code for p in revision_problems(added, **check, carried=draft)] == ["writer_remarks"]
