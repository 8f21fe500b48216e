"""One tool call's model calls: each under the process's limiter and the call's one deadline, its usage tallied,
its progress reported; once a call timed out, the backend is asked nothing more in that tool call.

The readouts (`ladder`, `by_generation`, `one_token`) and the judge make every model call through `ModelCalls`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import anyio

from gavel.tools.engine.backend import Backend, ChatMessage, ChatReply, ChatRequest
from gavel.tools.engine.config import EngineConfig
from gavel.tools.engine.probes import Probes, ProbeTimeout
from gavel.tools.engine.progress import Progress
from gavel.tools.engine.scores import Usage
from gavel.tools.errors import BackendError, BackendTimeout, ContextTooLong
from gavel.tools.guards import break_chat_markup


def usage_of(reply: ChatReply) -> Usage:
    return Usage(
        llm_calls=1,
        prompt_tokens=reply.prompt_tokens or 0,
        completion_tokens=reply.completion_tokens or 0,
        cached_prompt_tokens=reply.cached_prompt_tokens,
        duration_ms=reply.duration_ms,
    )


def written_out(request: ChatRequest) -> ChatRequest:
    """The request with the chat-template markup in its messages and its scored text broken up, so that the model
    reads it as text (`guards.break_chat_markup`). Judged texts, sources and custom rubrics all reach some message,
    and Gavel's own prompt text has no such markup, so every call is sent this way."""
    messages = tuple(replace(m, content=break_chat_markup(m.content)) for m in request.messages)
    score_text = None if request.score_text is None else break_chat_markup(request.score_text)
    return replace(request, messages=messages, score_text=score_text)


def _remembered(request: ChatRequest, answering: Backend) -> tuple[object, ...] | None:
    """The key under which a tool call remembers a reply that is the same whenever asked: a given text's scores
    (several metrics of one judgment read the same text's likelihood) and a one-token read of probabilities (a
    coherence check that states `unless_supported` asks the accuracy metric's checks again). None for the rest:
    a generated reply is asked again only to get another."""
    if request.score_text is not None:
        return ("scored", request.messages, request.score_text, request.model, id(answering))
    if request.max_tokens == 1 and request.top_logprobs is not None and request.temperature == 0.0:
        return ("read", request.messages, request.top_logprobs, request.model, id(answering))
    return None


class Tally:
    """Usage of one judgment, summed across concurrent calls."""

    def __init__(self) -> None:
        self.usage = Usage()

    def add(self, reply: ChatReply) -> None:
        self.usage = self.usage.add(usage_of(reply))

    def merge(self, usage: Usage) -> None:
        self.usage = self.usage.add(usage)

    def since(self, started: float) -> Usage:
        """The usage, with the wall time since `started` (a `time.perf_counter()`) as its duration."""
        return self.usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})


class _TimedOut(BackendTimeout):
    """A call's own timeout, already recorded as the end of its tool call's model work."""


