"""The generated grounding check: one structured call, besides the dimensions, that decides whether the answer's
claims are supported by the passages. Its prompt is `rag_grounding` in tools/prompts/judge.toml.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from gavel.tools.engine import prompts
from gavel.tools.engine.judge import Judge, Structured
from gavel.tools.engine.reply_schema import NOT_A_BOOLEAN
from gavel.tools.rag.prepare import AnswerInput, Prepared
from gavel.tools.rag.sentence_support import ProbabilityGrounding
from gavel.tools.rubrics import ContextRules, Rubric

GROUNDING_MAX_TOKENS = 700

_GROUNDING_FIELDS = (
    "reasoning",
    "passages_relevant",
    "is_grounded",
    "contradicts_passages",
    "unsupported_claims",
    "confidence",
)


class GroundingCheck(BaseModel):
    """The one structured call besides the dimensions. Reasoning first, so the model reasons before it decides.

    The requested schema requires every field, so constrained decoding always produces them; validation
    tolerates a missing claims list or confidence rather than losing the grounding decision over them.
    """

    model_config = ConfigDict(extra="ignore", json_schema_extra={"required": list(_GROUNDING_FIELDS)})

    reasoning: str = Field(max_length=400, description="At most two short sentences citing the evidence.")
    passages_relevant: bool = Field(description="Whether the passages contain information that addresses the question.")
    is_grounded: bool = Field(description="Whether every factual claim of the answer is supported by the passages.")
    contradicts_passages: bool = Field(description="Whether the answer states something a passage contradicts.")
    unsupported_claims: list[Annotated[str, Field(max_length=200)]] = Field(
        default_factory=list,
        max_length=5,
        description="Short quotes of the answer's claims the passages do not support.",
    )
    confidence: Annotated[float | None, NOT_A_BOOLEAN] = Field(
        default=None, ge=0, le=1, description="How sure the judge is, 0-1."
    )


# What the verdict, diagnosis and issues read: the generated check, or the per-sentence probability checks.
Grounding = GroundingCheck | ProbabilityGrounding


def grounding_instruction(rubric: Rubric, rules: ContextRules) -> str:
    # One substitution pass, every line kept: the context's instructions may hold blank lines of their own.
    return prompts.prompt_set().substitute(
        "rag_grounding",
        instructions=rules.instructions,
        subject=rubric.prompt.subject,
        source_label=rubric.prompt.source_label,
    )


async def check_grounding(judge: Judge, prepared: Prepared, item: AnswerInput) -> Structured[GroundingCheck] | None:
    if prepared.passages is None:
        return None
    rubric = prepared.rubric
    return await judge.structured(
        output=GroundingCheck,
        data={
            rubric.prompt.source_label: prepared.passages,
            "question": prepared.question,
            rubric.prompt.subject: item.answer,
        },
        instruction=grounding_instruction(rubric, prepared.rules),
        model=prepared.model,
        max_tokens=GROUNDING_MAX_TOKENS,
    )
