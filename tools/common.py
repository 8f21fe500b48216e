"""Request fields and checks shared by the judging tools."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, Field, SerializationInfo, SerializerFunctionWrapHandler, Strict, model_serializer

from gavel.tools.errors import InvalidInput
from gavel.tools.guards.text import printable


@dataclass(frozen=True)
class Limits:
    """Input limits, enforced before any LLM call and stated in tool descriptions. Their defaults are the
    server's settings (`Settings.limits`)."""

    max_text_chars: int
    max_sources: int
    max_candidates: int
    max_batch: int
    max_samples: int
    max_iterations: int
    call_deadline_s: float  # stated in the tool descriptions; the engine enforces EngineConfig's


RubricId = Annotated[
    str | None,
    Field(
        default=None,
        max_length=64,
        description="Rubric id: rubric://index",
    ),
]
# Structured output gives numbers only as far as their scales mean anything: probabilities and 0-1 scores to
# 0.001, rubric scores and averages to 0.01 at the finest. Four decimals never change what a reader or a
# threshold sees, and drop binary noise such as 0.6200000000000001 (0.1 + 0.2 + 0.32).
OUTPUT_DECIMALS = 4

# Strict: a JSON true is not the number 1.
Samples = Annotated[
    int,
    Strict(),
    Field(
        default=1,
        ge=1,
        le=9,
        description="Samples per metric; >1: median, spread.",
    ),
]
NoCache = Annotated[
    bool,
    Field(
        default=False,
        description="Skip the ledger's cache.",
    ),
]
ModelOverride = Annotated[
    str | None,
    Field(default=None, max_length=200, description="Judge model."),
]


def require_text(value: str | None, field: str, limits: Limits, *, required: bool = True) -> str | None:
    """Non-empty (when required) and within the per-field character limit; checked before any model call."""
    if value is None:
        if required:
            raise InvalidInput("is required", field=field)
        return None
    if required and not value.strip():
        raise InvalidInput("must not be empty or whitespace only", field=field)
    if len(value) > limits.max_text_chars:
        raise InvalidInput(
            f"is {len(value):,} characters; the limit is {limits.max_text_chars:,} (GAVEL_MAX_TEXT_CHARS). "
            "Shorten it or send the relevant part.",
            field=field,
        )
    return value


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the last an ellipsis when anything was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    return clip(" ".join(text.split()), limit)


def terminal_line(text: str, limit: int) -> str:
    """`text` as a terminal is sent it: on one line, cut to `limit` characters, and with no control character to
    start an escape sequence (a dataset's id, a set's or a model's name, a headline from a model's output)."""
    return printable(one_line(text, limit))


def table_cell(text: str, limit: int | None = None) -> str:
    """`text` as one Markdown table cell: on one line (cut to `limit` characters with an ellipsis, when given), and
    with no `|` to end the cell or start a row."""
    return (" ".join(text.split()) if limit is None else one_line(text, limit)).replace("|", "/")


def flags_line(flags: Sequence[str]) -> list[str]:
    """A result's text rendering names the flags raised in one line, and has no such line when there are none."""
    return [f"flags: {', '.join(flags)}"] if flags else []


def rounded(value: Any) -> Any:
    """`value` with every float in it, however deeply nested, rounded to OUTPUT_DECIMALS."""
    if isinstance(value, float):
        return round(value, OUTPUT_DECIMALS)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(item) for item in value]
    return value


def check_samples(samples: int, limits: Limits) -> None:
    if not 1 <= samples <= limits.max_samples:
        raise InvalidInput(f"must be between 1 and {limits.max_samples}", field="samples")


class ToolResult(BaseModel):
    """What every judging tool's result carries about the evaluation ledger. The server fills both in."""

    evaluation_id: str | None = Field(
        default=None,
        description="This judgment's id in the evaluation ledger; read it back as the resource evaluation://{id}. "
        "Null when the ledger is off or unavailable, or when nothing was judged (no model was used).",
    )
    cached: bool = Field(
        default=False,
        description="True when this is a stored judgment of an identical earlier request (same inputs, rubric "
        "version, prompt templates, model and digest, options and samples), returned with no model call now. "
        "Send no_cache=true to judge afresh.",
    )

    # The one place structured output is rounded: every tool's result derives from this class, and the JSON
    # dump (structuredContent, the ledger's record) is where a reader meets the numbers. Python-mode dumps and
    # the models' own values keep full precision for computation. No return annotation on purpose: pydantic
    # would take it as the serialization schema and replace the tool's outputSchema with it.
    @model_serializer(mode="wrap")
    def _rounded_output(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo):
        data = handler(self)
        return rounded(data) if info.mode_is_json() else data

    # -- how the evaluation ledger treats this result type (declared here so the ledger knows no tool) --------

    # May an identical later request be answered with a stored result of this type? A tool that is not
    # idempotent (refine_until_pass) says no: its calls are recorded, never served.
    ledger_serves: ClassVar[bool] = False

    def is_cacheable(self) -> bool:
        """Whether this judgment may be served again: only a complete one, never an unscored or failed one."""
        return False

    def ledger_items(self) -> list[ToolResult]:
        """Nested judgments the ledger records as rows of their own, each with an evaluation_id."""
        return []
