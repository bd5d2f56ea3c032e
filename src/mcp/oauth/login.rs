//! An OAuth login to one server: [`PendingLogin::begin`] asks the server for its challenge (a
//! request without a token, or with the cached one so that a 403 names the missing scope),
//! discovers the authorization server from it, registers sagedeck (or uses the configured client
//! id) and makes the authorization URL, with PKCE, the `resource` indicator and the scopes: those
//! already granted, the configured ones, those asked for, and the challenge's. Then
//! [`PendingLogin::finish`] waits for the browser's redirect on a loopback port and exchanges the
//! code for tokens, which rmcp saves in the server's token cache.

use std::time::{Duration, Instant};

use oauth2::TokenResponse;
use reqwest::header::{ACCEPT, WWW_AUTHENTICATE};
use rmcp::transport::auth::{AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::{AuthState, TokenCache, auth_state, cache_of, has_static_authorization};
use crate::mcp::registry::{ServerEntry, TransportKind};

/// How long `tools login` waits for the browser's redirect, unless told otherwise.
pub const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(300);
/// Bytes of a redirect request read at most.
const MAX_REQUEST_HEAD: usize = 16 * 1024;

/// What a login asks for besides what the server names.
#[derive(Debug, Clone, Default)]
pub struct LoginOptions {
    /// Extra scopes (`--scope`).
    pub scopes: Vec<String>,
}

/// Why a login did not finish (one line each, with what to do).
#[derive(Debug, Clone, PartialEq)]
pub enum LoginError {
    /// Only streamable HTTP servers log in with OAuth.
    NotHttp,
    /// The registry gives the server an `Authorization` header.
    StaticHeader,
    /// No state directory to keep the token in.
    NoStateDir,
    /// The server answered without a token.
    NotRequired,
    /// The server (or its authorization server) could not be reached.
    Unreachable(String),
    /// Discovery, registration or authorization failed.
    OAuth(String),
    /// Dynamic registration is not offered or failed.
    Registration(String),
    /// The authorization server refused (its `error`, and description when given).
    Denied(String),
    /// No redirect came in time.
    TimedOut(Duration),
    /// The loopback port could not be opened.
    Listen(String),
}

impl std::fmt::Display for LoginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoginError::NotHttp => f.write_str("only streamable HTTP servers log in with OAuth"),
            LoginError::StaticHeader => {
                f.write_str("the registry gives this server an Authorization header: remove it to log in with OAuth")
            }
            LoginError::NoStateDir => {
                f.write_str("no state directory for the token cache (set HOME or XDG_STATE_HOME)")
            }
            LoginError::NotRequired => f.write_str("the server answered without a token: it needs no login"),
            LoginError::Unreachable(m) => write!(f, "cannot reach the server: {m}"),
            LoginError::OAuth(m) => write!(f, "OAuth: {m}"),
            LoginError::Registration(m) => write!(
                f,
                "{m} (register sagedeck with the authorization server and set \"oauth\": {{\"clientId\": \"...\"}} for this server)"
            ),
            LoginError::Denied(m) => write!(f, "the authorization server refused: {m}"),
            LoginError::TimedOut(d) => write!(
                f,
                "no redirect from the browser within {} s: run the login again and open the URL",
                d.as_secs()
            ),
            LoginError::Listen(m) => write!(f, "cannot open a loopback port for the redirect: {m}"),
        }
    }
}

impl std::error::Error for LoginError {}

fn oauth_error(e: AuthError) -> LoginError {
    match e {
        AuthError::RegistrationFailed(m) => LoginError::Registration(m),
        AuthError::DiscoveryRequestFailed { url, .. } => {
            LoginError::Unreachable(format!("discovery request to {url} failed"))
        }
        other => LoginError::OAuth(other.to_string()),
    }
}

