//! Working the asynchronous queues on every tick: requests past their TTL expire (and so does one
//! an instance would take while a `queue_expiry` fault is set on its endpoint), finished ones
//! write their output (or failure) object to the sandbox's S3, and waiting ones start while the
//! endpoint's instances have room (MaxConcurrentInvocationsPerInstance each). The queue metrics
//! carry EndpointName only (ApproximateBacklogSize, ApproximateBacklogSizePerInstance,
//! ApproximateAgeOfOldestRequest, HasBacklogWithoutCapacity), once a second; the per-request
//! ones EndpointName and VariantName (TimeInBacklog, TotalProcessingTime, InvocationsProcessed,
//! InvocationFailures, ExpiredRequests, RequestDownloadFailures, ResponseUploadFailures).

use crate::sandbox::cloudwatch::metrics::SeriesKey;
use crate::sandbox::faults::FaultKind;
use crate::sandbox::s3::objects::{read_object, write_object};
use crate::sandbox::world::queue::{AsyncInput, AsyncRequest, Running};
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::variant::NS_SAGEMAKER;

use super::config::async_settings;

/// What a pass found to write once the locks are released.
enum Done {
    /// A finished request (its variant) with its output or failure.
    Finished(Running),
    /// A request that expired in the queue (the first variant's name for its metric).
    Expired(AsyncRequest, String),
}

/// The asynchronous endpoints: every endpoint looked at once a second (the queue gauges'
/// period), and at once any endpoint a request was queued on since.
fn async_endpoints(sb: &Sandbox, now: f64) -> Vec<String> {
    let (known, queued, fresh) = {
        let q = sb.async_queues.lock();
        let queued: Vec<String> = q
            .by_endpoint
            .keys()
            .filter(|k| !q.known.0.contains(k))
            .cloned()
            .collect();
        (q.known.0.clone(), queued, now - q.known.1 < 1.0)
    };
    if fresh && queued.is_empty() {
        return known;
    }
    let world = sb.world.read();
    let found: Vec<String> = if fresh {
        known
            .into_iter()
            .chain(queued)
            .filter(|n| async_settings(&world, n).is_some())
            .collect()
    } else {
        let all = world.endpoints.keys().filter(|n| async_settings(&world, n).is_some());
        all.cloned().collect()
    };
    drop(world);
    let mut q = sb.async_queues.lock();
    q.known.0 = found.clone();
    if !fresh {
        q.known.1 = now;
    }
    found
}

/// One pass over every asynchronous endpoint.
pub fn advance(sb: &Sandbox, now: f64) {
    let endpoints = async_endpoints(sb, now);
    sb.async_queues
        .lock()
        .by_endpoint
        .retain(|name, _| endpoints.contains(name));
    for endpoint in endpoints {
        let done = advance_endpoint(sb, &endpoint, now);
        for d in done {
            write_done(sb, &endpoint, d, now);
        }
    }
}

/// Expires, finishes and starts the requests of one endpoint; records its queue gauges.
fn advance_endpoint(sb: &Sandbox, endpoint: &str, now: f64) -> Vec<Done> {
    let world = sb.world.read();
    let (Some(settings), Some(ep)) = (async_settings(&world, endpoint), world.endpoints.get(endpoint)) else {
        return Vec::new();
    };
    let serving: Vec<_> = ep
        .variants
        .iter()
        .filter(|v| v.current_instances > 0 && v.current_weight > 0.0)
        .map(|v| (v.name.clone(), v.current_instances as usize, v.sim.clone()))
        .collect();
    let first_variant = ep.variants.first().map(|v| v.name.clone()).unwrap_or_default();
    drop(world);
    let instances: usize = serving.iter().map(|s| s.1).sum();
    let mut queues = sb.async_queues.lock();
    let q = queues.by_endpoint.entry(endpoint.to_string()).or_default();
    let mut done = Vec::new();
    let (finished, running): (Vec<Running>, Vec<Running>) = q.running.drain(..).partition(|r| r.until <= now);
    q.running = running;
    done.extend(finished.into_iter().map(Done::Finished));
    while q.waiting.front().is_some_and(|r| r.expires <= now) {
        if let Some(r) = q.waiting.pop_front() {
            done.push(Done::Expired(r, first_variant.clone()));
        }
    }
    let mut turn = q.running.len();
    while q.running.len() < settings.per_instance * instances {
        let Some(request) = q.waiting.pop_front() else {
            break;
        };
        if sb.faults.take("AsyncQueue", Some(endpoint), None) == Some(FaultKind::QueueExpiry) {
            done.push(Done::Expired(request, first_variant.clone()));
            continue;
        }
        let (variant, _, sim) = &serving[turn % serving.len()];
        turn += 1;
        let running = start(sb, request, (variant, sim), now);
        q.running.push(running);
    }
    if now - q.last_gauges >= 1.0 {
        q.last_gauges = now;
        let backlog = q.waiting.len() + q.running.len();
        let oldest = q
            .waiting
            .front()
            .map(|r| r.received)
            .into_iter()
            .chain(q.running.iter().map(|r| r.request.received))
            .fold(now, f64::min);
        drop(queues);
        let gauge = |name: &str, value: f64| {
            let key = SeriesKey::new(NS_SAGEMAKER, name, &[("EndpointName", endpoint)]);
            sb.metrics.record(&key, "None", now, value);
        };
        gauge("ApproximateBacklogSize", backlog as f64);
        gauge(
            "ApproximateBacklogSizePerInstance",
            backlog as f64 / instances.max(1) as f64,
        );
        gauge("HasBacklogWithoutCapacity", f64::from(backlog > 0 && instances == 0));
        let key = SeriesKey::new(
            NS_SAGEMAKER,
            "ApproximateAgeOfOldestRequest",
            &[("EndpointName", endpoint)],
        );
        sb.metrics.record(&key, "Seconds", now, now - oldest);
    }
    done
}

