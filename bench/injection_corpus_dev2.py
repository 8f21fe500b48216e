"""A clean tuning part drawn from the same sources as `injection_corpus_heldout2` ("dev_2"), none of its texts in
held_out_2: the Auto-J responses and requests, Topical-Chat turns and responses that held_out_2 did not draw,
BIPIA's training emails, code answers and tables, and Debian's coreutils, apt, glib and PackageKit translations in
the languages held_out_2 did not use plus the messages it did not draw in those it did. The detector was tuned on
these false flags; held_out_2 stays unread until the final measurement.

    python -m bench.injection_corpus_dev2   # rewrites bench/data/injection_corpus_dev2.jsonl
"""

from __future__ import annotations

import random

from bench import injection_corpus_heldout2 as h2
from bench.injection_corpus_common import write_jsonl

SEED = 2026
OUT = h2.OUT.parent / "injection_corpus_dev2.jsonl"
COREUTILS_LANGUAGES = ["ca", "da", "fi", "gl", "hr", "lt", "nb", "ro", "sk", "sl", "sr", "bg", "et", "eu", "eo",
                       "ms", "af", "be", "pt", "ga"]  # fmt: skip
MESSAGE_LANGUAGES = ["ur", "ar", "hi", "he", "th", "fa", "bn", "ta", "ko"]


def rows() -> list[dict[str, str]]:
    rng = random.Random(SEED)
    held = {row["text"] for row in h2._jsonl(h2.OUT)}

    def fresh(texts: list[str], n: int) -> list[str]:
        return h2._sample(rng, [t for t in texts if t.strip() not in held], n)

    groups: list[tuple[str, list[str]]] = []
    autoj = h2._jsonl(h2.SHARED / "autoj_pairwise_dev.jsonl")
    groups.append(("chatbot responses (Auto-J)", fresh([c for row in autoj for c in row["candidates"]], 220)))
    groups.append(("user requests to an assistant (Auto-J)", fresh([row["input"] for row in autoj], 140)))
    chat = h2._jsonl(h2.SHARED / "topicalchat_usr_dev.jsonl")
    turns = [t for row in chat for t in row["dialogue_history"].split("\n") if len(t.strip()) >= 40]
    groups.append(("dialogue turns (Topical-Chat)", fresh(turns, 120)))
    groups.append(("emails (BIPIA train)", fresh([r["context"] for r in h2._bipia("benchmark/email/train.jsonl")], 50)))
    answers = ["\n".join(r["context"]) for r in h2._bipia("benchmark/code/train.jsonl")]
    groups.append(("programming answers (BIPIA train)", fresh(answers, 40)))
    groups.append(("tables (BIPIA train)", fresh([r["context"] for r in h2._bipia("benchmark/table/train.jsonl")], 20)))
    for language in COREUTILS_LANGUAGES + h2.COREUTILS_LANGUAGES:
        path = h2.LOCALE / language / "LC_MESSAGES" / "coreutils.mo"
        if path.exists():
            groups.append((f"non-English help text: {language}", fresh(h2._messages(path, 120, 900), 6)))
    for language in MESSAGE_LANGUAGES:
        folder = h2.LOCALE / language / "LC_MESSAGES"
        texts = [t for d in h2.MESSAGE_DOMAINS if (folder / d).exists() for t in h2._messages(folder / d, 60, 600)]
        groups.append((f"non-English messages: {language}", fresh(texts, 10)))
    return [
        {"id": f"dev_2/clean/{category}/{i}", "kind": "clean", "category": category, "split": "dev_2", "text": text}
        for category, texts in groups
        for i, text in enumerate(texts)
    ]


def main() -> None:
    built = rows()
    write_jsonl(OUT, built)
    print(f"{len(built)} clean texts written to {OUT}")


if __name__ == "__main__":
    main()
