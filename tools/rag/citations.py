"""Which passages an answer cites, decided from its text alone (never by the model)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from gavel.tools.rag.requests import Passage


def source_keys(sources: Sequence[Passage]) -> list[str]:
    """How each passage is referred to in results: its id, or its 1-based position when it has none."""
    return [s.id if s.id is not None else str(index) for index, s in enumerate(sources, 1)]


# Up to three digits: a bracketed year such as [2023] is not a passage number.
_POSITIONAL = re.compile(
    r"^(?:s|src|source|fonte|fuente|quelle|doc|document|documento|passage|passagem|pasaje|ref)?\s*#?\s*(\d{1,3})$",
    re.IGNORECASE,
)


def _resolve(label: str, sources: Sequence[Passage], keys: Sequence[str]) -> str | None:
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


def _is_citation_label(label: str, sources: Sequence[Passage], keys: Sequence[str]) -> bool:
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


class Citations(NamedTuple):
    has_sources: bool
    cited: list[str]  # the passages' keys, in order of first citation
    unknown: list[str]


def detect_citations(answer: str, sources: Sequence[Passage], sources_used: Sequence[str] | None) -> Citations:
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
    return Citations(has_sources, cited, list(dict.fromkeys(unknown)))