class ModelCalls:
    """The model calls of one tool call, against `backend`; `deadline` is a `time.monotonic()`."""

    def __init__(
        self,
        backend: Backend,
        config: EngineConfig,
        limiter: anyio.CapacityLimiter,
        probes: Probes,
        deadline: float,
        progress: Progress,
    ) -> None:
        self.backend = backend
        self.config = config
        self.limiter = limiter
        self.probes = probes
        self.deadline = deadline
        self.progress = progress
        # Set when a call failed at the backend, so the provider re-probes before the next call.
        self.saw_backend_failure = False
        # Set once a model call of this tool call timed out: the backend is not asked again in this call.
        self.stopped: str | None = None
        self.answered = 0
        # Replies that are the same whenever asked, by request (`_remembered`).
        self._remembered: dict[tuple[object, ...], ChatReply] = {}

    def request(
        self,
        system: str,
        user: str,
        schema: dict[str, Any] | None,
        *,
        seed: int | None,
        temperature: float,
        max_tokens: int,
        model: str | None,
        history: Sequence[ChatMessage] = (),
        purpose: str = "judge",
        repeat_penalty: float | None = None,
    ) -> ChatRequest:
        return ChatRequest(
            messages=(ChatMessage("system", system), ChatMessage("user", user), *history),
            schema=schema,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            top_k=self.config.top_k,
            top_p=self.config.top_p,
            model=model,
            purpose=purpose,  # type: ignore[arg-type]
            repeat_penalty=repeat_penalty,
        )

    async def call(
        self, request: ChatRequest, tally: Tally, backend: Backend | None = None, *, step: str = "a model call"
    ) -> ChatReply:
        """One model call under the limiter and the call's deadline. Every timeout comes out as BackendTimeout.

        `step` (a metric, a sentence) names the call in the progress sent while it waits and once it is answered.
        """
        answering = backend or self.backend
        request = written_out(request)
        key = _remembered(request, answering)
        if key is not None and key in self._remembered:
            return self._remembered[key]
        if self.stopped is not None:
            raise BackendTimeout(self.stopped)
        remaining = self.deadline - time.monotonic()
        queued = True

        async def answer() -> ChatReply:
            nonlocal queued
            # The whole call's deadline bounds the wait for the limiter too.
            with anyio.fail_after(remaining):
                async with self.limiter:
                    if self.stopped is not None:  # another call timed out while this one queued
                        raise BackendTimeout(self.stopped)
                    queued = False
                    try:
                        # The backend enforces its own timeout; this outer bound guards against one that does not.
                        with anyio.fail_after(self.config.timeout_s * 1.5):
                            return await answering.chat(request)
                    except (BackendTimeout, TimeoutError) as exc:
                        # Stopped before the limiter is released: leaving progress' task group yields, and a call
                        # of this tool call queued for this slot would otherwise ask the silent model once more.
                        raise _TimedOut(self.stop_after(exc)) from exc

        def waiting_for() -> str:
            # The embedded backend says when it is assembling or loading its model (minutes, on the first call).
            busy = getattr(answering, "loading", None)
            return f"{step}: {busy or ('waiting for a free model slot' if queued else 'waiting for the model')}"

        try:
            if remaining <= 0:
                raise TimeoutError
            reply = await self.progress.waiting(answer, waiting_for)
        except _TimedOut:
            self.saw_backend_failure = True
            raise
        except (BackendTimeout, TimeoutError) as exc:
            self.saw_backend_failure = True
            if self.stopped is not None:
                raise BackendTimeout(self.stopped) from exc
            raise BackendTimeout(self.stop_after(exc)) from exc
        except ContextTooLong:
            raise  # the request's texts are too long; the backend answered as it should
        except BackendError:
            # Tells the provider to re-probe before the next call (Ollama may have come back).
            self.saw_backend_failure = True
            raise
        tally.add(reply)
        if key is not None:
            self._remembered[key] = reply
        self.probes.answered(answering)
        self.answered += 1
        await self.progress.tick(f"{step}: answered ({self.answered} model calls so far)")
        return reply

    def stop_after(self, exc: BaseException) -> str:
        """Why this call timed out; from now on the tool call asks the backend nothing more."""
        if time.monotonic() >= self.deadline:
            why = f"the tool call's deadline of {self.config.call_deadline_s:g}s (GAVEL_CALL_DEADLINE_S) passed"
        else:
            why = str(exc) or f"the model did not answer within {self.config.timeout_s * 1.5:g}s"
        if self.stopped is None:
            self.stopped = f"not asked: an earlier model call of this tool call timed out ({why})"
        return why

    def probe_time(self) -> float:
        """How long a probe may take: what is left of the call's deadline; nothing once the call stopped asking."""
        return 0.0 if self.stopped is not None else self.deadline - time.monotonic()

    def probe_timed_out(self, exc: ProbeTimeout) -> None:
        # A probe the deadline cut short: the backend is not asked anything more in this call.
        self.saw_backend_failure = True
        if self.stopped is None:
            self.stop_after(exc)


__all__ = ["ModelCalls", "Tally", "usage_of", "written_out"]
