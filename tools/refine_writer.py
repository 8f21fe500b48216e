"""`refine_until_pass`'s writer step: one text from the writer, checked before it is judged.

The reply loses the writer's frame (its title, a closing "Changes made" section). A reply that still carries the
writer's remarks about itself or the judge's feedback (`gavel.tools.revision`), or that is the previous version
unchanged, is asked for once more, saying what to leave out; the second reply decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gavel.tools.engine import prompts
from gavel.tools.engine.scores import Usage
from gavel.tools.revision import RevisionProblem, revision_problems, strip_frame
from gavel.tools.rubrics import Rubric

if TYPE_CHECKING:
    from gavel.tools.engine.judge import Judge

# Enough for a one-page assessment; a small local model writing more mostly repeats itself.
# Room for a revision plus the prompt material small models echo first (stripped afterwards).
GENERATOR_MAX_TOKENS = 1024


@dataclass(frozen=True)
class Written:
    text: str | None
    usage: Usage
    error: str | None = None
    problem: RevisionProblem | None = None
    rejected_text: str | None = None
    removed: str | None = None


async def write(
    writer: Judge,
    rubric: Rubric,
    *,
    data: Mapping[str, str],
    instruction: str,
    model: str | None,
    feedback: Mapping[str, str] | None = None,
    carried: str | None = None,
) -> Written:
    """The writer's text, checked; asked once more, naming what to leave out, when it carries more than itself.
    `carried`: the previous version, whose own lines are content wherever they recur."""
    usage = Usage()
    ask = instruction
    subject = rubric.prompt.subject
    found: list[RevisionProblem] = []
    unchanged = False
    # A rewrite keeps its source's words under a lighter penalty; a first version takes the generation default.
    penalty = writer.config.revise_repeat_penalty if carried is not None else None
    for _attempt in range(2):
        generated = await writer.generate(
            data=data, instruction=ask, max_tokens=GENERATOR_MAX_TOKENS, model=model, repeat_penalty=penalty
        )
        usage = usage.add(generated.usage)
        if generated.text is None:
            return Written(None, usage, error=generated.error)
        text, removed = strip_frame(generated.text, subject=subject, carried=carried)
        # At temperature 0 the same prompt gives the same text back: judged and revised again, an unchanged rewrite
        # would only repeat until max_iterations. Asked once, saying so; then the writer has failed.
        unchanged = carried is not None and text.split() == carried.split()
        if unchanged:
            ask = f"{instruction}\n\n{prompts.prompt_set().fill('revise_unchanged', subject=subject)}"
            continue
        found = revision_problems(
            text,
            subject=subject,
            metric_ids=[m.id for m in rubric.metrics],
            scale_max=rubric.scale.max,
            feedback=feedback,
            carried=carried,
        )
        if not found:
            return Written(text, usage, removed=removed)
        again = prompts.prompt_set().fill("revise_again", subject=subject, problem=found[0].describe())
        ask = f"{instruction}\n\n{again}"
    if unchanged:
        return Written(None, usage, error=f"the writer returned the previous {subject} unchanged, also when told so")
    return Written(None, usage, problem=found[0], rejected_text=generated.text)
