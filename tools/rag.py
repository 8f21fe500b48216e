"""`judge_rag_answer` and `judge_rag_answers`: verdicts on answers of retrieval-augmented agents.

The model scores the rubric's dimensions and makes one grounding check; everything else is decided here,
deterministically: which sources the answer cites, the overall score (the rubric-weighted mean, in exact
decimal arithmetic), the verdict (the rubric's per-context rules), the diagnosis, the issues, and the
prompt-injection check. A decision the model did not make is never filled in: it is `unscored`, with the
reason, unless the verdict provably does not depend on it.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field

from gavel.tools.common import (
    ModelOverride,
    NoCache,
    RubricId,
    Samples,
    ToolResult,
    check_samples,
    one_line,
    require_text,
)
from gavel.tools.deps import ToolDeps
from gavel.tools.engine.judge import Judge, Judgment, Structured
from gavel.tools.engine.probability import prefix
from gavel.tools.engine.verdict import MetricScore, Provenance, Usage
from gavel.tools.errors import BackendError, GavelError, InvalidInput
from gavel.tools.guards import PROMPT_INJECTION_FLAG, detect_injection
from gavel.tools.narrative import Explain, narrate
from gavel.tools.rag_probability import (
    ProbabilityGrounding,
    SentenceSupport,
    accuracy_score,
    check_sentences,
    follow_up,
    needs_follow_up,
)
from gavel.tools.rag_probability import grounding as probability_grounding
from gavel.tools.rubrics import ContextRules, Rubric

DEFAULT_RUBRIC = "rag-answer"
DIMENSIONS = ("relevance", "completeness", "accuracy", "source_attribution", "coherence")
CONTEXTS = ("RAG", "DIAGNOSTIC", "TOOLS")

Verdict = Literal["approved", "needs_improvement", "rejected", "unscored"]
Diagnosis = Literal["ok", "unsupported_by_context", "retrieval_miss", "answer_miss", "undetermined"]
ConfidenceSource = Literal["sample_spread", "judge_stated", "probability_margin"]

GROUNDING_MAX_TOKENS = 700
_MAX_ISSUES_PER_KIND = 5

# -- requests ---------------------------------------------------------------------------------------------


class Source(BaseModel):
    """One retrieved passage."""

    model_config = ConfigDict(extra="forbid")

    id: Annotated[
        str | None,
        Field(default=None, max_length=200, description="The passage's id as the answering agent saw it, e.g. "
              "'S1' or 'doc-42'. Without ids, passages are referred to by position: [1] is the first."),
    ] = None  # fmt: skip
    title: Annotated[
        str | None,
        Field(default=None, description="The passage's title; an answer that names it counts as citing it."),
    ] = None
    content: Annotated[str, Field(description="The passage text. Must not be empty.")]


Question = Annotated[str, Field(description="The question the agent answered.")]
AnswerText = Annotated[str, Field(description="The agent's answer, exactly as it was given. Untrusted: "
                                  "instructions inside it are evaluated, never followed.")]  # fmt: skip
Sources = Annotated[
    list[Source],
    Field(default_factory=list, max_length=1000, description="The passages the agent retrieved (may be empty). "
          "The judge checks the answer against them. At most the server's configured cap (GAVEL_MAX_SOURCES)."),
]  # fmt: skip
SourcesUsed = Annotated[
    list[str] | None,
    Field(default=None, max_length=1000, description="Ids of the passages the agent says it used. Ids that are "
          "not among `sources` are reported as unknown_citations."),
]  # fmt: skip
AgentConfidence = Annotated[
    float | None,
    Field(default=None, ge=0, le=1, description="The agent's own confidence in its answer, 0-1. Reported back "
          "next to the verdict; it does not change the score."),
]  # fmt: skip
AgentReasoning = Annotated[
    str | None,
    Field(default=None, description="The agent's explanation of how it answered. Shown to the judge as context."),
]
EvaluationContext = Annotated[
    str,
    Field(default="RAG", max_length=20, description="What kind of answer this is: 'RAG' (answered from "
          "retrieved passages; sources expected; the default), 'DIAGNOSTIC' (reasoning without retrieval; missing "
          "sources are never penalized and source_attribution is not scored) or 'TOOLS' (answered from tool "
          "outputs given as the passages; sources expected). Verdict thresholds per context come from the rubric."),
]  # fmt: skip
CustomRubric = Annotated[
    Rubric | None,
    Field(default=None, description="An inline rubric with the schema of the rubric:// resources; it must define "
          "rules for the requested evaluation_context in its `contexts` table."),
]  # fmt: skip


class JudgeRagAnswerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: Question
    answer: AnswerText
    sources: Sources
    sources_used: SourcesUsed = None
    agent_confidence: AgentConfidence = None
    agent_reasoning: AgentReasoning = None
    evaluation_context: EvaluationContext = "RAG"
    rubric: RubricId = None
    custom_rubric: CustomRubric = None
    samples: Samples = 1
    model: ModelOverride = None
    explain: Explain = "template"
    no_cache: NoCache = False


class AgentAnswer(BaseModel):
    """One agent's answer to the shared question."""

    model_config = ConfigDict(extra="forbid")

    agent_name: Annotated[str, Field(max_length=100, description="A unique name for the agent; `best` refers to it.")]
    answer: AnswerText
    sources_used: SourcesUsed = None
    agent_confidence: AgentConfidence = None
    agent_reasoning: AgentReasoning = None


class JudgeRagAnswersRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: Question
    answers: Annotated[
        list[AgentAnswer],
        Field(max_length=1000, description="The answers to compare, each with a unique agent_name. At most the "
              "server's configured cap (GAVEL_MAX_BATCH)."),
    ]  # fmt: skip
    sources: Sources
    evaluation_context: EvaluationContext = "RAG"
    rubric: RubricId = None
    custom_rubric: CustomRubric = None
    samples: Samples = 1
    model: ModelOverride = None
    no_cache: NoCache = False


# -- the model's grounding check ------------------------------------------------------------------------


_GROUNDING_FIELDS = (
    "reasoning",
    "passages_relevant",
    "is_grounded",
    "contradicts_passages",
    "unsupported_claims",
    "confidence",
)


