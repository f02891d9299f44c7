"""``python -m workbench mcp``: the knowledge base as an MCP server over stdio.

Start-up is kept light so ``initialize`` is answered at once: this module imports only the MCP
SDK and the small argument/schema modules. The core (DuckDB, numpy, torch) is imported on first
use, and a background thread, started with the server, imports it and warms the default
collection's index snapshot, then its embedding model. A keyword (BM25) search needs only the
snapshot, so on a BM25 preset the first answer does not wait for the model.

stdout carries protocol messages only. The SDK points file descriptor 1 at stderr while it
serves, so a stray print or progress bar from a library cannot corrupt the stream; all logging
goes to stderr.
"""

from __future__ import annotations

import base64
import inspect
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import anyio
import anyio.to_thread
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from mcp_types import Resource as MCPResource
from pydantic import Field

from workbench.mcp_server.arguments import (
    CONFIDENCE_LEVELS,
    NEIGHBORS_DEFAULT,
    NEIGHBORS_LIMITS,
    QUERY_MAX_CHARS,
    TOP_K_DEFAULT,
    TOP_K_LIMITS,
)
from workbench.mcp_server.defaults import ServerDefaults
from workbench.mcp_server.foreground import FOREGROUND, Foreground
from workbench.mcp_server.jsonrpc_errors import unreadable_line_error
from workbench.mcp_server.schemas import ChunkResult, CollectionList, DocumentSummary, SearchResult, SectionList

if TYPE_CHECKING:
    from workbench.mcp_server.tools import KnowledgeHub, ToolOutput

log = logging.getLogger(__name__)

SERVER_NAME = "rag-workbench"
DOCUMENT_TEMPLATE = "workbench://{collection}/{doc_id}"

# Input types. Bounds are published in the schema (json_schema_extra) but checked by the tools
# themselves, so an out-of-range value comes back as a message naming the fix rather than a
# pydantic validation dump.
Query = Annotated[
    str,
    Field(
        description=f"question or keywords, 1-{QUERY_MAX_CHARS} characters",
        json_schema_extra={"minLength": 1, "maxLength": QUERY_MAX_CHARS},
    ),
]
TopK = Annotated[
    int,
    Field(
        description=f"number of passages to return, {TOP_K_LIMITS.describe()} "
        "(the configuration's retrieval.top_k range)",
        json_schema_extra=TOP_K_LIMITS.json_schema(),
    ),
]
CollectionName = Annotated[
    str | None,
    Field(
        description="collection to use (list_collections names them); default: the server's --collection, "
        "else the only collection"
    ),
]
PresetName = Annotated[
    str | None,
    Field(
        description="named retrieval settings to use; default: the server's --preset, else the collection's "
        "default preset"
    ),
]
DocumentRef = Annotated[int | str, Field(description="numeric document id (from citations), external id, or file name")]
DocumentScope = Annotated[
    str | None, Field(description="collection to look in; default: every collection (numeric ids are unique anyway)")
]
MinConfidence = Annotated[
    str | None,
    Field(
        description="leave the passages out unless the confidence verdict reaches this: relevant, or ambiguous "
        "(which keeps relevant too); default: keep them, marked low-confidence when none looks relevant",
        json_schema_extra={"enum": [*CONFIDENCE_LEVELS, None]},
    ),
]
ChunkId = Annotated[int, Field(description="chunk id, from citations or list_document_sections")]
Neighbors = Annotated[
    int,
    Field(
        description=f"chunks to include before and after, {NEIGHBORS_LIMITS.describe()}",
        json_schema_extra=NEIGHBORS_LIMITS.json_schema(),
    ),
]

#: how long the model's loading waits for a client's first call once the indexes are loaded
FIRST_CALL_GRACE_S = 2.0

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

