"""An OAuth-protected MCP server for sagedeck's tests, on three loopback origins.

- The resource server: a FastMCP streamable HTTP server behind the SDK's auth support (a
  TokenVerifier and AuthSettings: protected-resource metadata, 401/403 challenges), with the
  tools `whoami` and `top_song`.
- Its authorization server: RFC 8414 metadata, dynamic client registration (unless --no-dcr,
  which leaves only the pre-registered public client `sagedeck-preregistered`), an authorize
  endpoint that approves at once (the browser step, automated), a token endpoint checking PKCE
  (S256) and the `resource` indicator, refresh tokens, and access tokens living --ttl seconds.
- A recorder: answers everything 401 with a Bearer challenge and keeps the Authorization header
  of every request it got (GET /seen shows them).

Control routes on the resource server: POST /control/require?scope=S adds a required scope (a
step-up: the protected-resource metadata names it from then on), POST /control/redirect?to=URL
answers /mcp with a 307 to URL. GET /stats on the
authorization server shows registrations, authorizations, tokens and refreshes.

Prints `PORTS <as> <rs> <recorder>` on stdout, then serves until killed.
"""

import argparse
import asyncio
import base64
import hashlib
import secrets
import socket
import sys
import time
from urllib.parse import urlencode

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.fastmcp import FastMCP
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

PREREGISTERED = "sagedeck-preregistered"


def bound_socket():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    return s


class AuthServer:
    def __init__(self, url, ttl, dcr):
        self.url, self.ttl, self.dcr = url, ttl, dcr
        self.clients = {} if dcr else {PREREGISTERED: {"redirect_uris": None}}
        self.codes, self.tokens, self.refresh = {}, {}, {}
        self.stats = {"registrations": 0, "authorizations": [], "token_grants": 0, "refreshes": 0,
                      "presented": 0, "expired_presented": 0}

    def metadata(self, _req):
        m = {
            "issuer": self.url,
            "authorization_endpoint": self.url + "/authorize",
            "token_endpoint": self.url + "/token",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": ["radio:read", "radio:admin"],
        }
        if self.dcr:
            m["registration_endpoint"] = self.url + "/register"
        return JSONResponse(m)

    async def register(self, req):
        body = await req.json()
        client_id = "client-" + secrets.token_hex(6)
        self.clients[client_id] = {"redirect_uris": body.get("redirect_uris", [])}
        self.stats["registrations"] += 1
        return JSONResponse({"client_id": client_id, "redirect_uris": body.get("redirect_uris", []),
                             "token_endpoint_auth_method": "none"}, status_code=201)

    def authorize(self, req):
        q = req.query_params
        client = self.clients.get(q.get("client_id"))
        redirect = q.get("redirect_uri", "")
        if client is None or (client["redirect_uris"] is not None and redirect not in client["redirect_uris"]):
            return JSONResponse({"error": "invalid_client"}, status_code=400)
        if not redirect.startswith("http://127.0.0.1:") or q.get("code_challenge_method") != "S256":
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        scopes = (q.get("scope") or "").split()
        self.stats["authorizations"].append({"client_id": q["client_id"], "scopes": scopes,
                                             "resource": q.get("resource"), "method": q.get("code_challenge_method")})
        code = secrets.token_urlsafe(16)
        self.codes[code] = {"client_id": q["client_id"], "redirect_uri": redirect, "scopes": scopes,
                            "challenge": q.get("code_challenge"), "resource": q.get("resource")}
        return RedirectResponse(redirect + "?" + urlencode({"code": code, "state": q.get("state", "")}), 302)

    def issue(self, client_id, scopes, resource):
        access, refresh = "at-" + secrets.token_urlsafe(24), "rt-" + secrets.token_urlsafe(24)
        self.tokens[access] = {"client_id": client_id, "scopes": scopes, "resource": resource,
                               "exp": time.time() + self.ttl}
        self.refresh[refresh] = {"client_id": client_id, "scopes": scopes, "resource": resource}
        return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": self.ttl,
                             "refresh_token": refresh, "scope": " ".join(scopes)})

    async def token(self, req):
        f = await req.form()
        if f.get("grant_type") == "authorization_code":
            c = self.codes.pop(f.get("code"), None)
            verifier = f.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            if c is None or c["challenge"] != digest or c["client_id"] != f.get("client_id") \
                    or c["redirect_uri"] != f.get("redirect_uri") or c["resource"] != f.get("resource"):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            self.stats["token_grants"] += 1
            return self.issue(c["client_id"], c["scopes"], c["resource"])
        if f.get("grant_type") == "refresh_token":
            r = self.refresh.pop(f.get("refresh_token"), None)
            if r is None or r["client_id"] != f.get("client_id") or r["resource"] != f.get("resource"):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            self.stats["refreshes"] += 1
            return self.issue(r["client_id"], r["scopes"], r["resource"])
        return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)

    def app(self):
        return Starlette(routes=[
            Route("/.well-known/oauth-authorization-server", self.metadata),
            Route("/register", self.register, methods=["POST"]),
            Route("/authorize", self.authorize),
            Route("/token", self.token, methods=["POST"]),
            Route("/stats", lambda _r: JSONResponse(self.stats)),
        ])


