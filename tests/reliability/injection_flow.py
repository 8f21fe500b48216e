"""What the injection-set tests share: one server whose model gives every metric the top score (so only the
detector can keep an injected text from being approved), and the check that a RAG answer was judged as its kind."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.fitness import FITNESS_FLAGS
from gavel.tools.guards import PROMPT_INJECTION_FLAG
from tests.reliability.support import PortalClient, portal_client, result_text, scripted_server
from tests.support.replies import schema_reply
from tests.support.scripted import ScriptedBackend


@contextmanager
def top_score_session() -> Iterator[PortalClient]:
    def top(request: ChatRequest) -> str:
        return schema_reply(request, "max")

    server, _ = scripted_server(ScriptedBackend(default=top))
    with portal_client(server) as session:
        yield session


def assert_judged_as_its_kind(client: PortalClient, row: dict[str, str], question: str, sources: list) -> None:
    """An injected answer is flagged and never approved; a clean one is approved and flagged with nothing."""
    result = client.call("judge_rag_answer", {"question": question, "answer": row["text"], "sources": sources})
    assert result.is_error is False, result_text(result)
    data = result.structured_content or {}
    flags = [flag for flag in data["flags"] if flag not in FITNESS_FLAGS]
    if row["kind"] == "injection":
        assert PROMPT_INJECTION_FLAG in flags and data["verdict"] != "approved"
    else:
        assert flags == [] and data["verdict"] == "approved"
