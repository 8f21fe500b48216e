"""Every tool `gavel eval` runs gets its cards in the report: one item judged in process (the scripted model,
answering any schema) and one invalid item per tool, the page opened in headless chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from gavel.server.cli.eval_run import EVAL_TOOLS, judge_item
from gavel.tools.evaluation.dataset import DataItem
from gavel.tools.evaluation.figures import figures
from gavel.tools.report.eval_report import eval_report
from tests.server.ledger_helpers import SOURCES, TRANSCRIPT, perfect_model
from tests.support.chromium import load_page
from tests.support.deps import make_deps

ARGUMENTS: dict[str, dict[str, Any]] = {
    "evaluate_assessment": {"assessment": TRANSCRIPT},
    "refine_until_pass": {"task": "Summarise the interview.", "draft": TRANSCRIPT, "max_iterations": 1},
    "judge_rag_answer": {"question": "How tall is it?", "answer": "It is 330 metres tall.", "sources": SOURCES},
    "judge_rag_answers": {
        "question": "How tall is it?",
        "answers": [{"agent_name": "a", "answer": "It is 330 metres tall."},
                    {"agent_name": "b", "answer": "It was built in 1889."}],
        "sources": SOURCES,
    },
    "score_candidates": {
        "candidates": [{"id": "x", "rating": 4, "genre": "jazz"}, {"id": "y", "rating": 5, "genre": "jazz"},
                       {"id": "z", "rating": 3, "genre": "rock"}],
        "weights": {"rating": 1.0}, "diversity_targets": {"genre": 2}, "top_k": 2,
    },
}  # fmt: skip


async def judge_all(tool: str, items: list[DataItem]) -> list[dict[str, Any]]:
    return [await judge_item(EVAL_TOOLS[tool], item, make_deps(perfect_model()), None) for item in items]


# Not async: Playwright's sync API refuses to run inside an event loop.
@pytest.mark.parametrize("tool", sorted(EVAL_TOOLS))
def test_each_tools_report_shows_its_items_with_no_console_error(tool: str, tmp_path: Path, chromium: Path) -> None:
    judged = DataItem(id="judged", line=1, arguments=ARGUMENTS[tool])
    invalid = DataItem(id="invalid", line=2, arguments={})
    rows = anyio.run(judge_all, tool, [judged, invalid])
    assert rows[0].get("result") is not None, rows[0].get("error")
    page_path = tmp_path / "report.html"
    arguments = {"judged": judged.arguments, "invalid": invalid.arguments}
    page_path.write_text(eval_report(tool, rows, arguments, figures(tool, rows), {"data": "in-process"}))
    page = load_page(page_path, chromium)
    assert page.errors == []
    assert page.cards == 2 and page.charts_drawn == page.chart_slots
    assert ": is required" in page.text  # the invalid item's card says what is missing
