"""A rubric metric's checks: how the probability readout reads a metric item by item (`Metric.checks`), as rubric
data. The engine's `checks` module asks them; this module only says what a rubric may state."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

CheckKind = Literal[
    "supported", "covered", "consistent", "repeated", "sentence", "whole", "named", "likelihood", "leads"
]
# A yes/no question, as rubric authors write them.
YesNoQuestion = Annotated[str, Field(min_length=1, max_length=4000, pattern=r"\?\s*$")]


class Checks(BaseModel):
    """A metric read as yes/no checks the model can answer one item at a time, instead of one score for the
    whole text. Each check is read from the model's probabilities; the metric's score follows the rubric's
    anchors from what the checks found (the expected number of mistakes on mistake-count anchors, the share of
    items that pass otherwise, or for 'named' checks with `enough`, how many paragraphs name something)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: CheckKind = Field(
        description=(
            "'supported': each sentence of the text is checked against the source (a mistake: not supported). "
            "'covered': each statement of the source (after a 'Speaker:' label; questions left out) is checked "
            "against the text (a mistake: missing from it). 'consistent': each claim against what the text "
            "says before it (a mistake: they cannot both be true). 'repeated': each sentence against what the "
            "text says before it (a mistake: it only restates it; with `centre` and `spread`, the expected number of "
            "restated sentences is placed on the scale, fewer higher, instead of their share). 'sentence': each "
            "sentence of the text is asked `question` on its own. 'whole': the text is asked `question`, after the "
            "source and the context. "
            "'named': each paragraph of the text (split at blank lines; each sentence outside fenced code with "
            "`per` 'sentence') is asked `question`, a which-question the model answers by naming something from it "
            "(a mistake: it answers None). "
            "'likelihood': no question; how much more likely the model finds the text after the source than "
            "without it (in nats), placed on the scale around `centre` (needs a backend that scores a given text, "
            "the embedded model; elsewhere the metric is read as if it stated no checks). "
            "'leads': each point (a list item or paragraph; a sentence of a text in one paragraph) is asked "
            "`question` (how serious it is; Gavel's own question unless stated) and `opposite`; a point counts "
            "against the text, by its length, as far as a later one reads more serious (the text should lead with "
            "its most serious points)."
        )
    )
    question: YesNoQuestion | None = Field(
        default=None,
        description="'sentence' and 'whole': the yes/no question asked of each item; 'named': the which-question "
        "asked of each paragraph ('Which specific study, place or figure does this paragraph name as evidence?'); "
        "'leads', optional: whether a point is a serious one. Ends in '?'.",
    )
    opposite: YesNoQuestion | None = Field(
        default=None,
        description=(
            "Optional: the same question worded the other way round. Both are asked and averaged as "
            "(P(yes) + 1 - P(yes to the opposite)) / 2, which cancels a small model's leaning to answer Yes."
        ),
    )
    enough: float | None = Field(
        default=None,
        gt=0,
        le=1000,
        allow_inf_nan=False,
        description=(
            "'named': how many paragraphs naming something earn the scale's best end; the score climbs to it from "
            "the worst end at none. A paragraph counts as far as its P(None) lies under the kind's finding cut: "
            "fully at 0, not at all from the cut, where it is quoted as a finding. Unset: the share of paragraphs "
            "that name something, which an opening or a counter-argument naming nothing pulls down."
        ),
    )
    per: Literal["paragraph", "sentence"] = Field(
        default="paragraph", description="'named': what is asked `question`, each paragraph or each sentence."
    )
    mistake: Literal["yes", "no"] = Field(
        default="no", description="'sentence' and 'whole': which answer to `question` counts as a mistake."
    )

    unless_supported: bool = Field(
        default=False,
        description=(
            "'consistent': a claim counts as a contradiction only as far as the source does not support it either: "
            "its P(mistake) is the lesser of P(it cannot be true with what comes before) and P(the source does not "
            "support it), the source taken as the truth. Without a source the first alone."
        ),
    )

    centre: float | None = Field(
        default=None,
        allow_inf_nan=False,
        ge=-1e6,
        le=1e6,
        description="'likelihood': the nats the source adds to the text's log-likelihood at the scale's middle; "
        "'named': the share of items naming something (the mean of 1 - P(None)) at the scale's middle; "
        "'repeated': the expected number of restated sentences at the scale's middle.",
    )
    spread: float | None = Field(
        default=None,
        gt=0,
        le=1e6,
        allow_inf_nan=False,
        description="'likelihood', 'named' and 'repeated': the width of the logistic curve that places the nats "
        "(the share, the count) on the scale: centre - spread and centre + spread land at 27 % and 73 % of the way "
        "from its worst end to its best (a count the other way round).",
    )

    turns: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="'likelihood': the source is a conversation, one turn a line (a first line '<source_label>:' "
        "left out; what follows its first blank line, such as a fact, left out too), and the model is shown its "
        "last `turns` turns as the chat's own turns, the last one the partner's. Unset: the source as one message.",
    )

    sentence_cut: float | None = Field(
        default=None,
        allow_inf_nan=False,
        ge=-1e6,
        le=1e6,
        description="'likelihood': each sentence the source makes fewer than this many nats more likely is named "
        "as a finding, so the metric's explanation and a rewrite's feedback quote it. Unset: no findings.",
    )

    @model_validator(mode="after")
    def _question_where_needed(self) -> Checks:
        placed = self.centre is not None and self.spread is not None
        if self.kind == "likelihood" and not placed:
            raise ValueError("checks of kind 'likelihood' need centre and spread")
        if self.kind in ("named", "repeated") and (self.centre is None) != (self.spread is None):
            raise ValueError(f"checks of kind {self.kind!r} take centre and spread together, or neither")
        if self.kind == "named" and placed and self.enough is not None:
            raise ValueError("checks of kind 'named' are placed by enough or by centre and spread, not both")
        if self.kind not in ("likelihood", "named", "repeated") and (self.centre, self.spread) != (None, None):
            raise ValueError(f"checks of kind {self.kind!r} take no centre or spread")
        if self.kind != "likelihood" and (self.turns, self.sentence_cut) != (None, None):
            raise ValueError(f"checks of kind {self.kind!r} take no turns or sentence_cut")
        if self.kind != "named" and self.per != "paragraph":
            raise ValueError(f"checks of kind {self.kind!r} take no per; only 'named' does")
        if self.unless_supported and self.kind != "consistent":
            raise ValueError(f"checks of kind {self.kind!r} take no unless_supported; only 'consistent' does")
        asks = self.kind in ("sentence", "whole", "named")
        if self.enough is not None and self.kind != "named":
            raise ValueError(f"checks of kind {self.kind!r} take no enough; only 'named' does")
        if self.kind == "named" and (self.opposite is not None or "mistake" in self.model_fields_set):
            raise ValueError(
                "checks of kind 'named' count the answer None as the mistake; leave opposite and mistake out"
            )
        if asks and self.question is None:
            raise ValueError(f"checks of kind {self.kind!r} need a question")
        if self.kind == "leads":
            if self.opposite is not None and self.question is None:
                raise ValueError("checks of kind 'leads' take an opposite only with their own question")
            if "mistake" in self.model_fields_set:
                raise ValueError("checks of kind 'leads' count points ahead of more serious ones; leave mistake out")
        elif not asks and (self.question is not None or self.opposite is not None):
            raise ValueError(f"checks of kind {self.kind!r} ask Gavel's own question; leave question out")
        return self
