//! `sagedeck mcp serve`: SageMaker endpoints as MCP tools, the seeds' `classify_intent` handler
//! made general. Every call goes through the fleet layer: a ModelError becomes an `isError`
//! result carrying the container's status and message; InternalFailure, ServiceUnavailable,
//! ModelNotReady and Throttling are retried with backoff and jitter within the deadline, then
//! reported the same way; results name the endpoint, the variant that answered and the attempts.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

pub use super::listen::{HttpAccess, HttpServerHandle, mcp_router, serve_http, serve_http_with, spawn_serve};
use super::offer::Offer;
use super::offer::ask::{Asked, complete};
use super::offer::watch::Subscriptions;
pub use super::origin::{check_origin, own_origins};
use super::tasks::TaskTools;
use super::tools_config::{ToolSpec, ToolsConfig};
use crate::aws::invoke::call::{InvokeFailure, InvokeResult, InvokeSpec};
use crate::aws::invoke::log::{InvocationLog, InvocationRecord};
use crate::aws::{AwsError, Fleet, RetryPolicy};

/// When a call that has not answered yet sends its first progress notification.
pub const FIRST_HEARTBEAT: std::time::Duration = std::time::Duration::from_millis(500);
/// How often it sends the next ones.
pub const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(1);

/// The tool server: a tools file over a fleet.
#[derive(Clone)]
pub struct ToolServer {
    fleet: Fleet,
    config: Arc<ToolsConfig>,
    tools: Arc<Vec<Tool>>,
    policy: RetryPolicy,
    log: Option<Arc<InvocationLog>>,
    tasks: TaskTools,
    offer: Offer,
    subscriptions: Subscriptions,
}

impl std::fmt::Debug for ToolServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolServer")
            .field("tools", &self.config.tools.iter().map(|t| &t.name).collect::<Vec<_>>())
            .finish()
    }
}

fn to_tool(spec: &ToolSpec) -> Tool {
    let mut t = Tool::new(
        spec.name.clone(),
        spec.description.clone(),
        Arc::new(spec.input_schema()),
    )
    .with_raw_output_schema(Arc::new(spec.output_schema()))
    .with_annotations(
        ToolAnnotations::new()
            .read_only(spec.read_only.unwrap_or(true))
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    );
    if let Some(title) = &spec.title {
        t = t.with_title(title.clone());
    }
    let mut meta = rmcp::model::MetaObject::new();
    meta.insert(
        "sagedeck/endpoint".into(),
        json!({
            "endpoint": spec.endpoint, "target_model": spec.target_model, "target_variant": spec.target_variant,
            "inference_component": spec.inference_component,
        }),
    );
    t.with_meta(meta)
}

/// The `sagemaker` block of a structured result.
fn sagemaker_block(spec: &InvokeSpec, attempts: u32, ok: Option<&InvokeResult>, total_ms: f64) -> Value {
    json!({
        "endpoint": spec.endpoint,
        "invoked_variant": ok.and_then(|r| r.invoked_variant.clone()),
        "target_model": spec.target_model,
        "target_variant": spec.target_variant,
        "inference_component": spec.inference_component,
        "attempts": attempts,
        "latency_ms": ok.map(|r| (r.latency.as_secs_f64() * 1e6).round() / 1e3),
        "total_ms": total_ms,
        "retried": ok.map(|r| r.retried.clone()).unwrap_or_default(),
    })
}

/// The seed's messages for each failure class, with the attempts it took.
pub fn failure_text(f: &InvokeFailure) -> String {
    let tries = if f.attempts > 1 {
        format!(" (after {} attempts)", f.attempts)
    } else {
        String::new()
    };
    match &f.error {
        AwsError::ModelError {
            original_status,
            original_message,
            message,
            ..
        } => format!(
            "Model returned error {}: {}",
            original_status
                .map(|s| s.to_string())
                .unwrap_or_else(|| "unknown".into()),
            original_message.as_deref().unwrap_or(message)
        ),
        AwsError::InternalFailure(m) => format!("SageMaker infrastructure error: {m}{tries}"),
        AwsError::ServiceUnavailable(m) => format!("SageMaker endpoint unavailable: {m}{tries}"),
        AwsError::Throttling(m) => format!("SageMaker throttled the call: {m}{tries}"),
        AwsError::ModelNotReady(m) => format!("SageMaker model not ready: {m}{tries}"),
        other => format!("{other}{tries}"),
    }
}

