//! Which connection gives way when the sandbox is at its connection cap, and how long a request
//! body may take.
//!
//! Every open connection is registered with what it is doing: waiting on its client (sending a
//! request head or body, or idle between requests) or being served (its request is whole and its
//! answer not yet sent). When a new connection arrives at the cap, the connection that has
//! waited on its client the longest is closed to make room: a slow-body client or a forgotten
//! keep-alive gives way, a request being answered never does. So connections that trickle bytes
//! cannot keep a well-behaved client out, and a body that does not arrive within
//! `ConnectionLimits::body_read_timeout` (`world/config.rs`) is answered 408 (`server.rs`).

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::Router;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::service::Service;
use hyper::{Request, Response};
use hyper_util::service::TowerToHyperService;
use parking_lot::Mutex;
use tokio::sync::Notify;

use crate::sandbox::cloudtrail::identity::PeerIp;

/// What a connection is doing.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Waiting on its client since then (head, body, or idle between requests).
    WaitingSince(Instant),
    /// Its request is whole; the answer is being made or sent.
    Serving,
    /// Chosen to make room: it is being closed.
    Shed,
}

/// One open connection.
#[derive(Debug)]
pub struct Connection {
    phase: Mutex<Phase>,
    shed: Notify,
}

impl Connection {
    fn set(&self, next: Phase) {
        let mut phase = self.phase.lock();
        if *phase != Phase::Shed {
            *phase = next;
        }
    }

    /// Resolves when the connection was chosen to make room (it must then be closed).
    pub async fn shed(&self) {
        self.shed.notified().await;
    }
}

/// The open connections of one accept loop.
#[derive(Debug, Default)]
pub struct Registry {
    next_id: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Connection>>>,
}

/// A registered connection; dropping it unregisters the connection.
#[derive(Debug)]
pub struct Registration {
    id: u64,
    registry: Arc<Registry>,
    /// The connection's shared state.
    pub connection: Arc<Connection>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.registry.open.lock().remove(&self.id);
    }
}

impl Registry {
    /// Registers a connection just accepted (it waits on its client from now).
    pub fn register(self: &Arc<Self>) -> Registration {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let connection = Arc::new(Connection {
            phase: Mutex::new(Phase::WaitingSince(Instant::now())),
            shed: Notify::new(),
        });
        self.open.lock().insert(id, connection.clone());
        Registration {
            id,
            registry: self.clone(),
            connection,
        }
    }

    /// Closes the connection that has waited on its client the longest; false when every
    /// connection is being served.
    pub fn shed_longest_waiting(&self) -> bool {
        let open = self.open.lock();
        let mut waiting: Vec<(Instant, &Arc<Connection>)> = open
            .values()
            .filter_map(|c| match *c.phase.lock() {
                Phase::WaitingSince(t) => Some((t, c)),
                _ => None,
            })
            .collect();
        waiting.sort_by_key(|(t, _)| *t);
        // One that started being served since it was looked at is passed over.
        let shed = waiting.into_iter().find(|(_, c)| {
            let mut phase = c.phase.lock();
            let still_waiting = matches!(*phase, Phase::WaitingSince(_));
            if still_waiting {
                *phase = Phase::Shed;
            }
            still_waiting
        });
        match shed {
            Some((_, connection)) => {
                connection.shed.notify_one();
                true
            }
            None => false,
        }
    }
}

/// The service of one connection from `peer`: `app`, with its request and response bodies
/// tracked and the peer's address in every request's extensions (CloudTrail's source IP).
pub fn tracked_service(
    app: Router,
    connection: Arc<Connection>,
    peer: Option<PeerIp>,
) -> impl Service<
    Request<Incoming>,
    Response = Response<Tracked<axum::body::Body>>,
    Error = std::convert::Infallible,
    Future: Send,
> + Clone {
    let inner = TowerToHyperService::new(app);
    hyper::service::service_fn(move |req: Request<Incoming>| {
        let mut req = req.map(|body| Tracked::request(body, connection.clone()));
        if let Some(peer) = peer {
            req.extensions_mut().insert(peer);
        }
        let answer = inner.call(req);
        let connection = connection.clone();
        async move {
            let resp = answer.await?;
            Ok(resp.map(|body| Tracked::response(body, connection)))
        }
    })
}

/// A body that tells its connection when it ends: a request body when it has been read whole
/// (the connection is then being served), a response body when it has been sent or dropped (the
/// connection then waits on its client again).
pub struct Tracked<B> {
    inner: B,
    connection: Option<Arc<Connection>>,
    is_request: bool,
}

impl<B: Body> Tracked<B> {
    /// A request body: its end makes the connection Serving (at once when it has none).
    pub fn request(inner: B, connection: Arc<Connection>) -> Self {
        connection.set(Phase::WaitingSince(Instant::now()));
        let mut body = Tracked {
            inner,
            connection: Some(connection),
            is_request: true,
        };
        if body.inner.is_end_stream() {
            body.ended();
        }
        body
    }

    /// A response body: its end makes the connection wait on its client again.
    pub fn response(inner: B, connection: Arc<Connection>) -> Self {
        Tracked {
            inner,
            connection: Some(connection),
            is_request: false,
        }
    }
}

impl<B> Tracked<B> {
    fn ended(&mut self) {
        if let Some(c) = self.connection.take() {
            c.set(if self.is_request {
                Phase::Serving
            } else {
                Phase::WaitingSince(Instant::now())
            });
        }
    }
}

impl<B> Drop for Tracked<B> {
    fn drop(&mut self) {
        // A response dropped before its end (the client went away) still frees the connection;
        // a request body dropped unread does not make it Serving.
        if !self.is_request {
            self.ended();
        }
    }
}

impl<B: Body + Unpin> Body for Tracked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(None) => self.ended(),
            Poll::Ready(Some(Ok(_))) if self.inner.is_end_stream() => self.ended(),
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
