"""Labelled sets a judge is calibrated on: the ones shipped in tools/calibration/data/, or a user's own JSONL.

A set is a JSONL file (one item a line, the format in tools/calibration/data/README.md) and a TOML sidecar of
the same name saying which tool it belongs to, where it comes from, its licence and how its labels were made.
Each tool has an adapter here: how an item becomes the tool's request, and which number of the result is the
judge's score (0-1, higher is better) with the default cut that score is decided at.
"""

from __future__ import annotations

import io
import json
import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from gavel.tools import assessment, rag
from gavel.tools.common import ToolResult
from gavel.tools.deps import ToolDeps
from gavel.tools.errors import InvalidInput
from gavel.tools.evaluation.dataset import lone_surrogate
from gavel.tools.rag.sentence_support import SUPPORT_CUT, not_raised
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import Rubric, Scale

DATA_DIR = Path(__file__).with_name("data")


@dataclass(frozen=True)
class Item:
    id: str
    fields: dict[str, Any]
    good: bool | None  # the binary label; None when the item carries only a graded one
    graded: float | None
    pair: str | None


@dataclass(frozen=True)
class Adapter:
    """How one tool is calibrated."""

    tool: str
    result_model: type[ToolResult]
    request: Callable[[Item, str], BaseModel]
    impl: Callable[[Any, ToolDeps], Any]
    # The judge's score of an item, 0-1 with higher better; None when the judge did not score it.
    score: Callable[[Any], float | None]
    # The cut Gavel decides that score at, for the set's rubric.
    default_cut: Callable[[Rubric], float]
    score_note: str


def _rag_request(item: Item, rubric: str) -> BaseModel:
    given = item.fields.get("sources") or [item.fields["context"]]
    sources = [rag.Passage(content=s) if isinstance(s, str) else rag.Passage.model_validate(s) for s in given]
    return rag.JudgeRagAnswerRequest(
        question=item.fields["question"], answer=item.fields["answer"], sources=sources, rubric=rubric
    )


def _assessment_request(item: Item, rubric: str) -> BaseModel:
    return assessment.EvaluateAssessmentRequest(
        assessment=item.fields["assessment"], source=item.fields.get("source"), rubric=item.fields.get("rubric", rubric)
    )


def _rag_score(result: rag.RagJudgment) -> float | None:
    """The weakest claim's P(supported), or 0 when a claim read no higher with the passages than without them.

    The verdict's rule (tools/rag/sentence_support.py): a claim is supported when its P reaches the cut and the
    passages did not lower it. Such a claim fails at every cut, so the answer scores below all of them, and the
    cut decided on this score is the verdict's own. The check without the passages is asked only of claims at or
    above the cut the calibration judged at (Gavel's default), so a fitted cut below it reads slightly optimistic.
    """
    score = result.accuracy.score
    if score is None:
        return None
    return 0.0 if any(not_raised(s) for s in result.sentence_support) else score


def _assessment_score(result: assessment.EvaluationResult) -> float | None:
    if result.average is None or result.unscored_metrics:
        return None
    scale = result.scale
    return Scale(min=scale.min, max=scale.max, higher_is_better=scale.higher_is_better).share_of(result.average)


ADAPTERS: dict[str, Adapter] = {
    "judge_rag_answer": Adapter(
        tool="judge_rag_answer",
        result_model=rag.RagJudgment,
        request=_rag_request,
        impl=rag.judge_rag_answer,
        score=_rag_score,
        default_cut=lambda rubric: SUPPORT_CUT,
        score_note=(
            "accuracy (probability readout: the weakest sentence's P(supported), 0 when the passages did not raise "
            "a claim above its P without them, as the verdict's rule fails it); good when >= the cut"
        ),
    ),
    "evaluate_assessment": Adapter(
        tool="evaluate_assessment",
        result_model=assessment.EvaluationResult,
        request=_assessment_request,
        impl=assessment.evaluate_assessment,
        score=_assessment_score,
        default_cut=lambda rubric: rubric.scale.share_of(rubric.pass_threshold),
        score_note="the mean metric score scaled to 0-1; good when >= the cut (the pass threshold, scaled)",
    ),
}
DEFAULT_RUBRICS = {"judge_rag_answer": rag.DEFAULT_RUBRIC, "evaluate_assessment": assessment.DEFAULT_RUBRIC}


@dataclass(frozen=True)
class CalibrationSet:
    name: str
    tool: str
    rubric: str
    items: list[Item]
    meta: dict[str, Any] = field(default_factory=dict)
    path: str = ""

    @property
    def adapter(self) -> Adapter:
        return ADAPTERS[self.tool]

    def take(self, limit: int | None) -> list[Item]:
        """The first `limit` items in file order; a pair cut in two by the limit is left out whole."""
        chosen = self.items if limit is None else self.items[:limit]
        if limit is not None and chosen and chosen[-1].pair is not None:
            last = chosen[-1].pair
            if sum(1 for item in self.items if item.pair == last) > sum(1 for item in chosen if item.pair == last):
                chosen = [item for item in chosen if item.pair != last]
        return chosen


