"""A question that opens with a yes/no part ("Is Iceland a member of the EU, and what currency does it use?"):
completeness also asks whether the answer gives that part's answer, read as a contrast of two statements.

The completeness check reads one claim, the judge's own answer, against the judged answer, and the 1.5B default
reads a yes/no part by its words: on the Iceland question an answer that says nothing of EU membership read 0.83
that it states everything. On the blind partial-answer sets the complete answer lost 5 of the 6 questions with a
yes/no part, against 2 of 18 others (bench/README.md, "RAG: partial answers").

So the part is rewritten as its two statements ("Ostriches can fly." / "Ostriches cannot fly."), from the question
alone, by worked examples (judge.toml's [[yes_no_statements_example]]). Which one is true is read from the passages:
P(the passages state it) for each, the fact checker's `check_covered` question. The model reads a negated statement
as less supported when asked `rag_sentence` with the question shown, and was wrong on 3 of the 6 dev questions that
way; asked this way it was right on 6 of 6 with gaps of 0.29–0.89. Then each judged answer is asked whether it
states each statement (unless its own opening "Yes," or "No," says which, `opening_answer`), and the difference,
P(true) − P(false), is the reading: neither P alone is (the model reads
"The peanut is a true nut" as stated by "No, the peanut is a legume rather than a true nut" at 0.81), but with
hand-written statements the contrast was the higher for the complete answer on 6 of 6. End to end on two sets of 12
yes/no questions written blind and read once, the complete answer ranks first in 8 and 10, against 6 and 9 with the
own-answer check alone in the same runs (bench/README.md, "A yes/no part as its two statements").

Neither the statements nor which is true can be steered by a judged answer: they see the question and the
passages only. They are asked once per request (a batch's answers share them), before any claim is checked: the
judge's own answer (`own_answer.py`) opens such a question with its own "Yes" or "No", and where that is the one the
passages' reading rejects, the statement they settle replaces the own answer's first sentence (`aligned`). On the
42 yes/no dev questions read with 1.3.x the two disagreed on 5, and the passages' reading was the right one on all
5; the own answer then hinted every claim check with the wrong answer, and the complete answer lost all 5. Where the
passages do not settle the part the own answer is kept as it is: leaving its "Yes" or "No" out ranked no `fresh10`
question differently and lowered two complete answers' accuracy (bench/README.md, "1.4.0").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import anyio

from gavel.tools.common import one_line
from gavel.tools.engine import prompts
from gavel.tools.engine.backend import ChatMessage, ChatRequest
from gavel.tools.engine.calls import Tally
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.logprobs import Readout
from gavel.tools.engine.one_token import Prefix, document_prefix, yes_no
from gavel.tools.engine.scores import Usage
from gavel.tools.errors import BackendError, BackendTimeout
from gavel.tools.rag.asked_once import AskedOnce
from gavel.tools.rag.own_answer import OwnAnswer

if TYPE_CHECKING:
    from gavel.tools.rag.prepare import Prepared

# English yes/no questions open with an auxiliary verb. Only an opening part is read: on a yes/no part after a
# wh-part ("What is the capital of Peru, and is it on the coast?") the examples made the model answer the question.
_AUXILIARIES = (
    "is", "are", "was", "were", "am", "do", "does", "did", "can", "could", "has", "have", "had", "will", "would",
    "should", "shall", "may", "might", "must",
)  # fmt: skip
_OPENING = re.compile(rf"^\W*({'|'.join(_AUXILIARIES)})\b", re.IGNORECASE)
# Two statements of a part are under 50 tokens on the dev questions; the examples end the reply after them.
MAX_TOKENS = 64
# The "No:" statement must be the "Yes:" one negated: at most this many words of either missing from the other, once
# negations and auxiliary verbs are set aside (a verb's form may change: "sank" / "did not sink"). Read alone, the
# model wrote 3 of 30 dev questions' parts as two unrelated statements ("Bats are blind." / "Bats do not find their
# prey in the dark."), 4 to 8 words apart, whose contrast says nothing; the other 27 are 0 or 1 apart. Not tuned on
# any ranking.
WORDS_APART = 2
_SET_ASIDE = frozenset({*_AUXILIARIES, "be", "been", "not", "no", "never", "cannot"})
# Below this gap between the passages' two readings the passages do not settle which statement is true, and the
# part is not read. Not tuned: the smallest gap on the six dev questions was 0.29.
SETTLED_BY = 0.2


def opens_with_yes_no(question: str) -> bool:
    return _OPENING.match(question) is not None


@dataclass(frozen=True)
class Statements:
    """The yes/no part's true statement and its negation, or why there are none."""

    true: str | None
    false: str | None
    p_true: float | None = None  # P(the passages state it)
    p_false: float | None = None
    reason: str | None = None
    failed: bool = False  # none because a model call or reading failed (perhaps only this time)


