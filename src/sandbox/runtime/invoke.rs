//! The invocation core: routing by weight or TargetVariant (or to an inference component,
//! `component.rs`), injected faults, the multi-model
//! cache, the container's answer, its simulated latency, and the metrics and logs it feeds.

use std::sync::Arc;

use axum::http::StatusCode;

use crate::sandbox::faults::FaultKind;
use crate::sandbox::faults::errors::fault_error;
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::runtime::errors::{MAX_PAYLOAD, model_error, payload_too_large, validation_error};
use crate::sandbox::runtime::request::{InvokeRequest, Outcome};
use crate::sandbox::runtime::{component, instance, sessions};
use crate::sandbox::world::containers::answer::ContainerError;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{EndpointStatus, World};
use crate::sandbox::world::variant::{ModelAccess, VariantSim};

/// Runs one invocation through routing, faults, the MME cache and the container, and records
/// its metrics and container logs. Never sleeps: the caller decides whether to wait
/// `model_wait`/`forced_wait`.
pub fn invoke(sb: &Sandbox, req: &InvokeRequest<'_>, now: f64) -> Outcome {
    let out = invoke_unlogged(sb, req, now);
    crate::sandbox::logs::content::on_invocation(sb, req.endpoint, &out, now);
    out
}

fn invoke_unlogged(sb: &Sandbox, req: &InvokeRequest<'_>, now: f64) -> Outcome {
    if req.body.len() > MAX_PAYLOAD {
        return Outcome::early(None, payload_too_large(req.body.len()));
    }
    let ((variant, _, sim), catalog, multi_model) = match route(sb, req, now) {
        Ok(r) => r,
        Err(e) => return Outcome::early(None, e),
    };
    let mut out = Outcome {
        variant: Some(variant.clone()),
        sim: Some(sim.clone()),
        instance: instance::pick(sb, req, &variant, &sim),
        result: Err(validation_error("unreachable")),
        model_wait: 0.0,
        forced_wait: 0.0,
        transport_fault: None,
        llm_fault: None,
    };
    let fault = take_fault(sb, req, &variant);
    out.llm_fault = fault.as_ref().and_then(FaultKind::llm_fault);
    match &fault {
        Some(kind @ (FaultKind::Hang | FaultKind::Drop)) => out.transport_fault = Some(kind.clone()),
        // A slow container: the delay is waited and shows in ModelLatency too.
        Some(FaultKind::Slow { ms }) => out.forced_wait += *ms as f64 / 1000.0,
        Some(kind) => {
            if let Some(e) = fault_error(kind, sb, req.endpoint) {
                record_outcome(&sim, now, 0.0, Some(e.status.as_u16()));
                out.result = Err(e);
                return out;
            }
        }
        None => {}
    }
    if let (true, Some(model)) = (multi_model, req.target_model)
        && let Err(e) = load_target_model(sb, req, (&variant, &sim), catalog, model, &mut out, now)
    {
        out.result = Err(e);
        return out;
    }
    let slow_us = match &fault {
        Some(FaultKind::Slow { ms }) => *ms as f64 * 1e3,
        _ => 0.0,
    };
    if let Some(reply) = sessions::control_reply(req) {
        record_outcome(&sim, now, 0.0, None);
        out.result = Ok(reply);
        return out;
    }
    run_container(sb, req, &sim, slow_us, &mut out, now);
    out
}

/// Advances a due transition, then picks the variant (TargetVariant, else by weight) and
/// checks TargetModel against the endpoint's kind: the variant, the MME catalog, whether the
/// endpoint is multi-model.
fn route(sb: &Sandbox, req: &InvokeRequest<'_>, now: f64) -> Result<(RoutedVariant, Catalog, bool), ApiError> {
    // Snapshot what routing needs, then release the world.
    let due = sb
        .world
        .read()
        .endpoints
        .get(req.endpoint)
        .is_some_and(|e| e.transition.is_some());
    if due {
        sb.world.write().advance(now);
    }
    let world = sb.world.read();
    let (variants, catalog) = routing_snapshot(sb, &world, req)?;
    if let Some(routed) = component::route(sb, &world, req, now) {
        let (variant, sim) = routed?;
        return Ok(((variant, 1.0, sim), None, false));
    }
    drop(world);
    let multi_model = variants.iter().any(|v| v.2.multi_model);
    if let Some(e) = check_target_model(req, multi_model) {
        return Err(e);
    }
    let chosen = match req.target_variant {
        Some(tv) => variants
            .iter()
            .find(|v| v.0 == tv)
            .cloned()
            .ok_or_else(|| validation_error(format!("Variant {tv} not found for endpoint {}.", req.endpoint)))?,
        None => pick_weighted(&variants, now),
    };
    Ok((chosen, catalog, multi_model))
}

