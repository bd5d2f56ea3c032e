"""An MCP server that asks its client for completions (sampling), for sagedeck's tests.

    python sampling_server.py stdio
    python sampling_server.py streamable-http   (binds 127.0.0.1 on a free port, prints "PORT <n>")

`summarize(text)` sends one `sampling/createMessage` (a system prompt, one user message, model
preferences, a token limit) and returns what came back, or the error the client answered.
"""

from mcp.server.fastmcp import Context, FastMCP
from mcp.shared.exceptions import McpError
from mcp.types import ModelHint, ModelPreferences, SamplingMessage, TextContent

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


if __name__ == "__main__":
    run(mcp)
