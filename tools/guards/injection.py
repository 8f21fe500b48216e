"""Prompt-injection detection: every rule read over the text and over each disguise undone (see the package's
docstring for the parts).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from gavel.tools.guards.concepts import CONCEPT_RULES, mentions_grading
from gavel.tools.guards.disguises import SQUEEZED, disguised, squeezed
from gavel.tools.guards.rules_english import ENGLISH, ENGLISH_LATER, Rule
from gavel.tools.guards.rules_hijack import HIJACK
from gavel.tools.guards.rules_intl import EUROPEAN, OTHER_SCRIPTS
from gavel.tools.guards.rules_judge import JUDGE
from gavel.tools.guards.rules_judge_asides import JUDGE_ASIDES
from gavel.tools.guards.rules_reader import READER
from gavel.tools.guards.rules_tools import TOOLS
from gavel.tools.guards.rules_world import WORLD
from gavel.tools.guards.text import normalize_for_matching

# The order matters: a finding from a hidden comment names the first rule that matched it.
RULES: list[Rule] = [
    *ENGLISH, *EUROPEAN, *ENGLISH_LATER, *OTHER_SCRIPTS, *WORLD, *READER, *HIJACK, *JUDGE, *JUDGE_ASIDES, *TOOLS,
]  # fmt: skip

_HTML_COMMENT = re.compile(r"<!--(.{0,4000}?)(?:-->|\Z)", re.DOTALL)
_MD_COMMENT = re.compile(r"(?m)^\[(?:[^\]\n]{0,40})\]:\s*(?:#|<>)\s*[(\"'](.{0,2000}?)[)\"']\s*$")
# A comment that talks to the evaluator is suspicious even without a full instruction phrase: ordinary
# hidden comments in an answer have no reason to mention the judge, the rubric or a score.
_ADDRESSED_TO_JUDGE = re.compile(
    r"\b(?:judge|grader|evaluator|rubric|verdict|llm|language model|ai model|assistant|score|rating|grade"
    r"|juiz|avaliador|nota|juez|evaluador|juge|evaluateur|richter|bewertung)\b"
)
# An image the reader's client would load from elsewhere: the URL can carry the judged text, or anything the
# model was shown, to whoever runs that host. Flagged whatever the image shows.
_OUTSIDE_IMAGE = re.compile(
    r"!\[[^\]\n]{0,300}\]\(\s*<?((?:https?:)?//[^\s)>/?#]{1,253})"
    r"|<img\b[^>]{0,500}?\bsrc\s*=\s*[\"']?((?:https?:)?//[^\s\"'>/?#]{1,253})"
)
# The same image as a reference link: "![fig][ref]" and, on a line of its own, "[ref]: https://host/...".
_IMAGE_REF = re.compile(r"!\[[^\]\n]{0,300}\]\[([^\]\n]{1,40})\]")
_REF_DEFINITION = r"(?m)^[ \t]{{0,3}}\[{}\]:[ \t]*<?((?:https?:)?//[^\s>/?#]{{1,253}})"
_SNIPPET_CHARS = 80
_LEADING_ANCHOR = re.compile(
    r"^[\s.,;:!?*>(#\[_-]*(?:(?:and|then|now|just|please|so|instead|e|entao|agora|y|luego|ahora|et|puis|und"
    r"|dann|jetzt|bitte|por favor|s'il vous plait)\s+)?"
)


def _snippet(text: str) -> str:
    compact = " ".join(text.split())
    return compact if len(compact) <= _SNIPPET_CHARS else compact[: _SNIPPET_CHARS - 1] + "…"


def _matches(normalized: str, rules: Sequence[tuple[str, Any]] = RULES) -> Iterator[tuple[str, str]]:
    for label, pattern in rules:
        for match in pattern.finditer(normalized):
            # Drop the leading connective/punctuation that only anchors the imperative.
            yield label, _LEADING_ANCHOR.sub("", match.group(0)).rstrip()


def detect_injection(text: str) -> list[str]:
    """Short findings, one per distinct suspicious phrase, e.g. "instruction to the judge: 'ignore ...'".

    Empty when the text looks clean. Matching is done on a normalized copy (NFKC, no zero-width
    characters, case-folded, accents removed) so look-alike spellings do not slip through, and again on each
    disguise undone (see `disguised`): look-alike letters, spaced-out letters, digits for letters, ROT13,
    base64, invisible tag characters, URL-encoding, reversal, words split by hyphens or dots, markdown links and
    citation brackets; letters only, for the core orders split anywhere. An image loaded from an outside URL
    is a finding in itself.
    """
    if not text:
        return []
    normalized = normalize_for_matching(text)
    findings: list[str] = []

    def add(finding: str) -> None:
        if finding not in findings:
            findings.append(finding)

    variants = list(disguised(text, normalized))
    # The phrase rules first; the rules by concept (`guards/concepts.py`) only when no phrase was found, so a text
    # that a phrase rule explains is reported by its phrase alone.
    for rules in (RULES, CONCEPT_RULES):
        if findings:
            break
        plain: set[str] = set()
        for label, phrase in _matches(normalized, rules):
            plain.add(phrase)
            add(f"{label}: '{_snippet(phrase)}'")
        for how, variant in variants:
            if how == "squeezed":
                for match in SQUEEZED.finditer(variant) if rules is RULES else ():
                    add(f"instruction to the judge (letters spaced out): '{_snippet(match.group(0))}'")
                continue
            for label, phrase in _matches(variant, rules):
                if phrase not in plain:  # found as written already; the variant only repeats it
                    add(f"{label} ({how}): '{_snippet(phrase)}'")
        # Letters only: for an order split where no variant joins it back, so read only when nothing else was found.
        for match in squeezed(normalized) if not findings and rules is RULES else ():
            add(f"instruction to the judge (words split): '{_snippet(match.group(0))}'")
    for match in _OUTSIDE_IMAGE.finditer(normalized):
        add(f"image link to an outside URL: '{_snippet(match.group(1) or match.group(2))}'")
    for match in _IMAGE_REF.finditer(normalized):
        if target := re.search(_REF_DEFINITION.format(re.escape(match.group(1))), normalized):
            add(f"image link to an outside URL: '{_snippet(target.group(1))}'")
    for comment_re in (_HTML_COMMENT, _MD_COMMENT):
        for match in comment_re.finditer(normalized):
            body = match.group(1)
            inner = list(_matches(body))
            if inner:
                add(f"instruction hidden in a comment: '{_snippet(inner[0][1])}'")
            elif _ADDRESSED_TO_JUDGE.search(body) or mentions_grading(body):
                add(f"hidden comment addressed to the judge: '{_snippet(body)}'")
    return findings
