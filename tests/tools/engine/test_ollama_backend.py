"""OllamaBackend through the real `ollama.AsyncClient` against a real HTTP server speaking the Ollama API."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import ollama
import pytest

from gavel.tools.engine.backend import Backend, ChatMessage, ChatRequest
from gavel.tools.engine.ollama import OllamaBackend
from gavel.tools.errors import BackendError, ContextTooLong
from tests.support.ollama_server import OllamaReply, OllamaTestServer, hash_embedding, scripted

MODEL = "judge-model:latest"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"explanation": {"type": "string"}, "score": {"type": "integer", "minimum": 1, "maximum": 5}},
    "required": ["explanation", "score"],
}
VERDICT = {"explanation": "Consistent throughout.", "score": 4}


def request(**overrides: Any) -> ChatRequest:
    values: dict[str, Any] = {
        "messages": (ChatMessage("system", "You are a judge."), ChatMessage("user", "Score this text.")),
        "schema": SCHEMA,
        "temperature": 0.0,
        "seed": 7,
        "max_tokens": 256,
        "top_k": 20,
        "top_p": 0.9,
    }
    values.update(overrides)
    return ChatRequest(**values)


@pytest.fixture
def server() -> Iterator[OllamaTestServer]:
    with OllamaTestServer(responder=lambda req: VERDICT, models=[MODEL, "other-model:7b"], slow_s=2.0) as srv:
        yield srv


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def backend_for(url: str, *, stream: bool = False, timeout_s: float = 5.0, model: str = MODEL) -> OllamaBackend:
    return OllamaBackend(url, model, timeout_s=timeout_s, num_ctx=4096, stream=stream)


STREAM_MODES = [pytest.param(False, id="non-streaming"), pytest.param(True, id="streaming")]


def test_ollama_backend_satisfies_the_backend_protocol() -> None:
    assert isinstance(backend_for("http://127.0.0.1:1"), Backend)


# successful calls


@pytest.mark.parametrize("stream", STREAM_MODES)
async def test_chat_returns_the_model_text_and_the_token_counts_ollama_reported(
    server: OllamaTestServer, stream: bool
) -> None:
    server.responder = scripted(OllamaReply(json.dumps(VERDICT), prompt_eval_count=123, eval_count=17))
    backend = backend_for(server.url, stream=stream)
    try:
        reply = await backend.chat(request())
    finally:
        await backend.aclose()
    assert json.loads(reply.text) == VERDICT
    assert (reply.prompt_tokens, reply.completion_tokens) == (123, 17)
    assert reply.model == MODEL
    assert reply.truncated is False
    assert reply.cached_prompt_tokens is None
    assert reply.duration_ms > 0


@pytest.mark.parametrize("stream", STREAM_MODES)
async def test_chat_sends_the_schema_as_format_and_every_sampling_option(
    server: OllamaTestServer, stream: bool
) -> None:
    backend = backend_for(server.url, stream=stream)
    try:
        await backend.chat(request())
    finally:
        await backend.aclose()
    (sent,) = server.chat_requests
    assert sent["format"] == SCHEMA
    assert sent["options"] == {
        "temperature": 0.0,
        "top_k": 20,
        "top_p": 0.9,
        "seed": 7,
        "num_ctx": 4096,
        "num_predict": 256,
        "num_keep": -1,
    }
    assert sent["stream"] is stream
    assert sent["model"] == MODEL
    assert sent["messages"] == [
        {"role": "system", "content": "You are a judge."},
        {"role": "user", "content": "Score this text."},
    ]


async def test_chat_leaves_out_options_that_are_none_and_format_when_there_is_no_schema(
    server: OllamaTestServer,
) -> None:
    backend = backend_for(server.url)
    try:
        await backend.chat(request(schema=None, seed=None, top_k=None, top_p=None))
    finally:
        await backend.aclose()
    (sent,) = server.chat_requests
    assert "format" not in sent
    assert sent["options"] == {"temperature": 0.0, "num_ctx": 4096, "num_predict": 256, "num_keep": -1}


async def test_a_generation_request_sends_its_repeat_penalty_as_an_ollama_option(server: OllamaTestServer) -> None:
    backend = backend_for(server.url)
    try:
        await backend.chat(request(schema=None, repeat_penalty=1.15))
    finally:
        await backend.aclose()
    (sent,) = server.chat_requests
    assert sent["options"]["repeat_penalty"] == 1.15


async def test_chat_uses_the_request_model_over_the_configured_one(server: OllamaTestServer) -> None:
    backend = backend_for(server.url)
    try:
        reply = await backend.chat(request(model="other-model:7b"))
    finally:
        await backend.aclose()
    assert server.chat_requests[0]["model"] == "other-model:7b"
    assert reply.model == "other-model:7b"


@pytest.mark.parametrize("stream", STREAM_MODES)
async def test_done_reason_length_marks_the_reply_truncated(server: OllamaTestServer, stream: bool) -> None:
    server.responder = scripted("x" * 400)  # about 100 tokens against num_predict=10
    backend = backend_for(server.url, stream=stream)
    try:
        reply = await backend.chat(request(max_tokens=10))
    finally:
        await backend.aclose()
    assert reply.truncated is True
    assert reply.extra["done_reason"] == "length"
    assert reply.text == "x" * 40


# streams that end early


@pytest.mark.parametrize(
    ("fault", "how"),
    [
        pytest.param("truncated_stream", "connection dropped", id="connection-drops-mid-stream"),
        pytest.param("stream_no_done", "without Ollama's done chunk", id="stream-ends-without-done"),
    ],
)
async def test_a_stream_that_ends_before_done_is_a_truncated_reply_with_the_partial_text(
    server: OllamaTestServer, fault: str, how: str
) -> None:
    content = json.dumps(VERDICT)
    server.responder = scripted(content)
    server.queue_fault(fault, path="/api/chat")  # type: ignore[arg-type]
    backend = backend_for(server.url, stream=True)
    try:
        reply = await backend.chat(request())
    finally:
        await backend.aclose()
    assert reply.truncated is True
    assert how in reply.extra["incomplete_stream"]
    assert reply.text and content.startswith(reply.text)
    assert reply.prompt_tokens is None and reply.completion_tokens is None


async def test_a_non_streamed_body_cut_off_in_transit_is_a_backend_error(server: OllamaTestServer) -> None:
    server.queue_fault("truncated_stream", path="/api/chat")
    backend = backend_for(server.url)
    try:
        with pytest.raises(BackendError, match="connection to Ollama") as caught:
            await backend.chat(request())
    finally:
        await backend.aclose()
    assert isinstance(caught.value.__cause__, httpx.RemoteProtocolError)


# faults → BackendError naming host, model and the fix


@pytest.mark.parametrize("stream", STREAM_MODES)
async def test_ollama_not_running_says_start_ollama_serve_or_set_ollama_host(stream: bool) -> None:
    url = closed_port_url()
    backend = backend_for(url, stream=stream)
    try:
        with pytest.raises(BackendError) as caught:
            await backend.chat(request())
    finally:
        await backend.aclose()
    message = str(caught.value)
    assert f"not reachable at {url}" in message
    assert MODEL in message
    assert "ollama serve" in message and "OLLAMA_HOST" in message
    assert isinstance(caught.value.__cause__, ConnectionError | httpx.ConnectError)


@pytest.mark.parametrize(
    ("fault", "fragments", "cause"),
    [
        pytest.param(
            "slow", ["timed out after 0.5s", "GAVEL_TIMEOUT_S", "smaller model"],
            (httpx.TimeoutException, TimeoutError),
            id="slow-server-times-out",
        ),
        pytest.param(
            "404_model", [f"model {MODEL} not found on", f"ollama pull {MODEL}"], (ollama.ResponseError,),
            id="missing-model-says-ollama-pull",
        ),
        pytest.param(
            "500", ["HTTP 500", "llama runner process has terminated", "ollama serve` log"], (ollama.ResponseError,),
            id="server-error-carries-ollamas-text",
        ),
        pytest.param(
            "too_long", ["does not fit the context window of 4,096 tokens", "raise GAVEL_NUM_CTX (now 4096)"],
            (ollama.ResponseError,), id="prompt-refused-as-too-long-says-which-limit",
        ),
        pytest.param(
            "garbage", ["not valid JSON", "points at an Ollama server"], (ValueError,),
            id="garbage-body-is-an-error-not-a-crash",
        ),
        pytest.param(
            "down", ["connection to Ollama", "RemoteProtocolError"], (httpx.RemoteProtocolError,),
            id="connection-closed-without-reply",
        ),
    ],
)  # fmt: skip
@pytest.mark.parametrize("stream", STREAM_MODES)
async def test_each_server_fault_becomes_a_backend_error_naming_host_model_and_fix(
    server: OllamaTestServer, fault: str, fragments: list[str], cause: tuple[type[BaseException], ...], stream: bool
) -> None:
    server.fault = fault  # type: ignore[assignment]
    backend = backend_for(server.url, stream=stream, timeout_s=0.5)
    try:
        with pytest.raises(BackendError) as caught:
            await backend.chat(request())
    finally:
        await backend.aclose()
    message = str(caught.value)
    assert server.url in message
    assert MODEL in message
    for fragment in fragments:
        assert fragment in message
    assert isinstance(caught.value.__cause__, cause)


@pytest.mark.parametrize("stream", STREAM_MODES)
async def test_a_prompt_ollama_cut_to_fit_the_window_is_refused(server: OllamaTestServer, stream: bool) -> None:
    # Ollama cuts a prompt longer than num_ctx instead of refusing it; with num_keep -1 what it kept fills the window.
    server.responder = scripted(OllamaReply(json.dumps(VERDICT), prompt_eval_count=4095, eval_count=17))
    backend = backend_for(server.url, stream=stream)
    try:
        with pytest.raises(ContextTooLong) as caught:
            await backend.chat(request())
    finally:
        await backend.aclose()
    assert "cut it to 4,095 tokens" in str(caught.value) and "GAVEL_NUM_CTX" in str(caught.value)


async def test_an_unpulled_model_is_a_404_from_the_server_itself(server: OllamaTestServer) -> None:
    backend = backend_for(server.url, model="never-pulled:1b")
    try:
        with pytest.raises(BackendError, match=r"run `ollama pull never-pulled:1b`"):
            await backend.chat(request())
    finally:
        await backend.aclose()


async def test_the_backend_recovers_when_a_fault_clears_between_calls(server: OllamaTestServer) -> None:
    server.queue_fault("500", path="/api/chat")
    backend = backend_for(server.url)
    try:
        with pytest.raises(BackendError):
            await backend.chat(request())
        reply = await backend.chat(request())
    finally:
        await backend.aclose()
    assert json.loads(reply.text) == VERDICT


# model_info and probe


async def test_model_info_reads_the_digest_from_the_tags_listing_each_time(server: OllamaTestServer) -> None:
    # `ollama pull` may replace the model under its name while Gavel runs; Probes decides how often to ask.
    backend = backend_for(server.url)
    try:
        first = await backend.model_info()
        second = await backend.model_info()
    finally:
        await backend.aclose()
    assert (first.backend, first.model, first.digest) == ("ollama", MODEL, server.digest(MODEL))
    assert second == first
    assert [r.path for r in server.requests] == ["/api/tags", "/api/tags"]


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        pytest.param("other-model:7b", "other-model:7b", id="explicit-model"),
        pytest.param("judge-model", MODEL, id="untagged-name-means-latest"),
    ],
)
async def test_model_info_finds_the_digest_of_the_model_asked_for(
    server: OllamaTestServer, model: str, expected: str
) -> None:
    backend = backend_for(server.url)
    try:
        info = await backend.model_info(model)
    finally:
        await backend.aclose()
    assert info.model == model
    assert info.digest == server.digest(expected)


@pytest.mark.parametrize(
    "setup",
    [
        pytest.param("missing", id="model-not-pulled"),
        pytest.param("down", id="ollama-unreachable"),
    ],
)
async def test_model_info_leaves_the_digest_unknown_rather_than_guessing(server: OllamaTestServer, setup: str) -> None:
    backend = backend_for(closed_port_url() if setup == "down" else server.url, model="never-pulled:1b")
    try:
        info = await backend.model_info()
    finally:
        await backend.aclose()
    assert info.digest is None


async def test_probe_is_true_when_ollama_answers_and_has_the_model(server: OllamaTestServer) -> None:
    backend = backend_for(server.url)
    try:
        assert await backend.probe() == (True, "")
    finally:
        await backend.aclose()


@pytest.mark.parametrize(
    ("setup", "fragment"),
    [
        pytest.param("missing", "ollama pull never-pulled:1b", id="model-not-pulled"),
        pytest.param("down", "not reachable", id="ollama-unreachable"),
        pytest.param("slow", "did not answer /api/tags within 0.5s", id="ollama-too-slow"),
        pytest.param("500", "HTTP 500", id="ollama-error"),
    ],
)
async def test_probe_is_false_with_the_reason(server: OllamaTestServer, setup: str, fragment: str) -> None:
    url = closed_port_url() if setup == "down" else server.url
    model = "never-pulled:1b" if setup == "missing" else MODEL
    if setup in ("slow", "500"):
        server.fault = setup  # type: ignore[assignment]
    backend = backend_for(url, model=model, timeout_s=0.5)
    try:
        ok, why = await backend.probe()
    finally:
        await backend.aclose()
    assert ok is False
    assert fragment in why


async def test_probe_turns_true_once_a_stopped_ollama_is_started_again(server: OllamaTestServer) -> None:
    backend = backend_for(server.url)
    try:
        server.stop()
        assert (await backend.probe())[0] is False
        server.start()
        assert await backend.probe() == (True, "")
    finally:
        await backend.aclose()


# client ownership


async def test_aclose_closes_the_client_the_backend_built() -> None:
    backend = backend_for("http://127.0.0.1:1")
    await backend.aclose()
    assert backend._client._client.is_closed


async def test_aclose_leaves_an_injected_client_to_its_owner(server: OllamaTestServer) -> None:
    client = ollama.AsyncClient(host=server.url, timeout=5)
    backend = OllamaBackend(server.url, MODEL, timeout_s=5, client=client)
    await backend.aclose()
    try:
        assert not client._client.is_closed
        assert json.loads((await backend.chat(request())).text) == VERDICT
    finally:
        await client.close()


# the test server's other endpoints, through the same client


async def test_test_server_answers_embed_show_and_version_like_ollama(server: OllamaTestServer) -> None:
    async with ollama.AsyncClient(host=server.url, timeout=5) as client:
        embedded = await client.embed(model=MODEL, input=["low mood", "low mood today"])
        shown = await client.show(MODEL)
        version = await client._request_raw("GET", "/api/version")
    assert [list(v) for v in embedded.embeddings] == [hash_embedding("low mood"), hash_embedding("low mood today")]
    assert shown.details is not None and shown.details.family == "test"
    assert version.json()["version"]


async def test_test_server_uses_a_custom_embedder_when_given() -> None:
    with OllamaTestServer(models=[MODEL], embedder=lambda texts: [[float(len(t))] for t in texts]) as srv:
        async with ollama.AsyncClient(host=srv.url, timeout=5) as client:
            embedded = await client.embed(model=MODEL, input="four")
    assert [list(v) for v in embedded.embeddings] == [[4.0]]


# -- log-probabilities -----------------------------------------------------------------------------------

YES_NO_LOGPROBS = [
    {
        "token": "Yes",
        "logprob": -0.2,
        "top_logprobs": [{"token": "Yes", "logprob": -0.2}, {"token": "No", "logprob": -1.8}],
    }
]


def logprob_server() -> OllamaTestServer:
    return OllamaTestServer(responder=lambda req: OllamaReply("Yes", logprobs=YES_NO_LOGPROBS), models=[MODEL])


async def test_top_logprobs_are_asked_for_and_returned():
    with logprob_server() as srv:
        backend = backend_for(srv.url)
        reply = await backend.chat(request(schema=None, max_tokens=1, top_logprobs=20))
        await backend.aclose()
    assert srv.chat_requests[-1]["logprobs"] is True and srv.chat_requests[-1]["top_logprobs"] == 20
    assert reply.top_logprobs is not None
    assert [(t.token, t.logprob) for t in reply.top_logprobs[0]] == [("Yes", -0.2), ("No", -1.8)]


async def test_a_server_with_log_probabilities_is_probed_once_per_model():
    with logprob_server() as srv:
        backend = backend_for(srv.url)
        assert await backend.reads_probabilities() is True
        assert await backend.reads_probabilities() is True
        await backend.aclose()
    assert len(srv.chat_requests) == 1


async def test_a_server_without_log_probabilities_falls_back_to_generated_scores(server):
    backend = backend_for(server.url)
    assert await backend.reads_probabilities() is False
    assert (await backend.chat(request(top_logprobs=20))).top_logprobs is None
    await backend.aclose()


async def test_a_failed_probe_decides_nothing():
    backend = backend_for(closed_port_url(), timeout_s=2)
    assert await backend.reads_probabilities() is False
    assert backend._reads_probabilities == {}
    await backend.aclose()
