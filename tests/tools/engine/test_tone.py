"""A metric about tone that states no checks: its own readout averaged with the nats its best anchor, asked for,
adds to the text over its worst. The scripted model scores the given text by the anchor it was asked for; the tests
assert on what Gavel asked, the score it made of the numbers, and where the metric keeps its own readout alone."""

from __future__ import annotations

from typing import Any

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatReply, ChatRequest
from gavel.tools.engine.likelihood import placed
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply

BEST, WORST = "Warm, respectful and professional.", "Rude, condescending or sarcastic."
# One line: a source of several lines in a paragraph reads as a conversation (engine/reply_likelihood.py).
SOURCE = "Policy: refunds within 30 days. Customer: can I still return my headphones?"
REPLY = "Yes, you can still return them within the 30 days; I'm sorry they did not suit you."


def rubric(description: str = "Is the reply courteous and respectful?", **metric: Any) -> dict[str, Any]:
    levels = {"1": WORST, "3": "Polite enough but cold.", "5": BEST}
    return {
        "id": "inline-support", "version": "1", "title": "Support reply", "description": "A support reply.",
        "scale": {"min": 1, "max": 5, "integer": True}, "pass_threshold": 4,
        "prompt": {"subject": "reply", "source_label": "policy and customer message"},
        "metrics": [{"id": "manner", "name": "Manner", "description": description, "levels": levels, **metric}],
    }  # fmt: skip


def scored_by_anchor(best: float, worst: float, tokens: int = 4) -> ScriptedBackend:
    """The given text scored by the anchor it was asked for; any question answered with a 4."""

    def reply(request: ChatRequest) -> ChatReply:
        if request.score_text is None:
            return token_reply({"4": 1.0})
        total = best if request.messages[-1].content.endswith(BEST) else worst
        return ChatReply(text="", model="", text_logprobs=(total / tokens,) * tokens)

    return ScriptedBackend(default=reply, probabilities=True)


async def evaluate(backend: ScriptedBackend, text: str = REPLY, **metric: Any):
    request = EvaluateAssessmentRequest(assessment=text, source=SOURCE, custom_rubric=rubric(**metric))
    return await evaluate_assessment(request, make_deps(backend))


async def test_a_tone_metric_is_its_digit_averaged_with_how_much_likelier_the_best_anchor_makes_the_text():
    backend = scored_by_anchor(best=-40.0, worst=-52.0)
    score = (await evaluate(backend)).scores[0]
    settings = prompts.tone()
    reading = 1 + 4 * placed(12.0, settings.centre, settings.spread)
    assert score.score == (4 + reading) / 2
    assert "+12.0 nats more likely" in score.explanation
    asked = [r.messages[-1].content for r in backend.requests if r.score_text is not None]
    assert sorted(asked) == sorted(
        f"Policy and customer message:\n{SOURCE}\n\nWrite the reply for this. The reply must be like this: {anchor}"
        for anchor in (BEST, WORST)
    )


async def test_a_text_the_worst_anchor_makes_likelier_scores_below_the_pass_mark():
    result = await evaluate(scored_by_anchor(best=-60.0, worst=-40.0))
    assert result.scores[0].score < 4
    assert result.passed is False


async def test_a_metric_not_about_tone_keeps_its_own_readout():
    backend = scored_by_anchor(best=-60.0, worst=-40.0)
    result = await evaluate(backend, description="Does the reply answer every question the customer asked?")
    assert result.scores[0].score == 4
    assert not [r for r in backend.requests if r.score_text is not None]


async def test_a_text_longer_than_the_reading_takes_keeps_its_own_readout():
    backend = scored_by_anchor(best=-60.0, worst=-40.0)
    long = "Thank you for writing. " * (prompts.tone().max_chars // 20)
    result = await evaluate(backend, text=long)
    assert result.scores[0].score == 4
    assert not [r for r in backend.requests if r.score_text is not None]


async def test_a_metric_whose_author_asked_a_question_keeps_it():
    backend = scored_by_anchor(best=-60.0, worst=-40.0)
    await evaluate(backend, question="Is the reply polite?")
    assert not [r for r in backend.requests if r.score_text is not None]


async def test_a_backend_that_cannot_score_a_given_text_leaves_the_metric_its_own_readout():
    backend = ScriptedBackend(default=lambda request: token_reply({"4": 1.0}), probabilities=True)
    result = await evaluate(backend)
    assert result.scores[0].score == 4
    assert result.scores[0].status == "scored"


async def test_a_tone_metric_on_a_reply_to_a_conversation_is_read_for_its_tone_not_for_how_the_reply_fits():
    backend = scored_by_anchor(best=-40.0, worst=-52.0)
    conversation = "Customer: hi\nAgent: hello, how can I help?\nCustomer: can I still return my headphones?"
    request = EvaluateAssessmentRequest(assessment=REPLY, source=conversation, custom_rubric=rubric())
    await evaluate_assessment(request, make_deps(backend))
    asked = {r.messages[-1].content.rsplit(": ", 1)[-1] for r in backend.requests if r.score_text is not None}
    assert asked == {BEST, WORST}
