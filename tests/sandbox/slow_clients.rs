//! Slow clients against the sandbox's front door: a request body that trickles in is cut off
//! with 408, and connections that trickle bytes cannot keep a well-behaved client (the Rust SDK,
//! boto3) out: at the connection cap the one that has waited on its client the longest makes
//! room.

use std::time::Duration;

use sagedeck::sandbox::SandboxConfig;
use sagedeck::sandbox::world::config::ConnectionLimits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::{demo_config, poll_until, sandbox_with, sdk_config};
use crate::compat_boto3::{ClientEnv, venv_async};

/// A control-plane request head announcing a 100-byte body, and the body's first byte.
const SLOW_HEAD: &[u8] = b"POST / HTTP/1.1\r\nHost: sandbox\r\nx-amz-target: SageMaker.ListEndpoints\r\n\
content-type: application/x-amz-json-1.1\r\ncontent-length: 100\r\n\r\n{";

fn config(max_connections: usize, body_read_timeout: Duration) -> SandboxConfig {
    SandboxConfig {
        connections: ConnectionLimits {
            max_connections,
            body_read_timeout,
        },
        ..demo_config()
    }
}

/// Opens a connection that sends a head and the first byte of its body.
async fn slow_body_client(addr: std::net::SocketAddr) -> TcpStream {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    tcp.write_all(SLOW_HEAD).await.expect("head");
    tcp
}

/// Trickles the rest of a slow client's body, a byte every 300 ms, then reads what the sandbox
/// answers (empty when it closed the connection without an answer).
async fn trickle_and_read(tcp: TcpStream) -> String {
    let (mut read, mut write) = tcp.into_split();
    let trickle = tokio::spawn(async move {
        for _ in 0..99 {
            tokio::time::sleep(Duration::from_millis(300)).await;
            if write.write_all(b" ").await.is_err() {
                break;
            }
        }
        write
    });
    let mut answer = Vec::new();
    let _ = read.read_to_end(&mut answer).await;
    trickle.abort();
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_trickling_request_body_is_cut_off_with_408() {
    let sb = sandbox_with(config(512, Duration::from_secs(1))).await;
    let tcp = slow_body_client(sb.addr).await;
    let answer = tokio::time::timeout(Duration::from_secs(60), trickle_and_read(tcp))
        .await
        .expect("the sandbox ends a request whose body trickles in");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("RequestTimeout"), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_body_clients_at_the_cap_do_not_keep_the_sdk_or_boto3_out() {
    const CAP: usize = 8;
    // The body deadline is far away: what lets the SDK in must be the cap's fairness.
    let sb = sandbox_with(config(CAP, Duration::from_secs(600))).await;
    let mut slow = Vec::new();
    for _ in 0..CAP + 4 {
        slow.push(slow_body_client(sb.addr).await);
    }
    let readers: Vec<_> = slow
        .into_iter()
        .map(|tcp| tokio::spawn(trickle_and_read(tcp)))
        .collect();

    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    let listed = tokio::time::timeout(Duration::from_secs(30), sm.list_endpoints().send())
        .await
        .expect("the SDK is served while slow clients hold the cap")
        .expect("ListEndpoints succeeds");
    assert!(!listed.endpoints().is_empty());

    let venv = venv_async().await;
    let env = ClientEnv::new(sb.endpoint_url());
    let script = "import boto3; print(len(boto3.client('sagemaker').list_endpoints()['Endpoints']))";
    let out = tokio::time::timeout(Duration::from_secs(120), env.run(venv, "boto3", &["-c", script]))
        .await
        .expect("boto3 is served while slow clients hold the cap");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_ne!(String::from_utf8_lossy(&out.stdout).trim(), "0");

    // The clients that made room were slow ones, closed without an answer.
    poll_until(
        "the slow clients beyond the cap to be shed",
        Duration::from_secs(30),
        || {
            let shed = readers.iter().filter(|r| r.is_finished()).count();
            std::future::ready((shed >= 4).then_some(()))
        },
    )
    .await;
    for r in readers {
        if r.is_finished() {
            let answer = r.await.expect("reader");
            assert!(!answer.contains("HTTP/1.1"), "a slow client was answered: {answer}");
        } else {
            r.abort();
        }
    }
}
