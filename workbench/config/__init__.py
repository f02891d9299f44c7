"""The typed configuration: frozen sections, defaults, limits, lifetimes and ``--set key=value``.

Every stage reads its own frozen section. Keys are dotted (``fusion.k``). Each field declares
its documentation, the values it accepts (a numeric range, fixed choices, or the names of the
plugins registered for it) and its lifetime (index, ingest, query or usage), so the command
line, the app's widgets, the MCP tool schemas, the key table in the docs, the layouts and the
collections all read one source.

- ``fields``: ``setting``, ``Limits``, ``Lifetime``, ``ConfigError``;
- ``sections``: one dataclass per stage of retrieval; ``operations``: ingest limits, golden-set
  writing, the query log;
- ``tree``: ``WorkbenchConfig`` and its flat keys, coercion, ``lifetime_of``, ``keys_with_lifetime``;
- ``keys``: docs, choices, the key table, a backend's place;
- ``presets``: named sets of overrides.
"""

from workbench.config.fields import ConfigError, Lifetime, Limits, setting
from workbench.config.keys import KEY_DOCS, key_choices, key_table_markdown, place_keys, plugin_keys
from workbench.config.operations import IngestConfig, LogConfig, SynthConfig, TuningConfig
from workbench.config.presets import DEFAULT_PRESET, overrides_between, validate_overrides
from workbench.config.sections import (
    AUTO_RUNTIME,
    PRECISIONS,
    Bm25Config,
    ChunkingConfig,
    ConfidenceConfig,
    DenseConfig,
    EmbeddingConfig,
    FilterConfig,
    FoldConfig,
    FusionConfig,
    IndexConfig,
    MilvusConfig,
    MmrConfig,
    QueryConfig,
    RerankConfig,
    RetrievalConfig,
    embedding_settings,
)
from workbench.config.tree import (
    WorkbenchConfig,
    dumps,
    flatten,
    format_value,
    index_settings,
    key_default,
    key_limits,
    keys_with_lifetime,
    known_keys,
    lifetime_of,
    out_of_limits_message,
    section_dict,
)

__all__ = [
    "AUTO_RUNTIME",
    "DEFAULT_PRESET",
    "KEY_DOCS",
    "PRECISIONS",
    "Bm25Config",
    "ChunkingConfig",
    "ConfidenceConfig",
    "ConfigError",
    "DenseConfig",
    "EmbeddingConfig",
    "FilterConfig",
    "FoldConfig",
    "FusionConfig",
    "IndexConfig",
    "IngestConfig",
    "Lifetime",
    "Limits",
    "LogConfig",
    "MilvusConfig",
    "MmrConfig",
    "QueryConfig",
    "RerankConfig",
    "RetrievalConfig",
    "SynthConfig",
    "TuningConfig",
    "WorkbenchConfig",
    "dumps",
    "embedding_settings",
    "flatten",
    "format_value",
    "index_settings",
    "key_choices",
    "key_default",
    "key_limits",
    "key_table_markdown",
    "keys_with_lifetime",
    "known_keys",
    "lifetime_of",
    "out_of_limits_message",
    "overrides_between",
    "place_keys",
    "plugin_keys",
    "section_dict",
    "setting",
    "validate_overrides",
]
