"""A Python MCP SDK server offering a 2025-11-25 task tool (the SDK's experimental tasks API),
for sagedeck's MCP client tests.

    python task_server.py        (stdio)

`brew(kind)` has taskSupport "required": its task reports three steeping steps (statusMessage)
and completes with "brewed KIND". `echo(text)` takes no task.
"""

import warnings

import anyio
from mcp.server.experimental.task_context import ServerTaskContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, CreateTaskResult, TextContent, Tool, ToolExecution

warnings.filterwarnings("ignore", category=DeprecationWarning)  # the experimental tasks API
server = Server("task-server")
server.experimental.enable_tasks()


@server.list_tools()
async def list_tools() -> list[Tool]:
    schema = {"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"]}
    text = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    return [
        Tool(name="brew", description="Brews tea, slowly", inputSchema=schema,
             execution=ToolExecution(taskSupport="required")),
        Tool(name="echo", description="Says the text back", inputSchema=text),
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[TextContent] | CreateTaskResult:
    if name == "echo":
        return [TextContent(type="text", text=arguments["text"])]
    ctx = server.request_context
    ctx.experimental.validate_task_mode("required")
    kind = arguments["kind"]

    async def work(task: ServerTaskContext) -> CallToolResult:
        for step in range(1, 4):
            await task.update_status(f"steeping {step}/3")
            await anyio.sleep(0.4)
        return CallToolResult(content=[TextContent(type="text", text=f"brewed {kind}")])

    return await ctx.experimental.run_task(work)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
