"""A real HTTP server that speaks the Ollama API, for driving the official `ollama` client in tests.

Only the model is scripted (the `responder`); everything between the engine and it is real: the `ollama`
client, httpx, sockets, JSON and NDJSON framing, HTTP status codes. Faults can be set for the whole server
(`srv.fault = "slow"`) or queued for single requests (`srv.queue_fault("500", path="/api/chat")`).

    with OllamaTestServer(responder=lambda req: {"score": 4, "explanation": "ok"}, models=["m:latest"]) as srv:
        backend = OllamaBackend(srv.url, "m:latest", timeout_s=5)

Faults (names in `FAULTS`):
    down              the connection is closed without any reply (use `srv.stop()` to refuse connections)
    slow              sleep `srv.slow_s` seconds, then reply normally
    404_model         404 {"error": "model 'x' not found"} whatever the model
    500               500 {"error": "..."}
    too_long          400 with the words Ollama refuses a prompt longer than num_ctx in when context shift is off
    garbage           200 with a body that is not JSON
    truncated_stream  chat: stream some chunks, then drop the connection mid-body (no done:true chunk);
                      non-streaming requests get half of their body, then the connection drops
    stream_no_done    chat: a well-formed stream that simply ends without a done:true chunk
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any, Literal

from tests.support.fake_server import FakeModelServer, ModelHTTPServer, RecordedRequest

Fault = Literal["down", "slow", "404_model", "500", "too_long", "garbage", "truncated_stream", "stream_no_done"]
FAULTS: tuple[str, ...] = (
    "down", "slow", "404_model", "500", "too_long", "garbage", "truncated_stream", "stream_no_done"
)  # fmt: skip

EMBED_DIM = 64
JOIN_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class OllamaReply:
    """A full reply spec when a responder wants more than the content (token counts, done_reason)."""

    content: str
    prompt_eval_count: int | None = None
    eval_count: int | None = None
    done_reason: str = "stop"
    # Ollama's `logprobs`: per reply token {token, logprob, top_logprobs: [{token, logprob}]}. Sent only when
    # the request asked for them (`logprobs: true`), as Ollama 0.12+ does; an older server never sends them.
    logprobs: list[dict[str, Any]] | None = None


Responder = Callable[[dict[str, Any]], "str | dict[str, Any] | OllamaReply"]
Embedder = Callable[[list[str]], list[list[float]]]


def approx_tokens(text: str) -> int:
    """A stand-in tokenizer: about four characters a token, like most BPE vocabularies on English."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


def hash_embedding(text: str, dim: int = EMBED_DIM) -> list[float]:
    """A deterministic bag-of-words hashing vector: texts sharing words get a higher cosine similarity."""
    vector = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        index = int.from_bytes(digest[:4], "big") % dim
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0:
        # An empty or wordless text still needs a unit vector; a fixed axis keeps it deterministic.
        vector[0] = 1.0
        return vector
    return [v / norm for v in vector]


def model_digest(name: str) -> str:
    return hashlib.sha256(f"gavel-test-model:{canonical_model(name)}".encode()).hexdigest()


