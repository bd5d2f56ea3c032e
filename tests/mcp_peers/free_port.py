"""Serving a Python MCP peer's ASGI app on a free loopback port, announced on stdout as
"PORT <n>" (the tests read that line), for radio_station.py and library_server.py."""

import asyncio
import socket


def serve_on_free_port(app) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
