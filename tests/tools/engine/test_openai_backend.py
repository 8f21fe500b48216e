"""OpenAIBackend through the real `openai` client against a real HTTP server speaking the OpenAI API."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from gavel.tools.engine.backend import Backend, ChatMessage, ChatRequest, TokenLogprob
from gavel.tools.engine.openai_backend import OpenAIBackend
from gavel.tools.engine.provider import BackendProvider
from gavel.tools.errors import BackendError, ContextTooLong
from tests.support.config import engine_config
from tests.support.openai_server import OpenAIReply, OpenAITestServer, yes_no_logprobs

MODEL = "judge-model"
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
        "seed": 7,
        "max_tokens": 256,
    }
    values.update(overrides)
    return ChatRequest(**values)


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer(responder=lambda body: VERDICT, models=[MODEL, "other-model"], slow_s=10.0) as srv:
        yield srv


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def auth_header(headers: dict[str, str]) -> str | None:
    return {k.lower(): v for k, v in headers.items()}.get("authorization")


def backend_for(
    url: str, *, timeout_s: float = 5.0, model: str | None = MODEL, key: str | None = None
) -> OpenAIBackend:
    return OpenAIBackend(url, model, timeout_s=timeout_s, api_key=SecretStr(key) if key else None)


async def test_it_is_a_backend_and_asks_for_json_schema_output_with_the_sampling_options(
    server: OpenAITestServer,
) -> None:
    backend = backend_for(server.url)
    assert isinstance(backend, Backend)
    try:
        reply = await backend.chat(request(top_k=20, top_p=0.9, repeat_penalty=1.1))
    finally:
        await backend.aclose()
    assert json.loads(reply.text) == VERDICT
    assert reply.model == MODEL and not reply.truncated
    assert reply.prompt_tokens and reply.completion_tokens
    assert reply.extra["system_fingerprint"] == "fp_gavel_test"
    (body,) = server.chat_requests
    assert body["model"] == MODEL
    assert body["response_format"] == {
        "type": "json_schema", "json_schema": {"name": "verdict", "schema": SCHEMA, "strict": True}
    }  # fmt: skip
    assert (body["temperature"], body["seed"], body["max_tokens"], body["top_p"]) == (0.0, 7, 256, 0.9)
    assert (body["top_k"], body["repeat_penalty"]) == (20, 1.1)
    assert "logprobs" not in body


async def test_the_token_limit_is_reported_as_truncated(server: OpenAITestServer) -> None:
    server.responder = lambda body: "x" * 400
    backend = backend_for(server.url)
    try:
        reply = await backend.chat(request(schema=None, max_tokens=5))
    finally:
        await backend.aclose()
    assert reply.truncated and reply.extra["finish_reason"] == "length"


async def test_log_probabilities_come_back_per_token_and_the_probe_asks_once(server: OpenAITestServer) -> None:
    server.responder = lambda body: OpenAIReply("Yes", logprobs=yes_no_logprobs())
    backend = backend_for(server.url)
    try:
        reply = await backend.chat(request(schema=None, max_tokens=1, top_logprobs=5))
        assert reply.top_logprobs == ((TokenLogprob("Yes", -0.1), TokenLogprob("No", -2.4)),)
        assert await backend.reads_probabilities() is True
        assert await backend.reads_probabilities(MODEL) is True
    finally:
        await backend.aclose()
    asked = [b for b in server.chat_requests if b.get("logprobs")]
    assert len(asked) == 2, "one call of the test and one probe, never a second probe"
    assert asked[1]["max_tokens"] == 1 and asked[1]["top_logprobs"] == 5


async def test_a_server_without_log_probabilities_is_detected_once_and_logged(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    def responder(body: dict[str, Any]) -> OpenAIReply:
        return OpenAIReply("Yes", logprobs=yes_no_logprobs())

    with OpenAITestServer(responder, models=[MODEL], logprobs=False) as srv:
        backend = backend_for(srv.url)
        try:
            assert await backend.reads_probabilities() is False
            assert await backend.reads_probabilities() is False
        finally:
            await backend.aclose()
        assert len(srv.chat_requests) == 1


async def test_a_failed_probe_decides_nothing(server: OpenAITestServer) -> None:
    server.responder = lambda body: OpenAIReply("Yes", logprobs=yes_no_logprobs())
    backend = backend_for(server.url)
    try:
        server.queue_fault("500")
        assert await backend.reads_probabilities() is False
        assert await backend.reads_probabilities() is True, "asked again after the failed probe"
    finally:
        await backend.aclose()


async def test_model_info_uses_the_fingerprint_and_none_without_one(server: OpenAITestServer) -> None:
    backend = backend_for(server.url)
    try:
        info = await backend.model_info()
        assert (info.backend, info.model) == ("openai", MODEL)
        assert info.digest == f"system_fingerprint:fp_gavel_test@{backend.base_url}", "another server: another key"
        await backend.model_info()
        assert len(server.chat_requests) == 1, "identified once per model"
    finally:
        await backend.aclose()
    with OpenAITestServer(lambda body: "Yes", models=[MODEL], fingerprint=None) as bare:
        backend = backend_for(bare.url)
        try:
            info = await backend.model_info()
        finally:
            await backend.aclose()
    assert info.model == MODEL and info.digest is None, "no stable identity: never served from the cache"


@pytest.mark.parametrize("build", ["b0-unknown", "b4567-1a2b3c4d", "fp_ollama"])
async def test_a_fingerprint_that_names_a_server_not_a_model_is_no_model_digest(build: str) -> None:
    # llama.cpp's server reports its build; Ollama's OpenAI-compatible endpoint "fp_ollama" for every model.
    with OpenAITestServer(lambda body: "Yes", models=[MODEL], fingerprint=build) as llama_server:
        backend = backend_for(llama_server.url)
        try:
            info = await backend.model_info()
        finally:
            await backend.aclose()
    assert info.model == MODEL and info.digest is None


async def test_without_a_model_name_the_first_listed_model_is_used(server: OpenAITestServer) -> None:
    backend = backend_for(server.url, model=None)
    try:
        reply = await backend.chat(request())
        assert (await backend.probe()) == (True, "")
    finally:
        await backend.aclose()
    assert reply.model == MODEL and server.chat_requests[0]["model"] == MODEL


async def test_a_server_without_json_schema_support_is_asked_without_it_from_then_on() -> None:
    with OpenAITestServer(lambda body: VERDICT, models=[MODEL], json_schema=False) as srv:
        backend = backend_for(srv.url)
        try:
            first = await backend.chat(request())
            second = await backend.chat(request())
        finally:
            await backend.aclose()
        bodies = srv.chat_requests
    assert json.loads(first.text) == VERDICT and json.loads(second.text) == VERDICT
    assert ["response_format" in b for b in bodies] == [True, False, False]


async def test_the_api_key_is_sent_and_a_wrong_one_is_a_401_that_says_what_to_set() -> None:
    with OpenAITestServer(lambda body: VERDICT, models=[MODEL], api_key="s3cret-key") as srv:
        good = backend_for(srv.url, key="s3cret-key")
        bad = backend_for(srv.url, key="wrong-key")
        try:
            await good.chat(request())
            with pytest.raises(BackendError) as caught:
                await bad.chat(request())
        finally:
            await good.aclose()
            await bad.aclose()
        assert auth_header(srv.requests[0].headers) == "Bearer s3cret-key"
    message = str(caught.value)
    assert "HTTP 401" in message and "GAVEL_OPENAI_API_KEY" in message and srv.url in message and MODEL in message
    assert "wrong-key" not in message and "s3cret" not in message
    assert "s3cret" not in repr(good)


async def test_no_key_sends_a_placeholder_never_the_environments_openai_key(
    server: OpenAITestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-account-key")
    backend = backend_for(server.url)
    try:
        await backend.chat(request())
    finally:
        await backend.aclose()
    assert auth_header(server.requests[-1].headers) == "Bearer none"


async def test_an_unknown_model_is_a_404_that_names_model_and_url(server: OpenAITestServer) -> None:
    backend = backend_for(server.url, model="missing-model")
    try:
        with pytest.raises(BackendError) as caught:
            await backend.chat(request())
        ok, why = await backend.probe()
    finally:
        await backend.aclose()
    message = str(caught.value)
    assert "missing-model" in message and server.url in message and "GAVEL_JUDGE_MODEL" in message
    assert not ok and "missing-model" in why and MODEL in why


async def test_a_429_with_a_short_retry_after_is_retried_once(server: OpenAITestServer) -> None:
    server.retry_after = "0"
    server.queue_fault("429")
    backend = backend_for(server.url)
    try:
        reply = await backend.chat(request())
    finally:
        await backend.aclose()
    assert json.loads(reply.text) == VERDICT
    assert len(server.chat_requests) == 2


async def test_a_429_asking_for_more_than_the_time_left_fails_at_once_saying_so(server: OpenAITestServer) -> None:
    server.retry_after = "20"
    server.fault = "429"
    backend = backend_for(server.url, timeout_s=3.0)
    started = time.monotonic()
    try:
        with pytest.raises(BackendError) as caught:
            await backend.chat(request())
    finally:
        await backend.aclose()
    assert time.monotonic() - started < 2.0
    message = str(caught.value)
    assert "HTTP 429" in message and "retry after 20s" in message and "GAVEL_MAX_CONCURRENCY" in message
    assert len(server.chat_requests) == 1, "the client's own retries are off"


async def test_a_500_is_reported_with_the_servers_message(server: OpenAITestServer) -> None:
    server.fault = "500"
    backend = backend_for(server.url)
    try:
        with pytest.raises(BackendError) as caught:
            await backend.chat(request())
    finally:
        await backend.aclose()
    message = str(caught.value)
    assert "HTTP 500" in message and "out of memory" in message and server.url in message and MODEL in message
    assert len(server.chat_requests) == 1


async def test_a_prompt_longer_than_the_servers_window_says_which_limit_to_raise(server: OpenAITestServer) -> None:
    server.fault = "too_long"
    backend = backend_for(server.url)
    try:
        with pytest.raises(ContextTooLong) as caught:
            await backend.chat(request())
    finally:
        await backend.aclose()
    message = str(caught.value)
    assert "(9,000 tokens) does not fit the context window of 4,096 tokens" in message and MODEL in message
    assert "--ctx-size" in message and "--max-model-len" in message
    assert len(server.chat_requests) == 1


async def test_a_refused_connection_says_to_start_the_server_or_fix_the_url() -> None:
    url = closed_port_url()
    backend = backend_for(url)
    try:
        with pytest.raises(BackendError) as caught:
            await backend.chat(request())
        ok, why = await backend.probe()
    finally:
        await backend.aclose()
    assert "not reachable" in str(caught.value) and url in str(caught.value) and "GAVEL_OPENAI_BASE_URL" in why
    assert not ok


async def test_a_password_in_the_url_is_masked_in_what_the_backend_says() -> None:
    backend = backend_for(closed_port_url().replace("http://", "http://bob:hunter2@"))
    try:
        with pytest.raises(BackendError) as caught:
            await backend.chat(request())
    finally:
        await backend.aclose()
    assert "not reachable" in str(caught.value) and "bob:****@" in str(caught.value)
    assert "hunter2" not in str(caught.value) + repr(backend)


async def test_a_server_that_never_answers_is_bounded_by_the_timeout(server: OpenAITestServer) -> None:
    server.fault = "slow"
    backend = backend_for(server.url, timeout_s=1.0)
    started = time.monotonic()
    try:
        with pytest.raises(BackendError) as caught:
            await backend.chat(request())
    finally:
        await backend.aclose()
    assert time.monotonic() - started < 4.0
    assert "timed out after 1s" in str(caught.value) and "GAVEL_TIMEOUT_S" in str(caught.value)


async def test_a_reply_that_is_not_json_is_reported_as_not_an_openai_server(server: OpenAITestServer) -> None:
    server.fault = "garbage"
    backend = backend_for(server.url)
    try:
        with pytest.raises(BackendError) as caught:
            await backend.chat(request())
    finally:
        await backend.aclose()
    assert server.url in str(caught.value) and "/v1" in str(caught.value)


async def test_auto_picks_it_only_when_the_base_url_is_set_and_before_ollama(server: OpenAITestServer) -> None:
    unset = BackendProvider(engine_config(ollama_host=closed_port_url().removesuffix("/v1")))
    set_ = BackendProvider(engine_config(openai_base_url=server.url, judge_model=MODEL))
    try:
        name, why = await unset.choose()
        assert name != "openai" and "openai" not in why
        assert (await set_.choose())[0] == "openai"
        judge = await set_.judge()
        assert judge.backend.name == "openai"
    finally:
        await unset.aclose()
        await set_.aclose()


async def test_auto_passes_over_a_configured_server_that_does_not_answer() -> None:
    provider = BackendProvider(engine_config(openai_base_url=closed_port_url(), judge_model=MODEL))
    try:
        name, why = await provider.choose()
    finally:
        await provider.aclose()
    assert name != "openai" and "openai: " in why and "not reachable" in why
