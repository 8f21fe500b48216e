"""A rubric's overall judgment, read as several yes/no questions averaged instead of one.

A metric on a scale that is not single digits (0-10, 1-10, 0-1) and states neither `question` nor `checks` is
asked one Yes/No question (`probability_yes_no`). When that metric is the rubric's overall judgment (its id is
`overall`) and the text answers a source, it is also asked four general questions about how the text serves the
source (judge.toml's `overall_*`): helpful, correct, complete, and whether it fails the source. The score is the
mean P(yes) of the five, the last one turned round.

Why: on Auto-J's preference pairs each single question picks the human's choice in 86-95 of 142 non-tie pairs on
the embedded default, and any average of two or more in 91-104; the five were chosen on pairs 1-60 (44 of 60
against 40 for the metric's own question) before pairs 61-142 were read (57 of 82 against 54). The picks hinge on
gaps of a few hundredths, and one question's reading of near-equal responses is noise that several questions
average out (bench/README.md, "Preferences"). A metric with a narrower aim keeps its own single question: general
quality would drown it. That holds for a rubric's only metric too ("Is the response in French?"), so the id, which
the author chooses, is what marks the overall judgment.
"""

from __future__ import annotations

from collections.abc import Sequence

from gavel.tools.engine import prompts
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import Prefix, ask, user_prompt
from gavel.tools.rubrics import Metric, Rubric

OVERALL_ID = "overall"


def applies(rubric: Rubric, metric: Metric, shared: Prefix, values: Sequence[int] | None) -> bool:
    """Whether the metric is a yes/no-read overall judgment (`overall`, no question of its own) of a text that
    answers a source."""
    plain = metric.question is None and metric.checks is None
    return metric.id == OVERALL_ID and plain and not values and rubric.prompt.source_label in shared.blocks


def _questions(rubric: Rubric) -> list[tuple[str, str, bool]]:
    """Each general question's name, its text, and whether a Yes counts against the text."""
    texts = prompts.prompt_set()
    labels = {"subject": rubric.prompt.subject, "source_label": rubric.prompt.source_label}
    return [
        (name, texts.fill(f"overall_{name}", **labels), name == "fails")
        for name in ("helpful", "correct", "complete", "fails")
    ]


async def overall_readout(
    calls: ModelCalls,
    shared: Prefix,
    rubric: Rubric,
    subject_text: str,
    own: Readout,
    tally: Tally,
    *,
    model: str | None,
    step: str,
) -> tuple[Readout, dict[str, float]]:
    """The mean P(yes) of the metric's own question (`own`, already read) and the general questions, with each
    question's P(yes) by name for the explanation. Any question the model did not answer leaves the metric
    unscored with that question's reason: a mean of the others would be a different measure."""
    if own.value is None:
        return own, {}
    read = {"own": own.value}
    shares = [own.value]
    masses = [own.mass] if own.mass is not None else []
    for name, text, against in _questions(rubric):
        # One after another: each shares the source and the text as its cached prompt prefix.
        user = user_prompt(shared, text, {rubric.prompt.subject: subject_text})
        readout = await ask(calls, user, tally, model=model, system=shared.system, step=f"{step}: {name}")
        if readout.value is None:
            return readout, {}
        read[name] = readout.value
        shares.append(1.0 - readout.value if against else readout.value)
        if readout.mass is not None:
            masses.append(readout.mass)
    mean = sum(shares) / len(shares)
    return Readout(value=mean, distribution={"yes": mean, "no": 1.0 - mean}, mass=min(masses, default=None)), read