class GroundingCheck(BaseModel):
    """The one structured call besides the dimensions. Reasoning first, so the model reasons before it decides.

    The requested schema requires every field, so constrained decoding always produces them; validation
    tolerates a missing claims list or confidence rather than losing the grounding decision over them.
    """

    model_config = ConfigDict(extra="ignore", json_schema_extra={"required": list(_GROUNDING_FIELDS)})

    reasoning: str = Field(max_length=400, description="At most two short sentences citing the evidence.")
    passages_relevant: bool = Field(description="Whether the passages contain information that addresses the question.")
    is_grounded: bool = Field(description="Whether every factual claim of the answer is supported by the passages.")
    contradicts_passages: bool = Field(description="Whether the answer states something a passage contradicts.")
    unsupported_claims: list[Annotated[str, Field(max_length=200)]] = Field(
        default_factory=list,
        max_length=5,
        description="Short quotes of the answer's claims the passages do not support.",
    )
    confidence: float | None = Field(default=None, ge=0, le=1, description="How sure the judge is, 0-1.")


# What the verdict, diagnosis and issues read: the generated check, or the per-sentence probability checks.
Grounding = GroundingCheck | ProbabilityGrounding


def grounding_instruction(rubric: Rubric, rules: ContextRules) -> str:
    subject, passages = rubric.prompt.subject, rubric.prompt.source_label
    return (
        f"{rules.instructions}\n"
        f"Check the {subject} against the {passages} and the question, and decide:\n"
        f"- passages_relevant: true if the {passages} contain information that addresses the question.\n"
        f"- is_grounded: true if every factual claim of the {subject} is supported by the {passages}. A claim they "
        f"do not contain is unsupported even if it may be true.\n"
        f"- contradicts_passages: true if the {subject} states something the {passages} contradict.\n"
        f"- unsupported_claims: up to 5 short quotes (under 200 characters each) of the {subject}'s claims that the "
        f"{passages} do not support; empty when there are none.\n"
        f"- confidence: how sure you are of these decisions, from 0 to 1.\n"
        f'Reply as JSON: first "reasoning" (at most two short sentences citing the evidence), then the other fields.'
    )


# -- results --------------------------------------------------------------------------------------------


class RagJudgment(ToolResult):
    agent_name: str | None = Field(default=None, description="The agent, in judge_rag_answers.")
    evaluation_context: str
    verdict: Verdict = Field(description="approved | needs_improvement | rejected | unscored (no verdict guessed).")
    verdict_reason: str
    overall_score: float | None = Field(
        description="Rubric-weighted mean of the applicable dimensions, computed by Gavel; null when a weighted "
        "dimension is unscored."
    )
    confidence: float | None = Field(description="How sure the judgment is, 0-1; see confidence_source.")
    confidence_source: ConfidenceSource | None = Field(
        description="'sample_spread' (1 - mean normalized spread of the samples, when samples > 1), "
        "'judge_stated' (the judge's own estimate, generated readout) or 'probability_margin' (how far the weakest "
        "sentence's P(supported) is from the cut, probability readout); null when there is no confidence."
    )
    relevance: MetricScore
    completeness: MetricScore
    accuracy: MetricScore
    source_attribution: MetricScore
    coherence: MetricScore
    other_metrics: list[MetricScore] = Field(
        default_factory=list, description="Metrics of a custom rubric beyond the five RAG dimensions."
    )
    has_sources: bool = Field(description="Whether the answer cites sources; decided from its text, not by the model.")
    cited_source_ids: list[str] = Field(
        description="The passages the answer cites: their ids, or their 1-based positions when they have none."
    )
    unknown_citations: list[str] = Field(
        description="Cited or claimed sources that are not among the passages (sources_used ids, out-of-range [n])."
    )
    is_grounded: bool | None = Field(
        description="The judge's decision that the answer's claims are supported by the passages; null when undecided."
    )
    passages_relevant: bool | None = Field(description="The judge's decision that the passages address the question.")
    contradicts_passages: bool | None = Field(description="The judge's decision that the answer contradicts a passage.")
    unsupported_claims: list[str] = Field(
        default_factory=list,
        description="Probability readout: the answer's own sentences the passages do not support, verbatim (see "
        "sentence_support for each one's probability). Generated readout: the judge's short quotes.",
    )
    sentence_support: list[SentenceSupport] = Field(
        default_factory=list,
        description="Probability readout: every sentence of the answer with P(supported by the passages).",
    )
    grounding_error: str | None = Field(default=None, description="Why the grounding check gave no decision.")
    diagnosis: Diagnosis = Field(
        description="What to fix: ok | unsupported_by_context | retrieval_miss | answer_miss | undetermined (no "
        "verdict, and no fault could be established)."
    )
    diagnosis_reason: str
    issues: list[str] = Field(description="Short, actionable problems, most important first.")
    reasoning: str = Field(description="The judge's reasoning on grounding.")
    agent_confidence: float | None = Field(default=None, description="The agent's own confidence, as given.")
    flags: list[str] = Field(default_factory=list, description="e.g. prompt_injection_suspected.")
    error: str | None = Field(default=None, description="Why this answer could not be judged at all (batch only).")
    narrative: str | None = Field(
        default=None, description="explain='narrative': the judge model's prose explanation, written after the verdict."
    )
    narrative_error: str | None = Field(default=None, description="Why the asked-for narrative could not be written.")
    usage: Usage
    provenance: Provenance | None
    summary: str

    def dimensions(self) -> list[MetricScore]:
        return [self.relevance, self.completeness, self.accuracy, self.source_attribution, self.coherence]

    def render_text(self) -> str:
        who = f"{self.agent_name}: " if self.agent_name else ""
        conf = ""
        if self.confidence is not None:
            label = {"sample_spread": "sample spread", "probability_margin": "probability margin"}.get(
                self.confidence_source or "", "judge-stated"
            )
            conf = f" · confidence {self.confidence:.2f} ({label})"
        lines = [
            f"{who}{self.verdict.upper().replace('_', ' ')} · overall {_fmt(self.overall_score)} · "
            f"context {self.evaluation_context}{conf}",
            f"why: {self.verdict_reason}",
        ]
        for score in [*self.dimensions(), *self.other_metrics]:
            lines.append(f"  {score.metric:<18} {_score_cell(score):<9} {one_line(_score_note(score), 120)}")
        cited = f" (cited: {', '.join(self.cited_source_ids)})" if self.cited_source_ids else ""
        grounded = {True: "yes", False: "no", None: "undecided"}[self.is_grounded]
        facts = f"has_sources: {'yes' if self.has_sources else 'no'}{cited} · is_grounded: {grounded}"
        if self.unknown_citations:
            facts += f" · unknown citations: {', '.join(self.unknown_citations)}"
        lines += [facts, f"diagnosis: {self.diagnosis} — {self.diagnosis_reason}"]
        if self.issues:
            lines.append("issues:")
            lines += [f"- {one_line(issue, 200)}" for issue in self.issues]
        if self.flags:
            lines.append(f"flags: {', '.join(self.flags)}")
        if self.error:
            lines.append(f"error: {self.error}")
        if self.narrative:
            lines.append(f"narrative (the judge's words): {self.narrative}")
        return "\n".join(lines)


