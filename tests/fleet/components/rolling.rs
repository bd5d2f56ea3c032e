//! Rolling updates of a component's model over the wire: `components --update` followed to
//! InService on the new model (exit 0, the policy in LastDeploymentConfig, audited), and one an
//! alarm in ALARM rolls back (exit 7 with AWS's reason; the fleet layer reports RolledBack).

use std::time::Duration;

use aws_sdk_cloudwatch::types::{ComparisonOperator, StateValue, Statistic};
use aws_sdk_sagemaker::Client;
use sagedeck::aws::change::audit::Audit;
use sagedeck::aws::change::guard::Audited;
use sagedeck::aws::components::{BatchSize, ComponentChange, ComponentSnapshot, RollingUpdate, RolloutOutcome};
use sagedeck::sandbox::SandboxHandle;

use super::setup::{component, ic_endpoint, model, wait_settled};
use crate::common::{fleet, run_cli, sandbox, sdk_config};

/// `llm` with `chat` on `chat-v1` (2 copies); `chat-v2` exists.
async fn chat_on_v1(sb: &SandboxHandle) -> Client {
    let sm = Client::new(&sdk_config(sb).await);
    model(&sm, "chat-v1").await;
    model(&sm, "chat-v2").await;
    ic_endpoint(&sm, "llm", 1).await;
    component(&sm, "llm", "chat", "chat-v1", 2).await;
    wait_settled(&sm, &["chat"]).await;
    sm
}

/// An alarm `chat-errors` on the component's 5XX errors that treats missing data as breaching
/// (so that it stays in ALARM without traffic), set in ALARM at once.
async fn alarm(sb: &SandboxHandle) {
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(sb).await);
    cw.put_metric_alarm()
        .alarm_name("chat-errors")
        .namespace("AWS/SageMaker")
        .metric_name("Invocation5XXErrors")
        .dimensions(
            aws_sdk_cloudwatch::types::Dimension::builder()
                .name("InferenceComponentName")
                .value("chat")
                .build(),
        )
        .statistic(Statistic::Sum)
        .period(60)
        .evaluation_periods(1)
        .threshold(1.0)
        .comparison_operator(ComparisonOperator::GreaterThanOrEqualToThreshold)
        .treat_missing_data("breaching")
        .send()
        .await
        .unwrap();
    cw.set_alarm_state()
        .alarm_name("chat-errors")
        .state_value(StateValue::Alarm)
        .state_reason("forced by the test")
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn a_rolling_update_is_followed_to_the_new_model() {
    let sb = sandbox().await;
    let sm = chat_on_v1(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let args = [
        "components",
        "llm",
        "--update",
        "chat",
        "--model",
        "chat-v2",
        "--batch",
        "50%",
        "--bake",
        "0s",
        "--rollback-batch",
        "1",
        "--yes",
        "--audit-file",
        audit.to_str().unwrap(),
    ];
    let r = run_cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("chat on llm/AllTraffic: model chat-v1 → chat-v2, 50% capacity at a time, bake 0s, rollback 1 copy at a time"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("chat is InService on chat-v2"), "{}", r.stdout);
    assert!(r.stderr.contains("Updating"), "progress is shown: {}", r.stderr);
    let c = fleet(&sb).await.describe_component("chat").await.unwrap();
    assert_eq!(c.model.as_deref(), Some("chat-v2"));
    assert_eq!((c.copies.desired, c.copies.current), (2, 2));
    let last = c.last_deployment.expect("LastDeploymentConfig");
    assert_eq!(last.batch.as_deref(), Some("50% capacity"));
    assert_eq!(last.rollback_batch.as_deref(), Some("1 copy"));
    assert_eq!(last.bake_secs, Some(0));
    let lines = Audit::read(&audit, None).unwrap();
    assert_eq!(
        lines.iter().map(|l| l.action.as_str()).collect::<Vec<_>>(),
        ["components.update"; 2]
    );
    assert_eq!(lines[0].before["model"], "chat-v1");
    assert_eq!(lines[0].after["model"], "chat-v2");

    // The model it already serves, an adapter, a bad policy: refused before anything is sent.
    let again = run_cli(&sb, &["components", "--update", "chat", "--model", "chat-v2", "--yes"]).await;
    assert_eq!(again.code, 2, "{}", again.stderr);
    assert!(again.stderr.contains("chat already serves chat-v2"), "{}", again.stderr);
    let bad = run_cli(
        &sb,
        &[
            "components",
            "--update",
            "chat",
            "--model",
            "chat-v1",
            "--bake",
            "2h",
            "--yes",
        ],
    )
    .await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("--bake must be 0 to 3600 seconds"),
        "{}",
        bad.stderr
    );
    drop(sm);
}

#[tokio::test]
async fn an_alarm_in_alarm_rolls_the_update_back() {
    let sb = sandbox().await;
    let sm = chat_on_v1(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let f = fleet(&sb).await;
    let before = f.describe_component("chat").await.unwrap();
    let update = RollingUpdate {
        model: "chat-v2".into(),
        batch: BatchSize::Copies(1),
        bake_secs: 60,
        rollback_batch: None,
        timeout_secs: None,
        alarms: vec!["chat-errors".into()],
    };
    let audited = Audited::open(&audit, &f).await.unwrap();
    let change = ComponentChange::Update(Box::new(update));
    f.apply_component_change(&change, &ComponentSnapshot::of(&before), &audited, None)
        .await
        .unwrap();
    alarm(&sb).await;
    let report = f
        .follow_rollout(
            "chat",
            "chat-v2",
            before.modified,
            Duration::from_secs(60),
            Duration::from_millis(100),
            |_| {},
        )
        .await
        .unwrap();
    let RolloutOutcome::RolledBack { reason } = &report.outcome else {
        panic!("not rolled back: {report:?}");
    };
    assert!(
        reason.as_deref().unwrap_or_default().contains("chat-errors"),
        "{reason:?}"
    );
    assert_eq!(report.last.model.as_deref(), Some("chat-v1"));
    assert_eq!(report.from_model.as_deref(), Some("chat-v1"));
    wait_settled(&sm, &["chat"]).await;

    // The CLI says so with exit 7 when the alarm is already firing.
    let r = run_cli(
        &sb,
        &[
            "components",
            "llm",
            "--update",
            "chat",
            "--model",
            "chat-v2",
            "--bake",
            "1m",
            "--alarm",
            "chat-errors",
            "--yes",
            "--audit-file",
            audit.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(r.code, 7, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("chat rolled back to chat-v1"), "{}", r.stderr);
    assert!(r.stderr.contains("chat-errors"), "{}", r.stderr);
}
