//! Opening a transport to a configured server, and explaining in one line why it failed:
//! command not found, exited with code N and its last stderr lines, HTTP 401 (token?), 404/405
//! (wrong transport?), nothing listening, timeout.

use std::fmt;
use std::process::Stdio;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::events::{LogSource, ServerLog};
use super::registry::{ServerEntry, TransportKind};
use super::transport_sse::SseError;
use rmcp::service::ClientInitializeError;
use rmcp::transport::auth::{AuthError, WWWAuthenticateParams};
use rmcp::transport::streamable_http_client::StreamableHttpError;

/// Standard-error lines quoted when a child exits during the handshake.
pub const STDERR_LINES_SHOWN: usize = 5;

/// Why a server could not be connected.
#[derive(Debug, Clone, PartialEq)]
pub enum ConnectError {
    /// The stdio command is not on PATH (or the path does not exist).
    CommandNotFound {
        /// The command.
        command: String,
    },
    /// The command could not be started for another reason.
    Spawn {
        /// The command.
        command: String,
        /// The OS error.
        error: String,
    },
    /// The child exited before the handshake finished.
    Exited {
        /// Exit code (None: killed by a signal).
        code: Option<i32>,
        /// Its last stderr lines.
        stderr: Vec<String>,
    },
    /// HTTP 401/403.
    Unauthorized {
        /// The status.
        status: u16,
    },
    /// HTTP 401 with a Bearer challenge (no OAuth token, or one that can no longer be renewed),
    /// or 403 `insufficient_scope`: `sagedeck tools login SERVER` is what to do.
    LoginRequired {
        /// The server's registry name (filled in by the connection).
        server: String,
        /// 401 or 403.
        status: u16,
        /// The scope the challenge names, when it names one.
        scope: Option<String>,
    },
    /// HTTP 404/405 (or a non-event-stream answer): probably the wrong transport.
    WrongTransport {
        /// What happened.
        detail: String,
        /// The transport that was tried.
        tried: TransportKind,
    },
    /// Nothing answered at the URL.
    Unreachable {
        /// The reason.
        detail: String,
    },
    /// The handshake did not finish in time.
    Timeout {
        /// The limit.
        after: Duration,
        /// Last stderr lines of a stdio child, if any.
        stderr: Vec<String>,
    },
    /// The configuration cannot be used (bad header, bad URL).
    Config(String),
    /// The peer answered, but not an MCP handshake.
    Protocol(String),
    /// The peer asked for something refused for safety (another origin, an oversized event).
    Refused(String),
}

impl ConnectError {
    /// Short class name (`command_not_found`, `exited`, `unauthorized`, ...), as in `--json`.
    pub fn class(&self) -> &'static str {
        match self {
            ConnectError::CommandNotFound { .. } => "command_not_found",
            ConnectError::Spawn { .. } => "spawn_failed",
            ConnectError::Exited { .. } => "exited",
            ConnectError::Unauthorized { .. } => "unauthorized",
            ConnectError::LoginRequired { .. } => "login_required",
            ConnectError::WrongTransport { .. } => "wrong_transport",
            ConnectError::Unreachable { .. } => "unreachable",
            ConnectError::Timeout { .. } => "timeout",
            ConnectError::Config(_) => "config",
            ConnectError::Protocol(_) => "protocol",
            ConnectError::Refused(_) => "refused",
        }
    }
}

