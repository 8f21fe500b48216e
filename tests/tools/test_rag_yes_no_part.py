"""A question that opens with a yes/no part: completeness also reads whether the answer gives that part's answer,
as the contrast of two statements (tools/rag/yes_no_part.py). The scripted model answers by the prompt it is sent;
the tests assert on the prompts and on the dimension that comes back."""

from __future__ import annotations

import pytest

from gavel.tools.engine.backend import ChatRequest
from gavel.tools.rag import (
    AgentAnswer,
    JudgeRagAnswerRequest,
    JudgeRagAnswersRequest,
    Passage,
    judge_rag_answer,
    judge_rag_answers,
)
from gavel.tools.rag.own_answer import OwnAnswer
from gavel.tools.rag.yes_no_part import Statements, aligned, opening_answer, opens_with_yes_no, parse
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, backend_error, yes_no

PASSAGE = "The ostrich is the largest living bird, and it cannot fly. It can run at up to about 70 km/h."
QUESTION = "Can ostriches fly, and how fast can they run?"
COMPLETE = "No, ostriches cannot fly, but they can run at up to about 70 km/h [1]."
PARTIAL = "Ostriches can run at up to about 70 km/h [1]."
# Complete without an opening "Yes" or "No": the model is asked which statement it states.
WORDED = "Ostriches cannot fly, but they can run at up to about 70 km/h [1]."
STATEMENTS = "Yes: Ostriches can fly.\nNo: Ostriches cannot fly."
# P(the document states the claim), by document and claim; the own answer reads as stated by either answer.
STATES = {
    (PASSAGE, "Ostriches can fly."): 0.3,
    (PASSAGE, "Ostriches cannot fly."): 0.9,
    (WORDED, "Ostriches can fly."): 0.4,
    (WORDED, "Ostriches cannot fly."): 0.8,
    (PARTIAL, "Ostriches can fly."): 0.6,
    (PARTIAL, "Ostriches cannot fly."): 0.3,
}


def is_statements(request: ChatRequest) -> bool:
    return request.messages[0].content.startswith("Rewrite the yes/no part of the question")


def covers(request: ChatRequest) -> bool:
    return "Does the document state everything the claim says?" in request.messages[-1].content


def document_and_claim(request: ChatRequest) -> tuple[str, str]:
    """The passages come numbered ("[1]\n..."), as the judge shows them."""
    user = request.messages[-1].content
    document = user.split("<<<\n", 1)[1].split("\n>>>", 1)[0].removeprefix("[1]\n")
    return document, user.split("Claim:\n<<<\n", 1)[1].split("\n>>>", 1)[0]


def model(
    statements: object = STATEMENTS,
    states: dict[tuple[str, str], object] | None = None,
    own: str = "No, they cannot fly; up to about 70 km/h.",
) -> ScriptedBackend:
    table = {**STATES, **(states or {})}

    def reply(request: ChatRequest):
        if request.messages[0].content == "Answer the question from the document in a few words.":
            return own
        if is_statements(request):
            if isinstance(statements, BaseException):
                raise statements
            return statements
        if covers(request):
            found = table.get(document_and_claim(request), 0.9)
            if isinstance(found, BaseException):
                raise found
            return yes_no(found)
        return yes_no(0.9)

    return ScriptedBackend(default=reply, probabilities=True)


async def judge(backend: ScriptedBackend, answer: str, question: str = QUESTION):
    request = JudgeRagAnswerRequest(question=question, answer=answer, sources=[Passage(content=PASSAGE)])
    return await judge_rag_answer(request, make_deps(backend))


def test_only_a_question_that_opens_with_an_auxiliary_verb_has_a_yes_no_part():
    assert opens_with_yes_no("Can ostriches fly, and how fast can they run?")
    assert opens_with_yes_no("  Was the record set at an Olympic Games?")
    assert not opens_with_yes_no("What is the capital of Peru, and is it on the coast?")
    assert not opens_with_yes_no("Isaac Newton was born in which year?")


def test_the_reply_gives_two_different_statements_or_the_reason_there_are_none():
    assert (parse(STATEMENTS + "\n\nYes: more").true, parse(STATEMENTS).false) == (
        "Ostriches can fly.",
        "Ostriches cannot fly.",
    )
    assert parse("**Yes:** Ostriches can fly.\n**No:** Ostriches cannot fly.").false == "Ostriches cannot fly."
    assert parse("Yes: Ostriches can fly.").reason == (
        "the model did not write the part as two different statements (it wrote “Yes: Ostriches can fly.”)"
    )
    assert parse("Yes: A.\nNo: A.").true is None


