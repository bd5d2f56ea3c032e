"""The seed's "Radio Station" FastMCP server, for sagedeck's MCP client tests.

    python radio_station.py stdio
    python radio_station.py sse|streamable-http   (binds 127.0.0.1 on a free port, prints "PORT <n>")

`top_song(sign)` is the seed's tool. `count_slowly` reports progress, `fail` raises (an in-band
isError result), `ignore_cancel` keeps reporting progress after a cancellation.
"""

import asyncio
import sys

from mcp.server.fastmcp import Context, FastMCP
from serve import run

# instantiate an MCP server client
mcp = FastMCP("Radio Station Server", host="127.0.0.1")


# DEFINE TOOLS
@mcp.tool()
def top_song(sign: str) -> dict:
    """Get the most popular song played on a radio station"""
    # In this example, we simulate the return
    # but you should replace this with your business logic
    return {"song": "In the end", "author": "Linkin Park", "sign": sign}


@mcp.tool()
async def count_slowly(steps: int, delay_ms: int, ctx: Context) -> str:
    """Count to `steps`, reporting progress after each step."""
    for i in range(1, steps + 1):
        await asyncio.sleep(delay_ms / 1000)
        await ctx.report_progress(i, steps, f"step {i}")
    return f"counted to {steps}"


@mcp.tool()
def fail(message: str) -> str:
    """Always fails with `message`."""
    raise ValueError(message)


if __name__ == "__main__":
    print("radio station: starting (this line goes to stderr)", file=sys.stderr, flush=True)
    run(mcp, sse=True)
