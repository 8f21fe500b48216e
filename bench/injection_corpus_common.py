"""What both parts of the injection corpus share: the disguises (applied to an order the same way in both parts),
and how an order is placed into a carrier text (a clinical assessment, a RAG answer, a candidate).

A part (`injection_corpus_heldout`, `injection_corpus_dev`) gives its own orders, carriers and clean texts; none
of its wording is shared with the other part.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path

# Cyrillic and Greek look-alikes for Latin letters, as an attacker would pick them.
_HOMOGLYPHS = str.maketrans({"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "i": "і", "x": "х", "y": "у"})
_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"})


def reversed_text(order: str) -> str:
    return order[::-1]


def url_encoded(order: str) -> str:
    """Every byte percent-escaped for the first half of the orders, spaces and punctuation only for the rest
    (both are seen): chosen by the order's length so a part needs no state."""
    if len(order) % 2:
        return "".join(f"%{b:02X}" for b in order.encode())
    return urllib.parse.quote(order)


def base64_text(order: str) -> str:
    return base64.b64encode(order.encode()).decode()


def hyphen_split(order: str) -> str:
    return " ".join(w[: len(w) // 2] + "-" + w[len(w) // 2 :] if len(w) > 3 else w for w in order.split())


def space_split(order: str) -> str:
    """Letters spaced out one by one, words three spaces apart, for even lengths; words cut in two otherwise."""
    if len(order) % 2 == 0:
        return "   ".join(" ".join(w) for w in order.split())
    return " ".join(w[: len(w) // 2] + " " + w[len(w) // 2 :] if len(w) > 4 else w for w in order.split())


def zero_width_split(order: str) -> str:
    return "".join(ch + "\u200b" if ch.isalpha() else ch for ch in order)


def homoglyphs(order: str) -> str:
    return order.translate(_HOMOGLYPHS)


def leetspeak(order: str) -> str:
    return order.translate(_LEET)


def spread_across_citations(order: str) -> str:
    words = order.split()
    return " ".join(f"{w} [{i + 1}]" if i % 2 else w for i, w in enumerate(words))


# The disguises applied to an order by code; the others (an image link, a fake end, a score request, role-play,
# an HTML comment, a JSON "system" field) are written out by hand in each part.
TRANSFORMS: dict[str, Callable[[str], str]] = {
    "reversed": reversed_text,
    "URL-encoded": url_encoded,
    "base64": base64_text,
    "split by hyphens": hyphen_split,
    "split by spaces": space_split,
    "split by zero-width characters": zero_width_split,
    "homoglyphs": homoglyphs,
    "leetspeak": leetspeak,
    "spread across citations": spread_across_citations,
}


def place(carrier: str, order: str, where: int) -> str:
    """`order` at the end (0), the start (1) or after the first sentence (2) of `carrier`."""
    if where % 3 == 0:
        return f"{carrier} {order}"
    if where % 3 == 1:
        return f"{order} {carrier}"
    head, sep, tail = carrier.partition(". ")
    return f"{head}. {order} {tail}" if sep else f"{carrier}\n{order}"


def rows_for(split: str, injected: dict[str, list[str]], clean: dict[str, list[str]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for kind, groups in (("injection", injected), ("clean", clean)):
        for category, texts in groups.items():
            for i, text in enumerate(texts):
                out.append({"id": f"{split}/{kind}/{category}/{i}", "kind": kind, "category": category,
                            "split": split, "text": text})  # fmt: skip
    return out


def injected(
    languages: dict[str, list[str]],
    orders: list[str],
    foreign: list[str],
    carriers: list[str],
    handwritten: dict[str, list[str]],
    base64_leads: list[str],
) -> dict[str, list[str]]:
    """A part's injected texts by category: each language's orders, each disguise of the English orders and of two
    foreign ones (base64 behind one of four leads, as a note would introduce it), and the handwritten ones, each
    placed in a carrier text."""
    out: dict[str, list[str]] = {}
    for li, (language, said) in enumerate(languages.items()):
        out[f"language: {language}"] = [
            place(carriers[(li + i) % len(carriers)], order, i) for i, order in enumerate(said)
        ]
    for di, (name, transform) in enumerate(TRANSFORMS.items()):
        texts = []
        for i, order in enumerate([*orders, foreign[di % 4], foreign[(di + 1) % 4]]):
            disguised = transform(order)
            if name == "base64":
                disguised = base64_leads[i % 4] + disguised
            texts.append(place(carriers[(di + i) % len(carriers)], disguised, i))
        out[f"disguise: {name}"] = texts
    out.update(handwritten)
    return out


def write_jsonl(path: Path, rows: Sequence[dict[str, str]]) -> None:
    """The corpus files' one format: a JSON object per line, text kept as written (not ASCII-escaped)."""
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
