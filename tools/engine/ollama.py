"""The production backend: a local Ollama server through the official `ollama` client.

One `ollama.AsyncClient` (one httpx connection pool) per backend, built up front and shared by every call.
Structured output uses Ollama's `format` with the full JSON schema, so the server constrains decoding.

Every failure becomes a `BackendError` whose message names the host and the model and says what to do;
the original exception is kept as `__cause__`.

Streaming (`stream=True`): the NDJSON chunks are concatenated. A stream that ends before Ollama's
`done: true` chunk (a clean end of body, or the connection dropping after at least one chunk) is returned
as `ChatReply(truncated=True)` with the partial text and `extra["incomplete_stream"]` saying how it ended:
the engine already treats a truncated reply as "cut off" and never scores from it unless it parses, and
the partial text stays available for the audit trail. A stream that fails before any chunk arrives is a
`BackendError` like any other transport failure.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import ollama
import structlog

from gavel.tools.engine import context_window
from gavel.tools.engine.backend import ChatMessage, ChatReply, ChatRequest, ModelInfo, TokenLogprob
from gavel.tools.errors import BackendError, BackendTimeout
from gavel.tools.urls import redact_url

log = structlog.get_logger("gavel.ollama")

# What the client raises for a failure outside our code: refused connection, HTTP error status, transport
# errors, and a body that is not Ollama's JSON (ValueError covers JSONDecodeError and pydantic's
# ValidationError; TypeError is `ChatResponse(**part)` on JSON that is not an object).
_FAILURES = (ConnectionError, ollama.ResponseError, ollama.RequestError, httpx.HTTPError, ValueError, TypeError)


def canonical_model(name: str) -> str:
    """Ollama resolves a name without a tag to ':latest'; compare names the same way."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