class Verifier:
    def __init__(self, auth):
        self.auth = auth

    async def verify_token(self, token):
        self.auth.stats["presented"] += 1
        t = self.auth.tokens.get(token)
        if t is None:
            return None
        if t["exp"] < time.time():
            self.auth.stats["expired_presented"] += 1
            return None
        return AccessToken(token=token, client_id=t["client_id"], scopes=t["scopes"],
                           expires_at=int(t["exp"]) + 1, resource=t["resource"])


def resource_server(auth, rs_url, socket_):
    settings = AuthSettings(issuer_url=auth.url, resource_server_url=rs_url + "/mcp",
                            required_scopes=["radio:read"], validate_token_resource=True)
    mcp = FastMCP("oauth-radio", token_verifier=Verifier(auth), auth=settings, host="127.0.0.1",
                  port=socket_.getsockname()[1])
    redirect = {"to": None}

    @mcp.tool()
    def whoami() -> str:
        """Who the token says the caller is, and its scopes."""
        t = get_access_token()
        return f"client {t.client_id} scopes {' '.join(t.scopes)}"

    @mcp.tool()
    def top_song(sign: str) -> str:
        """The top song on a radio station."""
        return f"In the end, on {sign}"

    @mcp.custom_route("/control/require", methods=["POST"])
    async def require(req: Request):
        mcp.settings.auth.required_scopes.append(req.query_params["scope"])
        return JSONResponse({"required": mcp.settings.auth.required_scopes})

    @mcp.custom_route("/control/redirect", methods=["POST"])
    async def set_redirect(req: Request):
        redirect["to"] = req.query_params["to"]
        return JSONResponse({"to": redirect["to"]})

    inner = mcp.streamable_http_app()

    async def app(scope, receive, send):
        if scope["type"] == "http" and scope["path"].startswith("/mcp") and redirect["to"]:
            await RedirectResponse(redirect["to"], 307)(scope, receive, send)
            return
        if scope["type"] == "http" and scope["path"] == "/.well-known/oauth-protected-resource/mcp":
            # The SDK's metadata route keeps the scopes it was built with: this one follows a step-up.
            metadata = {"resource": rs_url + "/mcp", "authorization_servers": [auth.url],
                        "scopes_supported": mcp.settings.auth.required_scopes, "bearer_methods_supported": ["header"]}
            await JSONResponse(metadata)(scope, receive, send)
            return
        await inner(scope, receive, send)

    return app


def recorder(rec_url):
    seen = []

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            msg = await receive()
            while msg["type"] != "lifespan.shutdown":
                await send({"type": msg["type"] + ".complete"})
                msg = await receive()
            await send({"type": "lifespan.shutdown.complete"})
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["path"] == "/seen":
            await JSONResponse(seen)(scope, receive, send)
            return
        seen.append({"method": scope["method"], "path": scope["path"],
                     "authorization": headers.get("authorization")})
        challenge = f'Bearer resource_metadata="{rec_url}/.well-known/oauth-protected-resource"'
        await Response("unauthorized", 401, {"www-authenticate": challenge})(scope, receive, send)

    return app


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ttl", type=int, default=3600)
    p.add_argument("--no-dcr", action="store_true")
    a = p.parse_args()
    socks = [bound_socket() for _ in range(3)]
    as_url, rs_url, rec_url = (f"http://127.0.0.1:{s.getsockname()[1]}" for s in socks)
    auth = AuthServer(as_url, a.ttl, not a.no_dcr)
    apps = [auth.app(), resource_server(auth, rs_url, socks[1]), recorder(rec_url)]
    servers = [uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")) for app in apps]
    for s in servers:
        s.install_signal_handlers = lambda: None
    print("PORTS", *(s.getsockname()[1] for s in socks), flush=True)
    await asyncio.gather(*(srv.serve(sockets=[sock]) for srv, sock in zip(servers, socks)))


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
