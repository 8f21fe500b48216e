"""A rubric metric read as yes/no checks, one item at a time (`Metric.checks`).

"How specific is this assessment, 1 to 5?" is a question a small model answers with the same digit for every
text. "Is this sentence supported by the transcript?" it answers well. So a metric with checks is split into
items (the text's sentences, or the source's statements), each asked one concrete question and read as
P(yes) from the model's probabilities. The metric follows the rubric's anchors from what the checks found:

- on mistake-count anchors ("no mistakes", "1 or 2 mistakes", ..., "7 or more mistakes") the expected number
  of mistakes, the sum of the items' P(mistake), is placed between the anchors;
- `named` checks that state `enough` count the paragraphs that name something: as a share, an essay's
  opening and counter-argument (which name no evidence) pulled a good essay down, and a one-paragraph draft
  naming one thing read as fully backed;
- `named` checks that state `centre` and `spread` place the mean P(named) on a logistic curve (a code review's
  sentences naming where in the code they point: engine/actionable.py);
- `repeated` checks that state `centre` and `spread` place the expected number of restated sentences on a
  logistic curve, fewer higher (a metric that speaks of length: engine/repetition.py);
- otherwise the mean P(no mistake) is placed on the scale, from its worst end to its best.

Every check shares the judgment's prompt prefix where it can (the source, then the claim), so the prompt cache
evaluates the long material once. A check the model did not answer leaves the metric unscored: the count of
mistakes is then unknown, and nothing is guessed. Items the checks found wrong are kept as `findings`,
verbatim, for the explanation and for refine_until_pass's feedback.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

import anyio

from gavel.tools.engine import notes, prompts
from gavel.tools.engine.calls import ModelCalls
from gavel.tools.engine.certain import at_most_anchor, certain_mistakes
from gavel.tools.engine.check_items import Claim, Item, check_items, supported_item
from gavel.tools.engine.contradicted import Certain, read_certain
from gavel.tools.engine.leading import score_leading
from gavel.tools.engine.likelihood import placed, score_likelihood
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import Prefix, document_prefix, metric_score, named, prefix, unanswered, yes_no
from gavel.tools.engine.scores import Finding, MetricScore, Usage
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubrics import Metric, Rubric

# A finding is reported (and fed back to the writer) when its P(mistake) is at least this, unless judge.toml's
# [finding_cut] sets its kind's own.
LIKELY = 0.5
QUOTE_CHARS = 160
# The most items one metric checks: a longer text is checked on its first items, and the explanation says so.
MAX_ITEMS = 24
_COUNT = re.compile(r"^\s*(no|\d+)(?:\s*(?:or|to|-|–)\s*(\d+))?(\s*or more)?\s+mistakes?\b", re.IGNORECASE)


_SUPPORTED = Checks(kind="supported")
_DOCUMENT_ORDER = {
    "supported": 0,
    "covered": 1,
    "consistent": 2,
    "repeated": 3,
    "sentence": 4,
    "whole": 5,
    "leads": 6,
    "named": 7,
    "likelihood": 8,
}


def document_order(metric: Metric) -> int:
    """Checks against the source first, then against the text, then the text alone (prompt-cache order)."""
    return _DOCUMENT_ORDER[metric.checks.kind] if metric.checks is not None else len(_DOCUMENT_ORDER)


def count_anchors(levels: Mapping[str, str]) -> list[tuple[float, float]] | None:
    """(mistakes, score) points from anchors that each state a mistake count, best first; None when any does not.

    "no mistakes" is 0; "1 or 2 mistakes" its middle, 1.5; "7 or more mistakes" its lower bound, 7.
    """
    points = []
    for key, label in levels.items():
        match = _COUNT.match(label)
        if match is None:
            return None
        low = 0.0 if match.group(1).lower() == "no" else float(match.group(1))
        high = float(match.group(2)) if match.group(2) and not match.group(3) else low
        points.append(((low + high) / 2, float(key)))
    points.sort()
    if len(points) < 2 or points[0][0] != 0:
        return None
    return points


def score_from_mistakes(expected: float, points: Sequence[tuple[float, float]]) -> float:
    """The score for an expected mistake count, linear between the anchors' points; past the last, its score."""
    for (m0, s0), (m1, s1) in itertools.pairwise(points):
        if expected <= m1:
            return s0 + (s1 - s0) * (expected - m0) / (m1 - m0)
    return points[-1][1]


