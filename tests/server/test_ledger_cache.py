"""The evaluation ledger through a real in-memory MCP session: recording, the cache, and reading it back."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp.client.subscriptions import listen
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextResourceContents

from gavel.server import ledger_key
from gavel.server.boundary import BoundaryServer
from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ModelInfo
from gavel.tools.ledger import Entry, Ledger, timestamp, utc_now
from tests.server.ledger_helpers import (
    ScriptedDeps,
    broken_model,
    evaluate_args,
    idea_args,
    ledger_server,
    numeric_candidates_args,
    perfect_model,
    rag_args,
    rag_batch_args,
    valid_reply,
)
from tests.support.scripted import ScriptedBackend

LEDGER_TOOLS = ("evaluate_assessment", "refine_until_pass", "judge_rag_answer", "judge_rag_answers",
                "score_candidates")  # fmt: skip
CACHEABLE_TOOLS = ("evaluate_assessment", "judge_rag_answer", "judge_rag_answers", "score_candidates")


@dataclass
class Rig:
    """One server for the module (building one costs ~0.3 s); each test gets its own ledger file and model."""

    server: BoundaryServer
    deps: ScriptedDeps
    path: Path
    opened: list[Ledger] = field(default_factory=list)

    def use(
        self, backend: ScriptedBackend | None = None, *, path: Path | None = None, **options: Any
    ) -> ScriptedBackend:
        """Judge with `backend` from now on, recording in a ledger at `path` (default: the test's) with `options`."""
        self.deps.backend = backend or perfect_model()
        ledger = Ledger(path or self.path, **options)
        self.opened.append(ledger)
        self.server.ledger = ledger
        return self.deps.backend

    def store(self) -> Ledger:
        """The ledger the server records in (reads wait for its background writes)."""
        ledger = self.server.ledger
        assert ledger is not None
        return ledger


@pytest.fixture(scope="module")
def shared() -> tuple[BoundaryServer, ScriptedDeps]:
    return ledger_server("off", perfect_model())


@pytest.fixture
def rig(shared: tuple[BoundaryServer, ScriptedDeps], tmp_path: Path) -> Iterator[Rig]:
    server, deps = shared
    rig = Rig(server, deps, tmp_path / "ledger.sqlite3")
    rig.use()
    yield rig
    server.ledger = None
    for ledger in rig.opened:
        ledger.close()


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def without_ledger_fields(content: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in content.items() if k not in ("evaluation_id", "cached")}


async def call_twice(
    rig: Rig, tool: str, first: dict[str, Any], second: dict[str, Any] | None = None, **options: Any
) -> tuple[dict[str, Any], dict[str, Any], ScriptedBackend, int]:
    """Call `tool` twice; returns both results, the backend, and its request count after the first call."""
    backend = rig.use(**options)
    async with mcp.Client(rig.server) as client:
        one = structured(await client.call_tool(tool, first))
        calls_after_first = len(backend.requests)
        two = structured(await client.call_tool(tool, second if second is not None else first))
    return one, two, backend, calls_after_first


async def read_text(server: Any, uri: str) -> str:
    async with mcp.Client(server) as client:
        result = await client.read_resource(uri)
    (content,) = result.contents
    assert isinstance(content, TextResourceContents)
    return content.text


# -- the schema ----------------------------------------------------------------------------------------------


async def test_every_judging_tool_declares_evaluation_id_and_cached_in_its_output_schema(rig: Rig) -> None:
    async with mcp.Client(rig.server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    for name in LEDGER_TOOLS:
        properties = (tools[name].output_schema or {})["properties"]
        assert {"evaluation_id", "cached"} <= set(properties), name
        full = json.loads(await read_text(rig.server, f"schema://result/{name}"))
        assert "description" in full["properties"]["cached"], name


async def test_no_cache_is_an_argument_of_the_cacheable_tools_only(rig: Rig) -> None:
    async with mcp.Client(rig.server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert [n for n in LEDGER_TOOLS if "no_cache" in tools[n].input_schema["properties"]] == list(CACHEABLE_TOOLS)
    assert tools["evaluate_assessment"].input_schema["properties"]["no_cache"]["default"] is False


# -- the cache -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        pytest.param("evaluate_assessment", evaluate_args(), id="evaluate_assessment"),
        pytest.param("judge_rag_answer", rag_args(), id="judge_rag_answer"),
        pytest.param("judge_rag_answers", rag_batch_args(), id="judge_rag_answers"),
        pytest.param("score_candidates", idea_args(), id="score_candidates-rubric-mode"),
    ],
)
async def test_an_identical_request_is_served_from_the_ledger_with_no_model_call(
    rig: Rig, tool: str, arguments: dict[str, Any]
) -> None:
    one, two, backend, calls_after_first = await call_twice(rig, tool, arguments)
    assert calls_after_first > 0
    assert len(backend.requests) == calls_after_first
    assert (one["cached"], two["cached"]) == (False, True)
    served_items = {"results": [item | {"cached": True} for item in one["results"]]} if "results" in one else {}
    assert without_ledger_fields(two) == without_ledger_fields(one) | served_items
    assert two["evaluation_id"] == one["evaluation_id"]


async def test_a_served_judgment_says_so_in_its_text_for_the_person_reading_the_chat(rig: Rig) -> None:
    rig.use()
    async with mcp.Client(rig.server) as client:
        await client.call_tool("evaluate_assessment", evaluate_args())
        served = await client.call_tool("evaluate_assessment", evaluate_args())
    text = served.content[0].text
    assert f"served from the ledger: {served.structured_content['evaluation_id']}; no model call" in text


async def test_a_served_judgment_keeps_its_id_and_the_served_call_is_recorded_naming_it(rig: Rig) -> None:
    one, two, _, _ = await call_twice(rig, "evaluate_assessment", evaluate_args())
    latest = rig.store().recent(limit=1)[0]
    record = rig.store().get(latest["evaluation_id"])
    assert two["evaluation_id"] == one["evaluation_id"]
    assert record is not None
    assert record["evaluation_id"] != one["evaluation_id"]
    assert (record["cached"], record["served_from"]) == (True, one["evaluation_id"])
    assert record["result"] == one  # the judgment as recorded; the row's cached flag says it was served
    assert record["provenance"] == one["provenance"]


async def test_no_cache_judges_afresh_and_the_fresh_judgment_is_recorded(rig: Rig) -> None:
    _, two, backend, calls_after_first = await call_twice(
        rig, "evaluate_assessment", evaluate_args(), evaluate_args() | {"no_cache": True}
    )
    assert len(backend.requests) == 2 * calls_after_first
    assert two["cached"] is False
    assert rig.store().get(two["evaluation_id"]) is not None


@pytest.mark.parametrize(
    "changed",
    [
        pytest.param({"assessment": "Another text entirely."}, id="other-text"),
        pytest.param({"samples": 3}, id="more-samples"),
        pytest.param({"metrics": ["coherence"]}, id="other-metrics"),
        pytest.param({"model": "another-model"}, id="model-override"),
        pytest.param({"pass_threshold": 2}, id="other-threshold"),
        pytest.param({"source": "Interviewer: Hello.\nPatient: Fine."}, id="other-source"),
        pytest.param({"rubric": "idea-quality"}, id="other-rubric"),
    ],
)
async def test_a_request_that_differs_in_anything_judged_is_judged_afresh(rig: Rig, changed: dict[str, Any]) -> None:
    _, two, backend, calls_after_first = await call_twice(
        rig, "evaluate_assessment", evaluate_args(), evaluate_args() | changed
    )
    assert two["cached"] is False
    assert len(backend.requests) > calls_after_first


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        pytest.param("GAVEL_SEED", "7", id="seed"),
        pytest.param("GAVEL_TEMPERATURE", "0.3", id="temperature"),
        pytest.param("GAVEL_STRATEGY", "joint", id="strategy"),
    ],
)
async def test_an_engine_option_that_changed_between_judgments_is_a_miss(rig: Rig, setting: str, value: str) -> None:
    async with mcp.Client(rig.server) as client:
        structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    later = perfect_model()
    server, _ = ledger_server(rig.path, later, **{setting: value})
    async with mcp.Client(server) as client:
        again = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    assert again["cached"] is False
    assert len(later.requests) > 0


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        pytest.param("evaluate_assessment", evaluate_args(), id="with-a-rubric"),
        pytest.param("score_candidates", numeric_candidates_args() | {"explain": "narrative"}, id="without-a-rubric"),
    ],
)
async def test_a_prompt_edited_between_judgments_is_a_miss(
    rig: Rig, tool: str, arguments: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with mcp.Client(rig.server) as client:
        structured(await client.call_tool(tool, arguments))
    edited = tmp_path / "prompts"
    shutil.copytree(prompts.PROMPTS_DIR, edited)
    (edited / "judge.toml").write_bytes((edited / "judge.toml").read_bytes() + b"\n# edited\n")
    # What a restart after the edit would read.
    monkeypatch.setattr(prompts, "_installed_prompts_digest", lambda: prompts.prompts_digest(edited))
    later = perfect_model()
    server, _ = ledger_server(rig.path, later)
    async with mcp.Client(server) as client:
        again = structured(await client.call_tool(tool, arguments))
    assert again["cached"] is False
    assert len(later.requests) > 0


async def test_judging_code_changed_between_judgments_is_a_miss(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    # Most changes to how a verdict is made are code, not a prompt or a rubric, and the version is not bumped for
    # each: the old code's judgment must not be served as the new code's.
    async with mcp.Client(rig.server) as client:
        structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    monkeypatch.setattr(ledger_key, "code_digest", lambda: "another-checkout")
    later = perfect_model()
    server, _ = ledger_server(rig.path, later)
    async with mcp.Client(server) as client:
        again = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    assert again["cached"] is False
    assert len(later.requests) > 0


async def test_weights_in_another_order_are_the_same_request_and_give_the_same_selection(rig: Rig) -> None:
    # The key reads a mapping in name order, so the weighted sum is added up in that order too.
    reordered = numeric_candidates_args() | {"weights": {"energy": 0.3, "focus": 0.7}, "explain": "narrative"}
    one, two, _, _ = await call_twice(rig, "score_candidates", numeric_candidates_args() | {"explain": "narrative"},
                                      reordered)  # fmt: skip
    assert two["cached"] is True
    assert one["selected"] == two["selected"]


async def test_another_server_on_the_same_ledger_and_model_is_served_the_judgment(rig: Rig) -> None:
    async with mcp.Client(rig.server) as client:
        structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    later = perfect_model()
    server, _ = ledger_server(rig.path, later)
    async with mcp.Client(server) as client:
        again = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    assert again["cached"] is True
    assert later.requests == []


async def test_a_different_model_never_gets_another_models_judgment(rig: Rig) -> None:
    rig.use(perfect_model(model="judge-a"))
    async with mcp.Client(rig.server) as client:
        structured(await client.call_tool("evaluate_assessment", evaluate_args()))
        other = rig.use(perfect_model(model="judge-b"))
        two = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    assert two["cached"] is False
    assert len(other.requests) > 0


class NoDigestModel(ScriptedBackend):
    async def model_info(self, model: str | None = None) -> ModelInfo:
        return ModelInfo(backend=self.name, model=model or self.model, digest=None)


class ClientModel(ScriptedBackend):
    name = "sampling"


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: NoDigestModel(default=valid_reply), id="model-without-digest"),
        pytest.param(lambda: ClientModel(default=valid_reply), id="client-model-through-sampling"),
    ],
)
async def test_a_judge_that_cannot_be_identified_exactly_is_recorded_but_never_served(
    rig: Rig, make: Callable[[], ScriptedBackend]
) -> None:
    backend = rig.use(make())
    async with mcp.Client(rig.server) as client:
        one = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
        calls_after_first = len(backend.requests)
        two = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    assert one["evaluation_id"] is not None
    assert two["cached"] is False
    assert len(backend.requests) == 2 * calls_after_first


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        pytest.param("evaluate_assessment", evaluate_args(), id="evaluate-unscored-metrics"),
        pytest.param("judge_rag_answer", rag_args(), id="rag-unscored-verdict"),
        pytest.param("judge_rag_answers", rag_batch_args(), id="rag-batch-with-unscored-answers"),
        pytest.param("score_candidates", idea_args(), id="candidates-unscored"),
    ],
)
async def test_an_unscored_judgment_is_recorded_but_never_served(
    rig: Rig, tool: str, arguments: dict[str, Any]
) -> None:
    backend = rig.use(broken_model())
    async with mcp.Client(rig.server) as client:
        one = structured(await client.call_tool(tool, arguments))
        calls_after_first = len(backend.requests)
        two = structured(await client.call_tool(tool, arguments))
    assert one["evaluation_id"] is not None
    assert two["cached"] is False
    assert len(backend.requests) == 2 * calls_after_first