class RagBatchResult(ToolResult):
    evaluation_context: str
    results: list[RagJudgment] = Field(description="Every answer's judgment, by overall_score (unscored last).")
    best: str | None = Field(description="agent_name of the top approved answer; null when none is approved.")
    flags: list[str] = Field(default_factory=list, description="Flags raised on any answer.")
    usage: Usage = Field(description="Totals across all answers; duration is the batch's wall time.")
    provenance: Provenance | None = None
    summary: str

    def render_text(self) -> str:
        lines = [
            self.summary,
            "",
            "| # | agent | verdict | overall | diagnosis | first issue |",
            "|---|---|---|---|---|---|",
        ]
        for rank, item in enumerate(self.results, 1):
            first = one_line(item.issues[0], 100).replace("|", "/") if item.issues else "-"
            lines.append(
                f"| {rank} | {item.agent_name} | {item.verdict} | {_fmt(item.overall_score)} | {item.diagnosis} "
                f"| {first} |"
            )
        if self.flags:
            lines.append(f"flags: {', '.join(self.flags)}")
        return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return f"{value:.3g}" if value is not None else "n/a"


def _score_cell(score: MetricScore) -> str:
    if score.status == "not_applicable":
        return "n/a"
    if score.score is None:
        return "unscored"
    # Probability readouts are real numbers: three significant digits say all the model's distribution does.
    return f"{score.score:.3g}"


def _score_note(score: MetricScore) -> str:
    if score.status == "scored":
        return first_sentence(score.explanation)
    return score.reason or ""


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(?:\s|$)", text)
    return match.group(1) if match else text


# -- deterministic parts --------------------------------------------------------------------------------


def source_keys(sources: Sequence[Source]) -> list[str]:
    """How each passage is referred to in results: its id, or its 1-based position when it has none."""
    return [s.id if s.id is not None else str(index) for index, s in enumerate(sources, 1)]


# Up to three digits: a bracketed year such as [2023] is not a passage number.
_POSITIONAL = re.compile(
    r"^(?:s|src|source|fonte|fuente|quelle|doc|document|documento|passage|passagem|pasaje|ref)?\s*#?\s*(\d{1,3})$",
    re.IGNORECASE,
)


def _resolve(label: str, sources: Sequence[Source], keys: Sequence[str]) -> str | None:
    """The key of the passage `label` refers to: an id, a position ('2', 'S2', 'source 2') or a title."""
    label = label.strip()
    if not label:
        return None
    for source, key in zip(sources, keys, strict=True):
        if source.id is not None and source.id == label:
            return key
    folded = label.casefold()
    for source, key in zip(sources, keys, strict=True):
        if source.id is not None and source.id.casefold() == folded:
            return key
    positional = _POSITIONAL.match(label)
    if positional:
        position = int(positional.group(1))
        if 1 <= position <= len(sources):
            return keys[position - 1]
        return None
    for source, key in zip(sources, keys, strict=True):
        if source.title and " ".join(source.title.split()).casefold() == " ".join(folded.split()):
            return key
    return None


# `[1]`, `[1, 3]`, `[1-2]`, `[S1]`, `[^2]`, `[doc-a]`; not the text of a markdown link `[text](url)`.
_BRACKET = re.compile(r"\[\^?\s*([^\[\]\n]{1,120}?)\s*\](?!\()")
_RANGE = re.compile(r"^(\d{1,4})\s*[-–]\s*(\d{1,4})$")
_CITE_WORD = (
    r"(?:sources?|fontes?|fuentes?|refs?|references?|referencias?|r[ée]f[ée]rences?|quellen?|bibliography"
    r"|bibliografia|citations?)"
)
_PAREN_CITE = re.compile(rf"\(\s*{_CITE_WORD}\s*:\s*([^()\n]{{1,300}})\)", re.IGNORECASE)
_LINE_CITE = re.compile(rf"(?im)^[ \t>*_#-]*{_CITE_WORD}[ \t*_]*:(.*)$")
_HEADING_CITE = re.compile(rf"(?im)^[ \t]*#+[ \t]*{_CITE_WORD}[ \t]*$")
_WORD_POSITION = re.compile(
    r"\b(?:source|fonte|fuente|quelle|passage|passagem|pasaje|document|documento|doc)\s*#?\s*(\d{1,3})\b",
    re.IGNORECASE,
)
_NUMERIC_LIST = re.compile(r"^\d{1,4}(?:\s*[,;]\s*\d{1,4})*$")
# A bare id or title is only a citation when it is distinctive enough not to appear by accident.
_MIN_ID_CHARS = 3
_MIN_TITLE_CHARS = 8


def _is_citation_label(label: str, sources: Sequence[Source], keys: Sequence[str]) -> bool:
    return bool(_POSITIONAL.match(label)) or _resolve(label, sources, keys) is not None


def _labels(content: str) -> list[str]:
    labels: list[str] = []
    for part in re.split(r"[,;]", content):
        part = part.strip()
        span = _RANGE.match(part)
        if span and int(span.group(1)) <= int(span.group(2)) <= int(span.group(1)) + 50:
            labels += [str(n) for n in range(int(span.group(1)), int(span.group(2)) + 1)]
        elif part:
            labels.append(part)
    return labels


def _mention_pattern(text: str) -> re.Pattern[str] | None:
    """Matches `text` as whole words in order, with any punctuation or spacing between them, so the title
    "Kaplan & Norton 1996" is found in "(Fonte: Kaplan & Norton, 1996, p. 8)"."""
    words = [re.escape(w) for w in re.findall(r"\w+", text)]
    if not words:
        return None
    return re.compile(r"(?<![\w-])" + r"\W+".join(words) + r"(?![\w-])", re.IGNORECASE)


def _mentions(text: str, answer: str) -> re.Match[str] | None:
    pattern = _mention_pattern(text)
    return pattern.search(answer) if pattern is not None else None


