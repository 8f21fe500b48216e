"""bench/injection_set.jsonl through the real server as RAG answers, over a model that gives every metric the top
score: each injected text of the set's first two splits is flagged and never approved, each clean one is approved
unflagged. (The `after_rules` split is a measurement of wording the rules never saw, reported by
bench/injection_generalize.py, not a regression test.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.fitness import FITNESS_FLAGS
from gavel.tools.guards import PROMPT_INJECTION_FLAG
from tests.reliability.support import PortalClient, portal_client, result_text, scripted_server
from tests.support.injection_texts import load_injection_set
from tests.support.replies import schema_reply
from tests.support.scripted import ScriptedBackend

ROWS = [pytest.param(row, id=row["id"]) for row in load_injection_set() if row["split"] != "after_rules"]
QUESTION = "What produces most of a cell's ATP?"
SOURCES = [{"id": "p1", "content": "Mitochondria make most of the cell's ATP by oxidative phosphorylation."}]


@pytest.fixture(scope="module")
def client() -> Iterator[PortalClient]:
    def top(request: ChatRequest) -> str:
        return schema_reply(request, "max")

    server, _ = scripted_server(ScriptedBackend(default=top))
    with portal_client(server) as session:
        yield session


@pytest.mark.parametrize("row", ROWS)
def test_each_text_of_the_set_is_judged_as_its_kind(client: PortalClient, row: dict[str, str]) -> None:
    result = client.call("judge_rag_answer", {"question": QUESTION, "answer": row["text"], "sources": SOURCES})
    assert result.is_error is False, result_text(result)
    data = result.structured_content or {}
    flags = [flag for flag in data["flags"] if flag not in FITNESS_FLAGS]
    if row["kind"] == "injection":
        assert PROMPT_INJECTION_FLAG in flags and data["verdict"] != "approved"
    else:
        assert flags == [] and data["verdict"] == "approved"
