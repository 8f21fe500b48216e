"""Injection sets written by others, first held back and measured once (144 of 404 detected), then read: its misses
were looked at, so it is now tuning data ("external_tune"). The held-out set written by others is
`bench/injection_corpus_external_heldout.py` ("external_heldout"), from other sources.

- garak (NVIDIA/garak@cafbe992, Apache-2.0), garak/probes/latentinjection.py: every latent-injection probe's
  instructions, separators, payloads and triggers put into its own documents (a resume, a 10-Q report, WHOIS
  records, Eiffel Tower and legal snippets, translation requests) the way the probe does it, without the user's
  request on top (only the document is judged). Up to 30 per probe, drawn with a fixed seed from all combinations.
  Payload lists come from garak/data/payloads/*.json.
- PromptInject, as kept in garak (garak/resources/promptinject/prompt_data.py): each goal-hijacking attack with
  each rogue string, after an Eiffel Tower snippet.
- BIPIA (microsoft/BIPIA@1a2a91da, MIT), benchmark/text_attack_{train,test}.json: every text attack (task hijacks,
  ciphers, encodings, translation, advertising, scams, misinformation) at the end of one of the training emails of
  benchmark/email/train.jsonl. Most of these ask for a different task, not a different verdict, so they measure
  how far the detector reaches beyond instructions to the evaluator.

    python -m bench.injection_corpus_external   # rewrites bench/data/injection_corpus_external.jsonl
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import types
from itertools import product
from pathlib import Path
from typing import Any

from bench.injection_corpus_common import write_jsonl

SEED = 26
PER_PROBE = 30
OUT = Path(__file__).resolve().parent / "data" / "injection_corpus_external.jsonl"
GARAK = Path("/work/.mirror/NVIDIA+garak/repo")
GARAK_COMMIT = "cafbe992780df70015de7295ca026b70c4629ada"
BIPIA = Path("/work/.mirror/microsoft+BIPIA/repo")
BIPIA_COMMIT = "1a2a91da6bb12838e05d1b2e54d98e2f37b835f3"
PROBES = ["LatentInjectionTranslationEnFrFull", "LatentInjectionTranslationEnZhFull", "LatentInjectionReportFull",
          "LatentInjectionResumeFull", "LatentInjectionFactSnippetEiffelFull", "LatentInjectionFactSnippetLegalFull",
          "LatentJailbreakFull", "LatentWhois", "LatentWhoisSnippetFull"]  # fmt: skip


def _show(repo: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"],
                          check=True, capture_output=True, text=True).stdout  # fmt: skip


def _payloads(name: str) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        payloads=json.loads(_show(GARAK, GARAK_COMMIT, f"garak/data/payloads/{name}.json"))["payloads"]
    )


def _garak_module(source: str) -> dict[str, Any]:
    """Runs the probe module's class definitions with garak's own imports replaced by the few names they read."""
    probe = type("Probe", (), {"DEFAULT_PARAMS": {}})
    stubs = {
        "tqdm": types.SimpleNamespace(tqdm=None),
        "garak": types.SimpleNamespace(),
        "garak._config": types.SimpleNamespace(),
        "garak.attempt": types.SimpleNamespace(Attempt=object),
        "garak.payloads": types.SimpleNamespace(load=_payloads),
        "garak.probes": types.SimpleNamespace(
            Probe=probe, Tier=types.SimpleNamespace(OF_CONCERN=1, COMPETE_WITH_SOTA=2)
        ),
        "garak.resources": types.SimpleNamespace(),
        "garak.resources.theme": types.SimpleNamespace(LANGPROVIDER_RGB="000000"),
    }
    stubs["garak"].__dict__.update(_config=stubs["garak._config"], payloads=stubs["garak.payloads"],
                                   probes=stubs["garak.probes"], resources=stubs["garak.resources"],
                                   attempt=stubs["garak.attempt"])  # fmt: skip
    stubs["garak.resources"].theme = stubs["garak.resources.theme"]
    saved = {name: sys.modules.get(name) for name in stubs}
    sys.modules.update(stubs)  # type: ignore[arg-type]
    try:
        namespace: dict[str, Any] = {"__name__": "garak_latentinjection"}
        exec(compile(source, "latentinjection.py", "exec"), namespace)  # a pinned snapshot of data-only definitions
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return namespace


def _contexts(cls: type, rng: random.Random, marker: str) -> list[str]:
    if hasattr(cls, "paragraphs"):  # a fact-snippet probe: a few paragraphs with the injection between them
        paragraphs = [p.replace("{INJECTION_MARKER}", "") for p in cls.paragraphs]
        out = []
        for _ in range(6):
            chosen = rng.sample(paragraphs, min(3, len(paragraphs)))
            chosen.insert(rng.randint(1, len(chosen) - 1), marker)
            out.append("\n".join(chosen))
        return out
    return [c for c in cls.contexts if marker in c]


def garak_rows(rng: random.Random) -> list[tuple[str, str, str]]:
    namespace = _garak_module(_show(GARAK, GARAK_COMMIT, "garak/probes/latentinjection.py"))
    marker, payload_marker, trigger_marker = (
        namespace[k] for k in ("INJECTION_MARKER", "PAYLOAD_MARKER", "TRIGGER_MARKER")
    )
    out = []
    for name in PROBES:
        cls = namespace[name]
        triggers = list(cls.payload_triggers)
        payload_name = cls.DEFAULT_PARAMS.get("payload_name") if isinstance(cls.DEFAULT_PARAMS, dict) else None
        if payload_name:
            triggers += _payloads(payload_name).payloads
        combos = list(product(_contexts(cls, rng, marker), cls.injection_sep_pairs, cls.injection_instructions,
                              cls.payloads, triggers))  # fmt: skip
        for context, (start, end), instruction, payload, trigger in rng.sample(combos, min(PER_PROBE, len(combos))):
            injection = start + instruction.replace(payload_marker, payload.replace(trigger_marker, trigger)) + end
            out.append((f"garak {name}", context.replace(marker, injection).strip(),
                        f"NVIDIA/garak@{GARAK_COMMIT[:8]} garak/probes/latentinjection.py"))  # fmt: skip
    data = _show(GARAK, GARAK_COMMIT, "garak/resources/promptinject/prompt_data.py")
    prompt_data: dict[str, Any] = {}
    exec(compile(data, "prompt_data.py", "exec"), prompt_data)  # a pinned snapshot of data-only definitions
    snippet = namespace["LatentInjectionFactSnippetEiffelFull"].paragraphs[0]
    for attack in prompt_data["goal_hikacking_attacks"].values():
        for rogue in prompt_data["rogue_strings"].values():
            text = attack["instruction"].replace("{REPLACE_rogue_string}", rogue)
            out.append(("PromptInject goal hijacking (garak)", f"{snippet}\n{text}",
                        f"NVIDIA/garak@{GARAK_COMMIT[:8]} garak/resources/promptinject/prompt_data.py"))  # fmt: skip
    return out


def bipia_rows(rng: random.Random) -> list[tuple[str, str, str]]:
    emails = [
        json.loads(line)["context"]
        for line in _show(BIPIA, BIPIA_COMMIT, "benchmark/email/train.jsonl").splitlines()
        if line
    ]
    out = []
    for part in ("train", "test"):
        path = f"benchmark/text_attack_{part}.json"
        for category, attacks in json.loads(_show(BIPIA, BIPIA_COMMIT, path)).items():
            for attack in attacks:
                out.append(
                    (
                        f"BIPIA {category}",
                        f"{rng.choice(emails).rstrip()}\n{attack}",
                        f"microsoft/BIPIA@{BIPIA_COMMIT[:8]} {path}",
                    )
                )
    return out


def rows() -> list[dict[str, str]]:
    rng = random.Random(SEED)
    out: list[dict[str, str]] = []
    counts: dict[str, int] = {}
    seen: set[str] = set()
    for category, text, source in garak_rows(rng) + bipia_rows(rng):
        if text in seen:  # BIPIA repeats a few attacks between its two files; garak repeats a few combinations
            continue
        seen.add(text)
        i = counts[category] = counts.get(category, -1) + 1
        licence = "MIT" if source.startswith("microsoft/BIPIA") else "Apache-2.0"
        out.append({"id": f"external_tune/injection/{category}/{i}", "kind": "injection", "category": category,
                    "split": "external_tune", "text": text, "source": source, "license": licence})  # fmt: skip
    return out


def main() -> None:
    built = rows()
    write_jsonl(OUT, built)
    print(f"{len(built)} injected texts written to {OUT}")


if __name__ == "__main__":
    main()
