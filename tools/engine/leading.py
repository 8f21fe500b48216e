"""A rubric metric read for order (checks of kind 'leads'): does the text lead with its most serious points?

"Does the comment spend its attention on the most important issues, leading with them?" asked as one digit, the
embedded default reads a code review that buries its one real bug under six nitpicks the same as one that opens
with it: on the read code-review cases of a user's rubric the nitpicking version scored below the good one in 2 of
12 (bench/README.md, "A code review's priorities read in order"). Asked of each sentence how serious a point it
makes, the model does not separate a bug from a naming nit by much (P(yes) 0.55-0.9 for both), but within one text
the serious points read higher than the nits around them, and that is all an order needs.

So the text is cut into its points: list items (with their continuation lines) and paragraphs, outside fenced code
blocks, which make no point of their own; a heading or a line ending in a colon joins the point after it, and a text
in one paragraph is read as its sentences. Each point is asked the kind's question and its opposite, averaged as
(P(yes) + 1 - P(yes to the opposite)) / 2: how serious it reads. A point counts against the text as far as a later
point reads more serious than it, measured against the spread of seriousness within the text (at least judge.toml's
[leads] spread, so that a text whose points all read alike is not scored on noise). The share of the text, by
length, that is not ahead of a more serious point is placed on the scale: a text that leads with its most serious
point and ends with its nits has nothing ahead of anything and scores the best end; one that saves its bug for last
has nearly all of its length ahead of it, and a short opening thanks costs little. Read sentence by sentence, a
terse bug bullet or a bug inside one long sentence read no more serious than the nits around it, and held out the
reading failed twice (bench/README.md).

The metric is recognised by its words (engine/derived_checks.py says when it is asked): prioritising, or the most
important or serious first or leading, and problems (issues, bugs, defects...), since the question asks whether a
sentence points out a serious problem. "Does the email lead with the most important news?" is not read this way. A
rubric author can state `kind = "leads"` with their own question (and opposite); without one Gavel asks judge.toml's
`check_leads` and `check_leads_opposite`. Only the first 24 points are ordered, and the explanation says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import anyio

from gavel.tools.engine import prompts
from gavel.tools.engine.calls import ModelCalls
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import metric_score, prefix, unanswered, yes_no
from gavel.tools.engine.scores import Finding, MetricScore, Usage
from gavel.tools.engine.sentences import outside_code, sentences_outside_code
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric, Rubric

CHECKS = Checks(kind="leads")
MAX_POINTS = 24  # a longer text is ordered on its first points, and the explanation says so
QUOTE_CHARS = 160
# A point is quoted as a finding when at least this much of the text's spread of seriousness lies between it and a
# later, more serious point.
AHEAD = 0.5
# Order by importance: prioritising, leading with the most important points, or the most serious ones first...
_SPEAKS_OF_ORDER = re.compile(
    r"\bprioriti[sz]|\b(?:most|more)\s+(?:important|serious)\b[^.?!]*\b(?:lead|first)"
    r"|\blead(?:s|ing)?\s+with\b[^.?!]*\b(?:most|more)\s+(?:important|serious)",
    re.IGNORECASE,
)
# ...of problems: the kind's own question asks whether a sentence points out a serious problem.
_SPEAKS_OF_PROBLEMS = re.compile(r"\b(?:issues?|problems?|defects?|bugs?|concerns?|flaws?|mistakes?)\b", re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s.*|\*\*[^*]+\*\*:?|__[^_]+__:?|.*:)\s*$")


def reads(words: str) -> bool:
    """Whether a metric whose id, name and description are `words` asks that the text lead with the most serious
    problems it raises."""
    return _SPEAKS_OF_ORDER.search(words) is not None and _SPEAKS_OF_PROBLEMS.search(words) is not None


def note(metric: Metric) -> str:
    """What a score read this way says first: the rubric stated no checks, so Gavel chose these."""
    return (
        f"{metric.name} states no checks and asks that the most important points come first, so each point (a list "
        "item or paragraph, or a sentence of a text in one paragraph) was asked how serious it is: "
    )


def points(text: str) -> list[str]:
    """The text's points: its list items (with their continuation lines) and paragraphs outside fenced code, a
    heading or a line ending in a colon joining the point after it. A text of one paragraph falls back to its
    sentences, the only points it marks."""
    units: list[list[str]] = []
    fresh = True
    for line in outside_code(text):
        if not line.strip():
            fresh = True
            continue
        if fresh or _ITEM.match(line):
            units.append([_ITEM.sub("", line).strip()])
        else:
            units[-1].append(line.strip())
        fresh = False
    joined, pending = [], ""
    for unit in units:
        body = " ".join(unit)
        if len(unit) == 1 and _HEADING.match(unit[0]):
            pending = f"{pending} {body}".strip()
            continue
        joined.append(f"{pending} {body}".strip() if pending else body)
        pending = ""
    if pending:
        joined.append(pending)
    if len(joined) < 2:
        return sentences_outside_code(text) or [text.strip()]
    return joined


def ahead(seriousness: Sequence[float], spread: float, tolerance: float = 0.0) -> list[float]:
    """For each point, how far it sits ahead of a more serious one, 0 to 1: the most any later point reads more
    serious than it, less `tolerance`, over the text's spread of seriousness (at least `spread`)."""
    width = max(max(seriousness) - min(seriousness), spread)
    later = [max(seriousness[i + 1 :], default=seriousness[i]) for i in range(len(seriousness))]
    return [max(0.0, after - own - tolerance) / width for own, after in zip(seriousness, later, strict=True)]


