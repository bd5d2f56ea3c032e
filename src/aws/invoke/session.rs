//! Stateful sessions of the runtime: `SessionId` (`NEW_SESSION` or an id) on a call, answered by
//! `X-Amzn-SageMaker-New-Session-Id: ID; Expires=…` when a session opens and
//! `X-Amzn-SageMaker-Closed-Session-Id: ID` when it closes. Calls with the id go to one instance.

use serde::Serialize;

/// What `--session` asks for.
pub const NEW_SESSION: &str = "NEW_SESSION";
/// The request header that carries the session (the SDK's `SessionId`).
pub const SESSION_HEADER: &str = "X-Amzn-SageMaker-Session-Id";
/// The response header of a session opened.
pub const NEW_SESSION_HEADER: &str = "X-Amzn-SageMaker-New-Session-Id";
/// The response header of a session closed.
pub const CLOSED_SESSION_HEADER: &str = "X-Amzn-SageMaker-Closed-Session-Id";
/// The request header of the prefix-aware routing hint (the SDK's `PrefixAwareId`).
pub const PREFIX_AWARE_HEADER: &str = "X-Amzn-SageMaker-Prefix-Aware-Id";

/// What a call said of its session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    /// The session id (opened by this call, or the one it was sent with).
    pub id: Option<String>,
    /// When an opened session expires, as the runtime wrote it.
    pub expires: Option<String>,
    /// Whether the call opened the session.
    pub opened: bool,
    /// Whether the call closed it.
    pub closed: bool,
}

impl SessionInfo {
    /// Whether the call had no session.
    pub fn is_none(&self) -> bool {
        self.id.is_none()
    }

    /// From the response headers (`new` and `closed`) of a call sent with session `sent`.
    pub fn from_headers(sent: Option<&str>, new: Option<&str>, closed: Option<&str>) -> SessionInfo {
        if let Some(header) = new {
            let (id, expires) = parse_new_session(header);
            return SessionInfo {
                id: Some(id),
                expires,
                opened: true,
                closed: false,
            };
        }
        if let Some(id) = closed {
            return SessionInfo {
                id: Some(id.trim().to_string()),
                closed: true,
                ..Default::default()
            };
        }
        SessionInfo {
            id: sent.filter(|s| *s != NEW_SESSION).map(str::to_string),
            ..Default::default()
        }
    }

    /// One line for the CLI and the console: `session ID (opened, expires …)`, or nothing.
    pub fn line(&self) -> Option<String> {
        let id = self.id.as_deref()?;
        let state = match (self.opened, self.closed, &self.expires) {
            (true, _, Some(e)) => format!(" (opened, expires {e})"),
            (true, _, None) => " (opened)".to_string(),
            (_, true, _) => " (closed)".to_string(),
            _ => String::new(),
        };
        Some(format!("session {id}{state}"))
    }
}

/// `ID; Expires=2026-12-04T22:00:00Z` → the id and the expiry.
pub fn parse_new_session(header: &str) -> (String, Option<String>) {
    let mut parts = header.split(';');
    let id = parts.next().unwrap_or("").trim().to_string();
    let expires = parts.find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case("expires").then(|| v.trim().to_string())
    });
    (id, expires)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_and_closed_sessions_are_read_from_their_headers() {
        let s = SessionInfo::from_headers(Some(NEW_SESSION), Some("abc-1; Expires=2026-12-04T22:00:00Z"), None);
        assert_eq!(s.id.as_deref(), Some("abc-1"));
        assert_eq!(
            s.line().unwrap(),
            "session abc-1 (opened, expires 2026-12-04T22:00:00Z)"
        );
        let s = SessionInfo::from_headers(Some("abc-1"), None, Some("abc-1"));
        assert_eq!(s.line().unwrap(), "session abc-1 (closed)");
        let s = SessionInfo::from_headers(Some("abc-1"), None, None);
        assert_eq!(s.line().unwrap(), "session abc-1");
        assert_eq!(SessionInfo::from_headers(None, None, None).line(), None);
    }
}
