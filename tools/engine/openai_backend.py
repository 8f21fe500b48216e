"""A backend for any OpenAI-compatible server (vLLM, llama.cpp's llama-server, LM Studio, LocalAI, SGLang)
through the official `openai` client.

One `openai.AsyncOpenAI` (one connection pool) per backend, built up front and shared by every call. The
client's own retries are off: every call is bounded by `timeout_s` as a whole (`anyio.fail_after`), and the
one retry this backend makes is for HTTP 429 with a `Retry-After` that fits in what is left of that bound.

Structured output asks for `response_format: json_schema` with the full schema. A server that refuses it
(HTTP 400 naming `response_format` or `json_schema`) is asked again without it, and that model is not asked
for it again: the engine parses and validates every reply anyway, and re-asks once with the error.

Provenance: the model id, and as its digest the `system_fingerprint` the server reports (OpenAI: its serving
configuration), named as such: `system_fingerprint:<value>`. llama-server's fingerprint is its own build
(`b<build>-<commit>`, `b0-unknown` without build information), which says nothing of the model file it loaded, so
it is no digest. A server that reports none (vLLM, LM Studio) or only its build gives digest None, which the ledger
treats as "cannot vouch that an old judgment is what this model would say": never cached.

Every failure becomes a `BackendError` whose message names the URL and the model and says what to do; the
original exception is kept as `__cause__`. The API key is never part of a message or a log line.
"""

from __future__ import annotations

import re
import time
from typing import Any

import anyio
import openai
import structlog
from pydantic import SecretStr
from pydantic import ValidationError as PydanticValidationError

from gavel.tools.engine import context_window
from gavel.tools.engine.backend import ChatMessage, ChatReply, ChatRequest, ModelInfo, TokenLogprob
from gavel.tools.engine.openai_body import beyond_openai, chat_body
from gavel.tools.errors import BackendError, BackendTimeout
from gavel.tools.urls import redact_url

log = structlog.get_logger("gavel.openai")

# The client insists on a key; a local server without auth ignores the header. Sent when no key is set, so an
# OPENAI_API_KEY in the environment is never sent to a server it was not meant for.
NO_KEY = "none"
# A 429's Retry-After longer than this is reported, not waited for.
MAX_RETRY_AFTER_S = 30.0

_FAILURES = (openai.APIError, PydanticValidationError, ValueError, TypeError)
# Fingerprints that name no model: llama.cpp's server reports its build (b<build number>-<commit>, or b0-unknown),
# Ollama's OpenAI-compatible endpoint the same "fp_ollama" for every model.
_SERVER_BUILD = re.compile(r"^(?:b\d+-|fp_ollama$)")


