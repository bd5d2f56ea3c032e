//! The legacy HTTP+SSE transport (MCP 2024-11-05), as FastMCP's `mcp.run(transport="sse")`
//! serves it and rmcp no longer speaks it: GET the event stream, wait for the `endpoint` event,
//! POST each JSON-RPC message to the URL it names, and read every answer from the stream.

use std::borrow::Cow;
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::Url;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use sse_stream::SseStream;
use tokio::sync::mpsc;

/// The largest SSE line or event accepted, in bytes: a longer one ends the stream with an error
/// instead of being buffered whole.
pub const MAX_SSE_EVENT_BYTES: usize = 4 * 1024 * 1024;

/// Why the SSE transport failed.
#[derive(Debug, thiserror::Error)]
pub enum SseError {
    /// The URL does not parse.
    #[error("invalid URL {0}")]
    Url(String),
    /// Connecting or sending failed.
    #[error("{}", crate::aws::error::chain_text(.0))]
    Http(#[source] reqwest::Error),
    /// The server answered the GET (or a POST) with a non-success status.
    #[error("HTTP {status}{}", hint(*.status))]
    Status {
        /// The status code.
        status: u16,
    },
    /// The GET answered something else than an event stream.
    #[error("the server answered {0} instead of an event stream (wrong transport? try \"transport\": \"http\")")]
    NotEventStream(String),
    /// No `endpoint` event arrived in time.
    #[error("no `endpoint` event within {0:?} (is this a legacy SSE server?)")]
    NoEndpoint(Duration),
    /// The `endpoint` event names another origin than the SSE URL's: refused, nothing sent there.
    #[error(
        "the `endpoint` event names {named}, another origin than the SSE URL's {own}: refused (nothing is sent to another origin)"
    )]
    ForeignEndpoint {
        /// The origin the event names.
        named: String,
        /// The SSE URL's origin.
        own: String,
    },
    /// A line or an event exceeded [`MAX_SSE_EVENT_BYTES`].
    #[error("an event-stream line or event exceeds {0} bytes: stream refused")]
    TooLarge(usize),
    /// The event stream does not parse.
    #[error("malformed event stream: {0}")]
    Malformed(String),
    /// The stream ended.
    #[error("the event stream closed")]
    Closed,
}

fn hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (unauthorized: is the token set in `headers`?)",
        400 | 404 | 405 | 406 => " (wrong transport? try \"transport\": \"http\")",
        _ => "",
    }
}

/// Bounds the framing of an event stream before it is parsed: counts the bytes of the current
/// line and event, and fails as soon as either exceeds the limit.
#[derive(Debug)]
pub struct FrameLimit {
    max: usize,
    line: usize,
    event: usize,
    after_cr: bool,
}

impl FrameLimit {
    /// A limit of `max` bytes per line and per event (terminators not counted).
    pub fn new(max: usize) -> Self {
        FrameLimit {
            max,
            line: 0,
            event: 0,
            after_cr: false,
        }
    }

