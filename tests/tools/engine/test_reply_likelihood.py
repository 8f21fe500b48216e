"""A reply to a conversation judged on a 1-5 rubric that states no checks: each metric's own readout averaged with
a reading from likelihood, two readings after the conversation with their nats added. The scripted model scores
the given text by the prompt it follows; the tests assert on what Gavel asked, the score it made of the numbers,
and where it keeps the metric's own readout alone."""

from __future__ import annotations

from typing import Any

import pytest

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatReply, ChatRequest
from gavel.tools.engine.conversations import conversation_of
from gavel.tools.engine.likelihood import placed
from gavel.tools.engine.reply_likelihood import is_reply
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply

SOURCE = (
    "Conversation:\nhello\ndid you watch jaws ?\nyes , the music scared me .\ndid you know spielberg played on it ?"
    "\n\nFact: John Williams wrote the score of Jaws."
)
REPLY = "no , i did not know that spielberg played on the jaws soundtrack !"
WITHOUT = "(no conversation)"


def rubric(low: int = 1, high: int = 5) -> dict[str, Any]:
    metric = {"description": "Is the response a good next turn?", "levels": {str(low): "poor", str(high): "good"}}
    return {
        "id": "inline-dialogue", "version": "1", "title": "Dialogue", "description": "The next turn.",
        "scale": {"min": low, "max": high, "integer": True}, "pass_threshold": (low + high) / 2,
        "metrics": [{"id": "coherence", "name": "Coherence", **metric}, {"id": "overall", "name": "Overall", **metric}],
    }  # fmt: skip


def scored_by_prompt(last: float, every: float, without: float, tokens: int = 4) -> ScriptedBackend:
    """The given text scored by the reading it follows; any question answered with a 4."""

    def reply(request: ChatRequest) -> ChatReply:
        if request.score_text is None:
            return token_reply({"4": 0.75, "5": 0.25})
        system, last_turn = request.messages[0].content, request.messages[-1].content
        total = without if last_turn == WITHOUT else every if "Fact:" in system else last
        return ChatReply(text="", model="", text_logprobs=(total / tokens,) * tokens)

    return ScriptedBackend(default=reply, probabilities=True)


async def evaluate(backend: ScriptedBackend, source: str = SOURCE, text: str = REPLY, scale: tuple[int, int] = (1, 5)):
    request = EvaluateAssessmentRequest(assessment=text, source=source, custom_rubric=rubric(*scale))
    return await evaluate_assessment(request, make_deps(backend))


def test_a_conversation_is_the_paragraph_with_the_most_lines_its_heading_left_out_the_rest_kept():
    assert conversation_of(SOURCE) == (
        ["hello", "did you watch jaws ?", "yes , the music scared me .", "did you know spielberg played on it ?"],
        "Fact: John Williams wrote the score of Jaws.",
    )
    assert conversation_of("Fact: Jaws is from 1975.\n\nhi\nhello there") == (
        ["hi", "hello there"],
        "Fact: Jaws is from 1975.",
    )
    assert conversation_of("What is a good film?") is None
    assert conversation_of("Conversation:\nhi") is None


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("Fact: Jaws is from 1975.\nConversation:\nA: hi\nB: hello there",
                     id="fact-then-heading-in-one-paragraph"),
        pytest.param('["A: hi", "B: hello there"]', id="a-json-list-of-turns"),
        pytest.param('[{"role": "user", "content": "A: hi"}, {"role": "assistant", "content": "B: hello there"}]',
                     id="a-json-list-of-messages"),
    ],
)  # fmt: skip
def test_a_conversation_laid_out_as_a_harness_may_lay_it_out_is_read_as_its_turns(source):
    turns, rest = conversation_of(source)  # type: ignore[misc]
    assert turns == ["A: hi", "B: hello there"]
    assert rest in ("", "Fact: Jaws is from 1975.")


def test_a_speakers_label_on_a_line_of_its_own_is_no_turn():
    assert conversation_of("Doctor:\nHow do you sleep?\nPatient:\nBadly.") == (["How do you sleep?", "Badly."], "")


@pytest.mark.parametrize("source", ['["one turn"]', "[1, 2]", '{"turns": ["a", "b"]}', "Doctor:\nHow do you sleep?"])
def test_a_json_list_that_is_not_turns_or_a_single_turn_after_a_heading_is_no_conversation(source):
    assert conversation_of(source) is None


def test_a_reply_is_one_short_paragraph_after_a_conversation():
    assert is_reply(REPLY, SOURCE)
    assert not is_reply(REPLY, "What is a good film?") and not is_reply(REPLY, None)
    assert not is_reply("First part.\n\nSecond part.", SOURCE)
    assert not is_reply("word " * prompts.reply_likelihood().max_chars, SOURCE)


async def test_each_metric_averages_its_own_digit_with_one_shared_reading_whose_two_layouts_add_their_nats():
    backend = scored_by_prompt(last=-30.0, every=-25.0, without=-60.0)
    result = await evaluate(backend)
    settings = prompts.reply_likelihood()
    likely = 1 + 4 * placed(30.0 + 35.0, settings.centre, settings.spread)
    assert [s.score for s in result.scores] == [pytest.approx((4.25 + likely) / 2)] * 2
    explanation = result.scores[0].explanation
    assert "expected score 4.25" in explanation and "+30.0 nats" in explanation and "+35.0" in explanation
    scored = [r for r in backend.requests if r.score_text is not None]
    assert len(scored) == 3 and all(r.score_text == REPLY for r in scored)
    layouts = {tuple((m.role, m.content) for m in r.messages[1:]) for r in scored}
    assert (("user", WITHOUT),) in layouts
    assert (
        ("user", "did you watch jaws ?"),
        ("assistant", "yes , the music scared me ."),
        ("user", "did you know spielberg played on it ?"),
    ) in layouts
    every = next(r for r in scored if "Fact:" in r.messages[0].content)
    assert every.messages[1].content == "hello" and len(every.messages) == 5


async def test_a_backend_that_cannot_score_a_given_text_keeps_the_digit_readout():
    backend = ScriptedBackend(default=lambda request: token_reply({"4": 0.75, "5": 0.25}), probabilities=True)
    result = await evaluate(backend)
    assert [s.score for s in result.scores] == [pytest.approx(4.25)] * 2
    assert "nats" not in result.scores[0].explanation


@pytest.mark.parametrize(
    ("source", "text", "scale"),
    [
        ("What is a good film to watch tonight?", REPLY, (1, 5)),  # not a conversation
        (SOURCE, REPLY + "\n\nAnd another paragraph.", (1, 5)),  # not one turn
        (SOURCE, REPLY, (0, 10)),  # not a rating scale of 3 to 7 points
        (SOURCE, REPLY, (0, 1)),
    ],
)
async def test_other_texts_sources_and_scales_are_read_as_before(source: str, text: str, scale: tuple[int, int]):
    backend = scored_by_prompt(last=-30.0, every=-25.0, without=-60.0)
    result = await evaluate(backend, source=source, text=text, scale=scale)
    assert not any(r.score_text is not None for r in backend.requests)
    assert all("nats" not in s.explanation for s in result.scores)


async def test_a_reading_that_fails_leaves_the_metric_unscored_not_read_from_its_other_half():
    def reply(request: ChatRequest) -> ChatReply:
        if request.score_text is None:
            return token_reply({"4": 0.75, "5": 0.25})
        return ChatReply(text="", model="", text_logprobs=(float("nan"),))

    result = await evaluate(ScriptedBackend(default=reply, probabilities=True))
    assert all(s.status == "unscored" and s.score is None and s.reason_code for s in result.scores)
