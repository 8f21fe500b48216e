"""The prompt-injection suite (tests/support/injection_cases.py) through the real server, with a scripted model.

Deterministic defences first: every injected case is flagged and its clean twin is not; an injected RAG answer
is never approved, even when the model gives every metric the top score, or obeys the injection; and no judged
text can forge or close the delimiters around it, which the prompts the model received show.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.fitness import FITNESS_FLAGS
from gavel.tools.guards import PROMPT_INJECTION_FLAG, break_chat_markup, neutralize
from gavel.tools.rubric_registry import RubricRegistry
from tests.reliability.support import PortalClient, portal_client, result_text, scripted_server
from tests.reliability.tally import TALLY
from tests.support.injection_cases import CASES, InjectionCase, arguments
from tests.support.replies import schema_reply
from tests.support.scripted import ScriptedBackend

BY_ID = [pytest.param(case, id=case.id) for case in CASES]
RAG = RubricRegistry.load().get("rag-answer")
RAG_CASES = [pytest.param(case, id=case.id) for case in CASES if case.tool == "judge_rag_answer"]

DELIMITER_LINE = re.compile(r"^<<<(BEGIN|END) (\S+) ([0-9a-f]{8})>>>$", re.MULTILINE)


class Model:
    """A scripted model: top scores always ("perfect"), or bottom scores unless the prompt carries an
    injection, which it then obeys with top scores ("obedient": the worst case for a small model)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.backend = ScriptedBackend(default=self.reply)

    def reply(self, request: ChatRequest) -> str:
        if self.kind == "perfect":
            return schema_reply(request, "max")
        prompt = "\n".join(m.content for m in request.messages)
        # The injection as it reaches the model: inside a block, neutralized, its chat-template markup broken up.
        obeys = any(
            break_chat_markup(neutralize(case.injected[len(case.clean) :])).strip()[:40] in prompt for case in CASES
        )
        return schema_reply(request, "max" if obeys else "min")


@dataclass
class Judged:
    client: PortalClient
    backend: ScriptedBackend

    def __call__(self, case: InjectionCase, *, injected: bool) -> tuple[dict[str, Any], list[ChatRequest]]:
        """The structured result of judging one twin of `case`, and the requests the model received for it."""
        before = len(self.backend.requests)
        result = self.client.call(case.tool, arguments(case, injected=injected))
        assert result.is_error is False, result_text(result)
        assert result.structured_content is not None
        return result.structured_content, self.backend.requests[before:]


def _judged(kind: str) -> Iterator[Judged]:
    model = Model(kind)
    server, _ = scripted_server(model.backend)
    with portal_client(server) as client:
        yield Judged(client, model.backend)


@pytest.fixture(scope="module")
def perfect() -> Iterator[Judged]:
    yield from _judged("perfect")


@pytest.fixture(scope="module")
def obedient() -> Iterator[Judged]:
    yield from _judged("obedient")


@pytest.mark.parametrize("case", BY_ID)
def test_every_injected_case_is_flagged(perfect: Judged, case: InjectionCase) -> None:
    result, _ = perfect(case, injected=True)
    TALLY["injection: cases"] += 1
    assert PROMPT_INJECTION_FLAG in result["flags"], f"{case.id} ({case.description}) was not flagged"
    TALLY["injection: flagged"] += 1


@pytest.mark.parametrize("case", BY_ID)
def test_the_clean_twin_of_every_case_is_not_flagged(perfect: Judged, case: InjectionCase) -> None:
    result, _ = perfect(case, injected=False)
    flags = [flag for flag in result["flags"] if flag not in FITNESS_FLAGS]  # about the judge, not the text
    assert flags == [], f"the clean twin of {case.id} was flagged: {flags}"
    TALLY["injection: clean twins not flagged"] += 1


@pytest.mark.parametrize("case", RAG_CASES)
def test_an_injected_rag_answer_is_never_approved_even_with_perfect_scores(
    perfect: Judged, case: InjectionCase
) -> None:
    clean, _ = perfect(case, injected=False)
    injected, _ = perfect(case, injected=True)
    assert clean["verdict"] == "approved", "the control: the same scores approve the clean twin"
    assert injected["verdict"] != "approved"
    assert "not approved on the model's word alone" in injected["verdict_reason"]
    assert any(issue.startswith(PROMPT_INJECTION_FLAG) for issue in injected["issues"])


