"""Collections and their chunk sets: each function is one catalog transaction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from store import repository as repo
from store.catalog import Catalog
from store.repository import CollectionRow


@dataclass(frozen=True)
class LastIngest:
    """A collection's latest ingestion run: ``status`` is running, cancelled or finished."""

    status: str
    files_total: int
    files_recorded: int  # files it committed or recorded as failed (unchanged ones are not recorded)


@dataclass(frozen=True)
class CollectionSummary:
    row: CollectionRow
    documents: int  # successfully ingested
    chunks: int  # in the collection's default (first) chunk set
    last_ingest: LastIngest | None = None


def collection_summaries(catalog: Catalog) -> list[CollectionSummary]:
    """Every collection by name, with its document and chunk counts and its latest ingestion run."""
    with catalog.connect() as con:
        rows = repo.list_collections(con)
        counts = repo.collection_counts(con)
        runs = repo.last_runs(con)
    return [
        CollectionSummary(row, *counts.get(row.id, (0, 0)), LastIngest(*runs[row.id]) if row.id in runs else None)
        for row in rows
    ]


def list_collections(catalog: Catalog) -> list[CollectionRow]:
    with catalog.connect() as con:
        return repo.list_collections(con)


def find_collection(catalog: Catalog, name: str) -> CollectionRow | None:
    with catalog.connect() as con:
        return repo.find_collection(con, name)


def get_collection(catalog: Catalog, name: str) -> CollectionRow:
    """The collection, or a ``NotFoundError`` listing the known ones."""
    with catalog.connect() as con:
        return repo.get_collection(con, name)


def create_collection(
    catalog: Catalog, name: str, config: dict, chunkset_key: str, chunkset_config: dict
) -> CollectionRow:
    """A new collection with its index settings and its default chunk set, or nothing at all."""
    with catalog.connect() as con:
        if repo.find_collection(con, name) is not None:
            raise ValueError(f"collection {name!r} already exists; pick another name or delete it first")
        row = repo.create_collection(con, name, config)
        repo.add_chunkset(con, row.id, chunkset_key, chunkset_config)
    return row


def create_or_join_collection(
    catalog: Catalog,
    name: str,
    config: dict,
    chunkset_key: str,
    chunkset_config: dict,
    check_join: Callable[[CollectionRow], None],
) -> tuple[CollectionRow, bool]:
    """The collection ``name``: made now with its index settings and default chunk set (True), or
    the one another writer made first (False) once ``check_join`` has accepted it (it raises to
    refuse, e.g. when the settings differ).

    Looking and making are one transaction, and a transaction holds the catalog file alone
    (DuckDB lets one process at a time open it; ``Catalog``'s lock serialises this process's
    threads), so two writers that both found no collection cannot both make it: the second joins.
    """
    with catalog.connect() as con:
        found = repo.find_collection(con, name)
        if found is not None:
            check_join(found)
            return found, False
        row = repo.create_collection(con, name, config)
        repo.add_chunkset(con, row.id, chunkset_key, chunkset_config)
    return row, True


def update_collection_settings(catalog: Catalog, name: str, settings: dict) -> dict:
    """Merge flat ``settings`` into the collection's stored ones; returns what is stored now."""
    with catalog.connect() as con:
        row = repo.get_collection(con, name)
        stored = {**row.config, **settings}
        repo.update_collection_config(con, row.id, stored)
    return stored


def delete_collection(catalog: Catalog, name: str) -> CollectionRow:
    """Remove the collection with its documents, chunk sets and chunks (its index files are the caller's)."""
    with catalog.connect() as con:
        row = repo.get_collection(con, name)
        repo.delete_collection(con, row.id)
    return row


def chunksets_of(catalog: Catalog, name: str) -> dict[str, dict]:
    """The collection's chunk sets (key -> chunking and model), oldest (the default) first."""
    with catalog.connect() as con:
        return repo.chunksets(con, repo.get_collection(con, name).id)
