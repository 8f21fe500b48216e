"""Judging one item, metered, with Gavel or with a peer, all against the same endpoint (`bench.meter`).

Gavel runs in this process through its production Ollama backend, with the default settings (per-metric
strategy, GAVEL_MAX_CONCURRENCY 2). The peers run in `.venv-bench` through `bench.peer_runner`, one command
at a time, so the meter's records between two marks are exactly that command's calls.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT
from bench.meter import Endpoint, usage_of
from gavel.server.settings import load_settings
from gavel.tools import assessment, rag
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.ollama import OllamaBackend
from gavel.tools.rubric_registry import RubricRegistry

PEER_PYTHON = REPO_ROOT / ".venv-bench" / "bin" / "python"
PEER_TIMEOUT_S = 1800.0
MODEL_TIMEOUT_S = 900.0


@dataclass
class Judged:
    """One judge's result on one item: its decision, its score, and what it cost."""

    judge: str
    item_id: str
    score: float | None  # the faithfulness-type score, 0-1 (Gavel: the accuracy dimension)
    decided: bool  # False: the judge produced no usable result (a parse failure or an error)
    predicted_hallucinated: bool | None
    wall_s: float
    usage: dict[str, Any]
    error: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


# -- Gavel -------------------------------------------------------------------------------------------------


class GavelJudge:
    def __init__(self, endpoint: Endpoint) -> None:
        settings = load_settings({"GAVEL_BACKEND": "ollama", "GAVEL_TIMEOUT_S": str(MODEL_TIMEOUT_S)})
        self.config = settings.engine_config()
        self.backend = OllamaBackend(
            endpoint.url, endpoint.model, timeout_s=MODEL_TIMEOUT_S, num_ctx=self.config.num_ctx
        )
        self.registry = RubricRegistry.load()
        self.limits = settings.limits()
        self.endpoint = endpoint
        import anyio

        self.limiter = anyio.CapacityLimiter(self.config.max_concurrency)

    def deps(self) -> ToolDeps:
        async def judge(**wiring: Any) -> Judge:
            return Judge(self.backend, self.config, self.limiter, strategy=self.config.strategy, **wiring)

        return ToolDeps(registry=self.registry, limits=self.limits, judge_factory=judge)

    async def rag(self, item: dict[str, Any]) -> Judged:
        request = rag.JudgeRagAnswerRequest(
            question=item["question"],
            answer=item["answer"],
            sources=[rag.Passage(content=item["context"])],
            evaluation_context="RAG",
        )
        mark = self.endpoint.meter.mark()
        started = time.perf_counter()
        result = await rag.judge_rag_answer(request, self.deps())
        wall = time.perf_counter() - started
        usage = usage_of(self.endpoint.meter.since(mark))
        accuracy = result.accuracy.score
        decided = result.verdict != "unscored"
        # The decision rule, fixed before any measurement (see bench/agreement.py).
        # The verdict alone: it follows the per-claim checks at the support cut (tools/rag/rules.decide_from_checks).
        predicted = (result.verdict != "approved") if decided else None
        unscored = [d.metric for d in result.dimensions() if d.status == "unscored"]
        repaired = sum(1 for d in result.dimensions() for s in d.samples if s.repaired)
        return Judged(
            judge="gavel",
            item_id=item["id"],
            score=accuracy,
            decided=decided,
            predicted_hallucinated=predicted,
            wall_s=round(wall, 3),
            usage=usage,
            error=None if decided else result.verdict_reason,
            detail={
                "verdict": result.verdict,
                "overall": result.overall_score,
                "is_grounded": result.is_grounded,
                "contradicts_passages": result.contradicts_passages,
                "unscored_dimensions": unscored,
                "grounding_error": result.grounding_error,
                "repaired_samples": repaired,
                "scores": {d.metric: d.score for d in result.dimensions()},
            },
        )

    async def assessment(self, text: str, source: str) -> Judged:
        request = assessment.EvaluateAssessmentRequest(assessment=text, source=source)
        mark = self.endpoint.meter.mark()
        started = time.perf_counter()
        result = await assessment.evaluate_assessment(request, self.deps())
        wall = time.perf_counter() - started
        return Judged(
            judge="gavel evaluate_assessment",
            item_id="clinical",
            score=result.average,
            decided=not result.unscored_metrics,
            predicted_hallucinated=None,
            wall_s=round(wall, 3),
            usage=usage_of(self.endpoint.meter.since(mark)),
            error=f"unscored: {result.unscored_metrics}" if result.unscored_metrics else None,
            detail={"scores": {s.metric: s.score for s in result.scores}, "passed": result.passed},
        )

    async def aclose(self) -> None:
        await self.backend.aclose()