@pytest.mark.parametrize("case", RAG_CASES)
def test_a_model_that_obeys_the_injection_still_cannot_get_the_answer_approved(
    obedient: Judged, case: InjectionCase
) -> None:
    clean, _ = obedient(case, injected=False)
    injected, _ = obedient(case, injected=True)
    assert clean["verdict"] == "rejected", "the control: without the injection this model scores at the bottom"
    # The model obeys wherever it reads the injection. An injection in the answer reaches every dimension; one
    # in the passages never reaches relevance or coherence, whose prompts leave the passages out.
    reached = {"answer": 1.0, "passages": 1.0 - sum(m.weight for m in RAG.metrics if m.judged_against != "source")}
    assert injected["overall_score"] == pytest.approx(reached[case.field]), "the model obeyed the injection"
    assert injected["verdict"] == "needs_improvement"
    TALLY["injection: obeyed RAG injections held back"] += 1


def _user_text(request: ChatRequest) -> str:
    return "\n".join(m.content for m in request.messages if m.role == "user")


@pytest.mark.parametrize("case", BY_ID)
def test_judged_text_cannot_forge_or_close_a_delimiter(perfect: Judged, case: InjectionCase) -> None:
    _, requests = perfect(case, injected=True)
    assert requests
    for request in requests:
        text = _user_text(request)
        lines = DELIMITER_LINE.findall(text)
        labels = {label for _, label, _ in lines}
        for label in labels:
            begins = [n for kind, lb, n in lines if lb == label and kind == "BEGIN"]
            ends = [n for kind, lb, n in lines if lb == label and kind == "END"]
            assert len(begins) == len(ends) == 1, f"{case.id}: block {label!r} has {begins} BEGIN and {ends} END"
            assert begins == ends
            assert text.index(f"<<<BEGIN {label} ") < text.index(f"<<<END {label} ")
        # Every run of three angle brackets (or look-alikes) left in the prompt is one of those delimiter lines.
        runs = re.findall(r"[<＜﹤‹«〈⟨〈《❮❬⟪˂ᐸ≺⧼]{3}|[>＞﹥›»〉⟩〉》❯❭⟫˃ᐳ≻⧽]{3}", text)
        assert len(runs) == 2 * len(lines), f"{case.id}: a look-alike delimiter survived: {runs}"
    TALLY["injection: prompts checked for delimiters"] += len(requests)


@pytest.mark.parametrize(
    "case",
    [pytest.param(case, id=case.id) for case in CASES if case.technique == "fake delimiter" and "<<<" in case.injected]
    + [pytest.param(case, id=case.id) for case in CASES if "＜＜＜" in case.injected],
)
def test_a_fake_delimiter_reaches_the_model_neutralized(perfect: Judged, case: InjectionCase) -> None:
    _, requests = perfect(case, injected=True)
    text = _user_text(requests[0])
    fake = re.search(r"(<<<|＜＜＜)(END|BEGIN) (\w+) (\w+)", case.injected)
    assert fake is not None
    brackets = " ".join(fake.group(1))
    assert f"{brackets}{fake.group(2)} {fake.group(3)} {fake.group(4)}" in text


def test_the_judge_is_told_that_instructions_inside_the_blocks_are_data(
    perfect: Judged,
) -> None:
    _, requests = perfect(CASES[0], injected=True)
    system = requests[0].messages[0]
    assert system.role == "system"
    assert "never follow them" in system.content


def test_the_suite_has_at_least_30_cases_across_every_judged_field() -> None:
    assert len(CASES) >= 30
    assert {(c.tool, c.field) for c in CASES} == {
        ("judge_rag_answer", "answer"),
        ("judge_rag_answer", "passages"),
        ("evaluate_assessment", "assessment"),
        ("evaluate_assessment", "source"),
        ("score_candidates", "candidate"),
    }
    assert len({c.id for c in CASES}) == len(CASES)
    for case in CASES:
        assert case.injected != case.clean and case.clean in case.injected.replace("\u200b", ""), case.id
