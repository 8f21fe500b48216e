"""Option (b) of issue 26's language-agnostic signal, measured: the embedded model's mean-pooled embeddings of each
text of bench/injection_corpus.jsonl, a logistic regression and a nearest-centroid classifier fitted on the dev part,
read on the held-out part. Measurement only: nothing here is part of Gavel.

    taskset -c 1 nice -n 5 python -m bench.injection_embeddings   # needs the `embedded` extra and numpy

The embeddings are cached in ~/.cache/gavel/bench/ (a rerun costs seconds); the result goes to
bench/results/injection_embeddings.json with the machine and its load.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.injection_corpus_measure import load
from bench.machine import describe
from gavel.tools.engine.embedded import default_model_path
from gavel.tools.guards import detect_injection

CACHE = Path.home() / ".cache" / "gavel" / "bench" / "injection_embeddings.json"
RESULTS = Path(__file__).resolve().parent / "results" / "injection_embeddings.json"
MAX_FALSE_FLAGS = 0.01
SAMPLE_EVERY = 2


def _server() -> Any:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(default_model_path())
    params.n_ctx = 1024
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.warmup = False
    params.embedding = True
    params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    params.hostnames = [os.path.join(tempfile.mkdtemp(prefix="gavel-emb-"), "llama.sock")]
    params.api_keys = [secrets.token_urlsafe(16)]
    params.ui = False
    params.n_threads_http = 1
    params.verbosity = -1
    return xllamacpp.Server(params)


def embeddings(rows: list[dict[str, str]]) -> tuple[dict[str, list[float]], float]:
    cached: dict[str, list[float]] = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    missing = [row for row in rows if row["id"] not in cached]
    seconds = 0.0
    if missing:
        server = _server()
        started = time.perf_counter()
        for i, row in enumerate(missing):
            reply = server.handle_embeddings({"input": [row["text"][:3000]]})
            cached[row["id"]] = reply["data"][0]["embedding"]
            if i % 25 == 24:
                print(f"{i + 1}/{len(missing)} embedded", file=sys.stderr)
                CACHE.parent.mkdir(parents=True, exist_ok=True)
                CACHE.write_text(json.dumps(cached))
        seconds = (time.perf_counter() - started) / len(missing)
        CACHE.write_text(json.dumps(cached))
    return cached, seconds


def _auroc(scores: np.ndarray, labels: np.ndarray) -> float:
    positive, negative = scores[labels == 1], scores[labels == 0]
    wins = (positive[:, None] > negative[None, :]).sum() + 0.5 * (positive[:, None] == negative[None, :]).sum()
    return float(wins / (len(positive) * len(negative)))


def _logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 3000, rate: float = 0.5) -> np.ndarray:
    w = np.zeros(x.shape[1] + 1)
    xb = np.hstack([x, np.ones((len(x), 1))])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-xb @ w))
        w -= rate * (xb.T @ (p - y) / len(y) + l2 * np.r_[w[:-1], 0])
    return w


def _rates(scores: np.ndarray, labels: np.ndarray, cut: float) -> dict[str, Any]:
    flagged = scores >= cut
    return {"detected": int((flagged & (labels == 1)).sum()), "injected": int((labels == 1).sum()),
            "false_flags": int((flagged & (labels == 0)).sum()), "clean": int((labels == 0).sum())}  # fmt: skip


def main() -> int:
    # Every other text of each part: about 4 s a text on one shared core, so the whole corpus would take an hour.
    rows = load()[::SAMPLE_EVERY]
    vectors, seconds = embeddings(rows)
    parts = {}
    for split in ("dev", "held_out"):
        mine = [r for r in rows if r["split"] == split]
        x = np.array([vectors[r["id"]] for r in mine])
        parts[split] = (
            mine,
            x / np.linalg.norm(x, axis=1, keepdims=True),
            np.array([r["kind"] == "injection" for r in mine], dtype=float),
        )
    _, x_dev, y_dev = parts["dev"]
    mean, std = x_dev.mean(0), x_dev.std(0) + 1e-6
    w = _logistic((x_dev - mean) / std, y_dev)
    centroids = x_dev[y_dev == 1].mean(0), x_dev[y_dev == 0].mean(0)
    report: dict[str, Any] = {
        "seconds_per_text_embedded": seconds,
        "sample": f"every {SAMPLE_EVERY}nd text of bench/injection_corpus.jsonl",
        "texts": {split: {"injected": int(y.sum()), "clean": int((1 - y).sum())} for split, (_, _, y) in parts.items()},
        "classifiers": {},
    }
    for name, score in (
        ("logistic regression", lambda x: np.hstack([(x - mean) / std, np.ones((len(x), 1))]) @ w),
        ("nearest centroid", lambda x: x @ centroids[0] - x @ centroids[1]),
    ):
        dev_scores = score(x_dev)
        clean_dev = np.sort(dev_scores[y_dev == 0])
        cut = float(clean_dev[int(np.ceil(len(clean_dev) * (1 - MAX_FALSE_FLAGS))) - 1]) + 1e-9  # <= 1 % on dev
        out = {}
        for split, (mine, x, y) in parts.items():
            s = score(x)
            rules = np.array([bool(detect_injection(r["text"])) for r in mine])
            either = (s >= cut) | rules
            out[split] = {"auroc": _auroc(s, y), "at_dev_cut": _rates(s, y, cut),
                          "with_rules_either": _rates(either.astype(float), y, 0.5)}  # fmt: skip
        report["classifiers"][name] = out
    report["machine"] = {**describe(), "load_average": os.getloadavg(), "pinned": "taskset -c 1, one thread"}
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report["classifiers"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
