//! Stateful sessions with boto3: a session opened with `SessionId="NEW_SESSION"` and a chat body,
//! kept across three calls that the sandbox's `x-sandbox-instance-id` header shows on the one
//! instance that opened it, then closed.

use serde_json::Value;

use super::{ENDPOINT, chat, three_instance_llm};
use crate::common::peer_setup::show;
use crate::common::sandbox;
use crate::compat_boto3::{ClientEnv, venv_async};

const SCRIPT: &str = r#"
import json, sys
import boto3
rt = boto3.client("sagemaker-runtime")
def call(body, **kw):
    r = rt.invoke_endpoint(EndpointName=sys.argv[1], ContentType="application/json", Body=body, **kw)
    r["Body"].read()
    return r
opened = call(sys.argv[2], SessionId="NEW_SESSION")
sid = opened["NewSessionId"].split(";")[0]
first = opened["ResponseMetadata"]["HTTPHeaders"]["x-sandbox-instance-id"]
kept = [call(sys.argv[2], SessionId=sid)["ResponseMetadata"]["HTTPHeaders"]["x-sandbox-instance-id"] for _ in range(3)]
closed = call(json.dumps({"requestType": "CLOSE"}), SessionId=sid)
print(json.dumps({"new": opened["NewSessionId"], "first": first, "kept": kept,
    "closed": closed.get("ClosedSessionId"), "sid": sid}))
"#;

#[tokio::test]
async fn boto3_keeps_a_session_on_one_instance_across_three_calls() {
    let venv = venv_async().await;
    let sb = sandbox().await;
    three_instance_llm(&sb).await;
    let env = ClientEnv::new(sb.endpoint_url());
    let out = env
        .run(venv, "boto3 sessions", &["-c", SCRIPT, ENDPOINT, &chat()])
        .await;
    assert!(out.status.success(), "{}", show(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", show(&out)));
    assert!(v["new"].as_str().unwrap().contains("; Expires="), "{v}");
    let first = v["first"].as_str().unwrap();
    assert!(first.starts_with("i-0"), "{v}");
    assert_eq!(v["kept"], serde_json::json!([first, first, first]), "{v}");
    assert_eq!(v["closed"], v["sid"], "{v}");
}