class OllamaBackend:
    name = "ollama"

    def __init__(
        self,
        host: str,
        model: str,
        *,
        timeout_s: float,
        num_ctx: int = 8192,
        stream: bool = False,
        client: ollama.AsyncClient | None = None,
    ) -> None:
        # Messages and logs show the host with any password masked; only the client sees it.
        self.host = redact_url(host)
        self.model = model
        self.timeout_s = timeout_s
        self.num_ctx = num_ctx
        self.stream = stream
        # An injected client belongs to the caller, who closes it; the one built here is ours to close.
        self._owns_client = client is None
        self._client = client if client is not None else ollama.AsyncClient(host=host, timeout=timeout_s)
        self._reads_probabilities: dict[str, bool] = {}
        # Concurrent first calls wait for one probe instead of each sending their own.
        self._probe_lock = anyio.Lock()

    # chat

    async def chat(self, request: ChatRequest) -> ChatReply:
        model = request.model or self.model
        if not model:
            raise BackendError(f"no Ollama model is configured for {self.host}; set GAVEL_JUDGE_MODEL")
        options: dict[str, Any] = {
            "temperature": request.temperature,
            "top_k": request.top_k,
            "top_p": request.top_p,
            "seed": request.seed,
            "num_ctx": self.num_ctx,
            "num_predict": request.max_tokens,
            "repeat_penalty": request.repeat_penalty,
            # Ollama cuts a prompt longer than num_ctx to fit instead of refusing it. Keeping every token it can
            # makes a cut prompt fill the whole window, which `_fits` can then tell (Ollama's runner: a negative
            # num_keep keeps the prompt up to num_ctx - 1 tokens and reports what it kept as prompt_eval_count).
            "num_keep": -1,
        }
        # None means "the model's own default": leave the option out rather than send null to Ollama.
        options = {key: value for key, value in options.items() if value is not None}
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        started = time.perf_counter()
        try:
            # httpx's timeout bounds each read; this bounds the whole call, a slow trickle of chunks included.
            with anyio.fail_after(self.timeout_s):
                if self.stream and request.top_logprobs is None:
                    reply = await self._chat_streaming(model, messages, request.schema, options)
                else:
                    response = await self._client.chat(
                        model=model, messages=messages, format=request.schema, options=options, stream=False,
                        logprobs=True if request.top_logprobs is not None else None,
                        top_logprobs=request.top_logprobs,
                    )  # fmt: skip
                    reply = _Reply.from_response(response)
        except TimeoutError as exc:
            raise self._timeout_error(model) from exc
        except _FAILURES as exc:
            raise self._error(exc, model) from exc
        self._fits(reply, model)
        return ChatReply(
            text=reply.text,
            model=model,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            # Ollama reuses the prompt cache but does not report how many tokens it reused.
            cached_prompt_tokens=None,
            duration_ms=(time.perf_counter() - started) * 1000,
            truncated=reply.truncated,
            extra=reply.extra,
            top_logprobs=reply.top_logprobs,
        )

    async def _chat_streaming(
        self, model: str, messages: list[dict[str, str]], schema: dict[str, Any] | None, options: dict[str, Any]
    ) -> _Reply:
        parts: list[str] = []
        thinking: list[str] = []
        final: ollama.ChatResponse | None = None
        stream: AsyncIterator[ollama.ChatResponse] = await self._client.chat(
            model=model, messages=messages, format=schema, options=options, stream=True
        )
        # aclosing: leaving early (timeout, error) must still release the HTTP response.
        async with contextlib.aclosing(stream) as chunks:  # type: ignore[type-var]
            try:
                async for chunk in chunks:
                    parts.append(chunk.message.content or "")
                    thinking.append(chunk.message.thinking or "")
                    if chunk.done:
                        final = chunk
                        break
            except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
                if not parts:
                    raise
                return _Reply.incomplete("".join(parts), f"the connection dropped mid-stream: {exc}")
        if final is None:
            return _Reply.incomplete("".join(parts), "the stream ended without Ollama's done chunk")
        reply = _Reply.from_response(final)
        reply.text = "".join(parts)
        if any(thinking):
            reply.extra["thinking"] = "".join(thinking)
        return reply

    # errors

    def _timeout_error(self, model: str) -> BackendError:
        return BackendTimeout(
            f"Ollama at {self.host} timed out after {self.timeout_s:g}s running model {model}; "
            "raise GAVEL_TIMEOUT_S or use a smaller model (GAVEL_JUDGE_MODEL)"
        )

    def _fits(self, reply: _Reply, model: str) -> None:
        """Refuses a reply to a prompt Ollama cut to fit num_ctx: it read a prompt the judge was not given. A
        prompt that fits is at most num_ctx - 1 tokens, and a cut one (num_keep -1) reads that many or more."""
        if reply.prompt_tokens is not None and reply.prompt_tokens >= self.num_ctx - 1:
            raise context_window.too_long(
                context_window.Overflow(None, self.num_ctx), f"model {model} on Ollama at {self.host}",
                f"raise GAVEL_NUM_CTX (now {self.num_ctx})", cut_to=reply.prompt_tokens,
            )  # fmt: skip

    def _error(self, exc: BaseException, model: str) -> BackendError:
        host = self.host
        if isinstance(exc, httpx.TimeoutException):
            return self._timeout_error(model)
        # The client turns a refused connection into ConnectionError, except while streaming (raw ConnectError).
        if isinstance(exc, ConnectionError | httpx.ConnectError):
            return BackendError(
                f"Ollama is not reachable at {host} (model {model}); "
                "start it with `ollama serve` or set OLLAMA_HOST (or GAVEL_OLLAMA_HOST) to where it runs"
            )
        if isinstance(exc, ollama.ResponseError):
            if (overflow := context_window.refused(str(exc.error))) is not None:
                overflow = context_window.Overflow(overflow.asked, overflow.window or self.num_ctx)
                return context_window.too_long(
                    overflow, f"model {model} on Ollama at {host}", f"raise GAVEL_NUM_CTX (now {self.num_ctx})"
                )
            if exc.status_code == 404:
                return BackendError(
                    f"model {model} not found on {host}; run `ollama pull {model}` or set GAVEL_JUDGE_MODEL "
                    f"to a model listed by `ollama list` (Ollama said: {_clip(exc.error)})"
                )
            status = f"HTTP {exc.status_code}" if exc.status_code > 0 else "an error"
            return BackendError(
                f"Ollama at {host} answered {status} for model {model}: {_clip(exc.error)}; "
                "check the `ollama serve` log (out of memory: use a smaller model or lower GAVEL_NUM_CTX)"
            )
        if isinstance(exc, httpx.HTTPError):
            return BackendError(
                f"the connection to Ollama at {host} failed for model {model} ({type(exc).__name__}: {_clip(exc)}); "
                "check that OLLAMA_HOST points at a running Ollama server and see its log"
            )
        if isinstance(exc, ollama.RequestError):
            return BackendError(f"Ollama at {host} cannot be asked: {exc.error}; set GAVEL_JUDGE_MODEL to a model name")
        # ValueError / TypeError: the body was not Ollama's JSON (a proxy page, another service on the port).
        kind = "not valid JSON" if isinstance(exc, json.JSONDecodeError) else "not in Ollama's format"
        return BackendError(
            f"Ollama at {host} sent a reply for model {model} that is {kind} ({_clip(exc)}); "
            "check that OLLAMA_HOST points at an Ollama server, not another service"
        )

    # model info and probing

    async def _list(self) -> ollama.ListResponse:
        with anyio.fail_after(self.timeout_s):
            return await self._client.list()

    async def _find_digest(self, model: str) -> str | None:
        """The model's digest from /api/tags; None when Ollama does not have it. Raises what the client raises."""
        wanted = canonical_model(model)
        listing = await self._list()
        for entry in listing.models:
            if entry.model and canonical_model(entry.model) == wanted and entry.digest:
                return entry.digest
        return None

    async def model_info(self, model: str | None = None) -> ModelInfo:
        """The model and its digest, read from /api/tags each time: the model may have been pulled again under
        its name since (Probes decides how often to ask). An unknown digest (Ollama unreachable, model gone) is
        None, never guessed."""
        name = model or self.model
        digest = None
        try:
            digest = await self._find_digest(name)
        except (TimeoutError, *_FAILURES) as exc:
            log.warning("ollama model digest unavailable", host=self.host, model=name, error=str(exc))
        return ModelInfo(backend=self.name, model=name, digest=digest)

    async def probe(self) -> tuple[bool, str]:
        """(True, "") when Ollama answers and has the model, else (False, why). Bounded by the timeout."""
        try:
            digest = await self._find_digest(self.model)
        except TimeoutError:
            return False, f"Ollama at {self.host} did not answer /api/tags within {self.timeout_s:g}s"
        except _FAILURES as exc:
            return False, str(self._error(exc, self.model))
        if digest is None:
            return False, f"model {self.model} not found on {self.host}; run `ollama pull {self.model}`"
        return True, ""

    async def reads_probabilities(self, model: str | None = None) -> bool:
        """Asks the server once per model for a one-token reply with log-probabilities. Ollama before 0.12
        ignores the request and answers without them: then this backend's scores are generated. A probe
        that fails (Ollama down) decides nothing and is asked again next time."""
        name = model or self.model
        async with self._probe_lock:
            return await self._probe_probabilities(name)

    async def _probe_probabilities(self, name: str) -> bool:
        known = self._reads_probabilities.get(canonical_model(name))
        if known is not None:
            return known
        probe = ChatRequest(
            messages=(ChatMessage("user", "Is 2 greater than 1? Answer Yes or No."),),
            max_tokens=1, model=name, top_logprobs=5,
        )  # fmt: skip
        try:
            reply = await self.chat(probe)
        except BackendError as exc:
            log.warning("ollama log-probability probe failed", host=self.host, model=name, error=str(exc))
            return False
        found = bool(reply.top_logprobs and reply.top_logprobs[0])
        if not found:
            log.warning(
                "ollama returned no log-probabilities; scores from this model are generated, not read as "
                "probabilities (Ollama 0.12 or newer returns them)", host=self.host, model=name,
            )  # fmt: skip
        self._reads_probabilities[canonical_model(name)] = found
        return found

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.close()


