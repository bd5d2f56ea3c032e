//! What the sandbox's containers write to CloudWatch Logs, in the style of the real serving
//! stacks: the multi-model server behind the Hugging Face and image containers, TGI's JSON lines,
//! gunicorn for XGBoost. Cold starts when an instance first appears, `GET /ping` health checks,
//! one access line per invocation, Python tracebacks for container errors, worker-queue
//! rejections for throttles, model loads and evictions on multi-model endpoints.

use std::sync::atomic::Ordering;

use crate::sandbox::logs::store::{group_name, stream_name};
use crate::sandbox::runtime::request::Outcome;
use crate::sandbox::world::clock::iso8601;
use crate::sandbox::world::containers::ContainerKind;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::EndpointStatus;

/// Seconds between the health checks the sandbox writes for every instance.
pub const PING_INTERVAL_SECS: f64 = 30.0;

fn line(kind: ContainerKind, at: f64, level: &str, text: &str) -> String {
    let ts = iso8601(at);
    match kind {
        ContainerKind::Generator => serde_json::json!({
            "timestamp": ts, "level": level, "fields": {"message": text}, "target": "text_generation_router"
        })
        .to_string(),
        ContainerKind::CsvScorer => format!("[{ts}] [27] [{level}] {text}"),
        _ => format!("{ts} [{level}] W-9000-model com.amazonaws.ml.mms.wlm.WorkerLifeCycle - {text}"),
    }
}

fn access(kind: ContainerKind, at: f64, method_path: &str, status: u16, ms: f64) -> String {
    match kind {
        ContainerKind::Generator => line(kind, at, "INFO", &format!("{method_path} {status} {ms:.1}ms")),
        ContainerKind::CsvScorer => format!(
            "169.254.178.2 - - [{}] \"{method_path} HTTP/1.1\" {status} 0 \"-\" \"AHC/2.0\"",
            iso8601(at)
        ),
        _ => format!(
            "{} [INFO ] W-9000-model ACCESS_LOG - /169.254.178.2:53104 \"{method_path} HTTP/1.1\" {status} {}",
            iso8601(at),
            ms.round()
        ),
    }
}

/// The lines of a container starting up.
pub fn cold_start(kind: ContainerKind, at: f64) -> Vec<String> {
    let steps: &[&str] = match kind {
        ContainerKind::Generator => &[
            "Args { model_id: \"/opt/ml/model\", max_input_tokens: 4095, max_total_tokens: 4096, port: 8080 }",
            "Starting download process.",
            "Starting shard rank=0",
            "Shard ready in 38.2s rank=0",
            "Warming up model",
            "Connected",
        ],
        ContainerKind::CsvScorer => &[
            "Starting gunicorn 20.1.0",
            "Listening at: unix:/tmp/gunicorn.sock",
            "Booting worker with pid: 27",
            "Loading the model from /opt/ml/model/xgboost-model",
        ],
        _ => &[
            "Initializing plugins manager...",
            "Loading initial models: /opt/ml/model",
            "Model model loaded.",
            "Inference API bind to: http://0.0.0.0:8080",
            "Model server started.",
        ],
    };
    steps.iter().map(|s| line(kind, at, "INFO", s)).collect()
}

fn exception_class(status: u16) -> &'static str {
    match status {
        415 => "sagemaker_inference.errors.UnsupportedFormatError",
        400..=499 => "ValueError",
        _ => "RuntimeError",
    }
}

