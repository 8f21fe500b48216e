"""One dataset item through `gavel.server.cli.eval_run`: validated as the boundary validates, judged through a real
SQLite ledger (served from it the second time), and any failure kept as the item's row. The model is the
scripted backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from gavel.server.cli.eval_run import EVAL_TOOLS, judge_item
from gavel.server.tool_registry import TOOLS
from gavel.tools.evaluation.dataset import DataItem
from gavel.tools.ledger import Ledger
from tests.support.deps import make_deps
from tests.support.scripted import ScriptedBackend, yes_no

RAG = EVAL_TOOLS["judge_rag_answer"]
ARGUMENTS = {
    "question": "How tall is the Eiffel Tower?",
    "answer": "The Eiffel Tower is 330 metres tall.",
    "sources": [{"content": "The Eiffel Tower is 330 metres tall and stands in Paris."}],
}


def model() -> ScriptedBackend:
    return ScriptedBackend(default=yes_no(0.9), probabilities=True)


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    found = Ledger(tmp_path / "ledger.sqlite3")
    yield found
    found.close()


def test_each_tool_is_run_as_the_server_publishes_it() -> None:
    published = {spec.name: spec for spec in TOOLS}
    for name, tool in EVAL_TOOLS.items():
        spec = published[name]
        assert (tool.request_model, tool.result_model, tool.impl) == (
            spec.request_model, spec.result_model, spec.impl,
        )  # fmt: skip


async def test_an_item_is_recorded_then_served_from_the_ledger(ledger: Ledger) -> None:
    backend = model()
    item = DataItem(id="a", line=1, arguments=ARGUMENTS)
    first = await judge_item(RAG, item, make_deps(backend), ledger)
    asked = len(backend.requests)
    second = await judge_item(RAG, item, make_deps(backend), ledger)
    assert first["verdict"] == "approved" and first["evaluation_id"] and not first["cached"]
    assert second["cached"] and second["evaluation_id"] == first["evaluation_id"]
    assert len(backend.requests) == asked


async def test_invalid_arguments_are_the_items_error_in_the_boundarys_words(ledger: Ledger) -> None:
    item = DataItem(id="b", line=2, arguments={**ARGUMENTS, "samples": 0})
    row = await judge_item(RAG, item, make_deps(model()), ledger)
    assert row["verdict"] == "error" and row["error_kind"] == "invalid" and row["evaluation_id"] is None
    assert row["error"].startswith("invalid arguments: samples:")


async def test_a_refusal_by_the_tools_check_is_the_items_error(ledger: Ledger) -> None:
    item = DataItem(id="c", line=3, arguments={**ARGUMENTS, "rubric": "no-such-rubric"})
    row = await judge_item(RAG, item, make_deps(model()), ledger)
    assert row["error_kind"] == "refused" and "no-such-rubric" in row["error"]


async def test_a_model_failure_is_the_items_error_not_the_runs(ledger: Ledger) -> None:
    backend = ScriptedBackend(default=RuntimeError("the model fell over"), probabilities=True)
    row = await judge_item(RAG, DataItem(id="d", line=4, arguments=ARGUMENTS), make_deps(backend), ledger)
    assert row["verdict"] == "error" and row["error_kind"] == "failed"
    assert row["error"] == "RuntimeError: the model fell over" and row.get("result") is None
