"""A rubric field under another tool's name is refused with the name Gavel uses."""

from __future__ import annotations

import pytest

from gavel.tools.errors import RubricFileError
from gavel.tools.field_hints import did_you_mean
from gavel.tools.rubric_registry import parse_rubric
from gavel.tools.rubrics import Rubric


@pytest.mark.parametrize(
    ("loc", "meant"),
    [
        (("name",), "title"),
        (("threshold",), "pass_threshold"),
        (("criteria",), "metrics"),
        (("metrics", 0, "anchors"), "levels"),
        (("metrics", 2, "title"), "name"),
        (("metrics", 0, "criteria"), "description"),
        (("metrics", 0, "checks", "questoin"), "question"),
        (("scale", "max_score"), "max"),
        (("contexts", "RAG", "aprove_at"), "approve_at"),
        (("colour",), None),
    ],
)
def test_the_field_meant_is_found_where_the_error_sits(loc: tuple[int | str, ...], meant: str | None) -> None:
    assert did_you_mean(Rubric, loc) == meant


def test_a_rubric_with_anchors_is_refused_naming_levels() -> None:
    data = {
        "id": "support-reply", "version": "0.1.0", "title": "Support reply", "description": "A reply.",
        "scale": {"min": 1, "max": 5}, "pass_threshold": 4,
        "metrics": [{"id": "tone", "name": "Tone", "description": "Polite?", "anchors": {"1": "rude", "5": "warm"}}],
    }  # fmt: skip
    with pytest.raises(RubricFileError, match=r"metrics\.0\.anchors: is not a known field; did you mean 'levels'\?"):
        parse_rubric(data, origin="support-reply.toml")
