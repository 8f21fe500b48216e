"""A rubric metric read from the likelihood of the text itself: how much more likely the model finds the text
after the source than without it.

A small model asked "how natural is this reply, 1 to 5?" gives every reply the same digit. It does know how
likely each reply is as the next turn. The log-likelihood of the text after the source, minus its log-likelihood
with the source left out, is the information the source gives about the text (pointwise mutual information, in
nats, summed over the text's tokens): a reply that takes up what was said gains much, a generic or off-topic
reply gains little, and the text's own fluency cancels out. On the Topical-Chat dev conversations this follows
people's naturalness, coherence, engagingness and overall ratings where no yes/no question or digit did
(bench/README.md, "Dialogue: likelihood").

The nats are placed on the scale by a logistic curve whose centre and spread the rubric states (`Checks`); the
explanation gives the nats, so nothing is hidden in the placing. The model generates nothing: each token of the
text is read where it stands. A backend that cannot score a given text answers without `text_logprobs`, and the
metric is then unscored with `text_not_scored` (the caller falls back to the metric's plain readout); the process
remembers it (`Probes.scores_text`), so later judgments on that backend fall back without asking.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import anyio

from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage, ChatRequest
from gavel.tools.engine.calls import ModelCalls, Tally
from gavel.tools.engine.conversations import conversation_of
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import answered, metric_score
from gavel.tools.engine.scores import Finding, MetricScore, SampleRecord, Usage
from gavel.tools.engine.sentence_gain import sentence_gains
from gavel.tools.guards import break_chat_markup
from gavel.tools.rubrics import Metric, Rubric

QUOTE_CHARS = 80  # a sentence quoted in an explanation


def placed(nats: float, centre: float, spread: float) -> float:
    """The nats' share of the scale, from its worst end (0) to its best (1), on a logistic curve."""
    z = (nats - centre) / spread
    # Written both ways so that neither exp overflows for a text far from the centre.
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def conversation(system: str, source: str, label: str, turns: int) -> tuple[ChatMessage, ...]:
    """A conversation source's last `turns` turns as the chat's own turns, its last line the partner's (`user`) so
    that the judged text is the reply. A '<label>:' first line is left out, and so is what follows the first blank
    line (a fact): the reading is then of how the reply follows from what was said. On the Topical-Chat dev
    conversations the last 3 turns alone followed people's coherence at Spearman 0.66 on the first 6 conversations,
    all turns with the fact 0.30, and the conversation as one user message 0.14 (bench/README.md, "Dialogue:
    likelihood"). A source laid out another way (`conversations.conversation_of`) gives its turns the same way."""
    parsed = conversation_of(source)
    if parsed is not None:
        return as_turns(system, parsed[0][-turns:])
    lines = [line.strip() for line in source.strip().partition("\n\n")[0].splitlines() if line.strip()]
    if lines and lines[0].lower() == f"{label.lower()}:":
        lines = lines[1:]
    lines = lines[-turns:]
    if not lines:
        return (ChatMessage("system", system), ChatMessage("user", source))
    return as_turns(system, lines)


def as_turns(system: str, lines: Sequence[str]) -> tuple[ChatMessage, ...]:
    """The lines as the chat's own turns after the system text, the last one the partner's (`user`), so that the
    judged text is the reply."""
    last = len(lines) - 1
    turns = (ChatMessage("user" if (last - i) % 2 == 0 else "assistant", line) for i, line in enumerate(lines))
    return (ChatMessage("system", system), *turns)


