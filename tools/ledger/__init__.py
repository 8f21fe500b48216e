"""The evaluation ledger: every judgment recorded, and an identical request served from it.

The parts: `rows` (the row, times, JSON and hashes; no database), `schema` (tables, migrations, connection
wrappers), `store` (SQLite or PostgreSQL connections), `reads` (history, show, export) and `ledger` (`Ledger`:
what to write, what to serve, the memory in front).
"""

from gavel.tools.ledger.ledger import Ledger
from gavel.tools.ledger.reads import RECENT_LIMIT
from gavel.tools.ledger.rows import (
    Entry,
    LedgerStatus,
    canonical_hash,
    headline_of,
    parse_since,
    timestamp,
    to_json,
    utc_now,
)

__all__ = [
    "RECENT_LIMIT",
    "Entry",
    "Ledger",
    "LedgerStatus",
    "canonical_hash",
    "headline_of",
    "parse_since",
    "timestamp",
    "to_json",
    "utc_now",
]