@dataclass(frozen=True)
class PartReading:
    """One answer's reading of the part: P(it states the true statement) and P(it states the false one)."""

    statements: Statements
    p_true: float
    p_false: float
    # The answer's own opening "Yes" or "No", where it was read from the text instead of asked (`opening_answer`).
    opening: str | None = None

    @property
    def share(self) -> float:
        """(1 + P(true) − P(false)) / 2: 1 when it states the true one only, 0 when it states the false one only."""
        return (1 + self.p_true - self.p_false) / 2


class YesNoPart(AskedOnce[Statements]):
    """The statements for one request, asked at most once however many answers await them."""

    def __init__(self, judge: Judge, passages: str, question: str, model: str | None) -> None:
        super().__init__()
        self._judge, self._passages, self._question, self._model = judge, passages, question, model
        # Held by one answer's completeness checks at a time (coverage.py): they share that answer's prompt prefix.
        self.in_turn = anyio.Lock()

    async def _ask(self, tally: Tally) -> Statements:
        written = await self._write(tally)
        if written.reason is not None:
            return written
        settled, used = await self._settle(written)
        tally.merge(used)
        return settled

    async def _write(self, tally: Tally) -> Statements:
        calls = self._judge.calls
        request = ChatRequest(
            messages=messages(self._question),
            temperature=0.0,
            seed=calls.config.seed,
            max_tokens=MAX_TOKENS,
            model=self._model,
            # A generation slot, as the own answer's: the slot apart holds one-token checks, some of them the other
            # answers' of a batch, asked at the same time.
        )
        try:
            reply = await calls.call(request, tally, step="the question's yes/no part as two statements")
        except BackendTimeout as exc:
            return Statements(None, None, reason=f"the model call timed out: {exc}", failed=True)
        except BackendError as exc:
            return Statements(None, None, reason=f"the model call failed: {exc}", failed=True)
        return parse(reply.text)

    async def _settle(self, written: Statements) -> tuple[Statements, Usage]:
        """Which statement the passages state: the written "yes" one is `true` until read otherwise."""
        assert written.true is not None and written.false is not None
        yes, no, usage = await _pair(
            self._judge, document_prefix(self._passages, None), written.true, written.false, self._model,
            step="the yes/no part against the passages", purpose="judge",
        )  # fmt: skip
        if yes.value is None or no.value is None:
            why = yes.reason if yes.value is None else no.reason
            return Statements(None, None, reason=f"the passages' reading failed: {why}", failed=True), usage
        if abs(yes.value - no.value) < SETTLED_BY:
            reason = (
                f"the passages do not settle it (P {yes.value:.2f} for “{written.true}”, {no.value:.2f} for "
                f"“{written.false}”)"
            )
            return Statements(None, None, reason=reason), usage
        if yes.value > no.value:
            return Statements(written.true, written.false, yes.value, no.value), usage
        return Statements(written.false, written.true, no.value, yes.value), usage


# An own answer that opens with its yes/no answer ("No, they cannot fly.", "Yes."), and where its first sentence ends.
_OWN_OPENING = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_NEGATIONS = frozenset({"not", "no", "never", "cannot", "none", "nor"})


def aligned(own: OwnAnswer, statements: Statements) -> OwnAnswer:
    """The own answer, its first sentence replaced by the true statement where it opens with the other answer; as it
    was otherwise, and when the passages do not settle the part. Which answer the true statement gives is read from
    its negations, not from the "Yes:" or "No:" the model wrote before it: the statements are the part negated, so the
    one with more negations is the "No"."""
    if statements.true is None or statements.false is None or own.text is None:
        return own
    if (opening := _OWN_OPENING.match(own.text)) is None or _gives_true(opening.group(1), statements) is not False:
        return own
    first, *after = _SENTENCE_END.split(own.text, maxsplit=1)
    amended = f"its opening “{one_line(first, 60)}” replaced by the yes/no statement the passages settle"
    return OwnAnswer(" ".join([statements.true, *after]), amended=amended)


# A judged answer that opens with its yes/no answer as a word of its own: "Yes," "No." "No". Stricter than the own
# answer's `_OWN_OPENING`, which the model wrote to answer the question: a judged "No one knows…" is no answer.
_ANSWER_OPENING = re.compile(r"^\W*(yes|no)(?:\s*[,.;:!—–-]|\s*$)", re.IGNORECASE)


def opening_answer(answer: str, statements: Statements) -> tuple[str, bool] | None:
    """The answer's opening "Yes" or "No" and whether it gives the true statement; None when it opens otherwise or
    the statements' negations do not tell which is the "No" (as in `aligned`).

    The answer's own words say which answer it gives; asked instead, the model read "No, the Taj Mahal was built
    not as a palace but as a mausoleum" as stating "…was built as a royal palace" (0.83 against 0.23), and such
    readings lost right answers on `fresh11`–`fresh13` (146, 160, 170). Recomputed from the recorded readings of
    the 98 yes/no questions read since 1.3.0, the complete answer ranks first in 5 more and in none fewer
    (bench/README.md, "1.5.0")."""
    if (opening := _ANSWER_OPENING.match(answer)) is None:
        return None
    gives = _gives_true(opening.group(1), statements)
    return None if gives is None else (opening.group(1), gives)


