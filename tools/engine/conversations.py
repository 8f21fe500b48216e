"""A source read as a conversation: its turns, and the rest of it (such as a fact).

A harness lays a conversation out in several ways: a turn a line under a heading such as `Conversation:`, with
its fact in a paragraph of its own or on a line before the heading, or as a JSON list of turns or of chat
messages. The likelihood readings of a reply (`likelihood.py`, `reply_likelihood.py`) need the turns themselves.
"""

from __future__ import annotations

import json


def conversation_of(source: str) -> tuple[list[str], str] | None:
    """The source as a conversation: the turns (the lines of its paragraph with the most lines, from its first
    heading line such as 'Conversation:' on, heading lines left out) and the rest of the source (its other
    paragraphs, such as a fact, and any lines before that heading). A source that is a JSON list of turns (strings,
    or objects with a `content` or `text`) is read as those turns. None when no paragraph holds two turns."""
    if (listed := _json_turns(source)) is not None:
        return (listed, "") if len(listed) >= 2 else None
    blocks = ([line.strip() for line in block.splitlines() if line.strip()] for block in source.strip().split("\n\n"))
    paragraphs = [lines for lines in blocks if lines]
    if not paragraphs:
        return None
    widest = max(range(len(paragraphs)), key=lambda i: len(paragraphs[i]))
    lines = paragraphs[widest]
    # Heading lines ("Conversation:", or a speaker's label on a line of its own) are no turns. Lines before the
    # first heading, such as a fact a harness put in the same paragraph, are the rest of the source.
    first = next((i for i, line in enumerate(lines) if _heading(line)), 0)
    before = lines[:first]
    turns = [line for line in lines[first:] if not _heading(line)]
    if len(turns) < 2:
        return None
    rest = [before] if before else []
    rest += [p for i, p in enumerate(paragraphs) if i != widest]
    return turns, "\n\n".join("\n".join(p) for p in rest)


def _json_turns(source: str) -> list[str] | None:
    text = source.strip()
    if not text.startswith("["):
        return None
    try:
        items = json.loads(text)
    except ValueError:
        return None
    if not isinstance(items, list):
        return None
    turns = [item.get("content", item.get("text")) if isinstance(item, dict) else item for item in items]
    if not all(isinstance(turn, str) and turn.strip() for turn in turns):
        return None
    return [" ".join(turn.split()) for turn in turns]


def _heading(line: str) -> bool:
    return line.endswith(":") and len(line.split()) <= 4
