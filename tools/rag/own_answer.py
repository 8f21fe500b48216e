"""The judge's own answer to the question, read from the passages before any claim of a judged answer is checked.

The 1.5B default answers "is this claim supported by the document?" by how well the claim matches the document as
a whole: a wrong entity taken from the passages reads as supported. Asked first to answer the question itself (a
few words, greedy), and then shown that answer after the question, it separates right from hallucinated answers
better (HaluEval dev, tuning pairs 1-50, bench.rag_own_answer: AUROC 0.91 -> 0.95, pairwise 0.86 -> 0.96).

The judged answers never reach this call: it sees the passages and the question only, so a judged text cannot steer
it. It is asked once per request (a batch's answers share it) and only by the probability readout. When it fails
(no answer, a backend error) the claims are checked against the passages alone, and the grounding says so; after a
timeout the call asks the model nothing more, so the checks come out unscored with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gavel.tools.common import one_line
from gavel.tools.engine import prompts
from gavel.tools.engine.calls import Tally
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import Prefix, document_prefix
from gavel.tools.errors import BackendError, BackendTimeout
from gavel.tools.rag.asked_once import AskedOnce

if TYPE_CHECKING:
    from gavel.tools.rag.prepare import Prepared

# The answers it gives are a few words (an entity, a date, yes/no); a longer reply is cut at the first line.
MAX_TOKENS = 32
MAX_CHARS = 200


@dataclass(frozen=True)
class OwnAnswer:
    text: str | None
    reason: str | None = None  # why there is none
    failed: bool = False  # there is none because the model call failed (perhaps only this time)
    # How the passages' reading of a yes/no part changed the opening the model wrote (yes_no_part.aligned).
    amended: str | None = None


class OwnAnswers(AskedOnce[OwnAnswer]):
    """The judge's own answer for one request, asked at most once however many answers await it."""

    def __init__(self, judge: Judge, passages: str, question: str, model: str | None) -> None:
        super().__init__()
        self._judge, self._passages, self._question, self._model = judge, passages, question, model

    async def _ask(self, tally: Tally) -> OwnAnswer:
        calls = self._judge.calls
        request = calls.request(
            prompts.prompt_set().text["rag_own_answer_system"],
            document_prefix(self._passages, self._question).section,
            None,
            seed=calls.config.seed,
            temperature=0.0,
            max_tokens=MAX_TOKENS,
            model=self._model,
        )
        try:
            reply = await calls.call(request, tally, step="the judge's own answer to the question")
        except BackendTimeout as exc:
            # The call's model work has ended: the checks after it come out unscored, with this reason.
            return OwnAnswer(None, f"the model call timed out: {exc}", failed=True)
        except BackendError as exc:
            return OwnAnswer(None, f"the model call failed: {exc}", failed=True)
        lines = [line.strip() for line in reply.text.splitlines() if line.strip()]
        if not lines:
            return OwnAnswer(None, "the model gave no answer")
        return OwnAnswer(one_line(lines[0], MAX_CHARS))


def for_request(judge: Judge, prepared: Prepared) -> OwnAnswers | None:
    """The request's one source of the judge's own answer, shared by all its answers; None without passages."""
    return OwnAnswers(judge, prepared.passages, prepared.question, prepared.model) if prepared.passages else None


def hinted(shared: Prefix, answer: OwnAnswer) -> Prefix:
    """The grounding checks' prefix with the judge's own answer after the question; unchanged without one."""
    if answer.text is None:
        return shared
    line = prompts.inline(prompts.prompt_set().text["rag_own_answer_label"], answer.text)
    return Prefix({**shared.blocks, "own_answer": answer.text}, f"{shared.section}\n\n{line}", system=shared.system)


def note(answer: OwnAnswer) -> str:
    """How the claims were checked, for the grounding's reasoning."""
    if answer.text is None:
        return f"claims checked against the passages alone: the judge's own answer is missing ({answer.reason})"
    if answer.amended is not None:
        return f"the judge's own answer from the passages: “{one_line(answer.text, 80)}”, {answer.amended}"
    return f"the judge's own answer from the passages: “{one_line(answer.text, 80)}”"
