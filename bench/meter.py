"""One Ollama-API endpoint for every judge, with one meter: the test server answering from the embedded model.

Gavel (through its production Ollama backend), RAGAS and DeepEval all send their model calls to the same
`OllamaTestServer` on 127.0.0.1, whose responder runs the embedded default GGUF in llama.cpp with its
prompt cache on. The responder records every call: tokens evaluated (`prompt_n`), tokens reused from the
cache (`cache_n`), tokens generated, seconds. Whatever a framework does, this counter sees the same thing.

Embeddings (RAGAS answer relevancy): a second llama.cpp instance of the same GGUF with mean pooling.
A token limit the caller did not set is capped at `DEFAULT_MAX_TOKENS` (Ollama's own default is unlimited,
which a looping small model on 2 cores would turn into minutes).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gavel.tools.engine.embedded import EmbeddedBackend, assemble_default_model
from tests.support.embedded_ollama import MODEL_NAME, ollama_reply, openai_body
from tests.support.ollama_server import OllamaReply, OllamaTestServer, Responder

DEFAULT_MAX_TOKENS = 1024
EMBED_MODEL_NAME = "gavel-embedded-embed:latest"
EMBED_CTX = 2048


@dataclass(frozen=True)
class CallRecord:
    kind: str  # "chat" or "embed"
    prompt_tokens_evaluated: int
    prompt_tokens_reused: int
    completion_tokens: int
    seconds: float
    truncated: bool = False


class Meter:
    """Every model call the endpoint served, in order; `mark()`/`since()` attribute them to a judged item."""

    def __init__(self) -> None:
        self._records: list[CallRecord] = []
        self._lock = threading.Lock()

    def add(self, record: CallRecord) -> None:
        with self._lock:
            self._records.append(record)

    def mark(self) -> int:
        with self._lock:
            return len(self._records)

    def since(self, mark: int) -> list[CallRecord]:
        with self._lock:
            return list(self._records[mark:])


def usage_of(records: list[CallRecord]) -> dict[str, Any]:
    chats = [r for r in records if r.kind == "chat"]
    embeds = [r for r in records if r.kind == "embed"]
    return {
        "llm_calls": len(chats),
        "prompt_tokens_evaluated": sum(r.prompt_tokens_evaluated for r in chats),
        "prompt_tokens_reused": sum(r.prompt_tokens_reused for r in chats),
        "completion_tokens": sum(r.completion_tokens for r in chats),
        "truncated_replies": sum(1 for r in chats if r.truncated),
        "model_seconds": round(sum(r.seconds for r in chats), 3),
        "embedding_calls": len(embeds),
        "embedding_tokens": sum(r.prompt_tokens_evaluated for r in embeds),
    }


def metered_responder(backend: EmbeddedBackend, meter: Meter) -> Responder:
    """`tests.support.embedded_ollama.embedded_responder`, plus the meter (it also reads llama.cpp's cache_n)."""
    backend.load_sync()

    def respond(request: dict[str, Any]) -> OllamaReply:
        started = time.perf_counter()
        result = backend.complete_sync(openai_body(request, DEFAULT_MAX_TOKENS))
        seconds = time.perf_counter() - started
        reply = ollama_reply(result)
        timings = result.get("timings") or {}
        meter.add(
            CallRecord(
                kind="chat",
                prompt_tokens_evaluated=int(timings.get("prompt_n") or 0),
                prompt_tokens_reused=int(timings.get("cache_n") or 0),
                completion_tokens=int(timings.get("predicted_n") or 0),
                seconds=seconds,
                truncated=reply.done_reason == "length",
            )
        )
        return reply

    return respond


class GgufEmbedder:
    """Mean-pooled embeddings from the same GGUF, in its own llama.cpp instance (one with embeddings on
    serves no chat)."""

    def __init__(self, meter: Meter, model_path: Path | None = None, threads: int = 2) -> None:
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(model_path or assemble_default_model())
        params.embedding = True
        params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
        params.n_ctx = EMBED_CTX
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.warmup = False
        self._server = xllamacpp.Server(params)
        self._meter = meter
        self._lock = threading.Lock()

    def __call__(self, texts: list[str]) -> list[list[float]]:
        started = time.perf_counter()
        with self._lock:
            result = self._server.handle_embeddings({"input": texts, "model": EMBED_MODEL_NAME})
        if "data" not in result:
            raise RuntimeError(f"llama.cpp refused the embedding request: {str(result)[:300]}")
        usage = result.get("usage") or {}
        self._meter.add(
            CallRecord(
                kind="embed",
                prompt_tokens_evaluated=int(usage.get("prompt_tokens") or 0),
                prompt_tokens_reused=0,
                completion_tokens=0,
                seconds=time.perf_counter() - started,
            )
        )
        return [item["embedding"] for item in sorted(result["data"], key=lambda d: d["index"])]


@dataclass
class Endpoint:
    server: OllamaTestServer
    meter: Meter
    model: str
    embed_model: str
    embeddings: str  # what /api/embed answers with, for the results

    @property
    def url(self) -> str:
        return self.server.url

    def close(self) -> None:
        self.server.stop()


def start_embedded_endpoint(
    *, embeddings: bool = True, model_path: Path | None = None, threads: int | None = None
) -> Endpoint:
    """The metered endpoint on the embedded model (loads it: seconds).

    `threads` None: every core, as Gavel's embedded backend. On a machine shared past its core count, 1 is
    faster: llama.cpp's threads wait for each other at every step, and a descheduled one stalls the rest.
    """
    meter = Meter()
    backend = EmbeddedBackend(model_path, parallel=1, threads=threads)
    embedder: Callable[[list[str]], list[list[float]]] | None = None
    how = "hash bag-of-words (tests.support.ollama_server.hash_embedding), not a model"
    if embeddings:
        embedder = GgufEmbedder(meter, model_path, threads=threads or backend.threads)
        how = "mean-pooled from the same GGUF (a second llama.cpp instance with embeddings on)"
    server = OllamaTestServer(
        metered_responder(backend, meter), models=[MODEL_NAME, EMBED_MODEL_NAME], embedder=embedder
    ).start()
    return Endpoint(server, meter, MODEL_NAME, EMBED_MODEL_NAME, how)


def start_scripted_endpoint(responder: Responder) -> Endpoint:
    """The same endpoint and meter over a scripted responder: for --smoke (no model)."""
    meter = Meter()

    def respond(request: dict[str, Any]) -> OllamaReply:
        started = time.perf_counter()
        answer = responder(request)
        content = answer if isinstance(answer, str) else str(answer)
        if isinstance(answer, dict):
            import json

            content = json.dumps(answer)
        prompt_chars = sum(len(str(m.get("content", ""))) for m in request.get("messages") or [])
        meter.add(CallRecord("chat", prompt_chars // 4, 0, len(content) // 4, time.perf_counter() - started))
        return OllamaReply(content=content)

    server = OllamaTestServer(respond, models=[MODEL_NAME, EMBED_MODEL_NAME]).start()
    return Endpoint(server, meter, MODEL_NAME, EMBED_MODEL_NAME, "hash bag-of-words (smoke)")
