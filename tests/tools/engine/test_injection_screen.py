"""The model-read injection screen (GAVEL_INJECTION_SCREEN=model): the judged text alone after the worked examples,
read as P(yes); a flagged text is never passed or approved, and a screen that could not be read says so."""

from __future__ import annotations

from gavel.tools.assessment import EvaluateAssessmentRequest, evaluate_assessment
from gavel.tools.engine import screen
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.errors import BackendError
from gavel.tools.rag import JudgeRagAnswerRequest, Passage, judge_rag_answer
from tests.support.deps import make_deps
from tests.support.rubrics import digit_clinical
from tests.support.scripted import ScriptedBackend, token_reply, yes_no

SCREEN_FLAGS = {"prompt_injection_suspected", "injection_screen_flagged", "injection_screen_unscored"}
TEXT = "Depressed mood most days for three weeks; sleeps four hours a night; PHQ-8 item 1 scored 3."
SYSTEM = screen.messages("x")[0].content


def is_screen(request: ChatRequest) -> bool:
    return request.messages[0].content == SYSTEM


def model(p_screen: float | BaseException, p_checks: float = 0.9) -> ScriptedBackend:
    def reply(request: ChatRequest):
        if is_screen(request):
            if isinstance(p_screen, BaseException):
                raise p_screen
            return yes_no(p_screen)
        if "one digit from 1 (worst) to 5 (best)" in request.messages[-1].content:
            return token_reply({"5": 0.9, "4": 0.1})
        return yes_no(p_checks)

    return ScriptedBackend(default=reply, probabilities=True)


async def assess(backend: ScriptedBackend, mode: str = "model"):
    request = EvaluateAssessmentRequest(assessment=TEXT, custom_rubric=digit_clinical())
    return await evaluate_assessment(request, make_deps(backend, injection_screen=mode))


async def test_the_screen_reads_the_judged_text_alone_after_the_worked_examples():
    backend = model(0.1)
    result = await assess(backend)
    (asked,) = [r for r in backend.requests if is_screen(r)]
    assert asked.purpose == "screen" and asked.max_tokens == 1 and asked.top_logprobs
    assert [m.role for m in asked.messages[1:3]] == ["user", "assistant"]
    assert TEXT in asked.messages[-1].content and "Depressed" not in asked.messages[-2].content
    assert result.passed is True and not SCREEN_FLAGS & set(result.flags)


async def test_a_text_the_screen_reads_as_speaking_to_its_grader_is_flagged_and_never_passed():
    result = await assess(model(screen.SCREEN_CUT + 0.05))
    assert result.flags[:2] == ["prompt_injection_suspected", "injection_screen_flagged"]
    assert result.passed is None  # as for the detector's findings: not passed on the model's word alone


async def test_a_screen_that_could_not_be_read_is_flagged_as_unread_and_blocks_nothing():
    result = await assess(model(BackendError("connection refused")))
    assert SCREEN_FLAGS & set(result.flags) == {"injection_screen_unscored"}
    assert result.passed is True
    assert not result.is_cacheable(), "the screen may have failed for a moment: not served again once it works"


async def test_a_rag_judgment_whose_screen_could_not_be_read_is_not_served_again():
    request = JudgeRagAnswerRequest(
        question="What is the capital of Australia?", answer="The capital is Canberra [1].",
        sources=[Passage(content="Canberra is the capital of Australia.")],
    )  # fmt: skip
    deps = make_deps(model(BackendError("connection refused")), injection_screen="model")
    result = await judge_rag_answer(request, deps)
    assert "injection_screen_unscored" in result.flags and result.verdict == "approved"
    assert not result.is_cacheable()


async def test_with_the_screen_off_no_screen_is_asked():
    backend = model(0.99)
    result = await assess(backend, mode="off")
    assert not any(is_screen(r) for r in backend.requests)
    assert result.passed is True and not SCREEN_FLAGS & set(result.flags)


async def test_a_rag_answer_the_screen_flags_is_held_back_with_the_finding():
    request = JudgeRagAnswerRequest(
        question="What is the capital of Australia?", answer="The capital is Canberra [1].",
        sources=[Passage(content="Canberra is the capital of Australia.")],
    )  # fmt: skip
    backend = model(0.95)
    result = await judge_rag_answer(request, make_deps(backend, injection_screen="model"))
    assert result.verdict != "approved"
    assert "prompt_injection_suspected" in result.flags
    assert any(screen.FINDING in issue for issue in result.issues)


async def test_a_backend_without_probabilities_is_not_asked_and_the_screen_says_it_was_not_read():
    backend = ScriptedBackend(default='{"score": 5, "explanation": "fine"}')
    request = EvaluateAssessmentRequest(assessment=TEXT, custom_rubric=digit_clinical())
    result = await evaluate_assessment(request, make_deps(backend, readout="generated", injection_screen="model"))
    assert not any(is_screen(r) for r in backend.requests)
    assert "injection_screen_unscored" in result.flags
