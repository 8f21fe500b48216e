"""Reading a candidate: its id, its number for a criterion, the text the judge reads, and value equality."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from gavel.tools.candidates.display import show
from gavel.tools.errors import InvalidInput


def candidate_id(candidate: Mapping[str, Any], index: int) -> str:
    raw = candidate.get("id")
    if raw is None:
        return str(index)
    if isinstance(raw, str):
        return raw
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw)
    return show(raw)


def canonical_key(value: Any) -> Any:
    """A hashable key under which equal JSON values collide: 1 and 1.0 are one number, true is not 1.

    Scalars take a fast path (this runs once per candidate and target attribute); lists and objects, which
    are unhashable, go through canonical JSON.
    """
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int):
        return ("n", value)
    if isinstance(value, float):
        return ("n", int(value)) if value.is_integer() else ("n", value)
    return ("j", json.dumps(_normalize_numbers(value), sort_keys=True, ensure_ascii=False, default=repr))


def _normalize_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _normalize_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normalize_numbers(v) for v in value]
    return value


def given_value(
    candidate: Mapping[str, Any], criterion: str, index: int, cid: str, score_key: str | None = None
) -> tuple[float, str] | None:
    """The candidate's own number for `criterion`: '<criterion>_score', else '<criterion>'.

    A null counts as absent (the lookup moves on), so a candidate can say "no score, judge me". Runs once
    per candidate and criterion, so plain finite floats take a fast path before the full checks.
    """
    key = score_key or f"{criterion}_score"
    raw = candidate.get(key)
    if raw is None:
        key = criterion
        raw = candidate.get(key)
        if raw is None:
            return None
    if type(raw) is float and raw - raw == 0.0:  # finite: inf - inf and nan - nan are nan
        return raw, key
    return _checked_number(raw, key, criterion, index, cid), key


def _checked_number(raw: Any, key: str, criterion: str, index: int, cid: str) -> float:
    where = f"candidates[{index}].{key}"
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise InvalidInput(
            f"candidate {cid!r} has {show(raw)} ({type(raw).__name__}) for the weighted criterion "
            f"{criterion!r}; criterion values must be numbers (or null / absent to be judged or counted as 0)",
            field=where,
        )
    try:
        value = float(raw)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise InvalidInput(
            f"candidate {cid!r} has {raw!r} for {criterion!r}; criterion values must be finite numbers",
            field=where,
        )
    return value


def candidate_text(candidate: Mapping[str, Any]) -> str:
    """What the judge reads: 'text' or 'description', else the candidate's JSON minus its numbers.

    Numbers are left out so the judge is not anchored by scores the candidate already carries.
    """
    for key in ("text", "description"):
        value = candidate.get(key)
        if isinstance(value, str) and value.strip():
            return value
    rest = {
        k: v for k, v in candidate.items() if v is not None and (isinstance(v, bool) or not isinstance(v, int | float))
    }
    return json.dumps(rest, ensure_ascii=False, sort_keys=True, default=repr) if rest else ""
