"""judge_rag_answer reads completeness as whether the answer states everything the judge's own answer says
(tools/rag/coverage.py). The scripted model answers by the prompt it is sent; the tests assert on the prompts and
on the dimension that comes back."""

from __future__ import annotations

from gavel.tools.engine.backend import ChatRequest
from gavel.tools.rag import (
    AgentAnswer,
    JudgeRagAnswerRequest,
    JudgeRagAnswersRequest,
    Passage,
    judge_rag_answer,
    judge_rag_answers,
)
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import Rubric
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, yes_no

PASSAGE = "Jane Austen wrote Pride and Prejudice. It was first published in 1813."
QUESTION = "Who wrote Pride and Prejudice, and when was it published?"
OWN_SYSTEM = "Answer the question from the document in a few words."
COMPLETE = "Jane Austen wrote it, and it was published in 1813 [1]."
PARTIAL = "Jane Austen wrote Pride and Prejudice [1]."


def covers(request: ChatRequest) -> bool:
    return "Does the document state everything the claim says?" in request.messages[-1].content


def model(own: str = "Jane Austen, 1813") -> ScriptedBackend:
    def reply(request: ChatRequest):
        if request.messages[0].content == OWN_SYSTEM:
            return own
        if covers(request):  # the judged answer is the document: does it state the year?
            return yes_no(0.9 if "1813" in request.messages[-1].content.split("Claim:")[0] else 0.2)
        return yes_no(0.9)

    return ScriptedBackend(default=reply, probabilities=True)


async def judge(backend: ScriptedBackend, answer: str):
    request = JudgeRagAnswerRequest(question=QUESTION, answer=answer, sources=[Passage(content=PASSAGE)])
    return await judge_rag_answer(request, make_deps(backend))


async def test_the_answer_is_the_document_the_question_shown_and_the_own_answer_the_claim_in_a_slot_apart():
    backend = model()
    result = await judge(backend, PARTIAL)
    (check,) = [r for r in backend.requests if covers(r)]
    user = check.messages[-1].content
    # The question sits between the two, so the model weighs what it asks over a detail the own answer adds.
    assert user.startswith(
        f"Document:\n<<<\n{PARTIAL}\n>>>\n\nQuestion: {QUESTION}\n\nClaim:\n<<<\nJane Austen, 1813\n>>>"
    )
    assert PASSAGE not in user and check.purpose == "apart" and check.max_tokens == 1
    assert backend.requests[-1] is check  # after every check that shares the passages' prefix
    assert result.completeness.score == 0.2
    assert "everything the judge's own answer from the passages says (“Jane Austen, 1813”)" in (
        result.completeness.explanation
    )


async def test_the_explanation_quotes_a_long_own_answer_whole():
    own = "Jane Austen wrote Pride and Prejudice, a novel of manners first published in 1813 by Thomas Egerton, " + (
        "who also published Sense and Sensibility."
    )
    assert 120 < len(own) <= 200
    result = await judge(model(own=own), COMPLETE)
    assert f"(“{own}”)" in result.completeness.explanation


async def test_what_the_answer_misses_is_named_as_a_finding_only_when_it_more_likely_misses_it():
    partial, complete = await judge(model(), PARTIAL), await judge(model(), COMPLETE)
    assert [(f.item, f.p_mistake) for f in partial.completeness.findings or []] == [("Jane Austen, 1813", 0.8)]
    assert complete.completeness.score == 0.9 and complete.completeness.findings is None


async def test_a_complete_answer_outranks_a_partial_one_whatever_their_order():
    answers = [AgentAnswer(agent_name="partial", answer=PARTIAL), AgentAnswer(agent_name="complete", answer=COMPLETE)]
    request = JudgeRagAnswersRequest(question=QUESTION, answers=answers, sources=[Passage(content=PASSAGE)])
    result = await judge_rag_answers(request, make_deps(model()))
    assert [r.agent_name for r in result.results] == ["complete", "partial"]
    assert all(r.verdict == "approved" for r in result.results)  # the verdict follows the claims, not completeness


async def test_without_an_own_answer_the_dimension_question_is_asked_as_before():
    backend = model(own="")
    result = await judge(backend, PARTIAL)
    assert not any(covers(r) for r in backend.requests)
    asked = [r.messages[-1].content for r in backend.requests if "Metric: Completeness." in r.messages[-1].content]
    assert len(asked) == 1 and asked[0].startswith("Document:\n<<<\n[1]\n" + PASSAGE)
    assert result.completeness.score == 0.9 and result.completeness.status == "scored"


def lukewarm_about(answer: str) -> ScriptedBackend:
    """`model()`, except that the whole-answer dimensions read `answer` lukewarm (0.45): supported and approved,
    but relevance, attribution and coherence put its overall just under the partial answer's."""
    base = model()

    def reply(request: ChatRequest):
        user = request.messages[-1].content
        if "Metric:" in user and answer in user and not covers(request):
            return yes_no(0.45)
        return base.default(request)

    return ScriptedBackend(default=reply, probabilities=True)


async def test_among_answers_of_one_verdict_the_complete_one_ranks_first_though_its_overall_is_lower():
    answers = [AgentAnswer(agent_name="partial", answer=PARTIAL), AgentAnswer(agent_name="complete", answer=COMPLETE)]
    request = JudgeRagAnswersRequest(question=QUESTION, answers=answers, sources=[Passage(content=PASSAGE)])
    result = await judge_rag_answers(request, make_deps(lukewarm_about(COMPLETE)))
    complete, partial = result.results
    assert (complete.agent_name, partial.agent_name) == ("complete", "partial")
    assert complete.verdict == partial.verdict == "approved" and result.best == "complete"
    assert (complete.overall_score or 0) < (partial.overall_score or 0)  # the overall itself is left as it is
    assert (complete.completeness.score, partial.completeness.score) == (0.9, 0.2)


async def test_a_rubric_that_does_not_weigh_completeness_ranks_by_the_overall_alone():
    shipped = RubricRegistry.load().get("rag-answer").model_dump()
    metrics = [{**m, "weight": 0.0} if m["id"] == "completeness" else m for m in shipped["metrics"]]
    rubric = Rubric.model_validate({**shipped, "id": "rag-unweighted-completeness", "metrics": metrics})
    answers = [AgentAnswer(agent_name="partial", answer=PARTIAL), AgentAnswer(agent_name="complete", answer=COMPLETE)]
    request = JudgeRagAnswersRequest(
        question=QUESTION, answers=answers, sources=[Passage(content=PASSAGE)], custom_rubric=rubric
    )
    result = await judge_rag_answers(request, make_deps(lukewarm_about(COMPLETE)))
    assert [r.agent_name for r in result.results] == ["partial", "complete"]
