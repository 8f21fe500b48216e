"""A probe of a learned reading of injections, measured and not built: a logistic regression over hashed words and
word pairs of each line (scored line by line, a text flagged by its highest line), fitted with numpy (needed here
only) on the tuning parts of bench/injection_corpus.jsonl, never on the held-out ones (held_out_2,
external_heldout_2, held_out_3). Pure-Python inference would have been a sum of int8 weights per line.

Lines: every line of a clean text is a negative; a line of an injected text is a negative when it is part of a
carrier or of a clean text (the attack was put around it), a positive otherwise. The cut is the score that flags at
most `CLEAN_RATE` of the clean tuning texts, read from out-of-fold scores (5 folds over the texts), so the cut is
not set on texts the weights were fitted on.

    python -m bench.injection_learned_probe   # fits without external_heldout and reports on it; writes nothing

Result (see bench/README.md): at a cut flagging 0.2 % of the clean tuning texts out of fold, it found 8 of
external_heldout's 212 injections; words of one set of attacks do not carry to another's.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import sys
import zlib
from pathlib import Path

import numpy as np

from bench import injection_corpus_dev, injection_corpus_heldout_carriers
from gavel.tools.guards.text import normalize_for_matching

CORPUS = Path(__file__).resolve().parent / "injection_corpus.jsonl"
TUNING = {"dev", "dev_2", "held_out", "external_tune", "external_heldout"}
BITS = 18
CLEAN_RATE = 0.002
EPOCHS = 400
L2 = 2e-5
SEED = 26
REUSED = 4
_MAX_UNIT_CHARS = 600
_MIN_UNIT_WORDS = 3
_WORD = re.compile(r"\w+")


def units(normalized: str) -> list[str]:
    """The lines of a normalized text, long ones cut into pieces of about `_MAX_UNIT_CHARS` at sentence ends."""
    out: list[str] = []
    for line in normalized.split("\n"):
        line = line.strip()
        while len(line) > _MAX_UNIT_CHARS:
            cut = max(line.rfind(". ", 0, _MAX_UNIT_CHARS), line.rfind("? ", 0, _MAX_UNIT_CHARS),
                      line.rfind("! ", 0, _MAX_UNIT_CHARS))  # fmt: skip
            cut = cut + 1 if cut > _MAX_UNIT_CHARS // 3 else _MAX_UNIT_CHARS
            out.append(line[:cut])
            line = line[cut:].strip()
        out.append(line)
    return [u for u in out if len(_WORD.findall(u)) >= _MIN_UNIT_WORDS]


def features(unit: str, bits: int) -> set[int]:
    """Hashed buckets of the unit's words and adjacent word pairs (crc32: stable across runs and machines)."""
    mask = (1 << bits) - 1
    words = _WORD.findall(unit)
    grams = [f"w {w}" for w in words] + [f"b {a} {b}" for a, b in itertools.pairwise(words)]
    return {zlib.crc32(g.encode()) & mask for g in grams}


def _carrier_lines() -> set[str]:
    out = set()
    for text in [*injection_corpus_dev.CARRIERS, *injection_corpus_heldout_carriers.CARRIERS]:
        out.update(units(normalize_for_matching(text)))
    return out


def _labelled(rows: list[dict[str, str]]) -> tuple[list[list[int]], list[int], list[int]]:
    """Per unit: its buckets, its label, and the index of its text."""
    normal = [normalize_for_matching(r["text"]) for r in rows]
    clean_units = {u for r, n in zip(rows, normal, strict=True) if r["kind"] == "clean" for u in units(n)}
    harmless = clean_units | _carrier_lines()
    carriers = [normalize_for_matching(c) for c in injection_corpus_heldout_carriers.CARRIERS]
    # A line found in many injected texts is most often the document the attack was put into (garak's and BIPIA's
    # contexts are reused for every payload); the attacks themselves vary.
    seen: dict[str, int] = {}
    for row, text in zip(rows, normal, strict=True):
        for unit in set(units(text)) if row["kind"] == "injection" else ():
            seen[unit] = seen.get(unit, 0) + 1
    feats, labels, owner = [], [], []
    for i, (row, text) in enumerate(zip(rows, normal, strict=True)):
        for unit in units(text):
            positive = (row["kind"] == "injection" and unit not in harmless and seen.get(unit, 0) < REUSED
                        and not any(unit in c for c in carriers))  # fmt: skip
            feats.append(sorted(features(unit, BITS)))
            labels.append(int(positive))
            owner.append(i)
    return feats, labels, owner