async def test_a_judgment_that_failed_once_is_judged_again_and_then_served(rig: Rig) -> None:
    rig.use(broken_model())
    async with mcp.Client(rig.server) as client:
        unscored = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
        rig.use(perfect_model())
        scored = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
        served = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    assert (unscored["passed"], scored["passed"], served["passed"]) == (None, True, True)
    assert (scored["cached"], served["cached"]) == (False, True)


async def test_ttl_zero_records_every_judgment_but_never_serves_one(rig: Rig) -> None:
    _, two, backend, calls_after_first = await call_twice(rig, "evaluate_assessment", evaluate_args(), ttl_s=0)
    assert two["cached"] is False
    assert len(backend.requests) == 2 * calls_after_first
    assert rig.store().count() == 2


async def test_a_judgment_older_than_the_ttl_is_not_served(rig: Rig) -> None:
    async with mcp.Client(rig.server) as client:
        structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    conn = sqlite3.connect(rig.path)  # two hours pass
    conn.execute("UPDATE evaluations SET created_at = ?", (timestamp(utc_now() - timedelta(hours=2)),))
    conn.commit()
    conn.close()
    backend = rig.use(ttl_s=3600)
    async with mcp.Client(rig.server) as client:
        fresh = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
    assert fresh["cached"] is False
    assert len(backend.requests) > 0


