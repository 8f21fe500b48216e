"""judge_rag_answer's completeness, read against the judge's own answer: does the answer state everything that the
judge, answering the question from the passages alone (`own_answer.py`), found?

Asked the dimension's own question ("Does the answer cover what the question needs?"), the 1.5B default gives an
answer that leaves part of the question unanswered nearly the P(yes) of a complete one, so a partial answer could
outrank a complete one on the overall score. Asked the concrete question of the clinical `covered` check instead,
with the judged answer as the document and the judge's own answer as the claim, it tells them apart. Measured on
the tuning questions of bench/data/rag_partial_dev.jsonl (12 two- and three-part questions, a complete and a
partial answer each, both faithful and cited; bench/README.md, "RAG: partial answers"): the complete answer read the
higher P(yes) in 12 of 12 with a mean gap of 0.41, against 11 of 12 and 0.04 for the dimension's question.

The question is shown above the claim (since rag-answer 1.2.0), so the model weighs the parts the question asks for
over a detail the own answer adds. Read on all 48 dev questions of that set in one run (bench/README.md, "RAG:
partial answers, the question shown"): with the question the complete answer's completeness is the higher in 47 of
48 (45 without it) and, recomputed into the overall, it ranks first in 46 (43 without it). On 12 questions written
after the choice both readings rank it first in 10, and end to end the difference is within one run's noise.

Without an own answer (the call failed, or the model gave none) the caller reads the dimension's question as before.
The check's prompt does not share the passages' prefix, so it is asked after every check that does, and in a slot
of its own on the embedded model (`purpose="apart"`): in the checks' slot it pushed the passages out of the prompt
cache, and the question's next answer took 2 s longer to judge (bench/README.md, "RAG: partial answers").

When the question opens with a yes/no part, the answer's reading of that part (`yes_no_part.py`) counts too, and
the lower of the two readings is the metric: an answer that leaves out the yes/no part, or the rest, is not
complete. The lower, not the mean: recomputed into the overall on the 18 yes/no questions of the first run, the
lower put the complete answer first in 9, the mean in 8, the own-answer check alone in 7 (bench/README.md, "A
yes/no part as its two statements").
"""

from __future__ import annotations

from gavel.tools.common import one_line
from gavel.tools.engine import prompts
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import document_prefix, metric_score, yes_no
from gavel.tools.engine.scores import Finding, MetricScore, Usage
from gavel.tools.rag import yes_no_part
from gavel.tools.rag.own_answer import MAX_CHARS, OwnAnswer
from gavel.tools.rubrics import Metric, Rubric

# Below this P(yes) the answer more likely misses part of the judge's own answer than not: the own answer is then
# named as what the answer misses (`findings`), for the caller or a rewrite to act on.
MISSING_BELOW = 0.5


async def completeness(
    judge: Judge,
    rubric: Rubric,
    metric: Metric,
    answer: str,
    own: OwnAnswer,
    model: str | None,
    question: str,
    part: yes_no_part.YesNoPart | None = None,
) -> tuple[MetricScore, Usage] | None:
    """The metric from P(the answer states everything the judge's own answer says), and with a yes/no part
    (`part`) from the lower of that and the part's reading; None without an own answer."""
    if own.text is None:
        return None
    if part is None:
        return await _read(judge, rubric, metric, answer, own.text, model, question, None)
    statements, asked = await part.get()
    # One answer's checks at a time: each reads the answer as its document in the slot apart, so asked back to back
    # they evaluate it once. Interleaved with a batch's other answers, each evaluated it anew (about 100 prompt
    # tokens a check on the dev questions' answers).
    async with part.in_turn:
        score, used = await _read(judge, rubric, metric, answer, own.text, model, question, statements)
    return score, asked.add(used)


async def _read(
    judge: Judge,
    rubric: Rubric,
    metric: Metric,
    answer: str,
    own: str,
    model: str | None,
    question: str,
    statements: yes_no_part.Statements | None,
) -> tuple[MetricScore, Usage]:
    """The own-answer check, then with `statements` the part's reading of the answer."""
    readout, used = await yes_no(
        judge.calls,
        document_prefix(answer, question),
        prompts.prompt_set().text["check_covered"],
        extra={"claim": own},
        model=model,
        step=f"{metric.name}: the answer against the judge's own answer",
        purpose="apart",
    )
    if readout.value is None:
        return metric_score(metric.id, metric.name, readout, ""), used
    p_yes = readout.value
    explanation = (
        f"P(yes) {p_yes:.2f} that the answer states everything the judge's own answer from the passages says "
        # Whole (an own answer is at most MAX_CHARS): it is what the score rests on, and it can change with the
        # prompt cache's state (bench/README.md, "The judge's own answer depends on what llama.cpp decoded").
        f"(“{one_line(own, MAX_CHARS)}”)"
    )
    findings = [Finding(item=own, p_mistake=round(1 - p_yes, 4))] if p_yes < MISSING_BELOW else []
    placed = readout
    if statements is not None and statements.true is None:
        explanation += f"; the question's yes/no part was not read: {statements.reason}"
    elif statements is not None:
        reading, read = await yes_no_part.read_answer(judge, statements, answer, question, model)
        used = used.add(read)
        if isinstance(reading, Readout):  # the metric rests on this reading too: without it, no score
            return metric_score(metric.id, metric.name, reading, ""), used
        explanation += "; " + _part_explained(reading)
        if reading.share < MISSING_BELOW:
            findings.append(Finding(item=statements.true, p_mistake=round(1 - reading.share, 4)))
        if reading.share < p_yes:
            # The part decides: the own-answer check's distribution is not what the score was read from.
            placed = Readout(value=reading.share)
    share = placed.value
    assert share is not None
    placed = Readout(value=rubric.scale.from_share(share), distribution=placed.distribution, mass=placed.mass)
    score = metric_score(metric.id, metric.name, placed, explanation)
    if findings:
        score = score.model_copy(update={"findings": findings})
    return score, used


def _part_explained(reading: yes_no_part.PartReading) -> str:
    s = reading.statements
    if reading.opening is not None:
        given = s.true if reading.p_true else s.false
        return (
            f"the question's yes/no part: the answer opens with “{reading.opening}”, which gives “{given}” (the "
            f"passages state “{s.true}”, {s.p_true:.2f} against {s.p_false:.2f}), read as {reading.share:.2f}; the "
            "lower of the two readings is the score"
        )
    return (
        f"the question's yes/no part: P {reading.p_true:.2f} that the answer states “{s.true}” (what the passages "
        f"state, {s.p_true:.2f} against {s.p_false:.2f}) and {reading.p_false:.2f} that it states “{s.false}”, "
        f"read as {reading.share:.2f}; the lower of the two readings is the score"
    )