@dataclass(frozen=True)
class Readings:
    """The text's log-probabilities after each layout, one by one, in the layouts' order (`entries`); its tokens;
    and how many of them have no log-probability of their own (a token ending inside a character, which
    llama.cpp reports only with the token that completes it). Those are left out of every sum alike, so a
    difference of two sums still compares the same tokens. `ends`: where each entry's bytes end in the scored
    text (empty when the backend does not say)."""

    entries: tuple[tuple[float, ...], ...]
    tokens: int
    unread: int = 0
    ends: tuple[int, ...] = ()

    @property
    def sums(self) -> list[float]:
        """The text's summed log-probability after each layout."""
        return [math.fsum(entry) for entry in self.entries]

    def counted(self) -> str:
        """The token count for an explanation, with the tokens left out when there are any."""
        if not self.unread:
            return f"{self.tokens} tokens"
        return f"{self.tokens} tokens, {self.unread} of them inside characters split across tokens and left out"


async def log_likelihood(
    calls: ModelCalls, messages: tuple[ChatMessage, ...], text: str, tally: Tally, model: str | None, step: str
) -> Readings | Readout | None:
    """The text's summed log-probability after `messages` (None when the backend does not score a given text),
    or the failed readout when the call failed."""
    request = ChatRequest(
        messages=messages, temperature=0.0, max_tokens=1, top_logprobs=1, model=model, score_text=text
    )
    reply = await answered(calls, request, tally, step)
    if isinstance(reply, Readout):
        return reply
    if reply.text_logprobs is None:
        return None
    if not all(math.isfinite(logprob) for logprob in reply.text_logprobs):
        # A NaN or infinite log-probability would carry through every sum into the score.
        return Readout.failed("no_logprobs", f"{step}: the backend gave a log-probability that is not a finite number")
    read, unread = len(reply.text_logprobs), reply.text_unread
    if unread > read:
        # Most of the text would be missing from the sum: the reading would no longer be of this text.
        reason = (
            f"{step}: the backend gave log-probabilities for only {read} of the text's {read + unread} tokens; the "
            "others end inside characters split across tokens (emoji, some CJK characters)"
        )
        return Readout.failed("no_logprobs", reason)
    return Readings((reply.text_logprobs,), read + unread, unread, reply.text_ends)


async def score_likelihood(
    calls: ModelCalls,
    rubric: Rubric,
    metric: Metric,
    text: str,
    source: str | None,
    model: str | None,
) -> tuple[MetricScore, Usage]:
    """The metric from the nats the source adds to the text's log-likelihood."""
    checks = metric.checks
    assert checks is not None and checks.centre is not None and checks.spread is not None
    subject, source_label = rubric.prompt.subject, rubric.prompt.source_label
    if not (source and source.strip()):
        reason = f"{metric.name} reads how much the {source_label} explains the {subject}; give source"
        return metric_score(metric.id, metric.name, Readout.failed("source_missing", reason), ""), Usage()
    if calls.probes.scores_text(calls.backend) is False:
        return not_scored(metric, subject), Usage()
    texts = prompts.prompt_set()
    labels = {"subject": subject, "source_label": source_label}
    system = texts.fill("likelihood_system", **labels)
    without = (ChatMessage("system", system), ChatMessage("user", texts.fill("likelihood_without", **labels)))
    if checks.turns is not None:
        given = conversation(system, source, source_label, checks.turns)
    else:
        given = (ChatMessage("system", system), ChatMessage("user", source))
    tally = Tally()
    read = await read_or_unscored(calls, {"after": given, "without": without}, text, model, metric, subject, tally)
    if isinstance(read, MetricScore):
        return read, tally.usage
    after, alone = read.sums
    nats = after - alone
    score = rubric.scale.from_share(placed(nats, checks.centre, checks.spread))
    explanation = (
        f"the {source_label} makes the {subject} {nats:+.1f} nats more likely ({read.counted()}; "
        f"{checks.centre:g} nats is the middle of the scale, {checks.spread:g} nats its spread)"
    )
    findings = _weak_sentences(text, read, checks.sentence_cut) if checks.sentence_cut is not None else None
    if findings:
        quoted = "; ".join(finding.quoted(QUOTE_CHARS) for finding in findings[:3])
        explanation += f"; under {checks.sentence_cut:g} nats: {quoted}"
    readout = Readout(value=score, distribution={}, mass=None)
    scored = metric_score(metric.id, metric.name, readout, explanation)
    return scored.model_copy(update={"findings": findings}) if findings is not None else scored, tally.usage


