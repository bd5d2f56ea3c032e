//! The stateful sessions SageMaker Runtime routes (`SessionId` on InvokeEndpoint): each pinned to
//! the endpoint, inference component, variant and instance that opened it, until it is closed or
//! its expiry passes. The sandbox plays the stateful container too, so it mints the id and the
//! expiry (LMI's default lifetime, 1,200 s).

use std::collections::HashMap;

use parking_lot::Mutex;

/// How long a session lives after it is opened, in seconds (LMI's `sessions_expiration`).
pub const SESSION_TTL_SECS: f64 = 1200.0;

/// One open session.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The endpoint it was opened on.
    pub endpoint: String,
    /// The inference component it was opened on, if any.
    pub component: Option<String>,
    /// The variant that serves it.
    pub variant: String,
    /// The index of the variant's instance that serves it.
    pub instance: usize,
    /// When it expires, epoch seconds.
    pub expires_at: f64,
}

/// The open sessions of one region, by id.
#[derive(Debug, Default)]
pub struct SessionStore {
    open: Mutex<HashMap<String, Session>>,
}

/// A fresh session id: a UUID's shape, which SageMaker's `SessionId` pattern accepts.
fn new_id() -> String {
    let a: u128 = rand::random();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        (a >> 96) as u32,
        (a >> 80) as u16,
        (a >> 68) as u16 & 0xfff,
        ((a >> 52) as u16 & 0x3fff) | 0x8000,
        a as u64 & 0xffff_ffff_ffff
    )
}

impl SessionStore {
    /// Opens a session and returns its id.
    pub fn open(&self, session: Session) -> String {
        let id = new_id();
        self.open.lock().insert(id.clone(), session);
        id
    }

    /// The session `id` at `now`, if it is open (an expired one is forgotten).
    pub fn get(&self, id: &str, now: f64) -> Option<Session> {
        let mut open = self.open.lock();
        match open.get(id) {
            Some(s) if s.expires_at > now => Some(s.clone()),
            Some(_) => {
                open.remove(id);
                None
            }
            None => None,
        }
    }

    /// Closes session `id`, returning it if it was open.
    pub fn close(&self, id: &str) -> Option<Session> {
        self.open.lock().remove(id)
    }

    /// How many sessions are open (expired ones not yet forgotten included).
    pub fn len(&self) -> usize {
        self.open.lock().len()
    }

    /// Whether no session is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(expires_at: f64) -> Session {
        Session {
            endpoint: "ep".into(),
            component: None,
            variant: "AllTraffic".into(),
            instance: 2,
            expires_at,
        }
    }

    #[test]
    fn a_session_is_found_until_it_expires_or_closes() {
        let store = SessionStore::default();
        let id = store.open(session(100.0));
        assert_eq!(id.len(), 36);
        assert_eq!(store.get(&id, 99.0).map(|s| s.instance), Some(2));
        assert_eq!(store.get(&id, 100.0), None, "expired");
        assert!(store.is_empty(), "an expired session is forgotten");
        let id = store.open(session(100.0));
        assert!(store.close(&id).is_some());
        assert_eq!(store.get(&id, 1.0), None, "closed");
        assert_ne!(store.open(session(1.0)), store.open(session(1.0)));
    }
}
