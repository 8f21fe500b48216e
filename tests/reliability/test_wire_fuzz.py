"""Generated hostile requests on the wire, where the SDK's client cannot go: lone surrogate escapes in any string or
key, nesting around and beyond the JSON reader's 200 levels, non-finite literals (NaN, Infinity, 1e400) in the
numbers of a request and of an inline rubric, and inline rubrics with contradictory thresholds. Written as raw
JSON-RPC lines to one `gavel serve` over stdio; every request must get its answer within a bound (the SDK's
reader used to drop some, and the client waited forever), none may leak internals, and the ones that cannot be
valid must be refused.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reliability.raw_stdio import RawStdio, call_line, raw_stdio
from tests.reliability.support import REGISTRY, leaks
from tests.reliability.tally import FULL, TALLY

pytestmark = pytest.mark.slow

EXAMPLES = 400 if FULL else 40
ANSWER_BOUND_S = 10.0
SENTINEL = "@@HOLE@@"

RAG_RUBRIC = REGISTRY.get("rag-answer").model_dump(mode="json") | {"id": "inline-rag"}
CLINICAL_RUBRIC = REGISTRY.get("clinical-assessment").model_dump(mode="json") | {"id": "inline-clinical"}
BASE: dict[str, dict[str, Any]] = {
    "evaluate_assessment": {"assessment": "Low mood for three weeks.", "source": "I feel low.",
                            "custom_rubric": CLINICAL_RUBRIC},
    "judge_rag_answer": {"question": "Who wrote it?", "answer": "Ada [S1].",
                         "sources": [{"id": "S1", "content": "Ada wrote it."}], "custom_rubric": RAG_RUBRIC},
    "score_candidates": {"candidates": [{"id": "a", "q": 1.0}, {"id": "b", "q": 2.0}], "weights": {"q": 1},
                         "top_k": 1},
}  # fmt: skip
# Numbers that must be finite for the request to be valid, by tool: (path, ...) into the arguments.
NUMBERS: dict[str, list[tuple[Any, ...]]] = {
    "evaluate_assessment": [("custom_rubric", "scale", "min"), ("custom_rubric", "scale", "max"),
                            ("custom_rubric", "pass_threshold"), ("custom_rubric", "metrics", 0, "weight"),
                            ("samples",), ("pass_threshold",)],
    "judge_rag_answer": [("custom_rubric", "contexts", "RAG", "approve_at"),
                         ("custom_rubric", "contexts", "RAG", "reject_below"),
                         ("custom_rubric", "metrics", 1, "weight"), ("custom_rubric", "scale", "max"), ("samples",)],
    "score_candidates": [("weights", "q"), ("top_k",), ("candidates", 0, "q")],
}  # fmt: skip
NON_FINITE = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"]
SURROGATES = ["\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\ud83d"]
# Inline rubric changes that contradict themselves (RAG rubric, scale 0..1).
CONTRADICTIONS: list[dict[str, Any]] = [
    {"scale": {"min": 1, "max": 0}},
    {"scale": {"min": 0, "max": 1e30, "integer": True}},
    {"contexts": {"RAG": {"approve_at": -5, "reject_below": 99}}},
    {"contexts": {"RAG": {"approve_at": 0.5, "reject_below": 0.7}}},
    {"contexts": {"RAG": {"approve_ungrounded_at": 0.6}}},
    {"contexts": {"RAG": {"reject_ungrounded_unsourced_below": 0.2}}},
    {"contexts": {"RAG": {"approve_at": 3}}},
    {"pass_threshold": 2},
]


@dataclass
class Frame:
    kind: str
    tool: str
    text: str  # the arguments as raw JSON text
    depth: int = 0


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], bool]]:
    """Every (path, is_key) in a JSON value: strings as values, and every object key."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key), True
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))
    elif isinstance(value, str):
        yield path, False


def _set(arguments: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    node: Any = arguments
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


def _merge(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in change.items():
        merged[key] = _merge(merged[key], value) if isinstance(value, dict) and key in merged else value
    return merged


@st.composite
def frames(draw: st.DrawFn) -> Frame:
    kind = draw(st.sampled_from(["surrogate", "deep", "non_finite", "contradictory"]))
    tool = "judge_rag_answer" if kind == "contradictory" else draw(st.sampled_from(sorted(BASE)))
    arguments = copy.deepcopy(BASE[tool])
    if kind == "contradictory":
        arguments["custom_rubric"] = _merge(RAG_RUBRIC, draw(st.sampled_from(CONTRADICTIONS)))
        return Frame(kind, tool, json.dumps(arguments))
    if kind == "surrogate":
        path, is_key = draw(st.sampled_from(list(_paths(arguments))))
        if is_key:
            parent: Any = arguments
            for step in path[:-1]:
                parent = parent[step]
            parent[path[-1] + SENTINEL] = parent.pop(path[-1])
        else:
            _set(arguments, path, draw(st.sampled_from(["", "x "])) + SENTINEL)
        return Frame(kind, tool, json.dumps(arguments).replace(SENTINEL, draw(st.sampled_from(SURROGATES))))
    if kind == "non_finite":
        _set(arguments, draw(st.sampled_from(NUMBERS[tool])), SENTINEL)
        return Frame(kind, tool, json.dumps(arguments).replace(f'"{SENTINEL}"', draw(st.sampled_from(NON_FINITE))))
    path, _ = draw(st.sampled_from([p for p in _paths(arguments) if not p[1]]))
    _set(arguments, path, SENTINEL)
    depth = draw(st.integers(min_value=150, max_value=320))
    nested = "[" * depth + "1" + "]" * depth if draw(st.booleans()) else '{"a": ' * depth + "1" + "}" * depth
    text = json.dumps(arguments).replace(f'"{SENTINEL}"', nested)
    # The JSON-RPC envelope (message, params) wraps the arguments in 2 more levels.
    return Frame(kind, tool, text, _nesting(text) + 2)


def _nesting(text: str) -> int:
    """How deeply the JSON text's arrays and objects nest, counted from its outer value."""
    deepest = level = 0
    for token in re.findall(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        if token in "[{":
            level += 1
            deepest = max(deepest, level)
        elif token in "]}":
            level -= 1
    return deepest


@pytest.fixture(scope="module")
def wire(clean_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawStdio]:
    with raw_stdio(clean_env, Path(tmp_path_factory.mktemp("wire"))) as client:
        yield client


def test_every_hostile_request_on_the_wire_gets_an_answer_within_the_bound(wire: RawStdio) -> None:
    ids = iter(range(100, 1_000_000))

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
    @given(frame=frames())
    def run(frame: Frame) -> None:
        message_id = next(ids)
        wire.send(call_line(message_id, frame.tool, frame.text))
        reply = wire.answer(message_id, ANSWER_BOUND_S)
        shown = json.dumps(reply)
        assert not leaks(shown), f"{frame.kind}: {shown[:500]}"
        refused = "error" in reply or reply["result"].get("isError") is True
        if frame.kind in ("surrogate", "non_finite", "contradictory") or frame.depth > 200:
            assert refused, f"{frame.kind} was accepted: {frame.text[:300]} -> {shown[:300]}"
        if frame.kind == "surrogate":
            assert "surrogate" in shown, shown[:300]
        TALLY[f"wire fuzz: {frame.kind} requests answered"] += 1

    run()
    assert "result" in wire.request(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}', 1)