def detect_citations(
    answer: str, sources: Sequence[Source], sources_used: Sequence[str] | None
) -> tuple[bool, list[str], list[str]]:
    """(has_sources, cited_source_ids, unknown_citations), from the answer's text alone.

    Citation forms: `[1]`/`[S1]`/`[^1]`/`[doc-id]` brackets, `(Source: …)`/`(Fonte: …)` parentheses,
    `Source:`/`Sources:`/`Fonte:`/`References:` lines and headings, "source 2"/"passage 2" mentions, and ids
    or titles of the passages (or ids from sources_used) appearing in the answer. A number n refers to the
    passage with id "n", else to the n-th passage. cited_source_ids are the passages' keys (id, or position
    when it has none) in order of first citation; unknown_citations are sources_used ids that are not among
    the passages, and numbered citations beyond the last passage.
    """
    keys = source_keys(sources)
    has_sources = False
    found: list[tuple[int, str]] = []
    unknown: list[str] = []

    def cite(position: int, label: str, *, positional_ok: bool) -> None:
        key = _resolve(label, sources, keys)
        if key is not None:
            found.append((position, key))
        elif positional_ok and sources and _POSITIONAL.match(label):
            unknown.append(label)

    for match in _BRACKET.finditer(answer):
        for label in _labels(match.group(1)):
            if _is_citation_label(label, sources, keys):
                has_sources = True
                cite(match.start(), label, positional_ok=True)
    for pattern in (_PAREN_CITE, _LINE_CITE):
        for match in pattern.finditer(answer):
            content = match.group(1).strip()
            if pattern is _LINE_CITE and not content:
                has_sources = True  # a "Sources:" line introducing a list below it
                continue
            has_sources = True
            if _NUMERIC_LIST.match(content) or all(_POSITIONAL.match(lb) for lb in _labels(content)):
                for label in _labels(content):
                    cite(match.start(), label, positional_ok=True)
    if _HEADING_CITE.search(answer):
        has_sources = True
    for match in _WORD_POSITION.finditer(answer):
        has_sources = True
        cite(match.start(), match.group(1), positional_ok=True)
    for source, key in zip(sources, keys, strict=True):
        mentions = []
        if source.id is not None and len(source.id) >= _MIN_ID_CHARS and not source.id.isdigit():
            mentions.append(source.id)
        if source.title and len(source.title.strip()) >= _MIN_TITLE_CHARS:
            mentions.append(source.title)
        for mention in mentions:
            hit = _mentions(mention, answer)
            if hit:
                has_sources = True
                found.append((hit.start(), key))
    for used in sources_used or []:
        if _resolve(used, sources, keys) is not None:
            continue
        unknown.append(used)
        if len(used.strip()) >= _MIN_ID_CHARS and _mentions(used, answer):
            has_sources = True  # the answer cites it, though it is not among the passages
    cited = list(dict.fromkeys(key for _, key in sorted(found, key=lambda item: item[0])))
    return has_sources, cited, list(dict.fromkeys(unknown))


def _exact(value: float) -> Fraction:
    # Scores and weights are decimals written by people and models (0.7, 0.35); summing their binary
    # approximations would put an answer at exactly 0.7 on the wrong side of a 0.7 threshold.
    return Fraction(repr(value))


def overall_score(scores: Sequence[MetricScore], rubric: Rubric, not_applicable: Collection[str]) -> float | None:
    """The rubric-weighted mean of the applicable metrics, weights renormalized over them.

    Null when a weighted applicable metric has no score (nothing is guessed) or when no applicable metric
    carries weight.
    """
    by_id = {s.metric: s for s in scores}
    total = Fraction(0)
    weights = Fraction(0)
    for metric in rubric.metrics:
        if metric.id in not_applicable or metric.weight == 0:
            continue
        score = by_id.get(metric.id)
        if score is None or score.score is None:
            return None
        weight = _exact(metric.weight)
        total += weight * _exact(score.score)
        weights += weight
    if weights == 0:
        return None
    return float(total / weights)


def needs_grounding(rules: ContextRules) -> bool:
    return rules.approve_ungrounded_at is not None or rules.reject_ungrounded_unsourced_below is not None


def _apply_rules(rules: ContextRules, q: float, grounded: bool, has_sources: bool) -> tuple[Verdict, str]:
    if q >= rules.approve_at:
        if rules.approve_ungrounded_at is None:
            return "approved", f"overall {_fmt(q)} ≥ {rules.approve_at:g}"
        if grounded:
            return "approved", f"overall {_fmt(q)} ≥ {rules.approve_at:g} and the answer is grounded in the passages"
        if q >= rules.approve_ungrounded_at:
            return "approved", (
                f"overall {_fmt(q)} ≥ {rules.approve_ungrounded_at:g}, high enough although the answer is not "
                "grounded in the passages"
            )
    if q < rules.reject_below:
        return "rejected", f"overall {_fmt(q)} < {rules.reject_below:g}"
    limit = rules.reject_ungrounded_unsourced_below
    if limit is not None and not grounded and not has_sources and q < limit:
        return "rejected", f"the answer is not grounded, cites no sources and overall {_fmt(q)} < {limit:g}"
    if q >= rules.approve_at:
        return "needs_improvement", (
            f"overall {_fmt(q)} ≥ {rules.approve_at:g} but the answer is not grounded in the passages and below "
            f"{rules.approve_ungrounded_at:g}"
        )
    return "needs_improvement", f"overall {_fmt(q)} is between {rules.reject_below:g} and {rules.approve_at:g}"


def decide_verdict(
    context_rules: ContextRules, q: float | None, is_grounded: bool | None, has_sources: bool, unscored: list[str]
) -> tuple[Verdict, str]:
    """The verdict and why, by the context's rules from the rubric, evaluated in order approve, reject, else
    needs_improvement. `unscored` lists the weighted dimensions without a score.

    With grounding undecided (None) the rules are evaluated both ways: when they agree the verdict stands,
    since it does not depend on grounding; otherwise there is no verdict.
    """
    if unscored:
        return "unscored", (
            f"no verdict: the judge gave no valid score for {', '.join(unscored)}, which carr"
            f"{'ies' if len(unscored) == 1 else 'y'} weight; re-run, raise samples, or use a stronger judge model"
        )
    if q is None:
        return "unscored", "no verdict: no applicable dimension carries weight, so there is no overall score"
    if is_grounded is not None or not needs_grounding(context_rules):
        return _apply_rules(context_rules, q, bool(is_grounded), has_sources)
    if_grounded = _apply_rules(context_rules, q, True, has_sources)
    if_not = _apply_rules(context_rules, q, False, has_sources)
    if if_grounded[0] == if_not[0]:
        return if_grounded[0], f"{if_not[1]} (grounding was not decided; this verdict does not depend on it)"
    return "unscored", (
        f"no verdict: at overall {_fmt(q)} the verdict depends on whether the answer is grounded in the passages, "
        "and the judge could not decide that"
    )


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


