"""Limits are enforced before any model call and stated where an agent reads them; rubrics cannot escape their
directories; prompt text with placeholders is filled by safe substitution only.

The server runs with small limits (as `gavel serve` would with GAVEL_MAX_TEXT_CHARS=100 and so on), so every
over-limit request is cheap; each must be refused naming the field, with the scripted model never called.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import Tool

from gavel.tools.errors import RubricFileError, UnknownRubric
from gavel.tools.rubric_registry import RubricRegistry
from tests.reliability.support import REGISTRY, leaks, perfect_model, result_text, scripted_server
from tests.reliability.tally import TALLY
from tests.support.scripted import ScriptedBackend

LIMITS = {
    "max_text_chars": 100,
    "max_sources": 3,
    "max_batch": 2,
    "max_candidates": 5,
    "max_samples": 3,
    "max_iterations": 4,
}
LONG = "x" * (LIMITS["max_text_chars"] + 1)
SOURCE = {"id": "S1", "content": "Ada Lovelace wrote the first program."}
IDEA = {"id": "i1", "text": "A bike lane map that updates from riders' reports."}


def _source(index: int) -> dict[str, Any]:
    return {"id": f"S{index}", "content": f"Passage {index}."}


def _metric(index: int) -> dict[str, Any]:
    return {"id": f"m{index}", "name": f"Metric {index}", "description": "Is it good?"}


def _rubric(**changes: Any) -> dict[str, Any]:
    rubric = {
        "id": "inline",
        "version": "1",
        "title": "Inline",
        "description": "An inline rubric.",
        "scale": {"min": 1, "max": 5},
        "pass_threshold": 3,
        "metrics": [_metric(0)],
    }
    return {**rubric, **changes}


OVER_LIMIT = [
    pytest.param("evaluate_assessment", {"assessment": LONG}, "assessment", id="evaluate-assessment-text"),
    pytest.param("evaluate_assessment", {"assessment": "ok", "source": LONG}, "source", id="evaluate-source-text"),
    pytest.param("evaluate_assessment", {"assessment": "ok", "samples": 4}, "samples", id="evaluate-samples"),
    pytest.param("refine_until_pass", {"draft": LONG}, "draft", id="refine-draft-text"),
    pytest.param("refine_until_pass", {"task": LONG}, "task", id="refine-task-text"),
    pytest.param("refine_until_pass", {"draft": "ok", "source": LONG}, "source", id="refine-source-text"),
    pytest.param("refine_until_pass", {"draft": "ok", "max_iterations": 5}, "max_iterations", id="refine-iterations"),
    pytest.param("refine_until_pass", {"draft": "ok", "samples": 4}, "samples", id="refine-samples"),
    pytest.param("judge_rag_answer", {"question": LONG, "answer": "a", "sources": [SOURCE]}, "question",
                 id="rag-question-text"),
    pytest.param("judge_rag_answer", {"question": "q", "answer": LONG, "sources": [SOURCE]}, "answer",
                 id="rag-answer-text"),
    pytest.param("judge_rag_answer", {"question": "q", "answer": "a", "sources": [SOURCE], "agent_reasoning": LONG},
                 "agent_reasoning", id="rag-reasoning-text"),
    pytest.param("judge_rag_answer", {"question": "q", "answer": "a", "sources": [SOURCE, {"content": LONG}]},
                 "sources[1].content", id="rag-passage-text"),
    pytest.param("judge_rag_answer", {"question": "q", "answer": "a", "sources": [{**SOURCE, "title": LONG}]},
                 "sources[0].title", id="rag-passage-title"),
    pytest.param("judge_rag_answer", {"question": "q", "answer": "a", "sources": [_source(i) for i in range(4)]},
                 "sources", id="rag-passage-count"),
    pytest.param("judge_rag_answer", {"question": "q", "answer": "a", "sources": [SOURCE],
                                      "sources_used": ["S1", "S2", "S3", "S4"]}, "sources_used", id="rag-sources-used"),
    pytest.param("judge_rag_answer", {"question": "q", "answer": "a", "sources": [SOURCE], "samples": 4}, "samples",
                 id="rag-samples"),
    pytest.param("judge_rag_answers", {"question": "q", "sources": [SOURCE],
                                       "answers": [{"agent_name": f"a{i}", "answer": "x"} for i in range(3)]},
                 "answers", id="batch-answer-count"),
    pytest.param("judge_rag_answers", {"question": "q", "sources": [SOURCE],
                                       "answers": [{"agent_name": "a", "answer": "x"},
                                                   {"agent_name": "b", "answer": LONG}]},
                 "answers[1].answer", id="batch-answer-text"),
    pytest.param("judge_rag_answers", {"question": "q", "sources": [_source(i) for i in range(4)],
                                       "answers": [{"agent_name": "a", "answer": "x"}]}, "sources",
                 id="batch-passage-count"),
    pytest.param("score_candidates", {"candidates": [{"q": i} for i in range(6)], "weights": {"q": 1}}, "candidates",
                 id="candidates-count"),
    pytest.param("score_candidates", {"candidates": [IDEA, {"id": "i2", "text": LONG}], "rubric": "idea-quality"},
                 "candidates[1].text", id="candidates-judged-text"),
    pytest.param("score_candidates", {"candidates": [IDEA], "rubric": "idea-quality", "samples": 4}, "samples",
                 id="candidates-samples"),
    pytest.param("evaluate_assessment",
                 {"assessment": "ok", "custom_rubric": _rubric(metrics=[_metric(i) for i in range(33)])},
                 "custom_rubric", id="inline-rubric-metric-count"),
    pytest.param("evaluate_assessment", {"assessment": "ok", "custom_rubric": _rubric(description="d" * 4001)},
                 "custom_rubric", id="inline-rubric-description-size"),
]  # fmt: skip


@pytest.fixture(scope="module")
def limited() -> tuple[MCPServer[Any], ScriptedBackend]:
    backend = perfect_model()
    server, _ = scripted_server(backend, overrides=LIMITS)
    return server, backend


@pytest.mark.parametrize(("tool", "arguments", "field"), OVER_LIMIT)
async def test_every_limit_is_enforced_before_any_model_call_naming_the_field(
    limited: tuple[MCPServer[Any], ScriptedBackend], tool: str, arguments: dict[str, Any], field: str
) -> None:
    server, backend = limited
    before = len(backend.requests)
    async with mcp.Client(server) as client:
        result = await client.call_tool(tool, arguments)
    text = result_text(result)
    TALLY["limits: over-limit calls refused"] += 1
    assert result.is_error is True, text
    assert field in text
    assert not leaks(text), text
    assert len(backend.requests) == before, "the model was called before the limit was checked"


async def test_a_call_just_inside_every_limit_is_judged(limited: tuple[MCPServer[Any], ScriptedBackend]) -> None:
    server, backend = limited
    at_limit = "y" * LIMITS["max_text_chars"]
    async with mcp.Client(server) as client:
        result = await client.call_tool(
            "judge_rag_answers",
            {
                "question": at_limit,
                "sources": [{**_source(i), "content": at_limit} for i in range(LIMITS["max_sources"])],
                "answers": [{"agent_name": f"a{i}", "answer": at_limit} for i in range(LIMITS["max_batch"])],
                "samples": LIMITS["max_samples"],
            },
        )
    assert result.is_error is False, result_text(result)
    assert backend.requests


async def _tools(server: MCPServer[Any]) -> dict[str, Tool]:
    async with mcp.Client(server) as client:
        return {tool.name: tool for tool in (await client.list_tools()).tools}


ALL_TOOLS = ("evaluate_assessment", "refine_until_pass", "judge_rag_answer", "judge_rag_answers", "score_candidates")


@pytest.mark.parametrize(
    ("setting", "phrase", "tools"),
    [
        pytest.param("max_text_chars", "{} characters per text field", ALL_TOOLS, id="text-chars"),
        pytest.param("max_sources", "{} sources", ("judge_rag_answer", "judge_rag_answers"), id="sources"),
        pytest.param("max_batch", "{} answers", ("judge_rag_answers",), id="batch"),
        pytest.param("max_candidates", "{} candidates", ("score_candidates",), id="candidates"),
        pytest.param("max_samples", "samples 1-{}", ALL_TOOLS, id="samples"),
    ],
)
async def test_every_tool_a_limit_applies_to_states_the_configured_limit(
    limited: tuple[MCPServer[Any], ScriptedBackend], setting: str, phrase: str, tools: tuple[str, ...]
) -> None:
    listed = await _tools(limited[0])
    for name in tools:
        assert phrase.format(f"{LIMITS[setting]:,}") in (listed[name].description or ""), name


async def test_refine_until_pass_states_the_configured_iteration_limit(
    limited: tuple[MCPServer[Any], ScriptedBackend],
) -> None:
    tool = (await _tools(limited[0]))["refine_until_pass"]
    stated = (tool.description or "") + json.dumps(tool.input_schema["properties"]["max_iterations"])
    assert re.search(rf"\b{LIMITS['max_iterations']}\b[^.]*\b(?:iterations|revisions)\b", stated)


async def test_inline_rubric_bounds_are_in_the_schema_agents_read(
    limited: tuple[MCPServer[Any], ScriptedBackend],
) -> None:
    described = (await _tools(limited[0]))["evaluate_assessment"].input_schema["properties"]["custom_rubric"]
    assert "schema://rubric" in described["description"]
    async with mcp.Client(limited[0]) as client:
        (content,) = (await client.read_resource("schema://rubric")).contents
    schema = json.loads(content.text)  # type: ignore[union-attr]
    assert schema["properties"]["metrics"]["maxItems"] == 32
    assert schema["$defs"]["Metric"]["properties"]["description"]["maxLength"] == 4000


async def test_an_inline_rubric_beyond_the_size_limit_is_refused_before_any_model_call(
    limited: tuple[MCPServer[Any], ScriptedBackend],
) -> None:
    server, backend = limited
    levels = {str(i / 1000): "a level anchor of some length" for i in range(1000, 5000)}
    huge = _rubric(metrics=[{**_metric(0), "levels": levels}])
    before = len(backend.requests)
    async with mcp.Client(server) as client:
        result = await client.call_tool("evaluate_assessment", {"assessment": "ok", "custom_rubric": huge})
    assert result.is_error is True and "custom_rubric" in result_text(result)
    assert len(backend.requests) == before


async def test_a_missing_required_argument_is_reported_in_the_boundarys_own_format(
    limited: tuple[MCPServer[Any], ScriptedBackend],
) -> None:
    async with mcp.Client(limited[0]) as client:
        result = await client.call_tool("evaluate_assessment", {"source": "a transcript"})
    text = result_text(result)
    assert result.is_error is True
    assert "assessment: is required" in text
    assert not leaks(text), text


# -- rubric ids and directories ---------------------------------------------------------------------------------

ESCAPING_IDS = [
    pytest.param("../../etc/passwd", id="relative-traversal"),
    pytest.param("/etc/passwd", id="absolute-path"),
    pytest.param("..", id="parent"),
    pytest.param("clinical-assessment/../../etc/passwd", id="traversal-after-a-real-id"),
    pytest.param("clinical-assessment.toml", id="file-name"),
    pytest.param("..%2F..%2Fetc%2Fpasswd", id="encoded-traversal"),
    pytest.param("~/.ssh/id_rsa", id="home"),
    pytest.param("clinical-assessment\x00", id="null-byte"),
]


@pytest.mark.parametrize("rubric_id", ESCAPING_IDS)
async def test_a_rubric_id_in_a_tool_call_cannot_reach_a_file(
    limited: tuple[MCPServer[Any], ScriptedBackend], rubric_id: str
) -> None:
    server, backend = limited
    before = len(backend.requests)
    async with mcp.Client(server) as client:
        result = await client.call_tool("evaluate_assessment", {"assessment": "ok", "rubric": rubric_id})
    text = result_text(result)
    assert result.is_error is True
    assert "rubric" in text and "root:" not in text
    assert len(backend.requests) == before


@pytest.mark.parametrize(
    "uri",
    [
        pytest.param("rubric://../../etc/passwd", id="raw-traversal"),
        pytest.param("rubric:///etc/passwd", id="raw-absolute-path"),
        pytest.param("rubric://clinical-assessment/../../../etc/passwd", id="traversal-after-a-real-id"),
        pytest.param("rubric://%2e%2e/%2e%2e/etc/passwd", id="encoded-dots"),
    ],
)
async def test_a_rubric_uri_cannot_reach_a_file(limited: tuple[MCPServer[Any], ScriptedBackend], uri: str) -> None:
    async with mcp.Client(limited[0]) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    assert "root:" not in str(caught.value)


@pytest.mark.parametrize("rubric_id", ESCAPING_IDS)
def test_the_registry_refuses_escaping_ids_without_touching_the_filesystem(rubric_id: str) -> None:
    with pytest.raises(UnknownRubric):
        REGISTRY.get(rubric_id)


HOUSE_STYLE = """
id = "{id}"
version = "1"
title = "House style"
description = "Does the text follow the house style?"
pass_threshold = 3

