"""`score_candidates`: weighted multi-criteria scoring, diversity-aware selection, explanations.

Generalizes two judges: a music recommender's (planner-given weights and diversity targets, one weighted
score per candidate, a greedy two-pass diversity selection, template explanations, a reasoning log) and an
idea judge's (a model scores each idea on a rubric, accepts at a threshold, rejects with reasons, lists key
points for the accepted ones).

The deterministic path needs no model: the judge is resolved only when a weighted criterion has to be read
from a candidate's text, or when a narrative explanation is asked for. Everything is linear in the number of
candidates except one stable sort and the search, which is bounded, so 100k candidates stay cheap.

The phases, in order: `plan` (check the request, sum the given values), `scoring` (the judge scores what is
missing), `ranking` (rank, pick; `search` when the two passes miss a diversity target), `explain` (why each
was picked); `orchestration` runs them and assembles the result described in `models`.
"""

from typing import TYPE_CHECKING, Any

from gavel.tools.candidates.models import (
    Contribution,
    DiversityOutcome,
    Failure,
    KeyPoints,
    RankingEntry,
    RejectedCandidate,
    ScoreCandidatesRequest,
    ScoreCandidatesResult,
    SelectedCandidate,
    UnscoredCandidate,
)
from gavel.tools.candidates.values import canonical_key

if TYPE_CHECKING:
    from gavel.tools.candidates.orchestration import score_candidates
    from gavel.tools.candidates.ranking import select_diverse


def __getattr__(name: str) -> Any:
    # The tool's code is imported at first use: a server lists its tools from the request and result models alone.
    if name == "score_candidates":
        from gavel.tools.candidates.orchestration import score_candidates

        return score_candidates
    if name == "select_diverse":
        from gavel.tools.candidates.ranking import select_diverse

        return select_diverse
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Contribution",
    "DiversityOutcome",
    "Failure",
    "KeyPoints",
    "RankingEntry",
    "RejectedCandidate",
    "ScoreCandidatesRequest",
    "ScoreCandidatesResult",
    "SelectedCandidate",
    "UnscoredCandidate",
    "canonical_key",
    "score_candidates",
    "select_diverse",
]
