"""Reading a score from the model's probabilities instead of from text it generates.

One reply token is asked for (max_tokens 1) with its top-k log-probabilities. A Yes/No check is
P(yes) / (P(yes) + P(no)) over the model's own spellings of the two answers; a scale score is the
probability-weighted mean over the scale's values (G-Eval). Measured on the embedded 1.5B default: read this
way the model separates right from hallucinated answers (AUROC 0.85 on HaluEval dev items), where the
generated reasoning-then-score reply is at chance.

Nothing is guessed: when the answer tokens are not among the top-k, or together hold less than
`MIN_ANSWER_MASS` of the probability, the readout has no value and says why with a reason code.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from gavel.tools.engine.backend import TokenLogprob
from gavel.tools.errors import BackendError, BackendTimeout, ContextTooLong

# The top-k asked for: the most llama.cpp and Ollama return, and enough to hold every case and
# leading-space spelling of Yes/No or of the digits 0-9.
TOP_LOGPROBS = 20
# The answer tokens must hold at least half of the first token's probability. Below that the model's most
# likely reply is not an answer at all (it starts "The", "Based", "{"), and the ratio of two minor tokens
# would be a number the model did not give. On the embedded default the answer tokens hold 0.99+ of the mass
# on every dev item measured, so the rule only fires on a model that does not follow the format.
MIN_ANSWER_MASS = 0.5

ReasonCode = Literal[
    "no_logprobs",
    "answer_tokens_missing",
    "answer_mass_low",
    "backend_error",
    "timeout",
    "context_too_long",
    "source_missing",
    "text_not_scored",
]


def failure_code(exc: BackendError) -> ReasonCode:
    """The reason code of a model call that raised instead of answering."""
    if isinstance(exc, BackendTimeout):
        return "timeout"
    return "context_too_long" if isinstance(exc, ContextTooLong) else "backend_error"


_YES = "yes"
_NO = "no"


@dataclass(frozen=True)
class Readout:
    """One check read from the first reply token: the value, or the reason it has none."""

    value: float | None
    distribution: dict[str, float] = field(default_factory=dict)  # answer -> probability, normalized
    mass: float | None = None  # the answer tokens' share of the first token's probability
    reason_code: ReasonCode | None = None
    reason: str | None = None

    @classmethod
    def failed(cls, code: ReasonCode, reason: str) -> Readout:
        return cls(value=None, reason_code=code, reason=reason)


def _first_position(positions: Sequence[Sequence[TokenLogprob]] | None) -> Sequence[TokenLogprob] | None:
    if not positions or not positions[0]:
        return None
    return positions[0]


def _probabilities(top: Sequence[TokenLogprob], answers: Sequence[str]) -> dict[str, float]:
    """Each answer's probability, summed over the tokens that spell it (case and leading space ignored)."""
    found = dict.fromkeys(answers, 0.0)
    for candidate in top:
        key = candidate.token.strip().casefold()
        if key in found and math.isfinite(candidate.logprob):
            found[key] += math.exp(candidate.logprob)
    return found


def _normalized(
    positions: Sequence[Sequence[TokenLogprob]] | None, answers: Sequence[str], what: str
) -> tuple[dict[str, float], float] | Readout:
    top = _first_position(positions)
    if top is None:
        return Readout.failed("no_logprobs", "the backend returned no log-probabilities for the reply")
    raw = _probabilities(top, answers)
    mass = sum(raw.values())
    if mass == 0:
        seen = ", ".join(repr(t.token) for t in top[:5])
        return Readout.failed("answer_tokens_missing", f"none of {what} is among the model's top tokens ({seen})")
    if mass < MIN_ANSWER_MASS:
        return Readout(
            value=None,
            distribution={k: v / mass for k, v in raw.items()},
            mass=mass,
            reason_code="answer_mass_low",
            reason=f"{what} hold only {mass:.2f} of the probability (at least {MIN_ANSWER_MASS} is needed)",
        )
    return {k: v / mass for k, v in raw.items()}, mass


def yes_probability(positions: Sequence[Sequence[TokenLogprob]] | None) -> Readout:
    """P(yes) / (P(yes) + P(no)) from the first reply token's top-k."""
    result = _normalized(positions, (_YES, _NO), "'Yes' and 'No'")
    if isinstance(result, Readout):
        return result
    distribution, mass = result
    return Readout(value=distribution[_YES], distribution=distribution, mass=mass)


def scale_expectation(positions: Sequence[Sequence[TokenLogprob]] | None, values: Sequence[int]) -> Readout:
    """The probability-weighted mean over the scale's values, each a single token (a digit)."""
    labels = [str(v) for v in values]
    result = _normalized(positions, labels, f"the scale's values ({labels[0]}-{labels[-1]})")
    if isinstance(result, Readout):
        return result
    distribution, mass = result
    value = sum(int(label) * p for label, p in distribution.items())
    return Readout(value=value, distribution=distribution, mass=mass)


def named_probability(positions: Sequence[Sequence[TokenLogprob]] | None) -> Readout:
    """P(the reply names something): 1 - P(its first token is "None", in any case or spacing). Any other first token
    starts a name (or a sentence, such as "Nonetheless"), so no answer mass is required. A "None" outside the
    top-k holds less than the k-th token's probability, which is the most this reading can be off by."""
    top = _first_position(positions)
    if top is None:
        return Readout.failed("no_logprobs", "the backend returned no log-probabilities for the reply")
    p_none = sum(math.exp(t.logprob) for t in top if math.isfinite(t.logprob) and t.token.strip().casefold() == "none")
    p_none = min(p_none, 1.0)
    mass = sum(math.exp(t.logprob) for t in top if math.isfinite(t.logprob))
    return Readout(value=1 - p_none, distribution={"named": 1 - p_none, "none": p_none}, mass=min(mass, 1.0))


def single_token_values(low: float, high: float, integer: bool) -> list[int] | None:
    """The scale's values when each is one token for Qwen-style tokenizers (0-9), else None: "10" is two."""
    if not integer or low < 0 or high > 9 or not float(low).is_integer() or not float(high).is_integer():
        return None
    return list(range(int(low), int(high) + 1))
