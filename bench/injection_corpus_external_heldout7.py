"""An eighth set written by others ("external_heldout_7" injected, "held_out_7_clean" clean), from a source no
earlier set uses, built and committed before any detector ran on it. It is read once with the rules before the
round that tunes on external_heldout_6's MCP part, and once after those rules are frozen.

Source: cisco-ai-defense/mcp-scanner@893327c5 (Apache-2.0, LICENSE file), the test material of an MCP scanner.

Injected texts (each put into one of the held-out carriers, after it or between its sentences, fixed seed):

- the tool descriptions of its prompt-injection evaluation servers (evals/behavioral-analysis/data/prompt-injection:
  "ACT AS: System Administrator …", "[SYSTEM DIRECTIVE]: …", "Ignore previous instructions about content filtering
  …");
- the poisoned tool descriptions of its example malicious servers (examples/example-malicious-servers: an
  `<IMPORTANT>` block, an always-BCC order, the "Kpyndzkyff operating system" description it copies from a Trail of
  Bits post, "ignore the above rules", a rug pull that rewrites a tool's description) and of its static-scan
  examples (a JSON tool whose description is "Ignore all previous instructions and …");
- the prompt text its example prompt server returns for its malicious prompt (run-time parts written "<target>").

Descriptions that only say what a malicious tool does ("Exfiltrate data through DNS queries …", a resource that
"contains the secret plans") are not orders to their reader and are not used.

Clean texts (held_out_7_clean, as written, no carrier): the tool descriptions of its other evaluation servers (those
whose code misbehaves behind a plain description, evals/behavioral-analysis/data minus prompt-injection) and of its
benign remote servers (evals/remote/benign: GitHub, Azure, Discord tools), deduplicated, CLEAN_KEEP drawn with a
fixed seed.

Injected texts sharing a run of eight words with an earlier external set (several of the example servers repeat
Invariant Labs' proofs of concept, already in external_heldout_6) and exact repeats are dropped; main() prints how
many.

    python -m bench.injection_corpus_external_heldout7   # rewrites bench/data/injection_corpus_external_heldout7.jsonl
"""

from __future__ import annotations

import ast
import json
import random
import textwrap
from pathlib import Path

from bench.injection_corpus_common import write_jsonl
from bench.injection_corpus_heldout_carriers import carry
from bench.injection_corpus_sources import (
    Where,
    cite,
    clean_row,
    injected_row,
    ls_tree,
    print_split_counts,
    shingles,
    show,
)

SEED = 2618
CLEAN_KEEP = 120
DATA = Path(__file__).resolve().parent / "data"
OUT = DATA / "injection_corpus_external_heldout7.jsonl"
READ_BEFORE = [
    DATA / f"injection_corpus_external{part}.jsonl"
    for part in ["", "_heldout", "_heldout2", "_heldout3", "_heldout4", "_heldout5", "_heldout6"]
]
CISCO: Where = (Path("/work/.mirror/cisco-ai-defense+mcp-scanner/repo"), "893327c54d223ea07296f68f32d8294f5c045f4a")
LICENCE = "Apache-2.0"
EVALS = "evals/behavioral-analysis/data/"
SERVERS = "examples/example-malicious-servers/"
DESCRIPTION = "MCP tool poisoning: tool description (mcp-scanner)"
PROMPT = "MCP indirect: prompt text a server returns (mcp-scanner)"
CLEAN = "MCP benign tool descriptions (mcp-scanner)"
# (path, function whose docstring is the poisoned description); "__doc__" is a description rewritten at run time
POISONED_TOOLS = [
    (SERVERS + "line_jumping_server.py", "send_mail"),
    (SERVERS + "line_jumping_server.py", "retrieve_logs"),
    (SERVERS + "line_jumping_server.py", "get_workstation_environment"),
    (SERVERS + "server.py", "add"),
    (SERVERS + "server.py", "send_email"),
    (SERVERS + "malicious_mcp_streamable_server.py", "execute_system_command"),
    (SERVERS + "malicious_mcp_streamable_server.py", "run_injection_code"),
    (SERVERS + "tricky_server.py", "__doc__"),
]
STATIC_EXAMPLES = ["examples/static_all_analyzers_demo.py", "examples/static_scanning_example.py"]
PROMPTS = [("examples/prompts/prompt_server.py", "malicious_injection")]
CLEAN_FOLDERS = [EVALS, "evals/remote/benign/"]

