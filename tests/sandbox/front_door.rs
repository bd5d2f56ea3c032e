//! The sandbox's front door against what a web page or a careless client could send: the fault
//! admin route refuses foreign origins and non-JSON posts (`sagedeck fault add` still works),
//! slow request heads are cut off, and bodies are capped per protocol.

use sagedeck::sandbox::http::raw_client;
use sagedeck::sandbox::http::server::{CONTROL_BODY_LIMIT, RUNTIME_BODY_LIMIT};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{demo_config, run_cli, sandbox_with};

const FAULT: &str = r#"{"operation": "DescribeEndpoint", "kind": {"type": "throttle"}}"#;

/// How many faults the admin route lists.
async fn fault_count(url: &str) -> usize {
    let r = raw_client::send(url, "GET", "/_sandbox/faults", &[], "").await.unwrap();
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    v.as_array().map_or(0, Vec::len)
}

#[tokio::test]
async fn the_admin_route_refuses_cross_origin_and_non_json_posts() {
    let sb = sandbox_with(demo_config()).await;
    let url = sb.endpoint_url();
    let host = url.trim_start_matches("http://").to_string();
    let own = format!("http://{host}");
    for (headers, want) in [
        (vec![("content-type", "text/plain")], 415),
        (vec![("content-type", "application/x-www-form-urlencoded")], 415),
        (vec![], 415),
        (
            vec![("content-type", "text/plain"), ("origin", "https://evil.example")],
            403,
        ),
        (
            vec![("content-type", "application/json"), ("origin", "https://evil.example")],
            403,
        ),
        (vec![("content-type", "application/json"), ("origin", "null")], 403),
    ] {
        let r = raw_client::send(&url, "POST", "/_sandbox/faults", &headers, FAULT)
            .await
            .unwrap();
        assert_eq!(r.status, want, "{headers:?}: {}", r.text());
    }
    let r = raw_client::send(
        &url,
        "DELETE",
        "/_sandbox/faults",
        &[("origin", "https://evil.example")],
        "",
    )
    .await
    .unwrap();
    assert_eq!(r.status, 403);
    assert_eq!(fault_count(&url).await, 0, "nothing was injected");

    let same = [
        ("content-type", "application/json; charset=utf-8"),
        ("origin", own.as_str()),
    ];
    let r = raw_client::send(&url, "POST", "/_sandbox/faults", &same, FAULT)
        .await
        .unwrap();
    assert_eq!(r.status, 201, "{}", r.text());
    let cli = run_cli(
        &sb,
        &[
            "fault",
            "--url",
            &url,
            "add",
            "kind=throttle,endpoint=llm-tgi-chat,count=1",
        ],
    )
    .await;
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    assert_eq!(fault_count(&url).await, 2);
}

#[tokio::test]
async fn a_slow_request_head_is_cut_off() {
    let sb = sandbox_with(demo_config()).await;
    let mut tcp = tokio::net::TcpStream::connect(sb.addr).await.unwrap();
    tcp.write_all(b"GET /_sandbox/health HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let limit = sagedeck::sandbox::http::accept::HEADER_READ_TIMEOUT;
    let mut buf = Vec::new();
    let read = tokio::time::timeout(limit * 6, tcp.read_to_end(&mut buf))
        .await
        .expect("the sandbox closes a connection whose head never ends");
    assert!(read.is_ok_and(|n| n == 0) || !buf.is_empty(), "closed: {buf:?}");
    assert!(
        !String::from_utf8_lossy(&buf).contains("200 OK"),
        "no request was served"
    );
}

#[tokio::test]
async fn bodies_are_capped_per_protocol() {
    let sb = sandbox_with(demo_config()).await;
    let url = sb.endpoint_url();
    let invoke = "/endpoints/mcp-intent-classifier-prod/invocations";
    let json = [("content-type", "application/json")];
    for len in [6_291_457, RUNTIME_BODY_LIMIT + 1, 40 * 1024 * 1024] {
        let r = raw_client::send(&url, "POST", invoke, &json, vec![b' '; len])
            .await
            .unwrap();
        assert_eq!(r.status, 400, "{len}: {}", r.text());
        assert_eq!(
            r.header("x-amzn-errortype").map(|t| t.split(':').next().unwrap()),
            Some("ValidationError")
        );
        assert!(
            r.text().contains(&format!("Received payload of {len} bytes")) && r.text().contains("6291456"),
            "{}",
            r.text()
        );
    }
    let target = [
        ("content-type", "application/x-amz-json-1.1"),
        ("x-amz-target", "SageMaker.ListEndpoints"),
    ];
    let r = raw_client::send(&url, "POST", "/", &target, vec![b' '; CONTROL_BODY_LIMIT + 1])
        .await
        .unwrap();
    assert_eq!(r.status, 413, "{}", r.text());
    let r = raw_client::send(&url, "POST", "/", &target, "{}").await.unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    let r = raw_client::send(&url, "POST", "/_sandbox/faults", &json, vec![b' '; 1024 * 1024])
        .await
        .unwrap();
    assert_eq!(r.status, 413);
}
