"""Result models shared by every judging tool: per-metric scores, usage and provenance.

A score the model did not give is never invented: such a metric is `unscored`, with the reason and
the raw reply kept for audit.
"""

from __future__ import annotations

import statistics
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from gavel.tools.common import one_line
from gavel.tools.engine.fitness import JudgeFitness
from gavel.tools.engine.logprobs import ReasonCode
from gavel.tools.engine.parse import ReplyCode

# Why a metric or a sample is unscored, for machines: a probability readout's reasons and a written reply's.
_REASON_CODES = ", ".join((*get_args(ReasonCode), *get_args(ReplyCode)))

MetricStatus = Literal["scored", "unscored", "not_applicable"]
ReadoutKind = Literal["probability", "generated"]


class SampleRecord(BaseModel):
    """One model answer for one metric (one of `samples`)."""

    model_config = ConfigDict(extra="forbid")

    score: float | None = Field(description="The score this sample gave, or null when it gave none.")
    explanation: str = Field(default="", description="The judge's reasoning for this sample.")
    seed: int | None = Field(default=None, description="The seed used for this sample.")
    repaired: str | None = Field(
        default=None, description="How the reply was repaired when it did not validate first time, if at all."
    )
    error: str | None = Field(default=None, description="Why this sample produced no score.")
    reason_code: str | None = Field(
        default=None, description=f"Machine-readable reason this sample produced no score: {_REASON_CODES}."
    )
    raw_reply: str | None = Field(
        default=None, description="The model's raw reply, kept when the sample needed repair or failed."
    )


class Finding(BaseModel):
    """One item a metric's checks found wrong: a sentence of the text, or a statement of the source it misses."""

    model_config = ConfigDict(extra="forbid")

    item: str = Field(description="The sentence or statement, verbatim.")
    p_mistake: float | None = Field(
        default=None,
        description="Checked metrics: the model's probability that this item is a mistake of the metric's kind.",
    )
    nats: float | None = Field(
        default=None,
        description="Metrics read from likelihood: how many nats more likely the source makes this sentence, below "
        "the rubric's sentence cut.",
    )

    def quoted(self, chars: int) -> str:
        """The item on one line in quotes, with what it weighs: “Mood is low.” (-0.4 nats) or (P 0.91)."""
        if self.nats is not None:
            weight = f" ({self.nats:+.1f} nats)"
        else:
            weight = f" (P {self.p_mistake:.2f})" if self.p_mistake is not None else ""
        return f"“{one_line(self.item, chars)}”{weight}"


