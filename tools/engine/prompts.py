"""Prompt assembly: trusted template text from data files, untrusted text in delimited blocks.

Untrusted text (the judged text, sources, questions, candidates) never goes through a template. It is
neutralized so it cannot forge or close the delimiters, then placed in a block marked with a per-call
random nonce. The long shared blocks come first and the metric-specific instructions last, so the
backends' prompt caches reuse the prefix across the metrics of one evaluation.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template
from typing import Literal

from gavel.tools.guards import neutralize
from gavel.tools.rubrics import Metric, Rubric

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
_PROMPTS_FILE = PROMPTS_DIR / "judge.toml"


@dataclass(frozen=True)
class PromptSet:
    text: Mapping[str, str]

    def fill(self, name: str, **values: object) -> str:
        """The template filled, without the lines an empty placeholder left blank."""
        return "\n".join(line for line in self.substitute(name, **values).splitlines() if line.strip())

    def substitute(self, name: str, **values: object) -> str:
        """The template filled and nothing else: a value's own line breaks are kept as they are."""
        # safe_substitute: `$x` placeholders only, no attribute/index access, unknown names left as-is.
        return Template(self.text[name]).safe_substitute({k: str(v) for k, v in values.items()})


@cache
def _prompt_data() -> dict[str, object]:
    return tomllib.loads(_PROMPTS_FILE.read_bytes().decode("utf-8"))


@cache
def prompt_set() -> PromptSet:
    return PromptSet(text={k: v for k, v in _prompt_data().items() if isinstance(v, str)})


def screen_examples() -> list[dict[str, str]]:
    """The injection screen's worked examples (judge.toml's [[injection_screen_example]]), in order."""
    return _examples("injection_screen_example", ("text", "answer"))


def yes_no_statement_examples() -> list[dict[str, str]]:
    """The yes/no part's worked examples (judge.toml's [[yes_no_statements_example]]), in order."""
    return _examples("yes_no_statements_example", ("question", "yes", "no"))


def _examples(table: str, fields: Sequence[str]) -> list[dict[str, str]]:
    examples = _prompt_data().get(table, [])
    assert isinstance(examples, list)
    return [{field: str(e[field]) for field in fields} for e in examples]


def _per_kind(table: str, kind: str, default: float) -> float:
    """A check kind's value in one of judge.toml's per-kind tables (hashed with the prompts), or `default`."""
    values = _prompt_data().get(table, {})
    assert isinstance(values, dict)
    return float(values.get(kind, default))


def finding_cut(kind: str, default: float) -> float:
    """The P(mistake) from which a check of this kind names its item as a finding (judge.toml's [finding_cut];
    `default` for a kind it does not list)."""
    return _per_kind("finding_cut", kind, default)


def check_floor(kind: str) -> float:
    """The P(mistake) a rubric check of this kind must exceed to count (judge.toml's [check_floor])."""
    return _per_kind("check_floor", kind, 0.0)


@dataclass(frozen=True)
class ReplyLikelihood:
    """How a reply to a conversation is read when its metric states no checks (judge.toml's [reply_likelihood])."""

    turns: int
    centre: float
    spread: float
    max_chars: int


@dataclass(frozen=True)
class EvidenceNamed:
    """How a metric that asks for evidence but states no checks is read (judge.toml's [evidence_named])."""

    question: str
    enough: float


def evidence_named() -> EvidenceNamed:
    table = _prompt_data()["evidence_named"]
    assert isinstance(table, dict)
    return EvidenceNamed(question=str(table["question"]), enough=float(table["enough"]))


@dataclass(frozen=True)
class Actionable:
    """How a code review's metric named for actionability but stating no checks is read (judge.toml's
    [actionable])."""

    question: str
    centre: float
    spread: float


def actionable() -> Actionable:
    table = _prompt_data()["actionable"]
    assert isinstance(table, dict)
    return Actionable(question=str(table["question"]), centre=float(table["centre"]), spread=float(table["spread"]))


@dataclass(frozen=True)
class Placed:
    """Where a logistic curve puts a reading on the scale: `centre` at its middle, `spread` its width."""

    centre: float
    spread: float


