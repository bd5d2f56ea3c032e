//! The sandbox's accept loop: HTTP/1.1 (what the SDKs, boto3 and the AWS CLI speak to a plain
//! `http://` endpoint) with a deadline for request heads and a cap on concurrent connections, so
//! a slow or flooding client cannot hold the demo's port: at the cap, the connection that has
//! waited on its client the longest makes room (`connections.rs`).

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, oneshot, watch};

use crate::sandbox::cloudtrail::identity::PeerIp;
use crate::sandbox::http::connections::{Registry, tracked_service};
use crate::sandbox::world::config::ConnectionLimits;

/// How long a client may take to send a request head (the line and headers) before the
/// connection is closed.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `app` on `listener` until `shutdown` fires; open connections then finish their
/// current request.
pub async fn serve(listener: TcpListener, app: Router, shutdown: oneshot::Receiver<()>, limits: ConnectionLimits) {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let registry = Arc::new(Registry::default());
    let (stop_tx, stop_rx) = watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            tcp = listener.accept() => tcp,
        };
        let (tcp, peer) = match accepted {
            Ok((tcp, addr)) => (tcp, PeerIp(addr.ip())),
            Err(e) => {
                // Out of file descriptors and the like: let connections close before retrying.
                tracing::warn!("sandbox: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let permit = match permits.clone().try_acquire_owned() {
            Ok(p) => Ok(p),
            Err(_) => {
                // At the cap: the connection that has waited on its client the longest makes
                // room; when all are being served, this one waits for the first to close.
                registry.shed_longest_waiting();
                tokio::select! {
                    _ = &mut shutdown => break,
                    permit = permits.clone().acquire_owned() => permit,
                }
            }
        };
        let Ok(permit) = permit else { break };
        let _ = tcp.set_nodelay(true);
        let registration = registry.register();
        let service = tracked_service(app.clone(), registration.connection.clone(), Some(peer));
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let shed = registration.connection.clone();
            let conn = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(TokioIo::new(tcp), service);
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                // Dropping the connection closes it.
                _ = shed.shed() => {}
                _ = stop.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
    drop(stop_tx);
}
