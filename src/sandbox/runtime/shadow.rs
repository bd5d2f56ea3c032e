//! The shadow's copy of a production call: a sampled share of the production variant's calls
//! (`sagemaker/shadow/`) also run on the shadow's container, whose answer never reaches the
//! caller; its metrics go under its own VariantName (the caller records them).

use std::sync::Arc;

use crate::sandbox::runtime::request::InvokeRequest;
use crate::sandbox::sagemaker::shadow::sampled_share;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::variant::VariantSim;

/// What the shadow did with its copy: its simulation, model latency (µs) and error status.
pub struct ShadowCall {
    /// The shadow variant's simulation (its series carry its VariantName).
    pub sim: Arc<VariantSim>,
    /// Model latency in microseconds.
    pub latency_us: f64,
    /// The container's error status, if it failed.
    pub error_status: Option<u16>,
}

/// Runs the shadow's copy of a call production variant `production` served, when the endpoint
/// has a shadow and this call is in its sampled share.
pub fn mirror(sb: &Sandbox, req: &InvokeRequest<'_>, production: &str, now: f64) -> Option<ShadowCall> {
    let (sim, share) = {
        let world = sb.world.read();
        let shadow = world.shadows.get(req.endpoint)?.first()?;
        let prod = world.endpoints.get(req.endpoint)?.variant(production)?;
        (
            shadow.sim.clone(),
            sampled_share(prod.current_weight, shadow.current_weight),
        )
    };
    if rand::random::<f64>() >= share {
        return None;
    }
    let reply = sim.kind.invoke_with(req.content_type, req.accept, req.body, None);
    let work = reply.as_ref().map(|r| r.work).unwrap_or(0.3);
    let latency_us = sim.draw_model_latency_us(work) * sim.load_factor(now);
    let error_status = match reply {
        Ok(_) if sim.draw_error() => Some(500),
        Ok(_) => None,
        Err(e) => Some(e.status),
    };
    Some(ShadowCall {
        sim,
        latency_us,
        error_status,
    })
}