# -- peers -------------------------------------------------------------------------------------------------


class PeerUnavailable(RuntimeError):
    """The peers' venv is missing or its runner would not start."""


def peers_installed() -> bool:
    return PEER_PYTHON.is_file()


def peer_log_path(benchmark: str) -> Path:
    """Where the peer runner's stderr goes: the libraries' warnings and tracebacks, kept out of the repository."""
    return Path(tempfile.gettempdir()) / f"gavel-bench-{benchmark}-peers.stderr.log"


class PeerClient:
    """The runner subprocess in `.venv-bench`, one JSON line per command, every read bounded."""

    def __init__(self, endpoint: Endpoint, stderr_path: Path) -> None:
        if not peers_installed():
            raise PeerUnavailable(
                f"{PEER_PYTHON} does not exist; create it with: python3.11 -m venv .venv-bench && "
                ".venv-bench/bin/pip install -e '.[bench]'"
            )
        self.endpoint = endpoint
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC", "GAVEL_"))}
        # No proxy may route 127.0.0.1 elsewhere, and nothing may reach beyond it.
        env.update({"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", "PYTHONUNBUFFERED": "1"})
        self._stderr = stderr_path.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [str(PEER_PYTHON), "-m", "bench.peer_runner"],
            cwd=str(REPO_ROOT),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            bufsize=1,
        )
        reply = self._send(
            {"op": "init", "base_url": endpoint.url, "model": endpoint.model, "embed_model": endpoint.embed_model},
            timeout_s=120,
        )
        self.versions: dict[str, str] = reply.get("versions", {})

    def _send(self, command: dict[str, Any], timeout_s: float = PEER_TIMEOUT_S) -> dict[str, Any]:
        if self.process.stdin is None or self.process.stdout is None:
            raise PeerUnavailable("the peer runner has no pipes")
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(self.process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(timeout_s)
        if reader.is_alive() or not line or not line[0]:
            self.close()
            raise PeerUnavailable(
                f"the peer runner gave no answer to {command.get('op')} within {timeout_s:g}s "
                f"(exit code {self.process.poll()}); see {self._stderr.name}"
            )
        return json.loads(line[0])

    def run(self, judge: str, command: dict[str, Any], item_id: str) -> tuple[dict[str, Any], dict[str, Any], float]:
        mark = self.endpoint.meter.mark()
        started = time.perf_counter()
        reply = self._send(command)
        wall = time.perf_counter() - started
        return reply, usage_of(self.endpoint.meter.since(mark)), wall

    def rag(self, metric: str, item: dict[str, Any]) -> Judged:
        command = {
            "op": "judge",
            "metric": metric,
            "question": item["question"],
            "context": item["context"],
            "answer": item["answer"],
        }
        reply, usage, wall = self.run(metric, command, item["id"])
        score = reply.get("score") if reply.get("ok") else None
        return Judged(
            judge=metric,
            item_id=item["id"],
            score=score,
            decided=score is not None,
            predicted_hallucinated=(score < 0.5) if score is not None else None,
            wall_s=round(wall, 3),
            usage=usage,
            error=reply.get("error"),
            detail={"error_type": reply.get("error_type"), "reason": reply.get("reason")},
        )

    def geval(self, name: str, criteria: str, input_text: str, output: str) -> Judged:
        command = {"op": "geval", "name": name, "criteria": criteria, "input": input_text, "output": output}
        reply, usage, wall = self.run("deepeval_geval", command, name)
        score = reply.get("score") if reply.get("ok") else None
        return Judged(
            judge=f"deepeval_geval:{name}",
            item_id="clinical",
            score=score,
            decided=score is not None,
            predicted_hallucinated=None,
            wall_s=round(wall, 3),
            usage=usage,
            error=reply.get("error"),
            detail={"reason": reply.get("reason")},
        )

    def close(self) -> None:
        if self.process.poll() is None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._stderr.close()
