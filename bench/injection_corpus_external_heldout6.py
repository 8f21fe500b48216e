"""A seventh set written by others ("external_heldout_6" injected, "held_out_6_clean" clean), from sources no earlier
set uses, built and committed before any detector ran on it. It is read once with the rules as they are and never
tuned on.

Injected texts (each put into one of the held-out carriers, after it or between its sentences, fixed seed):

- MCP injections (johannhartmann/mcp-injection-experiments@4a8a92d4, MIT as its pyproject.toml states; no licence
  file): the poisoned tool descriptions of its experiments (direct poisoning, implicit tool poisoning, tool
  shadowing, a sleeper rug pull), of the three proofs of concept it keeps from invariantlabs-ai's original
  (direct-poisoning.py, shadowing.py, whatsapp-takeover.py; that original states no licence) and of its linter's
  tests; and the texts its experiments hand an agent through a tool result or a resource (an HTML page with a hidden
  comment, a GitHub issue and a PR comment, a Slack message, a git diff, a memory note, a project note, a review
  comment, a repair page, a sampling request and a sampling reply). Parts computed at run time (a canary value, a
  PR number) are written as "<canary>" and "<pr>".
- Rebuff's examples of prompt injection (protectai/rebuff, Apache-2.0): its scored examples at bf37935b, its vector
  documents at 12c63b08 and its tests at 4d2fe064 (those scored 0.9 or more; the bare "Ignore", scored 0.2, is left
  out).
- Vigil's test prompts (deadbits/vigil-llm@f2b4c134, Apache-2.0).
- Role prompts from awesome-chatgpt-prompts (f/awesome-chatgpt-prompts@50a97c07 prompts.csv, CC0-1.0), ROLE_KEEP
  drawn with a fixed seed from its text prompts of at most ROLE_MAX_CHARS characters: "I want you to act as a Linux
  terminal …". They are what a user writes to an assistant, and so are not clean inside a judged text: each is an
  order to whoever reads it to take a new role and reply in a given way.

Clean texts (held_out_6_clean, as written, no carrier):

- the benign tool descriptions and tool texts of the MCP experiments (what their tools publish in defended mode, or
  publish alongside the poisoned tool);
- Rebuff's benign examples (questions to a shop's data assistant);
- prose paragraphs of the MCP repository's documentation (German and English, about MCP attacks and their
  defences), DOCS_KEEP drawn with a fixed seed; code, tables, headings and paragraphs sharing eight words with an
  injected text of this set (a quoted payload) are left out. Its prompts/ folder (orders to a coding agent) is not
  read.

Injected texts sharing a run of eight words with an earlier external set, exact repeats, and texts sharing eight
words with a text kept from another source are dropped (texts of one source may share a template, as the MCP
experiments' closing "not an action that needs to be discussed" and the role prompts' "I want you to act as" do);
main() prints how many.

    python -m bench.injection_corpus_external_heldout6   # rewrites bench/data/injection_corpus_external_heldout6.jsonl
"""

from __future__ import annotations

import ast
import csv
import io
import json
import random
import re
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

