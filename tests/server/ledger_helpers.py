"""What the ledger's server tests share: a model that answers any schema, servers over a temp ledger, and
`gavel serve` over stdio against the Ollama-API test server.

The model is the one fake (`ScriptedBackend` in process, a scripted responder behind the real Ollama API
for subprocesses); everything from the MCP client to the SQLite file is real.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.mcpserver import Context

from gavel.server.app import build_server
from gavel.server.boundary import BoundaryServer
from gavel.server.settings import load_settings
from gavel.tools.common import Limits
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.config import EngineConfig
from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.replies import reply_for_schema
from tests.support.scripted import ScriptedBackend

if TYPE_CHECKING:
    from gavel.tools.engine.progress import ProgressFn

REGISTRY = RubricRegistry.load()
REVISED_TEXT = "A revised assessment: low mood for three weeks, early waking, lost interest in choir."

TRANSCRIPT = (
    "Interviewer: How have you been sleeping?\nPatient: Badly. For about three weeks I wake at 4 a.m. nearly "
    "every night.\nInterviewer: And your interest in things?\nPatient: I stopped going to choir, which I loved."
)
SOURCES = [
    {"id": "doc1", "content": "The Eiffel Tower is 330 metres tall and stands in Paris."},
    {"id": "doc2", "content": "It was completed in 1889 for the World's Fair."},
]


def valid_reply(request: ChatRequest) -> str:
    """A reply that validates against the request's schema; a generation gets a revised text."""
    return reply_for_schema(request.schema, text=REVISED_TEXT)


def ollama_valid_reply(body: dict[str, Any]) -> str:
    """The same, for the Ollama-API test server: the schema arrives as the chat request's `format`."""
    schema = body.get("format")
    return reply_for_schema(schema if isinstance(schema, dict) else None, text=REVISED_TEXT)


def perfect_model(*, model: str = "scripted-model", latency_s: float = 0.0) -> ScriptedBackend:
    return ScriptedBackend(default=valid_reply, model=model, latency_s=latency_s)


def broken_model() -> ScriptedBackend:
    """A model whose every reply is unusable: every metric ends unscored."""
    return ScriptedBackend(default="I would rather not say.")


class ScriptedDeps:
    """A deps factory as the server's: a real Judge with the settings' engine options, over one scripted
    backend the test can swap between calls."""

    def __init__(self, backend: ScriptedBackend, config: EngineConfig, limits: Limits) -> None:
        self.backend = backend
        self.config = config
        self.limits = limits
        self.limiter = anyio.CapacityLimiter(config.max_concurrency)

    def __call__(self, ctx: Context[Any, Any], progress: ProgressFn) -> ToolDeps:
        async def judge(**wiring: Any) -> Judge:
            return Judge(self.backend, self.config, self.limiter, strategy=self.config.strategy, **wiring)

        return ToolDeps(registry=REGISTRY, limits=self.limits, judge_factory=judge, progress=progress)


def ledger_server(ledger_path: Path | str, backend: ScriptedBackend, **env: str) -> tuple[BoundaryServer, ScriptedDeps]:
    """The real server (tools, boundary, resources) over a scripted model and the ledger at `ledger_path`.

    `env` are further GAVEL_* settings; the engine options among them reach the judge.
    """
    settings = load_settings({"GAVEL_LEDGER_PATH": str(ledger_path), "GAVEL_TIMEOUT_S": "5", **env})
    deps = ScriptedDeps(backend, settings.engine_config(), settings.limits())
    return build_server(settings, REGISTRY, deps), deps


def evaluate_args(text: str = "Low mood for three weeks; wakes at 4 a.m.; stopped choir.") -> dict[str, Any]:
    return {"assessment": text, "source": TRANSCRIPT}


def rag_args(answer: str = "The Eiffel Tower is 330 metres tall [1].") -> dict[str, Any]:
    return {"question": "How tall is the Eiffel Tower?", "answer": answer, "sources": SOURCES}


def rag_batch_args() -> dict[str, Any]:
    return {
        "question": "How tall is the Eiffel Tower?",
        "sources": SOURCES,
        "answers": [
            {"agent_name": "alpha", "answer": "It is 330 metres tall [1]."},
            {"agent_name": "beta", "answer": "330 m, finished in 1889 [1][2]."},
        ],
    }


def idea_args() -> dict[str, Any]:
    return {
        "rubric": "idea-quality",
        "top_k": 1,
        "candidates": [
            {"id": "i1", "text": "A shared tool library for the street, booked by text message."},
            {"id": "i2", "text": "Solar lamps lent to night-shift workers walking home."},
        ],
    }


def numeric_candidates_args() -> dict[str, Any]:
    return {
        "weights": {"focus": 0.7, "energy": 0.3},
        "top_k": 1,
        "candidates": [
            {"id": "t1", "focus_score": 0.9, "energy_score": 0.2},
            {"id": "t2", "focus_score": 0.4, "energy_score": 0.8},
        ],
    }
