"""Scripted replies chosen by what a request asks for, never by the prompt template's wording.

A reply is routed by the request's JSON schema (which fields it wants) and, for a per-metric call, by the
rubric's own text for the metric (its description). Rewording a prompt in tools/prompts/ therefore never
changes which reply a test gets.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gavel.tools.engine.backend import ChatRequest
from gavel.tools.rubrics import Metric, Rubric

# Plain content: a rewrite that talks about itself ("addresses the feedback") is re-asked and then rejected.
GENERATED_TEXT = "Low mood for three weeks, most days; wakes at 4 a.m. nightly; has stopped going to choir."


def _resolve(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return root["$defs"][ref.removeprefix("#/$defs/")]
    return node


def _value(name: str, node: Mapping[str, Any], root: Mapping[str, Any], score: str) -> Any:
    node = _resolve(node, root)
    if "anyOf" in node:
        options = [o for o in node["anyOf"] if _resolve(o, root).get("type") != "null"]
        return _value(name, options[0], root, score) if options else None
    kind = node.get("type")
    if kind == "object":
        return {key: _value(key, sub, root, score) for key, sub in node.get("properties", {}).items()}
    if kind == "array":
        count = max(int(node.get("minItems", 0)), 3 if name == "key_points" else 0)
        return [_value(name, node.get("items", {}), root, score) for _ in range(count)]
    if kind == "boolean":
        # The best answer for a judged text: relevant, grounded, contradicting nothing.
        return "contradict" not in name
    if kind in ("number", "integer"):
        low, high = node.get("minimum", 0), node.get("maximum", 1)
        value = high if score == "max" else low
        return int(value) if kind == "integer" else value
    if kind == "string":
        text = f"The {name} is well supported and clear." if name else "ok"
        return text[: int(node.get("maxLength", len(text)))]
    return None


def reply_for_schema(schema: Mapping[str, Any] | None, score: str = "max", *, text: str = GENERATED_TEXT) -> str:
    """A reply that validates against `schema`, with every score at the scale's top ("max") or bottom
    ("min"); without a schema (a generation request), `text`."""
    if schema is None:
        return text
    return json.dumps(_value("", schema, schema, score))


def schema_reply(request: ChatRequest, score: str = "max") -> str:
    return reply_for_schema(request.schema, score)


def schema_fields(request: ChatRequest) -> set[str]:
    """The top-level fields the request's schema asks for; empty for a generation (no schema)."""
    return set((request.schema or {}).get("properties", {}))


def asked_metric(request: ChatRequest, rubric: Rubric) -> Metric | None:
    """The one metric a per-metric judging call asks about, or None for any other call.

    Found by the rubric's own description of the metric, which the call carries and no other call of one
    judgment does; a call that wants no `score` is no metric call.
    """
    if "score" not in schema_fields(request):
        return None
    user = "\n".join(m.content for m in request.messages if m.role == "user")
    found = [metric for metric in rubric.metrics if metric.description in user]
    assert len(found) <= 1, f"one metric call asks about one metric, not {[m.id for m in found]}"
    return found[0] if found else None