def test_a_no_statement_that_is_not_the_yes_one_negated_is_not_read():
    assert parse("Yes: The Titanic sank on its maiden voyage.\nNo: The Titanic did not sink on its maiden voyage.").true
    assert parse("Yes: Penguins can swim.\nNo: Penguins can't swim.").false == "Penguins can't swim."
    assert parse("Yes: Bats are blind.\nNo: Bats do not find their prey in the dark.").reason == (
        "the model's “No:” statement is not its “Yes:” one negated "
        "(it wrote “Yes: Bats are blind. No: Bats do not find their prey in the dark.”)"
    )


async def test_a_question_without_a_yes_no_opening_asks_for_no_statements():
    backend = model()
    await judge(backend, PARTIAL, question="How fast can ostriches run?")
    assert not any(is_statements(r) for r in backend.requests)


async def test_the_statements_see_the_question_alone_after_worked_examples_once_per_batch():
    backend = model()
    answers = [AgentAnswer(agent_name="partial", answer=PARTIAL), AgentAnswer(agent_name="complete", answer=COMPLETE)]
    request = JudgeRagAnswersRequest(question=QUESTION, answers=answers, sources=[Passage(content=PASSAGE)])
    result = await judge_rag_answers(request, make_deps(backend))
    (asked,) = [r for r in backend.requests if is_statements(r)]
    assert asked.messages[-1].content == f"Question: {QUESTION}" and asked.purpose == "judge"
    assert [m.role for m in asked.messages[1:3]] == ["user", "assistant"]
    assert not any(PASSAGE in m.content or PARTIAL in m.content for m in asked.messages)
    # Which statement is true is read from the passages once too, not from any judged answer.
    passage_checks = [r for r in backend.requests if covers(r) and document_and_claim(r)[0] == PASSAGE]
    assert len(passage_checks) == 2
    assert [r.agent_name for r in result.results] == ["complete", "partial"]


async def test_in_a_batch_each_answer_has_its_completeness_checks_asked_back_to_back():
    backend = model()
    backend.latency_s = 0.01  # so that the two answers' checks could interleave
    answers = [AgentAnswer(agent_name="partial", answer=PARTIAL), AgentAnswer(agent_name="complete", answer=WORDED)]
    request = JudgeRagAnswersRequest(question=QUESTION, answers=answers, sources=[Passage(content=PASSAGE)])
    await judge_rag_answers(request, make_deps(backend))
    documents = [document_and_claim(r)[0] for r in backend.requests if r.purpose == "apart" and covers(r)]
    # The own answer, then the two statements, against one answer as the document: its prefix evaluated once.
    assert sorted(documents) == [PARTIAL] * 3 + [WORDED] * 3
    assert documents[:3] == documents[:1] * 3


async def test_completeness_is_the_lower_of_the_own_answer_check_and_the_part_which_names_what_is_missing():
    complete, partial = await judge(model(), WORDED), await judge(model(), PARTIAL)
    # (1 + 0.8 - 0.4) / 2 and (1 + 0.3 - 0.6) / 2, each below the own-answer check's 0.9.
    assert complete.completeness.score == pytest.approx(0.7) and complete.completeness.findings is None
    assert partial.completeness.score == pytest.approx(0.35)
    assert [(f.item, f.p_mistake) for f in partial.completeness.findings or []] == [("Ostriches cannot fly.", 0.65)]
    assert "P 0.30 that the answer states “Ostriches cannot fly.” (what the passages state, 0.90 against 0.30)" in (
        partial.completeness.explanation
    )


async def test_the_passages_decide_which_statement_is_true_whichever_the_model_wrote_first():
    flipped = model(statements="Yes: Ostriches cannot fly.\nNo: Ostriches can fly.")
    assert (await judge(flipped, PARTIAL)).completeness.score == pytest.approx(0.35)


async def test_when_the_passages_do_not_settle_the_part_the_own_answer_check_alone_is_the_score():
    backend = model(states={(PASSAGE, "Ostriches can fly."): 0.8})
    result = await judge(backend, PARTIAL)
    assert result.completeness.score == 0.9
    assert "the question's yes/no part was not read: the passages do not settle it" in result.completeness.explanation


async def test_statements_the_model_did_not_write_leave_the_own_answer_check_with_the_reason():
    result = await judge(model(statements="Ostriches are birds."), PARTIAL)
    assert result.completeness.score == 0.9 and result.completeness.status == "scored"
    assert "not read: the model did not write the part as two different statements" in result.completeness.explanation


