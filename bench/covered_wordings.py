"""How the `covered` check (is each statement of the transcript in the assessment?) is best asked: every statement's
P(mistake) for the good, specificity-broken and completeness-broken versions of the clinical dev cases, read on the
embedded default in three ways — the fact checker's question (judge.toml `rag_sentence`) after the statement, the
same question before it (the cached-prefix layout `supported` and `sentence` checks use), and the shorter
`check_covered` wording after it.

    python -m bench.covered_wordings [tune|heldout]   # writes bench/results/covered-wordings-<split>.json

Reports, per way and per floor, in how many cases the completeness version's counted mistakes (`checks.counted`)
exceed the good version's, and by how much: the completeness version leaves symptoms out, so its statements should
gain P(mistake). A probe of wordings, not of the tool: `bench.rubric_agreement clinical` measures the rubric.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import CLINICAL, read_rows
from gavel.tools.engine import prompts
from gavel.tools.engine.check_items import source_statements
from gavel.tools.engine.checks import counted
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.one_token import document_prefix, yes_no
from tests.support.config import engine_config

WAYS = {  # name: (judge.toml entry, question first)
    "rag_sentence_last": ("rag_sentence", False),
    "rag_sentence_first": ("rag_sentence", True),
    "check_covered_last": ("check_covered", False),
}
FLOORS = (0.0, 0.3, 0.5, 0.6, 0.7)


async def probe(split: str) -> list[dict[str, Any]]:
    rows = read_rows(CLINICAL)
    rows = [r for r in rows if r["split"] == split and r["version"] in ("good", "specificity", "completeness")]
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    texts = prompts.prompt_set()
    records = []
    for row in rows:
        record: dict[str, Any] = {"case": row["case"], "version": row["version"]}
        for way, (entry, first) in WAYS.items():
            p_mistake = []
            for statement in source_statements(row["source"]):
                shared = document_prefix(row["assessment"], None)
                extra = {"claim": statement}
                readout, _ = await yes_no(judge.calls, shared, texts.fill(entry), extra=extra, question_first=first)
                assert readout.value is not None, readout.reason
                p_mistake.append(round(1 - readout.value, 4))
            record[way] = p_mistake
        records.append(record)
        say(f"  {row['case']:20s} {row['version']}")
    return records


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    by = {(r["case"], r["version"]): r for r in records}
    cases = sorted({r["case"] for r in records})
    out: dict[str, Any] = {}
    for way in WAYS:
        for floor in FLOORS:
            margins = [
                round(
                    sum(counted(p, floor) for p in by[(c, "completeness")][way])
                    - sum(counted(p, floor) for p in by[(c, "good")][way]),
                    3,
                )
                for c in cases
            ]
            out[f"{way}@{floor}"] = {"broken_more": f"{sum(m > 0 for m in margins)}/{len(cases)}",
                                     "margin_sum": round(sum(margins), 3), "margins": margins}  # fmt: skip
    return out


def main() -> None:
    split = sys.argv[1] if len(sys.argv) > 1 else "tune"
    run = Run(f"covered-wordings-{split}", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe(split))
    result = figures(records)
    for key, value in result.items():
        say(f"{key:26s} {value['broken_more']} sum {value['margin_sum']} {value['margins']}")
    path = run.write({"split": split, "ways": WAYS, "figures": result, "items": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