def repetition_counted() -> Placed:
    """How the restated sentences of a metric that speaks of repetition and length are counted (judge.toml's
    [repetition_counted])."""
    table = _prompt_data()["repetition_counted"]
    assert isinstance(table, dict)
    return Placed(centre=float(table["centre"]), spread=float(table["spread"]))


@dataclass(frozen=True)
class Leads:
    """How checks of kind 'leads' count a point ahead of a more serious one (judge.toml's [leads])."""

    spread: float
    tolerance: float
    by_length: bool


def leads() -> Leads:
    table = _prompt_data()["leads"]
    assert isinstance(table, dict)
    by_length = table["weigh"] == "length"
    return Leads(spread=float(table["spread"]), tolerance=float(table["tolerance"]), by_length=by_length)


def reply_likelihood() -> ReplyLikelihood:
    table = _prompt_data()["reply_likelihood"]
    assert isinstance(table, dict)
    return ReplyLikelihood(
        turns=int(table["turns"]),
        centre=float(table["centre"]),
        spread=float(table["spread"]),
        max_chars=int(table["max_chars"]),
    )


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def prompt_files(directory: Path = PROMPTS_DIR) -> list[Path]:
    """Every file of prompt text: all of the directory, whatever the files are named or whoever reads them."""
    return sorted(
        path
        for path in directory.rglob("*")
        if path.is_file()
        and not any(part.startswith(".") or part == "__pycache__" for part in path.relative_to(directory).parts)
    )


def prompts_digest(directory: Path = PROMPTS_DIR) -> str:
    """A hash of every byte of every prompt file, each framed by its name and length so no two sets collide."""
    digest = hashlib.sha256()
    for path in prompt_files(directory):
        name = path.relative_to(directory).as_posix().encode("utf-8", "surrogatepass")
        data = path.read_bytes()
        digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()[:16]


@cache
def _installed_prompts_digest() -> str:
    # Read once per process, like the prompts themselves: an edit takes effect on restart, hash and text together.
    return prompts_digest()


def template_hash(rubric: Rubric | None, *, directory: Path | None = None) -> str:
    """A hash of everything trusted that shapes a prompt: every prompt file and the rubric text.

    The ledger's cache key and each result's provenance carry it, so editing any prompt text, in any file
    under tools/prompts/, means no judgment made with the old text is served for the new.
    """
    files = _installed_prompts_digest() if directory is None else prompts_digest(directory)
    rubric_part = rubric.model_dump_json().encode() if rubric else b""
    return _sha(files.encode() + rubric_part)


