"""Start-up shared by the Python MCP peers (radio_station.py, library_server.py,
sampling_server.py): the transport named on the command line, and for the HTTP ones a free
loopback port announced on stdout as "PORT <n>" (the tests read that line)."""

import asyncio
import socket
import sys


def serve_on_free_port(app) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


def run(mcp, sse: bool = False) -> None:
    """Runs the FastMCP server `mcp` on the transport the first argument names: `stdio` (the
    default), `streamable-http`, or `sse` where the peer offers it."""
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    apps = {"streamable-http": mcp.streamable_http_app}
    if sse:
        apps["sse"] = mcp.sse_app
    if transport == "stdio":
        mcp.run(transport="stdio")
    elif transport in apps:
        serve_on_free_port(apps[transport]())
    else:
        sys.exit(f"unknown transport {transport}")
