"""A batch's ranking recomputed from recorded runs, no model call: by verdict, then the overall alone (`rag-answer`
1.5.0) or the overall plus completeness (tools/rag/orchestration.py `ranking`). Reads two kinds of record:

- `bench.rag_partial` runs: does the complete answer rank above the partial one?
- `bench.agreement` runs (two answers per HaluEval question): does the right answer rank above the hallucinated one?

Completeness, the overall and the verdict do not depend on the ranking, so a two-answer batch's rank under either
rule follows from one recorded run.

    python -m bench.rag_ranking        # writes bench/results/rag-ranking-recomputed.json
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from bench.common import RESULTS_DIR, say
from gavel.tools.rag.orchestration import ranking

# The partial-answer runs of every split on its latest recorded code; yes/no dev and fresh7-16 as each was read.
PARTIAL_RUNS = {
    "dev 1-60": "rag-partial-v120.json",
    "fresh4": "rag-partial-fresh4.json",
    "fresh5": "rag-partial-fresh5.json",
    "yes/no dev": "rag-partial-yesno-dev.json",
    **{f"fresh{n}": f"rag-partial-yesno-fresh{n}.json" for n in (7, 8)},
    "fresh9": "rag-partial-yesno-fresh9-v131.json",
    "fresh10": "rag-partial-yesno-fresh10.json",
    "fresh11": "rag-partial-yesno-fresh11-v150.json",
    "fresh12": "rag-partial-yesno-fresh12-v150.json",
    "fresh13": "rag-partial-yesno-fresh13-v140.json",
    "fresh14": "rag-partial-yesno-fresh14-v150.json",
    "fresh15": "rag-partial-yesno-fresh15-v150.json",
    "fresh16": "rag-partial-yesno-fresh16-v150.json",
}
HALUEVAL_RUNS = (
    "agreement-tune-coverage-epyc.json",
    "agreement-heldout-epyc-v150.json",
    "agreement-heldout-coverage.json",
    "agreement-heldout-xeon-repack.json",
    "agreement-tune-own-answer.json",
    "agreement-heldout-own-answer.json",
)


def first(a: dict[str, Any], b: dict[str, Any], added: bool) -> bool:
    """Does `a` rank above `b` (`added`: completeness counted, as the tool ranks now)?"""

    def key(r: dict[str, Any]) -> tuple[int, int, float]:
        return ranking(r["verdict"], r["overall"], r["completeness"] if added else None)

    return key(a) < key(b)


def partial_pairs(name: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    by_id: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for item in json.loads((RESULTS_DIR / name).read_text())["items"]:
        by_id[item["id"]][item["kind"]] = {k: item[k] for k in ("verdict", "overall", "completeness")}
    return [(p["complete"], p["partial"]) for p in by_id.values() if {"complete", "partial"} <= p.keys()]


def halueval_pairs(name: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    by_id: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for item in json.loads((RESULTS_DIR / name).read_text())["items"]:
        if item["judge"] == "gavel" and item.get("detail"):
            d = item["detail"]
            question, kind = item["id"].rsplit("-", 1)
            by_id[question][kind] = {"verdict": d["verdict"], "overall": d["overall"],
                                     "completeness": d["scores"].get("completeness")}  # fmt: skip
    return [(p["right"], p["hallucinated"]) for p in by_id.values() if {"right", "hallucinated"} <= p.keys()]


def tally(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, int]:
    return {
        "pairs": len(pairs),
        "first_by_overall": sum(first(a, b, added=False) for a, b in pairs),
        "first_by_overall_plus_completeness": sum(first(a, b, added=True) for a, b in pairs),
    }


def main() -> None:
    out = {
        "complete_above_partial": {split: tally(partial_pairs(f)) for split, f in PARTIAL_RUNS.items()},
        "right_above_hallucinated": {f: tally(halueval_pairs(f)) for f in HALUEVAL_RUNS},
    }
    for part in out.values():
        for name, row in part.items():
            say(f"  {name:40s} {row}")
    path = RESULTS_DIR / "rag-ranking-recomputed.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
