"""Checking a RAG request and preparing what every answer's judgment shares: the rubric and its context rules,
the passages as the judge sees them, and the injection findings in the question and passages. Everything here
runs before any model call; bad input fails with an InvalidInput that names the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gavel.tools.common import check_samples, require_text
from gavel.tools.deps import ToolDeps
from gavel.tools.errors import InvalidInput
from gavel.tools.guards import detect_injection
from gavel.tools.rag.citations import source_keys
from gavel.tools.rag.requests import (
    CONTEXTS,
    DEFAULT_RUBRIC,
    AgentAnswer,
    JudgeRagAnswerRequest,
    JudgeRagAnswersRequest,
    Passage,
)
from gavel.tools.rubrics import ContextRules, Rubric


@dataclass(frozen=True)
class AnswerInput:
    """One answer to judge, from a single request or one entry of a batch."""

    answer: str
    sources_used: list[str] | None
    agent_confidence: float | None
    agent_reasoning: str | None
    agent_name: str | None = None
    injection: tuple[str, ...] = ()  # findings in the answer and the agent's reasoning, labelled

    @classmethod
    def of(cls, entry: JudgeRagAnswerRequest | AgentAnswer, agent_name: str | None = None) -> AnswerInput:
        injection = [f"{finding} (in the answer)" for finding in detect_injection(entry.answer)]
        if entry.agent_reasoning:
            reasoning = detect_injection(entry.agent_reasoning)
            injection += [f"{finding} (in the agent's reasoning)" for finding in reasoning]
        return cls(
            entry.answer, entry.sources_used, entry.agent_confidence, entry.agent_reasoning, agent_name,
            tuple(dict.fromkeys(injection)),
        )  # fmt: skip


@dataclass(frozen=True)
class Prepared:
    """A RAG request, checked once, and what every answer's judgment shares; every text scanned for injection once."""

    request: JudgeRagAnswerRequest | JudgeRagAnswersRequest
    answers: tuple[AnswerInput, ...]
    rubric: Rubric
    context: str
    rules: ContextRules
    question: str
    sources: list[Passage]
    passages: str | None
    injection: list[str]  # findings in the question, reference and passages, labelled with where they are
    samples: int
    model: str | None
    reference: str | None = None  # the expected answer, when given: answer correctness and context recall
    needs_model: bool = True

    @property
    def rubric_from_registry(self) -> bool:
        return self.request.custom_rubric is None


async def prepare_answer(request: JudgeRagAnswerRequest, deps: ToolDeps) -> Prepared:
    shared = _shared(request, deps)
    _check_answer("", request, deps)
    return Prepared(request=request, answers=(AnswerInput.of(request),), **shared)


async def prepare_answers(request: JudgeRagAnswersRequest, deps: ToolDeps) -> Prepared:
    shared = _shared(request, deps)
    return Prepared(request=request, answers=tuple(_answers(request, deps)), **shared)


def _shared(request: JudgeRagAnswerRequest | JudgeRagAnswersRequest, deps: ToolDeps) -> dict[str, Any]:
    require_text(request.question, "question", deps.limits)
    _check_sources(request.sources, deps)
    check_samples(request.samples, deps.limits)
    reference = require_text(request.reference_answer, "reference_answer", deps.limits, required=False)
    if reference is not None and not reference.strip():
        raise InvalidInput("must not be empty; omit it when there is no expected answer", field="reference_answer")
    rubric = deps.registry.resolve(request.rubric, request.custom_rubric, default=DEFAULT_RUBRIC)
    if not rubric.scale.higher_is_better:
        raise InvalidInput("the RAG verdict rules need a rubric whose higher scores are better",
                           field="custom_rubric" if request.custom_rubric is not None else "rubric")  # fmt: skip
    context, rules = _context(request.evaluation_context, rubric)
    injection = [f"{finding} (in the question)" for finding in detect_injection(request.question)]
    injection += [f"{finding} (in the reference answer)" for finding in detect_injection(reference or "")]
    for index, source in enumerate(request.sources, 1):
        # The id too: the judge sees it with the passage.
        for text in (source.id or "", source.title or "", source.content):
            injection += [f"{finding} (in passage [{index}])" for finding in detect_injection(text)]
    return {
        "rubric": rubric,
        "context": context,
        "rules": rules,
        "question": request.question,
        "sources": request.sources,
        "passages": format_passages(request.sources),
        "injection": list(dict.fromkeys(injection)),
        "samples": request.samples,
        "model": request.model,
        "reference": reference,
    }


def _answers(request: JudgeRagAnswersRequest, deps: ToolDeps) -> list[AnswerInput]:
    """The batch's answers, checked: at least one, within GAVEL_MAX_BATCH, each named uniquely."""
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
        _check_answer(f"answers[{index}].", entry, deps)
    return [AnswerInput.of(entry, agent_name=entry.agent_name) for entry in request.answers]


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


def _check_sources(sources: Sequence[Passage], deps: ToolDeps) -> None:
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


def _check_answer(prefix: str, entry: JudgeRagAnswerRequest | AgentAnswer, deps: ToolDeps) -> None:
    require_text(entry.answer, f"{prefix}answer", deps.limits)
    require_text(entry.agent_reasoning, f"{prefix}agent_reasoning", deps.limits, required=False)
    sources_used = entry.sources_used
    if sources_used is not None and len(sources_used) > deps.limits.max_sources:
        raise InvalidInput(f"lists {len(sources_used)} ids; the limit is {deps.limits.max_sources}",
                           field=f"{prefix}sources_used")  # fmt: skip
    for index, used in enumerate(sources_used or []):
        if not used.strip() or len(used) > 200:
            raise InvalidInput("each id must be 1-200 characters", field=f"{prefix}sources_used[{index}]")


def format_passages(sources: Sequence[Passage]) -> str | None:
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
