//! The metric history backfilled at start so charts are not empty.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Binomial, Distribution, Poisson};

use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{EndpointStatus, Variant};
use crate::sandbox::world::traffic::{endpoint_share, endpoint_share_at, rate_factor};
use crate::sandbox::world::variant::VariantSeries;

/// Backfills `hours` of per-minute history for every serving demo variant from the same
/// rate curve and latency profiles the live simulation uses.
pub(super) fn backfill(sb: &Sandbox, hours: u32) {
    let now = now_epoch();
    let start = ((now - hours as f64 * 3600.0) / 60.0).floor() * 60.0;
    let world = sb.world.read();
    let rate = sb.config.traffic_rate.unwrap_or(25.0);
    let total_share: f64 = world.endpoints.keys().map(|n| endpoint_share(n)).sum::<f64>().max(1.0);
    let mut rng = StdRng::seed_from_u64(sb.config.seed ^ 0xbac4_f111);
    for ep in world
        .endpoints
        .values()
        .filter(|e| e.status != EndpointStatus::Creating && !e.name.starts_with("fleet-"))
        .filter(|e| !world.components.is_ic_endpoint(&e.name))
        // Asynchronous endpoints publish no invocation series.
        .filter(|e| {
            !world
                .configs
                .get(&e.config_name)
                .is_some_and(|c| c.extra.contains_key("AsyncInferenceConfig"))
        })
    {
        let weight_total: f64 = ep.variants.iter().map(|v| v.current_weight).sum::<f64>().max(1e-9);
        for v in &ep.variants {
            let share = v.current_weight / weight_total;
            let mut t = start.max(ep.creation_time);
            while t < now - 60.0 {
                let lambda =
                    rate * 60.0 * rate_factor(t, sb.config.seed) * share * endpoint_share_at(&ep.name, t) / total_share;
                backfill_minute(v, t, lambda, &mut rng);
                t += 60.0;
            }
        }
    }
}

/// One minute of a variant's history starting at `t`, `lambda` invocations expected: the
/// invocations drawn, and every ten minutes its gauges.
fn backfill_minute(v: &Variant, t: f64, lambda: f64, rng: &mut StdRng) {
    let n = Poisson::new(lambda.max(1e-9)).map(|p| p.sample(rng)).unwrap_or(0.0);
    if n >= 1.0 {
        record_invocations(v, t, n, rng);
        if v.sim.multi_model {
            record_cache(&v.sim.series, t, n, rng);
        }
    }
    if (t as i64) % 600 == 0 {
        if v.sim.multi_model {
            let counts: Vec<usize> = (0..v.current_instances.max(1))
                .map(|_| rng.random_range(3..=6))
                .collect();
            v.sim.record_gauges_of(t, lambda, &counts);
        } else {
            v.sim.record_gauges(t, lambda);
        }
    }
}

/// `n` invocations in the minute at `t`: their counts per variant and per instance, their 4xx
/// and 5xx errors, and up to 16 drawn model and overhead latencies standing for them all.
fn record_invocations(v: &Variant, t: f64, n: f64, rng: &mut StdRng) {
    let s = &v.sim.series;
    let instances = v.current_instances.max(1) as f64;
    let e5 = Binomial::new(n as u64, v.sim.profile.error_rate)
        .map(|b| b.sample(rng))
        .unwrap_or(0) as f64;
    let e4 = Binomial::new(n as u64, 0.004).map(|b| b.sample(rng)).unwrap_or(0) as f64;
    s.invocations.lock().record_stats(t, n, n, 1.0, 1.0);
    s.per_instance
        .lock()
        .record_stats(t, n, n / instances, 1.0 / instances, 1.0 / instances);
    s.errors_5xx
        .lock()
        .record_stats(t, n, e5, 0.0, if e5 > 0.0 { 1.0 } else { 0.0 });
    s.errors_4xx
        .lock()
        .record_stats(t, n, e4, 0.0, if e4 > 0.0 { 1.0 } else { 0.0 });
    let k = (n as usize).min(16);
    let latencies: Vec<f64> = (0..k).map(|_| v.sim.draw_model_latency_us(1.0)).collect();
    let overheads: Vec<f64> = (0..k).map(|_| v.sim.draw_overhead_us()).collect();
    let counts = vec![n / k as f64; k];
    s.model_latency.lock().record_values(t, &latencies, &counts);
    s.overhead_latency.lock().record_values(t, &overheads, &counts);
}

/// A multi-model variant's cache in the minute at `t` of `n` invocations: about 86% hits, and
/// for the misses up to 8 drawn loading waits, split into downloading and loading times.
fn record_cache(s: &VariantSeries, t: f64, n: f64, rng: &mut StdRng) {
    let hits = Binomial::new(n as u64, 0.86).map(|b| b.sample(rng)).unwrap_or(0) as f64;
    s.cache_hit.lock().record_stats(t, n, hits, 0.0, 1.0);
    let misses = n - hits;
    if misses >= 1.0 {
        let loads: Vec<f64> = (0..(misses as usize).min(8))
            .map(|_| rng.random_range(2.0e6..9.0e6))
            .collect();
        let c = vec![misses / loads.len() as f64; loads.len()];
        s.loading_wait.lock().record_values(t, &loads, &c);
        let dl: Vec<f64> = loads.iter().map(|l| l * 0.62).collect();
        s.downloading.lock().record_values(t, &dl, &c);
        let ld: Vec<f64> = loads.iter().map(|l| l * 0.38).collect();
        s.loading.lock().record_values(t, &ld, &c);
    }
}
