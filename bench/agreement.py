"""Benchmark 3: agreement with the labelled set, Gavel and the peers on the same model and endpoint.

THE DECISION RULES, FIXED BEFORE ANY MEASUREMENT (not tuned on any item, reported or not):
- Gavel (judge_rag_answer, evaluation_context RAG, the passage as the one source, default settings)
  predicts "hallucinated" when verdict != "approved" (the verdict follows the per-claim support checks at the
  cut in tools/rag/sentence_support.py; before it followed the weighted overall, and the rule added accuracy < 0.5).
- RAGAS faithfulness and DeepEval faithfulness predict "hallucinated" when their score < 0.5, the midpoint.
- An item a judge could not decide (Gavel: verdict "unscored"; a peer: an error or NaN) counts as a wrong
  prediction and a lost pair; it is also counted in the parse-failure rate.

Measures per judge: balanced accuracy and F1 of "hallucinated"; AUROC of the faithfulness-type score
(Gavel: the accuracy dimension) over the scored items; pairwise accuracy (the right answer scored above
the hallucinated one for the same question; a tie counts half); undecided rate; wall time. 95% CIs by a
percentile bootstrap over question pairs.

Subset: N question pairs by question number after the first --skip ones (default: pairs 7-12 = 12 items
for Gavel, pairs 7-9 for the peers; one Gavel judgment is ~6 model calls, one to two minutes on 2 idle cores,
so the default run takes about 25 minutes); --full for all 100 pairs. Pairs 1-6 are skipped by default
because a fix (the reply token cap) was found on them: a reported number must not come from items the code
was tuned on.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio

from bench.common import RESULTS_DIR, Run, quiet_logging, say, table
from bench.judges import GavelJudge, Judged, PeerClient, PeerUnavailable, peer_log_path, peers_installed
from bench.meter import Endpoint, start_embedded_endpoint, start_scripted_endpoint
from gavel.tools.calibration import stats
from tests.support.devset import TUNED_PAIRS, data_path, load_pairs, subset

NAME = "agreement"
DEFAULT_PAIRS = 6
DEFAULT_PEER_PAIRS = 3
DEFAULT_SKIP = 6
PEER_METRICS = ("ragas_faithfulness", "deepeval_faithfulness")
GROUNDED = "gavel (is_grounded)"
RULES = {
    "gavel": "hallucinated when verdict != approved; undecided counts as wrong",
    GROUNDED: "hallucinated when is_grounded is false (a claim's P(supported) below the cut fixed in "
    "tools/rag/sentence_support.py); undecided (null) counts as wrong",
    "ragas_faithfulness": "hallucinated when faithfulness < 0.5 (midpoint); undecided counts as wrong",
    "deepeval_faithfulness": "hallucinated when faithfulness < 0.5 (midpoint); undecided counts as wrong",
}

Pair = tuple[Judged, Judged]  # (right, hallucinated) as judged by one judge


# -- statistics over pairs -----------------------------------------------------------------------------------


def _outcomes(pairs: Sequence[Pair]) -> list[stats.Outcome]:
    """(hallucinated, predicted hallucinated) per item; an undecided item is always a wrong prediction."""
    return [
        (label, judged.predicted_hallucinated if judged.decided else None)
        for right, hallucinated in pairs
        for label, judged in ((False, right), (True, hallucinated))
    ]


def balanced_accuracy(pairs: Sequence[Pair]) -> float | None:
    return stats.balanced_accuracy(_outcomes(pairs)) if pairs else None


def f1_hallucinated(pairs: Sequence[Pair]) -> float | None:
    return stats.f1_positive(_outcomes(pairs))


def auroc(pairs: Sequence[Pair]) -> float | None:
    """P(a right answer's score > a hallucinated answer's score), ties half, over every scored combination."""
    return stats.auroc([r.score for r, _ in pairs], [h.score for _, h in pairs])


def pairwise_accuracy(pairs: Sequence[Pair]) -> float | None:
    return stats.pairwise_accuracy([(r.score, h.score) for r, h in pairs])


def undecided_rate(pairs: Sequence[Pair]) -> float | None:
    items = [j for pair in pairs for j in pair]
    return sum(1 for j in items if not j.decided) / len(items) if items else None


STATISTICS = {
    "balanced_accuracy": balanced_accuracy,
    "f1_hallucinated": f1_hallucinated,
    "auroc": auroc,
    "pairwise_accuracy": pairwise_accuracy,
    "undecided_rate": undecided_rate,
}


def summarize(judge: str, pairs: Sequence[Pair]) -> dict[str, Any]:
    out: dict[str, Any] = {"judge": judge, "pairs": len(pairs), "items": 2 * len(pairs), "rule": RULES.get(judge)}
    for name, fn in STATISTICS.items():
        value = fn(pairs)
        low, high = stats.bootstrap_ci(list(pairs), fn)
        out[name] = round(value, 4) if value is not None else None
        out[f"{name}_ci95"] = [low, high]
    items = [j for pair in pairs for j in pair]
    out["wall_s_total"] = round(sum(j.wall_s for j in items), 1)
    out["wall_s_per_item"] = round(statistics.fmean(j.wall_s for j in items), 2) if items else None
    out["llm_calls_per_item"] = round(statistics.fmean(j.usage["llm_calls"] for j in items), 2) if items else None
    out["prompt_tokens_evaluated_per_item"] = (
        round(statistics.fmean(j.usage["prompt_tokens_evaluated"] for j in items), 1) if items else None
    )
    return out


# -- running -------------------------------------------------------------------------------------------------


async def run_judges(
    endpoint: Endpoint, gavel_pairs: list[tuple[dict[str, Any], dict[str, Any]]], peer_pairs: int,
    peer_client: PeerClient | None, checkpoint: Callable[[dict[str, list[Pair]], bool], None] | None = None,
    gavel_on: bool = True,
) -> dict[str, list[Pair]]:  # fmt: skip
    """Every judge on every item, interleaved item by item so load drift hits all judges alike."""
    gavel = GavelJudge(endpoint) if gavel_on else None
    judged: dict[str, list[Pair]] = {"gavel": [], GROUNDED: []} if gavel_on else {}
    if peer_client is not None:
        judged.update({metric: [] for metric in PEER_METRICS})
    try:
        for index, (right, hallucinated) in enumerate(gavel_pairs):
            with_peers = peer_client is not None and index < peer_pairs
            results: dict[str, list[Judged]] = {name: [] for name in judged}
            if not with_peers and gavel is None:
                break
            for item in (right, hallucinated):
                if gavel is not None:
                    judged_item = await gavel.rag(item)
                    results["gavel"].append(judged_item)
                    results[GROUNDED].append(grounded_rule(judged_item))
                if with_peers and peer_client is not None:
                    for metric in PEER_METRICS:
                        results[metric].append(await anyio.to_thread.run_sync(peer_client.rag, metric, item))
                line = ", ".join(
                    f"{name} {'undecided' if not r[-1].decided else f'{r[-1].score:.2f}'} ({r[-1].wall_s:.0f}s)"
                    for name, r in results.items()
                    if r
                )
                say(f"  {item['id']}: {line}")
            for name, pair in results.items():
                if len(pair) == 2:
                    judged[name].append((pair[0], pair[1]))
            if checkpoint is not None:
                # A long run on a shared machine may have to be stopped: what is judged so far is kept.
                checkpoint(judged, False)
    finally:
        if gavel is not None:
            await gavel.aclose()
    return judged


def grounded_rule(item: Judged) -> Judged:
    """The same judgment under the grounding rule: hallucinated exactly when the judge found an unsupported
    sentence (is_grounded false)."""
    grounded = item.detail.get("is_grounded")
    return Judged(
        judge=GROUNDED, item_id=item.item_id, score=item.score, decided=grounded is not None,
        predicted_hallucinated=None if grounded is None else not grounded, wall_s=item.wall_s, usage=item.usage,
        error=item.error, detail=item.detail,
    )  # fmt: skip


def load_peer_pairs(path: Path, judges: Sequence[str] = PEER_METRICS) -> dict[str, list[Pair]]:
    """Judged pairs from an earlier run's JSON: the peers' from a `--peers-only` run (their judgments do not
    depend on Gavel's code), or any judge's for `--rebuild`."""
    import json

    rows = json.loads(path.read_text(encoding="utf-8"))["items"]
    out: dict[str, list[Pair]] = {}
    for metric in judges:
        by_id = {
            r["id"]: Judged(
                judge=metric,
                item_id=r["id"],
                score=r["score"],
                decided=r["decided"],
                predicted_hallucinated=r["predicted_hallucinated"],
                wall_s=r["wall_s"],
                usage=r["usage"],
                error=r["error"],
                detail=r["detail"] or {},
            )
            for r in rows
            if r["judge"] == metric
        }
        numbers = sorted({int(i.split("-")[2]) for i in by_id})
        out[metric] = [
            (by_id[f"halueval-qa-{n}-right"], by_id[f"halueval-qa-{n}-hallucinated"])
            for n in numbers
            if f"halueval-qa-{n}-right" in by_id and f"halueval-qa-{n}-hallucinated" in by_id
        ]
    return out


def _item_rows(judged: dict[str, list[Pair]]) -> list[dict[str, Any]]:
    rows = []
    for name, pairs in judged.items():
        for pair in pairs:
            for j in pair:
                rows.append(
                    {
                        "judge": name,
                        "id": j.item_id,
                        "score": j.score,
                        "decided": j.decided,
                        "predicted_hallucinated": j.predicted_hallucinated,
                        "wall_s": j.wall_s,
                        "usage": j.usage,
                        "error": j.error,
                        "detail": j.detail,
                    }
                )
    return rows


def main(argv: list[str] | None = None, *, out_dir: Path = RESULTS_DIR) -> Path:
    parser = argparse.ArgumentParser(
        prog="python -m bench.agreement", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=DEFAULT_PAIRS, help=f"question pairs for Gavel ({DEFAULT_PAIRS})")
    parser.add_argument(
        "--peer-pairs",
        type=int,
        default=DEFAULT_PEER_PAIRS,
        help=f"question pairs for the peers ({DEFAULT_PEER_PAIRS})",
    )
    parser.add_argument(
        "--skip",
        type=int,
        default=DEFAULT_SKIP,
        help=f"question pairs to skip before the subset ({DEFAULT_SKIP}: the ones a fix was found on)",
    )
    parser.add_argument("--full", action="store_true", help="all 100 pairs, for Gavel and the peers")
    parser.add_argument("--no-peers", action="store_true", help="Gavel only")
    parser.add_argument("--peers-only", action="store_true", help="the peers only (for --peers-from in a later run)")
    parser.add_argument(
        "--peers-from", type=Path, default=None, help="the peers' pairs from an earlier --peers-only run's JSON"
    )
    parser.add_argument(
        "--rebuild", type=Path, default=None,
        help="judge nothing: rebuild the table from this earlier run's Gavel items (and --peers-from)",
    )  # fmt: skip
    parser.add_argument("--smoke", action="store_true", help="2 pairs on a scripted endpoint (no model, no peers)")
    parser.add_argument(
        "--threads", type=int, default=None, help="llama.cpp threads (default: every core; 1 on an overloaded machine)"
    )
    parser.add_argument("--out", type=Path, default=None, help="results directory")
    parser.add_argument("--name", default=None, help=f"results file name (default {NAME}, or {NAME}-peers)")
    args = parser.parse_args(argv)
    quiet_logging("WARNING")
    all_pairs = load_pairs()
    count = None if args.full else (2 if args.smoke else args.pairs)
    peer_count = len(all_pairs) if args.full else args.peer_pairs
    skip = 0 if args.full or args.smoke else args.skip
    chosen = subset(all_pairs[skip:], count)
    run = Run(args.name or (f"{NAME}-peers" if args.peers_only else NAME), args.out or out_dir, args.smoke)

    if args.rebuild is not None:
        return _rebuild(args.rebuild, args.peers_from, run)
    if args.smoke:
        from bench.scripted import schema_reply

        endpoint = start_scripted_endpoint(lambda request: schema_reply(request.get("format")))
    else:
        endpoint = start_embedded_endpoint(embeddings=False, threads=args.threads)
    peer_client: PeerClient | None = None
    peers_note = None
    stderr_path = peer_log_path("agreement")
    if args.peers_from is not None:
        peers_note = (
            f"peers' judgments loaded from {args.peers_from} (an earlier --peers-only run on the same endpoint)"
        )
    elif args.smoke or args.no_peers:
        peers_note = "peers not run (--smoke or --no-peers)"
    elif not peers_installed():
        peers_note = "peers not run: .venv-bench is missing (see bench/README.md)"
    else:
        try:
            peer_client = PeerClient(endpoint, stderr_path)
        except PeerUnavailable as exc:
            peers_note = f"peers not run: {exc}"
    started = time.perf_counter()

    def build(judged: dict[str, list[Pair]], complete: bool) -> dict[str, Any]:
        if args.peers_from is not None:
            judged = {**judged, **load_peer_pairs(args.peers_from)}
        summaries = [summarize(name, pairs) for name, pairs in judged.items() if pairs]
        summaries += _held_out(judged) + _as_the_peers(judged)
        done = len(judged.get("gavel") or judged.get(PEER_METRICS[0]) or [])
        return {
            "complete": complete,
            "data": str(data_path()),
            "subset": f"{len(chosen)} question pairs by question number after the first {skip}"
            + ("" if count is None else " (--full for all 100)"),
            "pairs_done": done,
            "question_numbers": [int(r["id"].split("-")[2]) for r, _ in chosen],
            "peer_subset": None if peer_client is None else f"the first {min(peer_count, len(chosen))} of them",
            "decision_rules": RULES,
            "decision_rules_fixed_before_measurement": True,
            "model": endpoint.model,
            "llama_threads": args.threads or "every core",
            "endpoint": "tests.support.ollama_server.OllamaTestServer on 127.0.0.1, answered by the embedded "
            "default GGUF through llama.cpp (prompt cache on, one slot)"
            if not args.smoke
            else "scripted (smoke: the numbers mean nothing)",
            "peer_versions": peer_client.versions if peer_client is not None else None,
            "peers_note": peers_note,
            "wall_s": round(time.perf_counter() - started, 1),
            "summaries": summaries,
            "items": _item_rows(judged),
        }

    def checkpoint(judged: dict[str, list[Pair]], complete: bool) -> None:
        run.write(build(judged, complete))

    try:
        say(f"\n## 3. Agreement with the labelled set ({len(chosen)} pairs for Gavel)\n")
        judged = anyio.run(run_judges, endpoint, chosen, peer_count, peer_client, checkpoint, not args.peers_only)
    finally:
        if peer_client is not None:
            peer_client.close()
        endpoint.close()
    payload = build(judged, True)
    path = run.write(payload)
    say()
    say(_table(payload["summaries"]))
    if peers_note:
        say(f"\n{peers_note}")
    say(f"written to {path}")
    return path


def _held_out(judged: dict[str, list[Pair]]) -> list[dict[str, Any]]:
    """Gavel's rows again without the pairs its prompts were chosen on."""
    rows = []
    for name in ("gavel", GROUNDED):
        held = [p for p in judged.get(name, []) if _number(p) >= TUNED_PAIRS]
        if held and len(held) < len(judged[name]):
            extra = summarize(name, held)
            extra["judge"] = f"{name}, held out (question pairs {TUNED_PAIRS + 1}-100)"
            rows.append(extra)
    return rows


def _as_the_peers(judged: dict[str, list[Pair]]) -> list[dict[str, Any]]:
    """Gavel's rows again on exactly the question pairs the peers judged, so the table compares like with like."""
    peer_ids = {right.item_id for right, _ in judged.get(PEER_METRICS[0], [])}
    rows = []
    for name in ("gavel", GROUNDED) if peer_ids else ():
        same = [p for p in judged.get(name, []) if p[0].item_id in peer_ids]
        if same and len(same) < len(judged[name]):
            extra = summarize(name, same)
            extra["judge"] = f"{name}, on the peers' {len(same)} question pairs"
            rows.append(extra)
    return rows


def _rebuild(path: Path, peers_from: Path | None, run: Run) -> Path:
    import json

    earlier = json.loads(path.read_text(encoding="utf-8"))
    judged = load_peer_pairs(path, ("gavel", GROUNDED))
    if peers_from is not None:
        judged.update(load_peer_pairs(peers_from))
    summaries = [summarize(name, pairs) for name, pairs in judged.items() if pairs]
    summaries += _held_out(judged) + _as_the_peers(judged)
    earlier.update(
        summaries=summaries,
        items=_item_rows(judged),
        peers_note=f"peers' judgments from {peers_from}" if peers_from else earlier.get("peers_note"),
        rebuilt_from=str(path),
    )
    out = run.write(earlier)
    say(_table(summaries))
    return out


def _table(summaries: list[dict[str, Any]]) -> str:
    return table(
        ["judge", "items", "balanced acc [95% CI]", "F1 halluc.", "AUROC", "pairwise acc", "undecided", "s/item"],
        [
            [
                s["judge"], s["items"], _with_ci(s, "balanced_accuracy"), _with_ci(s, "f1_hallucinated"),
                _with_ci(s, "auroc"), _with_ci(s, "pairwise_accuracy"), s["undecided_rate"], s["wall_s_per_item"],
            ]
            for s in summaries
        ],
    )  # fmt: skip


_PAIR_INDEX: dict[int, int] = {}


def _number(pair: Pair) -> int:
    """The pair's position by question number in the whole set (0-based), as `--skip` and the subsets count."""
    if not _PAIR_INDEX:
        _PAIR_INDEX.update({int(r["id"].split("-")[2]): i for i, (r, _) in enumerate(load_pairs())})
    return _PAIR_INDEX[int(pair[0].item_id.split("-")[2])]


def _with_ci(summary: dict[str, Any], name: str) -> str:
    value = summary.get(name)
    low, high = summary.get(f"{name}_ci95") or (None, None)
    if value is None:
        return "-"
    if low is None or high is None:
        return f"{value:.2f}"
    return f"{value:.2f} [{low:.2f}, {high:.2f}]"


if __name__ == "__main__":
    main()