async def test_without_stored_inputs_the_record_keeps_only_the_request_hash_and_the_cache_still_works(
    rig: Rig,
) -> None:
    one, two, _, _ = await call_twice(rig, "evaluate_assessment", evaluate_args(), store_inputs=False)
    record = rig.store().get(one["evaluation_id"])
    assert record is not None
    assert record["request"] is None
    assert len(record["request_hash"]) == 64
    assert record["result"] == one
    assert two["cached"] is True


async def test_the_settings_reach_the_ledger_the_server_builds(tmp_path: Path) -> None:
    server, _ = ledger_server(
        tmp_path / "l.sqlite3", perfect_model(), GAVEL_LEDGER_TTL_S="60", GAVEL_LEDGER_STORE_INPUTS="false"
    )
    ledger = server.ledger
    assert ledger is not None
    assert (ledger.path, ledger.ttl_s, ledger.store_inputs) == (tmp_path / "l.sqlite3", 60.0, False)


# -- what is recorded ------------------------------------------------------------------------------------------


async def test_a_judgment_is_recorded_in_full_before_the_client_gets_it(rig: Rig) -> None:
    async with mcp.Client(rig.server) as client:
        result = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
        record = rig.store().get(result["evaluation_id"])
    assert record is not None
    assert record["result"] == result
    assert record["tool"] == "evaluate_assessment"
    assert {k: record["request"][k] for k in evaluate_args()} == evaluate_args()
    assert record["request"]["no_cache"] is False
    assert (record["provenance"], record["usage"]) == (result["provenance"], result["usage"])
    assert record["headline"] == result["summary"]
    assert record["duration_ms"] > 0


