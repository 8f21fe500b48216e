"""score_candidates' shared test case: the music recommender's five focus tracks and its weights, and deps that
fail the test if the deterministic path asks for a judge."""

from __future__ import annotations

from typing import Any

from gavel.tools.candidates import (
    ScoreCandidatesRequest,
    ScoreCandidatesResult,
    score_candidates,
)
from gavel.tools.common import Limits
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import input_limits

REGISTRY = RubricRegistry.load()
IDEA = REGISTRY.get("idea-quality")

# The music recommender's evaluation framework, and five focus tracks to apply it to.
FOCUS_WEIGHTS = {"concentration_friendliness": 0.4, "novelty": 0.3, "quality": 0.3}
FOCUS_TARGETS = {"genre": 2, "era": 2, "energy": 1}
TRACKS: list[dict[str, Any]] = [
    {"id": "t1", "title": "Weightless", "artist": "Marconi Union", "genre": "ambient", "era": "2010s",
     "energy": "low", "concentration_friendliness_score": 0.95, "novelty_score": 0.3, "quality_score": 0.8},
    {"id": "t2", "title": "An Ending (Ascent)", "artist": "Brian Eno", "genre": "ambient", "era": "1980s",
     "energy": "low", "concentration_friendliness_score": 0.9, "novelty_score": 0.5, "quality_score": 0.9},
    {"id": "t3", "title": "Clair de Lune", "artist": "Debussy", "genre": "classical", "era": "1900s",
     "energy": "low", "concentration_friendliness_score": 0.85, "novelty_score": 0.2, "quality_score": 0.95},
    {"id": "t4", "title": "Windowlicker", "artist": "Aphex Twin", "genre": "electronic", "era": "1990s",
     "energy": "high", "concentration_friendliness_score": 0.2, "novelty_score": 0.8, "quality_score": 0.85},
    {"id": "t5", "title": "Gymnopedie No.1", "artist": "Satie", "genre": "classical", "era": "1880s",
     "energy": "low", "concentration_friendliness_score": 0.9, "novelty_score": 0.3, "quality_score": 0.9},
]  # fmt: skip


class JudgeForbidden(AssertionError):
    pass


async def _no_judge(**wiring: Any) -> Judge:
    raise JudgeForbidden("the deterministic path must not ask for a judge")


def plain_deps(limits: Limits | None = None) -> ToolDeps:
    """Registry and limits only: any request for the judge fails the test."""
    return ToolDeps(registry=REGISTRY, limits=limits or input_limits(), judge_factory=_no_judge)


async def run(deps: ToolDeps | None = None, **fields: Any) -> ScoreCandidatesResult:
    return await score_candidates(ScoreCandidatesRequest(**fields), deps or plain_deps())


def ids(result: ScoreCandidatesResult) -> list[str]:
    return [s.id for s in result.selected]
