"""A rubric metric read for order (checks of kind 'leads'): does the text lead with its most serious points?

"Does the comment spend its attention on the most important issues, leading with them?" asked as one digit, the
embedded default reads a code review that buries its one real bug under six nitpicks the same as one that opens
with it: on the read code-review cases of a user's rubric the nitpicking version scored below the good one in 2 of
12 (bench/README.md, "A code review's priorities read in order"). Asked of each sentence how serious a point it
makes, the model does not separate a bug from a naming nit by much (P(yes) 0.55-0.9 for both), but within one text
the serious points read higher than the nits around them, and that is all an order needs.

So each sentence (outside fenced code blocks, which make no point of their own) is asked the kind's question and
its opposite, averaged as (P(yes) + 1 - P(yes to the opposite)) / 2: how serious the sentence reads. A sentence
counts against the text as far as a later sentence reads more serious than it, measured against the spread of
seriousness within the text (at least judge.toml's [leads] spread, so that a text whose sentences all read alike
is not scored on noise). The share of the text that is not ahead of a more serious point is placed on the scale:
a text that leads with its most serious point and ends with its nits has nothing ahead of anything and scores the
best end; one that saves its bug for last has nearly every sentence ahead of it.

The metric is recognised by its words (engine/derived_checks.py says when it is asked): prioritising, or the most
important or serious first or leading, and problems (issues, bugs, defects...), since the question asks whether a
sentence points out a serious problem. "Does the email lead with the most important news?" is not read this way. A
rubric author can state `kind = "leads"` with their own question (and opposite); without one Gavel asks judge.toml's
`check_leads` and `check_leads_opposite`. Only the first 24 sentences are ordered, and the explanation says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import anyio

from gavel.tools.engine import prompts
from gavel.tools.engine.calls import ModelCalls
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import metric_score, prefix, yes_no
from gavel.tools.engine.scores import Finding, MetricScore, Usage
from gavel.tools.engine.sentences import split_sentences
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric, Rubric

CHECKS = Checks(kind="leads")
MAX_SENTENCES = 24  # a longer text is ordered on its first sentences, and the explanation says so
QUOTE_CHARS = 160
# A sentence is quoted as a finding when at least this much of the text's spread of seriousness lies between it
# and a later, more serious sentence.
AHEAD = 0.5
# Order by importance: prioritising, leading with the most important points, or the most serious ones first...
_SPEAKS_OF_ORDER = re.compile(
    r"\bprioriti[sz]|\b(?:most|more)\s+(?:important|serious)\b[^.?!]*\b(?:lead|first)"
    r"|\blead(?:s|ing)?\s+with\b[^.?!]*\b(?:most|more)\s+(?:important|serious)",
    re.IGNORECASE,
)
# ...of problems: the kind's own question asks whether a sentence points out a serious problem.
_SPEAKS_OF_PROBLEMS = re.compile(r"\b(?:issues?|problems?|defects?|bugs?|concerns?|flaws?|mistakes?)\b", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(?:```|~~~)")


def reads(words: str) -> bool:
    """Whether a metric whose id, name and description are `words` asks that the text lead with the most serious
    problems it raises."""
    return _SPEAKS_OF_ORDER.search(words) is not None and _SPEAKS_OF_PROBLEMS.search(words) is not None


def note(metric: Metric) -> str:
    """What a score read this way says first: the rubric stated no checks, so Gavel chose these."""
    return (
        f"{metric.name} states no checks and asks that the most important points come first, so each sentence was "
        "asked how serious a point it makes: "
    )


def sentences_outside_code(text: str) -> list[str]:
    """The text's sentences, leaving out the lines of fenced code blocks and the fences themselves."""
    prose, inside = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            inside = not inside
        elif not inside:
            prose.append(line)
    return split_sentences("\n".join(prose))


