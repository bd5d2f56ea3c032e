//! The server side: asynchronous endpoints as MCP task tools in `sagedeck mcp serve`. A tool whose endpoint is
//! asynchronous (its configuration has an AsyncInferenceConfig, found by DescribeEndpoint at
//! start, or `asynchronous = true` in the tools file) is called with InvokeEndpointAsync. A
//! client that declares the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, rmcp
//! 3.11's task support) gets a task at once: `tasks/get` follows the request's output and
//! failure objects in S3 (its status message says which), its completed result holds the
//! answer picked from the output object — or, when the failure object appears, an `isError`
//! result with what SageMaker wrote there — and `tasks/cancel` stops following (SageMaker has no
//! call that stops an asynchronous request; the request itself runs on). Any other client gets
//! the result in the call itself, followed the same way while progress keeps it waiting.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock, DetailedTask, Task};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use serde_json::{Map, Value, json};

use crate::aws::Fleet;
use crate::aws::invoke::asynchronous::{AsyncAccepted, AsyncInput, AsyncOutcome, AsyncSpec};
use crate::aws::invoke::call::is_json;
use crate::mcp::tools_config::{ToolSpec, ToolsConfig};

/// How long a task is kept (and followed) after it starts: SageMaker's default RequestTTL.
pub const TASK_TTL: Duration = Duration::from_secs(6 * 3600);
/// The first pause between two looks at S3; it doubles up to [`MAX_LOOK_PAUSE`].
const FIRST_LOOK_PAUSE: Duration = Duration::from_millis(250);
/// The longest pause between two looks.
const MAX_LOOK_PAUSE: Duration = Duration::from_secs(2);

/// The task tools of a server and the tasks they started.
#[derive(Clone, Default)]
pub struct TaskTools {
    names: Arc<HashSet<String>>,
    manager: TaskManager,
}

impl std::fmt::Debug for TaskTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskTools").field("names", &self.names).finish()
    }
}

impl TaskTools {
    /// The tools of `config` that are task tools: `asynchronous = true`, or on one of the
    /// `asynchronous` endpoints (unless the file says `asynchronous = false`).
    pub fn of(config: &ToolsConfig, asynchronous: &HashSet<String>) -> TaskTools {
        let names = (config.tools.iter())
            .filter(|t| t.asynchronous.unwrap_or_else(|| asynchronous.contains(&t.endpoint)))
            .map(|t| t.name.clone())
            .collect();
        TaskTools {
            names: Arc::new(names),
            manager: TaskManager::new(),
        }
    }

    /// Whether `tool` is a task tool.
    pub fn has(&self, tool: &str) -> bool {
        self.names.contains(tool)
    }

    /// Whether there is any (the server then declares the tasks extension).
    pub fn any(&self) -> bool {
        !self.names.is_empty()
    }

    /// Starts `spec` with `args` as a task; `tasks/get` sees it before this returns.
    pub fn start(&self, fleet: Fleet, spec: ToolSpec, args: Map<String, Value>) -> Task {
        let options = TaskOptions::new()
            .with_ttl_ms(TASK_TTL.as_millis() as u64)
            .with_poll_interval_ms(MAX_LOOK_PAUSE.as_millis() as u64)
            .with_status_message(format!("sending to {}", spec.endpoint));
        self.manager.spawn(options, move |ctx| {
            Box::pin(async move {
                let status = |s: String| ctx.set_status_message(s);
                tokio::select! {
                    r = follow(&fleet, &spec, &args, &status) => Ok(r),
                    _ = ctx.cancelled() => Err(TaskExit::Cancelled),
                }
            })
        })
    }

    /// `tasks/get`.
    pub fn get(&self, task_id: &str) -> Result<DetailedTask, ErrorData> {
        self.manager.get_task(task_id)
    }

    /// `tasks/cancel`: stops following (the request runs on in SageMaker).
    pub fn cancel(&self, task_id: &str) -> Result<(), ErrorData> {
        self.manager.cancel_task(task_id)
    }
}

