"""The diagnosis: what to fix when an answer is not approved (retrieval, the answer, or its grounding), decided
from the verdict, the context's rules and the grounding decision, with a deterministic cross-check of the judge's
word on whether the passages address the question.
"""

from __future__ import annotations

import re

from gavel.tools.rag.grounding import Grounding
from gavel.tools.rag.verdicts import Diagnosis, Verdict
from gavel.tools.rubrics import ContextRules

_WORD = re.compile(r"\w{3,}")
# Question words and function words: what is left of a question is what its passages should mention.
_STOPWORD_TEXT = (
    "the and was were are did does for with from this that these those what when where which who whom whose why "
    "how its into about there their they them than then has have had been being will would could should can may "
    "not any all our your you his her she him one"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# The share of the question's terms its passages must contain for a judged "irrelevant" to be overruled.
_PASSAGES_ON_TOPIC = 0.5


def question_terms_in_passages(question: str, passages: str | None) -> float:
    """The share of the question's content words that the passages contain (0 when there are none).

    A deterministic cross-check of the judge's `passages_relevant`: small judges call the passages
    irrelevant to a wrong answer (measured on the embedded default), which would blame retrieval for the
    answer's fault. Passages that hold most of the question's terms are on its topic.
    """
    terms = {w for w in _WORD.findall(question.lower()) if w not in _STOPWORDS}
    if not terms or not passages:
        return 0.0
    present = set(_WORD.findall(passages.lower()))
    return len(terms & present) / len(terms)


def passages_address_question(grounding: Grounding, on_topic: float) -> bool | None:
    """The judge's word, overruled when the passages hold most of the question's terms (`on_topic`); None when
    the judge's check did not decide (it was not asked, or the model did not answer) and the terms do not settle
    it: a check that did not run says neither yes nor no."""
    if grounding.passages_relevant or on_topic >= _PASSAGES_ON_TOPIC:
        return True
    return None if grounding.passages_relevant is None else False


def diagnose(
    *,
    verdict: Verdict,
    rules: ContextRules,
    source_count: int,
    grounding: Grounding | None,
    accuracy: float | None,
    pass_threshold: float,
    on_topic: float = 0.0,
) -> tuple[Diagnosis, str]:
    """What to fix, in this order:

    1. approved → ok.
    2. sources expected and no passages → retrieval_miss; the answer contradicts the passages →
       answer_miss; the judge says the passages do not address the question, and they hold less than half
       of the question's terms (`on_topic`) → retrieval_miss. With more, the passages count as relevant; with
       the judge's check undecided, retrieval is not blamed.
    3. sources expected, not grounded, and not contradicting the passages → unsupported_by_context (the
       answer may be right, but from the model's own knowledge).
    4. passages relevant and the answer contradicts them or scores low on accuracy → answer_miss.
    5. otherwise ok: retrieval and grounding are not at fault; the verdict comes from the answer's other
       qualities (see issues), or grounding could not be checked.
    """
    if verdict == "approved":
        return "ok", "approved"
    if rules.sources_expected and source_count == 0:
        return "retrieval_miss", "no passages were retrieved for a context that expects them; fix retrieval first"
    if source_count and grounding is not None and grounding.contradicts_passages:
        # Passages that an answer can contradict do speak to it: the fault is the answer, whatever the
        # judge said about their relevance (small judges often call them irrelevant to a wrong answer).
        return "answer_miss", "the passages address the question but the answer contradicts them; fix the answer"
    relevant = passages_address_question(grounding, on_topic) if grounding is not None else None
    if rules.sources_expected and relevant is False:
        return "retrieval_miss", "the passages do not address the question; retrieve better passages"
    if (
        rules.sources_expected
        and grounding is not None
        and grounding.is_grounded is False
        and not grounding.contradicts_passages
    ):
        return "unsupported_by_context", (
            "the answer's claims are not supported by the passages (likely the model's own knowledge); answer "
            "from the passages, or retrieve passages that support it"
        )
    if source_count and grounding is not None and relevant is True:
        low_accuracy = accuracy is not None and accuracy < pass_threshold
        if grounding.contradicts_passages or low_accuracy:
            how = "contradicts" if grounding.contradicts_passages else "does not follow"
            return "answer_miss", f"the passages address the question but the answer {how} them; fix the answer"
    if verdict == "unscored":
        return "undetermined", "no verdict, and no retrieval or answer fault could be established"
    if grounding is None and source_count:
        return "ok", "no retrieval or answer fault could be established (grounding was not checked)"
    return "ok", "no retrieval or grounding fault found; the verdict comes from the answer's quality (see issues)"