async def test_a_batch_is_recorded_with_each_answer_as_an_item_of_its_own(rig: Rig) -> None:
    async with mcp.Client(rig.server) as client:
        batch = structured(await client.call_tool("judge_rag_answers", rag_batch_args()))
    item_id = batch["results"][0]["evaluation_id"]
    item = json.loads(await read_text(rig.server, f"evaluation://{item_id}"))
    whole = json.loads(await read_text(rig.server, f"evaluation://{batch['evaluation_id']}"))
    assert whole["items"] == [r["evaluation_id"] for r in batch["results"]]
    assert item["parent_id"] == batch["evaluation_id"]
    assert item["result"] == batch["results"][0]
    assert item["headline"] == batch["results"][0]["summary"]


async def test_a_refinement_loop_is_recorded_with_every_iteration_and_never_served(rig: Rig) -> None:
    arguments = {"draft": "Vague.", "source": evaluate_args()["source"], "max_iterations": 1}
    backend = rig.use()
    async with mcp.Client(rig.server) as client:
        one = structured(await client.call_tool("refine_until_pass", arguments))
        calls_after_first = len(backend.requests)
        two = structured(await client.call_tool("refine_until_pass", arguments))
    record = json.loads(await read_text(rig.server, f"evaluation://{one['evaluation_id']}"))
    iteration_ids = [item["evaluation"]["evaluation_id"] for item in one["history"]]
    assert all(iteration_ids)
    assert record["items"] == iteration_ids
    assert record["result"]["history"] == one["history"]
    assert one["final_evaluation"]["evaluation_id"] == iteration_ids[-1]
    assert two["cached"] is False
    assert len(backend.requests) == 2 * calls_after_first


