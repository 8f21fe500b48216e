"""A rubric metric read through checks (`Metric.checks`): one yes/no check per item, the score from what the
checks found. The scripted model answers each check by the item in it; the tests assert on the items Gavel
asked about, the score it made of the answers, and the findings it kept."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.check_items import source_statements
from gavel.tools.engine.checks import count_anchors, score_from_mistakes
from gavel.tools.engine.prompts import check_floor
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply, yes_no

CLINICAL = RubricRegistry.load().get("clinical-assessment")
SOURCE = (
    "Interviewer: How have you been sleeping?\n"
    "Patient: For three weeks I wake at 4 a.m. every night.\n"
    "Interviewer: And your appetite?\n"
    "Patient: I have been eating much less."
)
GOOD = "For three weeks the patient wakes at 4 a.m. every night. Appetite is reduced."
WRONG = "For three weeks the patient hears voices at 4 a.m. every night. Appetite is reduced."


def judged(request: ChatRequest) -> str:
    return request.messages[-1].content.rsplit("<<<\n", 1)[1].split("\n>>>", 1)[0]


def by_item(p_yes: dict[str, float], default: float = 0.95):
    def reply(request: ChatRequest):
        item = judged(request)
        return yes_no(next((p for text, p in p_yes.items() if text in item), default))

    return ScriptedBackend(default=reply, probabilities=True)


async def evaluate(backend: ScriptedBackend, text: str, source: str | None = SOURCE, metrics: list[str] | None = None):
    request = EvaluateAssessmentRequest(assessment=text, source=source, metrics=metrics)
    return await evaluate_assessment(request, make_deps(backend))


def test_mistake_count_anchors_become_points_and_a_count_lands_between_them():
    points = count_anchors({m: CLINICAL.metrics[0].levels[m] for m in CLINICAL.metrics[0].levels})
    assert points == [(0.0, 5.0), (1.5, 4.0), (3.5, 3.0), (5.5, 2.0), (7.0, 1.0)]
    assert score_from_mistakes(0.0, points) == 5.0
    assert score_from_mistakes(0.75, points) == pytest.approx(4.5)
    assert score_from_mistakes(12.0, points) == 1.0
    assert count_anchors({"1": "excellent", "0": "poor"}) is None


def test_the_sources_statements_leave_out_questions_and_speaker_labels():
    assert source_statements(SOURCE) == [
        "For three weeks I wake at 4 a.m. every night.",
        "I have been eating much less.",
    ]


def test_every_line_of_the_speaker_who_mostly_asks_is_left_out_whatever_the_label():
    source = (
        "Ellie: I'm sorry to hear that. How have you been sleeping?\n"
        "Participant: For three weeks I wake at 4 a.m. every night.\n"
        "Ellie: Tell me more about that.\n"
        "Participant: I lie awake until it gets light.\n"
        "Ellie: How is your appetite?\n"
        "Participant: I have been eating much less."
    )
    assert source_statements(source) == [
        "For three weeks I wake at 4 a.m. every night.",
        "I lie awake until it gets light.",
        "I have been eating much less.",
    ]


@pytest.mark.parametrize(
    ("source", "statements"),
    [
        pytest.param(
            "Ellie: so how have you been sleeping lately\nParticipant: not great i wake up at four most nights\n"
            "Ellie: that sounds hard\nParticipant: yeah and i have no energy at work",
            ["not great i wake up at four most nights", "yeah and i have no energy at work"],
            id="daic-woz-without-punctuation",
        ),
        pytest.param(
            "Doctor: Tell me about your sleep.\nPatient: I wake at four most nights.\n"
            "Doctor: And your mood lately.\nPatient: Low, most days, for a month.",
            ["I wake at four most nights.", "Low, most days, for a month."],
            id="an-interviewer-who-asks-in-statements",
        ),
    ],
)
def test_a_speaker_labelled_as_the_interviewer_is_left_out_however_the_lines_end(source, statements):
    assert source_statements(source) == statements


def test_when_every_speaker_mostly_asks_no_one_is_left_out():
    source = "Sam: I sleep badly these days. Do you?\nKim: I have slept well for weeks. Why?"
    assert source_statements(source) == ["I sleep badly these days.", "I have slept well for weeks."]


async def test_each_sentence_is_checked_against_the_source_and_an_unsupported_one_is_quoted():
    backend = by_item({"hears voices": 0.1})
    result = await evaluate(backend, WRONG, metrics=["accuracy"])
    accuracy = result.scores[0]
    # P(mistake) 0.9 and 0.05; a check counts only what it carries above the kind's floor.
    floor = check_floor("supported")
    assert accuracy.checks == 2 and accuracy.expected_mistakes == pytest.approx((0.9 - floor) / (1 - floor), abs=1e-4)
    assert [f.item for f in accuracy.findings or []] == [
        "For three weeks the patient hears voices at 4 a.m. every night."
    ]
    assert "hears voices" in accuracy.explanation
    prompts = [r.messages[-1].content for r in backend.requests]
    assert all(p.startswith("Document:\n<<<\nInterviewer:") for p in prompts)
    assert all("fact checker" in r.messages[0].content for r in backend.requests)


async def test_the_broken_version_scores_below_the_good_one_on_its_metric():
    backend = by_item({"hears voices": 0.1})
    good = (await evaluate(backend, GOOD, metrics=["accuracy"])).scores[0].score
    wrong = (await evaluate(backend, WRONG, metrics=["accuracy"])).scores[0].score
    assert good is not None and wrong is not None and wrong < good


async def test_a_statement_of_the_source_missing_from_the_text_costs_completeness():
    backend = by_item({"eating much less": 0.05})
    result = await evaluate(
        backend, "For three weeks the patient wakes at 4 a.m. every night.", metrics=["completeness"]
    )
    completeness = result.scores[0]
    assert [f.item for f in completeness.findings or []] == ["I have been eating much less."]
    assert completeness.checks == 2


async def test_a_check_without_an_answer_leaves_the_metric_unscored_never_guessed():
    def reply(request: ChatRequest):
        return token_reply({"The": 0.9, "Yes": 0.1}) if "Appetite" in judged(request) else yes_no(0.9)

    result = await evaluate(ScriptedBackend(default=reply, probabilities=True), GOOD, metrics=["accuracy"])
    assert result.scores[0].status == "unscored" and result.scores[0].reason_code == "answer_mass_low"
    assert "check 2 of 2" in (result.scores[0].reason or "")
    assert result.passed is None


async def test_a_metric_checked_against_the_source_is_unscored_without_one():
    result = await evaluate(by_item({}), GOOD, source=None, metrics=["accuracy", "completeness"])
    assert {s.reason_code for s in result.scores} == {"source_missing"}
    assert result.passed is None


async def test_refine_feedback_quotes_exactly_the_items_that_cost_the_metric():
    result = await evaluate(by_item({"hears voices": 0.02, "Appetite": 0.02}), WRONG, metrics=["accuracy"])
    assert result.low_metrics == ["accuracy"]
    feedback = feedback_for(result, CLINICAL)["accuracy"]
    assert "“For three weeks the patient hears voices at 4 a.m. every night.”" in feedback
    assert "“Appetite is reduced.”" in feedback
    assert feedback.startswith("Scored ")


async def test_the_rendered_result_quotes_below_the_table_what_cost_each_low_metric():
    result = await evaluate(
        by_item({"hears voices": 0.02, "Appetite": 0.02}), WRONG, metrics=["accuracy", "completeness"]
    )
    assert result.low_metrics == ["accuracy"]
    text = result.render_text()
    assert "What cost the low metrics:\n- accuracy: “For three weeks the patient hears voices" in text
    assert "- completeness" not in text
    good = await evaluate(by_item({}), GOOD, metrics=["accuracy"])
    assert "What cost" not in good.render_text()


def test_a_check_kind_that_asks_needs_its_question_and_the_others_take_none():
    with pytest.raises(ValidationError, match="need a question"):
        Checks(kind="sentence")
    with pytest.raises(ValidationError, match="ask Gavel's own question"):
        Checks(kind="supported", question="Is it true?")
    with pytest.raises(ValidationError):
        Checks(kind="whole", question="Is it good")  # not a question


JOINED = "For three weeks the patient wakes at 4 a.m. every night, and she reports no sleep difficulties."


async def test_a_sentence_joining_two_claims_counts_once_as_wrong_as_its_weakest_claim():
    backend = by_item({"she reports no sleep difficulties.": 0.1})
    accuracy = (await evaluate(backend, JOINED, metrics=["accuracy"])).scores[0]
    assert accuracy.checks == 1
    assert [f.item for f in accuracy.findings or []] == ["she reports no sleep difficulties."]
    asked = [judged(r) for r in backend.requests]
    assert asked == [
        JOINED,
        "For three weeks the patient wakes at 4 a.m. every night",
        "she reports no sleep difficulties.",
    ]


async def test_a_claim_is_checked_for_consistency_against_what_comes_before_it_its_sibling_claim_too():
    backend = by_item({"she reports no sleep difficulties.": 0.1})
    coherence = (await evaluate(backend, JOINED + " Appetite is reduced.", metrics=["coherence"])).scores[0]
    assert coherence.checks == 2 and [f.item for f in coherence.findings or []] == [
        "she reports no sleep difficulties."
    ]
    consistency = [r for r in backend.requests if "both be true" in r.messages[-1].content]
    documents = [r.messages[-1].content.split("<<<\n", 2)[1].split("\n>>>", 1)[0] for r in consistency]
    assert documents == ["For three weeks the patient wakes at 4 a.m. every night", JOINED]


def asks_both(request: ChatRequest) -> bool:
    return "both be true" in request.messages[-1].content


def consistency_and_support(both_true: float, supported: float):
    """The model's P(yes) for 'Appetite is reduced.': `both_true` asked for consistency, `supported` against the
    transcript; every other check passes."""

    def reply(request: ChatRequest):
        if "Appetite is reduced." not in judged(request):
            return yes_no(0.95)
        return yes_no(both_true if asks_both(request) else supported)

    return ScriptedBackend(default=reply, probabilities=True)


async def test_a_sentence_the_transcript_supports_is_no_contradiction_whatever_the_consistency_check_says():
    assert CLINICAL.metric("coherence").checks.unless_supported
    coherence = (await evaluate(consistency_and_support(0.1, 0.9), GOOD, metrics=["coherence"])).scores[0]
    assert coherence.score == 5.0 and not coherence.findings
    assert "and the transcript does not support" in (coherence.explanation or "")


async def test_a_contradiction_counts_as_the_lesser_of_its_two_p_mistakes():
    coherence = (await evaluate(consistency_and_support(0.1, 0.3), GOOD, metrics=["coherence"])).scores[0]
    assert coherence.expected_mistakes == pytest.approx((0.7 - 0.5) / 0.5)
    assert [(f.item, f.p_mistake) for f in coherence.findings or []] == [("Appetite is reduced.", 0.7)]


async def test_without_a_transcript_the_consistency_check_alone_decides():
    backend = consistency_and_support(0.1, 0.9)
    coherence = (await evaluate(backend, GOOD, source=None, metrics=["coherence"])).scores[0]
    assert coherence.expected_mistakes == pytest.approx((0.9 - 0.5) / 0.5)
    assert all(asks_both(r) for r in backend.requests)
    assert "does not support" not in (coherence.explanation or "")


async def test_coherence_reuses_the_accuracy_metrics_answers_instead_of_asking_the_model_again():
    backend = by_item({})
    await evaluate(backend, GOOD, metrics=["accuracy", "coherence"])
    asked = [r.messages for r in backend.requests]
    assert len(asked) == len(set(asked))
    assert sum(asks_both(r) for r in backend.requests) == 1


async def test_a_sentence_stating_a_quantity_the_transcript_never_states_keeps_its_consistency_reading():
    backend = by_item({"for two months": 0.1})  # the consistency check finds the second sentence a contradiction
    text = "The patient wakes at 4 a.m. every night. Appetite is reduced for two months."
    coherence = (await evaluate(backend, text, metrics=["coherence"])).scores[0]
    assert [(f.item, f.p_mistake) for f in coherence.findings or []] == [("Appetite is reduced for two months.", 0.9)]
    assert not any("for two months" in judged(r) and not asks_both(r) for r in backend.requests)  # support not asked


def test_only_consistency_checks_take_unless_supported():
    with pytest.raises(ValidationError, match="only 'consistent'"):
        Checks(kind="supported", unless_supported=True)


async def test_the_first_claim_of_a_text_has_nothing_before_it_to_contradict():
    backend = by_item({})
    coherence = (await evaluate(backend, "Appetite is reduced.", metrics=["coherence"])).scores[0]
    assert backend.requests == [] and coherence.score == 5.0 and "nothing to check" in (coherence.explanation or "")


async def test_a_sentence_stating_a_quantity_the_source_never_states_is_unsupported_whatever_the_model_says():
    backend = by_item({})  # the model finds every sentence supported
    months = "For three months the patient wakes at 4 a.m. every night. Appetite is reduced."
    accuracy = (await evaluate(backend, months, metrics=["accuracy"])).scores[0]
    assert [f.item for f in accuracy.findings or []] == ["For three months the patient wakes at 4 a.m. every night."]
    assert accuracy.findings[0].p_mistake == 1.0 and "never states: 3 month" in accuracy.explanation
    assert [judged(r) for r in backend.requests] == ["Appetite is reduced."]  # the numbers decided the other


def test_quantities_are_read_with_their_units_and_a_number_alone_matches_any_unit():
    from gavel.tools.engine.quantities import quantities, unstated

    source = quantities("I lost three kilos in two weeks and wake at 4 a.m., maybe two or three hours of sleep.")
    assert unstated("About 3 kg lost over two weeks, waking at 4 a.m.", source) == []
    assert unstated("Sleeps two to three hours.", source) == []
    assert unstated("Lost 3 kg over two months.", source) == ["2 month"]
    assert unstated("Sleeps five hours.", source) == ["5 hour"]


def test_an_article_before_a_unit_is_the_number_one():
    from gavel.tools.engine.quantities import quantities, unstated

    source = quantities("It started about five months ago. I forget the kettle three or four times a day.")
    assert unstated("For about a year the kettle is forgotten three or four times a day.", source) == ["1 year"]
    assert unstated("Forgets the kettle three or four times a week.", source) == ["1 week"]
    assert unstated("Forgets the kettle three or four times a day, for five months.", source) == []
    assert quantities("a patient with an interest in a choir, one day at a time") == {("1", "day")}


def _before_the_claim(request: ChatRequest) -> str:
    return request.messages[-1].content.rsplit("<<<\n", 1)[0]


# The clinical rubric with its specificity read by a rubric's own question per sentence (the `sentence` kind).
SENTENCE_CHECKED = CLINICAL.model_copy(
    update={
        "id": "clinical-sentence-checked",
        "metrics": [
            m.model_copy(update={"checks": Checks(kind="sentence", question="Does this sentence state a number?")})
            if m.id == "specificity"
            else m
            for m in CLINICAL.metrics
        ],
    }
)


@pytest.mark.parametrize("metric", ["accuracy", "specificity"])
async def test_checks_sharing_a_document_ask_the_question_before_each_claim_so_the_prompts_share_it(metric):
    backend = by_item({})
    request = EvaluateAssessmentRequest(
        assessment=GOOD, source=SOURCE, metrics=[metric], custom_rubric=SENTENCE_CHECKED.model_dump()
    )
    await evaluate_assessment(request, make_deps(backend))
    shared = {_before_the_claim(r) for r in backend.requests}
    assert len(backend.requests) == 2 and len(shared) == 1
    assert "?" in shared.pop().rsplit("\n\n", 2)[-2]  # the question is the last thing before the claim's block
    assert all(r.messages[-1].content.endswith(">>>\n\nAnswer Yes or No.") for r in backend.requests)


@pytest.mark.parametrize(
    ("metric", "question"), [("coherence", "Can the claim"), ("completeness", "Does the document state")]
)
async def test_coverage_and_consistency_checks_ask_their_question_after_the_claim(metric, question):
    backend = by_item({})
    await evaluate(backend, GOOD, metrics=[metric])
    # Coherence also asks whether the transcript supports its sentences (unless_supported), the accuracy way.
    own = [r.messages[-1].content for r in backend.requests if question in r.messages[-1].content]
    assert own and all(question in content.rsplit(">>>", 1)[1] for content in own)
