"""One-token calls read from the model's token probabilities: a Yes/No question read as P(yes), or a scale of
single digits read as the probability-weighted mean of the digits (G-Eval). Nothing is generated.

Every check of one judgment shares one prompt prefix (`Prefix`: the system text, then the source and the context
in fenced blocks); only the judged text (or the sentence checked) and the question come after it, so llama.cpp's
and Ollama's prompt caches evaluate the long material once per judgment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage, ChatReply, ChatRequest
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.logprobs import (
    TOP_LOGPROBS,
    Readout,
    failure_code,
    named_probability,
    scale_expectation,
    yes_probability,
)
from gavel.tools.engine.scores import MetricScore, SampleRecord, Usage
from gavel.tools.errors import BackendError
from gavel.tools.rubrics import Rubric


@dataclass(frozen=True)
class Prefix:
    """The shared start of every check's prompt in one judgment: the system text, the source, then the context."""

    blocks: dict[str, str]
    section: str
    system: str = "probability_system"  # the judge.toml entry the checks' system message is


def prefix(rubric: Rubric, source: str | None, context: Mapping[str, str]) -> Prefix:
    """The source first, then the context (the question): what the checks of one judgment, and the answers
    to one question, share. The judged text follows in each check's own part."""
    blocks: dict[str, str] = {}
    if source:
        blocks[rubric.prompt.source_label] = source
    blocks.update({k: v for k, v in context.items() if v})
    return Prefix(blocks, "\n\n".join(prompts.fenced(label, text) for label, text in blocks.items()))


def document_prefix(document: str | None, question: str | None) -> Prefix:
    """The probe's layout (../shared/probes/yes_probability.py): a fact checker's system text, the document fenced,
    then the question on one line.

    Measured on the embedded default (first 20 HaluEval dev pairs, one check per answer): AUROC 0.84, pairwise 0.85
    with the fact checker's system text (`document_system`), against 0.78 and 0.80 in the same layout with the
    general `probability_system`, and 0.78 and 0.85 with that and the passages and question fenced under the
    rubric's labels. The system text decides most of it.
    """
    blocks = {k: v for k, v in {"document": document, "question": question}.items() if v}
    parts = [prompts.fenced("Document", document)] if document else []
    if question:
        parts.append(prompts.inline("Question", question))
    return Prefix(blocks, "\n\n".join(parts), system="document_system")


def user_prompt(
    shared: Prefix, instruction: str, extra: Mapping[str, str] | None = None, *, question_first: bool = False
) -> str:
    """The shared prefix, then the judged text (`extra`) and the question. With `question_first` the question
    comes before the judged text and a short reminder of the answer's form after it: for checks that ask one
    question of many claims, so the question joins the cached prefix and each check evaluates its claim alone."""
    parts = [shared.section] if shared.section else []
    fenced = [prompts.fenced(label, text) for label, text in (extra or {}).items()]
    if question_first:
        return "\n\n".join([*parts, instruction, *fenced, prompts.prompt_set().text["answer_yes_no"]])
    return "\n\n".join([*parts, *fenced, instruction])


async def ask(
    calls: ModelCalls,
    user: str,
    tally: Tally,
    *,
    model: str | None,
    values: Sequence[int] | None = None,
    system: str = "probability_system",
    step: str = "a yes/no check",
    messages: tuple[ChatMessage, ...] | None = None,
    purpose: Literal["judge", "screen", "apart"] = "judge",
    names: bool = False,
) -> Readout:
    """One one-token call; its first token read as P(yes), or as the expectation over `values`, or with `names` as
    P(it is not "None") (`named_probability`). `step` names it in progress. `messages`: a whole conversation to ask
    instead of `system` and `user` (the injection screen's worked examples)."""
    request = ChatRequest(
        messages=messages or (ChatMessage("system", prompts.prompt_set().text[system]), ChatMessage("user", user)),
        temperature=0.0,
        seed=calls.config.seed,
        max_tokens=1,
        top_k=None,
        top_p=None,
        model=model,
        top_logprobs=TOP_LOGPROBS,
        purpose=purpose,
    )
    reply = await answered(calls, request, tally, step)
    if isinstance(reply, Readout):
        return reply
    if names:
        return named_probability(reply.top_logprobs)
    return scale_expectation(reply.top_logprobs, values) if values else yes_probability(reply.top_logprobs)


# What a failed call's reason says before the backend's message (a too-long prompt's message says it all).
_FAILED = {"timeout": "the model call timed out: ", "backend_error": "the model call failed: "}


async def answered(calls: ModelCalls, request: ChatRequest, tally: Tally, step: str) -> ChatReply | Readout:
    """One readout call's reply, or the failed readout that says why there is none (a timeout, a backend error)."""
    try:
        return await calls.call(request, tally, step=step)
    except BackendError as exc:
        code = failure_code(exc)
        return Readout.failed(code, f"{_FAILED.get(code, '')}{exc}")


def unanswered(metric_id: str, name: str, readouts: Sequence[Readout]) -> MetricScore | None:
    """The metric unscored by the first of its checks the model did not answer, with that check's reason and code;
    None when every check was answered."""
    at = next((i for i, r in enumerate(readouts) if r.value is None), None)
    if at is None:
        return None
    failed = readouts[at]
    reason = f"check {at + 1} of {len(readouts)} was not answered: {failed.reason}"
    return metric_score(metric_id, name, Readout.failed(failed.reason_code or "backend_error", reason), "")


def metric_score(metric_id: str, name: str, readout: Readout, explanation: str) -> MetricScore:
    """A metric from one readout: scored with Gavel's explanation, or unscored with the reason and its code."""
    if readout.value is None:
        return MetricScore(
            metric=metric_id, name=name, score=None, status="unscored", reason=readout.reason,
            samples=[SampleRecord(score=None, error=readout.reason)], readout="probability",
            distribution=readout.distribution or None, answer_mass=readout.mass, reason_code=readout.reason_code,
        )  # fmt: skip
    return MetricScore(
        metric=metric_id, name=name, score=readout.value, status="scored", explanation=explanation,
        samples=[SampleRecord(score=readout.value, explanation=explanation)], spread=0.0, readout="probability",
        distribution=readout.distribution, answer_mass=readout.mass,
    )  # fmt: skip


async def yes_no(
    calls: ModelCalls,
    shared: Prefix,
    instruction: str,
    *,
    extra: Mapping[str, str] | None = None,
    model: str | None = None,
    step: str = "a yes/no check",
    question_first: bool = False,
    purpose: Literal["judge", "apart"] = "judge",
) -> tuple[Readout, Usage]:
    """One Yes/No check after the judgment's shared prefix, read as P(yes). `step` names it in progress;
    `question_first` as in `user_prompt`; `purpose` as in `ChatRequest`."""
    tally = Tally()
    user = user_prompt(shared, instruction, extra, question_first=question_first)
    readout = await ask(calls, user, tally, model=model, system=shared.system, step=step, purpose=purpose)
    return readout, tally.usage


async def named(
    calls: ModelCalls, instruction: str, label: str, text: str, *, model: str | None, step: str
) -> tuple[Readout, Usage]:
    """One which-question about `text`, read as P(the reply names something): 1 - P(it starts "None")."""
    tally = Tally()
    user = user_prompt(Prefix({}, ""), instruction, {label: text})
    readout = await ask(calls, user, tally, model=model, system="named_system", step=step, names=True)
    return readout, tally.usage