INSTRUCTIONS = """\
Search and read the user's RAG Workbench knowledge base. Start with query_knowledge_hub: it runs \
the retrieval pipeline the user tuned and returns passages marked [1], [2], ... with a source \
list; cite those marks in answers. search_by_keyword (exact terms) and search_by_semantic \
(paraphrases) run one retrieval route each. get_chunk reads around a passage; \
get_document_summary and list_document_sections describe a document; resources \
workbench://<collection>/<doc_id> hold full documents as Markdown."""


class HubProvider:
    """Creates the ``KnowledgeHub`` (and imports the core) on first use, and warms it once."""

    def __init__(
        self,
        home: str | os.PathLike | None,
        defaults: ServerDefaults,
        read_only: bool = False,
        foreground: Foreground = FOREGROUND,
    ):
        self._home = home
        self._defaults = defaults
        self.read_only = read_only
        #: counts the calls being answered, which the evaluation loop's jobs wait for
        self.foreground = foreground
        self._hub: KnowledgeHub | None = None
        self._lock = threading.Lock()
        # separate, because start_warm_up runs on the event loop while get() may hold _lock
        # for the duration of importing the core
        self._warm_up_lock = threading.Lock()
        self._warm_up_started = False
        #: set once a call has been answered: the model's loading waits for it a moment
        self._answered = threading.Event()

    def get(self) -> KnowledgeHub:
        with self._lock:
            if self._hub is None:
                from workbench.mcp_server.tools import KnowledgeHub
                from workbench.service import Workbench

                self._hub = KnowledgeHub(Workbench(self._home, read_only=self.read_only), self._defaults)
            return self._hub

    def start_warm_up(self) -> None:
        with self._warm_up_lock:
            if self._warm_up_started:
                return
            self._warm_up_started = True
        threading.Thread(target=self._warm_up, name="workbench-warm-up", daemon=True).start()

    def _warm_up(self) -> None:
        from workbench.mcp_server.tools import CALLER_ERRORS
        from workbench.text import error_message

        try:
            self.get().warm_up(before_models=self._before_models)
        except CALLER_ERRORS as error:
            log.info("nothing to warm up: %s", error_message(error))
        except Exception:  # the first query loads what it needs instead
            log.warning("warm-up failed; the first query will load the indexes itself", exc_info=True)

    def _before_models(self) -> None:
        """Between the indexes and the model: importing torch holds the interpreter for seconds,
        so a client's first call (a keyword search needs only the indexes) goes first when it
        comes within ``FIRST_CALL_GRACE_S``, and so does any call being answered."""
        self._answered.wait(FIRST_CALL_GRACE_S)
        self.foreground.wait_turn()

    async def answer(
        self, produce: Callable[[KnowledgeHub], ToolOutput], at_once: Callable[[KnowledgeHub], bool]
    ) -> CallToolResult:
        """Run one search tool: on the event loop when ``at_once`` says it needs nothing slow
        (about a millisecond of Python), else on a worker thread like every other tool.

        Why: handing a call to a worker thread and back costs two GIL hand-overs, and under
        eight concurrent clients each waited for the other threads' switch intervals: p95 34 ms
        for calls whose vectors were all kept, 19 ms answered on the loop (p50 20 and 17)."""
        hub = self._hub
        if hub is not None and at_once(hub):
            from workbench.mcp_server.tools import ON_EVENT_LOOP

            token = ON_EVENT_LOOP.set(True)
            try:
                return self.call(produce)
            finally:
                ON_EVENT_LOOP.reset(token)
        return await anyio.to_thread.run_sync(self.call, produce)

    def call(self, produce: Callable[[KnowledgeHub], ToolOutput]) -> CallToolResult:
        """Run one tool; a mistake the caller can fix becomes an ``isError`` result, in the words of
        a tool call (``in_tool_terms``: the shared code it comes from may name a CLI flag)."""
        from workbench.mcp_server.tools import CALLER_ERRORS
        from workbench.mcp_server.vocabulary import in_tool_terms
        from workbench.text import error_message

        try:
            with self.foreground.answering():
                try:
                    output = produce(self.get())
                finally:
                    self._answered.set()
        except CALLER_ERRORS as error:
            return CallToolResult(content=[TextContent(text=in_tool_terms(error_message(error)))], is_error=True)
        images = [
            ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime) for data, mime in output.images
        ]
        return CallToolResult(
            content=[TextContent(text=output.markdown), *images],
            structured_content=output.result.model_dump(mode="json"),
        )


