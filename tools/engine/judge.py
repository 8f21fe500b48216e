"""The judge: turns "score this text on these metrics of this rubric" into validated verdicts.

Per metric and sample: one schema-constrained call whose reasoning field comes before the score; the
repair ladder (clean → parse → validate → one re-ask with the error → the last `Score: N` line);
otherwise the metric is `unscored` with the reason and the raw reply. Never a default score, never a
clamp. All calls of the process share one limiter.
"""

from __future__ import annotations

import copy
import functools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio
import structlog
from pydantic import BaseModel, ConfigDict, Field, create_model

from gavel.tools.engine import probability, prompts
from gavel.tools.engine.backend import Backend, ChatMessage, ChatReply, ChatRequest
from gavel.tools.engine.config import EngineConfig
from gavel.tools.engine.fitness import FitnessSource, fitness_flags, fitness_key
from gavel.tools.engine.parse import (
    explanation_before_score,
    is_placeholder,
    last_score_line,
    parse_reply,
    strip_reasoning,
)
from gavel.tools.engine.readout import Readout
from gavel.tools.engine.verdict import MetricScore, Provenance, ReadoutKind, SampleRecord, Usage
from gavel.tools.errors import BackendError, BackendTimeout
from gavel.tools.guards import PROMPT_INJECTION_FLAG, detect_injection
from gavel.tools.rubrics import Metric, Rubric

log = structlog.get_logger("gavel.judge")

T = TypeVar("T", bound=BaseModel)

EXPLANATION_MAX_CHARS = 300
EVIDENCE_MAX_CHARS = 200
# A metric's reply may fill every string the requested schema allows, at as little as two characters a token
# when it quotes names and numbers, plus the JSON around them. A fixed cap below that cut full-length replies
# off and the metric ended unscored: measured on the agreement benchmark, where the accuracy metric quotes
# HaluEval's long passages.
REPLY_OVERHEAD_TOKENS = 50


@dataclass
class Judgment:
    scores: list[MetricScore]
    usage: Usage
    provenance: Provenance
    flags: list[str] = field(default_factory=list)


@dataclass
class Structured(Generic[T]):
    value: T | None
    error: str | None
    raw: str | None
    usage: Usage


@dataclass
class Generated:
    text: str | None
    error: str | None
    usage: Usage


def verdict_model(rubric: Rubric, *, evidence: prompts.Evidence = None) -> type[BaseModel]:
    """The per-metric answer: reasoning first (so the model reasons before it commits), then the score.

    Judged against a source, the model first quotes the judged text's key claim and then what the source
    says about it: measured on the embedded default, small models otherwise "find" the judged text's claims
    in the source and approve a contradiction. Judged against the question, it first states what was asked
    and what the text gives (without that pair the embedded default called a correct answer irrelevant).
    The scale's bounds go into the JSON schema, so constrained decoding cannot leave the scale, and the
    same model rejects an out-of-scale score from a backend that does not constrain (never a clamp).
    """
    return _verdict_model(rubric.scale.integer, rubric.scale.min, rubric.scale.max, evidence)


@functools.lru_cache(maxsize=256)
def _verdict_model(integer: bool, low: float, high: float, evidence: prompts.Evidence) -> type[BaseModel]:
    # Built once per scale and evidence: building a pydantic model and its JSON schema per model call was
    # most of a scripted tool call's server time (bench.overhead).
    score_type: Any = int if integer else float
    fields: dict[str, Any] = {}
    # Required in the requested schema (see `_schema`) but not for validation: a backend without
    # constrained decoding that skips the quotes still gave a usable score.
    for name, description in _EVIDENCE_FIELDS.get(evidence, ()):
        fields[name] = (str, Field(default="", max_length=EVIDENCE_MAX_CHARS * 2, description=description))
    fields["explanation"] = (str, Field(max_length=EXPLANATION_MAX_CHARS * 2, description="Short reasoning."))
    fields["score"] = (score_type, Field(ge=low, le=high, description="The score."))
    return create_model("MetricVerdict", __config__=ConfigDict(extra="ignore"), **fields)


