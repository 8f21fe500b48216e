"""The repair ladder for model replies: clean → parse JSON → validate, and the last-resort regex.

Each step either yields a validated value or says precisely why it could not; nothing here invents a
number. The judge decides what to do next (one re-ask, then the regex, then `unscored`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from gavel.tools.common import clip

T = TypeVar("T", bound=BaseModel)

_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think(?:ing)?>.*\Z", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
# The last "Score: N" wins: small models often restate the template's "Score:" before the real one.
_SCORE_LINE = re.compile(r"(?im)^\s*\**\s*score\s*\**\s*[:=]\s*\**\s*(-?\d+(?:\.\d+)?)\b(?!\s*[/-]\s*\d)")
# Template text echoed back instead of an answer, e.g. "[your score, as a number between 1 and 5]".
_PLACEHOLDER = re.compile(r"^\s*[\[<{(]\s*(your|insert|the)\b[^\]>})]*[\]>})]\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Parsed(Generic[T]):
    value: T | None
    error: str | None = None
    repaired: str | None = None  # which repair made it parse, e.g. "stripped <think>"


def clean_reply(text: str) -> tuple[str, list[str]]:
    """Strip reasoning blocks and code fences; report what was stripped."""
    steps: list[str] = []
    stripped = _THINK_BLOCK.sub("", text)
    if stripped != text:
        steps.append("stripped <think> block")
    unclosed = _THINK_OPEN.sub("", stripped)
    if unclosed != stripped:
        steps.append("dropped unclosed <think> block")
        stripped = unclosed
    fence = _FENCE.search(stripped)
    if fence:
        stripped = fence.group(1)
        steps.append("took JSON out of a code fence")
    return stripped.strip(), steps


def _first_json_object(text: str) -> str | None:
    """The first balanced {...} in `text`, honouring strings, for replies with prose around the JSON."""
    start = text.find("{")
    while start != -1:
        depth, in_string, escaped = 0, False, False
        for index in range(start, len(text)):
            char = text[index]
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return text[start : index + 1]
        start = text.find("{", start + 1)
    return None


def strip_reasoning(text: str) -> str:
    """Generated prose without reasoning blocks; code fences are kept (they may be the content)."""
    return _THINK_OPEN.sub("", _THINK_BLOCK.sub("", text)).strip()


def load_json(text: str) -> tuple[Any, list[str]]:
    """Parse JSON from a reply, tolerating prose around one object. Raises ValueError with the reason."""
    cleaned, steps = clean_reply(text)
    if not cleaned:
        raise ValueError("the reply was empty" + (f" after it was cleaned ({', '.join(steps)})" if steps else ""))
    try:
        return json.loads(cleaned), steps
    except json.JSONDecodeError as first_error:
        candidate = _first_json_object(cleaned)
        if candidate is None:
            raise ValueError(f"the reply is not JSON ({first_error.msg} at position {first_error.pos})") from None
        try:
            return json.loads(candidate), [*steps, "took the JSON object out of surrounding text"]
        except json.JSONDecodeError as exc:
            raise ValueError(f"the reply's JSON is malformed ({exc.msg} at position {exc.pos})") from None


def describe_validation_error(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse_reply(text: str, model: type[T]) -> Parsed[T]:
    try:
        data, steps = load_json(text)
    except ValueError as exc:
        return Parsed(None, str(exc))
    try:
        value = model.model_validate(data)
    except ValidationError as exc:
        return Parsed(None, f"the reply does not match the schema ({describe_validation_error(exc)})")
    return Parsed(value, None, ", ".join(steps) or None)


def is_placeholder(text: str) -> bool:
    """True for template text echoed back, e.g. '[Your rating, as text]'."""
    return bool(_PLACEHOLDER.match(text or ""))


def last_score_line(text: str) -> float | None:
    """The number on the last 'Score: N' line of a free-text reply, or None. Used only as a last resort."""
    cleaned, _ = clean_reply(text)
    matches = _SCORE_LINE.findall(cleaned)
    return float(matches[-1]) if matches else None


def explanation_before_score(text: str) -> str:
    """The text of an 'Explanation: …' section in a free-text reply, for the regex fallback."""
    cleaned, _ = clean_reply(text)
    match = re.search(r"(?is)explanation\s*[:=]\s*(.*?)(?:^\s*\**\s*score\s*\**\s*[:=]|\Z)", cleaned, re.MULTILINE)
    return clip((match.group(1) if match else cleaned).strip(), 1000)
