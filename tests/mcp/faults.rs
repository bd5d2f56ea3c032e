//! Every error class of `mcp serve`, injected through the sandbox: a ModelError is an `isError`
//! result with the container's status and message and is never retried; InternalFailure,
//! ServiceUnavailable, ModelNotReady and Throttling are retried with backoff (success after a
//! few, `isError` once the attempts run out); hangs time out or are cancelled on the client.

use std::time::Duration;

use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::server::{HttpServerHandle, ToolServer, serve_http};
use sagedeck::mcp::tools_config::{RetrySection, ToolsConfig};
use sagedeck::mcp::{CallError, CallOutcome, ConnectOptions, McpConnection, TransportKind};
use sagedeck::sandbox::SandboxHandle;
use sagedeck::sandbox::faults::FaultSpec;
use serde_json::{Value, json};

use crate::common::{demo_config, fleet, sandbox_with};
use crate::url_entry;

const EP: &str = "mcp-intent-classifier-prod";

/// The demo tools with fast backoff (4 attempts, 2-10 ms) and a tool on a missing endpoint.
fn fast_tools() -> ToolsConfig {
    let mut c = ToolsConfig::demo();
    c.retry = RetrySection {
        max_attempts: Some(4),
        base_ms: Some(2),
        cap_ms: Some(10),
        deadline_ms: Some(5_000),
    };
    let mut missing = c.tool("classify_intent").unwrap().clone();
    missing.name = "classify_missing".into();
    missing.endpoint = "no-such-endpoint".into();
    c.tools.push(missing);
    c
}

struct Rig {
    sb: SandboxHandle,
    server: HttpServerHandle,
    conn: McpConnection,
}

async fn rig() -> Rig {
    let sb = sandbox_with(demo_config()).await;
    let server = serve_http(
        ToolServer::new(fleet(&sb).await, fast_tools()),
        "127.0.0.1:0".parse().unwrap(),
        None,
    )
    .await
    .unwrap();
    let conn = McpConnection::connect(
        &url_entry("faults", TransportKind::Http, &server.url(), &[]),
        &ConnectOptions::default(),
    )
    .await
    .unwrap();
    Rig { sb, server, conn }
}

impl Rig {
    fn fault(&self, spec: &str) {
        self.sb.sandbox.faults.clear();
        self.sb
            .sandbox
            .faults
            .add(FaultSpec::parse_short(&format!("endpoint={EP},{spec}")).unwrap());
    }

    async fn classify(&self) -> CallOutcome {
        self.call("classify_intent", CallOptions::default()).await.unwrap()
    }

    async fn call(&self, tool: &str, opts: CallOptions) -> Result<CallOutcome, CallError> {
        let args = json!({"user_input": "where is my order"}).as_object().cloned();
        self.conn.call_tool(tool, args, opts).await
    }

    async fn done(self) {
        self.conn.disconnect().await;
        self.server.shutdown().await;
    }
}

fn structured(o: &CallOutcome) -> Value {
    o.result.structured.clone().unwrap_or(Value::Null)
}

#[tokio::test]
async fn model_error_is_an_error_result_with_the_containers_status() {
    let r = rig().await;
    r.fault("kind=model_error,status=400,message=input exceeds max_length");
    let o = r.classify().await;
    assert!(o.result.is_error);
    let text = o.result.first_text().unwrap();
    assert_eq!(text, "Model returned error 400: input exceeds max_length");
    let s = structured(&o);
    assert_eq!(s["error"]["class"], "model_error");
    assert_eq!(s["error"]["original_status"], 400);
    assert_eq!(s["sagemaker"]["attempts"], 1, "a ModelError is never retried");
    assert_eq!(s["sagemaker"]["endpoint"], EP);
    assert_eq!(
        o.result.schema_errors, None,
        "error results are not checked against the outputSchema"
    );
    r.done().await;
}