def _what(checks: Checks, rubric: Rubric, has_source: bool = False) -> str:
    source = rubric.prompt.source_label
    subject = rubric.prompt.subject
    if checks.unless_supported and has_source:
        return f"sentences that contradict what the {subject} says before them and the {source} does not support"
    return {
        "supported": f"sentences of the {subject} not supported by the {source}",
        "covered": f"statements of the {source} missing from the {subject}",
        "consistent": f"sentences that contradict what the {subject} says before them",
        "repeated": f"sentences that restate what the {subject} says before them",
        "sentence": f"sentences of the {subject} answered '{checks.mistake}' to: {checks.question}",
        "whole": f"'{checks.mistake}' to: {checks.question}",
        "named": f"{checks.per}s of the {subject} answered 'None' to: {checks.question}",
    }[checks.kind]


async def score_checked(
    calls: ModelCalls,
    rubric: Rubric,
    metric: Metric,
    text: str,
    source: str | None,
    context: Mapping[str, str],
    model: str | None,
) -> tuple[MetricScore, Usage]:
    """The metric from its checks, with the usage of every check call."""
    checks = metric.checks
    assert checks is not None
    if checks.kind == "likelihood":
        return await score_likelihood(calls, rubric, metric, text, source, model)
    if checks.kind == "leads":
        return await score_leading(calls, rubric, metric, checks, text, source, context, model)
    # The source when it says anything: None narrows the type where a check needs it.
    document = source if source and source.strip() else None
    has_source = document is not None
    if checks.kind in ("supported", "covered") and not has_source:
        subject, source_label = rubric.prompt.subject, rubric.prompt.source_label
        reason = f"{metric.name} checks the {subject} against its {source_label}; give source"
        return metric_score(metric.id, metric.name, Readout.failed("source_missing", reason), ""), Usage()
    items = check_items(checks, text, source)
    items, unasked = items[:MAX_ITEMS], items[MAX_ITEMS:]
    if not items and checks.enough is None:  # counted, no paragraph names anything: _scored's worst end
        return _no_items(rubric, metric, checks), Usage()
    readouts: list[Readout | None] = [None] * len(items)
    usage = Usage()
    weakest: list[str] = [item.text for item in items]
    certain: list[Certain] = [Certain([], []) for _ in items]  # each item's, in the text's order
    reading = notes.read_source(source or "", text) if checks.kind == "supported" or checks.unless_supported else None
    # The model is asked about MAX_ITEMS items at most; the reading with no model is free, so it reads them all.
    beyond = [read_certain(item.text, reading) for item in unasked] if checks.kind == "supported" and reading else []

    async def one(index: int, item: Item) -> None:
        nonlocal usage
        step = f"{metric.name}: check {index + 1} of {len(items)}"
        if checks.kind == "supported":
            assert reading is not None
            readout, weakest[index], certain[index], used = await _support(
                calls, rubric, item, source, reading, context, model, step
            )
            usage = usage.add(used)
            readouts[index] = readout
            return
        readout, weakest[index], used = await _weakest(calls, rubric, checks, item.claims, source, context, model, step)
        usage = usage.add(used)
        if checks.unless_supported and document is not None and readout.value is not None:
            assert reading is not None
            readout, used = await _or_supported(
                calls, rubric, readout, item.text, document, reading, context, model, step
            )
            usage = usage.add(used)
        readouts[index] = readout

    async with anyio.create_task_group() as tg:
        for index, item in enumerate(items):
            tg.start_soon(one, index, item)
    done = [r for r in readouts if r is not None]
    if (unscored := unanswered(metric.id, metric.name, done)) is not None:
        return unscored, usage
    p_mistakes = [p_mistake(checks, r) for r in done]
    contradicted = certain_mistakes([c.contradicted for c in [*certain, *beyond]])
    result = _scored(rubric, metric, checks, weakest, p_mistakes, bool(unasked), has_source, contradicted)
    source_label, note = rubric.prompt.source_label, ""
    if missing := {q for c in certain for q in c.unstated}:
        note += f"; quantities the {source_label} never states: {', '.join(sorted(missing))}"
    if against := dict.fromkeys(f for c in [*certain, *beyond] for f in c.contradicted):
        note += f"; contradicted by the {source_label}: {', '.join(against)}"
    if note:
        result = result.model_copy(update={"explanation": result.explanation + note})
    return result, usage


def p_mistake(checks: Checks, readout: Readout) -> float:
    """A check's answered P(yes) as the P(mistake) its kind counts."""
    assert readout.value is not None
    p_yes = readout.value
    if checks.kind in ("supported", "covered", "consistent", "named"):
        return 1 - p_yes  # supported? stated? both true? named something? No is the mistake
    if checks.kind == "repeated":
        return p_yes  # already stated before? Yes is the mistake
    return p_yes if checks.mistake == "yes" else 1 - p_yes