class _Reply:
    """What `chat` needs from one Ollama answer, streamed or not."""

    def __init__(
        self,
        text: str,
        *,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        truncated: bool = False,
        extra: dict[str, Any] | None = None,
        top_logprobs: tuple[tuple[TokenLogprob, ...], ...] | None = None,
    ) -> None:
        self.text = text
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens
        self.truncated = truncated
        self.extra = extra or {}
        self.top_logprobs = top_logprobs

    @classmethod
    def from_response(cls, response: ollama.ChatResponse) -> _Reply:
        extra: dict[str, Any] = {"done_reason": response.done_reason}
        if response.total_duration is not None:
            extra["server_duration_ms"] = response.total_duration / 1e6
        if response.load_duration is not None:
            extra["load_duration_ms"] = response.load_duration / 1e6
        if response.message.thinking:
            extra["thinking"] = response.message.thinking
        return cls(
            response.message.content or "",
            prompt_tokens=response.prompt_eval_count,
            completion_tokens=response.eval_count,
            # "length": num_predict (max_tokens) or the context ran out before the model finished.
            truncated=response.done_reason == "length",
            extra=extra,
            top_logprobs=_top_logprobs(response),
        )

    @classmethod
    def incomplete(cls, text: str, why: str) -> _Reply:
        return cls(text, truncated=True, extra={"incomplete_stream": why})


def _top_logprobs(response: ollama.ChatResponse) -> tuple[tuple[TokenLogprob, ...], ...] | None:
    positions = getattr(response, "logprobs", None)
    if not positions:
        return None
    return tuple(tuple(TokenLogprob(c.token, float(c.logprob)) for c in (p.top_logprobs or ())) for p in positions)


def _clip(value: object, limit: int = 300) -> str:
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"