class WarmUpAfterHandshake:
    """Server middleware: start warming once the client is past ``initialize``, if it has not
    started yet (``serve`` and ``serve_http`` start it with the server; a server built in-process
    for tests starts it here)."""

    def __init__(self, provider: HubProvider):
        self._provider = provider

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method != "initialize":
            self._provider.start_warm_up()
        return result


class WorkbenchMCPServer(MCPServer):
    """The SDK's server, plus: every document listed as a resource (the SDK lists only resources
    registered up front), an answer to stdin lines that are not JSON-RPC messages, and a call with
    an argument the tool does not take refused by name."""

    def __init__(self, provider: HubProvider, **kwargs: Any):
        super().__init__(**kwargs)
        self._provider = provider

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        # the SDK's argument model ignores what it does not know: a misspelt `levl` would run the
        # call at the default level and say nothing
        unknown = unknown_arguments(self._tool_manager.get_tool(name), arguments)
        if unknown:
            return CallToolResult(content=[TextContent(text=unknown)], is_error=True)
        return await super().call_tool(name, arguments, context)

    async def run_stdio_async(self) -> None:
        async with stdio_server() as (transport_in, transport_out):
            messages_in, messages = anyio.create_memory_object_stream[SessionMessage | Exception](0)

            async def answer_unreadable_lines() -> None:
                async with messages_in:
                    async for item in transport_in:
                        if isinstance(item, Exception):
                            await transport_out.send(SessionMessage(unreadable_line_error(item)))
                        else:
                            await messages_in.send(item)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(answer_unreadable_lines)
                # the call MCPServer.run_stdio_async makes, on the filtered stream (_lowlevel_server is
                # the SDK's own attribute; test_mcp_stdio drives this path, so an upgrade that moves it fails there)
                await self._lowlevel_server.run(
                    messages, transport_out, self._lowlevel_server.create_initialization_options()
                )

    async def list_resources(self) -> list[MCPResource]:
        from workbench.mcp_server.tools import CALLER_ERRORS
        from workbench.text import error_message

        listed = await super().list_resources()
        try:
            documents = await anyio.to_thread.run_sync(lambda: self._provider.get().document_resources())
        except CALLER_ERRORS as error:
            log.warning("could not list documents: %s", error_message(error))
            return listed
        return listed + [
            MCPResource(uri=d.uri, name=d.name, title=d.title, description=d.description, mime_type="text/markdown")
            for d in documents
        ]


def unknown_arguments(tool: Any, arguments: dict[str, Any] | None) -> str:
    """The refusal of ``arguments`` the registered ``tool`` does not take ("" when it takes them all)."""
    if tool is None:
        return ""  # the SDK answers an unknown tool itself
    known = sorted(tool.parameters.get("properties", {}))
    unknown = [name for name in arguments or {} if name not in known]
    if not unknown:
        return ""
    plural = "s" if len(unknown) > 1 else ""
    return (
        f"unknown argument{plural} {', '.join(repr(name) for name in unknown)} for tool {tool.name!r}; "
        f"known: {', '.join(known) or 'none (call it without arguments)'}"
    )


