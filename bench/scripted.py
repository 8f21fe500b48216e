"""A model stand-in for the benchmarks that measure Gavel itself, not a model: a valid reply to any request.

The engine asks for JSON constrained to a schema; `schema_reply` builds a valid instance of that schema
(every property, in order; scores at the scale's top), so the whole tool path runs (parsing, validation,
aggregation, verdict rules) with zero or a fixed model latency. The replies mean nothing: timings only.
The backend itself is the test suite's `ScriptedBackend` (the one fake, at the model seam).
"""

from __future__ import annotations

from typing import Any

from gavel.tools.engine.backend import ChatRequest
from tests.support.scripted import ScriptedBackend

FILLER = "Supported by the quoted passage."


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        return _resolve(target, root)
    if "anyOf" in node:
        options = [o for o in node["anyOf"] if o.get("type") != "null"]
        return _resolve(options[0], root) if options else {"type": "null"}
    return node


def schema_value(node: dict[str, Any], root: dict[str, Any]) -> Any:
    node = _resolve(node, root)
    kind = node.get("type")
    if kind == "object":
        return {name: schema_value(sub, root) for name, sub in (node.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind == "string":
        return FILLER[: node.get("maxLength", len(FILLER))]
    if kind == "boolean":
        return True
    if kind == "integer":
        return int(node.get("maximum", 1))
    if kind == "number":
        return float(node.get("maximum", 1.0))
    if kind == "null":
        return None
    return FILLER


def schema_reply(schema: dict[str, Any] | None) -> dict[str, Any] | str:
    """A valid instance of `schema`, or plain text for a request without one (a generation)."""
    if schema is None:
        return "A revised text that names every symptom with its duration and frequency."
    value = schema_value(schema, schema)
    return value if isinstance(value, dict) else {"value": value}


def request_reply(request: ChatRequest) -> dict[str, Any] | str:
    return schema_reply(request.schema)


def valid_backend(latency_s: float = 0.0) -> ScriptedBackend:
    """A scripted backend that answers every request validly, after `latency_s` seconds."""
    return ScriptedBackend(default=request_reply, latency_s=latency_s)


def _fenced(user: str, opening: str) -> str:
    return user.split(opening, 1)[1].split("\n>>>", 1)[0] if opening in user else ""


def overlap_backend() -> ScriptedBackend:
    """A backend with log-probabilities for --smoke of the probability readout: P(yes) 0.95 when every word of the
    judged text (the last fenced block) is in the document, else 0.1. The numbers mean nothing."""
    from tests.support.scripted import yes_no

    def words(text: str) -> set[str]:
        return {w.strip(".,;:!?'\"()[]").lower() for w in text.split()} - {""}

    def reply(request: ChatRequest) -> Any:
        user = request.messages[-1].content
        document, judged = _fenced(user, "Document:\n<<<\n"), user.rsplit("<<<\n", 1)[-1].split("\n>>>", 1)[0]
        return yes_no(0.95 if words(judged) <= words(document) else 0.1)

    return ScriptedBackend(default=reply, probabilities=True)
