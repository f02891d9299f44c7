"""The workbench as one object, and what it reports: what the CLI, the app and the MCP server call.

- ``workbench``: ``Workbench``, which owns the home, the loaded index snapshots and the query-vector cache;
- ``home``: where a workbench keeps its state;
- ``collection_info``: a collection's summary, a backend migration, the settings a collection fixes;
- ``sharing``: who may use the app (local, shared with a token, read-only);
- ``first_use``: a query's one-off work, done and measured before an A/B comparison is timed.
"""

from workbench.service.collection_info import CollectionInfo, Migration
from workbench.service.workbench import BackendError, NotFoundError, Workbench, uses_llm

__all__ = ["BackendError", "CollectionInfo", "Migration", "NotFoundError", "Workbench", "uses_llm"]