/// The endpoints among `endpoints` that are asynchronous (DescribeEndpoint and its
/// configuration), and a warning for each that could not be described.
pub async fn asynchronous_endpoints(fleet: &Fleet, endpoints: &[String]) -> (HashSet<String>, Vec<String>) {
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let described = futures_util::future::join_all(
        endpoints
            .iter()
            .map(|e| async { (e.clone(), fleet.describe_endpoint_info(e, &calls).await) }),
    )
    .await;
    let mut found = HashSet::new();
    let mut warnings = Vec::new();
    for (name, info) in described {
        match info {
            Ok(i) if i.kind.is_async() => {
                found.insert(name);
            }
            Ok(_) => {}
            Err(e) => warnings.push(format!(
                "cannot describe {name} ({e}): its tools are served as real-time tools"
            )),
        }
    }
    (found, warnings)
}

fn error_result(text: String, structured: Option<Value>) -> CallToolResult {
    let mut r = CallToolResult::error(vec![ContentBlock::text(text)]);
    r.structured_content = structured;
    r
}

/// The `sagemaker` block of a task tool's result.
fn sagemaker_block(a: &AsyncAccepted, looks: u32, started: Instant) -> Value {
    json!({
        "endpoint": a.endpoint, "inference_id": a.inference_id, "output_location": a.output_location,
        "failure_location": a.failure_location, "attempts": 1, "looks": looks,
        "total_ms": (started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
    })
}

/// Sends `spec` with `args` by InvokeEndpointAsync and follows its output and failure objects
/// until one appears; `status` hears each stage. The result is what the model sees.
pub async fn follow(
    fleet: &Fleet,
    spec: &ToolSpec,
    args: &Map<String, Value>,
    status: &(dyn Fn(String) + Sync),
) -> CallToolResult {
    let req = match spec.checked_request(args) {
        Ok(r) => r,
        Err(e) => return error_result(e, None),
    };
    let started = Instant::now();
    let request = AsyncSpec {
        endpoint: req.endpoint.clone(),
        input: AsyncInput::Body {
            body: req.body,
            upload_prefix: None,
        },
        content_type: req.content_type,
        accept: req.accept,
        inference_id: None,
        request_ttl_s: None,
        invocation_timeout_s: None,
    };
    let accepted = match fleet.invoke_async(&request).await {
        Ok(a) => a,
        Err(e) => {
            let error = json!({"class": e.class(), "message": e.to_string()});
            return error_result(
                format!("InvokeEndpointAsync on {} failed: {e}", req.endpoint),
                Some(json!({"error": error, "sagemaker": {"endpoint": req.endpoint, "attempts": 1}})),
            );
        }
    };
    let output = accepted.output_location.as_deref().unwrap_or("?");
    status(format!("queued as {}; waiting for {output}", accepted.inference_id));
    let (mut looks, mut pause) = (0u32, FIRST_LOOK_PAUSE);
    loop {
        looks += 1;
        match fleet.async_outcome(&accepted).await {
            Ok(Some(done)) => return finished(spec, &accepted, done, looks, started, status),
            Ok(None) => {}
            Err(e) => status(format!("look {looks} at {output} failed ({e}); looking again")),
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(MAX_LOOK_PAUSE);
    }
}

/// The result of a request whose output or failure object appeared.
fn finished(
    spec: &ToolSpec,
    accepted: &AsyncAccepted,
    done: AsyncOutcome,
    looks: u32,
    started: Instant,
    status: &(dyn Fn(String) + Sync),
) -> CallToolResult {
    let block = sagemaker_block(accepted, looks, started);
    match done {
        AsyncOutcome::Succeeded {
            location,
            body,
            content_type,
        } => {
            status(format!("output at {location}"));
            // The object carries the container's content type when the store kept it; else the
            // one the tool asked for.
            let ct = content_type
                .filter(|ct| is_json(ct) || ct.starts_with("text/"))
                .or_else(|| spec.accept.clone());
            match spec.answer(ct.as_deref(), &body) {
                Ok(mut fields) => {
                    fields.insert("sagemaker".into(), block);
                    CallToolResult::structured(Value::Object(fields))
                }
                Err(e) => error_result(
                    format!("unexpected output from {} at {location}: {e}", accepted.endpoint),
                    Some(json!({"sagemaker": block})),
                ),
            }
        }
        AsyncOutcome::Failed { location, body } | AsyncOutcome::Expired { location, body } => {
            status(format!("failure at {location}"));
            let message = String::from_utf8_lossy(&body).trim().to_string();
            let error = json!({"class": "async_failure", "message": message, "location": location});
            error_result(
                format!("{} wrote a failure: {message}", accepted.endpoint),
                Some(json!({"error": error, "sagemaker": block})),
            )
        }
    }
}
