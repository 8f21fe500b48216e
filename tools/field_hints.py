"""What an unknown field was probably meant to be, for a refusal that says what to change.

People write their first rubric from what they know: DeepEval's G-Eval (`criteria`, `threshold`, a `rubric` of
score ranges), promptfoo's `llm-rubric`, or a rubric table with `anchors`. Pydantic only says "Extra inputs are
not permitted"; naming the field Gavel calls it turns one refusal into one edit.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Sequence

from pydantic import BaseModel, ValidationError

# Names other tools and habits use → Gavel's name, tried in order where that name is a field of the same object.
_ALIASES: dict[str, tuple[str, ...]] = {
    "anchors": ("levels",),
    "score_anchors": ("levels",),
    "rubric": ("levels",),
    "scores": ("levels",),
    "name": ("title",),
    "label": ("name",),
    "title": ("name",),
    "threshold": ("pass_threshold",),
    "passing_score": ("pass_threshold",),
    "pass_score": ("pass_threshold",),
    "criteria": ("metrics", "description"),
    "dimensions": ("metrics",),
    "metric": ("metrics",),
    "score_range": ("scale",),
    "range": ("scale",),
    "min_score": ("min",),
    "max_score": ("max",),
    "definition": ("description",),
    "prompt_text": ("prompt",),
}


def _model_in(annotation: object) -> type[BaseModel] | None:
    """The pydantic model an annotation holds: itself, or inside a list, dict, Optional or Annotated."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin is None:
        return None
    arguments = typing.get_args(annotation)
    if origin is typing.Annotated:
        arguments = arguments[:1]
    elif origin is dict:
        arguments = arguments[1:]
    elif origin not in (list, tuple, typing.Union, types.UnionType):
        return None
    for argument in arguments:
        found = _model_in(argument)
        if found is not None:
            return found
    return None


def known_fields(root: type[BaseModel], loc: Sequence[int | str]) -> list[str]:
    """The field names of the object an error at `loc` sits in ([] where the path leaves pydantic models)."""
    model: type[BaseModel] | None = root
    for part in loc[:-1]:
        if model is None:
            return []
        field = model.model_fields.get(part) if isinstance(part, str) else None
        if field is not None:
            model = _model_in(field.annotation)
        # A list position or a dict key (a context's name) leaves the object's model as it is.
    return list(model.model_fields) if model is not None else []


def did_you_mean(root: type[BaseModel], loc: Sequence[int | str]) -> str | None:
    """The known field an unknown one at `loc` probably meant, or None."""
    if not loc or not isinstance(loc[-1], str):
        return None
    known = known_fields(root, loc)
    field = loc[-1]
    for name in _ALIASES.get(field.lower(), ()):
        if name in known:
            return name
    close = difflib.get_close_matches(field, known, n=1, cutoff=0.75)
    return close[0] if close else None


def unknown_field(root: type[BaseModel], loc: Sequence[int | str]) -> str:
    """What a refusal says of an unknown field at `loc`: the field it probably meant, or how to find it."""
    meant = did_you_mean(root, loc)
    if meant is not None:
        return f"is not a known field; did you mean {meant!r}?"
    return "is not a known field; remove it or check its spelling"


def field_errors(error: ValidationError, root: type[BaseModel]) -> str:
    """Every problem of a data file validated as `root`, 'field where: what is wrong', an unknown field with the one
    it probably meant."""
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        wrong = unknown_field(root, item["loc"]) if item["type"] == "extra_forbidden" else item["msg"]
        parts.append(f"field {where}: {wrong}")
    return "; ".join(parts)
