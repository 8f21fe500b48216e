"""What `calibrate_judge` accepts and returns: its request and the calibration report, apart from the run.

A server lists the tool from these alone; the run (`measure`), the sets and the ledger load at its first call.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from gavel.tools.common import terminal_line
from gavel.tools.guards.text import printable

# How much of a set's name a line of text shows.
SET_CHARS = 80


def shown_set(name: str) -> str:
    """A set's name as a line of text shows it: one line, not too long, and no escape sequence in it. The name of
    a set of the user's own is the sidecar's `name` or the data file's, and the text goes to a terminal (as an item's
    id does, `gavel eval`'s `shown_id`)."""
    return terminal_line(name, SET_CHARS)


class Figure(BaseModel):
    value: float | None
    # The 95% percentile-bootstrap interval.
    low: float | None = None
    high: float | None = None

    def cell(self) -> str:
        if self.value is None:
            return "n/a"
        interval = "" if self.low is None or self.high is None else f" [{self.low:.2f}, {self.high:.2f}]"
        return f"{self.value:.2f}{interval}"


# Below this many labelled items a fitted cut mostly fits the sample's noise: reported, with a caveat.
MIN_ITEMS_FOR_CUT = 50


class CutReport(BaseModel):
    default: float  # Gavel's cut on the score
    best: float | None  # the cut that maximizes balanced accuracy on this set
    balanced_accuracy_at_best: float | None
    differs: bool  # deciding at the best cut would raise balanced accuracy on this set
    fitted_on: int | None = None  # labelled items the best cut was fitted on (None in records made before it)

    @property
    def few_items(self) -> bool:
        return self.best is not None and self.fitted_on is not None and self.fitted_on < MIN_ITEMS_FOR_CUT


class ItemRow(BaseModel):
    id: str
    label: str | None
    score: float | None
    cached: bool
    seconds: float
    evaluation_id: str | None = None
    error: str | None = None


class CalibrationReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    calibration_id: str
    fitness_key: str | None  # read calibration://{fitness_key}
    set: str
    tool: str
    rubric: str
    judge: dict[str, Any]  # backend, model, model_digest, readout, prompt_template_hash
    created_at: str
    complete: bool  # False when interrupted: the figures cover the n items judged
    n: int  # items judged, cached included
    requested: int  # items the run was to judge (the limit, whole pairs)
    set_size: int
    # Items served from the ledger: judged identically before, no model call now. (Not `cached`: on a tool's
    # result that field means the whole result was served from the ledger.)
    from_cache: int
    unscored: int  # items the judge gave no score for (wrong predictions in the figures)
    base_rate_good: float | None  # share of the judged items labelled good
    balanced_accuracy: Figure
    auroc: Figure
    pairwise_accuracy: Figure | None = None
    spearman: Figure | None = None
    cut: CutReport
    seconds_per_item: float | None  # mean wall time of the items the model judged now
    seconds_total: float
    score: str  # what the score is, and the decision rule
    stored: bool  # kept in the ledger (false when it is off or failing)
    notes: list[str] = Field(default_factory=list)
    items: list[ItemRow] = Field(default_factory=list)

    def render_text(self) -> str:
        judge = self.judge
        state = "complete" if self.complete else f"PARTIAL (interrupted after {self.n} of {self.requested} items)"
        rows = [
            ("balanced accuracy", self.balanced_accuracy.cell()),
            ("AUROC", self.auroc.cell()),
            ("pairwise accuracy", self.pairwise_accuracy.cell() if self.pairwise_accuracy else "n/a (no pairs)"),
            ("Spearman", self.spearman.cell() if self.spearman else "n/a (no graded labels)"),
            (
                "items",
                f"{self.n} of {self.set_size} ({self.from_cache} from the ledger's cache, {self.unscored} unscored)",
            ),
            ("base rate (good)", "n/a" if self.base_rate_good is None else f"{self.base_rate_good:.2f}"),
            ("time per item", "n/a" if self.seconds_per_item is None else f"{self.seconds_per_item:.1f} s judged now"),
            ("decision cut", _cut_cell(self.cut)),
        ]
        lines = [
            f"calibration {self.calibration_id} of {self.tool} on {shown_set(self.set)}: {state}",
            # The model can be the first a remote server lists: its name as the server wrote it reaches a terminal.
            f"judge: {printable(str(judge.get('backend')))} {printable(str(judge.get('model')))} "
            f"({judge.get('readout')} readout), "
            f"key {self.fitness_key}",
            "",
            "| figure | value [95% CI] |",
            "|---|---|",
            *[f"| {name} | {value} |" for name, value in rows],
            "",
            f"rule: {self.score}",
        ]
        lines += [f"note: {note}" for note in self.notes]
        if not self.stored:
            lines.append("not stored: the ledger is off or unavailable, so judgments carry no fitness from this run")
        return "\n".join(lines)


def _cut_cell(cut: CutReport) -> str:
    if cut.best is None:
        return f"default {cut.default:.3g}; no better cut found"
    change = "differs from the default" if cut.differs else "same result as the default"
    best = "n/a" if cut.balanced_accuracy_at_best is None else f"{cut.balanced_accuracy_at_best:.2f}"
    few = f"; fitted on only {cut.fitted_on} items, see the note" if cut.few_items else ""
    return f"default {cut.default:.3g}; best {cut.best:.3g} (balanced accuracy {best}; {change}{few})"


DEFAULT_LIMIT = 40


class CalibrateJudgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Which tool each set calibrates is in the report (and tools/calibration/data/): the listing stays short.
    set: Annotated[str, Field(max_length=64, description="halueval-qa, clinical-assessment or topicalchat-usr.")]
    limit: Annotated[int, Field(default=DEFAULT_LIMIT, ge=1, le=1000, description="Items (whole pairs).")] = (
        DEFAULT_LIMIT
    )
