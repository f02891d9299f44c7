"""What an evaluation run's numbers depend on besides the golden set: the corpus and the configuration.

A stored run records both as hashes (``EvaluationResult.inputs``), next to the golden set's
content hash, so a later run can be paired with it only when they measured the same thing:
``check`` refuses a baseline run whose corpus or golden set changed and names which.

- The corpus hash covers each successful document's name and content hash
  (``store.documents.corpus_fingerprint``): ingesting the same files again keeps it, adding,
  removing or editing one changes it.
- The configuration hash covers what decides the rankings: the configuration with every key it
  ignores at its default (``workbench.retrieval.ignored_keys.effective``), without the sections
  that never change a ranking (ingest limits, golden-set writing, usage logging) and the Milvus
  credentials and batch sizes.
"""

from __future__ import annotations

import hashlib
import json

from store.catalog import Catalog
from store.documents import corpus_fingerprint
from workbench.config import WorkbenchConfig
from workbench.retrieval.ignored_keys import effective

#: sections whose keys never change what a query returns
UNRANKED_SECTIONS = ("ingest", "synth", "log")
#: keys of ranking sections that only say how to reach a place or how fast to fill it
UNRANKED_KEYS = frozenset({"milvus.token", "milvus.batch_size", "milvus.timeout_s"})

CORPUS = "corpus"
CONFIG_HASH = "config_hash"


def ranking_settings(config: WorkbenchConfig) -> dict[str, object]:
    """The flat keys that decide ``config``'s rankings, ignored ones at their defaults."""
    return {
        key: value
        for key, value in effective(config).flat().items()
        if key.split(".", 1)[0] not in UNRANKED_SECTIONS and key not in UNRANKED_KEYS
    }


def config_hash(config: WorkbenchConfig) -> str:
    """A short hash of ``ranking_settings(config)``."""
    payload = json.dumps(ranking_settings(config), sort_keys=True, default=list)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def run_inputs(catalog: Catalog, collection: str, config: WorkbenchConfig) -> dict[str, object]:
    """What a run on ``collection`` under ``config`` records: the corpus fingerprint and the config hash."""
    return {CORPUS: corpus_fingerprint(catalog, collection).to_dict(), CONFIG_HASH: config_hash(config)}