fn error_result(text: String, structured: Option<Value>) -> CallToolResult {
    let mut r = CallToolResult::error(vec![ContentBlock::text(text)]);
    r.structured_content = structured;
    r
}

impl ToolServer {
    /// A server for `config` over `fleet`; `[retry]` refines the fleet layer's default policy.
    pub fn new(fleet: Fleet, config: ToolsConfig) -> ToolServer {
        let tools = config.tools.iter().map(to_tool).collect();
        let policy = config.retry.policy(RetryPolicy::default());
        ToolServer {
            offer: Offer::new(fleet.clone(), &config),
            subscriptions: Subscriptions::default(),
            fleet,
            config: Arc::new(config),
            tools: Arc::new(tools),
            policy,
            log: None,
            tasks: TaskTools::default(),
        }
    }

    /// Serves the tools on the `asynchronous` endpoints (and those the file marks
    /// `asynchronous = true`) as task tools.
    pub fn with_async_endpoints(mut self, asynchronous: &std::collections::HashSet<String>) -> ToolServer {
        self.tasks = TaskTools::of(&self.config, asynchronous);
        self
    }

    /// Whether `tool` is served as a task tool.
    pub fn is_task_tool(&self, tool: &str) -> bool {
        self.tasks.has(tool)
    }

    /// Appends a line per invocation to `log` (the variant log).
    pub fn with_invocation_log(mut self, log: Arc<InvocationLog>) -> ToolServer {
        self.log = Some(log);
        self
    }