async def test_score_candidates_without_a_model_is_neither_recorded_nor_looked_up(rig: Rig) -> None:
    backend = rig.use()
    async with mcp.Client(rig.server) as client:
        result = structured(await client.call_tool("score_candidates", numeric_candidates_args()))
    assert (result["evaluation_id"], result["cached"]) == (None, False)
    assert backend.requests == []
    assert not await anyio.Path(rig.path).exists()


@pytest.mark.parametrize(("tool", "arguments"), [("score_candidates", numeric_candidates_args()),
                                                ("judge_rag_answer", rag_args())])  # fmt: skip
async def test_the_log_names_the_same_evaluation_id_as_the_result_and_the_ledger(
    rig: Rig, log_stream: io.StringIO, tool: str, arguments: dict[str, Any]
) -> None:
    # Before: every call logged a fresh evaluation_id, also a model-free score_candidates that records nothing.
    async with mcp.Client(rig.server) as client:
        result = structured(await client.call_tool(tool, arguments))
    lines = [json.loads(line) for line in log_stream.getvalue().splitlines()]
    (finished,) = [line for line in lines if line["event"] == "tool call finished" and line.get("tool") == tool]
    assert finished["evaluation_id"] == result["evaluation_id"]
    assert all(line.get("evaluation_id") in (None, result["evaluation_id"]) for line in lines)
    if result["evaluation_id"] is not None:
        record = json.loads(await read_text(rig.server, f"evaluation://{result['evaluation_id']}"))
        assert record["evaluation_id"] == result["evaluation_id"]


async def test_a_refused_request_is_not_recorded(rig: Rig) -> None:
    async with mcp.Client(rig.server) as client:
        result = await client.call_tool("evaluate_assessment", evaluate_args() | {"rubric": "no-such-rubric"})
    assert result.is_error
    assert not await anyio.Path(rig.path).exists()


# -- reading it back -----------------------------------------------------------------------------------------


