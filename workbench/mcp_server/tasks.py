"""Long tool calls as tasks: the MCP Tasks extension (``io.modelcontextprotocol/tasks``, 2026-07-28).

The SDK (``mcp`` 2.x) carries the extension mechanism (``Extension`` with new request methods
and a ``tools/call`` interceptor on the server, ``ResultClaim`` on the client) but not the
Tasks extension itself, so this module implements the extension's server side on that
mechanism, with the extension's wire shapes:

- a ``tools/call`` of a long tool (``Jobs.task_tools``) from a client that declares the
  extension in its request's capabilities is answered at once with ``resultType: "task"`` and
  the Task (``taskId``, ``status``, ``statusMessage``, ``createdAt``, ``lastUpdatedAt``,
  ``ttlMs``, ``pollIntervalMs``); a client that does not declare it gets the ordinary result
  when the work is done, with ``notifications/progress`` on the way if it sent a progress token;
- ``tasks/get`` returns the Task, with ``result`` (the ``CallToolResult``) once completed and
  ``error`` once failed; ``tasks/cancel`` asks the work to stop; ``tasks/update`` is refused
  (no job here asks for input).

What the SDK lacks and how it is bridged: its ``subscriptions/listen`` bus has no task events,
so a task's progress (trials done, best so far, time left) travels in ``statusMessage``, which
the extension defines for exactly that ("progress descriptions for working"), read by polling.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolRequestParams, RequestParams
from pydantic import Field

from workbench.mcp_server.jobs import COMPLETED, FAILED, POLL_INTERVAL_MS, Job, JobNotFoundError, Jobs

log = logging.getLogger(__name__)

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

ToolCaller = Callable[[str, dict[str, Any]], Awaitable[Any]]


class TaskIdParams(RequestParams):
    """The params of ``tasks/get``, ``tasks/cancel`` and ``tasks/update``."""

    task_id: str = Field(alias="taskId")


def task_wire(job: Job, detailed: bool) -> dict[str, Any]:
    """The Task as the extension shapes it; ``detailed`` adds the result or error (``tasks/get``)."""
    task: dict[str, Any] = {
        "taskId": job.job_id,
        "status": job.status,
        "statusMessage": job.message,
        "createdAt": job.created_at,
        "lastUpdatedAt": job.updated_at,
        "ttlMs": None,  # kept until the server stops
        "pollIntervalMs": POLL_INTERVAL_MS,
    }
    if detailed and job.status == COMPLETED and job.result is not None:
        task["result"] = job.result
    if detailed and job.status == FAILED and job.error is not None:
        task["error"] = job.error
    return task


def declares_tasks(ctx: ServerRequestContext[Any, Any]) -> bool:
    capabilities = ctx.session.client_capabilities
    return bool(capabilities and capabilities.extensions and TASKS_EXTENSION in capabilities.extensions)


class TasksExtension(Extension):
    identifier = TASKS_EXTENSION

    def __init__(self, jobs: Jobs):
        self.jobs = jobs
        #: runs a tool by name with its arguments (the server's ``call_tool``), set by ``bind``
        self._call_tool: ToolCaller | None = None

    def bind(self, call_tool: ToolCaller) -> None:
        self._call_tool = call_tool

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskIdParams, self._get),
            MethodBinding("tasks/cancel", TaskIdParams, self._cancel),
            MethodBinding("tasks/update", TaskIdParams, self._update),
        ]

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if params.name not in self.jobs.task_tools or not declares_tasks(ctx) or self._call_tool is None:
            return await call_next(ctx)
        call_tool, name, arguments = self._call_tool, params.name, dict(params.arguments or {})

        def run() -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
            # the job's own event loop, in the job's thread: the request that started it is over
            # long before the work is
            try:
                result = anyio.run(call_tool, name, arguments)
            except MCPError as error:
                return None, {"code": error.error.code, "message": error.error.message}
            return _result_json(result), None

        job = self.jobs.start(name, run)
        return {"resultType": "task", **task_wire(job, detailed=False)}

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        return task_wire(self._job(params.task_id), detailed=True)

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        try:
            self.jobs.cancel(params.task_id)
        except JobNotFoundError as error:
            raise MCPError(code=INVALID_PARAMS, message=str(error)) from None
        return {}

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        self._job(params.task_id)
        raise MCPError(code=INVALID_PARAMS, message=f"task {params.task_id!r} asks for no input; nothing to update")

    def _job(self, task_id: str) -> Job:
        try:
            return self.jobs.get(task_id)
        except JobNotFoundError as error:
            raise MCPError(code=INVALID_PARAMS, message=str(error)) from None


def _result_json(result: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    dumped.setdefault("resultType", "complete")
    return dumped
