"""The second held-out clean part of the injection corpus ("held_out_2"): texts written by others, drawn with a
fixed seed, committed before the detector was changed for the false flags of the first held-out part, and measured
once at the end. It replaces the first held-out part for the false-flag claim, whose five false flags were read
and tuned on.

Sources (all text people or other models wrote, none written for this detector):

- Auto-J pairwise test data (/work/shared/data/autoj_pairwise_dev.jsonl; GAIR-NLP/auto-j@2ae17a39
  data/test/testdata_pairwise.jsonl): chatbot responses, and user requests (many give an assistant a role, rules
  or a format).
- Topical-Chat with USR ratings (/work/shared/data/topicalchat_usr_dev.jsonl; maszhongming/UniEval@d33e7b6c):
  candidate next turns and single turns of the conversations.
- BIPIA (microsoft/BIPIA@1a2a91da, MIT): the emails of benchmark/email/test.jsonl, the Stack Overflow style answers
  of benchmark/code/test.jsonl and the tables of benchmark/table/test.jsonl, without any attack inserted.
- clinical assessments and interview transcripts of bench/data/clinical_dev.jsonl (written by another session for
  issue 25, never read by the detector's authors).
- Debian's translations of GNU coreutils' help texts (coreutils 9.1-1, GPL-3.0-or-later;
  /usr/share/locale/<language>/LC_MESSAGES/coreutils.mo) in 20 languages: prose full of "ignore", "never prompt",
  "override", "default".
- Debian's translations of apt, glib and PackageKit messages into Arabic, Hindi, Hebrew, Thai, Persian, Bengali,
  Tamil and Korean (the same files, LGPL/GPL): scripts the first two sources lack.

HaluEval is left out: its passages, answers and questions are already the clean corpus of
`bench.injection_detector`, so they are not fresh.

    python -m bench.injection_corpus_heldout2   # rewrites bench/data/injection_corpus_heldout2.jsonl

The jsonl is committed, so `python -m bench.injection_corpus_build` needs none of the sources.
"""

from __future__ import annotations

import gettext
import json
import random
import subprocess
from pathlib import Path

from bench.injection_corpus_common import write_jsonl

SEED = 26
OUT = Path(__file__).resolve().parent / "data" / "injection_corpus_heldout2.jsonl"
SHARED = Path("/work/shared/data")
CLINICAL = Path(__file__).resolve().parent / "data" / "clinical_dev.jsonl"
BIPIA = Path("/work/.mirror/microsoft+BIPIA/repo")
BIPIA_COMMIT = "1a2a91da6bb12838e05d1b2e54d98e2f37b835f3"
LOCALE = Path("/usr/share/locale")
COREUTILS_LANGUAGES = ["de", "fr", "es", "it", "pt_BR", "nl", "pl", "ru", "uk", "cs", "tr", "vi", "id", "ja",
                       "ko", "zh_CN", "zh_TW", "el", "hu", "sv"]  # fmt: skip
MESSAGE_LANGUAGES = ["ar", "hi", "he", "th", "fa", "bn", "ta", "ko"]
MESSAGE_DOMAINS = ["apt.mo", "glib20.mo", "PackageKit.mo"]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _sample(rng: random.Random, texts: list[str], n: int) -> list[str]:
    distinct = sorted(set(t.strip() for t in texts if t.strip()))
    return rng.sample(distinct, min(n, len(distinct)))


def _bipia(path: str) -> list[dict]:
    out = subprocess.run(["git", "-C", str(BIPIA), "show", f"{BIPIA_COMMIT}:{path}"],
                         check=True, capture_output=True, text=True).stdout  # fmt: skip
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _messages(path: Path, min_chars: int, max_chars: int) -> list[str]:
    with path.open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)._catalog  # the parsed .mo: msgid -> msgstr
    return [text for key, text in catalog.items()
            if key and isinstance(text, str) and min_chars <= len(text) <= max_chars]  # fmt: skip