    /// The tools it serves.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Runs one tool with these arguments: the result the model sees (never a protocol error).
    pub async fn run_tool(&self, spec: &ToolSpec, args: &Map<String, Value>, ct: &CancellationToken) -> CallToolResult {
        let req = match spec.checked_request(args) {
            Ok(r) => r,
            Err(e) => return error_result(e, None),
        };
        let policy = spec.retry.map(|r| r.policy(self.policy)).unwrap_or(self.policy);
        let outcome = tokio::select! {
            r = self.fleet.invoke(&req, &policy) => r,
            _ = ct.cancelled() => return error_result("cancelled by the client".into(), None),
        };
        if let Some(log) = &self.log
            && let Some(w) = log.append(
                InvocationRecord::of_invoke("mcp-serve", Some(&spec.name), &req, &outcome),
                &req.body,
            )
        {
            eprintln!("sagedeck: {w}");
        }
        match outcome {
            Ok(r) => {
                let total_ms = (r.total.as_secs_f64() * 1e6).round() / 1e3;
                match spec.answer(r.content_type.as_deref(), &r.body) {
                    Ok(mut fields) => {
                        fields.insert(
                            "sagemaker".into(),
                            sagemaker_block(&req, r.attempts, Some(&r), total_ms),
                        );
                        CallToolResult::structured(Value::Object(fields))
                    }
                    Err(e) => error_result(
                        format!("unexpected response from {}: {e}", req.endpoint),
                        Some(json!({"sagemaker": sagemaker_block(&req, r.attempts, Some(&r), total_ms)})),
                    ),
                }
            }
            Err(f) => {
                let total_ms = (f.total.as_secs_f64() * 1e6).round() / 1e3;
                let mut error = json!({"class": f.error.class(), "message": f.error.to_string()});
                if let AwsError::ModelError {
                    original_status,
                    original_message,
                    ..
                } = &f.error
                {
                    error["original_status"] = json!(original_status);
                    error["original_message"] = json!(original_message);
                }
                error_result(
                    failure_text(&f),
                    Some(json!({"error": error, "sagemaker": sagemaker_block(&req, f.attempts, None, total_ms)})),
                )
            }
        }
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        // Resources (the endpoints) and prompts (triage) besides the tools; the tool set never
        // changes while serving, so no list-changed is declared.
        let mut caps = ServerCapabilities::builder().enable_tools().build();
        let mut resources = rmcp::model::ResourcesCapability::default();
        resources.subscribe = Some(true);
        caps.resources = Some(resources);
        caps.prompts = Some(Default::default());
        if self.tasks.any() {
            caps.extensions
                .get_or_insert_with(Default::default)
                .insert(rmcp::model::TASKS_EXTENSION_ID.to_string(), Default::default());
        }
        let mut info = ServerConfig::new(caps).with_server_info(Implementation::new(
            self.config.server.name.clone().unwrap_or_else(|| "sagedeck".into()),
            env!("CARGO_PKG_VERSION"),
        ));
        if let Some(i) = &self.config.server.instructions {
            info = info.with_instructions(i.clone());
        }
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(self.offer.resources()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(self.offer.templates()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        Ok(self.offer.read(&request.uri).await?.into())
    }

    #[allow(deprecated)] // resources/subscribe is 2025-11-25's; 2026-07-28 listens instead
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        (self.subscriptions).subscribe(&self.offer, &request.uri, context.peer)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(super::offer::prompts::prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let got = super::offer::prompts::get(&self.offer, &request.name, request.arguments.as_ref());
        Ok(got.await?.into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(spec) = self.config.tool(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        let mut args = request.arguments.unwrap_or_default();
        if let Some(ask) = &spec.ask {
            let responses = request.input_responses.as_ref();
            match complete(ask, &spec.name, args, responses, &context).await? {
                Asked::Ready(given) => args = given,
                Asked::Stop(result) => return Ok(result.into()),
                Asked::Input(input) => return Ok(CallToolResponse::InputRequired(input)),
            }
        }
        let task_tool = self.tasks.has(&spec.name);
        if task_tool && context.client_capabilities().is_some_and(|c| c.supports_tasks()) {
            let task = self.tasks.start(self.fleet.clone(), spec.clone(), args);
            return Ok(CallToolResponse::Task(rmcp::model::CreateTaskResult::new(task)));
        }
        // Slow calls (cold models, retries with backoff) report progress while they wait, which
        // keeps clients whose timeout restarts on progress from giving up; fast ones send none.
        let token = context.meta.get_progress_token();
        let started = tokio::time::Instant::now();
        let mut beat = tokio::time::interval_at(started + FIRST_HEARTBEAT, HEARTBEAT);
        let run = async {
            if task_tool {
                let follow = super::tasks::follow(&self.fleet, spec, &args, &|_| {});
                tokio::select! {
                    r = follow => r,
                    _ = context.ct.cancelled() => error_result("cancelled by the client".into(), None),
                }
            } else {
                self.run_tool(spec, &args, &context.ct).await
            }
        };
        tokio::pin!(run);
        let result = loop {
            tokio::select! {
                r = &mut run => break r,
                _ = beat.tick(), if token.is_some() => {
                    let secs = started.elapsed().as_secs_f64();
                    if let Some(t) = &token {
                        let note = ProgressNotificationParam::new(t.clone(), (secs * 10.0).round() / 10.0)
                            .with_message(format!("waiting for {} ({secs:.1} s)", spec.endpoint));
                        let _ = context.peer.notify_progress(note).await;
                    }
                }
            }
        };
        let result = match &spec.sampling {
            Some(s) => super::sampling::ask::enrich(&context.peer, s, &args, result).await,
            None => result,
        };
        Ok(result.into())
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        Ok(rmcp::model::GetTaskResult::new(self.tasks.get(&request.task_id)?))
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel(&request.task_id)
    }
}

/// Serves on standard input/output until the client disconnects. Nothing else may write to
/// stdout.
pub async fn serve_stdio(server: ToolServer) -> Result<(), String> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("MCP handshake on stdio failed: {e}"))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| format!("the MCP session ended abnormally: {e}"))
}