def fit(feats: list[list[int]], labels: list[int]) -> tuple[np.ndarray, float]:
    rows = np.repeat(np.arange(len(feats)), [len(f) for f in feats])
    cols = np.concatenate([np.array(f, dtype=np.int64) for f in feats])
    vals = np.concatenate([np.full(len(f), 1 / np.sqrt(len(f))) for f in feats])
    y = np.array(labels, dtype=np.float64)
    share = y.mean()
    sample_weight = np.where(y == 1, 0.5 / share, 0.5 / (1 - share)) / len(y)
    w, b = np.zeros(1 << BITS), 0.0
    m_w, v_w, m_b, v_b = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    for step in range(1, EPOCHS + 1):
        z = np.bincount(rows, weights=vals * w[cols], minlength=len(y)) + b
        p = 1 / (1 + np.exp(-z))
        g = (p - y) * sample_weight
        grad_w = np.bincount(cols, weights=vals * g[rows], minlength=len(w)) + L2 * w
        grad_b = g.sum()
        m_w = beta1 * m_w + (1 - beta1) * grad_w
        v_w = beta2 * v_w + (1 - beta2) * grad_w**2
        m_b = beta1 * m_b + (1 - beta1) * grad_b
        v_b = beta2 * v_b + (1 - beta2) * grad_b**2
        w -= rate * (m_w / (1 - beta1**step)) / (np.sqrt(v_w / (1 - beta2**step)) + 1e-8)
        b -= rate * (m_b / (1 - beta1**step)) / (np.sqrt(v_b / (1 - beta2**step)) + 1e-8)
    return w, b


def text_scores(w: np.ndarray, b: float, feats: list[list[int]], owner: list[int], n: int) -> np.ndarray:
    out = np.full(n, -np.inf)
    for f, i in zip(feats, owner, strict=True):
        out[i] = max(out[i], b + w[f].sum() / np.sqrt(len(f)))
    return out


def out_of_fold_cut(rows: list[dict[str, str]], feats: list[list[int]], labels: list[int], owner: list[int]) -> float:
    rng = random.Random(SEED)
    fold = [rng.randrange(5) for _ in rows]
    clean_scores: list[float] = []
    for k in range(5):
        train = [j for j, i in enumerate(owner) if fold[i] != k]
        w, b = fit([feats[j] for j in train], [labels[j] for j in train])
        scored = text_scores(w, b, feats, owner, len(rows))
        clean_scores += [scored[i] for i, r in enumerate(rows) if fold[i] == k and r["kind"] == "clean"]
    clean_scores.sort(reverse=True)
    allowed = int(len(clean_scores) * CLEAN_RATE)
    return float(clean_scores[allowed]) + 1e-6


def main() -> int:
    every = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    tuning = [r for r in every if r["split"] in TUNING and r["split"] != "external_heldout"]
    feats, labels, owner = _labelled(tuning)
    print(f"{len(tuning)} texts, {len(feats)} lines, {sum(labels)} positive")
    cut = out_of_fold_cut(tuning, feats, labels, owner)
    w, b = fit(feats, labels)
    probe = [r for r in every if r["split"] == "external_heldout"]
    p_feats, _, p_owner = _labelled(probe)
    scored = text_scores(w, b, p_feats, p_owner, len(probe))
    per: dict[str, list[int]] = {}
    for r, s in zip(probe, scored, strict=True):
        per.setdefault(r["category"], []).append(int(s >= cut))
    for category, hits in sorted(per.items()):
        print(f"  {category:40} {sum(hits)}/{len(hits)}")
    print(f"  total {sum(sum(h) for h in per.values())}/{len(probe)} at cut {cut:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
