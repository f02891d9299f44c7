"""The query log names each query's configuration by a hash of all of it, kept per configuration."""

from __future__ import annotations

import hashlib

from workbench.config import WorkbenchConfig, dumps
from workbench.golden.query_log import config_hash


def test_the_hash_is_of_the_whole_configuration_and_a_kept_one_is_the_same():
    config = WorkbenchConfig()
    expected = hashlib.sha256(dumps(config).encode("utf-8")).hexdigest()[:12]
    assert config_hash(config) == expected
    assert config_hash(WorkbenchConfig()) == expected  # an equal configuration, found kept
    changed = config.with_value("retrieval.top_k", config.retrieval.top_k + 1)
    assert config_hash(changed) != expected
    assert config_hash(changed) == hashlib.sha256(dumps(changed).encode("utf-8")).hexdigest()[:12]
    filtered = config.with_value("filters.doc_types", ["pdf"])  # a list set: kept as a tuple, so hashable
    assert config_hash(filtered) not in {expected, config_hash(changed)}
