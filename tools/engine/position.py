"""A rubric metric that asks for a clear position ("Does the essay take a clear position on the prompt and keep to
it?") and states no checks, on a source that is one yes/no question ("Should zoos be abolished?"): read as two
support checks, the text as the document and each answer as the claim ('The answer to the question "…" is yes.',
and "… is no."), asked `check_covered` under the fact checker's system text. The likelier answer's P(yes) is how
clearly the text takes that position; 1 minus it is the mistake, counted above judge.toml's floor and placed on the
scale as any check's share.

As digits such a metric reads 4.0-4.7 for every essay, a rambling one that takes no position as much as a good one
(bench/README.md, "Essays: a user's own rubric"). Asked this way, on the tuning prompts 1-6 the good essays' likelier
answer read 0.47-0.59 and the rambling ones' 0.31-0.42, and on four blind sets read once the good one's was above
the rambling one's in 23 of 24 prompts (bench/README.md, "Essays: a position").

The metric is recognised by its words: thesis, stance or position in its id, name or description. The source must
be one yes/no question (it opens with "Should", "Is", "Does"… and ends with "?"): any other source, or none, leaves
the metric its own readout, since there is no answer to name. engine/derived_checks.py says when a metric is asked.
"""

from __future__ import annotations

import re

from gavel.tools.engine import prompts
from gavel.tools.engine.calls import ModelCalls
from gavel.tools.engine.check_items import Claim
from gavel.tools.engine.checks import LIKELY, check_claim, counted
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import metric_score
from gavel.tools.engine.scores import Finding, MetricScore, Usage
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric, Rubric

_SPEAKS_OF_POSITION = re.compile(r"\b(?:thesis|stance|position)\b", re.IGNORECASE)
_YES_NO_QUESTION = re.compile(
    r"^(?:should|shall|is|are|was|were|does|do|did|can|could|has|have|had|will|would|must|may)\b[^\n?]{3,300}\?$",
    re.IGNORECASE,
)
# check_covered's question, the text as the document: "Does the document state everything the claim says?"
_STATED = Checks(kind="covered")
ANSWERS = ("yes", "no")


def reads(words: str) -> bool:
    """Whether a metric whose id, name and description are `words` asks for a clear position."""
    return _SPEAKS_OF_POSITION.search(words) is not None


def question_of(source: str | None) -> str | None:
    """The source when it is one yes/no question, stripped; None otherwise."""
    asked = (source or "").strip()
    return asked if _YES_NO_QUESTION.match(asked) else None


async def score_position(
    calls: ModelCalls, rubric: Rubric, metric: Metric, text: str, question: str, model: str | None
) -> tuple[MetricScore, Usage]:
    """The metric from the likelier answer's P(stated); unscored when either check is unanswered."""
    usage = Usage()
    stated: dict[str, float] = {}
    for answer in ANSWERS:
        claim = prompts.prompt_set().substitute(f"position_claim_{answer}", question=question)
        step = f"{metric.name}: is the answer {answer}?"
        readout, used = await check_claim(calls, rubric, _STATED, Claim(claim, text), None, {}, model, step)
        usage = usage.add(used)
        if readout.value is None:
            subject = rubric.prompt.subject
            reason = f"the check whether the {subject} answers {answer} was not answered: {readout.reason}"
            failed = Readout.failed(readout.reason_code or "backend_error", reason)
            return metric_score(metric.id, metric.name, failed, ""), usage
        stated[answer] = readout.value
    answer = max(ANSWERS, key=lambda a: stated[a])
    p_mistake = 1 - stated[answer]
    score = rubric.scale.from_share(1 - counted(p_mistake, prompts.check_floor("position")))
    subject, source = rubric.prompt.subject, rubric.prompt.source_label
    explanation = (
        f"{metric.name} states no checks and asks for a position, and the {source} is a yes/no question, so the "
        f"{subject} was asked whether it answers yes (P {stated['yes']:.2f}) and whether it answers no (P "
        f"{stated['no']:.2f}); the likelier, {answer}, is how clearly it takes a position"
    )
    result = metric_score(metric.id, metric.name, Readout(value=score, distribution={}, mass=None), explanation)
    likely = p_mistake >= prompts.finding_cut("position", LIKELY)
    findings = [Finding(item=question, p_mistake=round(p_mistake, 4))] if likely else []
    counts = {"findings": findings, "expected_mistakes": round(p_mistake, 4), "checks": len(ANSWERS)}
    return result.model_copy(update=counts), usage


def feedback(score: MetricScore, rubric: Rubric, top: str) -> str:
    """What a rewrite is told about a text that does not clearly answer its yes/no question (`feedback_position`)."""
    assert score.score is not None and score.findings
    return prompts.prompt_set().substitute(
        "feedback_position", score=f"{score.score:.3g}", max=top, subject=rubric.prompt.subject,
        source_label=rubric.prompt.source_label, question=score.findings[0].item,
    )  # fmt: skip