def shipped_sets() -> list[str]:
    return sorted(path.stem for path in DATA_DIR.glob("*.jsonl"))


def _item(row: dict[str, Any], line: int, where: str) -> Item:
    label = row.get("label")
    if label not in ("good", "bad", None):
        raise InvalidInput(f"{where} line {line}: label must be 'good' or 'bad' (got {label!r})", field="data")
    graded = row.get("score")
    # json reads NaN and Infinity, and true is an int: none is a grade a judge's score can be ranked against.
    if isinstance(graded, bool) or (isinstance(graded, float) and not math.isfinite(graded)):
        raise InvalidInput(f"{where} line {line}: score must be a finite number (got {graded!r})", field="data")
    if label is None and not isinstance(graded, int | float):
        raise InvalidInput(f"{where} line {line}: give a label ('good'/'bad') or a numeric score", field="data")
    return Item(
        id=str(row.get("id", f"line-{line}")),
        fields=row,
        good=None if label is None else label == "good",
        graded=float(graded) if isinstance(graded, int | float) else None,
        pair=str(row["pair"]) if row.get("pair") is not None else None,
    )


def _infer_tool(rows: list[dict[str, Any]], where: str) -> str:
    first = rows[0] if rows else {}
    if "answer" in first and "question" in first:
        return "judge_rag_answer"
    if "assessment" in first:
        return "evaluate_assessment"
    raise InvalidInput(
        f"{where}: cannot tell the tool from the first item; give question/context/answer (judge_rag_answer) or "
        "assessment/source (evaluate_assessment), or a sidecar TOML with tool = ...",
        field="data",
    )


def load_file(path: Path, registry: RubricRegistry, name: str | None = None) -> CalibrationSet:
    """A set from its JSONL file and, when present, the sidecar beside it (same name, .toml)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc}", field="data") from None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark (Windows editors) is read past
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InvalidInput(
            f"{path} line {line}: not UTF-8 text (byte {exc.start} of the file); save the file as UTF-8", field="data"
        ) from None
    rows: list[tuple[int, dict[str, Any]]] = []
    # Lines end at \n, \r\n or \r only: U+2028 and its kind are legal inside a JSON string.
    for number, line in enumerate(io.StringIO(text, newline=None), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            surrogate = lone_surrogate(row, number)  # no character: the HTML report could not be written with it
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{path} line {number}: not JSON ({exc})", field="data") from None
        except RecursionError:
            raise InvalidInput(
                f"{path} line {number}: nested too deeply to read; flatten its lists and objects", field="data"
            ) from None
        if surrogate is not None:
            raise InvalidInput(f"{path} {surrogate}", field="data")
        if not isinstance(row, dict):
            raise InvalidInput(f"{path} line {number}: not a JSON object; give one item a line", field="data")
        rows.append((number, row))
    meta = _sidecar(path.with_suffix(".toml"))
    tool = meta.get("tool") or _infer_tool([row for _, row in rows], str(path))
    if tool not in ADAPTERS:
        raise InvalidInput(f"{path}: tool {tool!r} cannot be calibrated; one of {', '.join(ADAPTERS)}", field="data")
    rubric = meta.get("rubric") or DEFAULT_RUBRICS[tool]
    registry.get(rubric)  # an unknown rubric fails now, with the known ids
    items = [_item(row, number, str(path)) for number, row in rows]
    if not items:
        raise InvalidInput(f"{path} has no items", field="data")
    # The report's cards find an item's text and judgment by its id.
    seen: dict[str, int] = {}
    for (number, _), item in zip(rows, items, strict=True):
        if item.id in seen:
            raise InvalidInput(
                f"{path}: id {item.id!r} is on lines {seen[item.id]} and {number}; ids must be unique", field="data"
            )
        seen[item.id] = number
    return CalibrationSet(meta.get("name") or name or path.stem, tool, rubric, items, meta, str(path))


def _sidecar(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        meta = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(
            f"{path}: not a TOML sidecar ({exc}); fix it, or remove it to use the defaults", field="data"
        ) from None
    except RecursionError:
        raise InvalidInput(f"{path}: nested too deeply to read; flatten its tables and arrays", field="data") from None
    for key in ("name", "tool", "rubric"):  # each is shown, looked up or compared as text
        if key in meta and not isinstance(meta[key], str):
            raise InvalidInput(f"{path}: {key} must be text in quotes, not {meta[key]!r}", field="data")
    return meta


def load_set(name: str, registry: RubricRegistry) -> CalibrationSet:
    if name not in shipped_sets():
        raise InvalidInput(
            f"no calibration set {name!r}; the shipped sets are {', '.join(shipped_sets())}", field="set"
        )
    return load_file(DATA_DIR / f"{name}.jsonl", registry, name)
