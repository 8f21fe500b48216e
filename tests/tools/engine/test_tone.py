"""Checks of kind 'anchors': each sentence of the text read for how much likelier the model finds it when asked for the
metric's best anchor than for its worst, and the metrics read that way without being asked, because their words
speak of tone. The scripted model scores each given text by the anchor it is asked for, a sentence at a time; the
tests assert on what Gavel asked, the score it made of the numbers, and the fallback where none come back."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.backend import ChatReply, ChatRequest
from gavel.tools.engine.derived_checks import checks_for
from gavel.tools.engine.likelihood import placed
from gavel.tools.engine.prompts import tone
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import parse_rubric
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply

BEST = "Direct and collegial throughout; criticism is about the code."
WORST = "Sarcastic, condescending or blaming; belittles the author's competence."
TONE = {
    "id": "respectful_tone",
    "name": "Respectful tone",
    "description": "Is the comment collegial, without sarcasm, blame or condescension?",
    "levels": {"1": WORST, "3": "Mostly neutral, but with a curt remark.", "5": BEST},
}
RUBRIC = {
    "id": "review",
    "version": "1",
    "title": "Review comments",
    "description": "Judges a review comment.",
    "scale": {"min": 1, "max": 5, "integer": True},
    "pass_threshold": 4,
    "prompt": {"subject": "review comment", "source_label": "change"},
    "metrics": [TONE],
}
CHANGE = "Adds a cache.\n\n+_cache = {}"
FIX = "Every caller shares one dict; please make the cache per instance."
SNEER = "Did anyone actually test this?"
TERSE = "Add a test."  # leans a little to the worst anchor, less than the cut: it does not count
POLITE = f"{FIX} Thanks for the quick turnaround."
RUDE = f"{FIX} {TERSE} {SNEER}"
# Nats each sentence leans to the best anchor (negative: to the worst).
LEAN = {FIX: 0.5, TERSE: -1.0, "Thanks for the quick turnaround.": 1.0, SNEER: -9.0}
DIGIT = token_reply({"4": 0.9, "5": 0.1})


def by_anchor(lean: dict[str, float] = LEAN) -> ScriptedBackend:
    """Each sentence of a given text one token, at -5 nats after the worst anchor and -5 + its lean after the best;
    a digit asked for answered 4."""

    def reply(request: ChatRequest) -> ChatReply:
        text = request.score_text
        if text is None:
            return DIGIT
        best = BEST in request.messages[-1].content
        logprobs, ends, at = [], [], 0
        for sentence, nats in lean.items():
            found = text.find(sentence, at)
            if found < 0:
                continue
            at = found + len(sentence)
            ends.append(len(text[:at].encode("utf-8")))
            logprobs.append(-5.0 + (nats if best else 0.0))
        return ChatReply(text="", model="", text_logprobs=tuple(logprobs), text_ends=tuple(ends))

    return ScriptedBackend(default=reply, probabilities=True)


async def evaluate(backend: ScriptedBackend, text: str, rubric: dict = RUBRIC):
    request = EvaluateAssessmentRequest(assessment=text, source=CHANGE, custom_rubric=rubric)
    return await evaluate_assessment(request, make_deps(backend))


def metric(**fields):
    return parse_rubric({**RUBRIC, "metrics": [{**TONE, **fields}]}, origin="test").metrics[0]


async def test_a_sneering_sentence_costs_the_metric_and_is_quoted_and_a_polite_text_keeps_it():
    polite, rude = [(await evaluate(by_anchor(), text)).scores[0] for text in (POLITE, RUDE)]
    shipped = tone()
    assert polite.score == pytest.approx(1 + 4 * placed(0.0, shipped.centre, shipped.spread))
    assert rude.score == pytest.approx(1 + 4 * placed(-9.0, shipped.centre, shipped.spread))
    assert polite.findings == []
    assert [(f.item, f.nats) for f in rude.findings] == [(SNEER, -9.0)]
    assert "1 of 3 sentences lean to the worst anchor" in rude.explanation and SNEER in rude.explanation
    assert rude.explanation.startswith("Respectful tone states no checks and asks about tone")


async def test_the_text_is_read_after_the_change_and_each_anchor_asked_for():
    backend = by_anchor()
    await evaluate(backend, RUDE)
    read = [r for r in backend.requests if r.score_text is not None]
    assert len(read) == 2 and all(r.score_text == RUDE for r in read)
    asks = sorted(r.messages[-1].content for r in read)
    assert all(ask.startswith(f"Change:\n{CHANGE}\n\n") for ask in asks)
    assert [ask.rsplit("must be like this: ", 1)[1] for ask in asks] == sorted([BEST, WORST])


async def test_a_backend_that_cannot_score_a_given_text_keeps_the_plain_readout():
    backend = ScriptedBackend(default=lambda request: DIGIT, probabilities=True)
    score = (await evaluate(backend, RUDE)).scores[0]
    assert score.score == pytest.approx(4.1) and not score.findings
    assert "lean" not in score.explanation and "states no checks" not in score.explanation


async def test_a_text_longer_than_the_reading_decodes_keeps_the_plain_readout():
    backend = by_anchor()
    long = RUDE + " " + "Consider a docstring. " * (tone().max_chars // 20)
    score = (await evaluate(backend, long)).scores[0]
    assert score.score == pytest.approx(4.1) and all(r.score_text is None for r in backend.requests)


async def test_feedback_quotes_the_sentences_and_names_both_anchors():
    result = await evaluate(by_anchor(), RUDE)
    feedback = feedback_for(result, parse_rubric(RUBRIC, origin="test"))["respectful_tone"]
    assert f"“{SNEER}”" in feedback and f'"{WORST}"' in feedback and f'"{BEST}"' in feedback


def test_metrics_about_tone_with_two_anchors_are_read_that_way_and_others_are_not():
    assert checks_for(metric()) == Checks(
        kind="anchors", centre=tone().centre, spread=tone().spread, sentence_cut=tone().sentence_cut
    )
    assert checks_for(metric(name="Courtesy", id="courtesy", description="Is the reply polite?")) is not None
    assert checks_for(metric(levels={"1": "x", "5": "x"})) is None  # no two anchors to read between
    assert checks_for(metric(id="clarity", name="Clarity", description="Is it easy to follow?")) is None
    assert checks_for(metric(question="Is the comment collegial?")) is None  # the author chose a reading


def test_anchors_checks_need_centre_and_spread_and_take_no_turns():
    with pytest.raises(ValidationError, match="need centre and spread"):
        Checks(kind="anchors")
    with pytest.raises(ValidationError, match="take no turns"):
        Checks(kind="anchors", centre=-5.0, spread=1.0, turns=3)
    assert Checks(kind="anchors", centre=-5.0, spread=1.0, sentence_cut=-2.0).kind == "anchors"
