"""A metric whose anchors name a wall of text: a text that is one scores that anchor from its layout, with no model
call; a text in parts is read as before, and so is a metric whose author named no wall. The scripted model answers
every digit question with one digit, so the tests see which metrics were asked."""

from __future__ import annotations

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.derived_checks import names_a_wall
from gavel.tools.engine.wall import longest_block
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_registry import parse_rubric
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply

ORGANIZATION = {
    "id": "organization",
    "name": "Organization",
    "description": "Can a busy reader see the status first and scan decisions, actions and risks as separate groups?",
    "levels": {"1": "A wall of text or a jumbled list.", "3": "Some structure.", "5": "Grouped sections."},
}
TONE = {"id": "tone", "name": "Tone", "description": "Is the tone calm and courteous?"}
RUBRIC = {
    "id": "status-email",
    "version": "1",
    "title": "Status email",
    "description": "Judges a status email.",
    "scale": {"min": 1, "max": 5, "integer": True},
    "pass_threshold": 4,
    "prompt": {"subject": "email", "source_label": "meeting notes"},
    "metrics": [ORGANIZATION, TONE],
}
WALL = (
    "Subject: Sync\n\nHi all,\n\nTom will call the utility by Friday. The vans arrived. We keep two diesel vans. "
    "Training is half done. The rebate may change in July. Nobody has decided on night staff.\n\nBest,\nPriya"
)
GROUPED = (
    "Subject: Fleet status: go-live Monday\n\nHi all,\n\nSummary: the vans arrived and we go live on Monday.\n\n"
    "Decisions\n- We keep two diesel vans.\n\nActions\n- Tom: call the utility by Friday.\n\n"
    "Risks\n- The rebate may change in July.\n\nBest,\nPriya"
)


async def evaluate(backend: ScriptedBackend, text: str, rubric: dict = RUBRIC):
    request = EvaluateAssessmentRequest(assessment=text, source="Notes: vans, chargers.", custom_rubric=rubric)
    return await evaluate_assessment(request, make_deps(backend))


def test_a_wall_is_one_block_holding_most_of_the_text_in_several_sentences():
    share, sentences = longest_block(WALL)
    assert share > 0.8 and sentences == 6
    assert longest_block(GROUPED)[0] < 0.6


async def test_a_wall_of_text_scores_the_anchor_that_names_it_without_asking_and_the_rewrite_is_told_why():
    backend = ScriptedBackend(default=lambda request: token_reply({"4": 1.0}), probabilities=True)
    result = await evaluate(backend, WALL)
    organization, tone = result.scores
    assert organization.score == 1 and organization.status == "scored" and organization.readout is None
    assert "is a wall of text: one block holds" in organization.explanation
    assert tone.score == 4 and len(backend.requests) == 1  # only the tone was asked
    feedback = feedback_for(result, parse_rubric(RUBRIC, origin="test"))["organization"]
    assert feedback.startswith("Scored 1/5. The email is a wall of text")


async def test_a_text_in_parts_is_read_as_before():
    backend = ScriptedBackend(default=lambda request: token_reply({"4": 1.0}), probabilities=True)
    organization, _ = (await evaluate(backend, GROUPED)).scores
    assert organization.score == 4 and len(backend.requests) == 2


def test_only_a_metric_that_names_a_wall_of_text_and_states_nothing_else_is_read_that_way():
    def metric(**fields):
        return parse_rubric({**RUBRIC, "metrics": [{**ORGANIZATION, **fields}]}, origin="test").metrics[0]

    assert names_a_wall(metric())
    assert not names_a_wall(metric(levels={"1": "Jumbled.", "5": "Grouped."}))
    assert names_a_wall(metric(levels={"1": "Jumbled.", "5": "Grouped."}, description="Not a wall of text?"))
    assert not names_a_wall(metric(question="Is it grouped?"))
