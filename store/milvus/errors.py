"""What fails when Milvus is called, each error naming the URI and the fix."""

from __future__ import annotations

from store.milvus.names import is_lite
from store.retrieval_index import IndexBackendError, IndexMissing


class MilvusError(IndexBackendError):
    """A Milvus call failed; the message names the URI, the collection and what to do."""


class MilvusUnavailable(MilvusError):
    """Milvus cannot be reached at a URI (a server that is down, a Lite file another process holds)."""

    def __init__(self, uri: str, reason: str, fix: str | None = None) -> None:
        self.uri = uri
        fix = fix or (
            "start Milvus there (docker compose up -d, see docs/SCALING.md), or point the collection at "
            "another Milvus: python -m workbench migrate-backend -c COLLECTION --to milvus --uri URI"
            if not is_lite(uri)
            else "check that the folder exists and is writable"
        )
        super().__init__(f"Milvus at {uri} is unavailable: {reason}; {fix}. Other collections keep working.")


class MilvusCollectionMissing(MilvusError, IndexMissing):
    """The Milvus server is up but the collection a snapshot points to is not there."""

    def __init__(self, uri: str, name: str) -> None:
        self.uri, self.name = uri, name
        super().__init__(
            f"Milvus at {uri} has no collection {name!r}; push it from the catalog with "
            "python -m workbench sync -c COLLECTION (nothing is re-embedded)"
        )


def message_of(error: Exception) -> str:
    return getattr(error, "message", None) or str(error)


def is_unreachable(error: Exception) -> bool:
    """A failure of the connection rather than of the request."""
    import grpc
    from pymilvus.exceptions import MilvusUnavailableException

    if isinstance(error, (MilvusUnavailableException, grpc.RpcError)):
        return True
    text = message_of(error).lower()
    return any(
        marker in text
        for marker in (
            "unavailable",
            "fail connecting",
            "deadline",
            "connection refused",
            "failed to connect",
            "socket closed",
        )
    )
