"""A scripted model backend: replies queued per call, every request recorded (inspect_ai's mockllm pattern).

The only fake in the suite, and it sits exactly at the model seam (`Backend`). Tests assert on what the
engine did with the replies (parsing, aggregation, verdict rules), never on the canned text itself.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

import anyio

from gavel.tools.engine.backend import ChatReply, ChatRequest, ModelInfo, TokenLogprob
from gavel.tools.errors import BackendError

Reply = str | dict[str, Any] | ChatReply | BaseException | Callable[[ChatRequest], "str | dict[str, Any] | ChatReply"]


def last_block(request: ChatRequest) -> str:
    """What the request's last fenced block holds: the text, sentence or paragraph a check asks about."""
    return request.messages[-1].content.rsplit("<<<\n", 1)[1].split("\n>>>", 1)[0]


def token_reply(probabilities: Mapping[str, float]) -> ChatReply:
    """A one-token reply whose first position has these tokens with these probabilities (the rest of the
    mass on tokens that are no answer), as a backend with log-probabilities returns it."""
    ranked = sorted(probabilities.items(), key=lambda item: -item[1])
    top = tuple(TokenLogprob(token, math.log(p)) for token, p in ranked if p > 0)
    return ChatReply(text=ranked[0][0] if ranked else "", model="", top_logprobs=(top,))


def yes_no(p_yes: float, mass: float = 1.0) -> ChatReply:
    """P(yes) = p_yes among the answer tokens, which hold `mass` of the probability."""
    rest = {"The": 1 - mass} if mass < 1 else {}
    return token_reply({"Yes": p_yes * mass, "No": (1 - p_yes) * mass, **rest})


class ScriptedBackend:
    name = "scripted"

    def __init__(
        self,
        replies: list[Reply] | None = None,
        *,
        default: Reply | None = None,
        latency_s: float = 0.0,
        model: str = "scripted-model",
        probabilities: bool = False,
    ) -> None:
        self.replies: list[Reply] = list(replies or [])
        self.default = default
        self.latency_s = latency_s
        self.model = model
        # True: this model returns log-probabilities, so the judge reads verdicts from them.
        self.probabilities = probabilities
        self.requests: list[ChatRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    @property
    def prompts(self) -> list[str]:
        return ["\n".join(m.content for m in r.messages) for r in self.requests]

    async def chat(self, request: ChatRequest) -> ChatReply:
        self.requests.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency_s:
                await anyio.sleep(self.latency_s)
            if self.replies:
                reply = self.replies.pop(0)
            elif self.default is not None:
                reply = self.default
            else:
                raise AssertionError(f"ScriptedBackend ran out of replies at call {len(self.requests)}")
            if isinstance(reply, BaseException):
                raise reply
            if callable(reply):
                reply = reply(request)
            if isinstance(reply, ChatReply):
                return ChatReply(
                    **{**reply.__dict__, "model": request.model or self.model, "duration_ms": self.latency_s * 1000}
                )
            text = reply if isinstance(reply, str) else json.dumps(reply)
            prompt_chars = sum(len(m.content) for m in request.messages)
            return ChatReply(
                text=text,
                model=request.model or self.model,
                prompt_tokens=prompt_chars // 4,
                completion_tokens=len(text) // 4,
                duration_ms=self.latency_s * 1000,
            )
        finally:
            self.in_flight -= 1

    async def model_info(self, model: str | None = None) -> ModelInfo:
        return ModelInfo(backend=self.name, model=model or self.model, digest="sha256:scripted")

    async def reads_probabilities(self, model: str | None = None) -> bool:
        return self.probabilities

    async def aclose(self) -> None:
        return None


def backend_error(message: str = "scripted backend failure") -> BackendError:
    return BackendError(message)
