"""What a rewritten text must not carry, checked line by line: the writer's remarks about its own rewrite,
and the judge's feedback pasted back into it.

Small models often end a revision with "The revised assessment now includes all the required information…"
or copy the feedback lines ("- specificity: Scored 4/5.") into the text. Either is text about the text, not
part of it, and a person receiving the result should never have to clean it up. The checks are plain
patterns over lines and a verbatim search for the feedback that was given, so the same text always gets the
same answer; refine_until_pass asks once more when one fires and rejects the revision when it fires again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from gavel.tools.assessment import EvaluationResult
from gavel.tools.common import one_line
from gavel.tools.engine import derived_checks, paragraphs, prompts
from gavel.tools.rubrics import Rubric

RevisionProblemCode = Literal["writer_remarks", "judge_feedback"]

# Feedback notes shorter than this are too generic to mean a paste when they recur ("Too vague.").
_MIN_PASTED_CHARS = 30
_EVIDENCE_CHARS = 120
# The feedback's own form, "Scored 4/5." (a clinical "PHQ-8 score: 12/24" is content: see _scale_score).
_SCORED = re.compile(r"\bscored\s+\d+(?:\.\d+)?\s*(?:/|out of)\s*\d+", re.IGNORECASE)
_FEEDBACK_HEADING = re.compile(r"^\W*(?:feedback|scores?|evaluation|rubric|judge'?s? notes?)\W*$", re.IGNORECASE)
_OPENERS = re.compile(
    r"^\W*(?:sure|certainly|of course|okay|absolutely)\b|^\W*here(?:'s| is| are)\b|^\W*below is\b", re.IGNORECASE
)
_REMARKS = re.compile(
    r"\b(?:a|the|this|my|above) (?:revised|updated|improved|rewritten|new) (?:version|text|draft)\b"
    r"|\b(?:this|the above|my) revision\b"
    r"|\bI(?: have|'ve)? (?:revised|rewritten|updated|added|removed|included|addressed|incorporated|made sure)\b"
    # The writer reading the feedback back: "The feedback suggests that the essay should name…", opening a line or
    # a sentence. Only the feedback as the subject of a verb of advice; "the patient gave feedback about…" is content.
    r"|(?:^|[.!?]\s+)\W*(?:the|this|your|the judge's) feedback "
    r"(?:suggests|says|asks|notes|points out|recommends|indicates|mentions)\b"
    r"|\b(?:address\w*|incorporat\w*|per|based on|following)\b[^.]*\bfeedback\b"
    r"|^\W*(?:note|changes(?: made)?|revisions? made|explanation)\s*:"
    r"|\blet me know\b"
    # The writer describing its own paragraphs: "The first paragraph is well-organized and provides…".
    r"|\b(?:the|this) (?:first|second|third|fourth|fifth|last|final|opening|next) paragraph "
    r"(?:is|should|provides|elaborates|introduces|now|has been|could|needs)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RevisionProblem:
    code: RevisionProblemCode
    evidence: str

    def describe(self) -> str:
        what = (
            "remarks about the rewrite itself"
            if self.code == "writer_remarks"
            else "the judge's feedback or scores copied into the text"
        )
        return f"{what} ({self.evidence!r})"


def _scale_score(scale_max: float) -> re.Pattern[str]:
    """'score: 4/5' or 'rating 4 out of 5' on the rubric's own scale."""
    top = re.escape(f"{scale_max:g}")
    return re.compile(rf"\b(?:score|rating)s?\b\W*\d+(?:\.\d+)?\s*(?:/|out of)\s*{top}\b", re.IGNORECASE)


def _subject_word(subject: str) -> str:
    """The rubric's own word for the text, e.g. "assessment", as a pattern."""
    return re.escape(subject.split()[-1]) if subject.strip() else "text"


def _subject_remarks(subject: str) -> re.Pattern[str]:
    # "The revised assessment now includes…", "the previous essay does not provide any specific evidence…". Only
    # with the rubric's own word: "the original draft" or "the earlier text" of a treaty is an essay's content.
    # "Therefore, I will revise the essay by adding…": the writer announcing its rewrite of the text itself ("I will
    # improve my sleep" is content).
    word = _subject_word(subject)
    return re.compile(
        rf"\b(?:the|this|my) (?:revised|updated|improved|rewritten|new|previous|original|earlier) {word}\b"
        rf"|\bI(?: will|'ll| am going to) (?:revise|rewrite|update|improve) (?:the|this|my) (?:{word}|text)\b",
        re.IGNORECASE,
    )


def _normalized(text: str) -> str:
    return " ".join(text.lower().split())


_QUOTED = re.compile(r"“[^”]*”")


def _notes(feedback: Mapping[str, str]) -> Iterable[str]:
    """The judge's explanations inside the feedback, without the 'Scored s/max.' prefix."""
    for note in feedback.values():
        explanation = re.sub(r"^scored [^.]*\.\s*", "", note.strip(), flags=re.IGNORECASE)
        # Quoted items are the text's or the source's own words (a checked metric's findings): the writer may
        # well keep or add them; only the feedback's own wording is the judge's.
        explanation = _QUOTED.sub(" ", explanation)
        for sentence in re.split(r"(?<=[.!?])\s+", explanation):
            if len(sentence) >= _MIN_PASTED_CHARS:
                yield _normalized(sentence)


# A heading that opens the writer's closing remarks: "### Explanation:", "**Changes made**".
_REMARKS_HEADING = re.compile(
    r"^\W*(?:explanation|changes(?: made)?|revisions?(?: made)?|summary of (?:the )?(?:changes|revisions))\W*$",
    re.IGNORECASE,
)


