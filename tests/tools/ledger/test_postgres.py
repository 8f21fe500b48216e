"""The evaluation ledger in a real PostgreSQL server (started by the suite; see tests/support/postgres.py):
the same schema, records, cache and failure rules as the SQLite file, shared by several ledgers at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
import structlog

from gavel.server.settings import load_settings
from gavel.tools.ledger import Ledger
from gavel.tools.ledger.schema import MIGRATIONS, SCHEMA_VERSION, PostgresConn, schema_version
from gavel.tools.ledger.store import PostgresStore, redact_url
from tests.tools.ledger.test_ledger import (
    check_v3_ledger_reads_at_the_latest_schema,
    entry,
    ledger_warnings,
    served,
    write_v3_ledger,
)

THREAD_WRITES = 150


def pg_ledger(url: str, **kwargs: Any) -> Ledger:
    return Ledger(store=PostgresStore(url), **kwargs)


@pytest.fixture
def ledger(postgres_url: str) -> Iterator[Ledger]:
    store = pg_ledger(postgres_url)
    yield store
    store.close()


@pytest.fixture
def warnings() -> Iterator[list[dict[str, Any]]]:
    with structlog.testing.capture_logs() as logs:
        yield logs


def test_a_new_database_gets_the_same_schema_steps_and_reading_it_creates_nothing(postgres_url: str) -> None:
    reader = pg_ledger(postgres_url)
    assert reader.recent() == [] and reader.get("x") is None and list(reader.export()) == []
    assert reader.status().state == "not_created"
    reader.close()
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT to_regclass('evaluations')").fetchone()[0] is None
    writer = pg_ledger(postgres_url)
    assert writer.record([entry("a")]) is True
    status = writer.status()
    writer.close()
    with psycopg.connect(postgres_url) as conn:
        steps = [row[0] for row in conn.execute("SELECT version FROM schema_version ORDER BY version")]
    assert steps == [version for version, _ in MIGRATIONS] and steps[-1] == SCHEMA_VERSION
    assert (status.state, status.evaluations) == ("ok", 1)
    assert "****" in status.line() and redact_url(postgres_url) == status.path


def test_a_record_reads_back_in_full_with_its_items_and_a_batch_is_one_transaction(ledger: Ledger) -> None:
    ledger.record([entry("batch", headline="2 answers"), entry("item1", parent_id="batch"),
                   entry("item2", parent_id="batch")])  # fmt: skip
    record = ledger.get("batch")
    assert record is not None
    assert record["items"] == ["item1", "item2"]
    assert record["result"] == {"summary": "2 answers", "evaluation_id": "batch"}
    assert (record["tool"], record["duration_ms"], record["cached"]) == ("evaluate_assessment", 12.5, False)
    # The second row reuses an id: the whole batch is refused, and the ledger stays usable.
    assert ledger.record([entry("fresh"), entry("item1")]) is False
    assert ledger.get("fresh") is None
    assert ledger.failure is None and ledger.record([entry("after")]) is True


def test_recent_export_find_and_count(ledger: Ledger) -> None:
    ledger.record([entry("old", age_s=60), entry("old-item", parent_id="old")])
    ledger.record([entry("new_1%")])
    assert [r["evaluation_id"] for r in ledger.recent()] == ["new_1%", "old"]
    assert [r["evaluation_id"] for r in ledger.export()] == ["old", "old-item", "new_1%"]
    assert ledger.find("new_1%") == ["new_1%"] and ledger.find("new_") == ["new_1%"] and ledger.find("ne%") == []
    assert ledger.count() == 3


def test_another_instance_serves_what_one_recorded_and_the_newest_wins(postgres_url: str) -> None:
    first, second = pg_ledger(postgres_url), pg_ledger(postgres_url)
    try:
        first.record([entry("older", age_s=10, cache_key="k", servable=True)])
        first.record([entry("newer", cache_key="k", servable=True)])
        first.record([entry("unservable", cache_key="k2", servable=False)])
        assert second.serve_remembered("k", served) is None, "not in the second's memory yet"
        assert second.serve_cached("k", served) == "newer"
        assert second.serve_remembered("k", served) == "newer", "remembered once read"
        assert second.serve_cached("k2", served) is None
    finally:
        first.close()
        second.close()


def test_two_ledgers_writing_at_once_lose_no_rows(postgres_url: str) -> None:
    stores = [pg_ledger(postgres_url), pg_ledger(postgres_url)]
    stores[0].record([entry("seed")])
    failures: list[str] = []

    def write(store: Ledger, prefix: str) -> None:
        for i in range(THREAD_WRITES):
            if not store.record([entry(f"{prefix}{i}"), entry(f"{prefix}{i}-item", parent_id=f"{prefix}{i}")]):
                failures.append(f"{prefix}{i}: {store.failure}")

    threads = [threading.Thread(target=write, args=(s, p)) for s, p in zip(stores, "pq", strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures
    assert stores[1].count() == 1 + 2 * 2 * THREAD_WRITES
    for store in stores:
        store.close()


def test_an_instance_of_the_previous_release_keeps_writing_a_database_this_one_opened(postgres_url: str) -> None:
    # Instances sharing one database are upgraded one at a time: the v3 SQL still writes after this Gavel migrated it.
    seed = pg_ledger(postgres_url)
    assert seed.record([entry("seed")]) is True
    seed.close()
    with psycopg.connect(postgres_url, autocommit=True) as raw:
        write_v3_ledger(PostgresConn(raw))
        assert schema_version(PostgresConn(raw)) == SCHEMA_VERSION
    store = pg_ledger(postgres_url)
    check_v3_ledger_reads_at_the_latest_schema(store)
    store.close()


def test_a_database_written_by_a_newer_gavel_is_left_alone_and_reported(postgres_url: str, warnings: list) -> None:
    seed = pg_ledger(postgres_url)
    seed.record([entry("a")])
    seed.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (%s, 'later')", (SCHEMA_VERSION + 1,))
    store = pg_ledger(postgres_url)
    assert store.record([entry("b")]) is False
    assert store.record([entry("c")]) is False
    assert "newer Gavel" in (store.failure or "") and "GAVEL_LEDGER_URL" in (store.failure or "")
    assert store.status().state == "unavailable"
    assert len(ledger_warnings(warnings)) == 1
    store.close()


def test_a_server_that_does_not_answer_breaks_nothing_and_is_left_alone_for_a_while(
    free_port: Any, warnings: list
) -> None:
    url = f"postgresql://gavel:pw-not-shown@127.0.0.1:{free_port()}/gavel"
    store = Ledger(store=PostgresStore(url, timeout_s=2.0))
    started = time.monotonic()
    assert store.record([entry("a")]) is False
    assert time.monotonic() - started < 10
    started = time.monotonic()
    assert store.record([entry("b")]) is False and store.serve_cached("k", served) is None
    assert time.monotonic() - started < 0.5, "the outage is remembered, not waited for on every call"
    status = store.status()
    assert status.state == "unavailable" and "pw-not-shown" not in status.line()
    assert len(ledger_warnings(warnings)) == 1
    assert all("pw-not-shown" not in str(line) for line in warnings)
    store.close()


def test_the_settings_pick_postgres_from_the_url_and_mask_its_password(postgres_url: str) -> None:
    settings = load_settings({"GAVEL_LEDGER_URL": postgres_url, "GAVEL_LEDGER_PATH": "/nowhere/ledger.sqlite3"})
    ledger = settings.make_ledger()
    assert ledger is not None and isinstance(ledger.store, PostgresStore)
    ledger.close()
    password = postgres_url.split(":")[2].split("@")[0]
    assert password not in str(settings.public_view()) and "****" in settings.public_view()["ledger_url"]
    assert settings.ledger_status().state == "not_created"
    assert load_settings({"GAVEL_LEDGER_URL": postgres_url, "GAVEL_LEDGER_PATH": "off"}).make_ledger() is None
    with pytest.raises(ValueError, match="GAVEL_LEDGER_URL"):
        load_settings({"GAVEL_LEDGER_URL": "mysql://x"})
