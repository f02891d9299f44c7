"""The client side of the Tasks extension, on the SDK's ``ClientExtension``: for the tests, the
bench and any Python agent.

``TasksClient`` declares ``io.modelcontextprotocol/tasks`` on every request and claims the
``resultType: "task"`` answer of ``tools/call``: ``Client.call_tool`` then polls ``tasks/get``
until the task ends and returns its ``CallToolResult``, calling ``on_status`` with each status
seen (the task's progress). ``get_task`` and ``cancel_task`` reach a task by id from any client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

import anyio
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientSession
from mcp_types import CallToolResult, Request, Result, TextContent
from pydantic import ConfigDict, Field

from workbench.mcp_server.tasks import TASKS_EXTENSION, TaskIdParams

TERMINAL = frozenset({"completed", "failed", "cancelled"})


class TaskHandle(Result):
    """A ``CreateTaskResult``: the Task a long ``tools/call`` answers with."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class TaskState(Result):
    """A ``tasks/get`` answer: the Task, with ``result`` once completed and ``error`` once failed."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    def tool_result(self) -> CallToolResult:
        if self.status == "completed" and self.result is not None:
            return CallToolResult.model_validate(self.result)
        message = (self.error or {}).get("message") or self.status_message or self.status
        return CallToolResult(content=[TextContent(text=f"task {self.status}: {message}")], is_error=True)


class _GetTask(Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"


class _CancelTask(Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"


async def get_task(session: ClientSession, task_id: str) -> TaskState:
    return await session.send_request(_GetTask(params=TaskIdParams(taskId=task_id)), TaskState)


async def cancel_task(session: ClientSession, task_id: str) -> None:
    await session.send_request(_CancelTask(params=TaskIdParams(taskId=task_id)), Result)


async def wait_for(
    session: ClientSession, task_id: str, on_status: Callable[[TaskState], Awaitable[None] | None] | None = None
) -> TaskState:
    """Poll ``tasks/get`` at the interval the server suggests until the task ends."""
    while True:
        state = await get_task(session, task_id)
        if on_status is not None:
            shown = on_status(state)
            if shown is not None:
                await shown
        if state.status in TERMINAL:
            return state
        await anyio.sleep((state.poll_interval_ms or 500) / 1000)


class TasksClient(ClientExtension):
    identifier = TASKS_EXTENSION

    def __init__(self, on_status: Callable[[TaskState], Awaitable[None] | None] | None = None):
        self.on_status = on_status

    def claims(self) -> list[ResultClaim[Any]]:
        async def resolve(handle: TaskHandle, ctx: ClaimContext) -> CallToolResult:
            return (await wait_for(ctx.session, handle.task_id, self.on_status)).tool_result()

        return [ResultClaim(result_type="task", model=TaskHandle, resolve=resolve)]