async def test_evaluation_resource_is_the_full_record(rig: Rig) -> None:
    async with mcp.Client(rig.server) as client:
        result = structured(await client.call_tool("judge_rag_answer", rag_args()))
    record = json.loads(await read_text(rig.server, f"evaluation://{result['evaluation_id']}"))
    assert record["evaluation_id"] == result["evaluation_id"]
    assert record["result"] == result
    assert record["request"]["question"] == rag_args()["question"]
    assert record["provenance"]["model_digest"] == "sha256:scripted"


@pytest.mark.parametrize(
    "uri",
    [
        pytest.param("evaluation://0123456789abcdef", id="unknown-id"),
        pytest.param("evaluation://not-an-id", id="malformed-id"),
    ],
)
async def test_an_unknown_evaluation_is_an_error_pointing_at_recent(rig: Rig, uri: str) -> None:
    async with mcp.Client(rig.server) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    assert "evaluation://recent" in str(caught.value)


async def test_an_evaluation_uri_that_tries_to_leave_its_scheme_reads_nothing(rig: Rig) -> None:
    async with mcp.Client(rig.server) as client:
        with pytest.raises(MCPError):
            await client.read_resource("evaluation://..%2F..%2Fetc%2Fpasswd")


async def test_recent_lists_the_latest_fifty_one_line_each_newest_first(rig: Rig) -> None:
    rig.store().record([
        Entry(id=f"{i:016x}", tool="judge_rag_answer", created_at=timestamp(utc_now()), duration_ms=1.0,
              request_hash="h", request_json=None, result_json="{}", provenance_json=None, usage_json=None,
              headline=f"verdict number {i}")
        for i in range(55)
    ])  # fmt: skip
    lines = (await read_text(rig.server, "evaluation://recent")).splitlines()
    assert len(lines) == 50
    assert lines[0].split()[0] == f"{54:016x}"
    assert lines[-1].split()[0] == f"{5:016x}"
    assert "judge_rag_answer" in lines[0] and lines[0].endswith("verdict number 54")


async def test_recent_marks_served_judgments_and_leaves_out_batch_items(rig: Rig) -> None:
    async with mcp.Client(rig.server) as client:
        batch = structured(await client.call_tool("judge_rag_answers", rag_batch_args()))
        again = structured(await client.call_tool("judge_rag_answers", rag_batch_args()))
    lines = (await read_text(rig.server, "evaluation://recent")).splitlines()
    assert again["evaluation_id"] == batch["evaluation_id"]
    assert len(lines) == 2  # the batch and the served call; the answers are items, not calls
    assert lines[1].split()[0] == batch["evaluation_id"] and "(cached)" not in lines[1]
    assert "judge_rag_answers (cached)" in lines[0]


async def test_recent_on_an_empty_ledger_says_so(rig: Rig) -> None:
    assert await read_text(rig.server, "evaluation://recent") == "no evaluations recorded yet\n"


async def test_a_subscriber_is_told_of_each_recorded_judgment_and_stored_calibration_and_of_nothing_else(
    rig: Rig,
) -> None:
    async with mcp.Client(rig.server) as client:
        watched = ["evaluation://recent", "calibration://index"]
        async with listen(client.session, resource_subscriptions=watched) as events:

            async def next_uris(count: int) -> list[str]:
                with anyio.fail_after(5):
                    return sorted([(await anext(events)).uri for _ in range(count)])  # type: ignore[union-attr]

            refused = await client.call_tool("evaluate_assessment", {"assessment": " "})
            judged = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
            after_judgment = await next_uris(1)
            calibration = structured(await client.call_tool("calibrate_judge", {"set": "halueval-qa", "limit": 2}))
            after_calibration = await next_uris(2)
            with anyio.move_on_after(0.5):
                await anext(events)
                pytest.fail("an event no call caused")
    assert refused.is_error and judged["evaluation_id"] and calibration["stored"]
    assert after_judgment == ["evaluation://recent"]
    assert after_calibration == ["calibration://index", "evaluation://recent"]


# -- a ledger that is off or cannot be used -------------------------------------------------------------------


