"""The evaluation ledger's store on real SQLite files: schema, migrations, WAL, TTL, failures, concurrency."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import structlog

from gavel.tools.ledger import Entry, Ledger, parse_since, timestamp, to_json, utc_now
from gavel.tools.ledger.ledger import REMEMBERED_JUDGMENTS
from gavel.tools.ledger.schema import MIGRATIONS, SCHEMA_VERSION, Conn, as_conn, connect, migrate, schema_version
from tests.conftest import REPO_ROOT

WRITES_PER_PROCESS = 300
PROCESS_TIMEOUT_S = 30.0


def entry(
    eid: str,
    *,
    tool: str = "evaluate_assessment",
    age_s: float = 0.0,
    cache_key: str | None = None,
    servable: bool = False,
    cached: bool = False,
    served_from: str | None = None,
    parent_id: str | None = None,
    headline: str = "a headline",
    result: dict[str, Any] | None = None,
) -> Entry:
    return Entry(
        id=eid,
        tool=tool,
        created_at=timestamp(utc_now() - timedelta(seconds=age_s)),
        duration_ms=12.5,
        request_hash="0" * 64,
        request_json='{"assessment":"text"}',
        result_json=json.dumps(result or {"summary": headline, "evaluation_id": eid}),
        provenance_json='{"backend":"scripted"}',
        usage_json='{"llm_calls":4}',
        headline=headline,
        cached=cached,
        served_from=served_from,
        parent_id=parent_id,
        cache_key=cache_key,
        servable=servable,
    )


def served(served_from: str, stored: str) -> str:
    """A `serve` callback that returns the served judgment's id."""
    return served_from


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "ledger.sqlite3"


@pytest.fixture
def ledger(path: Path) -> Iterator[Ledger]:
    store = Ledger(path)
    yield store
    store.close()


@pytest.fixture
def warnings() -> Iterator[list[dict[str, Any]]]:
    with structlog.testing.capture_logs() as logs:
        yield logs


def ledger_warnings(logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in logs if line["log_level"] == "warning" and line["event"].startswith("evaluation ledger")]


# -- the file --------------------------------------------------------------------------------------------


def test_the_file_is_created_at_the_first_write_with_its_directories(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "ledger.sqlite3"
    store = Ledger(path)
    assert not path.exists()
    assert store.record([entry("a")]) is True
    assert path.is_file()
    store.close()


def test_reading_a_ledger_that_does_not_exist_does_not_create_it(path: Path, ledger: Ledger) -> None:
    assert ledger.recent() == []
    assert ledger.get("abc") is None
    assert list(ledger.export()) == []
    assert not path.exists()


def test_the_journal_is_wal_with_a_busy_timeout(path: Path, ledger: Ledger) -> None:
    ledger.record([entry("a")])
    conn = connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 10_000
    finally:
        conn.close()
    # WAL lives in the file header, so a plain connection that set nothing sees it too.
    plain = sqlite3.connect(path)
    try:
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        plain.close()


def test_a_new_ledger_is_at_the_latest_schema_with_every_step_recorded(path: Path, ledger: Ledger) -> None:
    ledger.record([entry("a")])
    conn = sqlite3.connect(path)
    try:
        steps = [row[0] for row in conn.execute("SELECT version FROM schema_version ORDER BY version")]
    finally:
        conn.close()
    assert steps == [version for version, _ in MIGRATIONS]
    assert steps[-1] == SCHEMA_VERSION


def test_a_ledger_at_an_older_schema_is_migrated_forward_and_keeps_its_rows(path: Path) -> None:
    old = sqlite3.connect(path, isolation_level=None)
    migrate(old, target=1)
    old.execute(
        "INSERT INTO evaluations (id, tool, created_at, duration_ms, request_hash, request_json, result_json, "
        "provenance_json, usage_json, cached, headline) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ("old1", "evaluate_assessment", timestamp(utc_now()), 5.0, "h", None, '{"summary":"v1 row"}', None, None, 0,
         "v1 row"),
    )  # fmt: skip
    assert schema_version(old) == 1
    old.close()

    store = Ledger(path)
    record = store.get("old1")
    written = store.record([entry("new1", cache_key="k", servable=True)])
    store.close()

    assert record is not None
    assert (record["headline"], record["result"], record["parent_id"], record["served_from"]) == (
        "v1 row", {"summary": "v1 row"}, None, None
    )  # fmt: skip
    assert written is True
    conn = sqlite3.connect(path)
    try:
        assert schema_version(conn) == SCHEMA_VERSION
    finally:
        conn.close()