_EVIDENCE_FIELDS: dict[prompts.Evidence, tuple[tuple[str, str], ...]] = {
    "source": (
        ("claim", "A short quote of the judged text's key claim."),
        ("source_says", "What the source says about it, quoted."),
    ),
    "question": (
        ("question_asks", "What the question asks for."),
        ("answer_gives", "What the judged text gives, quoted."),
    ),
}


def metric_max_tokens(verdict: type[BaseModel]) -> int:
    """The token cap for one metric's reply: room for every string its requested schema lets it fill."""
    properties = _cached_schema(verdict, EXPLANATION_MAX_CHARS).get("properties", {})
    return REPLY_OVERHEAD_TOKENS + sum(int(p.get("maxLength", 0)) for p in properties.values()) // 2


def joint_model(rubric: Rubric, metrics: Sequence[Metric], *, evidence: prompts.Evidence = None) -> type[BaseModel]:
    """One required property per metric id, so constrained decoding must produce each metric exactly once."""
    return _joint_model(verdict_model(rubric, evidence=evidence), tuple((m.id, m.name) for m in metrics))


@functools.lru_cache(maxsize=256)
def _joint_model(item: type[BaseModel], metrics: tuple[tuple[str, str], ...]) -> type[BaseModel]:
    fields: dict[str, Any] = {metric_id: (item, Field(description=name)) for metric_id, name in metrics}
    return create_model("JointVerdict", __config__=ConfigDict(extra="ignore"), **fields)


def _schema(model: type[BaseModel], max_chars: int = EXPLANATION_MAX_CHARS) -> dict[str, Any]:
    # A copy: the request may be changed by a backend, the cached original never is.
    return copy.deepcopy(_cached_schema(model, max_chars))


@functools.lru_cache(maxsize=256)
def _cached_schema(model: type[BaseModel], max_chars: int) -> dict[str, Any]:
    schema = model.model_json_schema()
    # A tighter maxLength in the *requested* schema keeps small models from rambling to the token
    # limit; validation stays lenient (2x) so a slightly long explanation is not a failure.
    _tighten(schema, max_chars)
    _require_all(schema)
    return schema


def _require_all(node: Any) -> None:
    """Every property of every object is required in the requested schema: the model must write each."""
    if isinstance(node, dict):
        if node.get("type") == "object" and isinstance(node.get("properties"), dict):
            node["required"] = list(node["properties"])
        for value in node.values():
            _require_all(value)
    elif isinstance(node, list):
        for value in node:
            _require_all(value)


def _tighten(node: Any, max_chars: int) -> None:
    if isinstance(node, dict):
        if node.get("type") == "string" and "maxLength" in node:
            node["maxLength"] = min(node["maxLength"], max_chars)
        for value in node.values():
            _tighten(value, max_chars)
    elif isinstance(node, list):
        for value in node:
            _tighten(value, max_chars)


def _usage_of(reply: ChatReply) -> Usage:
    return Usage(
        llm_calls=1,
        prompt_tokens=reply.prompt_tokens or 0,
        completion_tokens=reply.completion_tokens or 0,
        cached_prompt_tokens=reply.cached_prompt_tokens,
        duration_ms=reply.duration_ms,
    )


def _evidence_for(metric: Metric, *, has_source: bool, has_context: bool) -> prompts.Evidence:
    """What the judge quotes before it scores this metric, given what the call has to compare with."""
    if metric.judged_against == "source" and has_source:
        return "source"
    if metric.judged_against == "question" and has_context:
        return "question"
    return None


class _Tally:
    """Usage of one judgment, summed across concurrent calls."""

    def __init__(self) -> None:
        self.usage = Usage()

    def add(self, reply: ChatReply) -> None:
        self.usage = self.usage.add(_usage_of(reply))