Found = tuple[str, str, str, str]  # category, group (path and name), text, source


def _text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "<target>" for v in node.values)  # type: ignore[misc]
    return None


def _tools(tree: ast.AST) -> dict[str, str]:
    """Docstrings of the functions a server registers (any decorator), and a `….__doc__ = "…"` rewrite."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.decorator_list:
            if doc := ast.get_docstring(node):
                out[node.name] = doc
        elif isinstance(node, ast.Assign) and getattr(node.targets[0], "attr", None) == "__doc__":
            out["__doc__"] = textwrap.dedent(_text(node.value) or "").strip()
    return out


def _prompt_text(tree: ast.AST, name: str) -> str:
    """The prompt a function builds by assigning and appending string parts to one variable."""
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    parts = [_text(n.value) for n in ast.walk(function) if isinstance(n, ast.Assign | ast.AugAssign)]
    return "".join(p for p in parts if p).strip()


def _injections() -> list[Found]:
    out: list[Found] = []
    for path in [p for p in ls_tree(CISCO, EVALS + "prompt-injection") if p.endswith(".py")]:
        for name, doc in _tools(ast.parse(show(CISCO, path))).items():
            out.append((DESCRIPTION, f"{path}: {name}", doc, cite(CISCO, path)))
    for path, name in POISONED_TOOLS:
        out.append((DESCRIPTION, f"{path}: {name}", _tools(ast.parse(show(CISCO, path)))[name], cite(CISCO, path)))
    for path in STATIC_EXAMPLES:
        for node in ast.walk(ast.parse(show(CISCO, path))):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    text = _text(value) if isinstance(key, ast.Constant) and key.value == "description" else None
                    if text and text.lower().startswith("ignore all"):
                        out.append((DESCRIPTION, f"{path}: description", text, cite(CISCO, path)))
    for path, name in PROMPTS:
        out.append((PROMPT, f"{path}: {name}", _prompt_text(ast.parse(show(CISCO, path)), name), cite(CISCO, path)))
    return out


def _clean(rng: random.Random) -> list[Found]:
    found: dict[str, Found] = {}
    for folder in CLEAN_FOLDERS:
        for path in [p for p in ls_tree(CISCO, folder) if p.endswith(".py") and "/prompt-injection/" not in p]:
            for name, doc in _tools(ast.parse(show(CISCO, path))).items():
                found.setdefault(doc, (CLEAN, f"{path}: {name}", doc, cite(CISCO, path)))
    ordered = sorted(found.values(), key=lambda f: (f[1], f[2]))
    return rng.sample(ordered, min(CLEAN_KEEP, len(ordered)))


def built(rng: random.Random) -> tuple[list[dict[str, str]], dict[str, int]]:
    """The kept rows (injected, then clean), and how many texts each rule dropped."""
    before: set[tuple[str, ...]] = set()
    for path in READ_BEFORE:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                before |= shingles(json.loads(line)["text"])
    earlier = "shares eight words with an earlier set"
    dropped = {earlier: 0, "exact repeat": 0, "clean: shares eight words with an injected text": 0}
    out: list[dict[str, str]] = []
    counts: dict[str, int] = {}
    seen: set[str] = set()
    injected: set[tuple[str, ...]] = set()
    for category, group, attack, source in _injections():
        reason = "exact repeat" if attack in seen else earlier if shingles(attack) & before else None
        if reason:
            dropped[reason] += 1
            continue
        seen.add(attack)
        injected |= shingles(attack)
        i = counts[category] = counts.get(category, -1) + 1
        out.append(injected_row("external_heldout_7", category, i, carry(rng, attack), attack, source, LICENCE, group))
    for category, group, text, source in _clean(rng):
        if shingles(text) & injected:
            dropped["clean: shares eight words with an injected text"] += 1
            continue
        i = counts[category] = counts.get(category, -1) + 1
        out.append(clean_row("held_out_7_clean", category, i, text, source, LICENCE, group))
    return out, dropped


def rows() -> list[dict[str, str]]:
    return built(random.Random(SEED))[0]


def main() -> None:
    kept, dropped = built(random.Random(SEED))
    write_jsonl(OUT, kept)
    print_split_counts(OUT, kept, dropped)


if __name__ == "__main__":
    main()
