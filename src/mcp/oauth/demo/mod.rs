//! `sagedeck demo`'s OAuth-protected MCP server, `sagedeck-demo-oauth`: the demo tools over
//! streamable HTTP on loopback, protected as the MCP authorization spec says, with a small
//! authorization server of its own on another loopback port ([`issuer`]). A request without a
//! valid token gets 401 and `WWW-Authenticate: Bearer resource_metadata="…"`; the
//! protected-resource metadata (RFC 9728) names the authorization server; tokens are random, live
//! [`grants::ACCESS_TTL`] (so a refresh shows), carry the scope [`grants::SCOPE`] and are checked
//! here. Everything lives in memory for the demo's life.

pub mod grants;
pub mod issuer;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::mcp::registry::{OAuthSettings, ServerEntry, TransportKind};
use crate::mcp::server::{ToolServer, mcp_router, spawn_serve};
use grants::{Grants, SCOPE, Verdict};

/// The demo entry's name.
pub const SERVER_NAME: &str = "sagedeck-demo-oauth";

/// The running resource and authorization servers.
pub struct DemoOAuthServer {
    /// The MCP server's address (`/mcp`).
    pub resource_addr: SocketAddr,
    /// The authorization server's address.
    pub issuer_addr: SocketAddr,
    /// Clients, codes and tokens (read by tests).
    pub grants: Arc<Grants>,
    ct: CancellationToken,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl DemoOAuthServer {
    /// Starts both servers on free loopback ports: `server`'s tools behind OAuth, access tokens
    /// living `ttl`.
    pub async fn start(server: ToolServer, ttl: Duration) -> std::io::Result<DemoOAuthServer> {
        let rs = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let is = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let (resource_addr, issuer_addr) = (rs.local_addr()?, is.local_addr()?);
        let resource = format!("http://{resource_addr}/mcp");
        let grants = Arc::new(Grants::new(resource.clone(), ttl));
        let ct = CancellationToken::new();
        let issuer = issuer::Issuer {
            url: format!("http://{issuer_addr}"),
            grants: grants.clone(),
        };
        let guard = Guard {
            grants: grants.clone(),
            resource,
            issuer: issuer.url.clone(),
        };
        let app = resource_router(server, resource_addr, &ct, guard);
        let tasks = vec![spawn_serve(rs, app, &ct), spawn_serve(is, issuer::router(issuer), &ct)];
        Ok(DemoOAuthServer {
            resource_addr,
            issuer_addr,
            grants,
            ct,
            tasks,
        })
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.resource_addr)
    }

    /// `http://127.0.0.1:PORT` of the authorization server.
    pub fn issuer_url(&self) -> String {
        format!("http://{}", self.issuer_addr)
    }

    /// The registry entry the demo adds: its URL, and the authorization server marked as the
    /// demo's own, which approves at once (the login follows the URL itself).
    pub fn entry(&self) -> ServerEntry {
        ServerEntry {
            name: SERVER_NAME.into(),
            transport: TransportKind::Http,
            command: None,
            args: vec![],
            env: Default::default(),
            cwd: None,
            url: Some(self.url()),
            headers: Default::default(),
            oauth: OAuthSettings {
                approves_at_once: true,
                ..Default::default()
            },
        }
    }

    /// Stops both servers.
    pub async fn shutdown(self) {
        self.ct.cancel();
        for t in self.tasks {
            let _ = t.await;
        }
    }
}

/// What the resource server checks against.
#[derive(Clone)]
struct Guard {
    grants: Arc<Grants>,
    resource: String,
    issuer: String,
}

impl Guard {
    fn metadata_url(&self) -> String {
        let origin = self.resource.trim_end_matches("/mcp");
        format!("{origin}/.well-known/oauth-protected-resource/mcp")
    }

    /// 401 (no token, or an invalid one) or 403 (the scope missing), with the Bearer challenge.
    fn challenge(&self, status: StatusCode, error: Option<&str>) -> Response {
        let mut value = format!(r#"Bearer resource_metadata="{}", scope="{SCOPE}""#, self.metadata_url());
        if let Some(e) = error {
            value.push_str(&format!(r#", error="{e}""#));
        }
        let text = match status {
            StatusCode::FORBIDDEN => "the token lacks the scope tools:call\n",
            _ => "log in: this MCP server is protected by OAuth 2.1\n",
        };
        (status, [(header::WWW_AUTHENTICATE, value)], text).into_response()
    }

    fn verdict(&self, headers: &HeaderMap) -> Response {
        let bearer = (headers.get(header::AUTHORIZATION))
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim().to_string());
        let Some(token) = bearer else {
            return self.challenge(StatusCode::UNAUTHORIZED, None);
        };
        match self.grants.check(&token) {
            Verdict::Valid => StatusCode::OK.into_response(),
            Verdict::Invalid => self.challenge(StatusCode::UNAUTHORIZED, Some("invalid_token")),
            Verdict::InsufficientScope => self.challenge(StatusCode::FORBIDDEN, Some("insufficient_scope")),
        }
    }
}

/// The MCP service behind the token check, and the protected-resource metadata at both the
/// path RFC 9728 derives from `/mcp` and the bare well-known path.
fn resource_router(server: ToolServer, addr: SocketAddr, ct: &CancellationToken, guard: Guard) -> axum::Router {
    let check = guard.clone();
    let layer = axum::middleware::from_fn(move |req: axum::extract::Request, next: axum::middleware::Next| {
        let check = check.clone();
        async move {
            let verdict = check.verdict(req.headers());
            if verdict.status() != StatusCode::OK {
                return verdict;
            }
            next.run(req).await
        }
    });
    let metadata = json!({
        "resource": guard.resource,
        "authorization_servers": [guard.issuer],
        "scopes_supported": [SCOPE],
        "bearer_methods_supported": ["header"],
        "resource_name": "sagedeck demo tools (OAuth)",
    });
    let prm = move || {
        let m = metadata.clone();
        async move { axum::Json(m) }
    };
    let wk = axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            axum::routing::get(prm.clone()),
        )
        .route("/.well-known/oauth-protected-resource", axum::routing::get(prm));
    mcp_router(server, addr, ct, vec![])
        .layer(layer)
        .merge(wk)
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found; the MCP endpoint is /mcp\n").into_response() })
}
