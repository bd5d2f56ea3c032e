//! Compare-and-swap and the audit log: a change made behind the operator's back between read and
//! apply is refused with its differences and nothing sent; `--expect` on the CLI; intent and
//! result lines with principal (STS), request id and reason; an unwritable audit log blocks the
//! mutation.

use std::sync::Arc;
use std::time::Duration;

use sagedeck::aws::change::audit::{Audit, AuditContext, AuditPhase};
use sagedeck::aws::change::guard::{Audited, Expectation, GuardError};
use sagedeck::aws::change::weights::{WeightChange, plan_weights};

use super::support::{DEMO_EP, State, actions};
use crate::common::{demo_config, fleet, sandbox_with};

const UPDATE: &str = "UpdateEndpointWeightsAndCapacities";

fn canary(w: f64) -> Vec<WeightChange> {
    vec![WeightChange {
        variant: "Canary".into(),
        weight: Some(w),
        instances: None,
    }]
}

#[tokio::test]
async fn a_change_made_behind_the_back_is_refused_and_nothing_is_sent() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audited = Audited {
        audit: Arc::new(Audit::open(dir.path().join("audit.jsonl")).unwrap()),
        ctx: AuditContext::from_fleet(&f).await,
    };
    assert_eq!(
        audited.ctx.principal.as_deref(),
        Some("arn:aws:iam::123456789012:user/alice"),
        "the principal comes from STS GetCallerIdentity"
    );
    assert_eq!(sb.sandbox.request_count("GetCallerIdentity"), 1);

    // The operator looks...
    let seen_info = f.endpoint(DEMO_EP).await.unwrap();
    let seen = Expectation::from_info(&seen_info);
    // ...someone else changes the weights (unguarded) and the endpoint settles...
    f.apply_weights(&plan_weights(&seen_info, &canary(3.0)).unwrap())
        .await
        .unwrap();
    f.wait_in_service(DEMO_EP, Duration::from_secs(30), Duration::from_millis(50), |_| {})
        .await
        .unwrap();
    assert_eq!(sb.sandbox.request_count(UPDATE), 1);
    // ...and the operator's change, built on what they saw, is refused.
    let mine = plan_weights(&seen_info, &canary(5.0)).unwrap();
    let err = f
        .apply_weights_guarded(&mine, &seen, &audited, "weights.set", Some("test".into()))
        .await
        .unwrap_err();
    let GuardError::Changed { differences, .. } = &err else {
        panic!("expected a refusal, got {err:?}")
    };
    let fields: Vec<(&str, &str, &str, &str)> = differences
        .iter()
        .map(|d| {
            (
                d.variant.as_str(),
                d.field.as_str(),
                d.expected.as_str(),
                d.actual.as_str(),
            )
        })
        .collect();
    assert!(fields.contains(&("Canary", "current_weight", "1", "3")), "{fields:?}");
    assert!(fields.contains(&("Canary", "desired_weight", "1", "3")), "{fields:?}");
    assert!(err.to_string().contains("Canary current_weight 1 → 3"), "{err}");
    assert_eq!(sb.sandbox.request_count(UPDATE), 1, "the refused change was not sent");
    let recs = Audit::read(audited.audit.path(), None).unwrap();
    assert_eq!(recs.len(), 1, "only the refusal is logged: {recs:?}");
    assert!(recs[0].result.as_deref().unwrap().starts_with("refused:"));

    // Looking again, the change goes through, with intent and result logged.
    let fresh = f.endpoint(DEMO_EP).await.unwrap();
    let applied = f
        .apply_weights_guarded(
            &plan_weights(&fresh, &canary(5.0)).unwrap(),
            &Expectation::from_info(&fresh),
            &audited,
            "weights.set",
            Some("INC-7".into()),
        )
        .await
        .unwrap();
    assert_eq!(sb.sandbox.request_count(UPDATE), 2);
    let recs = Audit::read(audited.audit.path(), None).unwrap();
    let (intent, result) = (&recs[1], &recs[2]);
    assert_eq!((intent.phase, result.phase), (AuditPhase::Intent, AuditPhase::Result));
    assert_eq!(intent.id, result.id);
    assert_eq!(result.result.as_deref(), Some("ok"));
    assert!(applied.request_id.is_some());
    assert_eq!(result.request_id, applied.request_id);
    assert_eq!(intent.reason.as_deref(), Some("INC-7"));
    assert_eq!(intent.before["variants"][1]["current_weight"], 3.0);

    // While it updates, a change built on the InService view is refused on the status.
    let err = f
        .apply_weights_guarded(
            &plan_weights(&fresh, &canary(7.0)).unwrap(),
            &Expectation::from_info(&fresh),
            &audited,
            "weights.set",
            None,
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("status InService → Updating"), "{err}");
    assert_eq!(sb.sandbox.request_count(UPDATE), 2);
}