def build_server(provider: HubProvider, loop: Any = None) -> WorkbenchMCPServer:
    """The server; ``loop`` (a ``workbench.mcp_server.loop_tools.LoopOptions``) adds the
    evaluation loop's tools and long jobs as tasks (the HTTP server does)."""
    extensions = []
    if loop is not None:
        from workbench.mcp_server.tasks import TasksExtension

        extensions.append(TasksExtension(loop.jobs))
    server = WorkbenchMCPServer(
        provider,
        name=SERVER_NAME,
        title="RAG Workbench knowledge base",
        instructions=INSTRUCTIONS + (loop.instructions if loop is not None else ""),
        middleware=[WarmUpAfterHandshake(provider)],
        extensions=extensions,
    )

    def tool(title: str):
        def register(fn):
            # the docstring is the description an agent reads: without the source indentation
            server.add_tool(fn, title=title, description=inspect.cleandoc(fn.__doc__ or ""), annotations=READ_ONLY)
            return fn

        return register

    @tool("Query the knowledge base")
    async def query_knowledge_hub(
        query: Query,
        top_k: TopK = TOP_K_DEFAULT,
        collection: CollectionName = None,
        preset: PresetName = None,
        min_confidence: MinConfidence = None,
    ) -> Annotated[CallToolResult, SearchResult]:
        """Answer-ready passages from the user's knowledge base, retrieved with the pipeline and
        preset they tuned in RAG Workbench (hybrid dense + BM25 retrieval, fusion, and MMR or
        reranking if the preset enables them). content[0] is Markdown: passages marked [1], [2], ...
        and a source list; cite passages by these marks. structuredContent.citations[n-1] is
        passage [n]: source file, doc_id, chunk_id, heading_path, page, score and text.
        structuredContent.confidence.verdict says whether the passages look relevant (relevant,
        ambiguous or no_answer), with its evidence; when it is no_answer, content[0] says so first
        and the candidates are marked low-confidence: do not answer from them. Read around a
        passage with get_chunk(chunk_id, neighbors); describe its document with
        get_document_summary(doc_id)."""
        return await provider.answer(
            lambda hub: hub.query_knowledge_hub(query, top_k, collection, preset, min_confidence),
            lambda hub: hub.answers_at_once("query_knowledge_hub", query, collection, preset),
        )

    @tool("Keyword (BM25) search")
    async def search_by_keyword(
        query: Query,
        top_k: TopK = TOP_K_DEFAULT,
        collection: CollectionName = None,
        min_confidence: MinConfidence = None,
    ) -> Annotated[CallToolResult, SearchResult]:
        """BM25 keyword search only: no embeddings, fusion, MMR or reranking. Best for exact
        terms, names, codes and identifiers. Same result shape as query_knowledge_hub, confidence
        included; scores are BM25 scores. Uses the chunking and filters of the collection's
        default preset."""
        return await provider.answer(
            lambda hub: hub.search_by_keyword(query, top_k, collection, min_confidence),
            lambda hub: hub.answers_at_once("search_by_keyword", query, collection),
        )

    @tool("Semantic (dense) search")
    async def search_by_semantic(
        query: Query,
        top_k: TopK = TOP_K_DEFAULT,
        collection: CollectionName = None,
        min_confidence: MinConfidence = None,
    ) -> Annotated[CallToolResult, SearchResult]:
        """Embedding similarity search only: no BM25, fusion, MMR or reranking. Best for
        paraphrased or conceptual questions whose wording differs from the documents. Same
        result shape as query_knowledge_hub, confidence included; scores are cosine similarities."""
        return await provider.answer(
            lambda hub: hub.search_by_semantic(query, top_k, collection, min_confidence),
            lambda hub: hub.answers_at_once("search_by_semantic", query, collection),
        )

    @tool("List collections")
    def list_collections() -> Annotated[CallToolResult, CollectionList]:
        """The knowledge base's collections: document and chunk counts, embedding model, default
        preset, and which collection the other tools use when `collection` is omitted."""
        return provider.call(lambda hub: hub.list_collections())

    @tool("Summarise a document")
    def get_document_summary(
        doc_id: DocumentRef, collection: DocumentScope = None
    ) -> Annotated[CallToolResult, DocumentSummary]:
        """One document at a glance: title, heading outline, type, size, chunk count, ingestion
        time, its opening (~500 characters) and the resource URI of its full Markdown. doc_id
        accepts the numeric id from citations, the external id, or the file name."""
        return provider.call(lambda hub: hub.get_document_summary(doc_id, collection))

    @tool("List a document's sections")
    def list_document_sections(
        doc_id: DocumentRef, collection: DocumentScope = None
    ) -> Annotated[CallToolResult, SectionList]:
        """A document's sections (each heading up to the next heading), with heading paths,
        character offsets and the ids of the chunks in each, for reading a document step by step
        with get_chunk."""
        return provider.call(lambda hub: hub.list_document_sections(doc_id, collection))

    @tool("Read a chunk")
    def get_chunk(
        chunk_id: ChunkId, neighbors: Neighbors = NEIGHBORS_DEFAULT
    ) -> Annotated[CallToolResult, ChunkResult]:
        """One chunk's text, heading path and page, plus up to `neighbors` chunks before and after
        it in the same document for context."""
        return provider.call(lambda hub: hub.get_chunk(chunk_id, neighbors))

    @server.resource(
        DOCUMENT_TEMPLATE,
        name="document",
        title="Knowledge base document",
        description="A document's full text as Markdown",
        mime_type="text/markdown",
    )
    def read_document(collection: str, doc_id: str) -> str:
        from workbench.mcp_server.tools import CALLER_ERRORS, NotFoundError
        from workbench.mcp_server.vocabulary import in_tool_terms
        from workbench.text import error_message

        try:
            return provider.get().document_markdown(collection, doc_id)
        except NotFoundError as error:
            raise ResourceNotFoundError(in_tool_terms(error_message(error))) from None
        except CALLER_ERRORS as error:
            raise ResourceError(in_tool_terms(error_message(error))) from None

    if loop is not None:
        from workbench.mcp_server.loop_tools import register_loop_tools

        register_loop_tools(server, provider, loop)
    return server