/// `; stderr: a | b` for the server's last stderr lines (empty when there are none).
pub(super) fn stderr_suffix(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("; stderr: {}", lines.join(" | "))
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::CommandNotFound { command } => {
                write!(f, "command not found: `{command}` (not on PATH? give the full path)")
            }
            ConnectError::Spawn { command, error } => write!(f, "cannot start `{command}`: {error}"),
            ConnectError::Exited { code: Some(c), stderr } => {
                write!(
                    f,
                    "the server exited with code {c} during the handshake{}",
                    stderr_suffix(stderr)
                )
            }
            ConnectError::Exited { code: None, stderr } => {
                write!(
                    f,
                    "the server was killed by a signal during the handshake{}",
                    stderr_suffix(stderr)
                )
            }
            ConnectError::Unauthorized { status } => write!(
                f,
                "HTTP {status}: unauthorized (token? set \"headers\": {{\"Authorization\": \"Bearer ${{TOKEN}}\"}})"
            ),
            ConnectError::LoginRequired { server, status, scope } => {
                let name = if server.is_empty() { "SERVER" } else { server };
                match (status, scope) {
                    (403, Some(scope)) => write!(
                        f,
                        "HTTP 403: the OAuth token lacks scope `{scope}`: run `sagedeck tools login {name}` to ask for it"
                    ),
                    (403, None) => write!(
                        f,
                        "HTTP 403: the OAuth token lacks a scope the server requires: run `sagedeck tools login {name}` to ask for it"
                    ),
                    _ => write!(
                        f,
                        "HTTP {status}: the server asks for an OAuth login: run `sagedeck tools login {name}`"
                    ),
                }
            }
            ConnectError::WrongTransport { detail, tried } => {
                let other = match tried {
                    TransportKind::Sse => "\"transport\": \"http\"",
                    _ => "\"transport\": \"sse\" (legacy servers serve GET /sse)",
                };
                write!(f, "{detail} (wrong transport? try {other})")
            }
            ConnectError::Unreachable { detail } => write!(f, "cannot reach the server: {detail}"),
            ConnectError::Timeout { after, stderr } => write!(
                f,
                "no MCP handshake within {:.1} s{}",
                after.as_secs_f64(),
                stderr_suffix(stderr)
            ),
            ConnectError::Config(m) => write!(f, "configuration: {m}"),
            ConnectError::Protocol(m) => write!(f, "not an MCP handshake: {m}"),
            ConnectError::Refused(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ConnectError {}

/// A started stdio child: its pipes, and the process to reap.
pub struct SpawnedChild {
    /// The process (killed on drop).
    pub child: Child,
    /// Its stdout (JSON-RPC in).
    pub stdout: ChildStdout,
    /// Its stdin (JSON-RPC out).
    pub stdin: ChildStdin,
    /// The task copying its stderr into the server log (ends at EOF).
    pub stderr_task: tokio::task::JoinHandle<()>,
}

/// Starts the stdio child of `entry` with stdin/stdout piped and stderr captured into `log`
/// (never the terminal). The child inherits the environment plus the entry's `env`.
pub fn spawn_stdio(entry: &ServerEntry, log: &ServerLog) -> Result<SpawnedChild, ConnectError> {
    let command = entry.command.clone().unwrap_or_default();
    let mut cmd = tokio::process::Command::new(&command);
    cmd.args(&entry.args)
        .envs(entry.env.iter().map(|(k, v)| (k, v.expose())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = &entry.cwd {
        cmd.current_dir(cwd);
    }
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ConnectError::CommandNotFound {
            command: command.clone(),
        },
        _ => ConnectError::Spawn {
            command: command.clone(),
            error: e.to_string(),
        },
    })?;
    let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(ConnectError::Spawn {
            command,
            error: "its standard streams could not be piped".into(),
        });
    };
    let log = log.clone();
    let stderr_task = tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            log.push(LogSource::Stderr, line);
        }
    });
    Ok(SpawnedChild {
        child,
        stdout,
        stdin,
        stderr_task,
    })
}

/// After a failed handshake: the child's exit (waiting up to `grace`) and its stderr tail.
pub async fn explain_child_failure(
    child: &mut Child,
    stderr_task: &mut tokio::task::JoinHandle<()>,
    log: &ServerLog,
    grace: Duration,
) -> Option<ConnectError> {
    let status = tokio::time::timeout(grace, child.wait()).await.ok()?.ok()?;
    // Give the stderr copier a moment to drain what the child wrote before exiting.
    let _ = tokio::time::timeout(Duration::from_millis(500), stderr_task).await;
    Some(ConnectError::Exited {
        code: status.code(),
        stderr: log.stderr_tail(STDERR_LINES_SHOWN),
    })
}

/// An HTTP client carrying the entry's headers on every request (values marked sensitive).
pub fn http_client(entry: &ServerEntry, connect_timeout: Duration) -> Result<reqwest::Client, ConnectError> {
    let mut headers = HeaderMap::new();
    for (k, v) in &entry.headers {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| ConnectError::Config(format!("`{k}` is not a valid header name")))?;
        let mut value = HeaderValue::from_str(v.expose())
            .map_err(|_| ConnectError::Config(format!("the value of header `{k}` is not valid in HTTP")))?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    reqwest::Client::builder()
        .default_headers(headers)
        .redirect(same_origin_redirects())
        .connect_timeout(connect_timeout)
        .build()
        .map_err(|e| ConnectError::Config(crate::aws::error::chain_text(&e)))
}

/// Follows a redirect only within the origin of the request (so configured headers such as
/// `X-Api-Key` never reach another origin); a redirect elsewhere is answered as its 3xx status.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(|u| u.origin());
        if first != Some(attempt.url().origin()) {
            attempt.stop()
        } else if attempt.previous().len() > 5 {
            attempt.error("more than 5 redirects")
        } else {
            attempt.follow()
        }
    })
}