#[tokio::test]
async fn cli_expect_refuses_on_mismatch_and_audits_what_it_sends() {
    let sb = sandbox_with(demo_config()).await;
    let st = State::new();
    let stale = st
        .cli(
            &sb,
            &[
                "weights",
                DEMO_EP,
                "--set",
                "Canary=2",
                "--expect",
                "Stable=9,Canary=2",
                "--yes",
                "--json",
            ],
        )
        .await;
    assert_eq!(stale.code, 6, "{}", stale.stderr);
    assert!(
        stale.stderr.contains("Canary current_weight 2 → 1") && stale.stderr.contains("nothing was sent"),
        "{}",
        stale.stderr
    );
    assert_eq!(stale.json()["differences"][0]["field"], "current_weight");
    assert_eq!(sb.sandbox.request_count(UPDATE), 0);

    let ok = st
        .cli(
            &sb,
            &[
                "weights",
                DEMO_EP,
                "--set",
                "Canary=2",
                "--expect",
                "Stable=9,Canary=1",
                "--yes",
                "--wait",
                "--json",
                "--reason",
                "INC-42 shift",
            ],
        )
        .await;
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert_eq!(ok.json()["final"]["variants"][1]["current_weight"], 2.0);
    let recs = st.audit();
    let acts = actions(&recs);
    assert_eq!(acts[0].0, "weights.set");
    assert!(acts[0].2.as_deref().unwrap().starts_with("refused:"));
    assert_eq!(acts[1], ("weights.set".into(), "intent".into(), None));
    assert_eq!(acts[2], ("weights.set".into(), "result".into(), Some("ok".into())));
    let r = &recs[2];
    assert_eq!(r.reason.as_deref(), Some("INC-42 shift"));
    assert_eq!(r.profile, "default");
    assert_eq!(r.region, "us-east-1");
    assert_eq!(r.endpoint_url.as_deref(), Some(sb.endpoint_url().as_str()));
    assert!(r.principal.as_deref().unwrap().ends_with("user/alice"));
    assert!(r.request_id.is_some());
    assert_eq!(r.after["variants"][1]["weight"], 2.0);
    let raw = std::fs::read_to_string(st.audit_path()).unwrap();
    assert!(!raw.contains("sandbox-secret"), "no secret in the audit log");

    // Without --expect, the CLI compares with what it read at its start: here it succeeds.
    let again = st
        .cli(&sb, &["weights", DEMO_EP, "--set", "Canary=1", "--yes", "--wait"])
        .await;
    assert_eq!(again.code, 0, "{}", again.stderr);
    let listed = st.cli(&sb, &["audit", "--since", "1h", "--json"]).await;
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert_eq!(listed.json()["records"].as_array().unwrap().len(), 5);
    let human = st.cli(&sb, &["audit"]).await;
    assert!(
        human.stdout.starts_with("TIME") && human.stdout.contains("INC-42 shift"),
        "{}",
        human.stdout
    );
}

#[tokio::test]
async fn an_unwritable_audit_log_blocks_the_mutation() {
    let sb = sandbox_with(demo_config()).await;
    let st = State::new();
    // A file where the log's directory should be: the log cannot be opened.
    let blocker = st.dir.path().join("not-a-dir");
    std::fs::write(&blocker, b"x").unwrap();
    let under_file = blocker.join("audit.jsonl");
    // /dev/full opens, but every write fails (ENOSPC): the intent line cannot be written.
    for path in [under_file.to_str().unwrap(), "/dev/full"] {
        let r = st
            .cli(
                &sb,
                &["weights", DEMO_EP, "--set", "Canary=2", "--yes", "--audit-file", path],
            )
            .await;
        assert_eq!(r.code, 6, "{path}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert!(
            r.stderr.contains("cannot write the audit log") && r.stderr.contains("nothing was sent"),
            "{}",
            r.stderr
        );
        let p = st
            .cli(
                &sb,
                &[
                    "promote",
                    DEMO_EP,
                    "--canary",
                    "Canary",
                    "--steps",
                    "50,100",
                    "--auto",
                    "--bake",
                    "1s",
                    "--audit-file",
                    path,
                ],
            )
            .await;
        assert_eq!(p.code, 6, "{path}: {}", p.stderr);
        let w = st
            .cli(
                &sb,
                &["prewarm", "mcp-multi-model-endpoint", "--all", "--audit-file", path],
            )
            .await;
        assert_eq!(w.code, 6, "{path}: {}", w.stderr);
        // The held plan from the refused promotion is rolled back for the next round.
        std::fs::remove_file(st.plan_path(DEMO_EP)).ok();
    }
    assert_eq!(sb.sandbox.request_count(UPDATE), 0, "nothing was sent");
    assert_eq!(sb.sandbox.request_count("InvokeEndpoint"), 0, "no prewarm was sent");
}

#[tokio::test]
async fn without_sts_the_principal_is_unknown_but_the_change_is_made() {
    let sb = sandbox_with(demo_config()).await;
    sb.sandbox.faults.add(
        sagedeck::sandbox::faults::FaultSpec::parse_short("kind=expired_token,operation=GetCallerIdentity").unwrap(),
    );
    let st = State::new();
    let r = st.cli(&sb, &["weights", DEMO_EP, "--set", "Canary=2", "--yes"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let recs = st.audit();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].principal, None);
    assert_eq!(sb.sandbox.request_count("GetCallerIdentity"), 1);
    assert_eq!(sb.sandbox.request_count(UPDATE), 1);
}