class MetricScore(BaseModel):
    model_config = ConfigDict(extra="forbid")

    metric: str = Field(description="Metric id.")
    name: str = Field(description="Metric name.")
    score: float | None = Field(description="Median of the samples' scores; null when unscored.")
    status: MetricStatus = Field(
        description="'scored', 'unscored' (the model gave no valid score) or 'not_applicable'."
    )
    explanation: str = Field(default="", description="The judge's reasoning (from the median sample).")
    reason: str | None = Field(
        default=None,
        description="Why the metric is unscored or not applicable; for a scored one, which of its samples gave "
        "no score.",
    )
    samples: list[SampleRecord] = Field(default_factory=list, description="Every sample taken.")
    spread: float | None = Field(
        default=None,
        description="Max minus min of the sample scores; 0 with one sample; null when unscored or when only one "
        "of several samples scored.",
    )
    readout: ReadoutKind | None = Field(
        default=None,
        description="'probability': read from the model's token probabilities (one token, nothing generated); "
        "'generated': parsed from a reply the model wrote.",
    )
    distribution: dict[str, float] | None = Field(
        default=None,
        description="Probability readout: each answer token's normalized probability ('yes'/'no', or each scale "
        "value).",
    )
    answer_mass: float | None = Field(
        default=None, description="Probability readout: the answer tokens' share of the first token's probability."
    )
    reason_code: str | None = Field(
        default=None, description=f"Machine-readable reason when unscored: {_REASON_CODES}."
    )
    checks: int | None = Field(default=None, description="Checked metrics: how many yes/no checks were read.")
    expected_mistakes: float | None = Field(
        default=None, description="Checked metrics: the sum of the checks' P(mistake)."
    )
    findings: list[Finding] | None = Field(
        default=None,
        description="Checked metrics: the items likely wrong (P(mistake) >= 0.5), verbatim, most likely first. "
        "Metrics read from likelihood with a sentence cut: the sentences the source explains least, least first.",
    )

    @classmethod
    def from_samples(cls, metric_id: str, name: str, samples: list[SampleRecord]) -> MetricScore:
        scored = [s for s in samples if s.score is not None]
        if not scored:
            reasons = "; ".join(dict.fromkeys(s.error or "no score" for s in samples))
            # The first sample's code, as its reason leads the text; every sample keeps its own.
            code = next((s.reason_code for s in samples if s.reason_code), None)
            return cls(
                metric=metric_id, name=name, score=None, status="unscored", reason=reasons, reason_code=code,
                samples=samples,
            )  # fmt: skip
        values = [s.score for s in scored if s.score is not None]
        median = statistics.median(values)
        closest = min(scored, key=lambda s: abs((s.score or 0) - median))
        failed = [s for s in samples if s.score is None]
        # One score left of several asked is no agreement: its spread is unknown, not 0 (which would read as full
        # confidence), and the samples that gave none are said.
        spread = max(values) - min(values) if len(values) > 1 or not failed else None
        reason = None
        if failed:
            why = "; ".join(dict.fromkeys(s.error or "no score" for s in failed))
            reason = f"{len(failed)} of {len(samples)} samples gave no score ({why}); the score is the others' median"
        return cls(
            metric=metric_id,
            name=name,
            score=median,
            status="scored",
            explanation=closest.explanation,
            reason=reason,
            samples=samples,
            spread=spread,
        )

    def every_sample_scored(self) -> bool:
        """Whether no sample of a scored metric failed: a failure may be transient, so such a judgment is not served
        again from the ledger."""
        return all(s.score is not None for s in self.samples)

    @classmethod
    def not_applicable(cls, metric_id: str, name: str, reason: str) -> MetricScore:
        return cls(metric=metric_id, name=name, score=None, status="not_applicable", reason=reason)


class Usage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    llm_calls: int = Field(default=0, description="Model calls made.")
    prompt_tokens: int = Field(default=0, description="Prompt tokens the backend reported evaluating.")
    completion_tokens: int = Field(default=0, description="Completion tokens generated.")
    cached_prompt_tokens: int | None = Field(
        default=None, description="Prompt tokens reused from the backend's prompt cache, where it reports them."
    )
    duration_ms: float = Field(default=0.0, description="Wall time of the whole call, in milliseconds.")

    def add(self, other: Usage) -> Usage:
        cached = None
        if self.cached_prompt_tokens is not None or other.cached_prompt_tokens is not None:
            cached = (self.cached_prompt_tokens or 0) + (other.cached_prompt_tokens or 0)
        return Usage(
            llm_calls=self.llm_calls + other.llm_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_prompt_tokens=cached,
            duration_ms=self.duration_ms + other.duration_ms,
        )


class Provenance(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: str = Field(description="Which backend judged: ollama, embedded, sampling (or none).")
    model: str | None = Field(default=None, description="The model that judged.")
    model_digest: str | None = Field(
        default=None, description="Ollama's model digest, or the GGUF's sha256 for the embedded backend."
    )
    rubric_id: str | None = None
    rubric_version: str | None = None
    prompt_template_hash: str | None = Field(
        default=None, description="sha256 (first 16 hex) of the prompt template and rubric text used."
    )
    temperature: float | None = None
    seed: int | None = None
    samples: int = 1
    strategy: str | None = Field(default=None, description="'per_metric' or 'joint' calls.")
    readout: ReadoutKind | None = Field(
        default=None,
        description="'probability' (verdicts read from token probabilities) or 'generated' (parsed from the "
        "model's written reply).",
    )
    fitness_key: str | None = Field(
        default=None,
        description="The judge's calibration key (backend, model digest, readout, prompt template hash); see "
        "calibration://{key}.",
    )
    judge_fitness: JudgeFitness | None = Field(
        default=None,
        description="The newest calibration for fitness_key: set, n, balanced accuracy and AUROC with 95% "
        "intervals, date. Null when this judge was never calibrated (flag judge_uncalibrated).",
    )