def _passages_address_question(grounding: Grounding, on_topic: float) -> bool:
    """The judge's word, overruled when the passages hold most of the question's terms (`on_topic`)."""
    return bool(grounding.passages_relevant) or on_topic >= _PASSAGES_ON_TOPIC


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
       of the question's terms (`on_topic`) → retrieval_miss. With more, the passages count as relevant.
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
    relevant = grounding is not None and _passages_address_question(grounding, on_topic)
    if rules.sources_expected and grounding is not None and not relevant:
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
    if source_count and grounding is not None and relevant:
        low_accuracy = accuracy is not None and accuracy < pass_threshold
        if grounding.contradicts_passages or low_accuracy:
            how = "contradicts" if grounding.contradicts_passages else "does not follow"
            return "answer_miss", f"the passages address the question but the answer {how} them; fix the answer"
    if verdict == "unscored":
        return "undetermined", "no verdict, and no retrieval or answer fault could be established"
    if grounding is None and source_count:
        return "ok", "no retrieval or answer fault could be established (grounding was not checked)"
    return "ok", "no retrieval or grounding fault found; the verdict comes from the answer's quality (see issues)"


def confidence_of(
    scores: Sequence[MetricScore], rubric: Rubric, samples: int, grounding: Grounding | None
) -> tuple[float | None, ConfidenceSource | None]:
    """With several samples: 1 - the mean spread of the scored metrics, as a fraction of the scale.
    With one: the judge's own stated confidence from the grounding check, or none. Read from probabilities:
    the weakest sentence's distance from the cut."""
    if isinstance(grounding, ProbabilityGrounding):
        return (grounding.confidence, "probability_margin") if grounding.confidence is not None else (None, None)
    if samples > 1:
        width = rubric.scale.max - rubric.scale.min
        spreads = [s.spread / width for s in scores if s.status == "scored" and s.spread is not None]
        if not spreads:
            return None, None
        return 1 - statistics.fmean(spreads), "sample_spread"
    if grounding is not None and grounding.confidence is not None:
        return grounding.confidence, "judge_stated"
    return None, None


# -- validation -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Prepared:
    rubric: Rubric
    context: str
    rules: ContextRules
    question: str
    sources: list[Source]
    passages: str | None
    injection: list[str]  # findings in the question and passages, labelled with where they are
    samples: int
    model: str | None


def _context(name: str, rubric: Rubric) -> tuple[str, ContextRules]:
    context = name.strip().upper()
    if context not in CONTEXTS:
        raise InvalidInput(f"{name!r} is not an evaluation context; use one of {', '.join(CONTEXTS)}",
                           field="evaluation_context")  # fmt: skip
    rules = rubric.contexts.get(context)  # type: ignore[call-overload]
    if rules is None:
        defined = ", ".join(rubric.contexts) or "none"
        raise InvalidInput(
            f"rubric {rubric.id!r} defines no rules for {context} (it defines: {defined}); add a [contexts.{context}] "
            "table to the rubric or choose a context it defines",
            field="evaluation_context",
        )
    return context, rules


def _check_sources(sources: Sequence[Source], deps: ToolDeps) -> None:
    if len(sources) > deps.limits.max_sources:
        raise InvalidInput(
            f"has {len(sources)} passages; the limit is {deps.limits.max_sources} (GAVEL_MAX_SOURCES). Send the "
            "passages the agent actually retrieved, most relevant first.",
            field="sources",
        )
    keys = source_keys(sources)
    seen: dict[str, int] = {}
    for index, (source, key) in enumerate(zip(sources, keys, strict=True)):
        require_text(source.content, f"sources[{index}].content", deps.limits)
        require_text(source.title, f"sources[{index}].title", deps.limits, required=False)
        if source.id is not None and not source.id.strip():
            raise InvalidInput(
                "must not be empty; omit it to refer to the passage by position", field=f"sources[{index}].id"
            )
        if key in seen:
            raise InvalidInput(
                f"{key!r} is also the id (or position) of sources[{seen[key]}]; every passage needs a distinct id",
                field=f"sources[{index}].id",
            )
        seen[key] = index


def _check_answer(
    prefix: str, answer: str, sources_used: Sequence[str] | None, agent_reasoning: str | None, deps: ToolDeps
) -> None:
    require_text(answer, f"{prefix}answer", deps.limits)
    require_text(agent_reasoning, f"{prefix}agent_reasoning", deps.limits, required=False)
    if sources_used is not None and len(sources_used) > deps.limits.max_sources:
        raise InvalidInput(f"lists {len(sources_used)} ids; the limit is {deps.limits.max_sources}",
                           field=f"{prefix}sources_used")  # fmt: skip
    for index, used in enumerate(sources_used or []):
        if not used.strip() or len(used) > 200:
            raise InvalidInput("each id must be 1-200 characters", field=f"{prefix}sources_used[{index}]")


def format_passages(sources: Sequence[Source]) -> str | None:
    """The passages as the judge sees them: numbered like the answer's [n] citations, with id and title."""
    if not sources:
        return None
    parts = []
    for index, source in enumerate(sources, 1):
        head = f"[{index}]"
        if source.id is not None:
            head += f" id: {' '.join(source.id.split())}"
        if source.title:
            head += f" — title: {' '.join(source.title.split())}"
        parts.append(f"{head}\n{source.content.strip()}")
    return "\n\n".join(parts)


def _prepare(
    *,
    question: str,
    sources: list[Source],
    evaluation_context: str,
    rubric_id: str | None,
    custom_rubric: Rubric | None,
    samples: int,
    model: str | None,
    deps: ToolDeps,
) -> _Prepared:
    require_text(question, "question", deps.limits)
    _check_sources(sources, deps)
    check_samples(samples, deps.limits)
    rubric = deps.registry.resolve(rubric_id, custom_rubric, default=DEFAULT_RUBRIC)
    if not rubric.scale.higher_is_better:
        raise InvalidInput("the RAG verdict rules need a rubric whose higher scores are better",
                           field="custom_rubric" if custom_rubric is not None else "rubric")  # fmt: skip
    context, rules = _context(evaluation_context, rubric)
    injection = [f"{finding} (in the question)" for finding in detect_injection(question)]
    for index, source in enumerate(sources, 1):
        for text in (source.title or "", source.content):
            injection += [f"{finding} (in passage [{index}])" for finding in detect_injection(text)]
    return _Prepared(
        rubric=rubric,
        context=context,
        rules=rules,
        question=question,
        sources=sources,
        passages=format_passages(sources),
        injection=list(dict.fromkeys(injection)),
        samples=samples,
        model=model,
    )


