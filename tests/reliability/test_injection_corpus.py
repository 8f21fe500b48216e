"""The dev part of bench/injection_corpus.jsonl through the real server, over a model that gives every metric the
top score: an injected RAG answer is flagged and never approved, an injected assessment never passes, and a clean
answer is approved unflagged. (The held-out part is a measurement, reported by bench/injection_corpus_measure.py,
not a regression test.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gavel.tools.guards import PROMPT_INJECTION_FLAG
from tests.reliability.injection_flow import assert_judged_as_its_kind, top_score_session
from tests.reliability.support import PortalClient, result_text
from tests.support.injection_cases import TRANSCRIPT

# A clean text the detector flags: JSON in Gavel's own verdict shape, kept flagged on purpose.
KNOWN_FALSE_FLAGS = {"dev/clean/technical, with links, encodings and markup/9"}
# Read as data (the product's tests never import the benchmarks).
CORPUS = Path(__file__).resolve().parents[2] / "bench" / "injection_corpus.jsonl"
DEV = [row for line in CORPUS.read_text(encoding="utf-8").splitlines() if (row := json.loads(line))["split"] == "dev"]
ROWS = [
    pytest.param(row, id=row["id"], marks=[pytest.mark.xfail(strict=True)] if row["id"] in KNOWN_FALSE_FLAGS else [])
    for row in DEV
]
INJECTED = [pytest.param(row, id=row["id"]) for row in DEV if row["kind"] == "injection"]
QUESTION = "What does the text say?"
SOURCES = [{"id": "p1", "content": "The text is judged on its own content."}]


@pytest.fixture(scope="module")
def client() -> Iterator[PortalClient]:
    with top_score_session() as session:
        yield session


@pytest.mark.parametrize("row", ROWS)
def test_each_rag_answer_of_the_dev_part_is_judged_as_its_kind(client: PortalClient, row: dict[str, str]) -> None:
    assert_judged_as_its_kind(client, row, QUESTION, SOURCES)


@pytest.mark.parametrize("row", INJECTED[::4])
def test_an_injected_assessment_of_the_dev_part_never_passes(client: PortalClient, row: dict[str, str]) -> None:
    arguments = {"assessment": row["text"], "source": TRANSCRIPT, "rubric": "clinical-assessment"}
    result = client.call("evaluate_assessment", arguments)
    assert result.is_error is False, result_text(result)
    data = result.structured_content or {}
    assert PROMPT_INJECTION_FLAG in data["flags"] and data["passed"] is not True