def ahead(seriousness: Sequence[float], spread: float, tolerance: float = 0.0) -> list[float]:
    """For each sentence, how far it sits ahead of a more serious one, 0 to 1: the most any later sentence reads
    more serious than it, less `tolerance`, over the text's spread of seriousness (at least `spread`)."""
    width = max(max(seriousness) - min(seriousness), spread)
    later = [max(seriousness[i + 1 :], default=seriousness[i]) for i in range(len(seriousness))]
    return [max(0.0, after - own - tolerance) / width for own, after in zip(seriousness, later, strict=True)]


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
    """The metric from how serious each sentence reads, in the order the text makes its points."""
    sentences = sentences_outside_code(text) or [text.strip()]
    cut_short = len(sentences) > MAX_SENTENCES
    sentences = sentences[:MAX_SENTENCES]
    texts = prompts.prompt_set()
    fill = {"subject": rubric.prompt.subject, "source_label": rubric.prompt.source_label}
    question = checks.question or texts.fill("check_leads", **fill)
    opposite = checks.opposite if checks.question else texts.fill("check_leads_opposite", **fill)
    shared = prefix(rubric, source if source and source.strip() else None, context)
    readouts: list[Readout | None] = [None] * len(sentences)
    usage = Usage()

    async def one(index: int, sentence: str) -> None:
        nonlocal usage
        step = f"{metric.name}: check {index + 1} of {len(sentences)}"
        values = []
        for asked in [question] + ([opposite] if opposite else []):
            instruction = texts.fill("probability_question", question=asked)
            extra = {"sentence": sentence}
            readout, used = await yes_no(calls, shared, instruction, extra=extra, model=model, step=step)
            usage = usage.add(used)
            if readout.value is None:
                readouts[index] = readout
                return
            values.append(readout.value)
        value = (values[0] + 1 - values[1]) / 2 if len(values) == 2 else values[0]
        readouts[index] = Readout(value=value, distribution={"yes": value, "no": 1 - value}, mass=None)

    async with anyio.create_task_group() as tg:
        for index, sentence in enumerate(sentences):
            tg.start_soon(one, index, sentence)
    done = [r for r in readouts if r is not None]
    failed = next((r for r in done if r.value is None), None)
    if failed is not None:
        at = done.index(failed) + 1
        reason = f"check {at} of {len(sentences)} was not answered: {failed.reason}"
        unscored = Readout.failed(failed.reason_code or "backend_error", reason)
        return metric_score(metric.id, metric.name, unscored, ""), usage
    seriousness = [r.value for r in done if r.value is not None]
    return _scored(rubric, metric, sentences, seriousness, 2 if opposite else 1, cut_short), usage


def _scored(
    rubric: Rubric,
    metric: Metric,
    sentences: Sequence[str],
    seriousness: Sequence[float],
    asked: int,
    cut_short: bool,
) -> MetricScore:
    """The share of sentences not ahead of a more serious one, on the scale; `asked`: questions per sentence."""
    shipped = prompts.leads()
    behind = ahead(seriousness, shipped.spread, shipped.tolerance)
    share = 1 - sum(behind) / len(behind)
    score = rubric.scale.from_share(share)
    most = max(range(len(seriousness)), key=lambda i: seriousness[i])
    found = sorted((i for i, b in enumerate(behind) if b >= AHEAD), key=lambda i: -behind[i])
    findings = [Finding(item=sentences[i]) for i in found]
    quoted = "; ".join(f.quoted(QUOTE_CHARS) for f in findings[:3])
    subject = rubric.prompt.subject
    explanation = (
        f"{share:.2f} of {len(sentences)} sentences not ahead of a more serious point; the most serious point of "
        f"the {subject} reads as sentence {most + 1}: {Finding(item=sentences[most]).quoted(QUOTE_CHARS)}; "
        f"sentences that come before a more serious one: {quoted or 'none'}"
    )
    if cut_short:
        explanation += f" (only the first {MAX_SENTENCES} sentences were read)"
    result = metric_score(metric.id, metric.name, Readout(value=score, distribution={}, mass=None), explanation)
    return result.model_copy(update={"findings": findings, "checks": len(sentences) * asked})
