"""The judge: turns "score this text on these metrics of this rubric" into validated scores.

Per metric and sample: one schema-constrained call whose reasoning field comes before the score, through the
repair ladder (`ladder`); or, on a backend with log-probabilities, one readout per metric (`probability`).
Otherwise the metric is `unscored` with the reason and the raw reply. Never a default score, never a clamp.
All calls of the process share one limiter; all calls of one tool call share one deadline.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import structlog
from pydantic import BaseModel

from gavel.tools.engine import generated, ladder, probability, prompts
from gavel.tools.engine.backend import Backend, ChatMessage, ChatReply, ChatRequest, ModelInfo
from gavel.tools.engine.config import EngineConfig
from gavel.tools.engine.fitness import FitnessSource, fitness_flags, fitness_key
from gavel.tools.engine.ladder import Structured
from gavel.tools.engine.parse import strip_reasoning
from gavel.tools.engine.probes import Probes, ProbeTimeout
from gavel.tools.engine.progress import Progress
from gavel.tools.engine.readout import Readout
from gavel.tools.engine.reply_schema import request_schema
from gavel.tools.engine.results import MetricScore, Provenance, ReadoutKind, Usage
from gavel.tools.errors import BackendError, BackendTimeout
from gavel.tools.guards import PROMPT_INJECTION_FLAG, detect_injection
from gavel.tools.rubrics import Metric, Rubric, rubric_identity

log = structlog.get_logger("gavel.judge")

T = TypeVar("T", bound=BaseModel)


@dataclass
class Judgment:
    scores: list[MetricScore]
    usage: Usage
    provenance: Provenance
    flags: list[str] = field(default_factory=list)


@dataclass
class Generated:
    text: str | None
    error: str | None
    usage: Usage


def _usage_of(reply: ChatReply) -> Usage:
    return Usage(
        llm_calls=1,
        prompt_tokens=reply.prompt_tokens or 0,
        completion_tokens=reply.completion_tokens or 0,
        cached_prompt_tokens=reply.cached_prompt_tokens,
        duration_ms=reply.duration_ms,
    )


class Tally:
    """Usage of one judgment, summed across concurrent calls."""

    def __init__(self) -> None:
        self.usage = Usage()

    def add(self, reply: ChatReply) -> None:
        self.usage = self.usage.add(_usage_of(reply))

    def merge(self, usage: Usage) -> None:
        self.usage = self.usage.add(usage)

    def since(self, started: float) -> Usage:
        """The usage, with the wall time since `started` (a `time.perf_counter()`) as its duration."""
        return self.usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})


class _TimedOut(BackendTimeout):
    """A call's own timeout, already recorded as the end of its tool call's model work."""


class Judge:
    def __init__(
        self,
        backend: Backend,
        config: EngineConfig,
        limiter: anyio.CapacityLimiter | None = None,
        *,
        strategy: str = "per_metric",
        generator: Backend | None = None,
        probes: Probes | None = None,
        deadline: float | None = None,
    ) -> None:
        self.backend = backend
        self.generator = generator or backend
        self.config = config
        self.limiter = limiter or anyio.CapacityLimiter(config.max_concurrency)
        self.strategy = strategy
        # Set when a call failed at the backend, so the provider re-probes before the next call.
        self.saw_backend_failure = False
        self._readouts: dict[str | None, ReadoutKind] = {}
        # What the backends said about their models, shared by the process's judges (BackendProvider's).
        self.probes = probes or Probes()
        # One Judge serves one tool call: its deadline (a `time.monotonic()`, from when the call began resolving
        # its judge) bounds all of the call's model work, the backend's probes included.
        self._deadline = deadline if deadline is not None else time.monotonic() + config.call_deadline_s
        # Set once a model call of this tool call timed out: the backend is not asked again in this call.
        self._stopped: str | None = None
        # The tool call's progress (ToolDeps.judge wires it to the client); silent until then.
        self.progress = Progress()
        self._answered = 0
        # Where this judge's calibration is found (the ledger); None: no calibration can exist (ledger off),
        # or this judge is being calibrated, and its verdicts must not depend on an earlier calibration.
        self.fitness: FitnessSource | None = None

    async def readout(self, model: str | None = None) -> ReadoutKind:
        """'probability' where the backend returns log-probabilities and GAVEL_READOUT allows it, else
        'generated'. Decided once per judge and model; the backend is probed once per process (`Probes`)."""
        if model not in self._readouts:
            reads = False
            if self.config.readout == "probability":
                try:
                    reads = await self.probes.reads_probabilities(self.backend, model, self._probe_time())
                except ProbeTimeout as exc:
                    self._probe_timed_out(exc)
            self._readouts[model] = "probability" if reads else "generated"
        return self._readouts[model]

    async def model_info(self, model: str | None = None) -> ModelInfo:
        """Which model answers, with its digest where known; asked of the backend once per process (`Probes`)."""
        try:
            return await self.probes.model_info(self.backend, model, self._probe_time())
        except ProbeTimeout as exc:
            self._probe_timed_out(exc)
            return ModelInfo(backend=self.backend.name, model=model or getattr(self.backend, "model", None) or "")

    def _probe_time(self) -> float:
        """How long a probe may take: what is left of the call's deadline; nothing once the call stopped asking."""
        return 0.0 if self._stopped is not None else self._deadline - time.monotonic()

    def _probe_timed_out(self, exc: ProbeTimeout) -> None:
        # A probe the deadline cut short: the backend is not asked anything more in this call.
        self.saw_backend_failure = True
        if self._stopped is None:
            self._stop_after(exc)

    async def yes_no(
        self,
        shared: probability.Prefix,
        instruction: str,
        *,
        extra: Mapping[str, str] | None = None,
        model: str | None = None,
        step: str = "a yes/no check",
    ) -> tuple[Readout, Usage]:
        """One Yes/No check after the judgment's shared prefix, read as P(yes). `step` names it in progress."""
        tally = Tally()
        user = probability.user_prompt(shared, instruction, extra)
        readout = await probability.ask(self, user, tally, model=model, system=shared.system, step=step)
        return readout, tally.usage

    # -- calls -------------------------------------------------------------------------------------

    async def _call(
        self, request: ChatRequest, tally: Tally, backend: Backend | None = None, *, step: str = "a model call"
    ) -> ChatReply:
        """One model call under the limiter and the call's deadline. Every timeout comes out as BackendTimeout.

        `step` (a metric, a sentence) names the call in the progress sent while it waits and once it is answered.
        """
        if self._stopped is not None:
            raise BackendTimeout(self._stopped)
        remaining = self._deadline - time.monotonic()
        answering = backend or self.backend
        queued = True

        async def answer() -> ChatReply:
            nonlocal queued
            # The whole call's deadline bounds the wait for the limiter too.
            with anyio.fail_after(remaining):
                async with self.limiter:
                    if self._stopped is not None:  # another call timed out while this one queued
                        raise BackendTimeout(self._stopped)
                    queued = False
                    try:
                        # The backend enforces its own timeout; this outer bound guards against one that does not.
                        with anyio.fail_after(self.config.timeout_s * 1.5):
                            return await answering.chat(request)
                    except (BackendTimeout, TimeoutError) as exc:
                        # Stopped before the limiter is released: leaving progress' task group yields, and a call
                        # of this tool call queued for this slot would otherwise ask the silent model once more.
                        raise _TimedOut(self._stop_after(exc)) from exc

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
            if self._stopped is not None:
                raise BackendTimeout(self._stopped) from exc
            raise BackendTimeout(self._stop_after(exc)) from exc
        except BackendError:
            # Tells the provider to re-probe before the next call (Ollama may have come back).
            self.saw_backend_failure = True
            raise
        tally.add(reply)
        self.probes.answered(answering)
        self._answered += 1
        await self.progress.tick(f"{step}: answered ({self._answered} model calls so far)")
        return reply

    def _stop_after(self, exc: BaseException) -> str:
        """Why this call timed out; from now on the tool call asks the backend nothing more."""
        if time.monotonic() >= self._deadline:
            why = f"the tool call's deadline of {self.config.call_deadline_s:g}s (GAVEL_CALL_DEADLINE_S) passed"
        else:
            why = str(exc) or f"the model did not answer within {self.config.timeout_s * 1.5:g}s"
        if self._stopped is None:
            self._stopped = f"not asked: an earlier model call of this tool call timed out ({why})"
        return why

    def _request(
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

    # -- metrics -----------------------------------------------------------------------------------

    async def score_metrics(
        self,
        *,
        rubric: Rubric,
        metrics: Sequence[Metric],
        subject: str,
        source: str | None = None,
        data: Mapping[str, str] | None = None,
        context_instructions: str | None = None,
        samples: int = 1,
        model: str | None = None,
        strategy: str | None = None,
        readout: str | None = None,
        shared: probability.Prefix | None = None,
    ) -> Judgment:
        """`shared`: the probability readout's prompt prefix when the caller asks other checks after the same one
        (the prompt cache then evaluates it once); built from `source` and `data` otherwise."""
        started = time.perf_counter()
        tally = Tally()
        kind: ReadoutKind | None
        if readout != "generated" and await self.readout(model) == "probability":
            # One readout per metric: it is the model's distribution already, so `samples` has nothing to sample.
            shared = shared or probability.prefix(rubric, source, data or {})
            scores = await probability.score_metrics(
                self, rubric=rubric, metrics=metrics, shared=shared, subject=subject,
                context_instructions=context_instructions, model=model, tally=tally, source=source, context=data,
            )  # fmt: skip
            judged = [subject, *shared.blocks.values()]
            samples, strategy, kind = 1, "per_metric", None
        else:
            strategy = strategy or self.strategy
            scores, judged = await generated.score_metrics(
                self, rubric=rubric, metrics=metrics, subject=subject, source=source, data=data,
                context_instructions=context_instructions, samples=samples, model=model, strategy=strategy,
                tally=tally,
            )  # fmt: skip
            kind = "generated"
        usage = tally.since(started)
        flags = [PROMPT_INJECTION_FLAG] if any(detect_injection(text) for text in judged) else []
        provenance = await self.provenance(rubric=rubric, samples=samples, model=model, strategy=strategy, readout=kind)
        flags += fitness_flags(provenance.judge_fitness)
        return Judgment(scores=scores, usage=usage, provenance=provenance, flags=flags)

    # -- structured call and generation ----------------------------------------------------------------

    async def structured(
        self,
        *,
        output: type[T],
        data: Mapping[str, str],
        instruction: str,
        model: str | None = None,
        max_tokens: int = 400,
        step: str | None = None,
    ) -> Structured[T]:
        """A reply of the `output` model on `data`, through the repair ladder; `step` names it in progress."""
        user = prompts.data_section(dict(data), prompts.nonce_for(data)) + "\n\n" + instruction
        request = self._request(
            prompts.prompt_set().text["system"], user, request_schema(output), seed=self.config.seed,
            temperature=self.config.temperature, max_tokens=max_tokens, model=model,
        )  # fmt: skip
        tally = Tally()
        started = time.perf_counter()
        result = await ladder.structured(self, output, request, tally, step=step or f"the {output.__name__} check")
        result.usage = tally.since(started)
        return result

    async def generate(
        self,
        *,
        data: Mapping[str, str],
        instruction: str,
        model: str | None = None,
        max_tokens: int = 1024,
        backend: Backend | None = None,
    ) -> Generated:
        nonce = prompts.nonce_for(data)
        user = prompts.data_section(dict(data), nonce) + "\n\n" + instruction
        request = self._request(
            prompts.prompt_set().text["generate_system"], user, None, seed=self.config.seed,
            temperature=self.config.temperature, max_tokens=max_tokens,
            model=model or self.config.generator_model, purpose="generate",
            repeat_penalty=self.config.generate_repeat_penalty,
        )  # fmt: skip
        tally = Tally()
        try:
            reply = await self._call(request, tally, backend or self.generator, step="writing the text")
        except BackendError as exc:
            return Generated(None, str(exc), tally.usage)
        text = prompts.strip_echo(strip_reasoning(reply.text), data, nonce)
        if not text:
            return Generated(None, "the generator returned an empty text", tally.usage)
        if reply.truncated:
            return Generated(None, "the generator's text was cut off at the token limit", tally.usage)
        return Generated(text, None, tally.usage)

    async def provenance(
        self,
        *,
        rubric: Rubric | None,
        samples: int,
        model: str | None = None,
        strategy: str | None = None,
        readout: ReadoutKind | None = None,
    ) -> Provenance:
        info = await self.model_info(model)
        readout = readout or await self.readout(model)
        template = prompts.template_hash(rubric)
        key = fitness_key(info.backend, info.model, info.digest, readout, template)
        return Provenance(
            backend=info.backend,
            model=info.model,
            model_digest=info.digest,
            **rubric_identity(rubric),
            prompt_template_hash=template,
            temperature=self.config.temperature if samples == 1 else self.config.sample_temperature,
            seed=self.config.seed,
            samples=samples,
            strategy=strategy or self.strategy,
            readout=readout,
            fitness_key=key,
            judge_fitness=await self.fitness.fitness_for(key) if self.fitness is not None else None,
        )


__all__ = ["Generated", "Judge", "Judgment", "Structured", "Tally"]