# -- judging one answer ---------------------------------------------------------------------------------


def _dimension(scores: dict[str, MetricScore], metric_id: str, prepared: _Prepared) -> MetricScore:
    if metric_id in scores:
        return scores[metric_id]
    return MetricScore.not_applicable(metric_id, metric_id, f"rubric {prepared.rubric.id!r} has no {metric_id} metric")


def _all_scores(judged: Sequence[MetricScore], prepared: _Prepared) -> dict[str, MetricScore]:
    by_id = {s.metric: s for s in judged}
    out: dict[str, MetricScore] = {}
    for metric in prepared.rubric.metrics:
        if metric.id in prepared.rules.not_applicable:
            out[metric.id] = MetricScore.not_applicable(
                metric.id, metric.name, f"not applicable in {prepared.context}: sources are not expected"
            )
        elif metric.id in by_id:
            out[metric.id] = by_id[metric.id]
    return out


@dataclass
class _AnswerInput:
    answer: str
    sources_used: list[str] | None
    agent_confidence: float | None
    agent_reasoning: str | None
    agent_name: str | None = None


def _claim_issue(claim: str, answer: str) -> str:
    # The judge is asked to quote the answer, but a small model sometimes writes its own sentence instead
    # ("The answer states that ..."). That is still a finding; it must not be shown as the answer's words.
    if _folded(claim) in _folded(answer):
        return f"unsupported claim: “{claim}”"
    return f"unsupported claim (the judge's words, not found in the answer): {claim}"


def _folded(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .\"'“”‘’")


def _issues(
    *,
    prepared: _Prepared,
    answer: str,
    scores: dict[str, MetricScore],
    grounding: Grounding | None,
    grounding_error: str | None,
    has_sources: bool,
    unknown: list[str],
    injection: list[str],
    error: str | None,
    on_topic: float,
) -> list[str]:
    rubric, rules = prepared.rubric, prepared.rules
    issues: list[str] = []
    if error:
        issues.append(f"not judged: {error}")
    issues += [f"{PROMPT_INJECTION_FLAG}: {finding}" for finding in injection[:_MAX_ISSUES_PER_KIND]]
    weights = {m.id: m.weight for m in rubric.metrics}
    for metric_id, score in scores.items():
        if score.status == "unscored" and weights.get(metric_id, 0) > 0 and not error:
            issues.append(f"{metric_id} unscored: {one_line(score.reason or 'no valid score', 160)}")
    low = [
        s for s in scores.values() if s.status == "scored" and s.score is not None and s.score < rubric.pass_threshold
    ]
    for score in sorted(low, key=lambda s: s.score if s.score is not None else 0):
        issues.append(f"{score.metric} {score.score:.3g}: {first_sentence(score.explanation)}".rstrip(": "))
    if rules.sources_expected and not prepared.sources:
        issues.append(
            "no passages were given: send the retrieved passages, or use DIAGNOSTIC for answers without retrieval"
        )
    if grounding is not None:
        if rules.sources_expected and not _passages_address_question(grounding, on_topic):
            issues.append("the passages do not address the question: improve retrieval")
        if grounding.contradicts_passages:
            issues.append("the answer contradicts the passages")
        if isinstance(grounding, ProbabilityGrounding):
            issues += [
                f"unsupported claim (P(supported) {s.p_supported:.2f}): “{s.sentence}”"
                for s in grounding.sentences
                if s.supported is False and s.p_supported is not None
            ][:_MAX_ISSUES_PER_KIND]
        else:
            issues += [_claim_issue(claim, answer) for claim in grounding.unsupported_claims[:_MAX_ISSUES_PER_KIND]]
    elif grounding_error and needs_grounding(rules) and prepared.sources and not error:
        issues.append(f"grounding could not be checked: {one_line(grounding_error, 160)}")
    if rules.sources_expected and prepared.sources and not has_sources:
        issues.append("cites none of the passages: credit them, e.g. [1] or (Source: <title>)")
    if unknown:
        issues.append(f"cites sources that are not among the passages: {', '.join(unknown[:_MAX_ISSUES_PER_KIND])}")
    return issues


async def _grounding(judge: Judge, prepared: _Prepared, item: _AnswerInput) -> Structured[GroundingCheck] | None:
    if prepared.passages is None:
        return None
    rubric = prepared.rubric
    return await judge.structured(
        output=GroundingCheck,
        data={
            rubric.prompt.source_label: prepared.passages,
            "question": prepared.question,
            rubric.prompt.subject: item.answer,
        },
        instruction=grounding_instruction(rubric, prepared.rules),
        model=prepared.model,
        max_tokens=GROUNDING_MAX_TOKENS,
    )


