//! `components --set-copies IC=N` over the wire: before → after, applied, followed, audited; and
//! each refusal with nothing sent: read-only (exit 5), a count AWS refuses, 0 where the variant
//! cannot scale to zero, an adapter (exit 2), a component not InService, one changed since it was
//! read (exit 6, a refusal line in the audit log).

use std::path::Path;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::InferenceComponentRuntimeConfig;
use sagedeck::aws::change::audit::Audit;
use sagedeck::aws::change::guard::{Audited, GuardError};
use sagedeck::aws::components::{ComponentChange, ComponentSnapshot};
use sagedeck::sandbox::SandboxHandle;

use super::setup::{adapter, component, ic_endpoint, model, wait_settled};
use crate::common::{CliRun, fleet, run_cli, sandbox, sdk_config};

/// `llm` (ManagedInstanceScaling from 1) with `chat` (2 copies) and its adapter `chat-lora`;
/// `zero` (ManagedInstanceScaling from 0) with `idle` (1 copy).
async fn fleet_of_components(sb: &SandboxHandle) -> Client {
    let sm = Client::new(&sdk_config(sb).await);
    model(&sm, "chat-model").await;
    ic_endpoint(&sm, "llm", 1).await;
    ic_endpoint(&sm, "zero", 0).await;
    component(&sm, "llm", "chat", "chat-model", 2).await;
    component(&sm, "zero", "idle", "chat-model", 1).await;
    wait_settled(&sm, &["chat"]).await;
    adapter(&sm, "llm", "chat-lora", "chat").await;
    wait_settled(&sm, &["idle", "chat-lora"]).await;
    sm
}

async fn copies(sm: &Client, ic: &str) -> (i32, i32) {
    let d = sm
        .describe_inference_component()
        .inference_component_name(ic)
        .send()
        .await
        .unwrap();
    let r = d.runtime_config().unwrap();
    (
        r.desired_copy_count().unwrap_or(-1),
        r.current_copy_count().unwrap_or(-1),
    )
}

async fn cli(sb: &SandboxHandle, audit: &Path, args: &[&str]) -> CliRun {
    let mut all = vec!["components"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--audit-file", audit.to_str().unwrap()]);
    run_cli(sb, &all).await
}

#[tokio::test]
async fn copies_are_set_shown_followed_and_audited() {
    let sb = sandbox().await;
    let sm = fleet_of_components(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");

    let r = cli(
        &sb,
        &audit,
        &[
            "llm",
            "--set-copies",
            "chat=3",
            "--yes",
            "--wait",
            "--reason",
            "more room",
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("chat on llm/AllTraffic: copies 2 → 3 (now 2 placed)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("chat is InService with 3 copies"), "{}", r.stdout);
    assert_eq!(copies(&sm, "chat").await, (3, 3));
    let lines = Audit::read(&audit, None).unwrap();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0].action, "components.set-copies");
    assert_eq!(lines[0].target, "chat");
    assert_eq!(lines[0].before["desired_copies"], 2);
    assert_eq!(lines[0].after["desired_copies"], 3);
    assert_eq!(lines[0].reason.as_deref(), Some("more room"));
    assert_eq!(lines[1].result.as_deref(), Some("ok"));

    // Zero on an endpoint whose variant scales to zero.
    let r = cli(&sb, &audit, &["zero", "--set-copies", "idle=0", "--yes", "--json"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["applied"], true);
    assert_eq!(copies(&sm, "idle").await.0, 0);
}

#[tokio::test]
async fn each_refusal_sends_nothing_and_says_why() {
    let sb = sandbox().await;
    let sm = fleet_of_components(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");

    let r = cli(&sb, &audit, &["llm", "--set-copies", "chat=3", "--yes", "--read-only"]).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("components --set-copies/--update changes things and read-only is on"),
        "{}",
        r.stderr
    );

    for (arg, why) in [
        ("chat=-1", "copies of chat must be 0 or more (got -1)"),
        ("chat=two", "is not a whole number"),
        ("chat", "is not IC=N"),
        (
            "chat=0",
            "chat cannot go to 0 copies: AWS allows 0 copies only when the variant's ManagedInstanceScaling is ENABLED with MinInstanceCount 0, and llm/AllTraffic has MinInstanceCount 1",
        ),
        (
            "chat-lora=2",
            "chat-lora is an adapter on chat: it has no copies of its own",
        ),
    ] {
        let r = cli(&sb, &audit, &["llm", "--set-copies", arg, "--yes"]).await;
        assert_eq!(r.code, 2, "{arg}: {}", r.stderr);
        assert!(r.stderr.contains(why), "{arg}: {}", r.stderr);
    }
    let r = cli(&sb, &audit, &["zero", "--set-copies", "chat=3", "--yes"]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("chat is a component of llm, not of zero"),
        "{}",
        r.stderr
    );
    assert_eq!(copies(&sm, "chat").await, (2, 2), "nothing was sent");
    assert!(Audit::read(&audit, None).unwrap().is_empty(), "nothing was audited");

    // Not InService: refused by the guardrail.
    sm.update_inference_component_runtime_config()
        .inference_component_name("chat")
        .desired_runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(4).build())
        .send()
        .await
        .unwrap();
    let r = cli(&sb, &audit, &["llm", "--set-copies", "chat=1", "--yes"]).await;
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert!(r.stderr.contains("refused: chat is Updating"), "{}", r.stderr);
    wait_settled(&sm, &["chat"]).await;
    assert_eq!(copies(&sm, "chat").await, (4, 4));
}

#[tokio::test]
async fn a_component_changed_since_it_was_read_is_refused() {
    let sb = sandbox().await;
    let sm = fleet_of_components(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let f = fleet(&sb).await;
    let seen = ComponentSnapshot::of(&f.describe_component("chat").await.unwrap());

    // Someone else sets 3 copies, and they are placed.
    sm.update_inference_component_runtime_config()
        .inference_component_name("chat")
        .desired_runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(3).build())
        .send()
        .await
        .unwrap();
    wait_settled(&sm, &["chat"]).await;

    let audited = Audited::open(&audit, &f).await.unwrap();
    let err = f
        .apply_component_change(&ComponentChange::Copies { count: 1 }, &seen, &audited, None)
        .await
        .unwrap_err();
    let GuardError::Changed { differences, .. } = &err else {
        panic!("not a refusal: {err:?}");
    };
    assert_eq!(differences.len(), 1);
    assert_eq!(differences[0].to_string(), "desired_copies 2 → 3");
    assert!(err.to_string().contains("nothing was sent"), "{err}");
    let lines = Audit::read(&audit, None).unwrap();
    assert_eq!(lines.len(), 1, "one refusal line, no intent: {lines:?}");
    assert!(
        lines[0].result.as_deref().unwrap_or_default().starts_with("refused:"),
        "{lines:?}"
    );
    // Nothing was sent: still the other writer's 3.
    assert_eq!(copies(&sm, "chat").await, (3, 3));
}
