//! The size limit of one JSON-RPC message from a stdio server. rmcp's own limit (16 MiB) drops
//! a longer line without a word, so the call waiting for it ran into its timeout ("no answer");
//! an 8 MB tool result is twice that size once FastMCP adds its structured copy. Here the limit
//! is [`MAX_MESSAGE_BYTES`], and a longer message ends the connection saying why.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use parking_lot::Mutex;
use tokio::io::{AsyncRead, ReadBuf};

use super::events::{LogSource, ServerLog};

/// The longest message (one line) a stdio server may send: 128 MiB.
pub const MAX_MESSAGE_BYTES: usize = 128 << 20;

/// Why a connection was closed by this side, when it was (shared with the connection).
pub type CloseReason = Arc<Mutex<Option<String>>>;

/// A stdio server's stdout that fails the read (ending the connection) once a line grows
/// over `limit` bytes, after writing why to the server's log and to `reason`.
pub struct LineGuard<R> {
    inner: R,
    limit: usize,
    line: usize,
    log: ServerLog,
    reason: CloseReason,
}

impl<R> LineGuard<R> {
    /// Guards `inner` with the limit `limit`.
    pub fn new(inner: R, limit: usize, log: ServerLog, reason: CloseReason) -> LineGuard<R> {
        LineGuard {
            inner,
            limit,
            line: 0,
            log,
            reason,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineGuard<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let fresh = &buf.filled()[before..];
            let mut over = false;
            for (k, part) in fresh.split(|b| *b == b'\n').enumerate() {
                this.line = if k == 0 { this.line + part.len() } else { part.len() };
                over |= this.line > this.limit;
            }
            if over {
                let limit = match this.limit >> 20 {
                    0 => format!("{} bytes", this.limit),
                    mib => format!("{mib} MiB"),
                };
                let why = format!(
                    "the server sent a message over {limit} (the limit of one message); the connection was closed"
                );
                this.log.push(LogSource::Client, why.clone());
                *this.reason.lock() = Some(why.clone());
                // An error read must not have filled anything.
                buf.set_filled(before);
                return Poll::Ready(Err(std::io::Error::new(std::io::ErrorKind::InvalidData, why)));
            }
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    #[tokio::test]
    async fn a_line_over_the_limit_fails_the_read_saying_why() {
        let (log, reason) = (ServerLog::default(), CloseReason::default());
        let mut ok = LineGuard::new(&b"0123456789\nabc\n"[..], 10, log.clone(), reason.clone());
        let mut all = Vec::new();
        ok.read_to_end(&mut all).await.unwrap();
        assert!(reason.lock().is_none());

        let mut long = LineGuard::new(&b"0123\n0123456789ab\n"[..], 10, log.clone(), reason.clone());
        let e = long.read_to_end(&mut Vec::new()).await.unwrap_err();
        assert!(e.to_string().contains("the connection was closed"), "{e}");
        assert!(reason.lock().as_deref().is_some_and(|r| r.contains("over 10 bytes")));
        assert!(log.tail(1)[0].text.contains("the limit of one message"));
    }
}