def nonce_for(blocks: Mapping[str, str]) -> str:
    """The delimiter id for one prompt, derived from its blocks.

    Deterministic, so an identical request renders identically (prompt caches, the ledger's cache key,
    and MCP sampling's replay across input-required rounds all rely on it). It is not what keeps judged
    text inside its block: `neutralize` guarantees no block can contain a delimiter at all.
    """
    digest = hashlib.sha256()
    for label, content in blocks.items():
        digest.update(label.encode("utf-8", "surrogatepass") + b"\0" + content.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()[:8]


def _safe_label(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in label)[:40] or "data"


def block(label: str, content: str, nonce: str) -> str:
    safe_label = _safe_label(label)
    return f"<<<BEGIN {safe_label} {nonce}>>>\n{neutralize(content)}\n<<<END {safe_label} {nonce}>>>"


def fenced(label: str, content: str) -> str:
    """A block for the probability readout: `Label:` and the text between a line <<< and a line >>>.

    Measured on the embedded default (first 20 HaluEval dev pairs): with the nonce-delimited blocks above,
    its Yes/No probabilities barely separate right from hallucinated answers (AUROC 0.63); with this plain
    fence they do (0.89). The fence is as safe: `neutralize` leaves no run of three angle brackets in the text.
    """
    name = " ".join(label.replace("_", " ").split()) or "Data"
    return f"{name[:1].upper()}{name[1:]}:\n<<<\n{neutralize(content)}\n>>>"


def inline(label: str, content: str) -> str:
    """A short one-line field, `Label: text`, for the probability readout: the question in the probe's layout.

    Neutralized like a fenced block and folded onto one line, so it can neither open a fence nor start a line of
    its own that reads as an instruction.
    """
    return f"{label}: {' '.join(neutralize(content).split())}"


def strip_echo(text: str, blocks: Mapping[str, str], nonce: str) -> str:
    """A generated text without the material it echoed back from its own prompt.

    Small models (the embedded default among them) often copy the prompt's delimited blocks before they
    write, and sometimes write their text inside a copied block. A block carrying this call's nonce and one
    of its labels loses the material it repeats and keeps what the model added or changed; any other line
    with this call's nonce is a delimiter the model wrapped its own text in, so only that line goes. Judged
    text cannot hold a delimiter (`neutralize`), so nothing the caller wrote is ever mistaken for one.
    """
    for label, content in blocks.items():
        safe = re.escape(_safe_label(label))
        original = neutralize(content).strip()

        def added(match: re.Match[str], original: str = original) -> str:
            inner = match.group(1).strip()
            return inner.removeprefix(original).strip()

        text = re.sub(rf"<<<BEGIN {safe} {nonce}>>>(.*?)<<<END {safe} {nonce}>>>", added, text, flags=re.DOTALL)
    text = re.sub(rf"^.*<<<(?:BEGIN|END) \S+ {nonce}>>>.*$", "", text, flags=re.MULTILINE)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def data_section(blocks: Mapping[str, str], nonce: str) -> str:
    parts = [prompt_set().text["data_intro"]]
    parts.extend(block(label, content, nonce) for label, content in blocks.items() if content is not None)
    return "\n\n".join(parts)


def anchors(metric: Metric) -> str:
    if not metric.levels:
        return ""
    ordered = sorted(metric.levels.items(), key=lambda item: float(item[0]), reverse=True)
    return "Anchors:\n" + "\n".join(f"- {score}: {text}" for score, text in ordered)


def _scale_values(rubric: Rubric) -> dict[str, object]:
    fmt = (lambda v: str(int(v))) if rubric.scale.integer else (lambda v: f"{v:g}")
    return {
        "scale_min": fmt(rubric.scale.min),
        "scale_max": fmt(rubric.scale.max),
        "integer_note": ", whole numbers only" if rubric.scale.integer else "",
    }


Evidence = Literal["source", "question"] | None


def _evidence_note(rubric: Rubric, evidence: Evidence) -> str:
    if evidence is None:
        return "first "
    # One substitution pass: a label that itself looks like a placeholder stays as written.
    return Template(prompt_set().text[f"evidence_{evidence}"]).safe_substitute(
        subject=rubric.prompt.subject, source_label=rubric.prompt.source_label
    )


def _instruction_values(rubric: Rubric, context_instructions: str | None, evidence: Evidence) -> dict[str, object]:
    """What the per-metric and the joint instruction fill alike, so the two prompts cannot drift apart."""
    return {
        "evidence_note": _evidence_note(rubric, evidence),
        "rubric_title": rubric.title,
        "rubric_guidance": rubric.prompt.guidance,
        "context_instructions": context_instructions or "",
        "subject": rubric.prompt.subject,
        **_scale_values(rubric),
    }


def metric_instruction(
    rubric: Rubric, metric: Metric, context_instructions: str | None, evidence: Evidence = None
) -> str:
    return prompt_set().fill(
        "metric",
        metric_name=metric.name,
        metric_description=metric.description,
        levels=anchors(metric),
        **_instruction_values(rubric, context_instructions, evidence),
    )


def joint_instruction(
    rubric: Rubric, metrics: Sequence[Metric], context_instructions: str | None, evidence: Evidence = None
) -> str:
    metric_blocks = "\n".join(
        f"* {m.id} ({m.name}): {m.description}" + (f" {anchors(m)}".replace("\n", " ") if m.levels else "")
        for m in metrics
    )
    return prompt_set().fill(
        "joint", metric_blocks=metric_blocks, **_instruction_values(rubric, context_instructions, evidence)
    )


def reask_instruction(rubric: Rubric | None, error: str) -> str:
    if rubric is None:
        return prompt_set().fill("structured_reask", error=error)
    return prompt_set().fill("reask", error=error, **_scale_values(rubric))