def _assemble(
    prepared: _Prepared,
    item: _AnswerInput,
    judged: Sequence[MetricScore],
    grounding: Grounding | None,
    grounding_error: str | None,
    engine_flags: Sequence[str],
    usage: Usage,
    provenance: Provenance | None,
    error: str | None = None,
) -> RagJudgment:
    rubric, rules = prepared.rubric, prepared.rules
    scores = _all_scores(judged, prepared)
    if prepared.passages is None:
        grounding_error = "no passages were given"
    if grounding is not None:
        is_grounded: bool | None = grounding.is_grounded
    elif prepared.passages is None and rules.sources_expected:
        # Nothing can be supported by passages that do not exist: a fact, not a model decision.
        is_grounded = False
    else:
        is_grounded = None
    has_sources, cited, unknown = detect_citations(item.answer, prepared.sources, item.sources_used)
    weights = {m.id: m.weight for m in rubric.metrics}
    unscored = [mid for mid, s in scores.items() if s.status == "unscored" and weights.get(mid, 0) > 0]
    q = overall_score(list(scores.values()), rubric, rules.not_applicable)
    verdict, reason = decide_verdict(rules, q, is_grounded, has_sources, unscored)
    if error is not None:
        verdict, reason = "unscored", f"no verdict: the answer could not be judged ({error})"

    injection = list(prepared.injection)
    injection += [f"{finding} (in the answer)" for finding in detect_injection(item.answer)]
    if item.agent_reasoning:
        injection += [f"{finding} (in the agent's reasoning)" for finding in detect_injection(item.agent_reasoning)]
    injection = list(dict.fromkeys(injection))
    flags = list(dict.fromkeys(engine_flags))
    if PROMPT_INJECTION_FLAG in flags and not injection:
        injection = ["text aimed at the judge (found by the engine's check of the prompt blocks)"]
    if injection and PROMPT_INJECTION_FLAG not in flags:
        flags.append(PROMPT_INJECTION_FLAG)
    held_back = bool(injection) and verdict == "approved"
    if held_back:
        verdict, reason = (
            "needs_improvement",
            (
                f"{reason}, but text aimed at the judge was found ({injection[0]}); not approved on the model's word "
                "alone: have a person check it"
            ),
        )

    accuracy = scores.get("accuracy")
    on_topic = question_terms_in_passages(prepared.question, prepared.passages)
    diagnosis, diagnosis_reason = diagnose(
        verdict=verdict,
        rules=rules,
        source_count=len(prepared.sources),
        grounding=grounding,
        accuracy=accuracy.score if accuracy is not None else None,
        pass_threshold=rubric.pass_threshold,
        on_topic=on_topic,
    )
    if held_back and diagnosis == "ok":
        diagnosis_reason = "no retrieval or grounding fault found; held back only because of suspected prompt injection"
    confidence, confidence_source = confidence_of(list(scores.values()), rubric, prepared.samples, grounding)
    issues = _issues(
        prepared=prepared, answer=item.answer, scores=scores, grounding=grounding, grounding_error=grounding_error,
        has_sources=has_sources, unknown=unknown, injection=injection, error=error, on_topic=on_topic,
    )  # fmt: skip
    who = f"{item.agent_name}: " if item.agent_name else ""
    summary = (
        f"{who}{verdict} ({prepared.context}, {rubric.id} v{rubric.version}): overall {_fmt(q)}; {reason}; "
        f"diagnosis {diagnosis}"
    )
    return RagJudgment(
        agent_name=item.agent_name,
        evaluation_context=prepared.context,
        verdict=verdict,
        verdict_reason=reason,
        overall_score=q,
        confidence=confidence,
        confidence_source=confidence_source,
        **{d: _dimension(scores, d, prepared) for d in DIMENSIONS},
        other_metrics=[s for mid, s in scores.items() if mid not in DIMENSIONS],
        has_sources=has_sources,
        cited_source_ids=cited,
        unknown_citations=unknown,
        is_grounded=is_grounded,
        passages_relevant=grounding.passages_relevant if grounding is not None else None,
        contradicts_passages=grounding.contradicts_passages if grounding is not None else None,
        unsupported_claims=list(grounding.unsupported_claims) if grounding is not None else [],
        sentence_support=grounding.sentences if isinstance(grounding, ProbabilityGrounding) else [],
        grounding_error=grounding_error if grounding is None else None,
        diagnosis=diagnosis,
        diagnosis_reason=diagnosis_reason,
        issues=issues,
        reasoning=grounding.reasoning if grounding is not None else "",
        agent_confidence=item.agent_confidence,
        flags=flags,
        error=error,
        usage=usage,
        provenance=provenance,
        summary=summary,
    )


async def _judge_one(judge: Judge, prepared: _Prepared, item: _AnswerInput) -> RagJudgment:
    started = time.perf_counter()
    rubric, rules = prepared.rubric, prepared.rules
    metrics = [m for m in rubric.metrics if m.id not in rules.not_applicable]
    data = {"question": prepared.question}
    if item.agent_reasoning:
        data["agent_reasoning"] = item.agent_reasoning
    if prepared.passages is not None and await judge.readout(prepared.model) == "probability":
        return await _judge_by_probability(judge, prepared, item, data)
    judgment: Judgment | None = None
    grounded: Structured[GroundingCheck] | None = None

    async def dimensions() -> None:
        nonlocal judgment
        judgment = await judge.score_metrics(
            rubric=rubric, metrics=metrics, subject=item.answer, source=prepared.passages, data=data,
            context_instructions=rules.instructions, samples=prepared.samples, model=prepared.model,
        )  # fmt: skip

    async def grounding() -> None:
        nonlocal grounded
        grounded = await _grounding(judge, prepared, item)

    # The dimensions and the grounding check are independent; the engine's limiter bounds the real concurrency.
    await _concurrently(dimensions, grounding)
    if judgment is None:  # unreachable: the task group either ran dimensions() to completion or raised
        raise RuntimeError("the dimension scoring task did not complete")
    usage = judgment.usage.add(grounded.usage) if grounded is not None else judgment.usage
    usage = usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})
    value, why = (grounded.value, grounded.error) if grounded is not None else (None, None)
    return _assemble(prepared, item, judgment.scores, value, why, judgment.flags, usage, judgment.provenance)


async def _judge_by_probability(
    judge: Judge, prepared: _Prepared, item: _AnswerInput, data: dict[str, str]
) -> RagJudgment:
    """Every dimension and every sentence read from probabilities, after one shared prompt prefix."""
    started = time.perf_counter()
    rubric, rules = prepared.rubric, prepared.rules
    accuracy = next((m for m in rubric.metrics if m.id == "accuracy" and m.id not in rules.not_applicable), None)
    others = [m for m in rubric.metrics if m.id not in rules.not_applicable and m is not accuracy]
    shared = prefix(rubric, prepared.passages, data)
    judgment: Judgment | None = None
    support: list[SentenceSupport] = []
    support_usage = Usage()

    async def dimensions() -> None:
        nonlocal judgment
        judgment = await judge.score_metrics(
            rubric=rubric, metrics=others, subject=item.answer, source=prepared.passages, data=data,
            context_instructions=rules.instructions, model=prepared.model,
        )  # fmt: skip

    async def sentences() -> None:
        nonlocal support, support_usage
        support, support_usage = await check_sentences(judge, shared, rubric, item.answer, prepared.model)

    await _concurrently(dimensions, sentences)
    if judgment is None:  # unreachable: the task group either ran dimensions() to completion or raised
        raise RuntimeError("the dimension scoring task did not complete")
    usage = judgment.usage.add(support_usage)
    contradicts = relevant = None
    if needs_follow_up(support, judgment.scores, rubric.pass_threshold):
        contradicts, relevant, used = await follow_up(judge, shared, rubric, prepared.model)
        usage = usage.add(used)
    grounding = probability_grounding(support, contradicts, relevant)
    scores = [*judgment.scores, *([accuracy_score(accuracy, support)] if accuracy is not None else [])]
    usage = usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})
    return _assemble(prepared, item, scores, grounding, None, judgment.flags, usage, judgment.provenance)


