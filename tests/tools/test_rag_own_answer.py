"""judge_rag_answer asks the judge's own answer to the question first, from the passages alone, and shows it with
every claim it checks. The scripted model answers by the prompt it is sent; the tests assert on the prompts."""

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
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, backend_error, yes_no

PASSAGE = "Canberra is the capital of Australia. Sydney is its largest city."
QUESTION = "What is the capital of Australia?"
OWN = "Answer the question from the document in a few words."
HINT = "Answer found in the document: Canberra"


def is_own(request: ChatRequest) -> bool:
    return request.messages[0].content == OWN


def claim_checks(backend: ScriptedBackend) -> list[str]:
    users = [r.messages[-1].content for r in backend.requests]
    return [u for u in users if "Is every part of the claim" in u]


def model(own: object = "Canberra\nIt is the seat of government.") -> ScriptedBackend:
    def reply(request: ChatRequest):
        if is_own(request):
            if isinstance(own, BaseException):
                raise own
            return own
        return yes_no(0.2 if "Sydney" in request.messages[-1].content.rsplit("<<<", 1)[1] else 0.9)

    return ScriptedBackend(default=reply, probabilities=True)


async def judge(backend: ScriptedBackend, answer: str):
    request = JudgeRagAnswerRequest(question=QUESTION, answer=answer, sources=[Passage(content=PASSAGE)])
    return await judge_rag_answer(request, make_deps(backend))


async def test_the_own_answer_sees_the_passages_and_question_never_the_judged_answer():
    backend = model()
    result = await judge(backend, "The capital is Canberra [1].")
    (own,) = [r for r in backend.requests if is_own(r)]
    user = own.messages[-1].content
    assert PASSAGE in user and QUESTION in user and "The capital is Canberra" not in user
    assert own.top_logprobs is None and own.temperature == 0.0
    assert result.verdict == "approved"
    assert "the judge's own answer from the passages: “Canberra”" in result.reasoning


async def test_every_claim_is_checked_with_the_first_line_of_the_own_answer_after_the_question():
    backend = model()
    await judge(backend, "The capital is Canberra [1]. Sydney is the capital.")
    checks = [
        r.messages[-1].content
        for r in backend.requests
        if "Is every part of the claim" in r.messages[-1].content and "Document:" in r.messages[-1].content
    ]
    assert len(checks) == 2
    assert all(f"Question: {QUESTION}\n\n{HINT}\n\nIs every part" in c for c in checks)
    assert not any("seat of government" in c for c in checks)


async def test_a_batch_asks_the_own_answer_once():
    backend = model()
    answers = [AgentAnswer(agent_name=f"a{i}", answer=f"The capital is Canberra, answer {i} [1].") for i in range(3)]
    request = JudgeRagAnswersRequest(question=QUESTION, answers=answers, sources=[Passage(content=PASSAGE)])
    result = await judge_rag_answers(request, make_deps(backend))
    assert len([r for r in backend.requests if is_own(r)]) == 1
    assert sum(r.usage.llm_calls for r in result.results) == len(backend.requests)


async def test_a_failed_own_answer_leaves_the_claims_checked_against_the_passages_alone():
    backend = model(own=backend_error("the model is gone"))
    result = await judge(backend, "Sydney is the capital [1].")
    checks = [
        r.messages[-1].content for r in backend.requests if "Is every part of the claim" in r.messages[-1].content
    ]
    assert checks and not any("Answer found in the document" in c for c in checks)
    assert result.verdict == "rejected"
    assert "checked against the passages alone" in result.reasoning
    assert "the model is gone" in result.reasoning
    # Read another way than usual, perhaps only this time: said, and not served again from the ledger.
    assert len(result.fallbacks) == 1 and "the model is gone" in result.fallbacks[0]
    assert "read another way:" in result.render_text() and not result.is_cacheable()


async def test_an_empty_own_answer_is_no_hint():
    backend = model(own="  \n ")
    result = await judge(backend, "The capital is Canberra [1].")
    assert "the model gave no answer" in result.reasoning
    assert result.verdict == "approved"


async def test_the_text_a_client_reads_names_the_judges_own_answer():
    result = await judge(model(), "It is Sydney [1].")
    card = result.render_text()
    assert "grounding: " in card and "the judge's own answer from the passages: “Canberra”" in card
