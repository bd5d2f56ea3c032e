//! The background ticker: on every tick it completes lifecycles, then calls down into the
//! services that act on time (autoscaling, alarms, the containers' logs) and prunes old metrics.

use std::sync::Arc;

use crate::sandbox::autoscaling::evaluate::evaluate as autoscale;
use crate::sandbox::logs::content;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

/// The background ticker: completes lifecycles, runs autoscaling, evaluates alarms, prunes old
/// metrics.
pub async fn run_ticker(sb: Arc<Sandbox>) {
    let mut interval = tokio::time::interval(sb.config.timing.tick);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_prune = now_epoch();
    loop {
        interval.tick().await;
        let now = now_epoch();
        sb.world.write().advance(now);
        autoscale(&sb, now);
        sb.alarms.evaluate(&sb.metrics, now);
        crate::sandbox::sagemaker::deploy::progress::advance(&sb, now);
        content::tick(&sb, now);
        if now - last_prune > 300.0 {
            sb.metrics.prune(now);
            last_prune = now;
        }
    }
}