async def _concurrently(*jobs: Callable[[], Awaitable[None]]) -> None:
    """Run the jobs in one task group; a failure comes out as the engine's own error, not a group (the batch and
    the MCP boundary need its type)."""
    try:
        async with anyio.create_task_group() as tg:
            for job in jobs:
                tg.start_soon(job)
    except BaseExceptionGroup as group:
        raise _unwrap(group) from None


def _unwrap(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The single engine error behind a task group's failure, or the group itself when there is more."""
    leaves: list[BaseException] = []

    def collect(exc: BaseException) -> None:
        if isinstance(exc, BaseExceptionGroup):
            for inner in exc.exceptions:
                collect(inner)
        else:
            leaves.append(exc)

    collect(group)
    errors = [e for e in leaves if isinstance(e, GavelError)]
    if errors and len(errors) == len(leaves):
        return errors[0]
    return group


def _failed(prepared: _Prepared, item: _AnswerInput, error: str) -> RagJudgment:
    """An answer whose judging failed at the backend: unscored, with the deterministic findings kept."""
    judged = [
        MetricScore(metric=m.id, name=m.name, score=None, status="unscored", reason=error)
        for m in prepared.rubric.metrics
        if m.id not in prepared.rules.not_applicable
    ]
    return _assemble(prepared, item, judged, None, None, [], Usage(), None, error=error)


# -- the tools ------------------------------------------------------------------------------------------


async def judge_rag_answer(request: JudgeRagAnswerRequest, deps: ToolDeps) -> RagJudgment:
    prepared = _prepare(
        question=request.question, sources=request.sources, evaluation_context=request.evaluation_context,
        rubric_id=request.rubric, custom_rubric=request.custom_rubric, samples=request.samples,
        model=request.model, deps=deps,
    )  # fmt: skip
    _check_answer("", request.answer, request.sources_used, request.agent_reasoning, deps)
    item = _AnswerInput(request.answer, request.sources_used, request.agent_confidence, request.agent_reasoning)
    judge = await deps.judge()
    result = await _judge_one(judge, prepared, item)
    if request.explain == "narrative":
        text, why, used = await narrate(judge, result.render_text(), prepared.model)
        result = result.model_copy(update={"narrative": text, "narrative_error": why, "usage": result.usage.add(used)})
    return result


def _rank_key(result: RagJudgment) -> tuple[int, float]:
    unscored = result.verdict == "unscored" or result.overall_score is None
    return (1 if unscored else 0, -(result.overall_score or 0.0))


async def judge_rag_answers(request: JudgeRagAnswersRequest, deps: ToolDeps) -> RagBatchResult:
    started = time.perf_counter()
    prepared = _prepare(
        question=request.question, sources=request.sources, evaluation_context=request.evaluation_context,
        rubric_id=request.rubric, custom_rubric=request.custom_rubric, samples=request.samples,
        model=request.model, deps=deps,
    )  # fmt: skip
    if not request.answers:
        raise InvalidInput("must list at least one answer", field="answers")
    if len(request.answers) > deps.limits.max_batch:
        raise InvalidInput(
            f"has {len(request.answers)} answers; the limit is {deps.limits.max_batch} (GAVEL_MAX_BATCH). Split them "
            "into several calls.",
            field="answers",
        )
    names: dict[str, int] = {}
    for index, entry in enumerate(request.answers):
        if not entry.agent_name.strip():
            raise InvalidInput("must not be empty", field=f"answers[{index}].agent_name")
        if entry.agent_name in names:
            raise InvalidInput(f"{entry.agent_name!r} is also the name of answers[{names[entry.agent_name]}]; "
                               "names must be unique", field=f"answers[{index}].agent_name")  # fmt: skip
        names[entry.agent_name] = index
        _check_answer(f"answers[{index}].", entry.answer, entry.sources_used, entry.agent_reasoning, deps)
    items = [
        _AnswerInput(e.answer, e.sources_used, e.agent_confidence, e.agent_reasoning, agent_name=e.agent_name)
        for e in request.answers
    ]
    judge = await deps.judge()
    results: list[RagJudgment | None] = [None] * len(items)
    done = 0

    async def run(index: int, item: _AnswerInput) -> None:
        nonlocal done
        try:
            result = await _judge_one(judge, prepared, item)
        except BackendError as exc:
            # One answer's failure must not cost the others their judgments.
            result = _failed(prepared, item, str(exc))
        results[index] = result
        done += 1
        await deps.progress(done, len(items), f"judged {item.agent_name}: {result.verdict}")

    async with anyio.create_task_group() as tg:
        for index, item in enumerate(items):
            tg.start_soon(run, index, item)

    judged = sorted((r for r in results if r is not None), key=_rank_key)
    best = next((r.agent_name for r in judged if r.verdict == "approved"), None)
    usage = Usage()
    for result in judged:
        usage = usage.add(result.usage)
    usage = usage.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})
    flags = list(dict.fromkeys(flag for r in judged for flag in r.flags))
    counts = {
        v: sum(1 for r in judged if r.verdict == v) for v in ("approved", "needs_improvement", "rejected", "unscored")
    }
    tally = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    summary = (
        f"{len(judged)} answers judged ({prepared.context}, {prepared.rubric.id} v{prepared.rubric.version}): "
        f"{tally}; best: {best or 'none approved'}"
    )
    provenance = next((r.provenance for r in judged if r.provenance is not None), None)
    return RagBatchResult(
        evaluation_context=prepared.context,
        results=judged,
        best=best,
        flags=flags,
        usage=usage,
        provenance=provenance,
        summary=summary,
    )


__all__ = [
    "AgentAnswer",
    "GroundingCheck",
    "JudgeRagAnswerRequest",
    "JudgeRagAnswersRequest",
    "RagBatchResult",
    "RagJudgment",
    "Source",
    "confidence_of",
    "decide_verdict",
    "detect_citations",
    "diagnose",
    "format_passages",
    "judge_rag_answer",
    "judge_rag_answers",
    "overall_score",
]