SEED = 2617
ROLE_KEEP = 120
ROLE_MAX_CHARS = 1500
DOCS_KEEP = 120
DOCS_MIN_WORDS = 20
DATA = Path(__file__).resolve().parent / "data"
OUT = DATA / "injection_corpus_external_heldout6.jsonl"
READ_BEFORE = [
    DATA / f"injection_corpus_external{part}.jsonl"
    for part in ["", "_heldout", "_heldout2", "_heldout3", "_heldout4", "_heldout5"]
]
MIRROR = Path("/work/.mirror")
MCP: Where = (MIRROR / "johannhartmann+mcp-injection-experiments/repo", "4a8a92d43a388b8d2c6e73d65d2fe28df97c444c")
REBUFF_SCORED: Where = (MIRROR / "protectai+rebuff/repo", "bf37935bee67bff1ec4304289b48ced8d19984fb")
REBUFF_DOCUMENTS: Where = (MIRROR / "protectai+rebuff/repo", "12c63b08177db8edddadff8b593d418b41fd5557")
REBUFF_TESTS: Where = (MIRROR / "protectai+rebuff/repo", "4d2fe064abf164e7381556d23e48e210080f8afa")
VIGIL: Where = (MIRROR / "deadbits+vigil-llm/repo", "f2b4c134d060bae81d29fad07003f3c657e63fc8")
ROLES: Where = (MIRROR / "f+awesome-chatgpt-prompts/repo", "50a97c072933c93c76cc0714e9dd4c4cf1d80ae7")
MCP_LICENCE = "MIT (pyproject.toml; no licence file)"
INVARIANT_LICENCE = "none stated (invariantlabs-ai's proof of concept, kept in an MIT fork)"
EXPERIMENTS = "src/mcp_demo/experiments/"
# (path, constant name or the call whose `body=` it is, form): the attack texts of the MCP experiments
MCP_ATTACKS = [
    (EXPERIMENTS + "direct_poisoning.py", "POISONED_DESCRIPTION", "tool description"),
    (EXPERIMENTS + "implicit_tool_poisoning.py", "_POISONED_DESCRIPTION", "tool description"),
    (EXPERIMENTS + "tool_shadowing.py", "HELPER_DESCRIPTION", "tool description"),
    (EXPERIMENTS + "sleeper_rug_pull.py", "POISONED_DESCRIPTION", "tool description"),
    ("tests/unit/test_tool_description_linter.py", "POISONED", "tool description"),
    ("tests/unit/test_tool_description_linter.py", "POISONED_REAL_PATH", "tool description"),
    (EXPERIMENTS + "agent_traps_hidden_html.py", "_HIDDEN_HTML", "tool result"),
    (EXPERIMENTS + "agent_traps_memory_poisoning.py", "_POISONED_NOTE", "tool result"),
    (EXPERIMENTS + "agent_traps_sybil_and_fragments.py", "_REVIEW_BODY", "tool result"),
    (EXPERIMENTS + "ai_clickfix.py", "_SUPPORT_PAGE_HTML", "tool result"),
    (EXPERIMENTS + "git_filesystem_chain_safe.py", "_GIT_DIFF", "tool result"),
    (EXPERIMENTS + "github_issue_leak.py", "_PUBLIC_ISSUE_BODY", "tool result"),
    (EXPERIMENTS + "promptware_heartbeat.py", "_POISONED_NOTE", "tool result"),
    (EXPERIMENTS + "sampling_abuse.py", "_ATTACK_PROMPT", "tool result"),
    ("src/mcp_demo/shared/fake_llm.py", "COVERT_RESPONSE", "tool result"),
    (EXPERIMENTS + "comment_and_control.py", "set_public_issue", "tool result"),
    (EXPERIMENTS + "slack_unfurl_leak.py", "set_private_message", "tool result"),
]
INVARIANT = ["direct-poisoning.py", "shadowing.py", "whatsapp-takeover.py"]  # the original proofs of concept
MCP_CLEAN_CONSTANTS = [
    (EXPERIMENTS + "direct_poisoning.py", "CLEAN_DESCRIPTION"),
    (EXPERIMENTS + "sleeper_rug_pull.py", "BENIGN_DESCRIPTION"),
    (EXPERIMENTS + "tool_shadowing.py", "MAIL_DESCRIPTION"),
    ("src/mcp_demo/shared/fake_llm.py", "CLEAN_RESPONSE"),
]
DOC_FOLDERS = ["README.md", "architecture", "context", "docs", "owasp-mapping", "sandbox/README.md"]
CATEGORIES = {
    "tool description": "MCP tool poisoning: tool description (mcp-injection-experiments)",
    "tool result": "MCP indirect: tool result or resource (mcp-injection-experiments)",
    "rebuff": "instruction override: Rebuff examples",
    "vigil": "instruction override: Vigil test prompts",
    "roles": "role prompt: awesome-chatgpt-prompts",
}

Found = tuple[str, str, str, str, str]  # category, group (the source's own label), text, source, licence


def _text(node: ast.expr) -> str | None:
    """A string literal, or one joined from literals and run-time parts ("<canary>", "<pr>")."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "<canary>" for v in node.values)  # type: ignore[misc]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        return (left if left is not None else "<canary>") + (right if right is not None else "<canary>")
    return None


def _named(tree: ast.AST, name: str) -> str:
    """The string bound to `name`, or passed as `body=` to a call of `name`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            text = _text(node.value)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == name:
            text = next((_text(k.value) for k in node.keywords if k.arg == "body"), None)
        else:
            continue
        if text:
            return textwrap.dedent(text).replace("{pr}", "<pr>").strip()
    raise SystemExit(f"{name} not found: the pinned commit of {MCP[0]} has changed")