class Judge:
    def __init__(
        self,
        backend: Backend,
        config: EngineConfig,
        limiter: anyio.CapacityLimiter | None = None,
        *,
        strategy: str = "per_metric",
        generator: Backend | None = None,
    ) -> None:
        self.backend = backend
        self.generator = generator or backend
        self.config = config
        self.limiter = limiter or anyio.CapacityLimiter(config.max_concurrency)
        self.strategy = strategy
        # Set when a call failed at the backend, so the provider re-probes before the next call.
        self.saw_backend_failure = False
        self._readouts: dict[str | None, ReadoutKind] = {}
        # One Judge serves one tool call: its deadline bounds all of the call's model work.
        self._deadline = time.monotonic() + config.call_deadline_s
        # Set once a model call of this tool call timed out: the backend is not asked again in this call.
        self._stopped: str | None = None
        # Where this judge's calibration is found (the ledger); None: no calibration can exist (ledger off),
        # or this judge is being calibrated, and its verdicts must not depend on an earlier calibration.
        self.fitness: FitnessSource | None = None

    @property
    def backend_name(self) -> str:
        return self.backend.name

    async def readout(self, model: str | None = None) -> ReadoutKind:
        """'probability' where the backend returns log-probabilities and GAVEL_READOUT allows it, else
        'generated'. Decided once per judge and model."""
        if model not in self._readouts:
            wanted = self.config.readout == "probability"
            self._readouts[model] = (
                "probability" if wanted and await self.backend.reads_probabilities(model) else "generated"
            )
        return self._readouts[model]

    async def yes_no(
        self,
        shared: probability.Prefix,
        instruction: str,
        *,
        extra: Mapping[str, str] | None = None,
        model: str | None = None,
    ) -> tuple[Readout, Usage]:
        """One Yes/No check after the judgment's shared prefix, read as P(yes)."""
        tally = _Tally()
        user = probability.user_prompt(shared, instruction, extra)
        readout = await probability.ask(self, user, tally, model=model, system=shared.system)
        return readout, tally.usage

    # -- calls -------------------------------------------------------------------------------------

    async def _call(self, request: ChatRequest, tally: _Tally, backend: Backend | None = None) -> ChatReply:
        """One model call under the limiter and the call's deadline. Every timeout comes out as BackendTimeout."""
        if self._stopped is not None:
            raise BackendTimeout(self._stopped)
        remaining = self._deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise TimeoutError
            # The whole call's deadline bounds the wait for the limiter too.
            with anyio.fail_after(remaining):
                async with self.limiter:
                    if self._stopped is not None:  # another call timed out while this one queued
                        raise BackendTimeout(self._stopped)
                    # The backend enforces its own timeout; this outer bound guards against one that does not.
                    with anyio.fail_after(self.config.timeout_s * 1.5):
                        reply = await (backend or self.backend).chat(request)
        except (BackendTimeout, TimeoutError) as exc:
            self.saw_backend_failure = True
            if self._stopped is not None:
                raise BackendTimeout(self._stopped) from exc
            if time.monotonic() >= self._deadline:
                why = f"the tool call's deadline of {self.config.call_deadline_s:g}s (GAVEL_CALL_DEADLINE_S) passed"
            else:
                why = str(exc) or f"the model did not answer within {self.config.timeout_s * 1.5:g}s"
            self._stopped = f"not asked: an earlier model call of this tool call timed out ({why})"
            raise BackendTimeout(why) from exc
        except BackendError:
            # Tells the provider to re-probe before the next call (Ollama may have come back).
            self.saw_backend_failure = True
            raise
        tally.add(reply)
        return reply

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
        if readout != "generated" and await self.readout(model) == "probability":
            return await self._score_by_probability(
                rubric=rubric, metrics=metrics, subject=subject, source=source, data=data,
                context_instructions=context_instructions, model=model, started=started, shared=shared,
            )  # fmt: skip
        strategy = strategy or self.strategy
        # The judged text comes first, then the source: measured on the embedded default, with the source
        # first the model quotes the judged text back as "what the source says". All blocks are shared by
        # the metrics of one evaluation, so the prompt cache still reuses the whole prefix.
        context = {k: v for k, v in (data or {}).items() if v}
        blocks: dict[str, str] = {rubric.prompt.subject: subject}
        if source:
            blocks[rubric.prompt.source_label] = source
        blocks.update(context)
        nonce = prompts.nonce_for(blocks)
        shared = prompts.data_section(blocks, nonce)
        evidence = {m.id: _evidence_for(m, has_source=bool(source), has_context=bool(context)) for m in metrics}
        # A metric not judged against the source (relevance, coherence) sees the context (the question)
        # first and then the judged text, nothing else. Measured on the embedded default: shown the
        # passages as well, it judged the passages instead of the answer ("Bananas are rich in potassium"
        # scored 1.0 for relevance to an Eiffel Tower question) in every block order tried. Built only when
        # such a metric is judged: the judged text may be long, and neutralizing it costs a pass.
        sourceless = (
            prompts.data_section({**context, rubric.prompt.subject: subject}, nonce)
            if any(e != "source" for e in evidence.values())
            else shared
        )
        system = prompts.prompt_set().text["system"]
        tally = _Tally()
        seeds = self._seeds(samples)
        temperature = self.config.temperature if samples == 1 else self.config.sample_temperature

        per_metric: dict[str, list[SampleRecord]] = {m.id: [] for m in metrics}
        if strategy == "joint" and len(metrics) > 1:
            async with anyio.create_task_group() as tg:
                for seed in seeds:
                    tg.start_soon(
                        self._joint_sample,
                        rubric, metrics, system, shared, context_instructions, seed, temperature, model,
                        tally, per_metric, "source" if source else None,
                    )  # fmt: skip
        else:
            async with anyio.create_task_group() as tg:
                for metric in metrics:
                    for seed in seeds:
                        tg.start_soon(
                            self._metric_sample,
                            rubric, metric, system, shared if evidence[metric.id] == "source" else sourceless,
                            context_instructions, seed, temperature, model, tally, per_metric[metric.id],
                            evidence[metric.id],
                        )  # fmt: skip

        scores = []
        for metric in metrics:
            records = sorted(per_metric[metric.id], key=lambda r: seeds.index(r.seed) if r.seed in seeds else 0)
            scores.append(MetricScore.from_samples(metric.id, metric.name, records))
        usage = tally.usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})
        flags = [PROMPT_INJECTION_FLAG] if any(detect_injection(text) for text in blocks.values()) else []
        for score in scores:
            score.readout = "generated"
        provenance = await self.provenance(
            rubric=rubric, samples=samples, model=model, strategy=strategy, readout="generated"
        )
        flags += fitness_flags(provenance.judge_fitness)
        return Judgment(scores=scores, usage=usage, provenance=provenance, flags=flags)

    async def _score_by_probability(
        self,
        *,
        rubric: Rubric,
        metrics: Sequence[Metric],
        subject: str,
        source: str | None,
        data: Mapping[str, str] | None,
        context_instructions: str | None,
        model: str | None,
        started: float,
        shared: probability.Prefix | None = None,
    ) -> Judgment:
        # One readout per metric: it is the model's distribution already, so `samples` has nothing to sample.
        shared = shared or probability.prefix(rubric, source, data or {})
        tally = _Tally()
        scores = await probability.score_metrics(
            self, rubric=rubric, metrics=metrics, shared=shared, subject=subject,
            context_instructions=context_instructions, model=model, tally=tally,
        )  # fmt: skip
        judged = [subject, *shared.blocks.values()]
        flags = [PROMPT_INJECTION_FLAG] if any(detect_injection(text) for text in judged) else []
        provenance = await self.provenance(rubric=rubric, samples=1, model=model, strategy="per_metric")
        flags += fitness_flags(provenance.judge_fitness)
        return Judgment(
            scores=scores, usage=probability.usage_since(tally, started), provenance=provenance, flags=flags
        )

    def _seeds(self, samples: int) -> list[int]:
        return [self.config.seed + index for index in range(samples)]

    async def _metric_sample(
        self,
        rubric: Rubric,
        metric: Metric,
        system: str,
        shared: str,
        context_instructions: str | None,
        seed: int,
        temperature: float,
        model: str | None,
        tally: _Tally,
        out: list[SampleRecord],
        evidence: prompts.Evidence,
    ) -> None:
        verdict = verdict_model(rubric, evidence=evidence)
        user = shared + "\n\n" + prompts.metric_instruction(rubric, metric, context_instructions, evidence)
        request = self._request(
            system, user, _schema(verdict), seed=seed, temperature=temperature,
            max_tokens=metric_max_tokens(verdict), model=model,
        )  # fmt: skip
        out.append(await self._ladder(rubric, verdict, request, seed, tally))

    async def _ladder(
        self, rubric: Rubric, verdict: type[BaseModel], request: ChatRequest, seed: int, tally: _Tally
    ) -> SampleRecord:
        """Run one metric sample through the repair ladder."""
        try:
            reply = await self._call(request, tally)
        except BackendError as exc:
            return SampleRecord(score=None, seed=seed, error=f"the model call failed: {exc}")
        record = self._record(verdict, reply, seed)
        if record.score is not None or record.error == "placeholder echo":
            return record
        first_error = record.error or "no score"
        retry = ChatRequest(
            **{
                **request.__dict__,
                "messages": (
                    *request.messages,
                    ChatMessage("assistant", reply.text[:4000]),
                    ChatMessage("user", prompts.reask_instruction(rubric, first_error)),
                ),
            }
        )
        try:
            second = await self._call(retry, tally)
        except BackendError as exc:
            second = None
            retry_error = f"the re-ask failed: {exc}"
        if second is not None:
            record = self._record(verdict, second, seed, repaired="re-asked with the validation error")
            if record.score is not None or record.error == "placeholder echo":
                return record
            retry_error = record.error or "no score"
        last = second if second is not None else reply
        raw = last.text
        # A reply cut off mid-stream may end inside a number ("Score: 1" of "Score: 10"): never read it.
        fallback = None if last.truncated else last_score_line(raw)
        if (
            fallback is not None
            and rubric.scale.contains(fallback)
            and (not rubric.scale.integer or fallback.is_integer())
        ):
            explanation = explanation_before_score(raw)
            if not is_placeholder(explanation):
                return SampleRecord(
                    score=fallback, explanation=explanation, seed=seed, repaired="last 'Score:' line", raw_reply=raw
                )
        reason = f"{first_error}; after one re-ask: {retry_error}"
        if fallback is not None:
            reason += f"; its last 'Score:' line ({fallback:g}) is not a valid score on this scale"
        return SampleRecord(score=None, seed=seed, error=reason, raw_reply=raw[:4000])

    @staticmethod
    def _record(verdict: type[BaseModel], reply: ChatReply, seed: int, repaired: str | None = None) -> SampleRecord:
        parsed = parse_reply(reply.text, verdict)
        if parsed.value is None:
            error = parsed.error or "no score"
            if reply.truncated:
                error = f"the reply was cut off before it was complete ({error})"
            return SampleRecord(score=None, seed=seed, error=error, raw_reply=reply.text[:4000])
        explanation = str(getattr(parsed.value, "explanation", ""))
        if is_placeholder(explanation):
            return SampleRecord(score=None, seed=seed, error="placeholder echo", raw_reply=reply.text[:4000])
        how = ", ".join(x for x in (repaired, parsed.repaired) if x) or None
        return SampleRecord(
            score=float(getattr(parsed.value, "score")),  # noqa: B009 - dynamic model
            explanation=explanation,
            seed=seed,
            repaired=how,
            raw_reply=reply.text[:4000] if how else None,
        )

    async def _joint_sample(
        self,
        rubric: Rubric,
        metrics: Sequence[Metric],
        system: str,
        shared: str,
        context_instructions: str | None,
        seed: int,
        temperature: float,
        model: str | None,
        tally: _Tally,
        out: dict[str, list[SampleRecord]],
        evidence: prompts.Evidence,
    ) -> None:
        joint = joint_model(rubric, metrics, evidence=evidence)
        user = shared + "\n\n" + prompts.joint_instruction(rubric, metrics, context_instructions, evidence)
        request = self._request(
            system, user, _schema(joint), seed=seed, temperature=temperature,
            max_tokens=metric_max_tokens(verdict_model(rubric, evidence=evidence)) * len(metrics), model=model,
        )  # fmt: skip
        result = await self._structured_ladder(joint, request, tally, rubric)
        for metric in metrics:
            if result.value is None:
                out[metric.id].append(
                    SampleRecord(score=None, seed=seed, error=result.error, raw_reply=(result.raw or "")[:4000])
                )
                continue
            item = getattr(result.value, metric.id)
            explanation = str(item.explanation)
            if is_placeholder(explanation):
                out[metric.id].append(SampleRecord(score=None, seed=seed, error="placeholder echo"))
            else:
                out[metric.id].append(SampleRecord(score=float(item.score), explanation=explanation, seed=seed))

    # -- generic structured call and generation ------------------------------------------------------

    async def _structured_ladder(
        self, output: type[T], request: ChatRequest, tally: _Tally, rubric: Rubric | None = None
    ) -> Structured[T]:
        try:
            reply = await self._call(request, tally)
        except BackendError as exc:
            return Structured(None, f"the model call failed: {exc}", None, tally.usage)
        parsed = parse_reply(reply.text, output)
        if parsed.value is not None:
            return Structured(parsed.value, None, reply.text, tally.usage)
        retry = ChatRequest(
            **{
                **request.__dict__,
                "messages": (
                    *request.messages,
                    ChatMessage("assistant", reply.text[:4000]),
                    ChatMessage("user", prompts.reask_instruction(rubric, parsed.error or "invalid")),
                ),
            }
        )
        try:
            second = await self._call(retry, tally)
        except BackendError as exc:
            return Structured(None, f"{parsed.error}; the re-ask failed: {exc}", reply.text, tally.usage)
        reparsed = parse_reply(second.text, output)
        if reparsed.value is not None:
            return Structured(reparsed.value, None, second.text, tally.usage)
        return Structured(None, f"{parsed.error}; after one re-ask: {reparsed.error}", second.text, tally.usage)

    async def structured(
        self,
        *,
        output: type[T],
        data: Mapping[str, str],
        instruction: str,
        model: str | None = None,
        max_tokens: int = 400,
    ) -> Structured[T]:
        user = prompts.data_section(dict(data), prompts.nonce_for(data)) + "\n\n" + instruction
        request = self._request(
            prompts.prompt_set().text["system"], user, _schema(output), seed=self.config.seed,
            temperature=self.config.temperature, max_tokens=max_tokens, model=model,
        )  # fmt: skip
        tally = _Tally()
        started = time.perf_counter()
        result = await self._structured_ladder(output, request, tally)
        result.usage = tally.usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})
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
        tally = _Tally()
        try:
            reply = await self._call(request, tally, backend or self.generator)
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
        info = await self.backend.model_info(model)
        readout = readout or await self.readout(model)
        template = prompts.template_hash(rubric)
        key = fitness_key(info.backend, info.model, info.digest, readout, template)
        return Provenance(
            backend=info.backend,
            model=info.model,
            model_digest=info.digest,
            rubric_id=rubric.id if rubric else None,
            rubric_version=rubric.version if rubric else None,
            prompt_template_hash=template,
            temperature=self.config.temperature if samples == 1 else self.config.sample_temperature,
            seed=self.config.seed,
            samples=samples,
            strategy=strategy or self.strategy,
            readout=readout,
            fitness_key=key,
            judge_fitness=await self.fitness.fitness_for(key) if self.fitness is not None else None,
        )


__all__ = ["Generated", "Judge", "Judgment", "Structured"]
