//! Bob's sagedeck writes the team's audit trail: the lines it would put in the CloudWatch Logs
//! group [`AUDIT_GROUP`] (stream `bob@<HOST>`, group and stream created on first use), in the
//! audit log's JSON shape — an intent with his reason before each weight change, its result
//! after, and the `promote.plan` announcements of a plan he runs now and then (its start, each
//! step, its end), so the console's Activity pane, Timeline and `promote --status` have a
//! teammate to show.

use serde_json::{Value, json};

use crate::sandbox::cloudtrail::identity::{BOB_KEY, Identity};
use crate::sandbox::world::clock::{iso8601, now_epoch};
use crate::sandbox::world::sandbox::Sandbox;

/// The team's audit trail the demo's console reads (its `audit_log_group`).
pub const AUDIT_GROUP: &str = "/sagedeck/audit";
/// The host bob's sagedeck runs on.
pub const HOST: &str = "bobs-laptop";
/// The steps of bob's plan (each one a turn of his).
pub const PLAN_STEPS: usize = 3;
/// The reason bob types for a weight change.
pub const NUDGE_REASON: &str = "checking the canary at a little more traffic";
/// The reason bob types for his plan.
pub const PLAN_REASON: &str = "rolling out the retrained canary";
/// The process id bob's plan announces (his, on his own host: never judged by this host's).
const PLAN_PID: u32 = 4242;

/// One line of bob's audit trail.
pub struct Line<'a> {
    /// Intent or result.
    pub phase: &'a str,
    /// Pairs an intent with its result.
    pub id: &'a str,
    /// `weights.set`, `promote.plan`.
    pub action: &'a str,
    /// The endpoint.
    pub target: &'a str,
    /// Before and requested state.
    pub before: Value,
    /// Requested state.
    pub after: Value,
    /// `ok`, `error: …`; None for an intent.
    pub result: Option<String>,
    /// Why, as bob typed it.
    pub reason: &'a str,
}

/// The stream bob's sagedeck writes.
pub fn stream() -> String {
    format!("bob@{HOST}")
}

/// `line` as bob's audit log writes it, stamped `epoch`.
fn text(sb: &Sandbox, epoch: f64, line: Line<'_>) -> String {
    let arn = Identity::of_key(Some(BOB_KEY), &sb.config.account).arn();
    json!({
        "time": iso8601(epoch),
        "epoch": epoch,
        "id": line.id,
        "phase": line.phase,
        "principal": arn,
        "profile": "default",
        "region": sb.config.region,
        "endpoint_url": null,
        "action": line.action,
        "target": line.target,
        "before": line.before,
        "after": line.after,
        "result": line.result,
        "request_id": null,
        "reason": line.reason,
    })
    .to_string()
}

/// Writes `line` to bob's stream of [`AUDIT_GROUP`] now (the group and stream created when
/// missing).
pub fn write(sb: &Sandbox, line: Line<'_>) {
    let epoch = now_epoch();
    let now_ms = (epoch * 1000.0) as i64;
    let stream = stream();
    sb.logs.create_group(AUDIT_GROUP, now_ms);
    let _ = sb.logs.create_stream(AUDIT_GROUP, &stream, now_ms);
    let message = text(sb, epoch, line);
    if let Err(e) = sb.logs.put(AUDIT_GROUP, &stream, &[(now_ms, message)], now_ms) {
        tracing::debug!("the demo's teammate's audit line was not written: {e:?}");
    }
}

/// A fresh id pairing an intent with its result.
pub fn new_id(turn: u64) -> String {
    format!("{:x}-bob-{turn}", (now_epoch() * 1000.0) as u64)
}

/// Where bob's plan is at `turn` (of [`plan_turn`]): its phase and 1-based step.
fn plan_phase(step: usize) -> (&'static str, usize) {
    if step > PLAN_STEPS {
        ("completed", PLAN_STEPS)
    } else {
        ("baking", step)
    }
}

/// Announces step `step` of bob's plan `plan` on `endpoint` (`PLAN_STEPS + 1`: its end),
/// saying it beats every `heartbeat_secs` (his turns), as a running plan's sagedeck does.
pub fn announce(sb: &Sandbox, (plan, endpoint): (&str, &str), step: usize, heartbeat_secs: f64) {
    let (phase, at) = plan_phase(step);
    let line = Line {
        phase: "result",
        id: &format!("{plan}-{step}"),
        action: "promote.plan",
        target: endpoint,
        before: Value::Null,
        after: json!({
            "plan": plan,
            "phase": phase,
            "step": at,
            "steps": PLAN_STEPS,
            "host": HOST,
            "pid": PLAN_PID,
            "heartbeat_secs": heartbeat_secs,
        }),
        result: Some("announced".into()),
        reason: PLAN_REASON,
    };
    write(sb, line);
}

/// The intent of bob's weight change on `endpoint`: Canary from `from` to `to` (Stable 9).
pub fn weights_intent(sb: &Sandbox, id: &str, endpoint: &str, (from, to): (f64, f64)) {
    write(sb, weights_line(id, endpoint, (from, to), None));
}

/// The result of bob's weight change `id` (`ok`, or AWS's refusal).
pub fn weights_result(sb: &Sandbox, id: &str, endpoint: &str, (from, to): (f64, f64), result: String) {
    write(sb, weights_line(id, endpoint, (from, to), Some(result)));
}

fn weights_line<'a>(id: &'a str, endpoint: &'a str, (from, to): (f64, f64), result: Option<String>) -> Line<'a> {
    let split = |canary: f64| {
        json!([
            {"variant": "Stable", "weight": 9.0, "share": 9.0 / (9.0 + canary)},
            {"variant": "Canary", "weight": canary, "share": canary / (9.0 + canary)},
        ])
    };
    Line {
        phase: if result.is_some() { "result" } else { "intent" },
        id,
        action: "weights.set",
        target: endpoint,
        before: json!({ "variants": split(from) }),
        after: json!({
            "variants": split(to),
            "changes": [{"variant": "Canary", "weight": to, "instances": null}],
        }),
        result,
        reason: NUDGE_REASON,
    }
}

/// What bob does at `turn` (1, 2, …) of a cycle of `cycle` turns: his plan's step (1-based;
/// `PLAN_STEPS + 1` announces its end) when the plan runs then, else None (a weight change).
/// The plan starts at the cycle's fourth turn and takes a turn a step.
pub fn plan_turn(turn: u64, cycle: u64) -> Option<usize> {
    let p = (turn % cycle) as usize;
    (4..=4 + PLAN_STEPS).contains(&p).then(|| p - 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_runs_a_few_turns_of_each_cycle() {
        let steps: Vec<Option<usize>> = (1..=12).map(|t| plan_turn(t, 12)).collect();
        let mut want = vec![None; 12];
        (want[3], want[4], want[5], want[6]) = (Some(1), Some(2), Some(3), Some(4));
        assert_eq!(steps, want);
        assert_eq!(plan_phase(4), ("completed", 3));
        assert_eq!(plan_phase(2), ("baking", 2));
    }
}