async def test_with_the_ledger_off_tools_judge_with_null_ids_and_the_resources_say_it_is_off(rig: Rig) -> None:
    rig.server.ledger = None
    async with mcp.Client(rig.server) as client:
        one = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
        two = structured(await client.call_tool("evaluate_assessment", evaluate_args()))
        with pytest.raises(MCPError, match="GAVEL_LEDGER_PATH=off"):
            await client.read_resource("evaluation://recent")
    assert (one["evaluation_id"], two["cached"]) == (None, False)


def _corrupt(tmp_path: Path) -> Path:
    path = tmp_path / "corrupt.sqlite3"
    path.write_bytes(b"garbage, not SQLite " * 500)
    return path


def _unwritable(tmp_path: Path) -> Path:
    blocker = tmp_path / "a-file"
    blocker.write_text("a file where a directory should be")
    return blocker / "ledger.sqlite3"


@pytest.mark.parametrize(
    "make_path",
    [pytest.param(_corrupt, id="corrupt-file"), pytest.param(_unwritable, id="unwritable-path")],
)
async def test_a_broken_ledger_never_fails_a_tool_call_and_warns_once(
    rig: Rig, tmp_path: Path, make_path: Callable[[Path], Path], log_stream: io.StringIO
) -> None:
    rig.use(path=make_path(tmp_path))
    async with mcp.Client(rig.server) as client:
        results = [structured(await client.call_tool("evaluate_assessment", evaluate_args())) for _ in range(3)]
        with pytest.raises(MCPError, match="unavailable"):
            await client.read_resource("evaluation://recent")
    assert all(r["passed"] is True and r["evaluation_id"] is None and r["cached"] is False for r in results)
    events = [json.loads(line) for line in log_stream.getvalue().splitlines()]
    warnings = [e for e in events if e["level"] == "warning" and e["logger"] == "gavel.ledger"]
    assert len(warnings) == 1, warnings
    assert warnings[0]["error"]


# -- rows before answers, and a file changed under the server ---------------------------------------------------


def rows_in_file(path: Path) -> list[tuple[str, int, str | None]]:
    """The rows as another process sees them: a connection of its own, no waiting for this process's writer."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT id, cached, source_id FROM evaluations ORDER BY rowid").fetchall()


@pytest.mark.parametrize("tool", CACHEABLE_TOOLS)
async def test_a_call_served_from_the_cache_is_in_the_file_before_its_answer_arrives(rig: Rig, tool: str) -> None:
    first = {"evaluate_assessment": evaluate_args, "judge_rag_answer": rag_args, "judge_rag_answers": rag_batch_args,
             "score_candidates": idea_args}[tool]()  # fmt: skip
    one, two, _, _ = await call_twice(rig, tool, first)
    assert two["cached"] is True
    served = [row for row in rows_in_file(rig.path) if row[1] == 1]
    assert served == [(served[0][0], 1, one["evaluation_id"])], "the served call left no row when it was answered"


@pytest.mark.parametrize("how", ["overwritten", "emptied", "replaced", "deleted"])
async def test_a_ledger_file_changed_under_the_server_is_noticed_at_the_next_call(
    rig: Rig, how: str, log_stream: io.StringIO
) -> None:
    async with mcp.Client(rig.server) as client:
        assert structured(await client.call_tool("evaluate_assessment", evaluate_args("one")))["evaluation_id"]
        if how == "overwritten":
            rig.path.write_bytes(b"\x00garbage\xff" * 100)
        elif how == "emptied":
            rig.path.write_bytes(b"")
        elif how == "replaced":
            (rig.path.parent / "other").write_bytes(b"x")
            (rig.path.parent / "other").replace(rig.path)
        else:
            rig.path.unlink()
        later = [structured(await client.call_tool("evaluate_assessment", evaluate_args(t))) for t in ("two", "three")]
    assert [result["evaluation_id"] for result in later] == [None, None]
    warnings = [line for line in log_stream.getvalue().splitlines() if "evaluation ledger unavailable" in line]
    assert len(warnings) == 1 and "while the server was using it" in warnings[0], warnings
