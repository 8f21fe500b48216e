"""How often the quantity reading (tools/engine/quantities.py) calls a sentence unsupported, on every labelled text
whose rubric reads it against its source: the clinical assessments (accuracy, and coherence unless supported) and a
user's summaries and status emails (faithfulness). A sentence that states a quantity its source never states is
unsupported with P 0 and no model call, so a quantity misread in a good text is a certain mistake it did not make.
No model: the same figures on any machine. Each such text is also counted when the source contradicts one of its
sentences (tools/engine/contradicted.py: a rival number on the line it restates, or another owner of that line), which
costs a faithfulness metric an anchor.

    python -m bench.quantities_audit            # prints the counts, writes bench/results/quantities-audit.json

Counted per kind of version: texts with at least one such sentence, and each sentence with the quantities read as
unstated. A good text is written faithful to its source, so its flags are the reading's false mistakes (or a count
the text works out itself, "three decisions", which no sentence of the source states); the version that breaks the
metric read this way changes a fact, often a number, so its flags are what the reading is for.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from gavel.tools.engine import derived_checks, faithfulness
from gavel.tools.engine.contradicted import read_certain
from gavel.tools.engine.notes import read_source
from gavel.tools.engine.sentences import split_sentences
from gavel.tools.rubric_registry import load_rubric_file
from gavel.tools.rubrics import Rubric

DATA = Path(__file__).resolve().parent / "data"
RUBRICS = DATA / "rubrics"
CLINICAL = ("clinical_dev", "clinical_fresh", "clinical_fresh2")


@functools.cache
def user_rubric(rubric_id: str) -> Rubric:
    """A user rubric of bench/data/rubrics, loaded once."""
    return load_rubric_file(RUBRICS / f"{rubric_id}.toml")


def faithfulness_metric(rubric_id: str) -> str | None:
    """The id of the rubric's metric the engine reads as faithfulness (engine/derived_checks.py), or None."""
    rubric = user_rubric(rubric_id)
    for metric in rubric.metrics:
        if derived_checks.checks_for(metric, has_source=True, about=rubric.prompt.about) == faithfulness.CHECKS:
            return metric.id
    return None


def texts() -> Iterator[tuple[str, str, str, str, str]]:
    """(set, case, kind of version, text, source) for every text read against its source: 'good', 'broken' (the
    version that breaks the metric read this way: clinical accuracy, or faithfulness) or 'other'."""
    for name in CLINICAL:
        for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            kind = "good" if row["version"] == "good" else "broken" if row["version"] == "accuracy" else "other"
            yield name, row["case"], kind, row["assessment"], row["source"]
    for path in sorted(DATA.glob("user_rubrics_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            metric = faithfulness_metric(row["rubric"])
            if metric is None or not row.get("source"):
                continue
            kind = "good" if row["version"] == "good" else "broken" if row["broken"] == metric else "other"
            yield f"{path.stem}/{row['domain']}", row["case"], kind, row["text"], row["source"]


def audit() -> dict[str, Any]:
    counts: dict[str, Counter[str]] = {}
    flagged = []
    for name, case, kind, text, source in texts():
        family = "clinical" if name.startswith("clinical") else name.split("/")[1]
        reading = read_source(source, text)
        found = [(s, certain) for s in split_sentences(text) if any(certain := read_certain(s, reading))]
        tally = counts.setdefault(f"{family}/{kind}", Counter())
        tally["texts"] += 1
        tally["flagged"] += any(certain.unstated for _, certain in found)
        tally["contradicted"] += any(certain.contradicted for _, certain in found)
        for sentence, (missing, against) in found:
            flagged.append(
                {"set": name, "case": case, "kind": kind, "sentence": sentence, "unstated": missing}
                | ({"contradicted": against} if against else {})
            )
    return {"counts": {k: dict(v) for k, v in sorted(counts.items())}, "flagged": flagged}


def main() -> None:
    result = audit()
    for key, tally in result["counts"].items():
        read = f"{tally['flagged']:3d} of {tally['texts']:3d} texts with a quantity read as unstated"
        say(f"{key:28s} {read}, {tally['contradicted']:3d} contradicted")
    for item in result["flagged"]:
        if item["kind"] == "good":
            say(f"  good {item['set']:32s} {item['unstated']}: {item['sentence'][:90]}")
        if item["kind"] != "broken" and "contradicted" in item:
            say(f"  {item['kind']} {item['set']:32s} contradicted {item['contradicted']}: {item['sentence'][:70]}")
    say(f"wrote {Run('quantities-audit', RESULTS_DIR, smoke=False).write(result)}")


if __name__ == "__main__":
    main()
