"""Judge fitness end to end: calibrate_judge over a real MCP session and a real SQLite ledger, then judge_rag_answer.

The model is scripted at the seam and answers Yes/No with log-probabilities: either at random (a number derived
from the judged text alone, blind to the label) or by the label the set gives the judged answer. Everything from
the MCP client to the ledger file is real.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextResourceContents

from gavel.tools.calibration.sets import DATA_DIR
from gavel.tools.engine.backend import ChatReply, ChatRequest
from gavel.tools.rag.sentence_support import SUPPORT_CUT
from tests.server.ledger_helpers import ledger_server
from tests.support.graded import HELD_OUT_RESPONSE, HELD_OUT_SOURCE, blind, by_people, dialogue_model
from tests.support.scripted import ScriptedBackend, yes_no

LIMIT = 40
_ITEMS = [json.loads(line) for line in (DATA_DIR / "halueval-qa.jsonl").read_text(encoding="utf-8").splitlines()]
GOOD = {item["answer"].strip() for item in _ITEMS[:LIMIT] if item["label"] == "good"}
BAD = {item["answer"].strip() for item in _ITEMS[:LIMIT] if item["label"] == "bad"}
HELD_OUT_ANSWER = "The tower is 330 metres tall [1]."


def judged_text(request: ChatRequest) -> str:
    """The judged text of a check: the last fenced block of the prompt (the answer, or one of its sentences)."""
    user = request.messages[-1].content
    return user.rsplit("<<<\n", 1)[1].split("\n>>>", 1)[0].strip()


def blind_p(request: ChatRequest) -> float:
    """A probability fixed by the judged text alone: as good as a coin for telling good from bad."""
    text = judged_text(request)
    if not any(text in answer for answer in GOOD | BAD):
        return 0.9  # not a calibration item (a later call's answer)
    digest = hashlib.sha256(text.encode()).digest()
    return 0.02 + 0.96 * digest[0] / 255


def by_label(request: ChatRequest) -> float:
    text = judged_text(request)
    if text in GOOD or (any(text in g for g in GOOD) and not any(text in b for b in BAD)):
        return 0.95
    if text in BAD or any(text in b for b in BAD):
        return 0.05
    return 0.9  # not a calibration item (a later call's answer)


def model(p: Any, name: str = "scripted-model") -> ScriptedBackend:
    """Every check answered Yes with P `p(request)`; a likelihood reading (a given text to score) gains 100 nats per
    point of that P from its source."""

    def reply(request: ChatRequest) -> ChatReply:
        if request.score_text is not None:
            given = not request.messages[-1].content.startswith("(no ")
            return ChatReply(text="", model="", text_logprobs=(100.0 * p(request) if given else 0.0,))
        return yes_no(p(request))

    return ScriptedBackend(default=reply, probabilities=True, model=name)


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


RAG_ARGS = {
    "question": "How tall is the Eiffel Tower?",
    "answer": HELD_OUT_ANSWER,
    "sources": [{"id": "1", "content": "The Eiffel Tower is 330 metres tall and stands in Paris."}],
}


async def calibrate_then_judge(
    ledger: Path, backend: ScriptedBackend, **env: str
) -> tuple[dict[str, Any], CallToolResult, list[float]]:
    server, _ = ledger_server(ledger, backend, **env)
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async with mcp.Client(server) as client:
        report = structured(
            await client.call_tool(
                "calibrate_judge", {"set": "halueval-qa", "limit": LIMIT}, progress_callback=on_progress
            )
        )
        judged = await client.call_tool("judge_rag_answer", RAG_ARGS)
    return report, judged, progress


async def test_a_judge_answering_at_random_is_flagged_near_chance(tmp_path: Path) -> None:
    report, judged, progress = await calibrate_then_judge(tmp_path / "ledger.sqlite3", model(blind_p))
    low, high = report["balanced_accuracy"]["low"], report["balanced_accuracy"]["high"]
    assert report["complete"] and report["n"] == LIMIT and report["stored"]
    assert low <= 0.5 <= high
    # One step per item; the engine's signs of life fall between them, the whole strictly increasing.
    assert [value for value in progress if float(value).is_integer()] == [float(i) for i in range(1, LIMIT + 1)]
    assert all(later > earlier for earlier, later in itertools.pairwise(progress))
    result = structured(judged)
    assert "judge_near_chance" in result["flags"] and "judge_uncalibrated" not in result["flags"]
    fitness = result["provenance"]["judge_fitness"]
    assert fitness["near_chance"] is True
    assert fitness["calibration_id"] == report["calibration_id"] and fitness["n"] == LIMIT
    assert fitness["balanced_accuracy_ci95"] == [low, high]
    text = judged.content[0].text
    assert text.splitlines()[-1].startswith("judge fitness: NEAR CHANCE")
    # Fitness informs; the verdict is the one the scores give.
    assert result["verdict"] == "approved"


async def test_a_judge_answering_by_the_label_is_not_flagged(tmp_path: Path) -> None:
    report, judged, _ = await calibrate_then_judge(tmp_path / "ledger.sqlite3", model(by_label))
    assert report["balanced_accuracy"]["value"] == 1.0 and report["balanced_accuracy"]["low"] > 0.5
    assert report["auroc"]["value"] == 1.0 and report["pairwise_accuracy"]["value"] == 1.0
    assert report["unscored"] == 0 and report["from_cache"] == 0 and report["base_rate_good"] == 0.5
    result = structured(judged)
    assert not {"judge_near_chance", "judge_uncalibrated"} & set(result["flags"])
    fitness = result["provenance"]["judge_fitness"]
    assert fitness["balanced_accuracy"] == 1.0 and fitness["near_chance"] is False and fitness["set"] == "halueval-qa"
    assert result["decision_cut"] == {"value": SUPPORT_CUT, "source": "default", "calibration_id": None}


async def test_a_second_run_is_served_from_the_ledger_and_says_so(tmp_path: Path) -> None:
    backend = model(by_label)
    server, _ = ledger_server(tmp_path / "ledger.sqlite3", backend)
    async with mcp.Client(server) as client:
        first = structured(await client.call_tool("calibrate_judge", {"set": "halueval-qa", "limit": 6}))
        calls = len(backend.requests)
        second = await client.call_tool("calibrate_judge", {"set": "halueval-qa", "limit": 6})
    assert first["from_cache"] == 0
    assert structured(second)["from_cache"] == 6 and len(backend.requests) == calls  # no model call the second time
    assert "6 of 200 (6 from the ledger's cache, 0 unscored)" in second.content[0].text


async def test_a_model_without_calibration_is_flagged_uncalibrated(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    await calibrate_then_judge(path, model(by_label))
    server, _ = ledger_server(path, model(by_label, name="another-model"))
    async with mcp.Client(server) as client:
        judged = await client.call_tool("judge_rag_answer", RAG_ARGS)
    result = structured(judged)
    assert "judge_uncalibrated" in result["flags"] and result["provenance"]["judge_fitness"] is None
    assert judged.content[0].text.splitlines()[-1].startswith("judge fitness: uncalibrated")


async def test_the_calibrated_cut_decides_only_when_asked_and_the_result_says_so(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    report, _, _ = await calibrate_then_judge(path, model(by_label))
    server, _ = ledger_server(path, model(by_label), GAVEL_USE_CALIBRATED_CUT="true")
    async with mcp.Client(server) as client:
        result = structured(await client.call_tool("judge_rag_answer", RAG_ARGS))
    assert result["decision_cut"] == {
        "value": report["cut"]["best"], "source": "calibrated", "calibration_id": report["calibration_id"],
    }  # fmt: skip


async def read(server: Any, uri: str) -> str:
    async with mcp.Client(server) as client:
        (content,) = (await client.read_resource(uri)).contents
    assert isinstance(content, TextResourceContents)
    return content.text


async def test_the_calibration_resources_list_and_show_what_was_measured(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    report, judged, _ = await calibrate_then_judge(path, model(by_label))
    server, _ = ledger_server(path, model(by_label))
    index = json.loads(await read(server, "calibration://index"))["calibrations"]
    assert [(e["key"], e["set"], e["n"]) for e in index] == [(report["fitness_key"], "halueval-qa", LIMIT)]
    assert structured(judged)["provenance"]["fitness_key"] == report["fitness_key"]
    shown = json.loads(await read(server, f"calibration://{report['fitness_key']}"))
    assert shown["calibrations"][0]["calibration_id"] == report["calibration_id"]
    async with mcp.Client(server) as client:
        with pytest.raises(MCPError, match="no calibration"):
            await client.read_resource("calibration://0123456789abcdef")


async def test_an_unknown_set_is_refused_with_the_known_ones(tmp_path: Path) -> None:
    server, _ = ledger_server(tmp_path / "ledger.sqlite3", model(by_label))
    async with mcp.Client(server) as client:
        result = await client.call_tool("calibrate_judge", {"set": "nope"})
    assert result.is_error
    assert all(name in result.content[0].text for name in ("clinical-assessment", "halueval-qa", "topicalchat-usr"))


DIALOGUE_ARGS = {"assessment": HELD_OUT_RESPONSE, "source": HELD_OUT_SOURCE, "rubric": "dialogue-response"}


async def calibrate_dialogue_then_evaluate(
    path: Path, backend: ScriptedBackend, limit: int
) -> tuple[dict[str, Any], CallToolResult]:
    server, _ = ledger_server(path, backend)
    async with mcp.Client(server) as client:
        report = structured(await client.call_tool("calibrate_judge", {"set": "topicalchat-usr", "limit": limit}))
        judged = await client.call_tool("evaluate_assessment", DIALOGUE_ARGS)
    return report, judged


async def test_a_dialogue_judgment_carries_the_spearman_of_its_calibration(tmp_path: Path) -> None:
    report, judged = await calibrate_dialogue_then_evaluate(tmp_path / "ledger.sqlite3", dialogue_model(by_people), 18)
    assert report["tool"] == "evaluate_assessment" and report["rubric"] == "dialogue-response" and report["n"] == 18
    assert report["spearman"]["value"] == 1.0 and report["balanced_accuracy"]["value"] is None and report["stored"]
    result = structured(judged)
    assert result["provenance"]["fitness_key"] == report["fitness_key"]
    fitness = result["provenance"]["judge_fitness"]
    assert fitness["set"] == "topicalchat-usr" and fitness["calibration_id"] == report["calibration_id"]
    assert fitness["spearman"] == 1.0 and fitness["balanced_accuracy"] is None and fitness["near_chance"] is False
    assert not {"judge_near_chance", "judge_uncalibrated"} & set(result["flags"])
    assert judged.content[0].text.splitlines()[-1].startswith("judge fitness: better than chance (Spearman 1.00")


async def test_a_dialogue_judge_blind_to_the_people_is_flagged_near_chance(tmp_path: Path) -> None:
    report, judged = await calibrate_dialogue_then_evaluate(tmp_path / "ledger.sqlite3", dialogue_model(blind), 60)
    assert report["spearman"]["low"] <= 0 <= report["spearman"]["high"]
    result = structured(judged)
    assert "judge_near_chance" in result["flags"] and result["provenance"]["judge_fitness"]["near_chance"] is True


async def test_a_clinical_calibration_does_not_vouch_for_a_dialogue_judgment(tmp_path: Path) -> None:
    """The fitness key holds the rubric's prompts: one rubric's calibration is no other rubric's fitness."""
    path = tmp_path / "ledger.sqlite3"
    await calibrate_dialogue_then_evaluate(path, dialogue_model(by_people), 6)
    server, _ = ledger_server(path, dialogue_model(by_people))
    async with mcp.Client(server) as client:
        clinical = structured(await client.call_tool("evaluate_assessment", {"assessment": "Low mood.", "source": "x"}))
    assert clinical["provenance"]["judge_fitness"] is None and "judge_uncalibrated" in clinical["flags"]