class OpenAIBackend:
    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str | None,
        *,
        timeout_s: float,
        api_key: SecretStr | None = None,
        client: openai.AsyncOpenAI | None = None,
    ) -> None:
        # Messages, logs and the model's identity show the URL with any password masked; only the client sees it.
        self.base_url = redact_url(base_url.rstrip("/"))
        self.model = model  # None: the first model the server lists
        self.timeout_s = timeout_s
        self._owns_client = client is None
        self._client = client or openai.AsyncOpenAI(
            base_url=base_url.rstrip("/"),
            api_key=api_key.get_secret_value() if api_key is not None else NO_KEY,
            timeout=timeout_s,
            max_retries=0,
        )
        self._fingerprints: dict[str, str] = {}
        self._identified: set[str] = set()
        self._reads_probabilities: dict[str, bool] = {}
        self._no_json_schema: set[str] = set()
        self._listed: str | None = None

    def __repr__(self) -> str:  # never the key
        return f"OpenAIBackend(base_url={self.base_url!r}, model={self.model!r})"

    # model names

    async def _list_models(self) -> list[str]:
        with anyio.fail_after(self.timeout_s):
            page = await self._client.models.list()
        return [m.id for m in page.data]

    async def _model(self, requested: str | None) -> str:
        name = requested or self.model or self._listed
        if name:
            return name
        try:
            ids = await self._list_models()
        except TimeoutError as exc:
            raise self._timeout_error("(unset)") from exc
        except _FAILURES as exc:
            raise self._error(exc, "(unset)") from exc
        if not ids:
            raise BackendError(
                f"the OpenAI-compatible server at {self.base_url} lists no models; load one there, "
                "or set GAVEL_JUDGE_MODEL"
            )
        self._listed = ids[0]
        log.info("openai model chosen from the server's list", base_url=self.base_url, model=ids[0], listed=ids[:10])
        return ids[0]

    # chat

    def _body(self, request: ChatRequest, model: str) -> dict[str, Any]:
        body = chat_body(request, {"model": model}, json_schema=model not in self._no_json_schema)
        # Not in OpenAI's API, so sent as extra_body: servers that know them use them, others ignore them.
        extra = beyond_openai(request)
        if extra:
            body["extra_body"] = extra
        return body

    async def chat(self, request: ChatRequest) -> ChatReply:
        started = time.perf_counter()
        deadline = time.monotonic() + self.timeout_s
        model = await self._model(request.model)
        body = self._body(request, model)
        response: Any = None
        try:
            with anyio.fail_after(max(0.001, deadline - time.monotonic())):
                for attempt in range(3):
                    try:
                        response = await self._client.chat.completions.create(**body)
                        break
                    except openai.RateLimitError as exc:
                        wait = _retry_after(exc)
                        if attempt > 0 or wait is None or wait > min(MAX_RETRY_AFTER_S, deadline - time.monotonic()):
                            raise
                        log.info("openai server rate-limited the call; retrying", base_url=self.base_url, wait_s=wait)
                        await anyio.sleep(wait)
                    except openai.BadRequestError as exc:
                        if "response_format" not in body or not _refuses_schema(exc):
                            raise
                        log.warning(
                            "the server refused JSON-schema output; asking this model without it from now on",
                            base_url=self.base_url, model=model, error=_clip(exc.message),
                        )  # fmt: skip
                        self._no_json_schema.add(model)
                        body.pop("response_format")
        except TimeoutError as exc:
            raise self._timeout_error(model) from exc
        except _FAILURES as exc:
            raise self._error(exc, model) from exc
        return self._reply(response, model, (time.perf_counter() - started) * 1000)

    def _reply(self, response: Any, model: str, duration_ms: float) -> ChatReply:
        if not getattr(response, "choices", None):
            raise BackendError(
                f"the OpenAI-compatible server at {self.base_url} answered model {model} without any choice; "
                "check that GAVEL_OPENAI_BASE_URL points at the API root (usually ending in /v1)"
            )
        choice = response.choices[0]
        fingerprint = getattr(response, "system_fingerprint", None)
        if fingerprint:
            self._fingerprints[model] = str(fingerprint)
        self._identified.add(model)
        usage = getattr(response, "usage", None)
        details = getattr(usage, "prompt_tokens_details", None) if usage is not None else None
        extra: dict[str, Any] = {"finish_reason": choice.finish_reason}
        if fingerprint:
            extra["system_fingerprint"] = fingerprint
        reasoning = getattr(choice.message, "reasoning_content", None)
        if reasoning:
            extra["thinking"] = reasoning
        return ChatReply(
            text=choice.message.content or "",
            model=model,
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
            cached_prompt_tokens=getattr(details, "cached_tokens", None),
            duration_ms=duration_ms,
            truncated=choice.finish_reason == "length",
            extra=extra,
            top_logprobs=_top_logprobs(choice),
        )

    # errors

    def _timeout_error(self, model: str) -> BackendError:
        return BackendTimeout(
            f"the OpenAI-compatible server at {self.base_url} timed out after {self.timeout_s:g}s running model "
            f"{model}; raise GAVEL_TIMEOUT_S, lower GAVEL_MAX_CONCURRENCY, or use a smaller model"
        )

    def _error(self, exc: BaseException, model: str) -> BackendError:
        url = self.base_url
        if isinstance(exc, openai.APITimeoutError):
            return self._timeout_error(model)
        if isinstance(exc, openai.APIConnectionError):
            return BackendError(
                f"the OpenAI-compatible server at {url} is not reachable (model {model}); start it (vLLM, "
                "llama-server, LM Studio...) or set GAVEL_OPENAI_BASE_URL to where it runs"
            )
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return BackendError(
                f"the OpenAI-compatible server at {url} refused the API key (HTTP {exc.status_code}) for model "
                f"{model}; set GAVEL_OPENAI_API_KEY to a key that server accepts"
            )
        if isinstance(exc, openai.NotFoundError):
            return BackendError(
                f"model {model} not found on {url} (HTTP 404: {_clip(exc.message)}); set GAVEL_JUDGE_MODEL to a "
                f"model the server lists at {url}/models, or check that the URL ends in /v1"
            )
        if isinstance(exc, openai.RateLimitError):
            wait = _retry_after(exc)
            after = f", asked to retry after {wait:g}s" if wait is not None else ""
            return BackendError(
                f"the OpenAI-compatible server at {url} is rate-limiting model {model} (HTTP 429{after}); "
                "lower GAVEL_MAX_CONCURRENCY or raise the server's limit"
            )
        if isinstance(exc, openai.BadRequestError) and (overflow := context_window.refused(str(exc.message))):
            return context_window.too_long(
                overflow, f"model {model} at {url}", "raise that server's context size (llama-server --ctx-size, "
                "vLLM --max-model-len)"
            )  # fmt: skip
        if isinstance(exc, openai.APIStatusError):
            return BackendError(
                f"the OpenAI-compatible server at {url} answered HTTP {exc.status_code} for model {model}: "
                f"{_clip(exc.message)}; check that server's log (out of memory: use a smaller model or context)"
            )
        return BackendError(
            f"the OpenAI-compatible server at {url} sent a reply for model {model} that is not an OpenAI chat "
            f"completion ({type(exc).__name__}: {_clip(exc)}); check that GAVEL_OPENAI_BASE_URL points at an "
            "OpenAI-compatible API (usually ending in /v1)"
        )

    # model info and probing

    async def _identify(self, model: str) -> None:
        """One one-token call with log-probabilities: learns the fingerprint and whether log-probabilities
        come back. Raises BackendError when the call fails (which decides nothing)."""
        probe = ChatRequest(
            messages=(ChatMessage("user", "Is 2 greater than 1? Answer Yes or No."),),
            max_tokens=1, model=model, top_logprobs=5,
        )  # fmt: skip
        reply = await self.chat(probe)
        found = bool(reply.top_logprobs and reply.top_logprobs[0])
        if model not in self._reads_probabilities:
            if not found:
                log.warning(
                    "the OpenAI-compatible server returned no log-probabilities; scores from this model are "
                    "generated, not read as probabilities", base_url=self.base_url, model=model,
                )  # fmt: skip
            self._reads_probabilities[model] = found

    async def model_info(self, model: str | None = None) -> ModelInfo:
        """The model id and the server's `system_fingerprint` as its digest (None when it reports none, or
        when the server cannot be asked now: never guessed)."""
        try:
            name = await self._model(model)
        except BackendError as exc:
            log.warning("openai model unknown", base_url=self.base_url, error=str(exc))
            return ModelInfo(backend=self.name, model=model or self.model or "", digest=None)
        if name not in self._identified:
            try:
                await self._identify(name)
            except BackendError as exc:
                log.warning("openai model fingerprint unavailable", base_url=self.base_url, model=name, error=str(exc))
        return ModelInfo(backend=self.name, model=name, digest=self._digest(name))

    def _digest(self, model: str) -> str | None:
        """What the server's fingerprint says of `model`, named by its source; None when it says nothing of it."""
        fingerprint = self._fingerprints.get(model)
        if not fingerprint:
            return None
        if _SERVER_BUILD.match(fingerprint):
            log.info(
                "the server's system_fingerprint names no model: no model digest",
                base_url=self.base_url, model=model, system_fingerprint=fingerprint,
            )  # fmt: skip
            return None
        # With the server's address: two servers may report one fingerprint for different models of one name.
        return f"system_fingerprint:{fingerprint}@{self.base_url}"

    async def probe(self) -> tuple[bool, str]:
        """(True, "") when the server answers /models and serves the model (when one is set), else (False, why)."""
        shown = self.model or "(first listed)"
        try:
            ids = await self._list_models()
        except TimeoutError:
            return False, f"the OpenAI-compatible server at {self.base_url} did not answer /models within " + (
                f"{self.timeout_s:g}s"
            )
        except _FAILURES as exc:
            return False, str(self._error(exc, shown))
        if not ids:
            return False, f"the OpenAI-compatible server at {self.base_url} lists no models; load one there"
        if self.model is not None and self.model not in ids:
            return False, (
                f"model {self.model} is not served at {self.base_url} (it serves: {', '.join(ids[:10])}); "
                "set GAVEL_JUDGE_MODEL to one of them"
            )
        return True, ""

    async def reads_probabilities(self, model: str | None = None) -> bool:
        """Asks once per model for a one-token reply with log-probabilities; a server that returns none is
        logged once and its scores are generated. A probe that fails decides nothing."""
        try:
            name = await self._model(model)
        except BackendError as exc:
            log.warning("openai log-probability probe failed", base_url=self.base_url, error=str(exc))
            return False
        known = self._reads_probabilities.get(name)
        if known is not None:
            return known
        try:
            await self._identify(name)
        except BackendError as exc:
            log.warning("openai log-probability probe failed", base_url=self.base_url, model=name, error=str(exc))
            return False
        return self._reads_probabilities.get(name, False)

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.close()


def _retry_after(exc: openai.APIStatusError) -> float | None:
    headers = exc.response.headers
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) / scale
        except ValueError:
            continue  # an HTTP date: not worth parsing for a judge call
        if value >= 0:
            return value
    return None


def _refuses_schema(exc: openai.BadRequestError) -> bool:
    text = str(exc.message).lower()
    return "response_format" in text or "json_schema" in text


def _top_logprobs(choice: Any) -> tuple[tuple[TokenLogprob, ...], ...] | None:
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return None
    return tuple(
        tuple(TokenLogprob(str(c.token), float(c.logprob)) for c in (position.top_logprobs or ()))
        for position in content
    )


def _clip(value: object, limit: int = 300) -> str:
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"
