//! The sandbox's accept loop: HTTP/1.1 (what the SDKs, boto3 and the AWS CLI speak to a plain
//! `http://` endpoint) with a deadline for request heads and a cap on concurrent connections, so
//! a slow or flooding client cannot hold the demo's port.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, oneshot, watch};

/// How long a client may take to send a request head (the line and headers) before the
/// connection is closed.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once; further ones wait in the listen backlog until one closes.
pub const MAX_CONNECTIONS: usize = 512;

/// Serves `app` on `listener` until `shutdown` fires; open connections then finish their
/// current request.
pub async fn serve(listener: TcpListener, app: Router, shutdown: oneshot::Receiver<()>) {
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let (stop_tx, stop_rx) = watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            permit = permits.clone().acquire_owned() => match permit {
                Ok(p) => listener.accept().await.map(|(tcp, _)| (tcp, p)),
                Err(_) => break,
            },
        };
        let (tcp, permit) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of file descriptors and the like: let connections close before retrying.
                tracing::warn!("sandbox: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let conn = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(TokioIo::new(tcp), service);
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stop.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
    drop(stop_tx);
}
