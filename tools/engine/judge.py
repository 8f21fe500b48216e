"""The judge: turns "score this text on these metrics of this rubric" into validated scores.

Per metric and sample: one schema-constrained call whose reasoning field comes before the score, through the
repair ladder (`ladder`); or, on a backend with log-probabilities, one readout per metric (`by_probability`).
Otherwise the metric is `unscored` with the reason and the raw reply. Never a default score, never a clamp.
All calls of the process share one limiter; all calls of one tool call share one deadline.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import TypeVar

import anyio
import structlog
from pydantic import BaseModel

from gavel.tools.engine import by_generation, by_probability, ladder, one_token, prompts, screen
from gavel.tools.engine.backend import Backend, ModelInfo
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.concurrency import both
from gavel.tools.engine.config import EngineConfig
from gavel.tools.engine.fitness import DecisionCut, FitnessSource, JudgeFitness, fitness_flags, fitness_key
from gavel.tools.engine.ladder import Structured
from gavel.tools.engine.one_token import Prefix
from gavel.tools.engine.parse import strip_reasoning
from gavel.tools.engine.probes import Probes, ProbeTimeout
from gavel.tools.engine.progress import Progress
from gavel.tools.engine.reply_schema import request_schema
from gavel.tools.engine.scores import MetricScore, Provenance, ReadoutKind, Usage
from gavel.tools.errors import BackendError
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


@dataclass(frozen=True, eq=False, repr=False)  # its config may hold an API key: never in a repr
class Judge:
    """One tool call's judge, built whole: nothing is assigned to it afterwards (a frozen dataclass).

    `limiter` is the process's (all calls share it); `deadline` (a `time.monotonic()`, from when the call began
    resolving its judge) bounds all of the call's model work, the backend's probes included; `probes` holds what
    the backends said about their models, shared by the process's judges; `progress` is the tool call's; `fitness`
    is where the judge's calibration is found (the ledger). With no `fitness` no calibration can exist (ledger
    off), or this judge is being calibrated, and its verdicts must not depend on an earlier calibration.
    """

    backend: Backend
    config: EngineConfig
    limiter: anyio.CapacityLimiter | None = None
    _: KW_ONLY
    strategy: str = "per_metric"
    generator: Backend | None = None
    probes: Probes = field(default_factory=Probes)
    deadline: float | None = None
    progress: Progress = field(default_factory=Progress)
    fitness: FitnessSource | None = None
    calls: ModelCalls = field(init=False)
    _readouts: dict[str | None, ReadoutKind] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        # Defaults that depend on the other fields; set once, here, before anyone holds the judge.
        limiter = self.limiter or anyio.CapacityLimiter(self.config.max_concurrency)
        deadline = self.deadline if self.deadline is not None else time.monotonic() + self.config.call_deadline_s
        object.__setattr__(self, "limiter", limiter)
        object.__setattr__(self, "generator", self.generator or self.backend)
        object.__setattr__(self, "deadline", deadline)
        calls = ModelCalls(self.backend, self.config, limiter, self.probes, deadline, self.progress)
        object.__setattr__(self, "calls", calls)

    def past_deadline(self) -> bool:
        """Whether the tool call's one deadline has passed: no model call is asked from now on."""
        return time.monotonic() >= self.deadline  # type: ignore[operator]  # set in __post_init__

    @property
    def saw_backend_failure(self) -> bool:
        """Whether a call failed at the backend, so the provider re-probes before the next call."""
        return self.calls.saw_backend_failure

    async def readout_kind(self, model: str | None = None) -> ReadoutKind:
        """'probability' where the backend returns log-probabilities and GAVEL_READOUT allows it, else
        'generated'. Decided once per judge and model; the backend is probed once per process (`Probes`)."""
        if model not in self._readouts:
            reads = False
            if self.config.readout == "probability":
                try:
                    reads = await self.probes.reads_probabilities(self.backend, model, self.calls.probe_time())
                except ProbeTimeout as exc:
                    self.calls.probe_timed_out(exc)
            self._readouts[model] = "probability" if reads else "generated"
        return self._readouts[model]

    async def reads_probabilities(self, model: str | None = None, readout: str | None = None) -> bool:
        """Whether a judgment asked for `readout` is read from probabilities: "generated" asks for generation
        whatever the backend can do."""
        return readout != "generated" and await self.readout_kind(model) == "probability"

    async def model_info(self, model: str | None = None) -> ModelInfo:
        """Which model answers, with its digest where known; asked of the backend once per process (`Probes`)."""
        try:
            return await self.probes.model_info(self.backend, model, self.calls.probe_time())
        except ProbeTimeout as exc:
            self.calls.probe_timed_out(exc)
            return ModelInfo(backend=self.backend.name, model=model or getattr(self.backend, "model", None) or "")

    async def calibration(self, rubric: Rubric | None, model: str | None = None) -> JudgeFitness | None:
        """The judge's newest calibration for `rubric`'s prompts (its readout), or None."""
        if self.fitness is None:
            return None
        info = await self.model_info(model)
        readout = await self.readout_kind(model)
        return await self.fitness.fitness_for(
            fitness_key(info.backend, info.model, info.digest, readout, prompts.template_hash(rubric))
        )

    async def decision_cut(self, rubric: Rubric | None, default: float, model: str | None = None) -> DecisionCut:
        """The cut a probability readout is decided at: Gavel's default, or with GAVEL_USE_CALIBRATED_CUT=true the
        cut the judge's calibration found best."""
        if self.config.use_calibrated_cut:
            found = await self.calibration(rubric, model)
            if found is not None and found.calibrated_cut is not None:
                return DecisionCut(value=found.calibrated_cut, source="calibrated", calibration_id=found.calibration_id)
        return DecisionCut(value=default, source="default")

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
        shared: Prefix | None = None,
        texts_checked: bool = False,
        screen_subject: bool = False,
    ) -> Judgment:
        """`shared`: the probability readout's prompt prefix when the caller asks other checks after the same one
        (the prompt cache then evaluates it once); built from `source` and `data` otherwise. `texts_checked`: the
        caller scanned every text of the prompt for injection already (and flags what it found), so it is not
        scanned again here. `screen_subject`: the judged text also goes through the model-read injection screen
        when GAVEL_INJECTION_SCREEN asks for it, alongside the metrics."""
        if screen_subject and self.config.injection_screen == "model":
            started = time.perf_counter()
            judgment, (found, used) = await both(
                lambda: self.score_metrics(
                    rubric=rubric, metrics=metrics, subject=subject, source=source, data=data,
                    context_instructions=context_instructions, samples=samples, model=model, strategy=strategy,
                    readout=readout, shared=shared, texts_checked=texts_checked,
                ),
                lambda: self.screen_injection(subject, model),
            )  # fmt: skip
            usage = judgment.usage.add(used).model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})
            flags = list(dict.fromkeys([*found, *judgment.flags]))
            return dataclasses.replace(judgment, usage=usage, flags=flags)
        started = time.perf_counter()
        tally = Tally()
        kind: ReadoutKind | None
        if await self.reads_probabilities(model, readout):
            # One readout per metric: it is the model's distribution already, so `samples` has nothing to sample.
            shared = shared or one_token.prefix(rubric, source, data or {})
            scores = await by_probability.score_metrics(
                self.calls, rubric=rubric, metrics=metrics, shared=shared, subject=subject,
                context_instructions=context_instructions, model=model, tally=tally, source=source, context=data,
            )  # fmt: skip
            judged = [subject, *shared.blocks.values()]
            samples, strategy, kind = 1, "per_metric", None
        else:
            strategy = strategy or self.strategy
            scores, judged = await by_generation.score_metrics(
                self.calls, rubric=rubric, metrics=metrics, subject=subject, source=source, data=data,
                context_instructions=context_instructions, samples=samples, model=model, strategy=strategy,
                tally=tally,
            )  # fmt: skip
            kind = "generated"
        usage = tally.since(started)
        scanned = not texts_checked and any(detect_injection(text) for text in judged)
        flags = [PROMPT_INJECTION_FLAG] if scanned else []
        provenance = await self.provenance(rubric=rubric, samples=samples, model=model, strategy=strategy, readout=kind)
        flags += fitness_flags(provenance.judge_fitness)
        return Judgment(scores=scores, usage=usage, provenance=provenance, flags=flags)

    async def screen_injection(self, text: str, model: str | None = None) -> tuple[list[str], Usage]:
        """The model-read injection screen's flags for a judged text (`engine/screen.py`): none when
        GAVEL_INJECTION_SCREEN is off."""
        if self.config.injection_screen != "model":
            return [], Usage()
        if await self.readout_kind(model) != "probability":
            # Read from P(yes) only; a backend without log-probabilities (MCP sampling) is not asked at all, so a
            # client is not sent a request whose answer could never be read.
            log.warning("injection screen not read", reason_code="no_logprobs")
            return [screen.UNSCORED], Usage()
        readout, usage = await screen.screen(self.calls, text, model)
        if readout.value is None:
            log.warning("injection screen not read", reason_code=readout.reason_code)
        return screen.flags(readout), usage

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
        request = self.calls.request(
            prompts.prompt_set().text["system"], user, request_schema(output), seed=self.config.seed,
            temperature=self.config.temperature, max_tokens=max_tokens, model=model,
        )  # fmt: skip
        tally = Tally()
        started = time.perf_counter()
        result = await ladder.structured(
            self.calls, output, request, tally, step=step or f"the {output.__name__} check"
        )
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
        repeat_penalty: float | None = None,
    ) -> Generated:
        """`repeat_penalty`: None for the configured `generate_repeat_penalty`."""
        nonce = prompts.nonce_for(data)
        user = prompts.data_section(dict(data), nonce) + "\n\n" + instruction
        request = self.calls.request(
            prompts.prompt_set().text["generate_system"], user, None, seed=self.config.seed,
            temperature=self.config.temperature, max_tokens=max_tokens,
            model=model or self.config.generator_model, purpose="generate",
            repeat_penalty=self.config.generate_repeat_penalty if repeat_penalty is None else repeat_penalty,
        )  # fmt: skip
        tally = Tally()
        try:
            reply = await self.calls.call(request, tally, backend or self.generator, step="writing the text")
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
        readout = readout or await self.readout_kind(model)
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
