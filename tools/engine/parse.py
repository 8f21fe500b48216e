"""The repair ladder for model replies: clean → parse JSON → validate, and the last-resort regex.

Each step either yields a validated value or says precisely why it could not; nothing here invents a
number. The judge decides what to do next (one re-ask, then the regex, then `unscored`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from gavel.tools.common import clip

T = TypeVar("T", bound=BaseModel)

# Every pattern below runs in time linear in the reply: a model server (or a sampling client) may send any
# text, and a quadratic scan of a few hundred kilobytes holds the event loop for minutes (regexes and the JSON
# decoder keep the GIL, so a worker thread alone would not help). Hence tag scans instead of lazy `.*?` spans,
# whitespace other than newlines at line starts, and possessive quantifiers where two could share the same characters.
_THINK_TAG = re.compile(r"<(/?)think(?:ing)?>", re.IGNORECASE)
_FENCE_OPEN = re.compile(r"```(?:json|JSON)?\s*+\n?")
_SCORE_HEAD = r"^[^\S\n]*+\**+[^\S\n]*+score\s*+\**+\s*+[:=]"
# The last "Score: N" wins: small models often restate the template's "Score:" before the real one.
_SCORE_LINE = re.compile(rf"(?im){_SCORE_HEAD}\s*+\**+\s*+(-?\d++(?:\.\d++)?)\b(?!\s*[/-]\s*\d)")
_SCORE_HEADER = re.compile(rf"(?im){_SCORE_HEAD}")
_EXPLANATION = re.compile(r"(?i)explanation\s*+[:=]\s*+")
# Template text echoed back instead of an answer, e.g. "[your score, as a number between 1 and 5]".
_PLACEHOLDER = re.compile(r"^\s*[\[<{(]\s*(your|insert|the)\b[^\]>})]*[\]>})]\s*$", re.IGNORECASE)
# Where a JSON object can begin: a brace followed by a key or by the closing brace.
_OBJECT_START = re.compile(r'\{\s*+["}]')

# A judge reply is a few hundred tokens (the schema caps every string); even a reasoning model's thinking
# within the largest max_tokens asked for stays far below this. Longer is not a reply the judge reads.
MAX_REPLY_CHARS = 200_000
# How many places where an object could start are handed to the JSON decoder, and how many characters it may
# read in all (in readings of the whole reply, the first one included), before giving up: a try that fails may
# have read to the end of the reply, building values all the way, so this bounds the search to a few readings.
MAX_OBJECT_STARTS = 32
DECODE_READS = 2
_TOO_DEEP = "the reply's JSON is nested deeper than a parser can follow"

ReplyCode = Literal[
    "reply_empty",
    "reply_not_json",
    "reply_too_long",
    "reply_too_deep",
    "reply_schema_mismatch",
    "reply_placeholder",
    "reply_truncated",
]


class ReplyError(ValueError):
    """Why a reply yields no JSON, with a machine-readable code."""

    def __init__(self, code: ReplyCode, message: str) -> None:
        super().__init__(message)
        self.code: ReplyCode = code


@dataclass(frozen=True)
class Parsed(Generic[T]):
    value: T | None
    error: str | None = None
    repaired: str | None = None  # which repair made it parse, e.g. "stripped <think>"
    code: ReplyCode | None = None  # set when value is None


def _without_thinking(text: str) -> tuple[str, bool, bool]:
    """`text` without `<think>…</think>` blocks and without an unclosed one running to the end.

    One pass over the tags: an opening tag starts a block (further openings inside it are part of it), the
    next closing tag ends it. Returns the text, whether a closed block went, whether an unclosed one went.
    """
    kept: list[str] = []
    position, opened = 0, -1
    closed_any = False
    for tag in _THINK_TAG.finditer(text):
        closing = bool(tag.group(1))
        if opened < 0 and not closing:
            kept.append(text[position : tag.start()])
            opened = tag.start()
        elif opened >= 0 and closing:
            position, opened, closed_any = tag.end(), -1, True
    if opened >= 0:
        return "".join(kept), closed_any, True
    kept.append(text[position:])
    return "".join(kept), closed_any, False


def _fenced(text: str) -> str | None:
    """The body of the first ``` fence that is closed, or None."""
    start = text.find("```")
    if start < 0:
        return None
    opening = _FENCE_OPEN.match(text, start)
    body_start = opening.end() if opening else start + 3
    end = text.find("```", body_start)
    return text[body_start:end] if end >= 0 else None