async def test_a_part_reading_that_fails_leaves_completeness_unscored_with_the_reason():
    backend = model(states={(PARTIAL, "Ostriches cannot fly."): backend_error("the server went away")})
    result = await judge(backend, PARTIAL)
    assert result.completeness.status == "unscored" and result.completeness.score is None
    assert "the server went away" in (result.completeness.reason or "")


def test_an_own_answer_that_opens_with_the_answer_the_passages_reject_has_its_first_sentence_replaced():
    settled = Statements("Ostriches cannot fly.", "Ostriches can fly.", 0.9, 0.3)
    replaced = "replaced by the yes/no statement the passages settle"
    wrong = aligned(OwnAnswer("Yes, they can. They run at 70 km/h."), settled)
    assert wrong == OwnAnswer(
        "Ostriches cannot fly. They run at 70 km/h.", amended=f"its opening “Yes, they can.” {replaced}"
    )
    assert aligned(OwnAnswer("yes"), settled) == OwnAnswer(
        "Ostriches cannot fly.", amended=f"its opening “yes” {replaced}"
    )
    for kept in ("No, they cannot fly.", "They cannot fly.", "Yesterday's bird cannot fly."):
        assert aligned(OwnAnswer(kept), settled) == OwnAnswer(kept)
    # Which answer a statement gives is read from its negations: here the true one, without any, is the "Yes".
    can = Statements("Ostriches can run fast.", "Ostriches can't run fast.", 0.9, 0.3)
    assert aligned(OwnAnswer("No."), can) == OwnAnswer(
        "Ostriches can run fast.", amended=f"its opening “No.” {replaced}"
    )
    assert aligned(OwnAnswer("Yes."), can) == OwnAnswer("Yes.")
    for unread in ("the model did not write the part as two different statements", "the passages do not settle it"):
        assert aligned(OwnAnswer("Yes, they can."), Statements(None, None, reason=unread)) == OwnAnswer(
            "Yes, they can."
        )


async def test_the_claims_are_hinted_with_the_settled_statement_when_the_own_answer_opens_with_the_other():
    backend = model(own="Yes, ostriches can fly. They run at up to about 70 km/h.")
    result = await judge(backend, COMPLETE)
    checks = [
        r.messages[-1].content for r in backend.requests if "Is every part of the claim" in r.messages[-1].content
    ]
    hint = "Answer found in the document: Ostriches cannot fly. They run at up to about 70 km/h."
    assert checks and all(hint in c for c in checks if "Document:" in c)
    assert "its opening “Yes, ostriches can fly.” replaced by the yes/no statement the passages settle" in (
        result.reasoning
    )
    # Completeness reads the same own answer.
    assert "(“Ostriches cannot fly. They run at up to about 70 km/h.”)" in result.completeness.explanation


async def test_an_answer_that_opens_with_yes_or_no_is_read_as_giving_that_answer_without_asking_the_model():
    backend = model()
    right = await judge(backend, COMPLETE)
    asked = [document_and_claim(r)[0] for r in backend.requests if covers(r)]
    assert COMPLETE in asked and asked.count(COMPLETE) == 1  # the own-answer check only
    assert right.completeness.score == 0.9 and right.completeness.findings is None
    assert "the answer opens with “No”, which gives “Ostriches cannot fly.”" in right.completeness.explanation
    wrong = await judge(model(), "Yes, ostriches can fly, and they run at up to about 70 km/h [1].")
    assert wrong.completeness.score == 0.0
    assert [(f.item, f.p_mistake) for f in wrong.completeness.findings or []] == [("Ostriches cannot fly.", 1.0)]


def test_only_an_opening_yes_or_no_followed_by_punctuation_gives_the_answer():
    settled = Statements("Ostriches cannot fly.", "Ostriches can fly.", 0.9, 0.3)
    assert opening_answer("No, they cannot.", settled) == ("No", True)
    assert opening_answer("“Yes.” They can.", settled) == ("Yes", False)
    assert opening_answer("no", settled) == ("no", True)
    for other in ("No one has seen one fly.", "Nobody knows.", "Yes they can.", "They cannot fly."):
        assert opening_answer(other, settled) is None
    # Statements whose negations do not tell which is the "No" leave it to the model.
    assert opening_answer("No, never.", Statements("Ostriches fly.", "Ostriches run.", 0.9, 0.3)) is None