def write_v3_ledger(conn: Conn | sqlite3.Connection) -> None:
    """A ledger as Gavel wrote it at schema v3: a judgment, and a call served from it, named in `source_id`."""
    conn = as_conn(conn)
    migrate(conn, target=3)
    insert = (
        "INSERT INTO evaluations (id, tool, created_at, duration_ms, request_hash, result_json, cached, headline, "
        "cache_key, servable, source_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    with conn.transaction():
        conn.execute(insert, ("judged", "evaluate_assessment", timestamp(utc_now() - timedelta(seconds=5)), 9.0, "h",
                              '{"summary":"judged"}', 0, "judged", "k", 1, None))  # fmt: skip
        conn.execute(insert, ("hit", "evaluate_assessment", timestamp(utc_now()), 1.0, "h", '{"summary":"judged"}',
                              1, "judged", "k", 0, "judged"))  # fmt: skip


def check_v3_ledger_reads_at_the_latest_schema(store: Ledger) -> None:
    """What `write_v3_ledger` wrote, read through a ledger at the latest schema: the served row says where from."""
    hit = store.get("hit")
    assert hit is not None and (hit["cached"], hit["served_from"]) == (True, "judged")
    assert "source_id" not in hit
    assert store.serve_cached("k", served) == "judged", "the judgment is still served by its cache key"
    assert store.record([entry("hit2", cached=True, served_from="judged")]) is True
    again = store.get("hit2")
    assert again is not None and again["served_from"] == "judged"


def test_an_instance_of_the_previous_release_keeps_writing_a_ledger_this_one_opened(path: Path) -> None:
    # Instances sharing one ledger are upgraded one at a time: the v3 SQL still writes after this Gavel migrated it.
    seed = Ledger(path)
    assert seed.record([entry("seed")]) is True
    seed.close()
    old = sqlite3.connect(path, isolation_level=None)
    write_v3_ledger(old)
    assert schema_version(old) == SCHEMA_VERSION
    old.close()
    store = Ledger(path)
    check_v3_ledger_reads_at_the_latest_schema(store)
    store.close()


def test_every_migration_step_only_adds() -> None:
    # A rename or a drop would fail every write of an older instance still sharing the ledger.
    statements = [sql.upper() for _, step in MIGRATIONS for sql in step]
    assert all(sql.lstrip().startswith(("CREATE TABLE", "CREATE INDEX", "ALTER TABLE")) for sql in statements)
    assert not [sql for sql in statements if " RENAME " in sql or " DROP " in sql]


def test_a_ledger_written_by_a_newer_gavel_is_left_alone_and_reported(path: Path, warnings: list) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn)
    conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", (SCHEMA_VERSION + 1, "later"))
    conn.close()
    store = Ledger(path)
    assert store.record([entry("a")]) is False
    status = store.status()
    assert status.state == "unavailable"
    assert "newer Gavel" in (status.detail or "")
    assert len(ledger_warnings(warnings)) == 1


# -- records ----------------------------------------------------------------------------------------------


def test_a_record_reads_back_in_full_with_its_items(ledger: Ledger) -> None:
    ledger.record([entry("batch", headline="2 answers"), entry("item1", parent_id="batch"),
                   entry("item2", parent_id="batch")])  # fmt: skip
    record = ledger.get("batch")
    assert record is not None
    assert record["items"] == ["item1", "item2"]
    assert record["request"] == {"assessment": "text"}
    assert record["result"] == {"summary": "2 answers", "evaluation_id": "batch"}
    assert (record["provenance"], record["usage"]) == ({"backend": "scripted"}, {"llm_calls": 4})
    assert (record["tool"], record["duration_ms"], record["cached"]) == ("evaluate_assessment", 12.5, False)


def test_a_batch_and_its_items_are_written_in_one_transaction(ledger: Ledger) -> None:
    # The second row reuses the first id: the whole batch must be refused, not half written.
    assert ledger.record([entry("same"), entry("other", parent_id="same"), entry("same")]) is False
    assert ledger.get("other") is None