/// A step of a login run in the background (the console's login dialog follows these).
#[derive(Debug, Clone, PartialEq)]
pub enum LoginStep {
    /// The authorization URL to open; whether a browser was started at it.
    Open {
        /// The URL.
        url: String,
        /// Whether a browser was handed the URL.
        opened: bool,
    },
    /// Logged in: the state's label (`OAuth: valid until …`).
    Done(String),
    /// Logged out (the token cache deleted).
    LoggedOut,
    /// The login failed: one line saying why and what to do.
    Failed(String),
}

/// What a finished login left.
#[derive(Debug, Clone)]
pub struct LoginResult {
    /// The server's state now (OAuth, valid until …).
    pub state: AuthState,
}

/// A login waiting for the browser's redirect.
pub struct PendingLogin {
    entry: ServerEntry,
    auth_url: String,
    csrf: String,
    session: AuthorizationSession,
    listener: TcpListener,
}

impl std::fmt::Debug for PendingLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingLogin")
            .field("server", &self.entry.name)
            .field("auth_url", &self.auth_url)
            .finish()
    }
}

/// The scopes asked for, step by step: those granted before, the configured ones, those asked
/// on the command line, and what the server names now (`discovered`: its challenge's scope, else
/// its protected-resource metadata's), each once.
fn scopes_for(entry: &ServerEntry, cache: &TokenCache, opts: &LoginOptions, discovered: Vec<String>) -> Vec<String> {
    let mut scopes: Vec<String> = cache.read().map(|c| c.granted_scopes).unwrap_or_default();
    scopes.extend(entry.oauth.scopes.iter().cloned());
    scopes.extend(opts.scopes.iter().cloned());
    scopes.extend(discovered);
    let mut seen = std::collections::HashSet::new();
    scopes.retain(|s| seen.insert(s.clone()));
    scopes
}

/// Asks the server for its challenge: an `initialize` POST with the cached token when there is
/// one. 401/403 give the `WWW-Authenticate` value (None without one: discovery then probes the
/// well-known URLs); a success without a token means no login is needed.
async fn probe(entry: &ServerEntry, cache: &TokenCache) -> Result<Option<String>, LoginError> {
    let url = entry.url.clone().unwrap_or_default();
    let client = crate::mcp::connect::http_client(entry, Duration::from_secs(10))
        .map_err(|e| LoginError::Unreachable(e.to_string()))?;
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "sagedeck", "version": env!("CARGO_PKG_VERSION")}}});
    let mut req = client
        .post(&url)
        .header(ACCEPT, "application/json, text/event-stream")
        .timeout(Duration::from_secs(20))
        .json(&body);
    let token = cache
        .read()
        .and_then(|c| c.token_response)
        .map(|t| t.access_token().secret().clone());
    if let Some(t) = &token {
        req = req.bearer_auth(t);
    }
    let resp = req
        .send()
        .await
        .map_err(|e| LoginError::Unreachable(crate::aws::error::chain_text(&e)))?;
    let status = resp.status();
    let challenge = resp
        .headers()
        .get(WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    match status.as_u16() {
        401 | 403 => Ok(challenge),
        300..=399 => Err(LoginError::Unreachable(format!(
            "HTTP {status}: the server redirects elsewhere (check its `url`)"
        ))),
        _ if status.is_success() && token.is_none() => Err(LoginError::NotRequired),
        _ => Ok(None),
    }
}

/// The `state` parameter of an authorization URL.
fn state_param(url: &str) -> String {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.query_pairs().find(|(k, _)| k == "state").map(|(_, v)| v.into_owned()))
        .unwrap_or_default()
}