/// Makes an unreachable-server error precise by trying a TCP connection to the URL's host.
pub async fn refine_unreachable(e: ConnectError, url: &str) -> ConnectError {
    let ConnectError::Unreachable { .. } = e else {
        return e;
    };
    let Some((host, port)) = reqwest::Url::parse(url)
        .ok()
        .and_then(|u| Some((u.host_str()?.to_string(), u.port_or_known_default()?)))
    else {
        return e;
    };
    let why = match tokio::time::timeout(
        Duration::from_secs(2),
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await
    {
        Err(_) => "connect timed out".to_string(),
        Ok(Err(err)) if err.kind() == std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
        Ok(Err(err)) => err.to_string(),
        Ok(Ok(_)) => return e,
    };
    ConnectError::Unreachable {
        detail: format!("nothing answers at {url} ({why})"),
    }
}

/// What an HTTP status says about a connection attempt over `tried`, when it says something.
fn from_status(status: u16, tried: TransportKind) -> Option<ConnectError> {
    match status {
        401 | 403 => Some(ConnectError::Unauthorized { status }),
        404 | 405 => Some(ConnectError::WrongTransport {
            detail: format!("HTTP {status}"),
            tried,
        }),
        // A streamable HTTP endpoint refuses a bare GET (400 no session, 406 not acceptable).
        400 | 406 | 415 if tried == TransportKind::Sse => Some(ConnectError::WrongTransport {
            detail: format!("HTTP {status} to the event-stream GET"),
            tried,
        }),
        _ => None,
    }
}

/// Explains a failed HTTP request to `url`: nothing listening or too slow, or its status.
async fn explain_request(e: &reqwest::Error, url: &str, tried: TransportKind) -> ConnectError {
    if e.is_connect() || e.is_timeout() {
        let unreachable = ConnectError::Unreachable {
            detail: format!("nothing answers at {url} ({})", crate::aws::error::chain_text(e)),
        };
        return refine_unreachable(unreachable, url).await;
    }
    e.status()
        .and_then(|s| from_status(s.as_u16(), tried))
        .unwrap_or_else(|| ConnectError::Protocol(crate::aws::error::chain_text(e)))
}

/// Explains a failed legacy SSE connection from the error's type.
pub async fn explain_sse_failure(e: &SseError, url: &str) -> ConnectError {
    let tried = TransportKind::Sse;
    match e {
        SseError::Url(u) => ConnectError::Config(format!("`url` {u} is not a valid URL")),
        SseError::Http(err) => explain_request(err, url, tried).await,
        SseError::Status { status } => {
            from_status(*status, tried).unwrap_or_else(|| ConnectError::Protocol(e.to_string()))
        }
        SseError::NotEventStream(_) => ConnectError::WrongTransport {
            detail: e.to_string(),
            tried,
        },
        SseError::ForeignEndpoint { .. } | SseError::TooLarge(_) => ConnectError::Refused(e.to_string()),
        _ => ConnectError::Protocol(e.to_string()),
    }
}

/// A 401 or 403 challenge: a Bearer challenge (RFC 6750) that names the protected-resource
/// metadata (RFC 9728, as OAuth-protected MCP servers do), or a 403 `insufficient_scope`, asks
/// for an OAuth login; any other (a bare `Bearer` of a static-token server) is a plain
/// authorization failure.
fn challenge_error(challenge: &str, url: &str) -> ConnectError {
    let bearer = challenge
        .trim_start()
        .get(..6)
        .is_some_and(|s| s.eq_ignore_ascii_case("bearer"));
    let base = reqwest::Url::parse(url).ok();
    let params = base
        .map(|b| WWWAuthenticateParams::parse(challenge, &b))
        .unwrap_or_default();
    let status = if params.is_insufficient_scope() { 403 } else { 401 };
    if !bearer || (params.resource_metadata_url.is_none() && status == 401) {
        return ConnectError::Unauthorized { status };
    }
    ConnectError::LoginRequired {
        server: String::new(),
        status,
        scope: params.scope,
    }
}

/// Explains a failed MCP handshake over HTTP (streamable, or legacy SSE once its endpoint is
/// known) from the error's type: the transport's own error inside rmcp's.
pub async fn explain_handshake_failure(e: &ClientInitializeError, url: &str, tried: TransportKind) -> ConnectError {
    // The `server/discover` probe and the `initialize` after it both failed: the second says
    // what is wrong with the server (the first only that it is not a 2026-07-28 one), unless
    // it has nothing more precise to say.
    if let ClientInitializeError::LegacyFallbackFailed { discover, fallback } = e {
        let why = Box::pin(explain_handshake_failure(fallback, url, tried)).await;
        if why.class() != "protocol" {
            return why;
        }
        return Box::pin(explain_handshake_failure(discover, url, tried)).await;
    }
    let text = || crate::aws::error::chain_text(e);
    let ClientInitializeError::TransportError { error, .. } = e else {
        return ConnectError::Protocol(text());
    };
    let inner = error.error.as_ref();
    if let Some(sse) = inner.downcast_ref::<SseError>() {
        return explain_sse_failure(sse, url).await;
    }
    let Some(http) = inner.downcast_ref::<StreamableHttpError<reqwest::Error>>() else {
        return ConnectError::Protocol(text());
    };
    match http {
        StreamableHttpError::AuthRequired(_) | StreamableHttpError::InsufficientScope(_) => {
            challenge_error(http.auth_challenge().unwrap_or_default(), url)
        }
        StreamableHttpError::Auth(AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_)) => {
            ConnectError::LoginRequired {
                server: String::new(),
                status: 401,
                scope: None,
            }
        }
        StreamableHttpError::Auth(e) => ConnectError::Protocol(format!("OAuth: {e}")),
        StreamableHttpError::HttpStatus(s) => {
            from_status(s.status, tried).unwrap_or_else(|| ConnectError::Protocol(text()))
        }
        StreamableHttpError::Client(re) => explain_request(re, url, tried).await,
        StreamableHttpError::UnexpectedContentType(_) => ConnectError::WrongTransport {
            detail: http.to_string(),
            tried,
        },
        // rmcp reports other statuses as "HTTP <code> <reason>: <body>".
        StreamableHttpError::UnexpectedServerResponse(m) => m
            .strip_prefix("HTTP ")
            .and_then(|rest| rest.get(..3)?.parse::<u16>().ok())
            .and_then(|s| from_status(s, tried))
            .unwrap_or_else(|| ConnectError::Protocol(text())),
        _ => ConnectError::Protocol(text()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::transport::DynamicTransportError;
    use rmcp::transport::streamable_http_client::AuthRequiredError;

    fn failed(e: StreamableHttpError<reqwest::Error>) -> ClientInitializeError {
        ClientInitializeError::TransportError {
            error: DynamicTransportError::from_parts("http", std::any::TypeId::of::<()>(), Box::new(e)),
            context: "send initialize request".into(),
        }
    }

    #[tokio::test]
    async fn handshake_failures_are_classified_by_type() {
        let http = TransportKind::Http;
        for challenge in ["Basic realm=\"x\"", "Bearer"] {
            let auth = failed(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                challenge.into(),
            )));
            let e = explain_handshake_failure(&auth, "http://h/mcp", http).await;
            assert_eq!(e, ConnectError::Unauthorized { status: 401 }, "{challenge}");
        }
        let oauth = failed(StreamableHttpError::AuthRequired(AuthRequiredError::new(
            r#"Bearer resource_metadata="http://h/.well-known/oauth-protected-resource""#.into(),
        )));
        let e = explain_handshake_failure(&oauth, "http://h/mcp", http).await;
        assert_eq!(e.class(), "login_required");
        assert!(e.to_string().contains("sagedeck tools login SERVER"), "{e}");
        let gone = failed(StreamableHttpError::UnexpectedServerResponse(
            "HTTP 405 Method Not Allowed: x".into(),
        ));
        let e = explain_handshake_failure(&gone, "http://h/mcp", http).await;
        assert!(e.to_string().contains("try \"transport\": \"sse\""), "{e}");
        let text_only = failed(StreamableHttpError::UnexpectedServerResponse(
            "status 401 and refused".into(),
        ));
        let e = explain_handshake_failure(&text_only, "u", http).await;
        assert_eq!(e.class(), "protocol", "words in a message are not a status");
        let e = explain_sse_failure(&SseError::Status { status: 403 }, "u").await;
        assert_eq!(e, ConnectError::Unauthorized { status: 403 });
    }

    #[test]
    fn lines() {
        let e = ConnectError::Exited {
            code: Some(3),
            stderr: vec!["Traceback".into(), "ImportError: no mcp".into()],
        };
        assert_eq!(
            e.to_string(),
            "the server exited with code 3 during the handshake; stderr: Traceback | ImportError: no mcp"
        );
        assert!(!e.to_string().contains('\n'));
    }
}