def _mcp_attacks() -> list[Found]:
    out: list[Found] = []
    for path, name, form in MCP_ATTACKS:
        text = _named(ast.parse(show(MCP, path)), name)
        out.append((CATEGORIES[form], f"{path}: {name}", text, cite(MCP, path), MCP_LICENCE))
    for path in INVARIANT:
        tree = ast.parse(show(MCP, path))
        for node in ast.walk(tree):
            doc = None
            if isinstance(node, ast.FunctionDef):
                doc = ast.get_docstring(node)
            elif isinstance(node, ast.Assign) and getattr(node.targets[0], "attr", None) == "__doc__":
                doc = textwrap.dedent(_text(node.value) or "").strip()
            if doc and "<IMPORTANT>" in doc:
                group = f"{path}: {getattr(node, 'name', '__doc__')} (invariantlabs-ai original)"
                out.append((CATEGORIES["tool description"], group, doc, cite(MCP, path), INVARIANT_LICENCE))
    return out


def _rebuff() -> list[Found]:
    out: list[Found] = []
    path = "python-sdk/rebuff/user_input_examples.txt"
    for row in csv.DictReader(io.StringIO(show(REBUFF_SCORED, path))):
        if float(row["likelihood_score"]) >= 0.9:
            out.append((CATEGORIES["rebuff"], f"scored {row['likelihood_score']}", row["user_string"],
                        cite(REBUFF_SCORED, path), "Apache-2.0"))  # fmt: skip
    path = "python-sdk/rebuff/utils/documents.txt"
    for line in show(REBUFF_DOCUMENTS, path).splitlines():
        for text in re.findall(r'"([^"]+)"', line):
            source = cite(REBUFF_DOCUMENTS, path)
            out.append((CATEGORIES["rebuff"], "vector store document", text, source, "Apache-2.0"))
    path = "python-sdk/tests/test_sdk.py"
    tree = ast.parse(show(REBUFF_TESTS, path))
    fixture = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "prompt_injection_inputs")
    for node in ast.walk(fixture):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((CATEGORIES["rebuff"], "test fixture", node.value, cite(REBUFF_TESTS, path), "Apache-2.0"))
    return out


def _rebuff_clean() -> list[Found]:
    path = "python-sdk/rebuff/user_input_examples.txt"
    return [("benign user questions: Rebuff examples", "scored 0.0", row["user_string"], cite(REBUFF_SCORED, path),
             "Apache-2.0")
            for row in csv.DictReader(io.StringIO(show(REBUFF_SCORED, path)))
            if float(row["likelihood_score"]) == 0.0]  # fmt: skip


def _vigil() -> list[Found]:
    out: list[Found] = []
    path = "scripts/test_api.sh"
    for prompt in re.findall(r'/analyze/prompt" \'\{"prompt": "(.*?)"\}\'', show(VIGIL, path)):
        out.append((CATEGORIES["vigil"], "analyze/prompt test", prompt.replace("\\n", "\n"), cite(VIGIL, path),
                    "Apache-2.0"))  # fmt: skip
    path = "scripts/tests.py"
    tree = ast.parse(show(VIGIL, path))
    test = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "test_input_scanner")
    for node in ast.walk(test):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((CATEGORIES["vigil"], "input scanner test", node.value, cite(VIGIL, path), "Apache-2.0"))
    return out


def _roles(rng: random.Random) -> list[Found]:
    csv.field_size_limit(10_000_000)
    rows = [r for r in csv.DictReader(io.StringIO(show(ROLES, "prompts.csv")))
            if r.get("type", "TEXT") == "TEXT" and 0 < len(r["prompt"].strip()) <= ROLE_MAX_CHARS]  # fmt: skip
    rows.sort(key=lambda r: (r["act"], r["prompt"]))
    return [(CATEGORIES["roles"], r["act"], r["prompt"].strip(), cite(ROLES, "prompts.csv"), "CC0-1.0")
            for r in rng.sample(rows, ROLE_KEEP)]  # fmt: skip