def canonical_model(name: str) -> str:
    """Ollama treats 'llama3' and 'llama3:latest' as the same model."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _echo_responder(request: dict[str, Any]) -> str:
    users = [m.get("content", "") for m in request.get("messages") or [] if m.get("role") == "user"]
    return users[-1] if users else ""


def scripted(*replies: str | dict[str, Any] | OllamaReply) -> Responder:
    """A responder that answers each chat with the next reply, in order; it fails loudly when it runs out."""
    pending = deque(replies)
    lock = threading.Lock()

    def responder(request: dict[str, Any]) -> str | dict[str, Any] | OllamaReply:
        with lock:
            if not pending:
                raise AssertionError("scripted Ollama responder ran out of replies")
            return pending.popleft()

    return responder


class OllamaTestServer(FakeModelServer):
    """A threaded stdlib HTTP server on 127.0.0.1 (random port) speaking the Ollama API."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        models: Sequence[str] = ("test-model:latest",),
        embedder: Embedder | None = None,
        fault: Fault | None = None,
        slow_s: float = 2.0,
        stream_chunk_chars: int = 8,
    ) -> None:
        super().__init__()
        self.responder: Responder = responder or _echo_responder
        self.models: list[str] = [canonical_model(m) for m in models]
        self.embedder: Embedder | None = embedder
        self.fault: Fault | None = fault
        self.slow_s = slow_s
        self.stream_chunk_chars = stream_chunk_chars
        self._queued: deque[tuple[Fault | None, str | None]] = deque()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        return _Handler

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # test controls

    def queue_fault(self, *faults: Fault | None, path: str | None = None) -> None:
        """Queue faults for the next requests (to `path` only, when given); None queues a normal reply."""
        with self._lock:
            self._queued.extend((f, path) for f in faults)

    def digest(self, model: str) -> str:
        return model_digest(model)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path == "/api/chat"]

    # used by the handler

    def _next_fault(self, path: str) -> Fault | None:
        with self._lock:
            for index, (fault, wanted) in enumerate(self._queued):
                if wanted is None or wanted == path:
                    del self._queued[index]
                    return fault
        return self.fault

    def _has_model(self, name: str) -> bool:
        return canonical_model(name) in self.models


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streaming, like Ollama's Go server
    timeout = 10  # an idle keep-alive connection must not hold a thread forever
    server: ModelHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        return None  # tests assert on `srv.requests`, not on an access log

    @property
    def owner(self) -> OllamaTestServer:
        return self.server.owner

    def do_GET(self) -> None:
        self._dispatch(None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        self._dispatch(body)

    def _dispatch(self, body: Any) -> None:
        path = self.path.split("?", 1)[0]
        self.owner._record(RecordedRequest(self.command, path, body, dict(self.headers.items())))
        fault = self.owner._next_fault(path)
        if fault == "down":
            self.close_connection = True
            return
        if fault == "slow" and self.owner._stopping.wait(self.owner.slow_s):
            self.close_connection = True
            return
        if fault == "500":
            self._json(500, {"error": "llama runner process has terminated: test fault"})
            return
        if fault == "too_long":
            # Ollama's own words (llm/llama_server.go, 2026).
            self._json(400, {"error": "the prompt is longer than the context length currently available to the "
                             "model; shorten the prompt, adjust the context length in settings, or use a model with "
                             "a longer context length"})  # fmt: skip
            return
        if fault == "garbage":
            self._send(200, b"<html>this is not Ollama</html>", "application/json")
            return
        routes = {
            ("POST", "/api/chat"): self._chat,
            ("GET", "/api/tags"): self._tags,
            ("GET", "/api/version"): self._version,
            ("POST", "/api/show"): self._show,
            ("POST", "/api/embed"): self._embed,
        }
        route = routes.get((self.command, path))
        if route is None:
            self._send(404, b"404 page not found", "text/plain")
            return
        if fault == "404_model" or (path in ("/api/chat", "/api/show", "/api/embed") and not self._known(body)):
            name = body.get("model") if isinstance(body, dict) else None
            self._json(404, {"error": f"model '{name}' not found"})
            return
        try:
            route(body if isinstance(body, dict) else {}, fault)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a timeout test); nothing to answer

    def _known(self, body: Any) -> bool:
        return isinstance(body, dict) and isinstance(body.get("model"), str) and self.owner._has_model(body["model"])

    # endpoints

    def _chat(self, body: dict[str, Any], fault: Fault | None) -> None:
        try:
            answer = self.owner.responder(body)
        except Exception as exc:  # noqa: BLE001 - a broken responder is reported to the client and kept for the test
            self.owner.errors.append(exc)
            self._json(500, {"error": f"test responder failed: {exc!r}"})
            return
        reply = _as_reply(answer, body)
        model = body["model"]
        final = {
            "model": model,
            "created_at": _now(),
            "message": {"role": "assistant", "content": reply.content},
            "done": True,
            "done_reason": reply.done_reason,
            "total_duration": 1_000_000,
            "load_duration": 100_000,
            "prompt_eval_count": reply.prompt_eval_count,
            "prompt_eval_duration": 400_000,
            "eval_count": reply.eval_count,
            "eval_duration": 500_000,
        }
        if reply.logprobs is not None and body.get("logprobs"):
            final["logprobs"] = reply.logprobs
        # Ollama's API streams unless told otherwise.
        if not body.get("stream", True):
            if fault == "truncated_stream":
                data = json.dumps(final).encode()
                self._send_cut(200, data, "application/json")
                return
            self._json(200, final)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        step = max(1, self.owner.stream_chunk_chars)
        pieces = [reply.content[i : i + step] for i in range(0, len(reply.content), step)] or [""]
        if fault == "truncated_stream":
            pieces = pieces[: max(1, len(pieces) // 2)]
        for piece in pieces:
            chunk = {"model": model, "created_at": _now(), "message": {"role": "assistant", "content": piece}}
            self._chunk(json.dumps({**chunk, "done": False}).encode() + b"\n")
        if fault == "truncated_stream":
            self.close_connection = True  # no terminating chunk: the body ends mid-stream
            return
        if fault != "stream_no_done":
            self._chunk(json.dumps({**final, "message": {"role": "assistant", "content": ""}}).encode() + b"\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _tags(self, body: dict[str, Any], fault: Fault | None) -> None:
        models = [
            {
                "name": name,
                "model": name,
                "modified_at": "2026-01-01T00:00:00Z",
                "size": 1_000_000,
                "digest": model_digest(name),
                "details": _details(),
            }
            for name in self.owner.models
        ]
        self._json(200, {"models": models})

    def _version(self, body: dict[str, Any], fault: Fault | None) -> None:
        self._json(200, {"version": "0.0.0-gavel-test"})

    def _show(self, body: dict[str, Any], fault: Fault | None) -> None:
        self._json(
            200,
            {
                "modelfile": f"FROM {body['model']}",
                "parameters": "num_ctx 8192",
                "template": "{{ .Prompt }}",
                "details": _details(),
                "model_info": {"general.architecture": "test", "test.context_length": 32768},
                "capabilities": ["completion"],
                "modified_at": "2026-01-01T00:00:00Z",
            },
        )

    def _embed(self, body: dict[str, Any], fault: Fault | None) -> None:
        raw = body.get("input", "")
        texts = [raw] if isinstance(raw, str) else [str(t) for t in raw]
        try:
            vectors = self.owner.embedder(texts) if self.owner.embedder else [hash_embedding(t) for t in texts]
        except Exception as exc:  # noqa: BLE001 - a broken embedder is reported to the client and kept for the test
            self.owner.errors.append(exc)
            self._json(500, {"error": f"test embedder failed: {exc!r}"})
            return
        self._json(
            200,
            {
                "model": body["model"],
                "embeddings": vectors,
                "total_duration": 1_000_000,
                "load_duration": 100_000,
                "prompt_eval_count": sum(approx_tokens(t) for t in texts),
            },
        )

    # framing

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json; charset=utf-8")

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_cut(self, status: int, data: bytes, content_type: str) -> None:
        """Announce the full length, send half, hang up: a reply cut off in transit."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()
        self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _as_reply(answer: str | dict[str, Any] | OllamaReply, request: dict[str, Any]) -> OllamaReply:
    """Fill in what real Ollama reports: token counts, and the num_predict cut-off with done_reason 'length'."""
    if isinstance(answer, OllamaReply):
        reply = answer
    else:
        reply = OllamaReply(answer if isinstance(answer, str) else json.dumps(answer))
    content, done_reason = reply.content, reply.done_reason
    num_predict = (request.get("options") or {}).get("num_predict")
    if isinstance(num_predict, int) and num_predict > 0 and approx_tokens(content) > num_predict:
        content, done_reason = content[: num_predict * 4], "length"
    prompt_chars = "".join(str(m.get("content", "")) for m in request.get("messages") or [])
    return OllamaReply(
        content=content,
        prompt_eval_count=reply.prompt_eval_count
        if reply.prompt_eval_count is not None
        else approx_tokens(prompt_chars),
        eval_count=reply.eval_count if reply.eval_count is not None else approx_tokens(content),
        done_reason=done_reason,
        logprobs=reply.logprobs,
    )


def _details() -> dict[str, Any]:
    return {
        "parent_model": "",
        "format": "gguf",
        "family": "test",
        "families": ["test"],
        "parameter_size": "1B",
        "quantization_level": "Q4_K_M",
    }


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")
