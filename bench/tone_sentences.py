"""A user's tone metric read sentence by sentence from the anchors' contrast: the fourth try at tone
(bench/README.md, "Tone read by its worst sentences").

The second try read the whole text's log-likelihood when the model is asked for the metric's best anchor, minus the
same when asked for its worst, and held out it ordered the tone versions no better than the digit: a review whose
rudeness is two sarcastic sentences among ten constructive ones sums to about what a polite one does. Here the same
two readings are told apart by sentence (`engine/sentence_gain.py`), so the reading can follow the text's worst
sentences, the way a reader's impression of tone does: the sentences leaning to the worst anchor by more than a cut,
their nats added up. Each text of the read code-review and support-reply cases is read once (good and tone
versions; `--versions others` the other broken ones; `--domain status-email` the emails); the grid of sentence cuts
and pass cuts is recomputed from the stored sentences.

    python -m bench.tone_sentences                 # writes bench/results/tone-sentences.json
    python -m bench.tone_sentences --versions others --split dev --name tone-sentences-others
    python -m bench.tone_sentences --figures       # the grid again from the stored files, without the model
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tomllib
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.user_rubrics import domain_rows
from gavel.tools.engine.backend import ChatMessage
from gavel.tools.engine.calls import Tally
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.likelihood import Readings, read_side_by_side
from gavel.tools.engine.sentence_gain import sentence_gains
from gavel.tools.guards import break_chat_markup
from tests.support.config import engine_config

READ = ("dev", "fresh", "fresh2", "fresh3", "fresh4", "fresh6", "fresh7", "fresh8")
DOMAINS = {"code-review": "respectful_tone", "support-reply": "tone", "status-email": "professional_tone"}
RUBRICS = Path(__file__).parent / "data" / "rubrics"
SYSTEM = "You are a helpful assistant."
ASK = "Write the $subject for this. The $subject must be like this: $anchor"


def _rubric(domain: str) -> dict[str, Any]:
    return tomllib.loads((RUBRICS / f"user-{domain}.toml").read_text(encoding="utf-8"))


def _asked(given: str, subject: str, anchor: str) -> tuple[ChatMessage, ...]:
    """The source, then the request for a text like `anchor`."""
    ask = ASK.replace("$subject", subject).replace("$anchor", anchor)
    return ChatMessage("system", SYSTEM), ChatMessage("user", given + ask)


async def probe(
    splits: tuple[str, ...], versions: str, partial: Path, domains: tuple[str, ...]
) -> list[dict[str, Any]]:
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))
    records: list[dict[str, Any]] = []
    for split in splits:
        for domain, metric_id in ((d, DOMAINS[d]) for d in domains):
            rubric = _rubric(domain)
            metric = next(m for m in rubric["metrics"] if m["id"] == metric_id)
            subject, label = rubric["prompt"]["subject"], rubric["prompt"]["source_label"]
            best, worst = metric["levels"]["5"], metric["levels"]["1"]
            for _split, row in domain_rows((split,), domain):
                wanted = row["version"] in ("good", metric_id)
                if (versions == "tone") != wanted:
                    continue
                given = f"{label[:1].upper()}{label[1:]}:\n{row['source']}\n\n"
                layouts = {"best": _asked(given, subject, best), "worst": _asked(given, subject, worst)}
                read = await read_side_by_side(judge.calls, layouts, row["text"], None, "tone", Tally())
                assert isinstance(read, Readings), read
                # The scored text is the one sent: chat markup in it broken up as in every call (engine/calls.py).
                sent = break_chat_markup(row["text"])
                gains = sentence_gains(sent, read.ends, *read.entries)
                assert gains is not None
                tokens = _tokens_per_sentence(sent, read.ends)
                records.append(
                    {
                        "split": split,
                        "domain": domain,
                        "case": row["case"],
                        "version": "tone" if row["version"] == metric_id else row["version"],
                        "sums": read.sums,
                        "sentences": [[g.sentence, g.nats, n] for g, n in zip(gains, tokens, strict=True)],
                    }
                )
                partial.write_text(json.dumps(records), encoding="utf-8")  # noqa: ASYNC240 (a probe, one call at a time)
                worst_sentence = min(gains, key=lambda g: g.nats)
                say(f"  {split:7s} {row['case'][:34]:34s} {records[-1]['version']:16s} {worst_sentence.nats:+7.2f}")
    return records


def _tokens_per_sentence(text: str, ends: tuple[int, ...]) -> list[int]:
    """How many tokens end inside each sentence (as sentence_gains counts them)."""
    ones = [1.0] * len(ends)
    zeros = [0.0] * len(ends)
    counted = sentence_gains(text, ends, ones, zeros)
    assert counted is not None
    return [round(g.nats) for g in counted]


SENTENCE_CUTS = [0.0, -0.5, -1.0, -1.25, -1.5, -1.75, -2.0, -3.0]
PASS_CUTS = [-4.5, -5.0, -5.25, -5.5, -5.75, -6.0, -6.5, -7.0]


def leaning(record: dict[str, Any], cut: float) -> float:
    """The nats of the sentences that lean to the worst anchor by more than -cut, added up (as a25fe31's
    engine/tone.py read them; taken out since)."""
    return sum(nats for _sentence, nats, tokens in record["sentences"] if tokens > 0 and nats < cut)


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    """For each sentence cut and pass cut: good versions under the pass cut, tone versions under it, and the other
    broken versions under it, of the cases read."""
    cases: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for record in records:
        cases.setdefault((record["split"], record["case"]), {})[record["version"]] = record
    paired = [v for v in cases.values() if "good" in v and "tone" in v]
    others = [r for v in cases.values() for k, r in v.items() if k not in ("good", "tone")]
    grid = {}
    for cut in SENTENCE_CUTS:
        row = {}
        for passing in PASS_CUTS:
            row[f"{passing:g}"] = {
                "good_under": sum(leaning(v["good"], cut) < passing for v in paired),
                "tone_under": sum(leaning(v["tone"], cut) < passing for v in paired),
                "others_under": sum(leaning(r, cut) < passing for r in others),
            }
        grid[f"{cut:g}"] = row
    return {"cases": len(paired), "others": len(others), "grid": grid}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", action="append", help="a split to read (default: every read one)")
    parser.add_argument("--domain", action="append", choices=tuple(DOMAINS), help="default: code reviews, replies")
    parser.add_argument("--versions", choices=("tone", "others"), default="tone")
    parser.add_argument("--name", default="tone-sentences")
    parser.add_argument("--figures", action="store_true", help="recompute from the stored file, no model")
    args = parser.parse_args()
    path = RESULTS_DIR / f"{args.name}.json"
    if args.figures:
        stored = json.loads(path.read_text(encoding="utf-8"))
        records = stored["records"]
        for extra in RESULTS_DIR.glob(f"{args.name}-others*.json"):
            records += json.loads(extra.read_text(encoding="utf-8"))["records"]
        print(json.dumps(figures(records), indent=1))
        return
    run = Run(args.name, RESULTS_DIR, smoke=False)
    partial = path.with_suffix(".partial")
    records = asyncio.run(
        probe(
            tuple(args.split or READ),
            args.versions,
            partial,
            tuple(args.domain or ("code-review", "support-reply")),
        )
    )
    result = {"records": records, "figures": figures(records)}
    run.write(result)
    partial.unlink(missing_ok=True)
    print(json.dumps(result["figures"], indent=1))


if __name__ == "__main__":
    main()
