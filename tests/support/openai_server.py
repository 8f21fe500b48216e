"""A real HTTP server that speaks the OpenAI chat-completions API (as vLLM, llama-server and LM Studio do),
for driving the official `openai` client in tests.

Only the model is scripted (the `responder`); the `openai` client, its HTTP stack, sockets, JSON and status
codes are real. Faults can be set for the whole server (`srv.fault = "slow"`) or queued per request
(`srv.queue_fault("429")`).

    with OpenAITestServer(responder=lambda body: '{"score": 4}', models=["judge"]) as srv:
        backend = OpenAIBackend(srv.url, "judge", timeout_s=5)

Faults: `down` (close without a reply), `slow` (sleep `slow_s`: a server that never answers in time),
`429` (with `Retry-After: srv.retry_after`), `500`, `too_long` (400, llama-server's refusal of a prompt longer
than its window), `garbage` (200, not JSON). A server built with
`api_key` answers 401 to any other bearer token; an unknown model is a 404 in vLLM's words; a server built
with `json_schema=False` answers 400 to `response_format: json_schema`, like one that does not support it.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any, Literal

from tests.support.fake_server import FakeModelServer, RecordedRequest
from tests.support.ollama_server import _Handler as _OllamaHandler
from tests.support.ollama_server import approx_tokens

Fault = Literal["down", "slow", "429", "500", "too_long", "garbage"]


@dataclass(frozen=True)
class OpenAIReply:
    """A full reply when a responder wants more than the content."""

    content: str
    finish_reason: str = "stop"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    # OpenAI's `logprobs.content`: per token {token, logprob, top_logprobs: [{token, logprob}]}; sent only when
    # the request asked (`logprobs: true`) and the server was built with `logprobs=True`.
    logprobs: list[dict[str, Any]] | None = None


Responder = Callable[[dict[str, Any]], "str | dict[str, Any] | OpenAIReply"]


def _echo(body: dict[str, Any]) -> str:
    users = [m.get("content", "") for m in body.get("messages") or [] if m.get("role") == "user"]
    return users[-1] if users else ""


def yes_no_logprobs(yes: float = -0.1, no: float = -2.4) -> list[dict[str, Any]]:
    """One reply position whose top candidates are Yes and No."""
    return [{"token": "Yes", "logprob": yes, "top_logprobs": [
        {"token": "Yes", "logprob": yes}, {"token": "No", "logprob": no}]}]  # fmt: skip


class OpenAITestServer(FakeModelServer):
    """A threaded stdlib HTTP server on 127.0.0.1 (random port) speaking OpenAI's /v1 API."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        models: Sequence[str] = ("test-model",),
        api_key: str | None = None,
        fingerprint: str | None = "fp_gavel_test",
        logprobs: bool = True,
        json_schema: bool = True,
        fault: Fault | None = None,
        slow_s: float = 30.0,
        retry_after: str = "0",
        passthrough: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        super().__init__()
        self.responder: Responder = responder or _echo
        self.models = list(models)
        self.api_key = api_key
        self.fingerprint = fingerprint
        self.logprobs = logprobs
        self.json_schema = json_schema
        self.fault: Fault | None = fault
        self.slow_s = slow_s
        self.retry_after = retry_after
        # A full OpenAI completion maker (the embedded model): its result is sent as it is.
        self.passthrough = passthrough
        self._queued: deque[Fault | None] = deque()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        return _Handler

    @property
    def url(self) -> str:
        """The API root, as users give it to GAVEL_OPENAI_BASE_URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    def queue_fault(self, *faults: Fault | None) -> None:
        with self._lock:
            self._queued.extend(faults)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path == "/v1/chat/completions"]

    def _next_fault(self) -> Fault | None:
        with self._lock:
            if self._queued:
                return self._queued.popleft()
        return self.fault


class _Handler(_OllamaHandler):
    @property
    def owner(self) -> OpenAITestServer:  # type: ignore[override]
        return self.server.owner  # type: ignore[return-value]

    def _error(self, status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> None:
        data = json.dumps({"error": {"message": message, "type": kind, "code": status}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _dispatch(self, body: Any) -> None:
        owner = self.owner
        path = self.path.split("?", 1)[0]
        owner._record(RecordedRequest(self.command, path, body, dict(self.headers.items())))
        if owner.api_key is not None and self.headers.get("Authorization") != f"Bearer {owner.api_key}":
            self._error(401, "Invalid API key", "authentication_error")
            return
        fault = owner._next_fault()
        if fault == "down":
            self.close_connection = True
            return
        if fault == "slow" and owner._stopping.wait(owner.slow_s):
            self.close_connection = True
            return
        if fault == "429":
            self._error(429, "Too many requests", "rate_limit_error", {"Retry-After": owner.retry_after})
            return
        if fault == "500":
            self._error(500, "CUDA out of memory: test fault", "internal_error")
            return
        if fault == "too_long":  # llama-server's words for a prompt longer than a slot's window
            message = "request (9000 tokens) exceeds the available context size (4096 tokens), try increasing it"
            self._error(400, message, "exceed_context_size_error")
            return
        if fault == "garbage":
            self._send(200, b"<html>this is not an OpenAI server</html>", "application/json")
            return
        try:
            if (self.command, path) == ("GET", "/v1/models"):
                data = [{"id": m, "object": "model", "created": 0, "owned_by": "gavel-test"} for m in owner.models]
                self._json(200, {"object": "list", "data": data})
            elif (self.command, path) == ("POST", "/v1/chat/completions") and isinstance(body, dict):
                self._chat(body)
            else:
                self._error(404, f"no route {self.command} {path}", "not_found")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _chat(self, body: dict[str, Any]) -> None:
        owner = self.owner
        model = body.get("model")
        if model not in owner.models:
            self._error(404, f"The model `{model}` does not exist.", "NotFoundError")
            return
        response_format = body.get("response_format") or {}
        if response_format.get("type") == "json_schema" and not owner.json_schema:
            self._error(400, "response_format json_schema is not supported by this server", "BadRequestError")
            return
        try:
            if owner.passthrough is not None:
                result = owner.passthrough(body)
                result.setdefault("model", model)
                if owner.fingerprint:
                    result["system_fingerprint"] = owner.fingerprint
                self._json(200, result)
                return
            answer = owner.responder(body)
        except Exception as exc:  # noqa: BLE001 - a broken responder is reported to the client and kept for the test
            owner.errors.append(exc)
            self._error(500, f"test responder failed: {exc!r}", "internal_error")
            return
        reply = answer if isinstance(answer, OpenAIReply) else OpenAIReply(
            answer if isinstance(answer, str) else json.dumps(answer))  # fmt: skip
        content, finish = reply.content, reply.finish_reason
        limit = body.get("max_tokens")
        if isinstance(limit, int) and limit > 0 and approx_tokens(content) > limit:
            content, finish = content[: limit * 4], "length"
        prompt = "".join(str(m.get("content", "")) for m in body.get("messages") or [])
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": finish,
            "logprobs": None,
        }
        if body.get("logprobs") and owner.logprobs and reply.logprobs is not None:
            choice["logprobs"] = {"content": reply.logprobs}
        usage = {
            "prompt_tokens": reply.prompt_tokens if reply.prompt_tokens is not None else approx_tokens(prompt),
            "completion_tokens": reply.completion_tokens
            if reply.completion_tokens is not None
            else approx_tokens(content),
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        result: dict[str, Any] = {
            "id": f"chatcmpl-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [choice],
            "usage": usage,
        }
        if owner.fingerprint:
            result["system_fingerprint"] = owner.fingerprint
        self._json(200, result)


def embedded_passthrough(backend: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Answer with the embedded model: llama.cpp already takes and returns OpenAI's chat-completion body."""
    backend.load_sync()

    def complete(body: dict[str, Any]) -> dict[str, Any]:
        request = {k: v for k, v in body.items() if k != "model"}
        request.setdefault("max_tokens", 512)
        result = backend.complete_sync(request)
        if "choices" not in result:
            raise RuntimeError(f"llama.cpp refused the request: {str(result)[:300]}")
        return result

    return complete