_CLINICAL = [json.loads(line) for line in (DATA_DIR / "clinical-assessment.jsonl").read_text().splitlines() if line]
GOOD_ASSESSMENTS = [item["assessment"] for item in _CLINICAL if item["label"] == "good"]
BAD_ASSESSMENTS = [item["assessment"] for item in _CLINICAL if item["label"] == "bad"]
HELD_OUT_ASSESSMENT = {"assessment": "For two months the patient has slept badly.", "source": "Patient: I sleep badly."}


def by_assessment_label(request: ChatRequest) -> float:
    """Yes to a check of a good assessment's sentence (or against a good assessment), no to a bad one's."""
    if request.score_text is not None:
        return 0.95 if request.score_text in GOOD_ASSESSMENTS else 0.05
    user = request.messages[-1].content
    blocks = [block.split("\n>>>", 1)[0].strip() for block in user.split("<<<\n")[1:]]
    for text in reversed(blocks):  # the claim first, then the document it is checked against
        good, bad = any(text in a for a in GOOD_ASSESSMENTS), any(text in a for a in BAD_ASSESSMENTS)
        if good != bad:
            return 0.95 if good else 0.05
    return 0.6


async def test_a_calibrated_cut_decides_passed_on_the_mean_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    server, _ = ledger_server(path, model(by_assessment_label))
    async with mcp.Client(server) as client:
        report = structured(await client.call_tool("calibrate_judge", {"set": "clinical-assessment"}))
        default = structured(await client.call_tool("evaluate_assessment", HELD_OUT_ASSESSMENT))
    assert report["cut"]["best"] is not None and default["pass_cut"] is None
    server, _ = ledger_server(path, model(by_assessment_label), GAVEL_USE_CALIBRATED_CUT="true")
    async with mcp.Client(server) as client:
        calibrated = structured(await client.call_tool("evaluate_assessment", HELD_OUT_ASSESSMENT))
        asked = structured(await client.call_tool("evaluate_assessment", {**HELD_OUT_ASSESSMENT, "pass_threshold": 3}))
    cut = {"value": report["cut"]["best"], "source": "calibrated", "calibration_id": report["calibration_id"]}
    assert calibrated["pass_cut"] == cut and asked["pass_cut"] is None  # a threshold the caller sets wins
    share = (calibrated["average"] - 1) / 4
    assert calibrated["passed"] is (share >= cut["value"])
    assert "calibrated cut" in calibrated["summary"]
