//! The demo's second person: bob, with his own access key, nudges the canary of
//! [`TEAMMATE_ENDPOINT`] between weight 1 and 2 now and then, through the SageMaker control
//! plane's own handler, so his change is served, recorded in CloudTrail and shown like anyone's.
//! He is polite: he leaves the endpoint alone unless it is InService with the weights the demo
//! gave it (Stable 9, Canary 1 or 2), so he never undoes an operator's rollout. His sagedeck
//! writes the team's audit trail (`trail.rs`): each change with his reason, and, once every
//! [`CYCLE`] turns, a plan he announces step by step.

pub mod trail;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::sandbox::cloudtrail::identity::{BOB_KEY, Caller};
use crate::sandbox::sagemaker::control;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::EndpointStatus;

/// The endpoint bob changes.
pub const TEAMMATE_ENDPOINT: &str = "mcp-intent-classifier-prod";
/// The user agent of bob's calls: the AWS CLI.
pub const TEAMMATE_USER_AGENT: &str = "aws-cli/2.22.0 md/awscrt#0.23.4 ua/2.0 os/linux#6.8.0 md/arch#x86_64 lang/python#3.12.6 md/pyimpl#CPython cfg/retry-mode#standard md/installer#exe md/distrib#ubuntu.24 md/prompt#off md/command#sagemaker.update-endpoint-weights-and-capacities";

/// Bob's turns in a cycle: a weight change on most, his plan's start, steps and end on
/// a few (`trail::plan_turn`).
pub const CYCLE: u64 = 12;

/// Runs bob: a turn every `every`, the first after one `every`.
pub async fn run(sb: Arc<Sandbox>, every: Duration) {
    let first = tokio::time::Instant::now() + every;
    let mut interval = tokio::time::interval_at(first, every);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    for turn in 1.. {
        interval.tick().await;
        take_turn(&sb, turn, every);
    }
}

/// Bob's `turn`: a step of his plan (announced in the team's trail, beating every `every`)
/// or a weight change.
pub fn take_turn(sb: &Sandbox, turn: u64, every: Duration) {
    match trail::plan_turn(turn, CYCLE) {
        Some(step) => {
            let plan = format!("bob-plan-{}", turn / CYCLE + 1);
            trail::announce(sb, (&plan, TEAMMATE_ENDPOINT), step, every.as_secs_f64());
        }
        None => {
            nudge(sb, turn);
        }
    }
}

/// The canary weight bob would set now: the other of 1 and 2, when the endpoint is as the demo
/// left it; None when someone else is working on it (or it is gone).
pub fn next_canary_weight(sb: &Sandbox) -> Option<f64> {
    let world = sb.world.read();
    let ep = world.endpoints.get(TEAMMATE_ENDPOINT)?;
    if ep.status != EndpointStatus::InService || ep.variants.len() != 2 {
        return None;
    }
    let stable = ep.variant("Stable")?;
    let canary = ep.variant("Canary")?;
    let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let (s, c) = (stable.current_weight, canary.current_weight);
    if !near(s, 9.0) {
        return None;
    }
    if near(c, 1.0) {
        Some(2.0)
    } else if near(c, 2.0) {
        Some(1.0)
    } else {
        None
    }
}

/// One change by bob (his `turn`), when the endpoint lets him, written to the team's trail
/// first (intent, then result); true when it was sent and accepted.
pub fn nudge(sb: &Sandbox, turn: u64) -> bool {
    let Some(weight) = next_canary_weight(sb) else {
        return false;
    };
    let (id, weights) = (trail::new_id(turn), (3.0 - weight, weight));
    trail::weights_intent(sb, &id, TEAMMATE_ENDPOINT, weights);
    let body = json!({
        "EndpointName": TEAMMATE_ENDPOINT,
        "DesiredWeightsAndCapacities": [{"VariantName": "Canary", "DesiredWeight": weight}],
    });
    let caller = Caller::internal(BOB_KEY, TEAMMATE_USER_AGENT, &sb.config.account);
    let sent = control::call(
        sb,
        "UpdateEndpointWeightsAndCapacities",
        body.to_string().as_bytes(),
        &caller,
    );
    let result = match &sent {
        Ok(_) => "ok".to_string(),
        Err(e) => {
            tracing::debug!("the demo's teammate was refused: {} {}", e.code, e.message);
            format!("error: {}: {}", e.code, e.message)
        }
    };
    trail::weights_result(sb, &id, TEAMMATE_ENDPOINT, weights, result);
    sent.is_ok()
}