def test_a_write_refused_by_a_constraint_leaves_the_ledger_usable(ledger: Ledger) -> None:
    ledger.record([entry("taken")])
    assert ledger.record([entry("taken")]) is False
    assert ledger.failure is None
    assert ledger.record([entry("next")]) is True


def test_recent_lists_calls_newest_first_without_their_items(ledger: Ledger) -> None:
    ledger.record([entry("first", age_s=30), entry("second", age_s=20, tool="score_candidates")])
    ledger.record([entry("third", age_s=10), entry("item", parent_id="third")])
    assert [r["evaluation_id"] for r in ledger.recent()] == ["third", "second", "first"]
    assert [r["evaluation_id"] for r in ledger.recent(tool="score_candidates")] == ["second"]
    assert [r["evaluation_id"] for r in ledger.recent(limit=1)] == ["third"]
    assert set(ledger.recent()[0]) == {"evaluation_id", "tool", "created_at", "cached", "headline", "duration_ms"}


def test_export_gives_every_row_oldest_first_from_a_date(ledger: Ledger) -> None:
    ledger.record([entry("old", age_s=3 * 86400), entry("new", age_s=60), entry("item", parent_id="new")])
    assert [r["evaluation_id"] for r in ledger.export()] == ["old", "new", "item"]
    since = timestamp(utc_now() - timedelta(days=1))
    assert [r["evaluation_id"] for r in ledger.export(since)] == ["new", "item"]


def test_export_pages_through_a_ledger_larger_than_one_fetch(ledger: Ledger) -> None:
    ledger.record([entry(f"e{i:04d}") for i in range(1200)])
    assert len(list(ledger.export())) == 1200


def test_find_matches_an_id_prefix_literally(ledger: Ledger) -> None:
    ledger.record([entry("abc123"), entry("abd456"), entry("a_c789")])
    assert ledger.find("abc") == ["abc123"]
    assert ledger.find("ab") == ["abc123", "abd456"]
    assert ledger.find("a_") == ["a_c789"]  # '_' is not a LIKE wildcard here


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("2025-06-01", "2025-06-01T00:00:00.000000+00:00", id="date-is-midnight-utc"),
        pytest.param("2025-06-01T12:30:00", "2025-06-01T12:30:00.000000+00:00", id="naive-time-is-utc"),
        pytest.param("2025-06-01T14:30:00+02:00", "2025-06-01T12:30:00.000000+00:00", id="offset-converted"),
        pytest.param("2025-06-01T12:30:00Z", "2025-06-01T12:30:00.000000+00:00", id="zulu"),
    ],
)
def test_since_accepts_dates_and_iso_times_as_utc(text: str, expected: str) -> None:
    assert parse_since(text) == expected


def test_since_refuses_text_that_is_not_a_date() -> None:
    with pytest.raises(ValueError, match="not a date"):
        parse_since("last tuesday")


def test_json_with_a_lone_surrogate_is_stored_escaped() -> None:
    text = to_json({"answer": "broken \ud800 text", "ok": "é"})
    text.encode("utf-8")
    assert json.loads(text) == {"answer": "broken \ud800 text", "ok": "é"}


# -- the cache ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "ttl_s", "hit"),
    [
        pytest.param(entry("j", cache_key="k", servable=True, age_s=60), 3600, True, id="fresh-servable"),
        pytest.param(entry("j", cache_key="k", servable=True, age_s=7200), 3600, False, id="older-than-ttl"),
        pytest.param(entry("j", cache_key="k", servable=True), 0, False, id="ttl-zero-never-serves"),
        pytest.param(entry("j", cache_key="k", servable=False), 3600, False, id="unscored-never-served"),
        pytest.param(entry("j", cache_key="k", servable=True, cached=True), 3600, False, id="a-hit-is-no-source"),
        pytest.param(entry("j", cache_key="other", servable=True), 3600, False, id="another-key"),
    ],
)
def test_the_cache_serves_only_fresh_complete_judgments_of_the_same_key(
    path: Path, stored: Entry, ttl_s: float, hit: bool
) -> None:
    store = Ledger(path, ttl_s=ttl_s)
    store.record([stored])
    assert store.serve_cached("k", served) == ("j" if hit else None)
    store.close()