/// The fault armed for this invocation, if any (a streaming call also takes InvokeEndpoint's).
fn take_fault(sb: &Sandbox, req: &InvokeRequest<'_>, variant: &str) -> Option<FaultKind> {
    let op = if req.stream {
        "InvokeEndpointWithResponseStream"
    } else {
        "InvokeEndpoint"
    };
    sb.faults.take(op, Some(req.endpoint), Some(variant)).or_else(|| {
        if req.stream {
            sb.faults.take("InvokeEndpoint", Some(req.endpoint), Some(variant))
        } else {
            None
        }
    })
}

/// An MME's TargetModel through the instance's cache: a warm hit, a cold load (its wait added
/// to `out`), or an error (missing from S3, still loading).
fn load_target_model(
    sb: &Sandbox,
    req: &InvokeRequest<'_>,
    (variant, sim): (&str, &Arc<VariantSim>),
    catalog: Catalog,
    model: &str,
    out: &mut Outcome,
    now: f64,
) -> Result<(), ApiError> {
    let Some(size) = catalog.as_ref().and_then(|(_, objects)| objects.get(model).copied()) else {
        let (bucket, prefix) = catalog.map(|c| c.0).unwrap_or_default();
        record_outcome(sim, now, 0.0, Some(400));
        return Err(validation_error(format!(
            "Failed to download model data(bucket: {bucket}, key: {prefix}{model}). Please ensure that there is an object located at the URL and that the role passed to CreateModel has permissions to download the model."
        )));
    };
    let t = &sb.config.timing;
    let download = t.mme_download.as_secs_f64() * (size as f64 / 500e6).clamp(0.2, 200.0);
    let cost = (download, t.mme_load.as_secs_f64());
    match sim.access_model(model, cost, t.mme_not_ready_after.as_secs_f64(), now) {
        ModelAccess::Warm => sim.series.cache_hit.lock().record(now, 1.0),
        ModelAccess::Cold { wait, download, load } => {
            sim.series.cache_hit.lock().record(now, 0.0);
            sim.series.loading_wait.lock().record(now, wait * 1e6);
            sim.series.downloading.lock().record(now, download * 1e6);
            sim.series.loading.lock().record(now, load * 1e6);
            crate::sandbox::logs::content::model_loaded(
                sb,
                req.endpoint,
                variant,
                sim.kind,
                model,
                (download, load),
                now,
            );
            out.forced_wait += wait;
        }
        ModelAccess::NotReady { wait } => {
            sim.series.cache_hit.lock().record(now, 0.0);
            out.forced_wait += wait;
            record_outcome(sim, now, 0.0, Some(429));
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "ModelNotReadyException",
                format!(
                    "Model {model} is still loading on endpoint {}. Please retry later.",
                    req.endpoint
                ),
            ));
        }
    }
    Ok(())
}

/// The container's answer (or a drawn worker error), its simulated latency and the metrics.
fn run_container(sb: &Sandbox, req: &InvokeRequest<'_>, sim: &VariantSim, slow_us: f64, out: &mut Outcome, now: f64) {
    let reply = sim
        .kind
        .invoke_with(req.content_type, req.accept, req.body, out.llm_fault)
        .and_then(|r| {
            if sim.draw_error() {
                Err(ContainerError {
                    status: 500,
                    message: "Internal Server Error: worker died while handling the request".into(),
                })
            } else {
                Ok(r)
            }
        });
    let work = reply.as_ref().map(|r| r.work).unwrap_or(0.3);
    let latency_us = sim.draw_model_latency_us(work) * sim.load_factor(now);
    out.model_wait = latency_us / 1e6;
    match reply {
        Ok(r) => {
            record_outcome(sim, now, latency_us + slow_us, None);
            out.result = Ok(r);
        }
        Err(ce) => {
            record_outcome(sim, now, latency_us + slow_us, Some(ce.status));
            out.result = Err(model_error(sb, req.endpoint, ce.status, &ce.message));
        }
    }
}

