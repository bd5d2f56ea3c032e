"""An MCP server that asks its client for completions (sampling), for sagedeck's tests.

    python sampling_server.py stdio
    python sampling_server.py streamable-http   (binds 127.0.0.1 on a free port, prints "PORT <n>")

`summarize(text)` sends one `sampling/createMessage` (a system prompt, one user message, model
preferences, a token limit) and returns what came back, or the error the client answered.
`pick_action(text)` samples with tools (2025-11-25): it offers two runbook tools, and when the
model uses one, sends the tool's result back and returns the model's final answer too.
"""

from mcp.server.fastmcp import Context, FastMCP
from mcp.shared.exceptions import McpError
from mcp.types import (
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
    Tool,
    ToolChoice,
    ToolResultContent,
)

from serve import run

mcp = FastMCP("Sampling Server", host="127.0.0.1")


@mcp.tool()
async def summarize(text: str, ctx: Context) -> dict:
    """Summarize `text` with the client's model (sampling/createMessage)."""
    try:
        result = await ctx.session.create_message(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
            max_tokens=64,
            system_prompt="You are a terse summarizer.",
            model_preferences=ModelPreferences(hints=[ModelHint(name="claude")], intelligencePriority=0.8),
        )
    except McpError as e:
        return {"declined": True, "code": e.error.code, "message": e.error.message}
    return {
        "declined": False,
        "model": result.model,
        "role": result.role,
        "text": result.content.text,
        "stop_reason": result.stopReason,
    }


RUNBOOK = [
    Tool(
        name="restart_endpoint",
        description="Restart a SageMaker endpoint that stopped answering",
        inputSchema={
            "type": "object",
            "properties": {"endpoint": {"type": "string", "description": "The endpoint to restart"}},
            "required": ["endpoint"],
        },
    ),
    Tool(
        name="page_oncall",
        description="Page the on-call engineer of a team",
        inputSchema={
            "type": "object",
            "properties": {"team": {"type": "string", "description": "The team to page"}},
            "required": ["team"],
        },
    ),
]


def blocks(content):
    return content if isinstance(content, list) else [content]


@mcp.tool()
async def pick_action(text: str, ctx: Context) -> dict:
    """Ask the client's model which runbook tool fits `text` (sampling with tools), then give it the tool's result."""
    messages = [SamplingMessage(role="user", content=TextContent(type="text", text=text))]
    try:
        first = await ctx.session.create_message(
            messages=messages, max_tokens=64, tools=RUNBOOK, tool_choice=ToolChoice(mode="auto")
        )
    except McpError as e:
        return {"declined": True, "code": e.error.code, "message": e.error.message}
    content = blocks(first.content)
    uses = [c for c in content if c.type == "tool_use"]
    out = {
        "declined": False,
        "model": first.model,
        "stop_reason": first.stopReason,
        "tool_uses": [{"id": u.id, "name": u.name, "input": u.input} for u in uses],
    }
    if uses:
        messages.append(SamplingMessage(role="assistant", content=content))
        results = [
            ToolResultContent(
                type="tool_result",
                toolUseId=u.id,
                content=[TextContent(type="text", text='{"restarted": "%s", "status": "InService"}' % u.input.get("endpoint"))],
            )
            for u in uses
        ]
        messages.append(SamplingMessage(role="user", content=results))
        second = await ctx.session.create_message(messages=messages, max_tokens=64, tools=RUNBOOK)
        out["final_stop_reason"] = second.stopReason
        out["final_text"] = " ".join(c.text for c in blocks(second.content) if c.type == "text")
    return out


if __name__ == "__main__":
    run(mcp)
