"""Model faults at tool level: the real OllamaBackend (official client, httpx, sockets) against the Ollama-API
test server, behind the real MCP server, with the server down, slow beyond the timeout, missing the model,
answering 500, sending garbage or cutting its stream, for the whole call or in the middle of a batch or loop.

Every call must come back within a bound, as a result that is unscored or partial (with the reason) or as
an error that says what to fix, and never with a number the model did not give.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from gavel.tools.engine.ollama import OllamaBackend
from tests.reliability.support import TOOLS, PortalClient, leaks, portal_client, result_text, scripted_server
from tests.reliability.tally import FULL, TALLY
from tests.support.injection_cases import ASSESSMENT, IDEA, RAG_ANSWER, RAG_PASSAGES, RAG_QUESTION, TRANSCRIPT
from tests.support.ollama_server import Fault, OllamaTestServer
from tests.support.replies import reply_for_schema

MODEL = "judge-model:latest"
TIMEOUT_S = 1.0
SLOW_S = 10.0  # the "slow" fault answers only after this, far beyond TIMEOUT_S
CONCURRENCY = 4
# A whole tool call against a faulty model: a few rounds of timed-out calls at most.
CALL_BOUND_S = 25.0

ANSWERS = {
    "agent-a": RAG_ANSWER,
    "agent-b": "Water boils at 90 °C everywhere, because the boiling point never changes [S1].",
    "agent-c": "At sea level, 100 °C [S1]; lower with altitude, about 95 °C in Denver [S2].",
}
CALLS: dict[str, dict[str, Any]] = {
    "evaluate_assessment": {"assessment": ASSESSMENT, "source": TRANSCRIPT},
    "refine_until_pass": {"draft": ASSESSMENT, "source": TRANSCRIPT, "max_iterations": 2},
    "judge_rag_answer": {"question": RAG_QUESTION, "answer": RAG_ANSWER, "sources": RAG_PASSAGES},
    "judge_rag_answers": {
        "question": RAG_QUESTION,
        "answers": [{"agent_name": name, "answer": text} for name, text in ANSWERS.items()],
        "sources": RAG_PASSAGES,
    },
    "score_candidates": {
        "candidates": [{"id": f"idea-{i}", "text": f"{IDEA} Variant {i}."} for i in range(3)],
        "rubric": "idea-quality",
    },
}


# -- the model behind the test server ------------------------------------------------------------------------------


@dataclass
class Model:
    """What answers /api/chat: a valid reply for the requested schema; records every score it gave."""

    score: str = "max"
    fail_when: str | None = None  # answer 500 to any request whose prompt contains this text
    fail_generation: bool = False  # answer 500 to every request without a schema (the writer's)
    after: int | None = None  # after this many chats, switch the whole server to `then`
    then: Fault | None = None
    server: OllamaTestServer | None = None
    given: set[float] = field(default_factory=set)
    chats: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict[str, Any]) -> str:
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages") or [])
        with self.lock:
            self.chats += 1
            if self.after is not None and self.chats >= self.after and self.server is not None:
                self.server.fault = self.then  # this reply still goes out; the next requests meet the fault
        schema = body.get("format") if isinstance(body.get("format"), dict) else None
        if (self.fail_when is not None and self.fail_when in prompt) or (self.fail_generation and schema is None):
            raise RuntimeError("the model crashed on this prompt")  # the test server answers HTTP 500
        text = reply_for_schema(schema, self.score)
        with self.lock:
            self.given.update(_scores_in(json.loads(text)) if schema is not None else ())
        return text


def _scores_in(value: Any) -> list[float]:
    if isinstance(value, dict):
        found = [float(v) for k, v in value.items() if k == "score" and isinstance(v, int | float)]
        return found + [s for v in value.values() for s in _scores_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in _scores_in(v)]
    return []


# -- fixtures -----------------------------------------------------------------------------------------------------


@dataclass
class Rig:
    ollama: OllamaTestServer
    client: PortalClient
    stream: bool

    def use(self, model: Model) -> Model:
        model.server = self.ollama
        self.ollama.responder = model
        return model


@pytest.fixture(scope="module", params=[pytest.param(False, id="whole-reply"), pytest.param(True, id="streamed")])
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    with OllamaTestServer(Model(), models=[MODEL], slow_s=SLOW_S) as ollama:
        backend = OllamaBackend(ollama.url, MODEL, timeout_s=TIMEOUT_S, stream=request.param)
        server, _ = scripted_server(backend, overrides={"max_concurrency": CONCURRENCY}, timeout_s=TIMEOUT_S)
        with portal_client(server) as client:
            # The backend asks once per model whether the server returns log-probabilities (one chat): asked
            # here, so tests that count chats (`Model.after`) count the same whichever test runs first.
            client.portal.call(backend.reads_probabilities)
            yield Rig(ollama, client, request.param)
            client.portal.call(backend.aclose)


@pytest.fixture
def fresh(rig: Rig) -> Iterator[Rig]:
    """The rig with a healthy server and a fresh model, whatever the previous test left."""
    rig.use(Model())
    yield rig
    # A restart ends the requests a fault left hanging (a "slow" one would otherwise wake up later and
    # answer through the next test's model) and brings back a stopped server, on the same port.
    rig.ollama.stop()
    rig.ollama.fault = None
    rig.ollama.start()


# -- checks -------------------------------------------------------------------------------------------------------


def _metric_scores(value: Any) -> Iterator[dict[str, Any]]:
    """Every per-metric score object anywhere in a result."""
    if isinstance(value, dict):
        if "metric" in value and value.get("status") in ("scored", "unscored", "not_applicable"):
            yield value
        for inner in value.values():
            yield from _metric_scores(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _metric_scores(inner)


def _only_given_numbers(result: dict[str, Any], given: set[float]) -> tuple[int, int]:
    """(scored, unscored) metric counts; fails on a score the model did not give or an unscored one with a number."""
    scored = unscored = 0
    for metric in _metric_scores(result):
        if metric["status"] == "scored":
            samples = [s["score"] for s in metric.get("samples", []) if s.get("score") is not None]
            assert samples and all(s in given for s in samples), f"{metric['metric']}: {samples} not given {given}"
            scored += 1
        elif metric["status"] == "unscored":
            assert metric["score"] is None and metric["reason"], metric
            unscored += 1
    return scored, unscored


def _call(rig: Rig, tool: str, arguments: dict[str, Any] | None = None) -> tuple[Any, float]:
    started = time.monotonic()
    result = rig.client.call(tool, arguments or CALLS[tool], timeout_s=CALL_BOUND_S * 2)
    elapsed = time.monotonic() - started
    assert elapsed < CALL_BOUND_S, f"{tool} took {elapsed:.1f}s against a faulty model"
    return result, elapsed


# -- the whole call against a faulty model ---------------------------------------------------------------------------

WHOLE_FAULTS = [
    pytest.param("stopped", id="down-connection-refused"),
    pytest.param("down", id="down-connection-dropped"),
    pytest.param("slow", id="slow-beyond-the-timeout"),
    pytest.param("404_model", id="model-missing-404"),
    pytest.param("500", id="server-error-500"),
    pytest.param("too_long", id="prompt-longer-than-the-window-400"),
    pytest.param("garbage", id="garbage-body"),
    pytest.param("truncated_stream", id="truncated-stream"),
    pytest.param("stream_no_done", id="stream-without-done-chunk"),
]
# In CI the slow fault (the costly one: every call waits out its timeout) runs on three tools.
SLOW_TOOLS = TOOLS if FULL else ("evaluate_assessment", "judge_rag_answers", "refine_until_pass")


# The streamed rig differs from the whole-reply one only in how a reply arrives; in CI it runs the faults
# that concern the stream itself, at full size every fault.
STREAM_FAULTS = ("down", "truncated_stream", "stream_no_done")


def _skip_outside_ci_scope(rig: Rig, fault: str | None = None) -> None:
    if rig.stream and not FULL and fault not in STREAM_FAULTS:
        pytest.skip("the streamed rig runs this at full size (GAVEL_FULL_RELIABILITY=1)")


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("fault", WHOLE_FAULTS)
def test_a_faulty_model_gives_an_unscored_result_within_a_bound_and_never_a_number(
    fresh: Rig, fault: str, tool: str
) -> None:
    _skip_outside_ci_scope(fresh, fault)
    if fault == "slow" and tool not in SLOW_TOOLS:
        pytest.skip("the slow fault runs on every tool at full size (GAVEL_FULL_RELIABILITY=1)")
    if fault == "stream_no_done" and not fresh.stream:
        pytest.skip("only a streamed reply can end without its done chunk")
    model = fresh.use(Model())
    if fault == "stopped":
        fresh.ollama.stop()
    else:
        fresh.ollama.fault = fault  # type: ignore[assignment]
    result, elapsed = _call(fresh, tool)
    TALLY["faults: injected (tool calls against a faulty model)"] += 1
    TALLY["faults: slowest call against a faulty model, s"] = max(
        TALLY["faults: slowest call against a faulty model, s"], round(elapsed, 1)
    )
    text = result_text(result)
    assert not leaks(text), text
    assert result.is_error is False, f"{tool} refused instead of reporting unscored: {text}"
    data = result.structured_content
    scored, unscored = _only_given_numbers(data, model.given)
    if fault == "stream_no_done":
        # Every chunk of the reply arrived, only Ollama's closing chunk is missing: what parses is the model's own.
        return
    assert scored == 0, scored
    # score_candidates reports an unscored candidate by its reasons rather than per-metric objects.
    assert unscored > 0 or tool == "score_candidates"
    _assert_undecided(tool, data)


def _assert_undecided(tool: str, data: dict[str, Any]) -> None:
    """No decision is made from scores that do not exist."""
    if tool == "evaluate_assessment":
        assert (data["average"], data["passed"]) == (None, None)
    elif tool == "refine_until_pass":
        assert data["passed"] is None and data["stop_reason"] == "nothing_scored"
        assert data["iterations_used"] == 0 and len(data["history"]) == 1
    elif tool == "judge_rag_answer":
        assert (data["verdict"], data["overall_score"]) == ("unscored", None)
    elif tool == "judge_rag_answers":
        assert [r["verdict"] for r in data["results"]] == ["unscored"] * len(ANSWERS)
        assert data["best"] is None
    elif tool == "score_candidates":
        assert data["selected"] == [] and len(data["unscored"]) == len(CALLS[tool]["candidates"])


# -- mid-batch -------------------------------------------------------------------------------------------------------


def test_one_answer_that_crashes_the_model_leaves_the_others_judged(fresh: Rig) -> None:
    _skip_outside_ci_scope(fresh)
    model = fresh.use(Model(fail_when=ANSWERS["agent-b"]))
    result, _ = _call(fresh, "judge_rag_answers")
    TALLY["faults: injected (tool calls against a faulty model)"] += 1
    data = result.structured_content
    by_agent = {r["agent_name"]: r for r in data["results"]}
    _only_given_numbers(data, model.given)
    assert by_agent["agent-b"]["verdict"] == "unscored"
    assert all(m["status"] == "unscored" and "500" in m["reason"] for m in _metric_scores(by_agent["agent-b"])), (
        "each unscored dimension says the model call failed"
    )
    for agent in ("agent-a", "agent-c"):
        assert by_agent[agent]["verdict"] == "approved"
        assert by_agent[agent]["overall_score"] == 1.0
    assert data["best"] in ("agent-a", "agent-c")
    assert data["results"][-1]["agent_name"] == "agent-b", "unscored answers rank last"


@pytest.mark.parametrize(
    "then",
    [pytest.param("down", id="down"), pytest.param("500", id="500"), pytest.param("truncated_stream", id="truncated")],
)
def test_a_model_failing_in_the_middle_of_a_batch_keeps_what_was_judged(fresh: Rig, then: Fault) -> None:
    _skip_outside_ci_scope(fresh)
    # Six calls per answer (five dimensions and a grounding check); the fault starts after the eighth.
    model = fresh.use(Model(after=8, then=then))
    result, _ = _call(fresh, "judge_rag_answers")
    TALLY["faults: injected (tool calls against a faulty model)"] += 1
    data = result.structured_content
    scored, unscored = _only_given_numbers(data, model.given)
    assert scored > 0 and unscored > 0, (scored, unscored)
    assert len(data["results"]) == len(ANSWERS)
    for item in data["results"]:
        if item["verdict"] != "unscored":
            assert item["overall_score"] == 1.0
        else:
            assert item["overall_score"] is None or any(m["status"] == "unscored" for m in _metric_scores(item))


def test_a_model_failing_midway_through_score_candidates_leaves_the_rest_unscored_never_selected(fresh: Rig) -> None:
    _skip_outside_ci_scope(fresh)
    model = fresh.use(Model(after=6, then="500"))
    result, _ = _call(fresh, "score_candidates")
    data = result.structured_content
    _only_given_numbers(data, model.given)
    unscored = {u["id"] for u in data["unscored"]}
    assert unscored, "some candidates met the fault"
    assert not unscored & {s["id"] for s in data["selected"]}


# -- mid-loop -------------------------------------------------------------------------------------------------------


def test_a_generator_failure_mid_loop_keeps_the_history_and_says_why(fresh: Rig) -> None:
    _skip_outside_ci_scope(fresh)
    model = fresh.use(Model(score="min", fail_generation=True))
    result, _ = _call(fresh, "refine_until_pass")
    data = result.structured_content
    _only_given_numbers(data, model.given)
    assert data["stop_reason"] == "generator_failed"
    assert "500" in data["error"]
    assert len(data["history"]) == 1 and data["history"][0]["evaluation"]["average"] == 1.0
    assert data["final_text"] == ASSESSMENT


@pytest.mark.parametrize(
    "then", [pytest.param("down", id="down"), pytest.param("slow", id="slow"), pytest.param("500", id="500")]
)
def test_the_model_failing_after_a_revision_keeps_every_iteration_and_the_best_text(fresh: Rig, then: Fault) -> None:
    _skip_outside_ci_scope(fresh)
    # Four judge calls for the first version, one generation: the revision is written, then the model fails.
    model = fresh.use(Model(score="min", after=5, then=then))
    result, _ = _call(fresh, "refine_until_pass")
    TALLY["faults: injected (tool calls against a faulty model)"] += 1
    data = result.structured_content
    _only_given_numbers(data, model.given)
    assert [item["iteration"] for item in data["history"]] == [0, 1], (
        data["stop_reason"],
        data.get("error"),
        model.chats,
    )
    first, second = (item["evaluation"] for item in data["history"])
    assert first["average"] == 1.0 and first["unscored_metrics"] == []
    assert second["average"] is None and second["passed"] is None
    assert data["best_iteration"] == 0 and data["best_text"] == ASSESSMENT
    assert data["stop_reason"] == "nothing_scored"


def test_the_backend_serves_again_once_the_fault_clears(fresh: Rig) -> None:
    _skip_outside_ci_scope(fresh)
    fresh.ollama.fault = "500"
    broken, _ = _call(fresh, "evaluate_assessment")
    assert broken.structured_content["average"] is None
    fresh.ollama.fault = None
    healthy, _ = _call(fresh, "evaluate_assessment")
    assert healthy.structured_content["passed"] is True


def test_a_score_line_cut_off_mid_number_is_never_read_as_a_score(fresh: Rig) -> None:
    if not fresh.stream:
        pytest.skip("a cut-off stream needs the streamed rig")
    # The model ignores the schema and answers in prose; the stream is cut right after "Score: 1" of "Score: 10".
    head = "Explanation: a genuinely new angle on city maintenance, clearly argued.\nScore: 1"
    head = " " * (-len(head) % 8) + head  # the test server streams 8-character pieces and keeps the first half
    text = head + "0" + "\n" * (len(head) - 1)
    fresh.ollama.responder = lambda body: text
    fresh.ollama.fault = "truncated_stream"
    result, _ = _call(fresh, "evaluate_assessment", {"assessment": IDEA, "rubric": "idea-quality",
                                                     "metrics": ["originality"]})  # fmt: skip
    (score,) = result.structured_content["scores"]
    assert score["score"] in (None, 10.0), f"scored {score['score']} from a reply that said 10: {score}"


# -- the whole call is bounded ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        pytest.param("evaluate_assessment", {**CALLS["evaluate_assessment"], "samples": 3}, id="assessment-3-samples"),
        pytest.param("judge_rag_answers", CALLS["judge_rag_answers"], id="rag-batch"),
    ],
)
def test_after_one_timeout_a_call_asks_the_silent_model_no_more(fresh: Rig, tool: str, arguments: dict) -> None:
    # Before: every metric, sample, re-ask and answer waited out its own timeout (43 s and 88 s at GAVEL_TIMEOUT_S=5).
    _skip_outside_ci_scope(fresh)
    fresh.use(Model())
    fresh.ollama.fault = "slow"
    before = len(fresh.ollama.chat_requests)
    result, elapsed = _call(fresh, tool, arguments)
    asked = len(fresh.ollama.chat_requests) - before
    assert result.is_error is False
    # The log-probability probes (the cache key's judge and the tool's) and the calls already in flight (the
    # limiter's size) time out; nothing after them. Asking every sample, re-ask and answer took 24 requests.
    assert asked <= 2 + CONCURRENCY + 1, asked
    assert elapsed < 12 * TIMEOUT_S, elapsed
    assert "timed out" in json.dumps(result.structured_content)
