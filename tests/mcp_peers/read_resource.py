"""A Python MCP SDK client, for sagedeck's tests: lists the resources and templates of a server
over streamable HTTP, reads one and prints what came back as one JSON line.

    python read_resource.py URL URI
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def main(url: str, uri: str) -> None:
    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_resources()
            templates = await session.list_resource_templates()
            result = await session.read_resource(uri)
            print(
                json.dumps(
                    {
                        "protocol": init.protocolVersion,
                        "resources": [str(r.uri) for r in listed.resources],
                        "templates": [t.uriTemplate for t in templates.resourceTemplates],
                        "contents": [
                            {"uri": str(c.uri), "mimeType": c.mimeType, "text": getattr(c, "text", None)}
                            for c in result.contents
                        ],
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:3]))
