"""Benchmark 2: LLM cost per judged item, Gavel against RAGAS and DeepEval on the same model and endpoint.

Every judge sends its calls to one Ollama-API endpoint (`bench.meter`: the test server answered by the
embedded default GGUF, prompt cache on), which counts them identically for all: LLM calls, prompt tokens
evaluated, prompt tokens reused from llama.cpp's cache, completion tokens, embedding calls, seconds.

RAG: a whole Gavel judgment (judge_rag_answer: five dimensions + grounding, verdict, diagnosis) against
each peer's faithfulness + answer relevancy TOGETHER (the two metrics a RAG user of that library runs), on
the first items of the labelled set (right answer, then hallucinated, by question number). Assessment:
Gavel's evaluate_assessment (clinical-assessment, four metrics) against DeepEval G-Eval with the same four
criteria (each metric's description and anchors).

Peers use their libraries' defaults (DeepEval includes a reason; RAGAS answer relevancy generates 3
questions), which is what their users get. Failures are counted, never dropped: a metric that raised or
returned NaN is a failure of that item.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import anyio

from bench.common import RESULTS_DIR, Run, quiet_logging, say, table
from bench.judges import GavelJudge, Judged, PeerClient, PeerUnavailable, peer_log_path, peers_installed
from bench.meter import Endpoint, start_embedded_endpoint, start_scripted_endpoint
from bench.strategy import ASSESSMENT, TRANSCRIPT
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.devset import load_pairs

NAME = "cost"
DEFAULT_ITEMS = 1
PEER_RAG = {
    "ragas (faithfulness + answer relevancy)": ("ragas_faithfulness", "ragas_answer_relevancy"),
    "deepeval (faithfulness + answer relevancy)": ("deepeval_faithfulness", "deepeval_answer_relevancy"),
}
USAGE_KEYS = (
    "llm_calls",
    "prompt_tokens_evaluated",
    "prompt_tokens_reused",
    "completion_tokens",
    "embedding_calls",
    "embedding_tokens",
    "truncated_replies",
)


def geval_criteria() -> list[tuple[str, str]]:
    """The clinical-assessment rubric's metrics as G-Eval criteria: the same words Gavel's judge reads."""
    rubric = RubricRegistry.load().get("clinical-assessment")
    criteria = []
    for metric in rubric.metrics:
        anchors = "; ".join(f"{level}: {meaning}" for level, meaning in sorted(metric.levels.items(), reverse=True))
        criteria.append(
            (
                metric.id,
                f"{metric.description} Compare the assessment (actual output) with the transcript (input). "
                f"Anchors on a 1-5 scale: {anchors}.",
            )
        )
    return criteria


def combine(name: str, item_id: str, parts: list[Judged]) -> dict[str, Any]:
    usage = {key: sum(p.usage.get(key, 0) for p in parts) for key in USAGE_KEYS}
    failures = [f"{p.judge}: {p.error}" for p in parts if not p.decided]
    return {
        "judge": name,
        "item": item_id,
        **usage,
        "wall_s": round(sum(p.wall_s for p in parts), 2),
        "failures": len(failures),
        "failure_detail": failures,
        "scores": {p.judge: p.score for p in parts},
    }


async def run_all(
    endpoint: Endpoint, items: list[dict[str, Any]], peer_client: PeerClient | None, assessment: bool
) -> list[dict[str, Any]]:
    gavel = GavelJudge(endpoint)
    rows: list[dict[str, Any]] = []
    try:
        for item in items:
            judged = await gavel.rag(item)
            row = combine("gavel judge_rag_answer", item["id"], [judged])
            row["failures"] += len(judged.detail.get("unscored_dimensions", [])) if judged.decided else 0
            rows.append(row)
            say(f"  {item['id']}: gavel {row['llm_calls']} calls, {row['wall_s']:.0f}s")
            if peer_client is not None:
                for name, metrics in PEER_RAG.items():
                    parts = [await anyio.to_thread.run_sync(peer_client.rag, m, item) for m in metrics]
                    rows.append(combine(name, item["id"], parts))
                    say(f"  {item['id']}: {name} {rows[-1]['llm_calls']} calls, {rows[-1]['wall_s']:.0f}s")
        if assessment:
            judged = await gavel.assessment(ASSESSMENT, TRANSCRIPT)
            rows.append(combine("gavel evaluate_assessment", "clinical", [judged]))
            say(f"  clinical: gavel {rows[-1]['llm_calls']} calls, {rows[-1]['wall_s']:.0f}s")
            if peer_client is not None:
                parts = [
                    await anyio.to_thread.run_sync(peer_client.geval, metric, criteria, TRANSCRIPT, ASSESSMENT)
                    for metric, criteria in geval_criteria()
                ]
                rows.append(combine("deepeval G-Eval (4 criteria)", "clinical", parts))
                say(f"  clinical: deepeval G-Eval {rows[-1]['llm_calls']} calls, {rows[-1]['wall_s']:.0f}s")
    finally:
        await gavel.aclose()
    return rows


def per_judge(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Means per judged item, per judge."""
    out = []
    for name in dict.fromkeys(r["judge"] for r in rows):
        mine = [r for r in rows if r["judge"] == name]
        entry: dict[str, Any] = {"judge": name, "items": len(mine)}
        for key in (*USAGE_KEYS, "wall_s"):
            entry[key] = round(sum(r[key] for r in mine) / len(mine), 1)
        entry["failures_total"] = sum(r["failures"] for r in mine)
        out.append(entry)
    return out


