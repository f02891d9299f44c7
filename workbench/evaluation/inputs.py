"""What an evaluation run's numbers depend on besides the golden set: the corpus and the configuration.

A stored run records both as hashes (``EvaluationResult.inputs``), next to the golden set's
content hash, so a later run can be paired with it only when they measured the same thing:
``check`` refuses a baseline run whose corpus or golden set changed and names which.

- The corpus hash covers each successful document's name and content hash
  (``store.documents.corpus_fingerprint``): ingesting the same files again keeps it, adding,
  removing or editing one changes it.
- The configuration hash covers what decides the rankings: the keys whose lifetime is index or
  query (``workbench.config.lifetime_of``; ingest limits and usage settings such as credentials,
  timeouts of writing golden sets and the query log never change a ranking), with every key the
  configuration ignores at its default (``workbench.retrieval.ignored_keys.effective``).
"""

from __future__ import annotations

import hashlib
import json

from store.catalog import Catalog
from store.corpus import corpus_fingerprint
from workbench.config import Lifetime, WorkbenchConfig, lifetime_of
from workbench.retrieval.ignored_keys import effective

#: the lifetimes of the keys that decide what a query returns
RANKING_LIFETIMES = frozenset({Lifetime.INDEX, Lifetime.QUERY})

CORPUS = "corpus"
CONFIG_HASH = "config_hash"


def ranking_settings(config: WorkbenchConfig) -> dict[str, object]:
    """The flat keys that decide ``config``'s rankings, ignored ones at their defaults."""
    return {key: value for key, value in effective(config).flat().items() if lifetime_of(key) in RANKING_LIFETIMES}


def config_hash(config: WorkbenchConfig) -> str:
    """A short hash of ``ranking_settings(config)``."""
    payload = json.dumps(ranking_settings(config), sort_keys=True, default=list)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def run_inputs(catalog: Catalog, collection: str, config: WorkbenchConfig) -> dict[str, object]:
    """What a run on ``collection`` under ``config`` records: the corpus fingerprint and the config hash."""
    return {CORPUS: corpus_fingerprint(catalog, collection).to_dict(), CONFIG_HASH: config_hash(config)}