def _check_named_models(config, overrides: list[str]) -> None:
    """A model named by --set must be on this machine before the server starts: a client would
    otherwise see every query fail. (Models of a collection or preset are checked per call.)"""
    from workbench.embedding.registry import check_embedding_model
    from workbench.models.availability import require_available
    from workbench.models.catalogue import RERANK

    named = {assignment.partition("=")[0].strip() for assignment in overrides}
    if "embedding.model" in named:
        check_embedding_model(config.embedding.model)
    if "rerank.model" in named and config.rerank.model.strip():
        require_available(config.rerank.model.strip(), RERANK)


def serve(home: str | None, preset: str | None, collection: str | None, overrides: list[str] | None) -> int:
    """Serve until the client closes stdin, then end the process (exit status 0). Returns only
    when it cannot start (a bad --set raises ConfigError, a model it names that is not on this machine
    raises ModelNotAvailableError; the CLI reports either)."""
    from workbench.config import WorkbenchConfig
    from workbench.service.home import resolve_home

    config = WorkbenchConfig().with_overrides(overrides or [])  # a bad --set fails now, not on every call
    _check_named_models(config, overrides or [])
    logging.getLogger("workbench").setLevel(logging.INFO)  # start-up and warm-up lines, on stderr
    defaults = ServerDefaults(collection=collection, preset=preset, overrides=tuple(overrides or ()))
    log.info(
        "serving %s over MCP stdio (collection %s, preset %s)",
        resolve_home(home),
        collection or "auto",
        preset or "the collection's default",
    )
    provider = HubProvider(home, defaults)
    server = build_server(provider)
    provider.start_warm_up()  # now, not after the handshake: the first call may come right after it
    server.run("stdio")
    log.info("client closed the connection; exiting")
    # Leave without finalising the interpreter. Clients allow a server about two seconds after
    # closing stdin before they kill it, and tearing down torch takes longer than that on a busy
    # machine; worse, if the warm-up thread is still loading torch, finalising under it aborts
    # the process (SIGABRT). Nothing is pending: every catalog write has committed, and an index
    # build cut short is an abandoned ".building" folder that the next writer collects.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
