"""One pass over a JSON-RPC frame no parser would take: how deep it nests, where it first goes too deep, and its
top-level scalar members (id, method, …), in time linear in the frame.

A frame that reaches this is hostile or broken, and may be megabytes long (the HTTP body cap is 4 MB), so: the
patterns are possessive (a string cut off at the end of the frame is read once, not once per quote inside it);
a run of brackets is one token; past the depth limit only the depth is counted; and once the frame is known to
be too deep, the scan stops after a bounded number of tokens.
"""

from __future__ import annotations

import json
import re
from typing import Any

# How deep the SDK's reader goes (pydantic-core's JSON recursion limit), counted from the frame's outer object.
MAX_DEPTH = 200

# A string (to its closing quote, or to the end of a frame cut off inside one, even after a lone backslash: every
# quote starts a token that matches), a run of opening brackets, a run of closing ones, a colon, or a run of
# anything else (commas, scalars, space), which the scan skips: a key is always followed by its colon. A run is
# cut at 4,096 brackets: the regex engine keeps the GIL for a whole match, and a scan in a worker thread should
# let the event loop run between tokens.
_TOKEN = re.compile(
    r'"(?:[^"\\]++|\\[\s\S])*+(?:"|\\?\Z)|[\[{](?:\s*+[\[{]){0,4095}+|[\]}](?:\s*+[\]}]){0,4095}+|:|[^"\[\]{}:]++'
)
# Past the depth limit the frame is refused whatever follows; the scan goes on (for its exact depth, and for a
# top-level id or method after the deep value) for this many tokens at most. Any frame is scanned for MAX_TOKENS
# at most. So a frame built to
# be slow to scan cannot make it so.
MAX_TOKENS_PAST_LIMIT = 100_000
MAX_TOKENS = 1_000_000
# The top-level members the scan reads: what tells a request from a notification or a response, and its id.
HEADER_KEYS = frozenset({"jsonrpc", "id", "method", "result", "error"})
_NOTHING = object()


class FrameScan:
    """What one pass found: `max_depth` (a lower bound when `stopped_early`), `deep_path` (the keys down to
    where the frame first nests beyond MAX_DEPTH, or None), and `header` (the top-level scalar members; when
    `stopped_early`, those before the point where the scan stopped)."""

    def __init__(self, text: str) -> None:
        self.max_depth = 0
        self.deep_path: list[str] | None = None
        self.header: dict[str, Any] = {}
        self.stopped_early = False
        self._depth = 0
        self._kinds: list[str] = []  # the containers' kinds, for the outer MAX_DEPTH + 1 levels
        self._labels: list[str] = []
        self._key: str | None = None
        last_string: str | None = None
        decoder = json.JSONDecoder()
        past_limit = 0
        for count, match in enumerate(_TOKEN.finditer(text)):
            if count == MAX_TOKENS:
                self.stopped_early = True
                return
            if self.deep_path is not None:
                past_limit += 1
                if past_limit > MAX_TOKENS_PAST_LIMIT:
                    self.stopped_early = True
                    return
            token = match.group()
            head = token[0]
            if head == '"':
                last_string = token
            elif head == ":":
                self._key = _decoded(last_string) if last_string is not None else None
                last_string = None
                if self._depth == 1 and self._kinds[0] == "{" and self._key in HEADER_KEYS:
                    value = _scalar_after(decoder, text, match.end())
                    if value is not _NOTHING:
                        self.header[self._key] = value
            elif head in "{[":
                self._open(token)
            elif head in "}]":
                self._close(token)

    def _open(self, run: str) -> None:
        room = MAX_DEPTH + 1 - self._depth
        for char in run if room > 0 else ():
            if char not in "{[":
                continue
            inside_object = bool(self._kinds) and self._kinds[-1] == "{"
            self._labels.append((self._key or "?") if inside_object else "[]" if self._kinds else "")
            self._kinds.append(char)
            self._key = None
            room -= 1
            if room == 0:
                break
        self._depth += run.count("{") + run.count("[")
        self._key = None
        if self._depth > self.max_depth:
            self.max_depth = self._depth
            if self.deep_path is None and self.max_depth > MAX_DEPTH:
                self.deep_path = [label for label in self._labels[1:] if label]

    def _close(self, run: str) -> None:
        self._depth = max(0, self._depth - run.count("}") - run.count("]"))
        del self._kinds[self._depth :]
        del self._labels[self._depth :]
        self._key = None


def _decoded(token: str) -> str:
    if "\\" not in token:
        return token[1:-1]
    try:
        return str(json.loads(token))
    except ValueError:
        return token[1:-1]


def _scalar_after(decoder: json.JSONDecoder, text: str, position: int) -> Any:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    if position >= len(text) or text[position] in "{[":
        return _NOTHING
    try:
        return decoder.raw_decode(text, position)[0]
    except ValueError:
        return _NOTHING