[scale]
min = 1
max = 5

[[metrics]]
id = "tone"
name = "Tone"
description = "Plain and direct."
"""


def test_a_symlink_out_of_the_rubrics_dir_stops_start_up_naming_it(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.toml").write_text(HOUSE_STYLE.format(id="secret"), encoding="utf-8")
    rubrics = tmp_path / "rubrics"
    rubrics.mkdir()
    (rubrics / "secret.toml").symlink_to(outside / "secret.toml")
    with pytest.raises(RubricFileError, match="outside its rubric directory"):
        RubricRegistry.load([rubrics])


def test_a_symlink_to_a_system_file_stops_start_up_without_reading_it(tmp_path: Path) -> None:
    rubrics = tmp_path / "rubrics"
    rubrics.mkdir()
    (rubrics / "passwd.toml").symlink_to("/etc/passwd")
    with pytest.raises(RubricFileError) as caught:
        RubricRegistry.load([rubrics])
    assert "root:" not in str(caught.value)


def test_a_symlink_inside_the_rubrics_dir_cannot_serve_a_rubric_under_another_id(tmp_path: Path) -> None:
    rubrics = tmp_path / "rubrics"
    rubrics.mkdir()
    (rubrics / "house.toml").write_text(HOUSE_STYLE.format(id="house"), encoding="utf-8")
    (rubrics / "alias.toml").symlink_to(rubrics / "house.toml")
    with pytest.raises(RubricFileError, match="does not match the file name"):
        # A link is a file like any other: its id must match its own name, so it cannot shadow another id.
        RubricRegistry.load([rubrics])


def test_rubrics_in_subdirectories_of_the_rubrics_dir_are_not_loaded(tmp_path: Path) -> None:
    rubrics = tmp_path / "rubrics"
    (rubrics / "nested").mkdir(parents=True)
    (rubrics / "nested" / "deep.toml").write_text(HOUSE_STYLE.format(id="deep"), encoding="utf-8")
    assert "deep" not in RubricRegistry.load([rubrics]).ids()


def test_a_fifo_or_a_file_nested_too_deeply_is_skipped_while_the_others_serve(tmp_path: Path) -> None:
    rubrics = tmp_path / "rubrics"
    rubrics.mkdir()
    (rubrics / "house.toml").write_text(HOUSE_STYLE.format(id="house"), encoding="utf-8")
    os.mkfifo(rubrics / "stuck.toml")  # read, it would block start-up until a writer came
    (rubrics / "deep.toml").write_text("x = " + "[" * 2000 + "]" * 2000 + "\n", encoding="utf-8")
    registry = RubricRegistry.load([rubrics], skip_broken=True)
    assert "house" in registry.ids()
    assert "is not a regular file" in str(registry.broken["stuck"])
    assert "nested too deeply" in str(registry.broken["deep"])


# -- safe substitution ---------------------------------------------------------------------------------------------

PLACEHOLDERS = "{x.__class__} {0} {subject} $x ${__import__} $$ %(x)s %s {{x}}"


def _placeholder_rubric() -> dict[str, Any]:
    return _rubric(
        title=f"Title {PLACEHOLDERS}",
        description=f"Description {PLACEHOLDERS}",
        metrics=[
            {
                "id": "m0",
                "name": f"Name {PLACEHOLDERS}",
                "description": f"Metric {PLACEHOLDERS}",
                "levels": {"5": f"Top {PLACEHOLDERS}", "1": f"Bottom {PLACEHOLDERS}"},
            }
        ],
        prompt={
            "guidance": f"Guidance {PLACEHOLDERS}",
            "key_points": f"Key points {PLACEHOLDERS}",
            "revise": f"Revise {PLACEHOLDERS}",
        },
    )


@pytest.mark.parametrize(
    ("tool", "arguments", "prefixes"),
    [
        pytest.param("evaluate_assessment", {"assessment": "ok", "source": "src"},
                     ["Guidance", "Metric", "Top", "Bottom"], id="evaluate"),
        pytest.param("refine_until_pass", {"draft": "ok", "max_iterations": 1}, ["Guidance", "Revise"], id="refine"),
        pytest.param("score_candidates", {"candidates": [IDEA], "weights": {"m0": 1}},
                     ["Guidance", "Metric", "Key points"], id="candidates"),
    ],
)  # fmt: skip
async def test_inline_rubric_text_with_placeholders_reaches_the_prompt_literally(
    tool: str, arguments: dict[str, Any], prefixes: list[str]
) -> None:
    # The worst model keeps refine_until_pass revising, so the revise instruction is used too.
    backend = perfect_model() if tool != "refine_until_pass" else _worst_then_perfect()
    server, _ = scripted_server(backend)
    async with mcp.Client(server) as client:
        result = await client.call_tool(tool, {**arguments, "custom_rubric": _placeholder_rubric()})
    assert result.is_error is False, result_text(result)
    prompts = "\n".join(backend.prompts)
    for prefix in prefixes:
        assert f"{prefix} {PLACEHOLDERS}" in prompts, prefix
    assert "<class" not in prompts and "<built-in" not in prompts


def _worst_then_perfect() -> ScriptedBackend:
    from tests.support.replies import schema_reply

    calls: list[int] = []

    def reply(request: Any) -> str:
        calls.append(1)
        # The first evaluation fails every metric; the revision and everything after it pass.
        return schema_reply(request, "min" if len(calls) == 1 else "max")

    return ScriptedBackend(default=reply)


async def test_a_rubric_label_that_looks_like_a_placeholder_is_not_substituted_again() -> None:
    backend = perfect_model()
    server, _ = scripted_server(backend)
    rubric = _rubric(prompt={"subject": "report", "source_label": "notes on $subject"})
    async with mcp.Client(server) as client:
        await client.call_tool("evaluate_assessment", {"assessment": "ok", "source": "src", "custom_rubric": rubric})
    assert "notes on $subject" in "\n".join(backend.prompts)