def main(argv: list[str] | None = None, *, out_dir: Path = RESULTS_DIR) -> Path:
    parser = argparse.ArgumentParser(
        prog="python -m bench.cost", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--items",
        type=int,
        default=DEFAULT_ITEMS,
        help=f"RAG items: the first N of the labelled set, right answer first, by question number ({DEFAULT_ITEMS})",
    )
    parser.add_argument("--no-peers", action="store_true", help="Gavel only")
    parser.add_argument("--hash-embeddings", action="store_true", help="RAGAS gets the hash embedding, not the GGUF's")
    parser.add_argument("--smoke", action="store_true", help="1 pair on a scripted endpoint (no model, no peers)")
    parser.add_argument(
        "--threads", type=int, default=None, help="llama.cpp threads (default: every core; 1 on an overloaded machine)"
    )
    parser.add_argument("--out", type=Path, default=None, help="results directory")
    args = parser.parse_args(argv)
    quiet_logging("WARNING")
    items = [item for pair in load_pairs() for item in pair][: 1 if args.smoke else args.items]
    run = Run(NAME, args.out or out_dir, args.smoke)
    if args.smoke:
        from bench.scripted import schema_reply

        endpoint = start_scripted_endpoint(lambda request: schema_reply(request.get("format")))
    else:
        use_peers = not args.no_peers and peers_installed()
        endpoint = start_embedded_endpoint(embeddings=use_peers and not args.hash_embeddings, threads=args.threads)
    peer_client: PeerClient | None = None
    peers_note = None
    if args.smoke or args.no_peers:
        peers_note = "peers not run (--smoke or --no-peers)"
    elif not peers_installed():
        peers_note = "peers not run: .venv-bench is missing (see bench/README.md)"
    else:
        try:
            peer_client = PeerClient(endpoint, peer_log_path("cost"))
        except PeerUnavailable as exc:
            peers_note = f"peers not run: {exc}"
    started = time.perf_counter()
    say(f"\n## 2. LLM cost per judged item ({len(items)} RAG items + 1 assessment)\n")
    try:
        rows = anyio.run(run_all, endpoint, items, peer_client, True)
    finally:
        if peer_client is not None:
            peer_client.close()
        endpoint.close()
    summary = per_judge(rows)
    payload = {
        "items": [i["id"] for i in items] + ["clinical (bench.strategy's transcript and assessment)"],
        "model": endpoint.model,
        "llama_threads": args.threads or "every core",
        "embeddings": endpoint.embeddings,
        "comparison": "a whole Gavel RAG judgment vs each peer's faithfulness + answer relevancy together; "
        "evaluate_assessment vs DeepEval G-Eval with the same 4 criteria",
        "peer_versions": peer_client.versions if peer_client is not None else None,
        "peers_note": peers_note,
        "wall_s": round(time.perf_counter() - started, 1),
        "per_judge": summary,
        "rows": rows,
    }
    path = run.write(payload)
    say()
    say(
        table(
            ["judge (per item)", "items", "LLM calls", "prompt eval", "prompt reused", "completion", "embed calls",
             "wall s", "failures"],
            [
                [s["judge"], s["items"], s["llm_calls"], s["prompt_tokens_evaluated"], s["prompt_tokens_reused"],
                 s["completion_tokens"], s["embedding_calls"], s["wall_s"], s["failures_total"]]
                for s in summary
            ],
        )
    )  # fmt: skip
    if peers_note:
        say(f"\n{peers_note}")
    say(f"written to {path}")
    return path


if __name__ == "__main__":
    main()