#[tokio::test]
async fn retryable_errors_are_retried_then_succeed() {
    let r = rig().await;
    for (spec, attempts, class) in [
        ("kind=throttle,count=2", 3, "throttling"),
        ("kind=internal,count=1", 2, "internal_failure"),
        ("kind=unavailable,count=3", 4, "service_unavailable"),
        ("kind=not_ready,count=1", 2, "model_not_ready"),
    ] {
        r.fault(spec);
        let o = r.classify().await;
        assert!(!o.result.is_error, "{spec}: {:?}", o.result);
        let s = structured(&o);
        assert_eq!(s["sagemaker"]["attempts"], attempts, "{spec}: {s}");
        let retried: Vec<&str> = s["sagemaker"]["retried"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(retried, vec![class; attempts - 1], "{spec}");
        assert!(s["sagemaker"]["invoked_variant"].is_string());
    }
    r.done().await;
}

#[tokio::test]
async fn retryable_errors_become_error_results_when_attempts_run_out() {
    let r = rig().await;
    for (kind, want, class) in [
        ("internal", "SageMaker infrastructure error", "internal_failure"),
        ("unavailable", "SageMaker endpoint unavailable", "service_unavailable"),
        ("throttle", "SageMaker throttled the call", "throttling"),
        ("not_ready", "SageMaker model not ready", "model_not_ready"),
    ] {
        r.fault(&format!("kind={kind}"));
        let o = r.classify().await;
        assert!(o.result.is_error, "{kind}");
        let text = o.result.first_text().unwrap();
        assert!(
            text.starts_with(want) && text.ends_with("(after 4 attempts)"),
            "{kind}: {text}"
        );
        let s = structured(&o);
        assert_eq!(s["error"]["class"], class);
        assert_eq!(s["sagemaker"]["attempts"], 4);
    }
    r.done().await;
}

#[tokio::test]
async fn other_failures_are_error_results_without_retries() {
    let r = rig().await;
    r.sb.sandbox.faults.clear();
    let o = r.call("classify_missing", CallOptions::default()).await.unwrap();
    assert!(o.result.is_error);
    assert_eq!(structured(&o)["error"]["class"], "not_found");
    assert_eq!(structured(&o)["sagemaker"]["attempts"], 1);
    r.fault("kind=expired_token");
    let o = r.classify().await;
    assert!(o.result.is_error);
    assert_eq!(structured(&o)["error"]["class"], "access_denied");
    r.fault("kind=drop,count=1");
    let o = r.classify().await;
    assert!(
        o.result.is_error,
        "a dropped connection is reported, not retried: {:?}",
        o.result
    );
    assert_eq!(structured(&o)["sagemaker"]["attempts"], 1);
    r.done().await;
}

#[tokio::test]
async fn a_hanging_endpoint_times_out_or_is_cancelled_on_the_client() {
    let r = rig().await;
    r.fault("kind=hang");
    let opts = CallOptions {
        timeout: Duration::from_millis(300),
        ..Default::default()
    };
    // The server hangs for good: only the call's own 300 ms timeout can end it (a deadline here
    // keeps the test from hanging if it did not).
    match tokio::time::timeout(Duration::from_secs(30), r.call("classify_intent", opts)).await {
        Ok(Err(CallError::Timeout { after, .. })) => assert_eq!(after, Duration::from_millis(300)),
        other => panic!("expected a timeout, got {other:?}"),
    }
    // Cancel once the server reports that it is invoking the endpoint.
    let cancel = tokio_util::sync::CancellationToken::new();
    let (ptx, mut prx) = tokio::sync::mpsc::unbounded_channel();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        if prx.recv().await.is_some() {
            c2.cancel();
        }
    });
    let opts = CallOptions {
        timeout: Duration::from_secs(30),
        cancel,
        progress: Some(ptx),
        ..Default::default()
    };
    assert_eq!(r.call("classify_intent", opts).await.unwrap_err(), CallError::Cancelled);
    // The session survives both.
    r.sb.sandbox.faults.clear();
    assert!(!r.classify().await.result.is_error);
    r.done().await;
}

#[tokio::test]
async fn a_slow_endpoint_sends_heartbeats_that_keep_the_call_alive() {
    let r = rig().await;
    r.fault("kind=slow,ms=1800");
    // Without progress the 1.4 s timeout would fire before the answer at 1.8 s; the heartbeats
    // at 0.5 s and 1.5 s restart it.
    let opts = CallOptions {
        timeout: Duration::from_millis(1400),
        ..Default::default()
    };
    let o = r.call("classify_intent", opts).await.unwrap();
    assert!(!o.result.is_error, "{:?}", o.result);
    assert!(o.progress >= 2, "{} heartbeats", o.progress);
    let last = o.last_progress.unwrap();
    assert!(
        last.message
            .unwrap()
            .starts_with("waiting for mcp-intent-classifier-prod")
    );
    r.done().await;
}
