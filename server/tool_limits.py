"""The limits a tool's description states: those configured (`Settings.limits()`) that apply to that tool."""

from __future__ import annotations

from collections.abc import Callable

from gavel.tools.common import Limits

# How each configured limit is stated to the agent's model, and which tools state which: only those they apply.
_LIMIT_PHRASES: dict[str, Callable[[Limits], str]] = {
    "max_text_chars": lambda limits: f"{limits.max_text_chars:,} characters per text field",
    "max_sources": lambda limits: f"{limits.max_sources} sources",
    "max_batch": lambda limits: f"{limits.max_batch} answers",
    "max_candidates": lambda limits: f"{limits.max_candidates:,} candidates",
    "max_samples": lambda limits: f"samples 1-{limits.max_samples}",
    "max_iterations": lambda limits: f"{limits.max_iterations} iterations",
}
_LIMITS_OF = {
    "evaluate_assessment": ("max_text_chars", "max_samples"),
    "refine_until_pass": ("max_text_chars", "max_samples", "max_iterations"),
    "judge_rag_answer": ("max_text_chars", "max_sources", "max_samples"),
    "judge_rag_answers": ("max_text_chars", "max_sources", "max_batch", "max_samples"),
    "score_candidates": ("max_candidates", "max_text_chars", "max_samples"),
}


def limits_note(limits: Limits, tool: str) -> str:
    stated = [_LIMIT_PHRASES[name](limits) for name in _LIMITS_OF.get(tool, ())]
    return f"Limits: {', '.join([*stated, f'{limits.call_deadline_s:g} s per call'])}."


def described(tool: str, description: str, limits: Limits) -> str:
    """A tool's description as listed: with the limits that apply to it (calibrate_judge states none: it takes no
    text of the caller's, and each item has its own deadline)."""
    return f"{description} {limits_note(limits, tool)}" if tool in _LIMITS_OF else description