def test_the_newest_judgment_of_a_key_is_served(ledger: Ledger) -> None:
    ledger.record([entry("older", cache_key="k", servable=True, age_s=100)])
    ledger.record([entry("newer", cache_key="k", servable=True, age_s=10)])
    assert ledger.serve_cached("k", served) == "newer"


@pytest.mark.parametrize(
    ("stored", "ttl_s", "hit"),
    [
        pytest.param(entry("j", cache_key="k", servable=True, age_s=60), 3600, True, id="fresh-servable"),
        pytest.param(entry("j", cache_key="k", servable=True, age_s=7200), 3600, False, id="older-than-ttl"),
        pytest.param(entry("j", cache_key="k", servable=True), 0, False, id="ttl-zero-never-serves"),
        pytest.param(entry("j", cache_key="k", servable=False), 3600, False, id="unscored-never-served"),
        pytest.param(entry("j", cache_key="k", servable=True, cached=True), 3600, False, id="a-hit-is-no-source"),
    ],
)
def test_what_this_process_recorded_is_served_from_memory_by_the_same_rules(
    path: Path, stored: Entry, ttl_s: float, hit: bool
) -> None:
    store = Ledger(path, ttl_s=ttl_s)
    store.record([stored])
    path.unlink()  # from memory, not from the file
    Path(f"{path}-wal").unlink(missing_ok=True)
    assert store.serve_remembered("k", served) == ("j" if hit else None)
    store.close()


def test_a_judgment_read_from_the_file_is_remembered(path: Path) -> None:
    writer = Ledger(path)
    writer.record([entry("j", cache_key="k", servable=True)])
    writer.close()
    reader = Ledger(path)
    assert reader.serve_remembered("k", served) is None
    assert reader.serve_cached("k", served) == "j"
    assert reader.serve_remembered("k", served) == "j"
    reader.close()


def test_memory_keeps_a_bounded_number_of_judgments(ledger: Ledger) -> None:
    ledger.record([entry(f"j{i}", cache_key=f"k{i}", servable=True) for i in range(REMEMBERED_JUDGMENTS + 10)])
    assert ledger.serve_remembered("k0", served) is None
    assert ledger.serve_remembered(f"k{REMEMBERED_JUDGMENTS + 9}", served) == f"j{REMEMBERED_JUDGMENTS + 9}"


def test_a_broken_ledger_serves_nothing_from_memory(path: Path) -> None:
    store = Ledger(path)
    store.record([entry("j", cache_key="k", servable=True)])
    store.close()  # the connection goes; what the store remembers stays
    path.write_bytes(b"overwritten with garbage " * 200)
    Path(f"{path}-wal").unlink(missing_ok=True)
    assert store.recent() == []  # reopening finds the file corrupt
    assert store.failure is not None
    assert store.serve_remembered("k", served) is None


def test_a_stored_judgment_the_caller_declines_is_a_miss_and_records_nothing(ledger: Ledger) -> None:
    ledger.record([entry("j", cache_key="k", servable=True)])
    assert ledger.serve_cached("k", lambda served_from, stored: None) is None


# -- a ledger that cannot be used ------------------------------------------------------------------------------


def test_a_corrupt_file_fails_every_operation_quietly_and_warns_once(path: Path, warnings: list) -> None:
    path.write_bytes(b"this is not a database, it is a grocery list " * 200)
    store = Ledger(path)
    assert store.record([entry("a")]) is False
    assert store.serve_cached("k", served) is None
    assert store.recent() == []
    assert store.record([entry("b")]) is False
    assert len(ledger_warnings(warnings)) == 1
    assert "not a database" in (store.failure or "")
    assert store.status().state == "unavailable"


def test_opening_a_file_another_connection_holds_locked_waits_for_it_without_a_warning(
    path: Path, warnings: list
) -> None:
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(0.3, lambda: (other.execute("ROLLBACK"), other.close()))
    release.start()
    store = Ledger(path, busy_timeout_s=5)
    assert store.record([entry("a")]) is True
    assert ledger_warnings(warnings) == []
    release.join()
    store.close()