def counted(p_mistake: float, floor: float) -> float:
    """How much of a mistake a check counts for: nothing up to its kind's floor, all of it at certainty."""
    return max(0.0, p_mistake - floor) / (1 - floor)


def question_first(kind: str) -> bool:
    """Whether a kind's checks ask their question before the claim, so the question joins the prompt prefix every
    check of the metric shares and each check evaluates its claim alone. `supported` and `sentence` do. `covered`
    does not: asked first, the question separated a transcript statement missing from the assessment from a
    stated one by half as much on the tuning cases (bench/README.md). `consistent` checks grow their document
    claim by claim, so the question is new to every check wherever it stands, and `whole` asks one question of
    the whole text."""
    return kind in ("supported", "sentence")


async def check_claim(
    calls: ModelCalls,
    rubric: Rubric,
    checks: Checks,
    claim: Claim,
    source: str | None,
    context: Mapping[str, str],
    model: str | None,
    step: str,
) -> tuple[Readout, Usage]:
    """One claim's check, read as P(yes) (the opposite question, when the rubric states one, averaged in)."""
    first = question_first(checks.kind)

    def ask(shared: Prefix, instruction: str, **kwargs: Any) -> Awaitable[tuple[Readout, Usage]]:
        return yes_no(calls, shared, instruction, question_first=first, **kwargs)

    texts = prompts.prompt_set()
    if checks.kind == "named":
        assert checks.question is not None
        instruction = texts.fill("check_named", question=checks.question)
        return await named(calls, instruction, checks.per, claim.text, model=model, step=step)
    if checks.kind in ("supported", "covered", "consistent", "repeated"):
        document = document_prefix(claim.document, None)
        # 'repeated' asks covered's question the other way round: the text before the sentence as the document.
        names = {"consistent": "check_consistent", "covered": "check_covered", "repeated": "check_covered"}
        name = names.get(checks.kind, "rag_sentence")
        return await ask(document, texts.fill(name), extra={"claim": claim.text}, model=model, step=step)
    shared = prefix(rubric, source, context) if checks.kind == "whole" else Prefix({}, "")
    label = rubric.prompt.subject if checks.kind == "whole" else "sentence"
    asked = [checks.question] + ([checks.opposite] if checks.opposite else [])
    results = []
    for question in asked:
        instruction = texts.fill("probability_question", question=question)
        results.append(await ask(shared, instruction, extra={label: claim.text}, model=model, step=step))
    first, used = results[0]
    if len(results) == 1 or first.value is None:
        return first, used
    second, used_second = results[1]
    used = used.add(used_second)
    if second.value is None:
        return second, used
    value = (first.value + 1 - second.value) / 2
    mass = min(first.mass or 0.0, second.mass or 0.0)
    return Readout(value=value, distribution={"yes": value, "no": 1 - value}, mass=mass), used


async def _weakest(
    calls: ModelCalls,
    rubric: Rubric,
    checks: Checks,
    claims: Sequence[Claim],
    source: str | None,
    context: Mapping[str, str],
    model: str | None,
    step: str,
) -> tuple[Readout, str, Usage]:
    """An item's least P(yes) over its claims, and the claim it came from. The first unanswered claim is the
    item's readout: the metric is then unscored, so its other claims need not be asked."""
    usage = Usage()
    found: tuple[Readout, str] | None = None
    for claim in claims:
        readout, used = await check_claim(calls, rubric, checks, claim, source, context, model, step)
        usage = usage.add(used)
        # On a tie the later claim is quoted: a part of the sentence points closer than the sentence.
        if found is None or readout.value is None or readout.value <= (found[0].value or 0.0):
            found = (readout, claim.text)
        if readout.value is None:
            break
    assert found is not None, "every item has a claim"
    return found[0], found[1], usage


async def _support(
    calls: ModelCalls,
    rubric: Rubric,
    item: Item,
    source: str | None,
    reading: notes.SourceReading,
    context: Mapping[str, str],
    model: str | None,
    step: str,
) -> tuple[Readout, str, Certain, Usage]:
    """P(the source supports a sentence), the claim it came from, and what the sentence was read to get wrong with
    no model: quantities the source never states, or a fact it contradicts (engine/contradicted.py). Then the
    answer is not the model's but that reading: the sentence is unsupported (P 0) and no call is made, so the
    explanation can say which quantity or fact."""
    if any(certain := read_certain(item.text, reading)):
        return Readout(value=0.0, distribution={"yes": 0.0, "no": 1.0}), item.text, certain, Usage()
    readout, weakest, used = await _weakest(calls, rubric, _SUPPORTED, item.claims, source, context, model, step)
    return readout, weakest, certain, used