def _gives_true(word: str, statements: Statements) -> bool | None:
    """Whether an opening "Yes" or "No" gives the true statement; None when the statements' negations do not tell
    which is the "No": they are the part negated, so the one with more negations is."""
    assert statements.true is not None and statements.false is not None
    true_negations, false_negations = _negations(statements.true), _negations(statements.false)
    if true_negations == false_negations:
        return None
    return (word.lower() == "no") == (true_negations > false_negations)


def _negations(text: str) -> int:
    return sum(word in _NEGATIONS for word in re.findall(r"[a-z]+", _contractions_undone(text)))


def messages(question: str) -> tuple[ChatMessage, ...]:
    """The system text, the worked examples as earlier turns, then the question."""
    text = prompts.prompt_set().text
    turns = [ChatMessage("system", text["yes_no_statements_system"])]
    for example in prompts.yes_no_statement_examples():
        turns += [
            ChatMessage("user", prompts.inline("Question", example["question"])),
            ChatMessage("assistant", f"Yes: {example['yes']}\nNo: {example['no']}"),
        ]
    return (*turns, ChatMessage("user", prompts.inline("Question", question)))


# A "Yes:"/"No:" line, in any case, with the markdown a coder model sometimes wraps it in ("**Yes:** ...").
_LINE = re.compile(r"^[\s*_`#>-]*(yes|no)[\s*_`]*:[\s*_`]*(.*?)[\s*_`]*$", re.IGNORECASE)


def parse(reply: str) -> Statements:
    """The first "Yes:" and "No:" lines of the reply; the "Yes:" one is `true` until the passages are read."""
    found: dict[str, str] = {}
    for line in reply.splitlines():
        match = _LINE.match(line)
        if match and match.group(2):
            found.setdefault(match.group(1).lower(), match.group(2))
    yes, no = found.get("yes", ""), found.get("no", "")
    written = one_line(reply, 160)
    if not yes or not no or yes == no:
        return Statements(
            None, None, reason=f"the model did not write the part as two different statements (it wrote “{written}”)"
        )
    if words_apart(yes, no) > WORDS_APART:
        return Statements(
            None, None, reason=f"the model's “No:” statement is not its “Yes:” one negated (it wrote “{written}”)"
        )
    return Statements(yes, no)


def words_apart(one: str, other: str) -> int:
    """How many words one statement has that the other lacks, the larger of the two counts, negations and
    auxiliaries aside."""
    a, b = (_words(text) for text in (one, other))
    return max(len(a - b), len(b - a))


def _words(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", _contractions_undone(text))
    return {word for word in words if word not in _SET_ASIDE}


def _contractions_undone(text: str) -> str:
    """Lower case, with a negation's contraction written out ("can't" -> "can not"), so "not" is a word of its own."""
    return text.lower().replace("can't", "can not").replace("won't", "will not").replace("n't", " not")


async def read_answer(
    judge: Judge, statements: Statements, answer: str, question: str, model: str | None
) -> tuple[PartReading | Readout, Usage]:
    """Whether the answer states each statement: from its opening "Yes" or "No" where it has one (`opening_answer`),
    else as completeness's own check asks it (the answer as the document, the question shown, in the slot apart);
    a failed readout when either could not be read."""
    assert statements.true is not None and statements.false is not None
    if (opening := opening_answer(answer, statements)) is not None:
        word, states_true = opening
        return PartReading(statements, float(states_true), float(not states_true), opening=word), Usage()
    true, false, usage = await _pair(
        judge, document_prefix(answer, question), statements.true, statements.false, model,
        step="completeness: the question's yes/no part", purpose="apart",
    )  # fmt: skip
    if true.value is None:
        return true, usage
    if false.value is None:
        return false, usage
    return PartReading(statements, true.value, false.value), usage


async def _pair(
    judge: Judge,
    document: Prefix,
    first: str,
    second: str,
    model: str | None,
    *,
    step: str,
    purpose: Literal["judge", "apart"],
) -> tuple[Readout, Readout, Usage]:
    """P(the document states each claim), one after the other: the second reuses the first's cached prefix."""
    instruction = prompts.prompt_set().text["check_covered"]
    one, used_one = await yes_no(
        judge.calls, document, instruction, extra={"claim": first}, model=model, step=f"{step}, 1 of 2",
        purpose=purpose,
    )  # fmt: skip
    two, used_two = await yes_no(
        judge.calls, document, instruction, extra={"claim": second}, model=model, step=f"{step}, 2 of 2",
        purpose=purpose,
    )  # fmt: skip
    return one, two, used_one.add(used_two)


def for_request(judge: Judge, prepared: Prepared) -> YesNoPart | None:
    """The request's one source of the statements, shared by all its answers; None without passages or a question
    that opens with a yes/no part."""
    if not prepared.passages or not opens_with_yes_no(prepared.question):
        return None
    return YesNoPart(judge, prepared.passages, prepared.question, prepared.model)