type RoutedVariant = (String, f64, Arc<VariantSim>);
type Catalog = Option<((String, String), std::collections::BTreeMap<String, u64>)>;

fn routing_snapshot(
    sb: &Sandbox,
    world: &World,
    req: &InvokeRequest<'_>,
) -> Result<(Vec<RoutedVariant>, Catalog), ApiError> {
    let Some(ep) = world.endpoints.get(req.endpoint) else {
        return Err(validation_error(format!(
            "Endpoint {} of account {} not found.",
            req.endpoint, sb.config.account
        )));
    };
    if !matches!(
        ep.status,
        EndpointStatus::InService
            | EndpointStatus::Updating
            | EndpointStatus::RollingBack
            | EndpointStatus::UpdateRollbackFailed
    ) {
        return Err(validation_error(format!(
            "Endpoint {} is not in service (status {}); it can be invoked once it is InService.",
            req.endpoint,
            ep.status.as_str()
        )));
    }
    let variants: Vec<RoutedVariant> = ep
        .variants
        .iter()
        .map(|v| (v.name.clone(), v.current_weight, ep.serving_sim(v)))
        .collect();
    // The MME catalog: objects under the model's ModelDataUrl prefix, keyed relative to it.
    let catalog = req.target_model.and_then(|_| {
        let model = ep.variants.first().and_then(|v| world.models.get(&v.model_name))?;
        let (bucket, prefix) = World::split_s3_url(model.container.model_data_url.as_deref()?)?;
        let objects = world.buckets.get(&bucket)?;
        let keys = objects
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(k, o)| (k[prefix.len()..].to_string(), o.size))
            .collect();
        Some(((bucket, prefix), keys))
    });
    Ok((variants, catalog))
}

fn check_target_model(req: &InvokeRequest<'_>, multi_model: bool) -> Option<ApiError> {
    match (multi_model, req.target_model) {
        (false, Some(_)) => Some(validation_error(format!(
            "Endpoint {} is not a multi-model endpoint and does not support target model header.",
            req.endpoint
        ))),
        (true, None) => Some(validation_error(format!(
            "Endpoint {} is a multi-model endpoint: the target model header (TargetModel) is required.",
            req.endpoint
        ))),
        (true, Some(m)) if m.is_empty() || m.len() > 1024 => Some(validation_error(
            "TargetModel must be between 1 and 1024 characters long.",
        )),
        _ => None,
    }
}

fn pick_weighted(variants: &[RoutedVariant], now: f64) -> RoutedVariant {
    let total: f64 = variants.iter().map(|v| v.1.max(0.0)).sum();
    if total <= 0.0 || variants.len() == 1 {
        return variants[0].clone();
    }
    let mut x = rand::random::<f64>() * total;
    let _ = now;
    for v in variants {
        x -= v.1.max(0.0);
        if x < 0.0 {
            return v.clone();
        }
    }
    variants[variants.len() - 1].clone()
}

/// Records the per-invocation series: Invocations, InvocationsPerInstance, latencies, 4XX/5XX.
fn record_outcome(sim: &VariantSim, now: f64, model_latency_us: f64, error_status: Option<u16>) {
    for s in std::iter::once(&sim.series).chain(sim.config_series.get()) {
        record_series(sim, s, now, model_latency_us, error_status);
    }
}

fn record_series(
    sim: &VariantSim,
    s: &crate::sandbox::world::variant::VariantSeries,
    now: f64,
    model_latency_us: f64,
    error_status: Option<u16>,
) {
    s.invocations.lock().record(now, 1.0);
    s.per_instance
        .lock()
        .record(now, 1.0 / sim.instance_count().max(1) as f64);
    let (e4, e5) = match error_status {
        Some(st) if st >= 500 => (0.0, 1.0),
        Some(st) if st >= 400 => (1.0, 0.0),
        _ => (0.0, 0.0),
    };
    s.errors_4xx.lock().record(now, e4);
    s.errors_5xx.lock().record(now, e5);
    if model_latency_us > 0.0 {
        s.model_latency.lock().record(now, model_latency_us);
        s.overhead_latency.lock().record(now, sim.draw_overhead_us());
    }
}
