"""What the judge asks a model to reply: the per-metric and joint reply models and their requested JSON schemas.

The per-metric answer puts its reasoning before its score, so the model reasons before it commits. The scale's
bounds go into the schema, so constrained decoding cannot leave the scale; the requested schema is stricter
than validation (tighter string lengths, every property required), so a small model neither rambles nor
fails on a slightly long explanation.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, create_model

from gavel.tools.engine import prompts
from gavel.tools.rubrics import Metric, Rubric

EXPLANATION_MAX_CHARS = 300
EVIDENCE_MAX_CHARS = 200
# A metric's reply may fill every string the requested schema allows, at as little as two characters a token
# when it quotes names and numbers, plus the JSON around them. A fixed cap below that cut full-length replies
# off and the metric ended unscored: measured on the agreement benchmark, where the accuracy metric quotes
# HaluEval's long passages.
REPLY_OVERHEAD_TOKENS = 50


def metric_reply_model(rubric: Rubric, *, evidence: prompts.Evidence = None) -> type[BaseModel]:
    """The per-metric answer: reasoning first (so the model reasons before it commits), then the score.

    Judged against a source, the model first quotes the judged text's key claim and then what the source
    says about it: measured on the embedded default, small models otherwise "find" the judged text's claims
    in the source and approve a contradiction. Judged against the question, it first states what was asked
    and what the text gives (without that pair the embedded default called a correct answer irrelevant).
    The scale's bounds go into the JSON schema, so constrained decoding cannot leave the scale, and the
    same model rejects an out-of-scale score from a backend that does not constrain (never a clamp).
    """
    return _metric_reply_model(rubric.scale.integer, rubric.scale.min, rubric.scale.max, evidence)


def _not_a_boolean(value: object) -> object:
    if isinstance(value, bool):
        raise ValueError("true or false is no score: give a number")  # pydantic would read true as 1
    return value


# A reply's number that is a JSON boolean is refused: lax validation reads true as 1, a score the model never gave.
NOT_A_BOOLEAN = BeforeValidator(_not_a_boolean)


@functools.lru_cache(maxsize=256)
def _metric_reply_model(integer: bool, low: float, high: float, evidence: prompts.Evidence) -> type[BaseModel]:
    # Built once per scale and evidence: building a pydantic model and its JSON schema per model call was
    # most of a scripted tool call's server time (bench.overhead).
    score_type: Any = int if integer else float
    fields: dict[str, Any] = {}
    # Required in the requested schema (see `request_schema`) but not for validation: a backend without
    # constrained decoding that skips the quotes still gave a usable score.
    for name, description in _EVIDENCE_FIELDS.get(evidence, ()):
        fields[name] = (str, Field(default="", max_length=EVIDENCE_MAX_CHARS * 2, description=description))
    fields["explanation"] = (str, Field(max_length=EXPLANATION_MAX_CHARS * 2, description="Short reasoning."))
    fields["score"] = (Annotated[score_type, NOT_A_BOOLEAN], Field(ge=low, le=high, description="The score."))
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


def metric_max_tokens(reply_model: type[BaseModel]) -> int:
    """The token cap for one metric's reply: room for every string its requested schema lets it fill."""
    properties = _cached_schema(reply_model, EXPLANATION_MAX_CHARS).get("properties", {})
    return REPLY_OVERHEAD_TOKENS + sum(int(p.get("maxLength", 0)) for p in properties.values()) // 2


def joint_model(rubric: Rubric, metrics: Sequence[Metric], *, evidence: prompts.Evidence = None) -> type[BaseModel]:
    """One required property per metric id, so constrained decoding must produce each metric exactly once."""
    return _joint_model(metric_reply_model(rubric, evidence=evidence), tuple((m.id, m.name) for m in metrics))


@functools.lru_cache(maxsize=256)
def _joint_model(item: type[BaseModel], metrics: tuple[tuple[str, str], ...]) -> type[BaseModel]:
    fields: dict[str, Any] = {metric_id: (item, Field(description=name)) for metric_id, name in metrics}
    return create_model("JointVerdict", __config__=ConfigDict(extra="ignore"), **fields)


def request_schema(model: type[BaseModel], max_chars: int = EXPLANATION_MAX_CHARS) -> dict[str, Any]:
    """The JSON schema a request asks the model to follow for `model`."""
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


__all__ = ["joint_model", "metric_max_tokens", "metric_reply_model", "request_schema"]
