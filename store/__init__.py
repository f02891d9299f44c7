"""Persistence: the DuckDB catalog and the index files beside it."""