/// Starts a request on a variant: reads its input, runs the container, and decides when it ends
/// and with what (the container's answer, its error, a download failure, or the timeout).
fn start(
    sb: &Sandbox,
    request: AsyncRequest,
    (variant, sim): (&str, &std::sync::Arc<crate::sandbox::world::variant::VariantSim>),
    now: f64,
) -> Running {
    let input = match &request.input {
        AsyncInput::Inline(bytes) => Some(bytes.clone()),
        AsyncInput::Location(bucket, key) => read_object(sb, bucket, key),
    };
    let (result, secs) = match input {
        None => (
            Err("DownloadFailure: the input could not be read from its InputLocation.".to_string()),
            0.0,
        ),
        Some(body) => {
            let reply = sim
                .kind
                .invoke_with(&request.content_type, request.accept.as_deref(), &body, None);
            let work = reply.as_ref().map(|r| r.work).unwrap_or(0.3);
            let secs = sim.draw_model_latency_us(work) / 1e6;
            let result = match reply {
                _ if secs > request.timeout_secs => Err(format!(
                    "Inference timed out after {} seconds (InvocationTimeoutSeconds).",
                    request.timeout_secs
                )),
                Ok(_) if sim.draw_error() => {
                    Err("Internal Server Error: worker died while handling the request".into())
                }
                Ok(r) => Ok(r.body),
                Err(e) => Err(format!(
                    "Received client error ({}) from model with message \"{}\".",
                    e.status, e.message
                )),
            };
            (result, secs.min(request.timeout_secs))
        }
    };
    Running {
        request,
        variant: variant.to_string(),
        started: now,
        until: now + secs,
        result,
    }
}

/// Writes a finished or expired request's object and records its metrics. An expired request
/// gets a failure object, as an inference router's does when RequestTTLSeconds runs out (AWS
/// documents that for InvokeInferenceRouterAsync; the message's wording is the sandbox's,
/// UNVERIFIED against AWS), and counts in ExpiredRequests, not InvocationFailures.
fn write_done(sb: &Sandbox, endpoint: &str, done: Done, now: f64) {
    let count = |variant: &str, name: &str, unit: &str, value: f64| {
        let key = SeriesKey::new(
            NS_SAGEMAKER,
            name,
            &[("EndpointName", endpoint), ("VariantName", variant)],
        );
        sb.metrics.record(&key, unit, now, value);
    };
    match done {
        Done::Expired(request, variant) => {
            count(&variant, "ExpiredRequests", "None", 1.0);
            let ttl = (request.expires - request.received).round();
            let message = format!(
                "Request expired: it waited in the queue longer than its RequestTTLSeconds ({ttl} s) and was not processed."
            );
            write_failure(sb, &request, &message);
        }
        Done::Finished(r) => {
            count(
                &r.variant,
                "TimeInBacklog",
                "Microseconds",
                (r.started - r.request.received) * 1e6,
            );
            count(
                &r.variant,
                "TotalProcessingTime",
                "Microseconds",
                (now - r.request.received) * 1e6,
            );
            count(&r.variant, "InvocationsProcessed", "None", 1.0);
            match r.result {
                Ok(bytes) => {
                    let (bucket, key) = &r.request.output;
                    let uploaded = write_object(sb, (bucket, key), bytes).is_ok();
                    count(&r.variant, "ResponseUploadFailures", "None", f64::from(!uploaded));
                    count(&r.variant, "InvocationFailures", "None", 0.0);
                }
                Err(message) => {
                    let download = message.starts_with("DownloadFailure");
                    count(&r.variant, "RequestDownloadFailures", "None", f64::from(download));
                    count(&r.variant, "InvocationFailures", "None", 1.0);
                    write_failure(sb, &r.request, &message);
                }
            }
        }
    }
}

/// Writes the failure object, when the configuration has an S3FailurePath.
fn write_failure(sb: &Sandbox, request: &AsyncRequest, message: &str) {
    if let Some((bucket, key)) = &request.failure {
        let _ = write_object(sb, (bucket, key), message.as_bytes().to_vec());
    }
}