def share_not_ahead(said: Sequence[str], behind: Sequence[float], by_length: bool) -> float:
    """The share of the text not ahead of a more serious point, each point counted by its length or as one."""
    weights = [len(point) if by_length else 1 for point in said]
    return 1 - sum(b * w for b, w in zip(behind, weights, strict=True)) / sum(weights)


async def score_leading(
    calls: ModelCalls,
    rubric: Rubric,
    metric: Metric,
    checks: Checks,
    text: str,
    source: str | None,
    context: Mapping[str, str],
    model: str | None,
) -> tuple[MetricScore, Usage]:
    """The metric from how serious each of the text's points reads, in the order it makes them."""
    found = points(text)
    cut_short = len(found) > MAX_POINTS
    found = found[:MAX_POINTS]
    texts = prompts.prompt_set()
    fill = {"subject": rubric.prompt.subject, "source_label": rubric.prompt.source_label}
    question = checks.question or texts.fill("check_leads", **fill)
    opposite = checks.opposite if checks.question else texts.fill("check_leads_opposite", **fill)
    shared = prefix(rubric, source if source and source.strip() else None, context)
    readouts: list[Readout | None] = [None] * len(found)
    usage = Usage()

    async def one(index: int, point: str) -> None:
        nonlocal usage
        step = f"{metric.name}: check {index + 1} of {len(found)}"
        values = []
        for asked in [question] + ([opposite] if opposite else []):
            instruction = texts.fill("probability_question", question=asked)
            extra = {"point": point}
            readout, used = await yes_no(calls, shared, instruction, extra=extra, model=model, step=step)
            usage = usage.add(used)
            if readout.value is None:
                readouts[index] = readout
                return
            values.append(readout.value)
        value = (values[0] + 1 - values[1]) / 2 if len(values) == 2 else values[0]
        readouts[index] = Readout(value=value, distribution={"yes": value, "no": 1 - value}, mass=None)

    async with anyio.create_task_group() as tg:
        for index, point in enumerate(found):
            tg.start_soon(one, index, point)
    done = [r for r in readouts if r is not None]
    if (unscored := unanswered(metric.id, metric.name, done)) is not None:
        return unscored, usage
    seriousness = [r.value for r in done if r.value is not None]
    return _scored(rubric, metric, found, seriousness, 2 if opposite else 1, cut_short), usage


def _scored(
    rubric: Rubric,
    metric: Metric,
    said: Sequence[str],
    seriousness: Sequence[float],
    asked: int,
    cut_short: bool,
) -> MetricScore:
    """The share of the points `said` (by count or by length, judge.toml's [leads] weigh) not ahead of a more
    serious one, on the scale; `asked`: questions per point."""
    shipped = prompts.leads()
    behind = ahead(seriousness, shipped.spread, shipped.tolerance)
    share = share_not_ahead(said, behind, shipped.by_length)
    score = rubric.scale.from_share(share)
    most = max(range(len(seriousness)), key=lambda i: seriousness[i])
    ahead_of = sorted((i for i, b in enumerate(behind) if b >= AHEAD), key=lambda i: -behind[i])
    findings = [Finding(item=said[i]) for i in ahead_of]
    quoted = "; ".join(f.quoted(QUOTE_CHARS) for f in findings[:3])
    subject = rubric.prompt.subject
    counted = f"of the {subject}'s length" if shipped.by_length else "of its points"
    explanation = (
        f"{share:.2f} {counted} ({len(said)} points) not ahead of a more serious point; the most serious point of "
        f"the {subject} reads as point {most + 1}: {Finding(item=said[most]).quoted(QUOTE_CHARS)}; "
        f"points that come before a more serious one: {quoted or 'none'}"
    )
    if cut_short:
        explanation += f" (only the first {MAX_POINTS} points were read)"
    result = metric_score(metric.id, metric.name, Readout(value=score, distribution={}, mass=None), explanation)
    return result.model_copy(update={"findings": findings, "checks": len(said) * asked})