/// A container error: the access line, the error and its Python traceback, one event per line.
pub fn traceback(kind: ContainerKind, at: f64, status: u16, message: &str) -> Vec<String> {
    let mut out = vec![line(kind, at, "ERROR", "Exception on /invocations [POST]")];
    out.extend(
        [
            "Traceback (most recent call last):",
            "  File \"/opt/conda/lib/python3.10/site-packages/sagemaker_inference/transformer.py\", line 128, in transform",
            "    result = self._run_handler_function(self._transform_fn, *(self._model, input_data, content_type, accept))",
            "  File \"/opt/conda/lib/python3.10/site-packages/sagemaker_huggingface_inference_toolkit/handler_service.py\", line 283, in transform_fn",
            "    predictions = self.predict(processed_data, model, context)",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    out.push(format!("{}: {message}", exception_class(status)));
    out.push(access(kind, at, "POST /invocations", status, 3.0));
    out
}

fn instance_of(sb: &Sandbox, endpoint: &str, variant: &str) -> (String, usize) {
    let n = sb
        .world
        .read()
        .endpoints
        .get(endpoint)
        .and_then(|e| e.variant(variant))
        .map_or(1, |v| v.sim.instance_count());
    (variant.to_string(), rand::random::<u32>() as usize % n.max(1))
}

/// Writes what the container did for one invocation.
pub fn on_invocation(sb: &Sandbox, endpoint: &str, out: &Outcome, now: f64) {
    let (Some(variant), Some(sim)) = (&out.variant, &out.sim) else {
        return;
    };
    let kind = sim.kind;
    let index = out.instance;
    let group = group_name(endpoint);
    let mut lines: Vec<String> = Vec::new();
    for (inst, model) in sim.take_evictions() {
        let text = format!("Unloading model {model}: memory pressure, least recently used (LRU)");
        sb.logs.append(
            &group,
            &stream_name(endpoint, variant, inst),
            now,
            &[line(kind, now, "INFO", &text)],
        );
    }
    match &out.result {
        Ok(_) => lines.push(access(kind, now, "POST /invocations", 200, out.model_wait * 1000.0)),
        Err(e) => match e.code.as_str() {
            "ModelError" => {
                let status = e.fields.get("OriginalStatusCode").and_then(|v| v.as_u64()).unwrap_or(500) as u16;
                let msg = e.fields.get("OriginalMessage").and_then(|v| v.as_str()).unwrap_or("");
                lines = traceback(kind, now, status, msg);
            }
            "ThrottlingException" | "ServiceUnavailable" => lines.push(line(
                kind,
                now,
                "WARN",
                "Model \"model\" has no worker to serve inference request. Please use scale workers API to add workers. (throttled: 503)",
            )),
            "ModelNotReadyException" => lines.push(line(kind, now, "INFO", &e.message)),
            "InternalFailure" => lines.push(line(kind, now, "ERROR", "Worker died. Load model failed: restarting worker")),
            _ => return,
        },
    }
    sb.logs
        .append(&group, &stream_name(endpoint, variant, index), now, &lines);
}

/// Writes an MME model load (download then load into memory).
pub fn model_loaded(
    sb: &Sandbox,
    endpoint: &str,
    variant: &str,
    kind: ContainerKind,
    model: &str,
    secs: (f64, f64),
    now: f64,
) {
    let (_, index) = instance_of(sb, endpoint, variant);
    let lines = vec![
        line(
            kind,
            now,
            "INFO",
            &format!("Adding model {model}: downloading from S3 ({:.1} s)", secs.0),
        ),
        line(
            kind,
            now,
            "INFO",
            &format!("Model {model} loaded in {:.0} ms.", (secs.0 + secs.1) * 1000.0),
        ),
    ];
    sb.logs.append(
        &group_name(endpoint),
        &stream_name(endpoint, variant, index),
        now,
        &lines,
    );
}

/// Cold starts for instances that appeared, health checks every [`PING_INTERVAL_SECS`]; a tick
/// with neither looks at nothing (the world's revision has not moved).
pub fn tick(sb: &Sandbox, now: f64) {
    let revision = sb.world.read().revision;
    let ping = {
        let mut data = sb.logs.data.lock();
        let ping = now - data.last_ping >= PING_INTERVAL_SECS;
        if !ping && data.last_revision == revision {
            return; // no instance came or went, no health check due
        }
        data.last_revision = revision;
        if ping {
            data.last_ping = now;
        }
        ping
    };
    let mut writes: Vec<(String, String, Vec<String>)> = Vec::new();
    {
        let world = sb.world.read();
        for ep in world.endpoints.values() {
            if !matches!(ep.status, EndpointStatus::InService | EndpointStatus::Updating) {
                continue;
            }
            for v in &ep.variants {
                let count = v.sim.instance_count();
                let opened = v.sim.logged_streams.fetch_max(count, Ordering::Relaxed);
                if !ping && opened >= count {
                    continue; // nothing new: no name built, no store looked at
                }
                let group = group_name(&ep.name);
                for index in 0..count {
                    let stream = stream_name(&ep.name, &v.name, index);
                    if index >= opened && !sb.logs.has_stream(&group, &stream) {
                        writes.push((group.clone(), stream, cold_start(v.sim.kind, now)));
                    } else if ping {
                        writes.push((
                            group.clone(),
                            stream,
                            vec![access(v.sim.kind, now, "GET /ping", 200, 1.0)],
                        ));
                    }
                }
            }
        }
    }
    for (group, stream, lines) in writes {
        sb.logs.append(&group, &stream, now, &lines);
    }
}
