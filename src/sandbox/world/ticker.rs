//! The background ticker: on every tick it completes lifecycles, then calls down into the
//! services that act on time (autoscaling, alarms and the rolling updates they roll back, the
//! containers' logs, the inference components' gauges) and prunes old metrics.

use std::sync::Arc;

use crate::sandbox::autoscaling::evaluate::evaluate as autoscale;
use crate::sandbox::cloudwatch::alarms::state_value::StateValue;
use crate::sandbox::logs::content;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

/// The background ticker: completes lifecycles, runs autoscaling, evaluates alarms, prunes old
/// metrics.
pub async fn run_ticker(sb: Arc<Sandbox>) {
    let mut interval = tokio::time::interval(sb.config.timing.tick);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_prune = now_epoch();
    let mut last_gauges = 0.0;
    let gauge_every = sb.config.timing.tick.as_secs_f64() * 40.0;
    loop {
        interval.tick().await;
        let now = now_epoch();
        if sb.world.read().needs_advance(now) {
            sb.world.write().advance(now);
        }
        autoscale(&sb, now);
        sb.alarms.evaluate(&sb.metrics, now);
        roll_back_on_alarms(&sb, now);
        if now - last_gauges >= gauge_every {
            last_gauges = now;
            sb.world.read().components.record_gauges(&sb.metrics, now);
            record_serverless_gauges(&sb, now);
        }
        crate::sandbox::sagemaker::deploy::progress::advance(&sb, now);
        crate::sandbox::runtime::asynchronous::process::advance(&sb, now);
        content::tick(&sb, now);
        if now - last_prune > 300.0 {
            sb.metrics.prune(now);
            last_prune = now;
        }
    }
}

/// Records every serverless variant's gauges (concurrency and provisioned concurrency).
fn record_serverless_gauges(sb: &Sandbox, now: f64) {
    let world = sb.world.read();
    for v in world.endpoints.values().flat_map(|e| &e.variants) {
        if let Some(s) = v.sim.serverless.get() {
            s.record_gauges(now);
        }
    }
}

/// Rolls back the rolling updates of inference components whose alarms are in ALARM.
fn roll_back_on_alarms(sb: &Sandbox, now: f64) {
    if !sb.world.read().components.items.values().any(|c| c.rollout.is_some()) {
        return;
    }
    let firing: Vec<String> = sb
        .alarms
        .states()
        .into_iter()
        .filter(|a| a.value == StateValue::Alarm)
        .map(|a| a.name)
        .collect();
    sb.world
        .write()
        .components
        .trip_rollouts(|alarm| firing.iter().any(|f| f == alarm), now);
}
