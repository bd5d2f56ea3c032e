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
use tokio::sync::mpsc;

/// Why the SSE transport failed.
#[derive(Debug, thiserror::Error)]
pub enum SseError {
    /// The URL does not parse.
    #[error("invalid URL {0}")]
    Url(String),
    /// Connecting or sending failed.
    #[error("{0}")]
    Http(String),
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

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SseEvent {
    /// `event:` (empty = `message`).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// An incremental `text/event-stream` parser.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    event: String,
    data: Vec<String>,
    skip_lf: bool,
}

impl SseParser {
    /// Feeds bytes; returns the events they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in bytes {
            if self.skip_lf {
                self.skip_lf = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\r' | b'\n' => {
                    self.skip_lf = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(ev) = self.line_done(&String::from_utf8_lossy(&line)) {
                        out.push(ev);
                    }
                }
                _ => self.line.push(b),
            }
        }
        out
    }

    fn line_done(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            if self.data.is_empty() {
                self.event.clear();
                return None;
            }
            let ev = SseEvent {
                event: std::mem::take(&mut self.event),
                data: std::mem::take(&mut self.data).join("\n"),
            };
            return Some(ev);
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => self.data.push(value.to_string()),
            _ => {}
        }
        None
    }
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
        .map_err(|e| SseError::Http(crate::aws::error::chain_text(&e)))?;
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
        let (ep_tx, ep_rx) = tokio::sync::oneshot::channel::<String>();
        let reader = tokio::spawn(read_stream(resp, tx, ep_tx));
        let endpoint = match tokio::time::timeout(timeout, ep_rx).await {
            Ok(Ok(e)) => e,
            Ok(Err(_)) => {
                reader.abort();
                return Err(SseError::Closed);
            }
            Err(_) => {
                reader.abort();
                return Err(SseError::NoEndpoint(timeout));
            }
        };
        let endpoint = base.join(endpoint.trim()).map_err(|_| SseError::Url(endpoint))?;
        Ok(SseClientTransport {
            client,
            endpoint,
            rx,
            reader,
        })
    }
}

async fn read_stream(
    resp: reqwest::Response,
    tx: mpsc::Sender<RxJsonRpcMessage<RoleClient>>,
    ep_tx: tokio::sync::oneshot::Sender<String>,
) {
    let mut ep_tx = Some(ep_tx);
    let mut parser = SseParser::default();
    let mut stream = resp.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        for ev in parser.push(&chunk) {
            match ev.event.as_str() {
                "endpoint" => {
                    if let Some(t) = ep_tx.take() {
                        let _ = t.send(ev.data);
                    }
                }
                "" | "message" => match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&ev.data) {
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
            let body = serde_json::to_vec(&item).map_err(|e| SseError::Http(e.to_string()))?;
            let resp = client
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await
                .map_err(|e| SseError::Http(crate::aws::error::chain_text(&e)))?;
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
    fn parses_split_events_and_line_endings() {
        let mut p = SseParser::default();
        assert!(p.push(b"event: endpoint\r\ndata: /messages/?session").is_empty());
        let evs = p.push(b"_id=1\r\n\r\n: ping\n\ndata: {\"a\":\ndata: 1}\n\n");
        assert_eq!(
            evs,
            vec![
                SseEvent {
                    event: "endpoint".into(),
                    data: "/messages/?session_id=1".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "{\"a\":\n1}".into()
                }
            ]
        );
        let mut p = SseParser::default();
        let mut all = Vec::new();
        for b in b"event: message\rdata: x\r\r" {
            all.extend(p.push(&[*b]));
        }
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].data, "x");
    }
}
