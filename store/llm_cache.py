"""The LLM reply cache in the catalog. All its SQL lives here.

Each function is one unit of work: it opens the catalog, runs one transaction and closes it,
like every other catalog access (see ``store.catalog``).
"""

from __future__ import annotations

from dataclasses import dataclass

from store.catalog import Catalog
from store.repository import insert_frame

CacheKey = tuple[str, str, str]  # (model, prompt version, inputs hash)


@dataclass(frozen=True)
class CachedReply:
    reply: str
    prompt_tokens: int | None
    completion_tokens: int | None
    elapsed_ms: float  # what the original call took


def lookup_replies(catalog: Catalog, keys: list[CacheKey]) -> dict[CacheKey, CachedReply]:
    """The stored replies among ``keys`` (missing keys are simply absent)."""
    if not keys:
        return {}
    import pandas as pd

    wanted = pd.DataFrame(list(dict.fromkeys(keys)), columns=["model", "prompt_version", "inputs_hash"])
    with catalog.connect() as con:
        con.register("_wanted_llm_keys", wanted)
        try:
            rows = con.execute(
                "SELECT c.model, c.prompt_version, c.inputs_hash, c.reply, c.prompt_tokens, c.completion_tokens,"
                " c.elapsed_ms FROM llm_cache c JOIN _wanted_llm_keys w USING (model, prompt_version, inputs_hash)"
            ).fetchall()
        finally:
            con.unregister("_wanted_llm_keys")
    return {(m, v, h): CachedReply(reply, pt, ct, float(ms)) for m, v, h, reply, pt, ct, ms in rows}


def store_replies(catalog: Catalog, entries: dict[CacheKey, CachedReply]) -> None:
    """Keep ``entries``; a key stored already keeps its first reply."""
    if not entries:
        return
    import pandas as pd

    keys = list(entries)
    frame = pd.DataFrame(
        {
            "model": [k[0] for k in keys],
            "prompt_version": [k[1] for k in keys],
            "inputs_hash": [k[2] for k in keys],
            "reply": [entries[k].reply for k in keys],
            "prompt_tokens": pd.array([entries[k].prompt_tokens for k in keys], dtype="Int32"),
            "completion_tokens": pd.array([entries[k].completion_tokens for k in keys], dtype="Int32"),
            "elapsed_ms": [float(entries[k].elapsed_ms) for k in keys],
        }
    )
    with catalog.connect() as con:
        insert_frame(con, "llm_cache", frame, or_ignore=True)


def cache_size(catalog: Catalog) -> dict[str, int]:
    """Stored replies per prompt version."""
    with catalog.connect() as con:
        rows = con.execute("SELECT prompt_version, count(*) FROM llm_cache GROUP BY prompt_version").fetchall()
    return {version: int(count) for version, count in rows}
