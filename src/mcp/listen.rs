//! `sagedeck mcp serve --http`: a server (the tool server) on streamable HTTP at `/mcp`, with the bearer
//! token it may require, the browser origins and hosts it accepts (see `origin.rs`), and
//! sessions ended by DELETE as the specification says.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::origin::own_origins;

/// What can be served: a server handler cloned into each session (`mcp serve`'s `ToolServer`).
pub trait Served: rmcp::ServerHandler + Clone + Send + Sync + 'static {}

impl<S: rmcp::ServerHandler + Clone + Send + Sync + 'static> Served for S {}

/// A running streamable HTTP server.
pub struct HttpServerHandle {
    /// The bound address.
    pub addr: SocketAddr,
    ct: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl HttpServerHandle {
    /// `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stops serving.
    pub async fn shutdown(self) {
        self.ct.cancel();
        let _ = self.task.await;
    }

    /// Serves until the task ends (Ctrl-C handling is the caller's).
    pub async fn wait(self) {
        let _ = self.task.await;
    }
}

/// Whether `headers` carry `Authorization: Bearer TOKEN` (the scheme in any case, RFC 7235).
fn authorized(headers: &HeaderMap, token: &str) -> bool {
    let Some((scheme, got)) = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
    else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return false;
    }
    // Constant-time comparison.
    let (a, b) = (got.trim().as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Who may reach `mcp serve --http`.
#[derive(Debug, Clone, Default)]
pub struct HttpAccess {
    /// Every request must carry `Authorization: Bearer TOKEN`.
    pub token: Option<String>,
    /// Browser origins allowed besides the server's own (see [`own_origins`]).
    pub allow_origins: Vec<String>,
}

/// Answers a session DELETE as the MCP spec says: 404 for a session the server does not know,
/// 204 once it is terminated (the transport itself answers 202).
async fn terminate_session(
    sessions: Arc<LocalSessionManager>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use rmcp::transport::streamable_http_server::SessionManager;
    if req.method() != axum::http::Method::DELETE {
        return next.run(req).await;
    }
    let id = req
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(std::sync::Arc::<str>::from);
    if let Some(id) = id
        && !sessions.has_session(&id).await.unwrap_or(false)
    {
        return (StatusCode::NOT_FOUND, "no such session\n").into_response();
    }
    let mut resp = next.run(req).await;
    if resp.status() == StatusCode::ACCEPTED {
        *resp.status_mut() = StatusCode::NO_CONTENT;
        *resp.body_mut() = axum::body::Body::empty();
    }
    resp
}

/// Serves streamable HTTP at `/mcp` on `addr`; with `token`, every request must carry
/// `Authorization: Bearer TOKEN` (else 401). Hosts other than loopback are accepted only when
/// `addr` itself is not loopback (the caller asked for it explicitly); browser origins other than
/// the server's own are refused (403).
pub async fn serve_http(
    server: impl Served,
    addr: SocketAddr,
    token: Option<String>,
) -> std::io::Result<HttpServerHandle> {
    let access = HttpAccess {
        token,
        allow_origins: vec![],
    };
    serve_http_with(server, addr, access).await
}

/// [`serve_http`] with the origins of `access.allow_origins` allowed too.
pub async fn serve_http_with(
    server: impl Served,
    addr: SocketAddr,
    access: HttpAccess,
) -> std::io::Result<HttpServerHandle> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let ct = CancellationToken::new();
    let token = access.token.map(Arc::new);
    let guard = axum::middleware::from_fn(move |req: axum::extract::Request, next: axum::middleware::Next| {
        let token = token.clone();
        async move {
            match &token {
                Some(t) if !authorized(req.headers(), t) => (
                    StatusCode::UNAUTHORIZED,
                    [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
                    "missing or wrong bearer token\n",
                )
                    .into_response(),
                _ => next.run(req).await,
            }
        }
    });
    let app = mcp_router(server, addr, &ct, access.allow_origins)
        .layer(guard)
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found; the MCP endpoint is /mcp\n").into_response() });
    let task = spawn_serve(listener, app, &ct);
    Ok(HttpServerHandle { addr, ct, task })
}

/// The streamable HTTP service at `/mcp` of a server bound to `addr`: browser origins other than
/// its own and `allow_origins` refused, hosts other than loopback accepted only when `addr` is
/// not loopback, sessions ended by DELETE as the spec says; it stops with `ct`.
pub fn mcp_router<S: Served>(
    server: S,
    addr: SocketAddr,
    ct: &CancellationToken,
    allow_origins: Vec<String>,
) -> axum::Router {
    let origins = own_origins(addr).into_iter().chain(allow_origins);
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(ct.child_token())
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    if !addr.ip().is_loopback() {
        config = config.disable_allowed_hosts();
    }
    let sessions = Arc::new(LocalSessionManager::default());
    let service: StreamableHttpService<S, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), config);
    let deletes = axum::middleware::from_fn(move |req, next| terminate_session(sessions.clone(), req, next));
    axum::Router::new().nest_service("/mcp", service).layer(deletes)
}

/// Serves `app` on `listener` until `ct` is cancelled.
pub fn spawn_serve(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    ct: &CancellationToken,
) -> tokio::task::JoinHandle<()> {
    let stop = ct.clone();
    tokio::spawn(async move {
        // Answers stream as several small writes: without TCP_NODELAY, Nagle's algorithm and
        // the client's delayed ACK add ~40 ms to every call.
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await;
    })
}