def _weak_sentences(text: str, read: Readings, cut: float) -> list[Finding] | None:
    """The sentences the source makes fewer than `cut` nats more likely, least first; None when the readings
    cannot be told apart by sentence (a backend that gives no token offsets)."""
    if len(read.entries) != 2 or not read.ends:
        return None
    # The scored text is the one sent: chat markup in it broken up as in every call (engine/calls.py).
    gains = sentence_gains(break_chat_markup(text), read.ends, *read.entries)
    if gains is None:
        return None
    weak = sorted((gain for gain in gains if gain.nats < cut), key=lambda gain: gain.nats)
    return [Finding(item=gain.sentence, nats=gain.nats) for gain in weak]


async def read_side_by_side(
    calls: ModelCalls,
    layouts: Mapping[str, tuple[ChatMessage, ...]],
    text: str,
    model: str | None,
    metric_name: str,
    tally: Tally,
) -> Readings | Readout | None:
    """The text read after each layout; the first failed readout, in the layouts' order, when a call failed; None
    when the backend does not score a given text (the probes remember which)."""
    readings: dict[str, Readings | Readout | None] = {}

    async def read(name: str) -> None:
        readings[name] = await log_likelihood(calls, layouts[name], text, tally, model, f"{metric_name}: {name}")

    # Side by side: each reading decodes the whole text token by token, and a backend with free slots (the
    # embedded default) decodes them in one batch. On 2 cores decoding is bound by arithmetic, so a pair takes
    # 1.7-1.9 times one reading rather than the time of one, still less than one after the other (bench/README.md,
    # "Reading a given text faster").
    async with anyio.create_task_group() as tg:
        for name in layouts:
            tg.start_soon(read, name)
    done: list[Readings] = []
    for name in layouts:
        reading = readings[name]
        if isinstance(reading, Readout):
            return reading
        if reading is not None:
            done.append(reading)
    calls.probes.learned_scores_text(calls.backend, len(done) == len(layouts))
    if len(done) != len(layouts):
        return None
    # Every reading forces the same tokens, so they leave out the same ones.
    return Readings(
        tuple(entry for reading in done for entry in reading.entries),
        max(reading.tokens for reading in done),
        max(reading.unread for reading in done),
        done[0].ends,
    )


async def read_or_unscored(
    calls: ModelCalls,
    layouts: Mapping[str, tuple[ChatMessage, ...]],
    text: str,
    model: str | None,
    metric: Metric,
    subject: str,
    tally: Tally,
) -> Readings | MetricScore:
    """The text read after each layout (`read_side_by_side`), or the metric unscored: with the failed call's reason,
    or `text_not_scored` where the backend cannot score a given text."""
    read = await read_side_by_side(calls, layouts, text, model, metric.name, tally)
    if isinstance(read, Readout):
        return metric_score(metric.id, metric.name, read, "")
    return not_scored(metric, subject) if read is None else read


def not_scored(metric: Metric, subject: str) -> MetricScore:
    reason = f"{metric.name} reads the likelihood of the {subject}, which this backend cannot score"
    return metric_score(metric.id, metric.name, Readout.failed("text_not_scored", reason), "")


def blended(plain: MetricScore, likely: MetricScore) -> MetricScore:
    """A metric's own readout and a likelihood reading of it (a reply's, engine/reply_likelihood.py), weighted alike;
    unscored when either is, and the plain readout alone where the backend cannot score a given text."""
    if likely.reason_code == "text_not_scored" or plain.score is None:
        return plain
    if likely.score is None:
        return likely
    score = (plain.score + likely.score) / 2
    explanation = f"{score:.2f}, the mean of two readings: {plain.explanation}; and {likely.explanation}"
    samples = [SampleRecord(score=score, explanation=explanation)]
    return plain.model_copy(update={"score": score, "explanation": explanation, "samples": samples})
