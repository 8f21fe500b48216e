"""The sampling backend: the calling client's own model, reached through MCP sampling.

This module never imports `mcp`: the server hands it a `sample` function that performs the MCP request.
Sampling has no schema-constrained decoding, so the requested JSON schema is stated in the prompt and the
repair ladder does the rest.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from gavel.tools.engine.backend import ChatMessage, ChatReply, ChatRequest, ModelInfo


@dataclass(frozen=True)
class SampledText:
    text: str
    model: str
    truncated: bool = False


SampleFn = Callable[[ChatRequest], Awaitable[SampledText]]


class SamplingBackend:
    name = "sampling"

    def __init__(self, sample: SampleFn, *, client_name: str = "client") -> None:
        self._sample = sample
        self._client_name = client_name
        self._last_model: str | None = None

    async def chat(self, request: ChatRequest) -> ChatReply:
        if request.schema is not None:
            note = (
                "Answer with one JSON object only, no prose and no code fence, matching this JSON schema:\n"
                + json.dumps(request.schema, separators=(",", ":"))
            )
            request = ChatRequest(**{**request.__dict__, "messages": (*request.messages, ChatMessage("user", note))})
        started = time.perf_counter()
        sampled = await self._sample(request)
        self._last_model = sampled.model
        return ChatReply(
            text=sampled.text,
            model=sampled.model,
            duration_ms=(time.perf_counter() - started) * 1000,
            truncated=sampled.truncated,
        )

    async def model_info(self, model: str | None = None) -> ModelInfo:
        return ModelInfo(backend=self.name, model=self._last_model or f"{self._client_name} (client model)")

    async def reads_probabilities(self, model: str | None = None) -> bool:
        # MCP sampling returns text only: the client's model is read from what it generates.
        return False

    async def aclose(self) -> None:
        return None