def clean_reply(text: str) -> tuple[str, list[str]]:
    """Strip reasoning blocks and code fences; report what was stripped."""
    steps: list[str] = []
    stripped, closed, unclosed = _without_thinking(text)
    if closed:
        steps.append("stripped <think> block")
    if unclosed:
        steps.append("dropped unclosed <think> block")
    fence = _fenced(stripped)
    if fence is not None:
        stripped = fence
        steps.append("took JSON out of a code fence")
    return stripped.strip(), steps


def _object_in_text(text: str, not_json: str, spent: int) -> Any:
    """The first JSON object inside prose, tried where one can start, within the bounds above (`spent`: what
    the read of the whole reply as JSON already took).

    Raises ReplyError when none decodes; RecursionError is the decoder's depth limit.
    """
    decoder = json.JSONDecoder()
    first_error: str | None = None
    budget = DECODE_READS * len(text) - spent
    for tried, match in enumerate(_OBJECT_START.finditer(text)):
        if tried == MAX_OBJECT_STARTS or budget <= 0:
            first_error = f"{first_error}; gave up after {tried} places where an object could start, to bound the work"
            break
        try:
            return decoder.raw_decode(text, match.start())[0]
        except json.JSONDecodeError as exc:
            first_error = first_error or f"{exc.msg} at position {exc.pos}"
            budget -= exc.pos - match.start() + 1
        except RecursionError:
            raise ReplyError("reply_too_deep", _TOO_DEEP) from None
    if first_error is None:
        raise ReplyError("reply_not_json", not_json)
    raise ReplyError("reply_not_json", f"the reply's JSON is malformed ({first_error})")


def strip_reasoning(text: str) -> str:
    """Generated prose without reasoning blocks; code fences are kept (they may be the content)."""
    return _without_thinking(text)[0].strip()


def load_json(text: str) -> tuple[Any, list[str]]:
    """Parse JSON from a reply, tolerating prose around one object. Raises ReplyError with the reason."""
    if len(text) > MAX_REPLY_CHARS:
        raise ReplyError(
            "reply_too_long", f"the reply is {len(text):,} characters long, more than the {MAX_REPLY_CHARS:,} read"
        )
    cleaned, steps = clean_reply(text)
    if not cleaned:
        after = f" after it was cleaned ({', '.join(steps)})" if steps else ""
        raise ReplyError("reply_empty", "the reply was empty" + after)
    try:
        return json.loads(cleaned), steps
    except RecursionError:
        raise ReplyError("reply_too_deep", _TOO_DEEP) from None
    except json.JSONDecodeError as exc:
        not_json, spent = f"the reply is not JSON ({exc.msg} at position {exc.pos})", exc.pos
    return _object_in_text(cleaned, not_json, spent), [*steps, "took the JSON object out of surrounding text"]


def describe_validation_error(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse_reply(text: str, model: type[T]) -> Parsed[T]:
    try:
        data, steps = load_json(text)
    except ReplyError as exc:
        return Parsed(None, str(exc), code=exc.code)
    try:
        value = model.model_validate(data)
    except ValidationError as exc:
        reason = f"the reply does not match the schema ({describe_validation_error(exc)})"
        return Parsed(None, reason, code="reply_schema_mismatch")
    except RecursionError:
        return Parsed(None, _TOO_DEEP, code="reply_too_deep")
    return Parsed(value, None, ", ".join(steps) or None)


def is_placeholder(text: str) -> bool:
    """True for template text echoed back, e.g. '[Your rating, as text]'."""
    return bool(_PLACEHOLDER.match(text or ""))


def last_score_line(text: str) -> float | None:
    """The number on the last 'Score: N' line of a free-text reply, or None. Used only as a last resort."""
    if len(text) > MAX_REPLY_CHARS:
        return None
    cleaned, _ = clean_reply(text)
    matches = _SCORE_LINE.findall(cleaned)
    return float(matches[-1]) if matches else None


def explanation_before_score(text: str) -> str:
    """The text of an 'Explanation: …' section in a free-text reply (up to the 'Score:' line after it), for the
    regex fallback; the whole cleaned reply when it has no such section."""
    cleaned, _ = clean_reply(text[:MAX_REPLY_CHARS])
    start = _EXPLANATION.search(cleaned)
    if start is None:
        return clip(cleaned, 1000)
    end = _SCORE_HEADER.search(cleaned, start.end())
    return clip(cleaned[start.end() : end.start() if end else len(cleaned)].strip(), 1000)
