//! CloudWatch alarms as promotion gates on the sandbox: a plan refuses to start while a gate
//! alarm is in ALARM (nothing sent), an unknown alarm is a usage error, a composite alarm that
//! fires mid-bake fails the step and rolls back, and `sagedeck alarms` lists the alarms that
//! watch an endpoint with their states.

use sagedeck::sandbox::cloudwatch::alarms::{MetricAlarmSpec, StateValue};
use sagedeck::sandbox::{SandboxHandle, now_epoch};

use super::support::{EP, State, canary_config, two_step_plan};
use crate::common::{poll_until, sandbox_with};

/// A metric alarm on `endpoint`'s 5XX errors that never fires on its own.
fn put_errors_alarm(sb: &SandboxHandle, name: &str, endpoint: &str) {
    let mut spec = MetricAlarmSpec::new(name, "AWS/SageMaker", "Invocation5XXErrors");
    spec.dimensions = vec![("EndpointName".into(), endpoint.into())];
    spec.statistic = Some("Sum".into());
    spec.threshold = 1e9;
    sb.sandbox.alarms.put_metric_alarm(spec, now_epoch()).expect("alarm");
}

#[tokio::test]
async fn a_plan_does_not_start_under_a_firing_alarm_and_alarms_lists_them() {
    let sb = sandbox_with(canary_config(None)).await;
    put_errors_alarm(&sb, "ep-errors", EP);
    put_errors_alarm(&sb, "elsewhere", "another-endpoint");
    sb.sandbox
        .alarms
        .set_state("ep-errors", StateValue::Alarm, "drill", None, now_epoch())
        .expect("set state");
    let st = State::new();
    let args = |alarm: &'static str| {
        vec![
            "promote", EP, "--canary", "Canary", "--steps", "50,100", "--bake", "2s", "--auto", "--alarm", alarm,
        ]
    };
    let r = st.cli(&sb, &args("ep-errors")).await;
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert!(r.stderr.contains("alarm ep-errors is in ALARM (drill)"), "{}", r.stderr);
    assert_eq!(sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"), 0);
    assert!(st.plan(EP).is_none(), "no plan was saved");
    let r = st.cli(&sb, &args("no-such-alarm")).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no-such-alarm"), "{}", r.stderr);

    let listed = st.cli(&sb, &["alarms", EP, "--json"]).await;
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let doc = listed.json();
    let alarms = doc["alarms"].as_array().expect("alarms");
    assert_eq!(alarms.len(), 1, "{doc:#}");
    assert_eq!(alarms[0]["name"], "ep-errors");
    assert_eq!(alarms[0]["state"], "ALARM");
    let text = st.cli(&sb, &["alarms", EP]).await;
    assert!(
        text.stdout.contains("ep-errors") && text.stdout.contains("ALARM"),
        "{}",
        text.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_composite_alarm_firing_mid_bake_rolls_the_step_back() {
    let sb = sandbox_with(canary_config(Some(150.0))).await;
    put_errors_alarm(&sb, "ep-errors", EP);
    sb.sandbox
        .alarms
        .put_composite_alarm(
            sagedeck::sandbox::cloudwatch::alarms::CompositeAlarmSpec {
                name: "ep-health".into(),
                description: None,
                actions_enabled: true,
                actions: Default::default(),
                rule: "ALARM(ep-errors)".into(),
            },
            now_epoch(),
        )
        .expect("composite");
    let st = State::new();
    let args = two_step_plan(
        "20s",
        &[
            "--min-invocations",
            "10",
            "--max-p99-ratio",
            "100",
            "--alarm",
            "ep-health",
            "--json",
        ],
    );
    let promote = st.cli(&sb, &args);
    let fire = async {
        poll_until("the first bake", std::time::Duration::from_secs(60), || async {
            st.plan(EP).filter(|p| p["phase"] == "baking")
        })
        .await;
        sb.sandbox
            .alarms
            .set_state("ep-errors", StateValue::Alarm, "5XX burst", None, now_epoch())
            .expect("set state");
    };
    let (r, ()) = tokio::join!(promote, fire);
    assert_eq!(r.code, 7, "{}\n{}", r.stdout, r.stderr);
    let plan = r.json();
    assert_eq!(plan["phase"], "rolled_back", "{plan:#}");
    let gate = &plan["timeline"][0]["gate"];
    assert_eq!(gate["verdict"], "fail", "{gate:#}");
    assert!(
        gate["reasons"]
            .to_string()
            .contains("alarm ep-health entered ALARM during the bake"),
        "{gate:#}"
    );
    let saved = st.plan(EP).expect("saved plan");
    assert_eq!(saved["alarms"][0], "ep-health");
}
