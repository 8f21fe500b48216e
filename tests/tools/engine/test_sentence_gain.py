"""A likelihood reading told apart by sentence (`sentence_gains`), and the sentences under a rubric's cut named
as the metric's findings, which refine's feedback quotes. The scripted model scores each sentence of the given
text as one token, by the prompt it follows."""

from __future__ import annotations

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine.backend import ChatReply, ChatRequest
from gavel.tools.engine.sentence_gain import SentenceGain, sentence_gains
from gavel.tools.revision import feedback_for
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, yes_no

CLINICAL = RubricRegistry.load().get("clinical-assessment")
SOURCE = "Interviewer: How are you sleeping?\nPatient: Since March I sleep four hours a night."
VAGUE = "Mood is low."
CONCRETE = "Since March she sleeps four hours a night."
WITHOUT = "(no transcript)"


def test_each_sentence_gets_the_nats_of_the_tokens_that_end_in_it():
    text = "Mood is low. Sleeps 4 h.\nDenies guilt."
    # Tokens: "Mood is low." " Sleeps 4 h." "\n" "Denies guilt." (the line break belongs to no sentence)
    ends = (12, 24, 25, 38)
    gains = sentence_gains(text, ends, after=(-5.0, -6.0, -1.0, -3.0), without=(-6.0, -30.0, -9.0, -3.5))
    assert gains == [
        SentenceGain("Mood is low.", 1.0),
        SentenceGain("Sleeps 4 h.", 24.0),
        SentenceGain("Denies guilt.", 0.5),
    ]


def test_readings_that_do_not_line_up_with_the_text_are_not_told_apart():
    assert sentence_gains("Mood is low.", (12,), after=(-1.0,), without=()) is None
    assert sentence_gains("Mood is low.", (11,), after=(-1.0,), without=(-2.0,)) is None  # not the whole text
    assert sentence_gains("Ça va.", (7,), after=(-1.0,), without=(-2.0,)) == [SentenceGain("Ça va.", 1.0)]  # bytes


def by_sentence(after: dict[str, float], without: dict[str, float], ends: bool = True):
    """Each sentence of the given text one token: `after` nats after the transcript, `without` with it left out."""

    def reply(request: ChatRequest) -> ChatReply:
        if request.score_text is None:
            return yes_no(0.9)
        text, table = request.score_text, without if request.messages[-1].content == WITHOUT else after
        sentences = [VAGUE, CONCRETE] if text == f"{VAGUE} {CONCRETE}" else [text]
        offsets = (len(VAGUE.encode()), len(text.encode())) if len(sentences) == 2 else (len(text.encode()),)
        return ChatReply(
            text="", model="", text_logprobs=tuple(table[s] for s in sentences), text_ends=offsets if ends else ()
        )

    return ScriptedBackend(default=reply, probabilities=True)


async def specificity(backend: ScriptedBackend):
    request = EvaluateAssessmentRequest(assessment=f"{VAGUE} {CONCRETE}", source=SOURCE, metrics=["specificity"])
    return await evaluate_assessment(request, make_deps(backend))


async def test_sentences_the_source_explains_least_are_the_findings_and_the_feedback_quotes_them():
    backend = by_sentence(after={VAGUE: -10.0, CONCRETE: -20.0}, without={VAGUE: -12.0, CONCRETE: -40.0})
    result = await specificity(backend)
    (score,) = result.scores
    assert [(f.item, f.nats, f.p_mistake) for f in score.findings or []] == [(VAGUE, 2.0, None)]
    assert "+22.0 nats" in score.explanation and "under 13 nats: “Mood is low.” (+2.0 nats)" in score.explanation
    assert result.low_metrics == ["specificity"]
    assert "- “Mood is low.”" in feedback_for(result, CLINICAL)["specificity"]
    assert "- specificity: “Mood is low.” (+2.0 nats)" in result.render_text()


async def test_without_token_offsets_the_metric_is_scored_alike_and_names_no_sentence():
    tables = {"after": {VAGUE: -10.0, CONCRETE: -20.0}, "without": {VAGUE: -12.0, CONCRETE: -40.0}}
    told = (await specificity(by_sentence(**tables))).scores[0]
    untold = (await specificity(by_sentence(**tables, ends=False))).scores[0]
    assert untold.score == told.score and untold.findings is None and "under 13 nats" not in untold.explanation
