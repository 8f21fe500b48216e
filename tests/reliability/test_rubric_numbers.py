"""Every number in a rubric is finite, within bounds and consistent, or the call is refused naming the field.

The SDK client turns an infinity or a NaN into null before sending, so those go as raw JSON-RPC lines (`1e400`,
`-1e400`, `NaN`) to `gavel serve` over stdio; the finite but nonsensical ones go through an in-memory session.
A model that gives the top score would approve whatever a broken rubric let through.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import mcp
import pytest

from gavel.tools.errors import RubricFileError
from gavel.tools.rubric_registry import parse_rubric
from gavel.tools.rubrics import Rubric
from tests.reliability.raw_stdio import call_line, raw_stdio
from tests.reliability.support import REGISTRY, leaks, perfect_model, result_text, scripted_server

RAG_ARGS = {"question": "When was it built?", "answer": "In 1889 [S1].",
            "sources": [{"id": "S1", "content": "It was completed in 1889."}]}  # fmt: skip


def _rag_rubric(scale: dict[str, Any] | None = None, weight: float | None = None, **rules: float) -> dict[str, Any]:
    rubric = REGISTRY.get("rag-answer").model_dump()
    rubric["id"] = "inline-rag"
    if scale is not None:
        rubric["scale"] = {**rubric["scale"], **scale}
    if weight is not None:
        rubric["metrics"][0]["weight"] = weight
    rubric["contexts"]["RAG"].update(rules)
    return rubric


async def _refusal(tool: str, arguments: dict[str, Any]) -> str:
    server, _ = scripted_server(perfect_model())
    async with mcp.Client(server) as client:
        result = await client.call_tool(tool, arguments)
    text = result_text(result)
    assert result.is_error is True, text
    assert not leaks(text) and "internal error" not in text, text
    return text


# Stand-ins written into the JSON and then replaced by literals json.dumps will not write.
_INF, _NEG_INF, _NAN = 7.25e5, -7.25e5, 7.5e5
_LITERALS = {json.dumps(_INF): "1e400", json.dumps(_NEG_INF): "-1e400", json.dumps(_NAN): "NaN"}


def _raw_refusal(env: dict[str, str], tmp_path: Path, rubric: dict[str, Any]) -> str:
    arguments = json.dumps({**RAG_ARGS, "custom_rubric": rubric})
    for stand_in, literal in _LITERALS.items():
        arguments = arguments.replace(stand_in, literal)
    with raw_stdio(env, tmp_path) as client:
        reply = client.request(call_line(1, "judge_rag_answer", arguments), 1)
    result = reply["result"]
    text = "\n".join(item["text"] for item in result["content"])
    assert result["isError"] is True, text
    assert not leaks(text), text
    return text


@pytest.mark.slow
def test_an_infinite_weight_is_refused_naming_the_weight_instead_of_crashing_the_rag_judge(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    text = _raw_refusal(clean_env, tmp_path, _rag_rubric(weight=_INF))
    assert "metrics.0.weight" in text and "finite" in text


async def test_an_integer_scale_up_to_1e30_is_refused_naming_scale_max() -> None:
    rubric = _rag_rubric(scale={"min": 0, "max": 1e30, "integer": True})
    text = await _refusal("judge_rag_answer", {**RAG_ARGS, "custom_rubric": rubric})
    assert "scale.max" in text


async def test_an_integer_scale_up_to_1e30_is_refused_by_refine_until_pass() -> None:
    rubric = REGISTRY.get("clinical-assessment").model_dump() | {"scale": {"min": 0, "max": 1e30, "integer": True}}
    text = await _refusal("refine_until_pass", {"draft": "ok", "max_iterations": 1, "custom_rubric": rubric})
    assert "scale.max" in text


@pytest.mark.slow
def test_an_infinite_scale_is_refused_naming_scale_min(clean_env: dict[str, str], tmp_path: Path) -> None:
    text = _raw_refusal(clean_env, tmp_path, _rag_rubric(scale={"min": _NEG_INF, "max": _INF}))
    assert "scale.min" in text and "finite" in text


@pytest.mark.slow
def test_nan_thresholds_are_refused_naming_the_threshold(clean_env: dict[str, str], tmp_path: Path) -> None:
    text = _raw_refusal(clean_env, tmp_path, _rag_rubric(approve_at=_NAN, reject_below=_NAN))
    assert "approve_at" in text and "finite" in text


async def test_contradictory_thresholds_are_refused_instead_of_approving_everything() -> None:
    rubric = _rag_rubric(approve_at=-5, reject_below=99)
    text = await _refusal("judge_rag_answer", {**RAG_ARGS, "custom_rubric": rubric})
    assert "reject_below" in text and "approve_at" in text


async def test_a_threshold_outside_the_scale_is_refused_naming_it() -> None:
    text = await _refusal("judge_rag_answer", {**RAG_ARGS, "custom_rubric": _rag_rubric(approve_ungrounded_at=2)})
    assert "contexts.RAG.approve_ungrounded_at" in text and "outside the scale" in text


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"pass_threshold": math.nan}, "pass_threshold"),
        ({"scale": {"min": 1, "max": 5.5, "integer": True}}, "scale"),
        ({"diversity_targets": {"genre": 10**40}}, "diversity_targets"),
    ],
)
def test_rubric_files_follow_the_same_rules(change: dict[str, Any], field: str) -> None:
    data = REGISTRY.get("clinical-assessment").model_dump() | change
    with pytest.raises(RubricFileError, match=field):
        parse_rubric(data, origin="test.toml")


def test_a_rubric_whose_every_metric_weighs_0_is_refused() -> None:
    data = REGISTRY.get("clinical-assessment").model_dump()
    data["metrics"] = [m | {"weight": 0} for m in data["metrics"]]
    with pytest.raises(RubricFileError, match="every metric weighs 0"):
        parse_rubric(data, origin="test.toml")


@pytest.mark.parametrize(
    ("levels", "weight", "named"),
    [
        ({"5": "flawless", "5.0": "riddled with errors"}, 1, "'5.0' and '5' both name score 5; keep one"),
        ({"4": "good", " 4 ": "fine"}, 1, "' 4 ' and '4' both name score 4"),
        ({"\uff15": "excellent"}, 1, "not a score in plain ASCII digits"),
        ({"5": "flawless"}, True, "weight: Value error, must be a number, not true"),
    ],
)
def test_level_keys_name_each_score_once_and_a_weight_is_a_number(
    levels: dict[str, str], weight: object, named: str
) -> None:
    data = REGISTRY.get("clinical-assessment").model_dump()
    data["metrics"][0] |= {"levels": levels, "weight": weight}
    with pytest.raises(RubricFileError) as caught:
        parse_rubric(data, origin="test.toml")
    assert named in str(caught.value)


def test_every_builtin_rubric_passes_the_number_rules() -> None:
    for rubric in REGISTRY.all():
        assert Rubric.model_validate(rubric.model_dump()) == rubric
