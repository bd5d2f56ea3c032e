"""A Python MCP SDK client, for sagedeck's tests: calls one tool over streamable HTTP and prints
what came back as one JSON line.

    python call_tool.py URL TOOL ARGUMENTS_JSON

The SDK's client declares no tasks extension, so a task tool of `sagedeck mcp serve` answers it
in the call itself.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def main(url: str, tool: str, arguments: str) -> None:
    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(tool, json.loads(arguments))
            texts = [c.text for c in result.content if c.type == "text"]
            print(json.dumps({"isError": result.isError, "structured": result.structuredContent, "text": texts}))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