def _title(subject: str) -> re.Pattern[str]:
    """The writer's own title for its reply: "### Revised Assessment", "Improved version of the assessment:"."""
    word = _subject_word(subject)
    return re.compile(
        rf"^\W*(?:revised|updated|improved|rewritten|new)\s+(?:version\s+(?:of\s+)?(?:the\s+)?)?{word}\W*$",
        re.IGNORECASE,
    )


def _carried_lines(carried: str | None) -> frozenset[str]:
    """The previous version's own lines: carried into the rewrite, they are the text's content (an "Explanation"
    section of an exam answer, a clinical "Note: …"), never the writer's frame or remarks."""
    return frozenset(_normalized(line) for line in (carried or "").splitlines() if line.strip())


def strip_frame(text: str, *, subject: str, carried: str | None = None) -> tuple[str, str | None]:
    """The reply without the writer's frame around the text: its title line for it and a closing section under a
    remarks heading, unless the previous version (`carried`) had that line too. Small models add both however
    they are asked; neither is part of the text. Returns the text and what was cut (None when nothing was), so
    the cut stays visible."""
    own = _carried_lines(carried)
    lines = text.splitlines()
    cut: list[str] = []
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if start < len(lines) and _title(subject).match(lines[start]) and _normalized(lines[start]) not in own:
        cut.append(lines[start])
        start += 1
    headings = (i for i in range(start + 1, len(lines)) if _REMARKS_HEADING.match(lines[i]))
    end = next((i for i in headings if _normalized(lines[i]) not in own), len(lines))
    cut += lines[end:]
    kept = "\n".join(lines[start:end]).strip()
    if not kept or not cut:
        return text, None
    return kept, "\n".join(cut).strip()


def revision_problems(
    text: str,
    *,
    subject: str,
    metric_ids: Iterable[str],
    scale_max: float,
    feedback: Mapping[str, str] | None = None,
    carried: str | None = None,
) -> list[RevisionProblem]:
    """Every way `text` carries something other than the text itself; empty when it is clean. A line the previous
    version (`carried`) had is the text's own, not a remark about the rewrite."""
    own = _carried_lines(carried)
    ids = "|".join(re.escape(m) for m in metric_ids) or r"(?!)"
    # "- specificity: …", the feedback's line form, with the metric's id as the rubric spells it.
    metric_line = re.compile(rf"^\W*(?:{ids})\W*\s*[:\-–]", re.IGNORECASE)
    scale_score, subject_remarks = _scale_score(scale_max), _subject_remarks(subject)
    lines = [line for line in text.splitlines() if line.strip()]
    found: list[RevisionProblem] = []
    for index, line in enumerate(lines):
        evidence = one_line(line, _EVIDENCE_CHARS)
        feedback_like = _SCORED.search(line) or scale_score.search(line) or metric_line.match(line)
        if feedback_like or _FEEDBACK_HEADING.match(line):
            found.append(RevisionProblem("judge_feedback", evidence))
        elif _normalized(line) in own:
            continue
        elif _REMARKS.search(line) or subject_remarks.search(line) or (index == 0 and _OPENERS.match(line)):
            found.append(RevisionProblem("writer_remarks", evidence))
    flat = _normalized(text)
    found += [
        RevisionProblem("judge_feedback", one_line(note, _EVIDENCE_CHARS))
        for note in _notes(feedback or {})
        if note in flat
    ]
    return found


def feedback_for(evaluation: EvaluationResult, rubric: Rubric) -> dict[str, str]:
    """Feedback for each low metric, as the source design gives it: 'Scored s/max. <explanation>'; for a score
    read from probabilities, which comes with no reasoning, the metric's definition and its top anchor."""
    by_id = {s.metric: s for s in evaluation.scores}
    top = f"{rubric.scale.max:g}"
    feedback = {}
    for metric in evaluation.low_metrics:
        score = by_id[metric]
        defined = rubric.metric(metric)
        checked = defined.checks or derived_checks.checks_for(defined, about=rubric.prompt.about)
        if paragraphs.is_layout_score(score) and derived_checks.asks_for_paragraphs(defined, rubric.prompt.subject):
            feedback[metric] = paragraphs.feedback(score, rubric, top)
        elif paragraphs.is_layout_score(score) and derived_checks.names_a_wall(defined):
            feedback[metric] = paragraphs.feedback(score, rubric, top, "feedback_wall")
        elif score.findings and checked is not None:
            # The checks say which sentences cost the score (or which statements are missing): hand exactly
            # those to the writer, so the rewrite fixes them instead of paraphrasing the whole text.
            quoted = "\n".join(f"- “{f.item}”" for f in score.findings)
            feedback[metric] = prompts.prompt_set().substitute(
                f"feedback_{checked.kind}", score=f"{score.score:.3g}", max=top, items=quoted,
                subject=rubric.prompt.subject, source_label=rubric.prompt.source_label,
                question=checked.question or "", answer=checked.mistake, per=f"{checked.per}s",
            )  # fmt: skip
        elif score.readout == "probability":
            best = rubric.scale.best_level(defined.levels)  # the best end, also on a lower-is-better scale
            feedback[metric] = prompts.prompt_set().substitute(
                "feedback_probability", score=f"{score.score:.3g}", max=top, description=defined.description,
                anchor=f" A {best[0]} means: {best[1]}." if best else "",
            )  # fmt: skip
        else:
            feedback[metric] = f"Scored {score.score:.3g}/{top}. {score.explanation}".strip()
    return feedback
