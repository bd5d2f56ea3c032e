//! Simulated traffic: a diurnal-ish rate with bursts, spread over the fleet, routed through the
//! variants' weights, and hitting multi-model endpoints with skewed (Zipf) model popularity so
//! caches churn, and the serving inference components of IC endpoints. Generated calls go
//! through the same invocation core as real ones.

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Poisson, Zipf};

use crate::sandbox::runtime::invoke::invoke;
use crate::sandbox::runtime::request::InvokeRequest;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::containers::ContainerKind;
use crate::sandbox::world::hash::fxhash;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{EndpointStatus, World};

/// The traffic multiplier at `t` (epoch seconds): a day-long wave and deterministic bursts of
/// three times the rate for 45 s in one five-minute window of four.
pub fn rate_factor(t: f64, seed: u64) -> f64 {
    let day = (t.rem_euclid(86_400.0)) / 86_400.0;
    let diurnal = 1.0 + 0.5 * (std::f64::consts::TAU * (day - 0.375)).sin();
    let window = (t / 300.0).floor() as u64;
    let burst = if fxhash(&format!("{seed}:{window}")).is_multiple_of(4) && t.rem_euclid(300.0) < 45.0 {
        3.0
    } else {
        1.0
    };
    diurnal * burst
}

/// The demo endpoint whose load rises and falls so that its autoscaling acts within minutes.
pub const WAVE_ENDPOINT: &str = "mcp-autoscaling-demo";

/// The relative share of traffic an endpoint receives at `t`: constant, except for
/// [`WAVE_ENDPOINT`], busy for two minutes (share 4) then quiet for two (share 0.3).
pub fn endpoint_share_at(name: &str, t: f64) -> f64 {
    if name != WAVE_ENDPOINT {
        return endpoint_share(name);
    }
    if t.rem_euclid(240.0) < 120.0 { 4.0 } else { 0.3 }
}

/// The relative share of traffic an endpoint receives.
pub fn endpoint_share(name: &str) -> f64 {
    match name {
        "mcp-intent-classifier-prod" => 4.0,
        "mcp-multi-model-endpoint" => 3.0,
        n if n.starts_with("fleet-") => 0.05,
        // Long asynchronous jobs: a request every few seconds keeps its queue moving.
        "mcp-async-summarizer" => 0.1,
        _ => 1.0,
    }
}

struct Target {
    name: String,
    kind: ContainerKind,
    share: f64,
    models: Vec<String>,
    /// The inference component called (on an IC endpoint).
    component: Option<String>,
}

