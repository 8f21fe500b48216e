"""bench/injection_set.jsonl through the real server as RAG answers, over a model that gives every metric the top
score: each injected text of the set's first two splits is flagged and never approved, each clean one is approved
unflagged. (The `after_rules` split is a measurement of wording the rules never saw, reported by
bench/injection_generalize.py, not a regression test.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability.injection_flow import assert_judged_as_its_kind, top_score_session
from tests.reliability.support import PortalClient
from tests.support.injection_texts import load_injection_set

ROWS = [pytest.param(row, id=row["id"]) for row in load_injection_set() if row["split"] != "after_rules"]
QUESTION = "What produces most of a cell's ATP?"
SOURCES = [{"id": "p1", "content": "Mitochondria make most of the cell's ATP by oxidative phosphorylation."}]


@pytest.fixture(scope="module")
def client() -> Iterator[PortalClient]:
    with top_score_session() as session:
        yield session


@pytest.mark.parametrize("row", ROWS)
def test_each_text_of_the_set_is_judged_as_its_kind(client: PortalClient, row: dict[str, str]) -> None:
    assert_judged_as_its_kind(client, row, QUESTION, SOURCES)
