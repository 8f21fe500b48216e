"""How score_candidates words numbers, values, id lists and names in its log, warnings and explanations."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

# How many ids a warning or log line lists before it says "and N more": messages stay readable at 100k.
IDS_SHOWN = 10
NAME_MAX_CHARS = 120
VALUE_MAX_CHARS = 60


def num(value: float) -> str:
    """Two decimals, as the music recommender shows scores, but small non-zero values keep two significant digits."""
    if value != 0 and abs(value) < 0.005:
        return f"{value:.2g}"
    return f"{value:.2f}"


def pct(weight: float) -> str:
    return f"{weight * 100:.4g}%"


def show(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    text = text.replace("\n", " ")
    return text if len(text) <= VALUE_MAX_CHARS else text[: VALUE_MAX_CHARS - 3] + "..."


def id_list(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:IDS_SHOWN])
    return shown + (f" and {len(ids) - IDS_SHOWN} more" if len(ids) > IDS_SHOWN else "")


def and_list(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def clip(text: str, limit: int = NAME_MAX_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def display_name(candidate: Mapping[str, Any], cid: str) -> str:
    """'title' by artist, as the music recommender names a track; falls back to the id."""
    title = next((candidate[k] for k in ("title", "name") if candidate.get(k) not in (None, "")), None)
    name = f"'{clip(str(title))}'" if title is not None else f"candidate {cid!r}"
    by = next((candidate[k] for k in ("artist", "author") if candidate.get(k) not in (None, "")), None)
    return f"{name} by {clip(str(by))}" if by is not None else name