async def _or_supported(
    calls: ModelCalls,
    rubric: Rubric,
    consistent: Readout,
    sentence: str,
    source: str,
    reading: notes.SourceReading,
    context: Mapping[str, str],
    model: str | None,
    step: str,
) -> tuple[Readout, Usage]:
    """A `consistent` check of a rubric that states `unless_supported`: P(no mistake) is the greater of P(both
    true) and P(the source supports the sentence), asked as the `supported` kind asks it, so a rubric that also
    has an accuracy metric finds every answer remembered (ModelCalls). The 1.5B model calls most true sentences
    of a longer text inconsistent with what comes before (P(mistake) 0.6-0.85), and the expected count grew with
    the text until no good assessment of 50-90 words passed; a sentence the transcript supports is not the one in
    error (bench/README.md, "Coherence unless supported")."""
    item = supported_item(sentence, source)
    support, _, certain, used = await _support(calls, rubric, item, source, reading, context, model, step)
    if any(certain):
        return consistent, used  # read as unsupported with no model: its support is 0, the lesser P stands
    if support.value is None:
        return support, used
    assert consistent.value is not None
    value = max(consistent.value, support.value)
    mass = min(consistent.mass or 0.0, support.mass or 0.0)
    return Readout(value=value, distribution={"yes": value, "no": 1 - value}, mass=mass), used


def _no_items(rubric: Rubric, metric: Metric, checks: Checks) -> MetricScore:
    """Nothing to check (a one-sentence text has no other sentence to contradict; a source with no statements):
    no item can be a mistake, which the anchors score as their best."""
    best = Readout(value=rubric.scale.from_share(1.0), distribution={}, mass=None)
    return metric_score(metric.id, metric.name, best, f"nothing to check, so no {_what(checks, rubric)}")


def _scored(
    rubric: Rubric,
    metric: Metric,
    checks: Checks,
    items: Sequence[str],
    p_mistake: Sequence[float],
    cut_short: bool,
    has_source: bool,
    contradicted: int = 0,
) -> MetricScore:
    """`items` are what each check found weakest, verbatim: the sentence, or the claim of it that decided;
    `contradicted` of the facts they state the source contradicts, which costs an anchor each where the anchors
    count no mistakes (engine/certain.py)."""
    floor = prompts.check_floor(checks.kind)
    expected = sum(counted(p, floor) for p in p_mistake)
    points = count_anchors(metric.levels)
    cut = prompts.finding_cut(checks.kind, LIKELY)
    if checks.kind == "repeated" and checks.centre is not None and checks.spread is not None:
        score = rubric.scale.from_share(placed(-expected, -checks.centre, checks.spread))
        how = (
            f"{expected:.1f} sentences' worth restate what comes before, of {len(items)} checked ({checks.centre:g} "
            f"is the middle of the scale, {checks.spread:g} its spread)"
        )
    elif checks.centre is not None and checks.spread is not None:
        named_share = 1 - sum(p_mistake) / len(p_mistake)
        score = rubric.scale.from_share(placed(named_share, checks.centre, checks.spread))
        how = (
            f"{named_share:.2f} of the {len(items)} {checks.per}s' worth named ({checks.centre:g} is the middle of "
            f"the scale, {checks.spread:g} its spread)"
        )
    elif checks.enough is not None:
        backed = sum(max(0.0, 1 - p / cut) for p in p_mistake)
        score = rubric.scale.from_share(min(1.0, backed / checks.enough))
        how = f"{backed:.2f} paragraphs' worth named, of the {checks.enough:g} that earn the best score"
    elif points is not None:
        score = score_from_mistakes(expected, points)
        how = f"{expected:.1f} expected mistakes in {len(items)} checks"
    else:
        share = 1 - expected / len(items)
        score = rubric.scale.from_share(share)
        how = f"{share:.2f} of {len(items)} checks passed (mean P)"
        score, how = at_most_anchor(rubric.scale, metric, score, contradicted, how)
    likely = sorted(
        ((p, item) for p, item in zip(p_mistake, items, strict=True) if p >= cut), key=lambda pair: -pair[0]
    )
    findings = [Finding(item=item, p_mistake=round(p, 4)) for p, item in likely]
    quoted = "; ".join(finding.quoted(QUOTE_CHARS) for finding in findings[:3])
    explanation = f"{how}; {_what(checks, rubric, has_source)}: {quoted or 'none likely'}"
    if cut_short:
        explanation += f" (only the first {MAX_ITEMS} items were checked)"
    result = metric_score(metric.id, metric.name, Readout(value=score, distribution={}, mass=None), explanation)
    return result.model_copy(
        update={"findings": findings, "expected_mistakes": round(expected, 4), "checks": len(items)}
    )
