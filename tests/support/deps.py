"""Build `ToolDeps` for direct tool tests: a real Judge over a scripted backend."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import anyio

from gavel.tools.common import Limits
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.backend import Backend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.probes import Probes
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config, input_limits
from tests.support.scripted import ScriptedBackend

REGISTRY = RubricRegistry.load()


ProgressEvent = tuple[float, float | None, str | None]


@dataclass
class ProgressLog:
    events: list[ProgressEvent] = field(default_factory=list)

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.events.append((progress, total, message))

    def steps(self, starting: str) -> list[ProgressEvent]:
        """The tool's own steps, told from the engine's ticks by how their message starts."""
        return [e for e in self.events if (e[2] or "").startswith(starting)]


def strictly_increasing(events: list[ProgressEvent]) -> bool:
    """What MCP requires of one request's progress values."""
    return all(a[0] < b[0] for a, b in pairwise(events))


def make_deps(
    backend: Backend,
    *,
    generator: ScriptedBackend | None = None,
    limits: Limits | None = None,
    progress: ProgressLog | None = None,
    concurrency: int = 4,
    readout: str = "probability",
    timeout_s: float = 5,
    **engine: Any,
) -> ToolDeps:
    """`timeout_s`: per model call; a real model (a benchmark's) needs more than the scripted one's 5 s. `engine`:
    any other EngineConfig field (e.g. injection_screen="model")."""
    config = engine_config(max_concurrency=concurrency, timeout_s=timeout_s, readout=readout, **engine)
    limiter = anyio.CapacityLimiter(concurrency)
    probes = Probes()  # one per process, as the server's backend provider keeps it

    async def judge(**wiring: Any) -> Judge:
        return Judge(backend, config, limiter, probes=probes, **wiring)

    async def sampling_judge(**wiring: Any) -> Judge:
        assert generator is not None
        return Judge(generator, config, limiter, **wiring)

    return ToolDeps(
        registry=REGISTRY,
        limits=limits or input_limits(),
        judge_factory=judge,
        progress=progress or ProgressLog(),
        sampling_judge_factory=sampling_judge if generator is not None else None,
    )
