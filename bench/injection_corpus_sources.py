"""What the builders of the injection sets written by others share: reading a mirrored repository at a pinned
commit, citing it, the eight-word overlap that keeps a text out of a later set, and reading a hand transcription
of promptfoo's judge-injection tests.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

Where = tuple[Path, str]  # a mirrored repository and the commit read


def cite(where: Where, path: str) -> str:
    owner_name = where[0].parent.name.replace("+", "/")
    return f"{owner_name}@{where[1][:8]} {path}"


def show(where: Where, path: str) -> str:
    repo, commit = where
    return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"],
                          check=True, capture_output=True, text=True).stdout  # fmt: skip


def ls_tree(where: Where, under: str) -> list[str]:
    repo, commit = where
    return subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", commit, under],
                          check=True, capture_output=True, text=True).stdout.split()  # fmt: skip


def shingles(text: str, n: int = 8) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def promptfoo_blocks(extract: Path, where: str) -> list[tuple[list[str], str]]:
    """A transcription of promptfoo tests: a header line "@@@ <field> | <field> | …" before each test's text.
    Each test's header fields and text; a missing transcription stops the build and says what to transcribe."""
    if not extract.exists():
        raise SystemExit(f"{extract} is missing: transcribe the tests of {where} in the format above")
    out = []
    for block in re.split(r"^@@@ ", extract.read_text(encoding="utf-8"), flags=re.M)[1:]:
        header, _, body = block.partition("\n")
        out.append(([part.strip() for part in header.split("|")], body.strip()))
    return out


def promptfoo_group(description: str, metric: str) -> str:
    return f"{description} ({metric})" if metric else description


def promptfoo_tests(extract: Path, commit: str, categories: Mapping[str, str]) -> list[tuple[str, str, str, str, str]]:
    """A transcription whose header is "<file> | <description> | <metric or empty>": per test its file's category,
    its group (the source's own label), its text, its source and its licence."""
    where = f"promptfoo/promptfoo@{commit[:8]} examples/judge-prompt-injection/"
    return [
        (categories[name], promptfoo_group(description, metric), body, f"{where}{name}", "MIT")
        for (name, description, metric), body in promptfoo_blocks(extract, where)
    ]


def print_counts(out: Path, built: Sequence[Mapping[str, str]], key: str = "category") -> None:
    counts: dict[str, int] = {}
    for row in built:
        counts[row[key]] = counts.get(row[key], 0) + 1
    print(f"{len(built)} texts written to {out}:")
    for name, n in counts.items():
        print(f"  {name}: {n}")


def injected_row(
    split: str, category: str, i: int, text: str, attack: str, source: str, licence: str, group: str
) -> dict[str, str]:
    """An injected row of a set written by others: `attack` as the source wrote it, `text` it in its carrier."""
    return {"id": f"{split}/injection/{category}/{i}", "kind": "injection", "category": category, "split": split,
            "text": text, "source": source, "license": licence, "group": group, "attack": attack}  # fmt: skip


def clean_row(split: str, category: str, i: int, text: str, source: str, licence: str, group: str) -> dict[str, str]:
    return {"id": f"{split}/clean/{category}/{i}", "kind": "clean", "category": category, "split": split,
            "text": text, "source": source, "license": licence, "group": group}  # fmt: skip


def print_split_counts(out: Path, kept: Sequence[Mapping[str, str]], dropped: Mapping[str, int]) -> None:
    print_counts(out, [{"key": f"{row['split']} / {row['category']}"} for row in kept], key="key")
    print("dropped:", dict(dropped))