    /// Accounts for the next `bytes` of the stream.
    pub fn check(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        for &b in bytes {
            let after_cr = std::mem::replace(&mut self.after_cr, b == b'\r');
            match b {
                b'\n' if after_cr => {}
                b'\r' | b'\n' => {
                    if self.line == 0 {
                        self.event = 0;
                    }
                    self.line = 0;
                }
                _ => {
                    self.line += 1;
                    self.event += 1;
                    if self.event > self.max {
                        return Err(SseError::TooLarge(self.max));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The byte stream of `resp` with its framing bounded by [`MAX_SSE_EVENT_BYTES`].
fn bounded_bytes(
    resp: reqwest::Response,
) -> impl futures_util::Stream<Item = Result<bytes::Bytes, SseError>> + Send + 'static {
    let mut limit = FrameLimit::new(MAX_SSE_EVENT_BYTES);
    resp.bytes_stream().map(move |chunk| {
        let chunk = chunk.map_err(SseError::Http)?;
        limit.check(&chunk)?;
        Ok(chunk)
    })
}

/// The endpoint an `endpoint` event names, resolved against the SSE URL `base`; refused unless
/// its scheme, host and port are the SSE URL's (configured headers go to that origin only).
pub fn same_origin_endpoint(base: &Url, named: &str) -> Result<Url, SseError> {
    let endpoint = base.join(named.trim()).map_err(|_| SseError::Url(named.to_string()))?;
    if endpoint.origin() != base.origin() {
        return Err(SseError::ForeignEndpoint {
            named: endpoint.origin().ascii_serialization(),
            own: base.origin().ascii_serialization(),
        });
    }
    Ok(endpoint)
}

/// A client transport over legacy HTTP+SSE.
pub struct SseClientTransport {
    client: reqwest::Client,
    endpoint: Url,
    rx: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for SseClientTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseClientTransport")
            .field("endpoint", &self.endpoint.path())
            .finish()
    }
}

impl SseClientTransport {
    /// Opens the event stream at `url` with `client` (its default headers carry any token) and
    /// waits up to `timeout` for the `endpoint` event.
    pub async fn connect(client: reqwest::Client, url: &str, timeout: Duration) -> Result<Self, SseError> {
        let base = Url::parse(url).map_err(|_| SseError::Url(url.to_string()))?;
        let resp = tokio::time::timeout(
            timeout,
            client
                .get(base.clone())
                .header(reqwest::header::ACCEPT, "text/event-stream")
                .send(),
        )
        .await
        .map_err(|_| SseError::NoEndpoint(timeout))?
        .map_err(SseError::Http)?;
        let status = resp.status();
        if !status.is_success() {
            return Err(SseError::Status {
                status: status.as_u16(),
            });
        }
        let ct = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        if !ct.starts_with("text/event-stream") {
            return Err(SseError::NotEventStream(if ct.is_empty() {
                "no content type".into()
            } else {
                ct
            }));
        }
        let (tx, rx) = mpsc::channel(256);
        let (ep_tx, ep_rx) = tokio::sync::oneshot::channel::<Result<String, SseError>>();
        let reader = tokio::spawn(read_stream(resp, tx, ep_tx));
        let named = match tokio::time::timeout(timeout, ep_rx).await {
            Ok(Ok(Ok(e))) => e,
            Ok(Ok(Err(e))) => {
                reader.abort();
                return Err(e);
            }
            Ok(Err(_)) => {
                reader.abort();
                return Err(SseError::Closed);
            }
            Err(_) => {
                reader.abort();
                return Err(SseError::NoEndpoint(timeout));
            }
        };
        let endpoint = match same_origin_endpoint(&base, &named) {
            Ok(e) => e,
            Err(e) => {
                reader.abort();
                return Err(e);
            }
        };
        Ok(SseClientTransport {
            client,
            endpoint,
            rx,
            reader,
        })
    }
}

/// Reads the event stream: the first `endpoint` event (or the error before it) goes to `ep_tx`,
/// every JSON-RPC message to `tx`. A framing error ends the stream.
async fn read_stream(
    resp: reqwest::Response,
    tx: mpsc::Sender<RxJsonRpcMessage<RoleClient>>,
    ep_tx: tokio::sync::oneshot::Sender<Result<String, SseError>>,
) {
    let mut ep_tx = Some(ep_tx);
    let mut failed = None;
    let mut events = std::pin::pin!(SseStream::from_bytes_stream(bounded_bytes(resp)));
    while let Some(next) = events.next().await {
        let ev = match next {
            Ok(ev) => ev,
            Err(sse_stream::Error::Body(e)) => {
                failed = Some(
                    e.downcast::<SseError>()
                        .map_or_else(|e| SseError::Malformed(e.to_string()), |e| *e),
                );
                break;
            }
            Err(e) => {
                failed = Some(SseError::Malformed(e.to_string()));
                break;
            }
        };
        let data = ev.data.unwrap_or_default();
        match ev.event.as_deref() {
            Some("endpoint") => {
                if let Some(t) = ep_tx.take() {
                    let _ = t.send(Ok(data));
                }
            }
            None | Some("message") => match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&data) {
                Ok(msg) => {
                    if tx.send(msg).await.is_err() {
                        return;
                    }
                }
                Err(e) => tracing::warn!("sse: ignoring a message that is not JSON-RPC: {e}"),
            },
            _ => {}
        }
    }
    let failed = failed.unwrap_or(SseError::Closed);
    match ep_tx.take() {
        Some(t) => {
            let _ = t.send(Err(failed));
        }
        None => tracing::warn!("sse: the event stream ended: {failed}"),
    }
}

impl Transport<RoleClient> for SseClientTransport {
    type Error = SseError;

    fn name() -> Cow<'static, str> {
        "legacy-sse".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        let client = self.client.clone();
        let url = self.endpoint.clone();
        async move {
            let body = serde_json::to_vec(&item).map_err(|e| SseError::Malformed(e.to_string()))?;
            let resp = client
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await
                .map_err(SseError::Http)?;
            if resp.status().is_success() {
                Ok(())
            } else {
                Err(SseError::Status {
                    status: resp.status().as_u16(),
                })
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.rx.recv()
    }

    async fn close(&mut self) -> Result<(), SseError> {
        self.reader.abort();
        self.rx.close();
        Ok(())
    }
}

impl Drop for SseClientTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_bounded_per_line_and_event() {
        let mut l = FrameLimit::new(16);
        assert!(l.check(b"data: 1234567890\r\n\r\ndata: 1234567890\n\n").is_ok());
        assert!(l.check(b"data:1\ndata:2\n").is_ok(), "12 bytes in the event so far");
        assert!(l.check(b"data").is_ok(), "16");
        assert!(
            matches!(l.check(b"x"), Err(SseError::TooLarge(16))),
            "an event of 17 bytes"
        );
        let mut l = FrameLimit::new(8);
        assert!(l.check(b"data: 12\r").is_ok());
        assert!(l.check(b"\n\r\n").is_ok(), "CRLF split across chunks ends the event");
        assert!(l.check(b"data: 123").is_err());
    }

    #[test]
    fn endpoints_must_keep_the_origin() {
        let base = Url::parse("http://127.0.0.1:8000/sse").unwrap();
        let ok = same_origin_endpoint(&base, "/messages/?session_id=1").unwrap();
        assert_eq!(ok.as_str(), "http://127.0.0.1:8000/messages/?session_id=1");
        for foreign in [
            "http://127.0.0.1:8001/messages/",
            "https://127.0.0.1:8000/messages/",
            "http://localhost:8000/messages/",
            "//evil.example/m",
        ] {
            let e = same_origin_endpoint(&base, foreign).unwrap_err();
            assert!(matches!(e, SseError::ForeignEndpoint { .. }), "{foreign}: {e}");
        }
    }
}