def test_a_lock_met_while_opening_fails_that_operation_only(path: Path, warnings: list) -> None:
    # Two servers starting on one new file: the other one holds the lock while this one opens the file.
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    store = Ledger(path, busy_timeout_s=0.05)
    assert store.record([entry("a")]) is False
    assert store.failure is None
    other.execute("ROLLBACK")
    other.close()
    assert store.record([entry("b")]) is True
    assert store.get("b") is not None
    assert [w["permanent"] for w in ledger_warnings(warnings)] == [False]
    store.close()


def test_an_unwritable_path_fails_quietly_and_status_says_why(tmp_path: Path, warnings: list) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    store = Ledger(blocker / "ledger.sqlite3")
    assert store.status().state == "unavailable"
    assert "is a file, not a directory" in (store.status().detail or "")
    assert store.record([entry("a")]) is False
    assert store.record([entry("b")]) is False
    assert len(ledger_warnings(warnings)) == 1
    assert store.failure is not None


def test_status_of_a_working_ledger_counts_its_evaluations(ledger: Ledger) -> None:
    assert ledger.status().state == "not_created"
    ledger.record([entry("a"), entry("b", parent_id="a")])
    status = ledger.status()
    assert (status.state, status.evaluations, status.schema_version) == ("ok", 2, SCHEMA_VERSION)
    assert "2 evaluation(s)" in status.line()


# -- concurrency ----------------------------------------------------------------------------------------------

WRITER = """
import sys, time
from pathlib import Path
from gavel.tools.ledger import Entry, Ledger, timestamp, utc_now

path, prefix, count, barrier = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
store = Ledger(path)
(barrier / f"ready-{prefix}").touch()
deadline = time.monotonic() + 20
while not (barrier / "go").exists():  # both writers start together, so their writes really interleave
    if time.monotonic() > deadline:
        sys.exit("never told to go")
    time.sleep(0.002)
for i in range(count):
    ok = store.record([Entry(id=f"{prefix}{i}", tool="t", created_at=timestamp(utc_now()), duration_ms=1.0,
                             request_hash="h", request_json=None, result_json="{}", provenance_json=None,
                             usage_json=None, headline="")])
    if not ok:
        sys.exit(f"write {i} failed: {store.failure}")
"""


def _wait_for(paths: list[Path], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not all(p.exists() for p in paths):
        assert time.monotonic() < deadline, f"the writers did not start within {timeout_s:g}s"
        time.sleep(0.005)


def test_two_processes_writing_one_ledger_at_once_lose_no_rows(path: Path, tmp_path: Path) -> None:
    seed = Ledger(path)
    seed.record([entry("seed")])  # both writers start on an existing, migrated file
    seed.close()
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), prefix, str(WRITES_PER_PROCESS), str(tmp_path)],
                         cwd=REPO_ROOT, stderr=subprocess.PIPE, text=True)
        for prefix in ("p", "q")
    ]  # fmt: skip
    try:
        _wait_for([tmp_path / "ready-p", tmp_path / "ready-q"], PROCESS_TIMEOUT_S)
        (tmp_path / "go").touch()
        errors = []
        for writer in writers:
            _, err = writer.communicate(timeout=PROCESS_TIMEOUT_S)
            if writer.returncode:
                errors.append(err)
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
                writer.wait(PROCESS_TIMEOUT_S)
    assert not errors
    store = Ledger(path)
    assert store.count() == 1 + 2 * WRITES_PER_PROCESS
    store.close()


def test_two_threads_with_their_own_connections_lose_no_rows(path: Path) -> None:
    stores = [Ledger(path), Ledger(path)]
    stores[0].record([entry("seed")])
    failures: list[str] = []

    def write(store: Ledger, prefix: str) -> None:
        for i in range(WRITES_PER_PROCESS):
            if not store.record([entry(f"{prefix}{i}"), entry(f"{prefix}{i}-item", parent_id=f"{prefix}{i}")]):
                failures.append(f"{prefix}{i}: {store.failure}")

    threads = [threading.Thread(target=write, args=(store, prefix)) for store, prefix in zip(stores, "pq", strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(PROCESS_TIMEOUT_S)
    assert not failures
    assert stores[0].count() == 1 + 2 * 2 * WRITES_PER_PROCESS
    for store in stores:
        store.close()
