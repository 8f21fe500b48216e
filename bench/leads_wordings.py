"""How to read a code review's "leads with the most serious issues" (a user's prioritization metric) sentence by
sentence: each sentence of every version of the 12 read code-review cases (dev, fresh, fresh2, fresh3; never fresh4
or fresh6, held out then) asked how serious a point it makes, several ways, on the embedded default, after the change.

    python -m bench.leads_wordings            # asks the model, writes bench/results/leads-wordings.json
    python -m bench.leads_wordings --figures  # the figures again from that file, without the model
    python -m bench.leads_wordings --held-out # the generic ways on fresh4 and fresh6, after they were read once,
                                              # writes bench/results/leads-wordings-held-out.json

Each way's readings are scored as the sentence-by-sentence reading tried (`leading.py` of 26293f8, held out twice and
not kept; the engine now reads points, `bench.leads_points`) scored them: a sentence counts as far as a later one reads
more serious (less a tolerance), over the text's spread of seriousness or a floor, whichever is larger; the share not
ahead of anything placed on 1-5. For floors 0 to 0.2 in steps of 0.01 at no tolerance (the first try), and at the second
try's floor and tolerance, counted: good versions at 4 or more, prioritization versions under 4, prioritization version
below the good one, other broken versions at 4 or more. A probe of wordings, not of the tool: `bench.user_rubrics`
measures the rubric through `gavel serve`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.user_rubrics import domain_rows
from gavel.tools.engine import prompts
from gavel.tools.engine.calls import Tally
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.leading import ahead
from gavel.tools.engine.one_token import Prefix, ask, user_prompt
from gavel.tools.engine.sentences import sentences_outside_code
from tests.support.config import engine_config

SPLITS = ("dev", "fresh", "fresh2", "fresh3")
CODE_SERIOUS = (
    "Does this review sentence point out a defect that makes the change behave wrongly, such as a bug, a crash, a "
    "security hole or lost data?"
)
CODE_MINOR = (
    "Is this review sentence only a minor point, such as style, naming, documentation or an optional suggestion?"
)
# The wording the reading tried shipped (its judge.toml's check_leads and check_leads_opposite, for a review comment).
GENERIC_SERIOUS = (
    "Does this sentence of the review comment point out a serious problem in the change, one that makes it wrong, "
    "broken or unsafe?"
)
GENERIC_MINOR = (
    "Is this sentence of the review comment only a minor point, such as style, naming, wording or an optional "
    "suggestion?"
)
# way: (question, the change shown before the sentence)
ASKED = {
    "code_serious": (CODE_SERIOUS, True),
    "code_minor": (CODE_MINOR, True),
    "code_serious_alone": (CODE_SERIOUS, False),
    "generic_serious": (GENERIC_SERIOUS, True),
    "generic_minor": (GENERIC_MINOR, True),
}
# How a sentence's seriousness is read: one way, or a question and its opposite averaged (P(yes) + 1 - P(opposite)) / 2.
READINGS = {
    "code_serious": ("code_serious", None),
    "code_serious_alone": ("code_serious_alone", None),
    "code_both": ("code_serious", "code_minor"),
    "generic_serious": ("generic_serious", None),
    "generic_both": ("generic_serious", "generic_minor"),  # the reading tried: floor 0.11, then 0.08 and 0.01
}
FLOORS = [round(0.01 * i, 2) for i in range(21)]
SECOND_TRY = (0.08, 0.01)  # floor and tolerance, chosen on all 21 read cases before fresh7 was read
OUT = "leads-wordings"


async def readings(judge: Judge, shared: Prefix, question: str, label: str, items: list[str]) -> list[float]:
    """P(yes) to `question` of each item, shown after the shared prefix under `label`; a probe stops at an
    unanswered check."""
    instruction = prompts.prompt_set().fill("probability_question", question=question)
    values = []
    for item in items:
        readout = await ask(judge.calls, user_prompt(shared, instruction, {label: item}), Tally(), model=None)
        assert readout.value is not None, readout.reason
        values.append(round(readout.value, 4))
    return values


async def probe(splits: tuple[str, ...] = SPLITS, ways: tuple[str, ...] = tuple(ASKED)) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    records = []
    for split, row in domain_rows(splits, "code-review"):
        sentences = sentences_outside_code(row["text"]) or [row["text"]]
        record: dict[str, Any] = {"split": split, "case": row["case"], "version": row["version"]}
        record["sentences"] = sentences
        for way in ways:
            with_change = ASKED[way][1]
            blocks = {"change": row["source"]} if with_change else {}
            shared = Prefix(blocks, "\n\n".join(prompts.fenced(k, v) for k, v in blocks.items()))
            record[way] = await readings(judge, shared, ASKED[way][0], "sentence", sentences)
        records.append(record)
        say(f"  {split:7s} {row['case']:36s} {row['version']}")
    return records


def seriousness(record: dict[str, Any], reading: str) -> list[float]:
    yes, opposite = READINGS[reading]
    if opposite is None:
        return record[yes]
    return [(a + 1 - b) / 2 for a, b in zip(record[yes], record[opposite], strict=True)]


def score(values: list[float], floor: float, tolerance: float = 0.0) -> float:
    behind = ahead(values, floor, tolerance)
    return 1 + 4 * (1 - sum(behind) / len(behind))


def figures(records: list[dict[str, Any]], readings: tuple[str, ...] = tuple(READINGS)) -> dict[str, Any]:
    cases: dict[str, dict[str, dict[str, Any]]] = {}
    for record in records:
        cases.setdefault(record["case"], {})[record["version"]] = record
    out: dict[str, Any] = {}
    for reading in readings:
        rows = {}
        for floor in FLOORS:
            good = nits = below = others = 0
            for versions in cases.values():
                s = {v: score(seriousness(r, reading), floor) for v, r in versions.items()}
                good += s["good"] >= 4
                nits += s["prioritization"] < 4
                below += s["prioritization"] < s["good"]
                others += sum(x >= 4 for v, x in s.items() if v not in ("good", "prioritization"))
            n = len(cases)
            rows[f"{floor:.2f}"] = {
                "good_at_4": f"{good}/{n}",
                "prioritization_under_4": f"{nits}/{n}",
                "prioritization_below_good": f"{below}/{n}",
                "other_broken_at_4": f"{others}/{3 * n}",
            }
        out[reading] = rows
    good = nits = 0
    for versions in cases.values():
        good += score(seriousness(versions["good"], "generic_both"), *SECOND_TRY) >= 4
        nits += score(seriousness(versions["prioritization"], "generic_both"), *SECOND_TRY) < 4
    out["second_try"] = {"floor": SECOND_TRY[0], "tolerance": SECOND_TRY[1], "good_at_4": f"{good}/{len(cases)}"}
    out["second_try"]["prioritization_under_4"] = f"{nits}/{len(cases)}"
    return out


def main() -> None:
    if "--figures" in sys.argv[1:]:
        stored = json.loads((RESULTS_DIR / f"{OUT}.json").read_text())
        result = figures(stored["items"])
    elif "--held-out" in sys.argv[1:]:
        run = Run(f"{OUT}-held-out", RESULTS_DIR, smoke=False)
        splits, ways = ("fresh4", "fresh6"), ("generic_serious", "generic_minor")
        records = asyncio.run(probe(splits, ways))
        result = figures(records, ("generic_serious", "generic_both"))
        say(f"wrote {run.write({'splits': splits, 'asked': ASKED, 'figures': result, 'items': records})}")
    else:
        run = Run(OUT, RESULTS_DIR, smoke=False)
        records = asyncio.run(probe())
        result = figures(records)
        say(f"wrote {run.write({'splits': SPLITS, 'asked': ASKED, 'figures': result, 'items': records})}")
    for reading, rows in result.items():
        for floor in ("0.00", "0.11", "0.15") if reading != "second_try" else ():
            say(f"{reading:20s} floor {floor}: {rows[floor]}")
    say(f"second try: {result['second_try']}")


if __name__ == "__main__":
    main()
