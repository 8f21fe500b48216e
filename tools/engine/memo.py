"""A backend that remembers another backend's replies by request.

The server uses it while a 2026-07-28 sampling call is replayed: each replay re-runs the tool, and the
engine is deterministic (fixed seeds, content-derived delimiters), so a replayed request is byte-identical
to the original one and the server model's answer is reused instead of paid for again.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict

from gavel.tools.engine.backend import Backend, ChatReply, ChatRequest, DelegatingBackend


class MemoBackend(DelegatingBackend):
    """Remembers a real backend's replies by request, so replays on 2026-07-28 do not pay twice.

    Only used while a sampling replay is active; the engine is deterministic, so a replayed request is
    byte-identical to the original one.
    """

    def __init__(self, inner: Backend, size: int = 256) -> None:
        super().__init__(inner)
        self._size = size
        self._memo: OrderedDict[str, ChatReply] = OrderedDict()

    @staticmethod
    def _key(request: ChatRequest) -> str:
        payload = json.dumps(request.__dict__, default=lambda o: o.__dict__, sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()

    async def chat(self, request: ChatRequest) -> ChatReply:
        key = self._key(request)
        if key in self._memo:
            self._memo.move_to_end(key)
            return self._memo[key]
        reply = await self.inner.chat(request)
        self._memo[key] = reply
        if len(self._memo) > self._size:
            self._memo.popitem(last=False)
        return reply
