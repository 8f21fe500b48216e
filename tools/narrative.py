"""`explain: "narrative"`: a short prose explanation written by the model after the verdict.

The default explanations are Gavel's own, written from what was measured. A narrative is opt-in, asked for
only once the verdict is final, and given the verdict card as its only material: it can word the verdict,
never change it (nothing reads it back).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

if TYPE_CHECKING:
    from gavel.tools.engine.judge import Judge
    from gavel.tools.engine.scores import Usage

NARRATIVE_MAX_TOKENS = 200

Explain = Annotated[
    Literal["template", "narrative"],
    Field(
        default="template",
        description="'narrative': the judge also explains in prose (one more call).",
    ),
]


async def narrate(judge: Judge, card: str, model: str | None) -> tuple[str | None, str | None, Usage]:
    """(narrative, why there is none, usage) for a finished verdict card."""
    # Here, not at the top: the request models name `Explain`, and a server's start needs no prompt.
    from gavel.tools.engine import prompts

    generated = await judge.generate(
        data={"verdict": card},
        instruction=prompts.prompt_set().fill("narrative", facts="The verdict is in the block above."),
        model=model,
        max_tokens=NARRATIVE_MAX_TOKENS,
    )
    return generated.text, generated.error, generated.usage
