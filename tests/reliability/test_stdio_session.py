"""The stdio session over a real `gavel serve`: a request whose id no request can have is answered to id null,
and a client that sends and never reads cannot make the server hold more than a bounded number of requests."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.reliability.raw_stdio import raw_stdio
from tests.reliability.tally import TALLY

UNREAD = 3_000
# Measured: 75 -> 146 MiB before the bound (each unread tools/list reply held with its handler), +8 MiB after.
GROWTH_BOUND_MIB = 30
SETTLE_S = 4.0


@pytest.mark.parametrize("raw_id", ["1.5", "true", "[1]", "null", "{}", "1e400"])
def test_a_request_whose_id_has_the_wrong_type_gets_invalid_request_to_id_null(
    clean_env: dict[str, str], tmp_path: Path, raw_id: str
) -> None:
    with raw_stdio(clean_env, tmp_path) as client:
        client.send(f'{{"jsonrpc": "2.0", "id": {raw_id}, "method": "tools/list"}}'.encode())
        reply = client.answer(None)
        assert reply["error"]["code"] == -32600
        assert "a request id is a string or a 64-bit integer" in reply["error"]["message"]
        assert "result" in client.request(b'{"jsonrpc": "2.0", "id": 2, "method": "ping"}', 2)


def _rss_mib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no VmRSS")


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the server's memory from /proc")
def test_a_client_that_never_reads_cannot_grow_the_server_without_bound_and_every_request_is_answered(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    with raw_stdio(clean_env, tmp_path) as client:
        before = _rss_mib(client.process.pid)
        client.reading.clear()
        frames = b"".join(
            json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/list"}).encode() + b"\n"
            for i in range(1, UNREAD + 1)
        )
        # The server stops reading once it holds its bound, so the writes block: they go from a thread.
        threading.Thread(target=client.send, args=(frames,), daemon=True).start()
        time.sleep(SETTLE_S)
        grown = _rss_mib(client.process.pid) - before
        client.reading.set()
        answers = [client.answer(i) for i in range(1, UNREAD + 1)]
    busy = sum("error" in answer for answer in answers)
    TALLY["stdio: server memory growth with 3,000 unread requests, MiB"] = grown
    TALLY["stdio: of 3,000 pipelined requests, answered busy"] = busy
    assert grown < GROWTH_BOUND_MIB
    assert all("result" in a or a["error"]["code"] == -32050 for a in answers)
