"""What a backend says about a model besides its replies: its digest (`model_info`) and whether it returns
log-probabilities (`reads_probabilities`). Asked once per process per backend and model, and remembered; Ollama's
digest is read again every few seconds (`DIGEST_RECHECK_S`).

Either answer may take a network round trip (Ollama's /api/tags, a one-token call with log-probabilities), so the
asker bounds it by what is left of its tool call's deadline. A probe that failed (timed out, or came back with no
digest or without log-probabilities) is remembered too, so a silent backend costs each later call nothing; it is
asked again only once the backend has answered a call since (`answered`), when the failure may have been a passing
one. Concurrent askers of one (backend, model) wait for one probe. A backend reports a failed lookup as an
unknown answer (digest None, no log-probabilities); one that raises instead is not remembered, and its error is
the asker's.

The client's own model (sampling) is not remembered: it is whichever model the client picks for each call, and
asking it costs no round trip.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio
import structlog

from gavel.tools.engine.backend import Backend, DelegatingBackend, ModelInfo

log = structlog.get_logger("gavel.probes")

NOT_REMEMBERED = frozenset({"sampling"})
# Ollama can replace a model under its name while Gavel runs (`ollama pull`, `ollama create`): its digest is read
# again once this old, so a judgment by the old weights is not served, nor a new one stamped with the old digest,
# for longer than this after the swap. One /api/tags round trip, a few milliseconds on the same machine.
DIGEST_RECHECKED = frozenset({"ollama"})
DIGEST_RECHECK_S = 5.0


@dataclass
class _Known:
    info: ModelInfo | None = None
    info_at: float = 0.0
    info_failed: bool = False
    reads: bool | None = None
    reads_failed: bool = False
    lock: anyio.Lock = field(default_factory=anyio.Lock)


def _now() -> float:
    return time.monotonic()


class ProbeTimeout(TimeoutError):
    """The probe did not finish within the time its asker had left."""


class Probes:
    def __init__(self) -> None:
        self._known: dict[tuple[int, str | None], _Known] = {}
        # Holds the backends keyed by id, so an id is never reused for another backend while remembered.
        self._backends: dict[int, Backend] = {}
        # Whether each backend scored a given text, by id (`scores_text`).
        self._scored: dict[int, bool] = {}

    def _entry(self, backend: Backend, model: str | None) -> _Known:
        backend = _innermost(backend)
        self._backends.setdefault(id(backend), backend)
        return self._known.setdefault((id(backend), model), _Known())

    async def model_info(self, backend: Backend, model: str | None, within_s: float) -> ModelInfo:
        """The model and its digest. Raises ProbeTimeout when `within_s` passed first (remembered as failed)."""
        if backend.name in NOT_REMEMBERED:
            return await backend.model_info(model)
        known = self._entry(backend, model)
        stale = known.info is not None and _now() - known.info_at > DIGEST_RECHECK_S
        if stale and backend.name in DIGEST_RECHECKED:
            known.info = None
        if known.info is None:

            async def ask() -> None:
                if known.info is None:
                    known.info = await backend.model_info(model)
                    known.info_at = _now()
                    known.info_failed = not known.info.digest

            await self._bounded(known, within_s, "the model's digest", ask)
            if known.info is None:  # the asker's time ran out first
                known.info = ModelInfo(backend=backend.name, model=model or getattr(backend, "model", None) or "")
                known.info_failed = True
                log.warning("model digest unknown: the backend did not answer in time", backend=backend.name)
                raise ProbeTimeout(f"asking {backend.name} for the model's digest took longer than the call had left")
        return known.info

    async def reads_probabilities(self, backend: Backend, model: str | None, within_s: float) -> bool:
        """Whether the backend returns log-probabilities for `model`. Raises ProbeTimeout when `within_s` passed
        first (remembered as 'no')."""
        if backend.name in NOT_REMEMBERED:
            return await backend.reads_probabilities(model)
        known = self._entry(backend, model)
        if known.reads is None:

            async def ask() -> None:
                if known.reads is None:
                    known.reads = await backend.reads_probabilities(model)
                    known.reads_failed = not known.reads

            await self._bounded(known, within_s, "whether the backend returns log-probabilities", ask)
            if known.reads is None:  # the asker's time ran out first
                known.reads, known.reads_failed = False, True
                log.warning("log-probability probe unanswered in time; scores are generated", backend=backend.name)
                raise ProbeTimeout(f"asking {backend.name} whether it returns log-probabilities took too long")
        return known.reads

    async def _bounded(self, known: _Known, within_s: float, what: str, ask: Callable[[], Awaitable[None]]) -> None:
        """`ask()`, one at a time per entry, bounded by the asker's time left (waiting for another asker's probe
        included): cut short when it runs out, and the caller finds its answer still missing."""
        if within_s <= 0:
            raise ProbeTimeout(f"the call had no time left to ask {what}")
        with anyio.move_on_after(within_s):
            async with known.lock:
                await ask()

    def scores_text(self, backend: Backend) -> bool | None:
        """Whether `backend` scored a given text when asked before (`ChatRequest.score_text`); None until it was.

        Learned from the first such reply rather than probed: whether a backend can is fixed by its kind (the
        embedded model can; Ollama, OpenAI-compatible servers and sampling clients return no `text_logprobs`), so
        a process asks the ones that cannot once, not two wasted calls per judgment."""
        return self._scored.get(id(_innermost(backend)))

    def learned_scores_text(self, backend: Backend, scores: bool) -> None:
        inner = _innermost(backend)
        if inner.name in NOT_REMEMBERED:
            return  # one backend per client session: holding each would keep them all
        self._backends.setdefault(id(inner), inner)
        self._scored[id(inner)] = scores

    def answered(self, backend: Backend) -> None:
        """`backend` answered a call: what failed before is asked again next time."""
        backend = _innermost(backend)
        for (owner, _model), known in self._known.items():
            if owner != id(backend):
                continue
            if known.info_failed:
                known.info, known.info_failed = None, False
            if known.reads_failed:
                known.reads, known.reads_failed = None, False


def _innermost(backend: Backend) -> Backend:
    # A wrapper (the replay memo) asks the backend it wraps: one entry for both.
    while isinstance(backend, DelegatingBackend):
        backend = backend.inner
    return backend
