"""The one seam between the engine and a model: the `Backend` protocol.

Implementations: `OllamaBackend` (production, the official client), `EmbeddedBackend` (llama.cpp in
process), `SamplingBackend` (the calling client's model, fed by the server), and the scripted backend
in the tests. The engine never asks which one it has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable


@dataclass(frozen=True)
class ChatMessage:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class TokenLogprob:
    """One candidate token at one reply position and its log-probability, as the backend reported it."""

    token: str
    logprob: float


@dataclass(frozen=True)
class ChatRequest:
    """One model call. `schema` asks for JSON output constrained to that JSON schema."""

    messages: tuple[ChatMessage, ...]
    schema: dict[str, Any] | None = None
    temperature: float = 0.0
    seed: int | None = 42
    max_tokens: int = 512
    top_k: int | None = 20
    top_p: float | None = 0.9
    model: str | None = None  # None: the backend's configured model
    # >1 discourages repeating recent tokens; None: the backend's default. Set for generation only: at
    # temperature 0 the embedded default otherwise loops on one line until the token limit.
    repeat_penalty: float | None = None
    # "screen": the model-read injection screen, kept in a llama.cpp slot of its own so its worked examples stay
    # in that slot's prompt cache. "apart": a one-token check whose prompt shares nothing with the checks' shared
    # prefix (the passages), asked in a slot of its own so it does not push that prefix out of their cache.
    purpose: Literal["judge", "generate", "screen", "apart"] = "judge"
    # Ask for the k most likely tokens (with log-probabilities) at each reply position; None: not asked.
    top_logprobs: int | None = None
    # Not generated but given: the reply is this text, and `ChatReply.text_logprobs` carries the log-probability
    # the model gives each of its tokens after `messages`. A backend that cannot score a given text leaves
    # `text_logprobs` None (and answers as asked otherwise, in one token: such requests set max_tokens 1); the
    # engine remembers that for the process. One that can but fails at it raises BackendError.
    score_text: str | None = None


@dataclass(frozen=True)
class ChatReply:
    text: str
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_prompt_tokens: int | None = None
    duration_ms: float = 0.0
    truncated: bool = False  # the reply hit the token limit or the stream ended early
    extra: dict[str, Any] = field(default_factory=dict)
    # Per reply token, the top-k candidates with log-probabilities; None when not asked for or not returned.
    top_logprobs: tuple[tuple[TokenLogprob, ...], ...] | None = None
    # For a `score_text` request: each of the text's tokens' log-probability, in order; None when not scored.
    text_logprobs: tuple[float, ...] | None = None
    # Tokens of that text with no log-probability of their own: llama.cpp reports a token that ends inside a
    # character (an emoji, a CJK character after a space) only together with the token that completes it.
    text_unread: int = 0
    # Where each of those log-probabilities' bytes end in the scored text's UTF-8 (llama.cpp's own tokens), for
    # telling a reading apart by sentence; empty when the backend does not say.
    text_ends: tuple[int, ...] = ()


@dataclass(frozen=True)
class ModelInfo:
    backend: str
    model: str
    digest: str | None = None  # Ollama's model digest, or the GGUF's sha256


@runtime_checkable
class Backend(Protocol):
    name: str

    async def chat(self, request: ChatRequest) -> ChatReply:
        """Run one call. Raises `BackendError` (with a message that says how to fix it) on failure."""
        ...

    async def model_info(self, model: str | None = None) -> ModelInfo:
        """Which model answers, with its digest where known."""
        ...

    async def reads_probabilities(self, model: str | None = None) -> bool:
        """Whether `top_logprobs` requests come back with log-probabilities (decided once per model)."""
        ...

    async def aclose(self) -> None: ...


class DelegatingBackend:
    """Passes every call to `inner`; a wrapper overrides only what it adds (remembering replies, timing calls)."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name = inner.name

    async def chat(self, request: ChatRequest) -> ChatReply:
        return await self.inner.chat(request)

    async def model_info(self, model: str | None = None) -> ModelInfo:
        return await self.inner.model_info(model)

    async def reads_probabilities(self, model: str | None = None) -> bool:
        return await self.inner.reads_probabilities(model)

    async def aclose(self) -> None:
        await self.inner.aclose()