impl PendingLogin {
    /// Starts a login to `entry`: challenge, discovery, registration, the authorization URL, and
    /// a loopback port listening for the redirect.
    pub async fn begin(entry: &ServerEntry, opts: &LoginOptions) -> Result<PendingLogin, LoginError> {
        if entry.transport != TransportKind::Http {
            return Err(LoginError::NotHttp);
        }
        if has_static_authorization(entry) {
            return Err(LoginError::StaticHeader);
        }
        let cache = cache_of(entry).ok_or(LoginError::NoStateDir)?;
        let url = entry.url.clone().unwrap_or_default();
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| LoginError::Listen(e.to_string()))?;
        let port = listener
            .local_addr()
            .map_err(|e| LoginError::Listen(e.to_string()))?
            .port();
        let redirect_uri = format!("http://127.0.0.1:{port}/callback");
        let challenge = probe(entry, &cache).await?;
        let mut manager = AuthorizationManager::new(url.as_str()).await.map_err(oauth_error)?;
        let resolution = manager
            .resolve_metadata_from_challenge(challenge.as_deref())
            .await
            .map_err(oauth_error)?;
        if !resolution.source.is_discovered() {
            return Err(LoginError::OAuth(
                "the server publishes no protected-resource or authorization-server metadata".into(),
            ));
        }
        manager.set_metadata(resolution.metadata);
        let scopes = scopes_for(entry, &cache, opts, manager.select_scopes(None, &[]));
        manager.set_credential_store(cache);
        let mut request = AuthorizationRequest::new(redirect_uri).with_client_name("sagedeck");
        if let Some(id) = &entry.oauth.client_id {
            request = request.with_preregistered_client(id.clone());
            if let Some(secret) = &entry.oauth.client_secret {
                request = request.with_client_secret(secret.expose());
            }
        }
        if !scopes.is_empty() {
            request = request.with_scopes(scopes);
        }
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, e)| oauth_error(e))?;
        let auth_url = session.get_authorization_url().to_string();
        Ok(PendingLogin {
            entry: entry.clone(),
            csrf: state_param(&auth_url),
            auth_url,
            session,
            listener,
        })
    }

    /// The URL to open in a browser.
    pub fn url(&self) -> &str {
        &self.auth_url
    }

    /// The server's registry name.
    pub fn server(&self) -> &str {
        &self.entry.name
    }

    /// Waits (up to `timeout`) for the redirect carrying this login's `state`, answers the
    /// browser with a page saying how it went, and exchanges the code for tokens (saved in the
    /// cache). Requests to other paths, or with another `state`, are answered and ignored.
    pub async fn finish(self, timeout: Duration) -> Result<LoginResult, LoginError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let accepted = tokio::time::timeout(left, self.listener.accept()).await;
            let Ok(Ok((mut stream, _))) = accepted else {
                return Err(LoginError::TimedOut(timeout));
            };
            let Some(target) = read_target(&mut stream).await else {
                respond(&mut stream, 404, "Not found").await;
                continue;
            };
            let port = self.listener.local_addr().map(|a| a.port()).unwrap_or(0);
            let full = format!("http://127.0.0.1:{port}{target}");
            let params: Vec<(String, String)> = reqwest::Url::parse(&full)
                .map(|u| u.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect())
                .unwrap_or_default();
            let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
            if get("state").as_deref() != Some(self.csrf.as_str()) {
                respond(
                    &mut stream,
                    400,
                    "This is not the redirect of the login sagedeck started.",
                )
                .await;
                continue;
            }
            if let Some(error) = get("error") {
                let why = match get("error_description") {
                    Some(d) => format!("{error}: {d}"),
                    None => error,
                };
                respond(
                    &mut stream,
                    200,
                    "sagedeck: the login was refused. You can close this tab.",
                )
                .await;
                return Err(LoginError::Denied(why));
            }
            let done = self
                .session
                .handle_callback_url(&full)
                .await
                .map(drop)
                .map_err(oauth_error);
            let page = match &done {
                Ok(()) => "sagedeck: logged in. You can close this tab.",
                Err(_) => "sagedeck: the login failed; the terminal says why. You can close this tab.",
            };
            respond(&mut stream, 200, page).await;
            done?;
            return Ok(LoginResult {
                state: auth_state(&self.entry),
            });
        }
    }
}