fn snapshot(world: &World, now: f64) -> Vec<Target> {
    let mut targets: Vec<Target> = world
        .endpoints
        .values()
        .filter(|e| {
            matches!(
                e.status,
                EndpointStatus::InService | EndpointStatus::Updating | EndpointStatus::RollingBack
            )
        })
        .filter(|e| !world.components.is_ic_endpoint(&e.name))
        .filter_map(|e| {
            let v = e.variants.first()?;
            let models = if v.sim.multi_model {
                let model = world.models.get(&v.model_name)?;
                let (bucket, prefix) = World::split_s3_url(model.container.model_data_url.as_deref()?)?;
                world
                    .buckets
                    .get(&bucket)
                    .map(|b| {
                        b.range(prefix.clone()..)
                            .take_while(|(k, _)| k.starts_with(&prefix))
                            .filter(|(_, o)| o.size < 20_000_000_000)
                            .map(|(k, _)| k[prefix.len()..].to_string())
                            .collect()
                    })
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            Some(Target {
                name: e.name.clone(),
                kind: v.sim.kind,
                share: endpoint_share_at(&e.name, now),
                models,
                component: None,
            })
        })
        .collect();
    targets.extend(component_targets(world, now));
    targets
}

/// The serving components of the IC endpoints in service (at least one copy), each an equal
/// part of its endpoint's share; components at zero copies get no traffic.
fn component_targets(world: &World, now: f64) -> Vec<Target> {
    let mut out = Vec::new();
    for e in world
        .endpoints
        .values()
        .filter(|e| e.status == EndpointStatus::InService)
    {
        let serving: Vec<_> = world
            .components
            .on_endpoint(&e.name)
            .filter(|c| world.components.copies(&c.name).is_some_and(|(_, current)| current > 0))
            .collect();
        for c in &serving {
            out.push(Target {
                name: e.name.clone(),
                kind: c.sim.kind,
                share: endpoint_share_at(&e.name, now) / serving.len() as f64,
                models: Vec::new(),
                component: Some(c.name.clone()),
            });
        }
    }
    out
}

/// Runs the generator forever at `rate` invocations per second (before the rate factor). Each
/// tick draws its calls at once (one Poisson draw over the whole fleet) and gives each to a
/// target picked by share (a binary search over the running sum), so a tick costs the calls it
/// makes, not the fleet's size; the targets are read again once a second.
pub async fn run(sb: Arc<Sandbox>, rate: f64) {
    let tick = Duration::from_millis(100);
    let mut interval = tokio::time::interval(tick);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut rng = StdRng::seed_from_u64(sb.config.seed ^ 0x7261_6666_6963);
    let mut last_gauges = 0.0;
    let (mut targets, mut running_sum, mut read_at) = (Vec::new(), Vec::new(), f64::NEG_INFINITY);
    loop {
        interval.tick().await;
        let now = now_epoch();
        if now - read_at >= 1.0 {
            targets = snapshot(&sb.world.read(), now);
            running_sum = targets
                .iter()
                .scan(0.0, |sum, t| {
                    *sum += t.share;
                    Some(*sum)
                })
                .collect();
            read_at = now;
        }
        let total_share = running_sum.last().copied().unwrap_or(0.0);
        if total_share <= 0.0 {
            continue;
        }
        let lambda = rate * rate_factor(now, sb.config.seed) * tick.as_secs_f64();
        let n = Poisson::new(lambda.max(1e-9))
            .map(|p| p.sample(&mut rng) as u64)
            .unwrap_or(0);
        for _ in 0..n {
            let pick = rng.random::<f64>() * total_share;
            let i = running_sum.partition_point(|s| *s <= pick).min(targets.len() - 1);
            call(&sb, &targets[i], &mut rng, now);
        }
        if now - last_gauges >= 10.0 {
            last_gauges = now;
            record_gauges(&sb, now, rate * rate_factor(now, sb.config.seed));
        }
        // Keep the generator from being perfectly regular.
        if rng.random::<f64>() < 0.01 {
            tokio::task::yield_now().await;
        }
    }
}

/// One generated call to a target: queued on an asynchronous endpoint, else invoked (an MME's
/// model picked by Zipf popularity).
fn call(sb: &Sandbox, t: &Target, rng: &mut StdRng, now: f64) {
    let (content_type, body) = t.kind.sample_request();
    if crate::sandbox::runtime::asynchronous::enqueue_generated(sb, &t.name, content_type, &body, now) {
        return;
    }
    let model = if t.models.is_empty() {
        None
    } else {
        let zipf = Zipf::new(t.models.len() as f64, 1.1).ok();
        let idx = zipf.map(|z| z.sample(rng) as usize - 1).unwrap_or(0);
        t.models.get(idx.min(t.models.len() - 1)).cloned()
    };
    let req = InvokeRequest {
        endpoint: &t.name,
        content_type,
        accept: Some("application/json"),
        body: &body,
        target_model: model.as_deref(),
        inference_component: t.component.as_deref(),
        ..Default::default()
    };
    let _ = invoke(sb, &req, now);
}

/// Records the per-instance gauges of every serving variant.
pub fn record_gauges(sb: &Sandbox, now: f64, fleet_rate: f64) {
    let world = sb.world.read();
    let total: f64 = world
        .endpoints
        .keys()
        .map(|n| endpoint_share_at(n, now))
        .sum::<f64>()
        .max(1.0);
    for e in world
        .endpoints
        .values()
        .filter(|e| e.status == EndpointStatus::InService)
    {
        let per_minute = fleet_rate * 60.0 * endpoint_share_at(&e.name, now) / total;
        for v in &e.variants {
            v.sim.record_gauges(now, per_minute);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wave_endpoint_is_busy_two_minutes_then_quiet_two() {
        let t0 = 1_700_000_160.0; // a multiple of 240
        assert_eq!(endpoint_share_at(WAVE_ENDPOINT, t0 + 10.0), 4.0);
        assert_eq!(endpoint_share_at(WAVE_ENDPOINT, t0 + 130.0), 0.3);
        assert_eq!(endpoint_share_at(WAVE_ENDPOINT, t0 + 250.0), 4.0);
        assert_eq!(
            endpoint_share_at("llm-tgi-chat", t0 + 130.0),
            endpoint_share("llm-tgi-chat")
        );
    }
}