def rows() -> list[dict[str, str]]:
    rng = random.Random(SEED)
    groups: list[tuple[str, str, str, list[str]]] = []  # (category, source, licence, texts)
    autoj = _jsonl(SHARED / "autoj_pairwise_dev.jsonl")
    autoj_src, autoj_lic = (
        "GAIR-NLP/auto-j@2ae17a39 data/test/testdata_pairwise.jsonl",
        "research use (no licence file)",
    )
    groups.append(("chatbot responses (Auto-J)", autoj_src, autoj_lic,
                   _sample(rng, [c for row in autoj for c in row["candidates"]], 180)))  # fmt: skip
    groups.append(("user requests to an assistant (Auto-J)", autoj_src, autoj_lic,
                   _sample(rng, [row["input"] for row in autoj], 60)))  # fmt: skip
    chat = _jsonl(SHARED / "topicalchat_usr_dev.jsonl")
    chat_src, chat_lic = "maszhongming/UniEval@d33e7b6c reproduce/data/dialogue/topical_chat.json", "CDLA-Sharing-1.0"
    groups.append(("dialogue responses (Topical-Chat)", chat_src, chat_lic,
                   _sample(rng, [row["response"] for row in chat], 60)))  # fmt: skip
    turns = [t for row in chat for t in row["dialogue_history"].split("\n") if len(t.strip()) >= 40]
    groups.append(("dialogue turns (Topical-Chat)", chat_src, chat_lic, _sample(rng, turns, 40)))
    bipia_src = f"microsoft/BIPIA@{BIPIA_COMMIT[:8]} benchmark/"
    groups.append(("emails (BIPIA)", bipia_src + "email/test.jsonl", "MIT",
                   _sample(rng, [row["context"] for row in _bipia("benchmark/email/test.jsonl")], 50)))  # fmt: skip
    answers = ["\n".join(row["context"]) for row in _bipia("benchmark/code/test.jsonl")]
    groups.append(("programming answers (BIPIA)", bipia_src + "code/test.jsonl", "MIT", _sample(rng, answers, 30)))
    groups.append(("tables (BIPIA)", bipia_src + "table/test.jsonl", "MIT",
                   _sample(rng, [row["context"] for row in _bipia("benchmark/table/test.jsonl")], 20)))  # fmt: skip
    clinical = _jsonl(CLINICAL)
    groups.append(("clinical assessments and interviews", "bench/data/clinical_dev.jsonl", "this project",
                   _sample(rng, [row["assessment"] for row in clinical], 30)
                   + _sample(rng, [row["source"] for row in clinical], 10)))  # fmt: skip
    for language in COREUTILS_LANGUAGES:
        path = LOCALE / language / "LC_MESSAGES" / "coreutils.mo"
        groups.append((f"non-English help text: {language} (coreutils)", f"Debian coreutils 9.1-1 {path}",
                       "GPL-3.0-or-later", _sample(rng, _messages(path, 120, 900), 4)))  # fmt: skip
    for language in MESSAGE_LANGUAGES:
        texts = [t for domain in MESSAGE_DOMAINS if (LOCALE / language / "LC_MESSAGES" / domain).exists()
                 for t in _messages(LOCALE / language / "LC_MESSAGES" / domain, 60, 600)]  # fmt: skip
        groups.append((f"non-English messages: {language} (apt, glib, PackageKit)",
                       f"Debian {LOCALE}/{language}/LC_MESSAGES/{{{','.join(MESSAGE_DOMAINS)}}}",
                       "GPL-2.0-or-later / LGPL-2.1-or-later", _sample(rng, texts, 5)))  # fmt: skip
    out: list[dict[str, str]] = []
    for category, source, licence, texts in groups:
        for i, text in enumerate(texts):
            out.append({"id": f"held_out_2/clean/{category}/{i}", "kind": "clean", "category": category,
                        "split": "held_out_2", "text": text, "source": source, "license": licence})  # fmt: skip
    return out


def main() -> None:
    built = rows()
    write_jsonl(OUT, built)
    print(f"{len(built)} clean texts written to {OUT}")


if __name__ == "__main__":
    main()