/// The request target of a `GET /callback?...` (None for anything else, or a broken request).
async fn read_target(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 2048];
    let read = async {
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < MAX_REQUEST_HEAD {
            let n = stream.read(&mut chunk).await.ok()?;
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        Some(())
    };
    tokio::time::timeout(Duration::from_secs(10), read).await.ok()??;
    let head = String::from_utf8_lossy(&buf);
    let mut parts = head.lines().next()?.split_whitespace();
    let (method, target) = (parts.next()?, parts.next()?);
    let path = target.split('?').next().unwrap_or_default();
    (method == "GET" && path == "/callback").then(|| target.to_string())
}

async fn respond(stream: &mut TcpStream, status: u16, text: &str) {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        _ => "Not Found",
    };
    let body = format!("<!doctype html><title>sagedeck</title><p>{text}</p>\n");
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(format!("{head}{body}").as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Follows the authorization URL of an authorization server that approves at once (`sagedeck
/// demo`'s own, on loopback) as a browser would: its redirect to this login's loopback port
/// then finishes the login. Refused for any other URL than a loopback `http://127.0.0.1` one;
/// whether the authorization server answered.
pub async fn follow_approving(url: &str) -> bool {
    let loopback = reqwest::Url::parse(url).is_ok_and(|u| u.scheme() == "http" && u.host_str() == Some("127.0.0.1"));
    let Ok(client) = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::limited(2))
        .timeout(Duration::from_secs(30))
        .build()
    else {
        return false;
    };
    loopback && client.get(url).send().await.is_ok()
}

/// How a login hands its URL over: followed for the demo's own authorization server, else
/// opened in a browser when there is one (`browser` false: never); whether it was handed over.
pub fn hand_over(entry: &ServerEntry, url: &str, browser: bool) -> bool {
    if entry.oauth.approves_at_once {
        let url = url.to_string();
        tokio::spawn(async move { follow_approving(&url).await });
        return true;
    }
    browser && open_browser(url)
}

/// Opens `url` in the user's browser when there is one (a graphical session, or `$BROWSER`);
/// whether it was handed to one. Never starts a text browser on the terminal.
pub fn open_browser(url: &str) -> bool {
    let graphical = cfg!(target_os = "macos")
        || ["DISPLAY", "WAYLAND_DISPLAY", "BROWSER"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
    graphical && webbrowser::open(url).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_accumulate() {
        let dir = tempfile::tempdir().unwrap();
        let mut entry = crate::mcp::registry::demo_entry(std::path::Path::new("x"), "http://e");
        entry.oauth.scopes = vec!["b".into(), "a".into()];
        let cache = TokenCache::in_dir(dir.path(), "s", "http://h/mcp");
        let opts = LoginOptions {
            scopes: vec!["c".into(), "a".into()],
        };
        assert_eq!(
            scopes_for(&entry, &cache, &opts, vec!["d".into(), "b".into()]),
            ["b", "a", "c", "d"]
        );
        assert_eq!(
            state_param("http://as/authorize?client_id=x&state=abc%3D&scope=a"),
            "abc="
        );
    }

    #[tokio::test]
    async fn callback_requests() {
        let l = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let addr = l.local_addr().unwrap();
        let send = |req: &'static str| async move {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(req.as_bytes()).await.unwrap();
            let mut out = String::new();
            let _ = s.read_to_string(&mut out).await;
            out
        };
        for (req, want) in [
            (
                "GET /callback?code=1&state=2 HTTP/1.1\r\nHost: x\r\n\r\n",
                Some("/callback?code=1&state=2"),
            ),
            ("GET /favicon.ico HTTP/1.1\r\n\r\n", None),
            ("POST /callback HTTP/1.1\r\n\r\n", None),
        ] {
            let client = tokio::spawn(send(req));
            let (mut s, _) = l.accept().await.unwrap();
            assert_eq!(read_target(&mut s).await.as_deref(), want, "{req}");
            respond(&mut s, 200, "ok").await;
            assert!(client.await.unwrap().starts_with("HTTP/1.1 200 OK"));
        }
    }
}
