"""judge_rag_answer with a reference answer: answer correctness (the answer's claims against the reference) and
context recall (the reference's claims against the passages), each read per sentence as P(yes).

The scripted model answers each check by the document it is shown and the claim judged in it, never by the
prompt's wording.
"""

from __future__ import annotations

import pytest

from gavel.tools.engine.backend import ChatRequest
from gavel.tools.errors import InvalidInput
from gavel.tools.rag import (
    AgentAnswer,
    JudgeRagAnswerRequest,
    JudgeRagAnswersRequest,
    Passage,
    judge_rag_answer,
    judge_rag_answers,
)
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, token_reply, yes_no
from tests.tools.test_rag import ModelInfoFailsOnce
from tests.tools.test_rag_sentence_support import MIXED, PASSAGE, QUESTION, claim_of

REFERENCE = "The tower was finished in 1889. It served as the entrance arch to the World's Fair."
RIGHT = "It was completed in 1889 [1]."


def document_of(request: ChatRequest) -> str:
    user = request.messages[-1].content
    return user.split("Document:\n<<<\n", 1)[1].split("\n>>>", 1)[0] if "Document:\n<<<\n" in user else ""


def model(rules: dict[tuple[str, str], float], default: float = 0.9) -> ScriptedBackend:
    """P(yes) by (text in the document, text in the judged claim); `default` for every other check."""

    def reply(request: ChatRequest):
        document, claim = document_of(request), claim_of(request)
        return yes_no(next((p for (d, c), p in rules.items() if d in document and c in claim), default))

    return ScriptedBackend(default=reply, probabilities=True)


def request(answer: str = MIXED, reference: str | None = REFERENCE, **fields) -> JudgeRagAnswerRequest:
    return JudgeRagAnswerRequest(
        question=QUESTION, answer=answer, sources=[Passage(content=PASSAGE)], reference_answer=reference, **fields
    )


def is_reference_check(request: ChatRequest, document: str) -> bool:
    return document_of(request).startswith(document) and "Is every part of the claim supported" in (
        request.messages[-1].content
    )


async def test_the_weakest_claim_against_the_reference_decides_correctness_and_is_quoted():
    result = await judge_rag_answer(request(), make_deps(model({(REFERENCE, "radio mast"): 0.1})))
    figure = result.answer_correctness
    assert figure is not None and figure.score == pytest.approx(0.1)
    assert figure.unsupported == ["It was built as a radio mast for the army."]
    assert [s.sentence for s in figure.sentences] == [
        "It was completed in 1889 [1].",
        "It was built as a radio mast for the army.",
    ]
    assert "1 of 2 claims supported" in figure.explanation


async def test_context_recall_is_the_mean_p_over_the_references_claims_against_the_passages():
    backend = model({("[1]\n" + PASSAGE, "finished in 1889"): 0.9, ("[1]\n" + PASSAGE, "entrance arch"): 0.3})
    result = await judge_rag_answer(request(), make_deps(backend))
    figure = result.context_recall
    assert figure is not None and figure.score == pytest.approx(0.6)
    assert [s.sentence for s in figure.sentences] == REFERENCE.replace(". It", ".\nIt").splitlines()
    assert figure.unsupported == ["It served as the entrance arch to the World's Fair."]


async def test_the_figures_inform_and_never_change_the_verdict():
    rules = {(REFERENCE, "1889"): 0.05, (REFERENCE, "radio mast"): 0.05}
    with_reference = await judge_rag_answer(request(RIGHT), make_deps(model(rules)))
    without = await judge_rag_answer(request(RIGHT, reference=None), make_deps(model(rules)))
    assert with_reference.answer_correctness is not None and with_reference.answer_correctness.score < 0.1
    assert (with_reference.verdict, with_reference.overall_score) == (without.verdict, without.overall_score)
    assert with_reference.verdict == "approved"


async def test_without_a_reference_the_figures_are_null_and_nothing_more_is_asked():
    backend = model({})
    result = await judge_rag_answer(request(RIGHT, reference=None), make_deps(backend))
    assert (result.answer_correctness, result.context_recall) == (None, None)
    # four dimensions, the judge's own answer and one sentence (twice: without the passages too), as with no
    # reference asked for
    assert result.usage.llm_calls == 7


async def test_a_reference_adds_one_check_per_claim_counted_in_the_usage():
    backend = model({})
    result = await judge_rag_answer(request(RIGHT), make_deps(backend))
    assert result.usage.llm_calls == 7 + 1 + 2  # the answer's claim against the reference, the reference's two
    assert sum(is_reference_check(r, REFERENCE) for r in backend.requests) == 1


