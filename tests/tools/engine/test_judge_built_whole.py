"""A Judge is built whole (backend, progress, fitness) by one factory, and nothing assigns to it afterwards."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gavel.tools.engine.fitness import JudgeFitness
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.progress import Progress
from gavel.tools.engine.provider import BackendProvider
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config
from tests.support.deps import ProgressLog, make_deps
from tests.support.scripted import ScriptedBackend

RUBRIC = RubricRegistry.load().get("rag-answer")


class NoCalibration:
    def __init__(self) -> None:
        self.keys: list[str] = []

    async def fitness_for(self, key: str) -> JudgeFitness | None:
        self.keys.append(key)
        return None


@pytest.mark.parametrize("name", ["backend", "generator", "progress", "fitness", "config", "limiter", "calls"])
def test_a_built_judge_refuses_every_assignment(name: str) -> None:
    judge = Judge(ScriptedBackend(), engine_config())
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(judge, name, getattr(judge, name))


async def test_the_tool_deps_build_the_judge_with_the_calls_progress_and_fitness() -> None:
    log = ProgressLog()
    deps = dataclasses.replace(make_deps(ScriptedBackend()), fitness=NoCalibration())
    deps.progress = log
    judge = await deps.judge()
    assert judge.progress is deps.progress and judge.calls.progress is deps.progress
    assert judge.fitness is deps.fitness


async def test_the_providers_judge_is_built_with_its_progress_fitness_and_wrapped_backend() -> None:
    provider = BackendProvider(engine_config(backend="ollama", ollama_host="http://127.0.0.1:9"))
    progress, fitness = Progress(), NoCalibration()
    wrapped: list[Any] = []

    def wrap(backend: Any) -> Any:
        wrapped.append(backend)
        return ScriptedBackend()

    judge = await provider.judge(progress=progress, fitness=fitness, wrap=wrap)
    await provider.aclose()
    assert judge.progress is progress and judge.fitness is fitness
    assert judge.backend is not wrapped[0] and judge.generator is wrapped[0]


async def test_the_judges_fitness_is_asked_for_its_calibration() -> None:
    fitness = NoCalibration()
    judge = Judge(ScriptedBackend(), engine_config(), fitness=fitness)
    assert await judge.calibration(RUBRIC) is None
    assert len(fitness.keys) == 1