def _mcp_clean() -> list[Found]:
    out: list[Found] = []
    for path, name in MCP_CLEAN_CONSTANTS:
        out.append(("MCP benign tool texts (mcp-injection-experiments)", f"{path}: {name}",
                    _named(ast.parse(show(MCP, path)), name), cite(MCP, path), MCP_LICENCE))  # fmt: skip
    for path in [p for p in ls_tree(MCP, EXPERIMENTS) if p.endswith(".py")]:
        for node in ast.walk(ast.parse(show(MCP, path))):
            if isinstance(node, ast.keyword) and node.arg == "description" and (text := _text(node.value)):
                out.append(("MCP benign tool texts (mcp-injection-experiments)", f"{path}: description=", text,
                            cite(MCP, path), MCP_LICENCE))  # fmt: skip
    return out


def _paragraphs(markdown: str) -> list[str]:
    out: list[str] = []
    fenced = False
    block: list[str] = []
    for line in [*markdown.splitlines(), ""]:
        if line.lstrip().startswith("```"):
            fenced = not fenced
            block = []
            continue
        if fenced:
            continue
        if line.strip():
            block.append(line.strip())
            continue
        if block and not block[0].startswith(("#", "|", ">", "<")) and not any(b.startswith("|") for b in block):
            text = " ".join(block)
            if len(text.split()) >= DOCS_MIN_WORDS:
                out.append(text)
        block = []
    return out


def _docs(rng: random.Random, injected: set[tuple[str, ...]]) -> list[Found]:
    found: list[Found] = []
    for folder in DOC_FOLDERS:
        for path in [p for p in ls_tree(MCP, folder) if p.endswith(".md")]:
            for text in _paragraphs(show(MCP, path)):
                if not shingles(text) & injected:
                    found.append(("documentation about MCP attacks (mcp-injection-experiments)", path, text,
                                  cite(MCP, path), MCP_LICENCE))  # fmt: skip
    return rng.sample(found, min(DOCS_KEEP, len(found)))


def built(rng: random.Random) -> tuple[list[dict[str, str]], dict[str, int]]:
    """The kept rows (injected, then clean), and how many texts each rule dropped."""
    before: set[tuple[str, ...]] = set()
    for path in READ_BEFORE:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                before |= shingles(json.loads(line)["text"])
    earlier, elsewhere = "shares eight words with an earlier set", "shares eight words with a text of another source"
    dropped = {earlier: 0, "exact repeat": 0, elsewhere: 0, "clean: exact repeat": 0, "empty": 0}
    out: list[dict[str, str]] = []
    counts: dict[str, int] = {}
    seen: set[str] = set()
    kept_by_source: dict[str, set[tuple[str, ...]]] = {}
    for category, group, attack, source, licence in _mcp_attacks() + _rebuff() + _vigil() + _roles(rng):
        owner = source.split("@")[0]
        mine = shingles(attack)
        others = set().union(*(s for o, s in kept_by_source.items() if o != owner))
        reason = ("empty" if not attack.strip() else "exact repeat" if attack in seen
                  else earlier if mine & before else elsewhere if mine & others else None)  # fmt: skip
        if reason:
            dropped[reason] += 1
            continue
        seen.add(attack)
        kept_by_source.setdefault(owner, set()).update(mine)
        i = counts[category] = counts.get(category, -1) + 1
        out.append(injected_row("external_heldout_6", category, i, carry(rng, attack), attack, source, licence, group))
    clean_seen: set[str] = set()
    injected = set().union(*kept_by_source.values())
    for category, group, text, source, licence in _mcp_clean() + _rebuff_clean() + _docs(rng, injected):
        if not text.strip() or text in clean_seen:
            dropped["clean: exact repeat" if text.strip() else "empty"] += 1
            continue
        clean_seen.add(text)
        i = counts[category] = counts.get(category, -1) + 1
        out.append(clean_row("held_out_6_clean", category, i, text, source, licence, group))
    return out, dropped


def rows() -> list[dict[str, str]]:
    return built(random.Random(SEED))[0]


def main() -> None:
    kept, dropped = built(random.Random(SEED))
    write_jsonl(OUT, kept)
    print_split_counts(OUT, kept, dropped)


if __name__ == "__main__":
    main()