async def test_correctness_asks_after_the_claim_and_recall_before_it_as_grounding_does():
    # Against a reference of a few words the question after the claim separated better (bench.reference_layout).
    backend = model({})
    await judge_rag_answer(request(RIGHT), make_deps(backend))
    (correctness,) = [r.messages[-1].content for r in backend.requests if is_reference_check(r, REFERENCE)]
    against_passages = [r.messages[-1].content for r in backend.requests if is_reference_check(r, "[1]\n" + PASSAGE)]
    assert correctness.index(RIGHT) < correctness.index("Is every part of the claim supported")
    assert any("entrance arch" in u for u in against_passages)  # the reference's claims, for recall
    assert all(u.index("Is every part of the claim supported") < u.rindex("<<<") for u in against_passages)


async def test_a_claim_without_yes_or_no_tokens_leaves_the_figure_unscored_with_its_reason():
    def reply(request: ChatRequest):
        if document_of(request) == REFERENCE:
            return token_reply({"The": 0.9, "It": 0.1})
        return yes_no(0.9)

    result = await judge_rag_answer(request(RIGHT), make_deps(ScriptedBackend(default=reply, probabilities=True)))
    figure = result.answer_correctness
    assert figure is not None and figure.score is None
    assert figure.reason_code == "answer_tokens_missing" and "claim 1 of 1 was not scored" in (figure.reason or "")
    assert result.context_recall is not None and result.context_recall.score is not None
    assert not result.is_cacheable()


async def test_a_generated_readout_leaves_both_figures_null_with_the_reason():
    backend = ScriptedBackend(default=lambda request: "not json", probabilities=True)
    result = await judge_rag_answer(request(RIGHT), make_deps(backend, readout="generated"))
    for figure in (result.answer_correctness, result.context_recall):
        assert figure is not None and figure.score is None and figure.reason_code == "no_logprobs"


async def test_without_passages_recall_is_null_and_correctness_is_still_read():
    bare = JudgeRagAnswerRequest(question=QUESTION, answer=RIGHT, reference_answer=REFERENCE,
                                 evaluation_context="DIAGNOSTIC")  # fmt: skip
    result = await judge_rag_answer(bare, make_deps(model({})))
    assert result.context_recall is not None and result.context_recall.reason_code == "source_missing"
    assert result.answer_correctness is not None and result.answer_correctness.score == pytest.approx(0.9)


async def test_an_empty_reference_is_refused_before_any_model_call():
    backend = model({})
    with pytest.raises(InvalidInput) as caught:
        await judge_rag_answer(request(reference="  "), make_deps(backend))
    assert caught.value.field == "reference_answer"
    assert backend.requests == []


async def test_a_batch_asks_recall_once_and_reads_each_answers_correctness():
    backend = model({(REFERENCE, "radio mast"): 0.1})
    batch = JudgeRagAnswersRequest(
        question=QUESTION, sources=[Passage(content=PASSAGE)], reference_answer=REFERENCE,
        answers=[AgentAnswer(agent_name="right", answer=RIGHT), AgentAnswer(agent_name="mixed", answer=MIXED)],
    )  # fmt: skip
    result = await judge_rag_answers(batch, make_deps(backend))
    by_name = {r.agent_name: r for r in result.results}
    assert by_name["right"].answer_correctness.score == pytest.approx(0.9)  # type: ignore[union-attr]
    assert by_name["mixed"].answer_correctness.score == pytest.approx(0.1)  # type: ignore[union-attr]
    recall_checks = [r for r in backend.requests if "finished in 1889" in claim_of(r)]
    assert len(recall_checks) == 1
    assert by_name["right"].context_recall == by_name["mixed"].context_recall is not None
    assert "correctness" in result.render_text() and "context_recall" in result.render_text()


async def test_the_card_shows_both_figures_and_says_they_inform_only():
    result = await judge_rag_answer(request(), make_deps(model({(REFERENCE, "radio mast"): 0.1})))
    text = result.render_text()
    assert "answer_correctness (vs the reference, informs only): 0.1 — " in text
    assert "unsupported: “It was built as a radio mast for the army.”" in text
    assert "context_recall (vs the reference, informs only): 0.9 — " in text


async def test_a_batch_answer_that_could_not_be_judged_keeps_an_unscored_correctness_with_the_reason():
    backend = ModelInfoFailsOnce(default=lambda request: "not json")
    batch = JudgeRagAnswersRequest(
        question=QUESTION, sources=[Passage(content=PASSAGE)], reference_answer=REFERENCE,
        answers=[AgentAnswer(agent_name="right", answer=RIGHT), AgentAnswer(agent_name="mixed", answer=MIXED)],
    )  # fmt: skip
    result = await judge_rag_answers(batch, make_deps(backend, readout="generated"))
    (failed,) = [r for r in result.results if r.error]
    assert failed.answer_correctness is not None and failed.answer_correctness.score is None
    assert failed.answer_correctness.reason_code == "backend_error"
    assert failed.context_recall is not None and failed.context_recall.reason_code == "no_logprobs"
