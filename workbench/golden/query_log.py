"""The query log above the store: what a query records, reading it back, and turning it into a query set.

Recording (``record_query``) appends one line to this process's file and swallows any error: a
full disk or a read-only home loses a log line, never a query. Reading folds every process's file
into the catalog first (``store.query_log``), so ``log list`` sees the MCP server's queries too.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from store import query_log as stored
from store.catalog import Catalog
from store.query_log import QUERY_LOG_DIR, LoggedQuery, QueryCount, QueryLogFile
from workbench.config import WorkbenchConfig, dumps
from workbench.retrieval.trace import Trace

log = logging.getLogger(__name__)

SOURCES = ("lab", "cli", "mcp")

__all__ = [
    "SOURCES",
    "LoggedQuery",
    "QueryCount",
    "config_hash",
    "record_query",
    "list_queries",
    "purge",
    "query_counts",
]


@functools.lru_cache(maxsize=64)
def config_hash(config: WorkbenchConfig) -> str:
    """12 hex digits naming a configuration: equal configurations, equal hashes.

    Kept per configuration (frozen, every section a tuple of values): every logged query hashes
    its configuration, and dumping it cost more than the rest of logging."""
    return hashlib.sha256(dumps(config).encode("utf-8")).hexdigest()[:12]


def record_query(
    log_file: QueryLogFile, source: str, text: str, collection: str, config: WorkbenchConfig, trace: Trace
) -> bool:
    """Append the query and the chunk ids it returned, unless ``log.queries`` is off; never raises."""
    if not config.log.queries:
        return False
    try:
        entry = LoggedQuery(
            datetime.now(UTC).replace(tzinfo=None),
            source,
            collection,
            text,
            config_hash(config),
            tuple(trace.final.chunk_ids()[: config.retrieval.top_k]),
        )
        log_file.append(entry)
        return True
    except Exception as error:
        log.warning("query log: could not record a %s query (%s); the query itself is unaffected", source, error)
        return False


def _folder(home: Path) -> Path:
    return Path(home) / QUERY_LOG_DIR


def _check_sources(sources: Iterable[str] | None) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(s.strip() for s in sources or () if s.strip()))
    unknown = [s for s in chosen if s not in SOURCES]
    if unknown:
        raise ValueError(f"unknown query log source {unknown[0]!r}; known: {', '.join(SOURCES)}")
    return chosen


def list_queries(
    catalog: Catalog,
    home: Path,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    sources: Iterable[str] | None = (),  # None: every source
    collection: str | None = None,
    limit: int = 100,
) -> list[LoggedQuery]:
    """The logged queries, newest first, after folding every process's file into the catalog."""
    stored.fold(catalog, _folder(home))
    return stored.entries(
        catalog, since=since, until=until, sources=_check_sources(sources), collection=collection, limit=limit
    )


def query_counts(
    catalog: Catalog,
    home: Path,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    sources: Iterable[str] | None = (),  # None: every source
    collection: str | None = None,
) -> list[QueryCount]:
    """Distinct logged queries, most frequent first (ties: most recent first)."""
    stored.fold(catalog, _folder(home))
    return stored.query_counts(
        catalog, since=since, until=until, sources=_check_sources(sources), collection=collection
    )


def purge(catalog: Catalog, home: Path) -> int:
    """Empty the log (catalog and files); returns how many entries were removed."""
    return stored.purge(catalog, _folder(home))


def parse_when(text: str | None, flag: str = "--since") -> datetime | None:
    """A date or date-time in ISO form (UTC), or None for empty text."""
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{flag} {text!r} is not a date; use YYYY-MM-DD or YYYY-MM-DDTHH:MM (UTC)") from None
    return parsed.astimezone(UTC).replace(tzinfo=None) if parsed.tzinfo else parsed
