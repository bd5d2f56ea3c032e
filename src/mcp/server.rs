//! `sagedeck mcp serve`: SageMaker endpoints as MCP tools, the seeds' `classify_intent` handler
//! made general. Every call goes through the fleet layer: a ModelError becomes an `isError`
//! result carrying the container's status and message; InternalFailure, ServiceUnavailable,
//! ModelNotReady and Throttling are retried with backoff and jitter within the deadline, then
//! reported the same way; results name the endpoint, the variant that answered and the attempts.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

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
        let mut caps = ServerCapabilities::builder().enable_tools().build();
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
        let args = request.arguments.unwrap_or_default();
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

/// A running streamable HTTP server.
pub struct HttpServerHandle {
    /// The bound address.
    pub addr: SocketAddr,
    ct: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl HttpServerHandle {
    /// `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stops serving.
    pub async fn shutdown(self) {
        self.ct.cancel();
        let _ = self.task.await;
    }

    /// Serves until the task ends (Ctrl-C handling is the caller's).
    pub async fn wait(self) {
        let _ = self.task.await;
    }
}

/// Whether `headers` carry `Authorization: Bearer TOKEN` (the scheme in any case, RFC 7235).
fn authorized(headers: &HeaderMap, token: &str) -> bool {
    let Some((scheme, got)) = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
    else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return false;
    }
    // Constant-time comparison.
    let (a, b) = (got.trim().as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Who may reach `mcp serve --http`.
#[derive(Debug, Clone, Default)]
pub struct HttpAccess {
    /// Every request must carry `Authorization: Bearer TOKEN`.
    pub token: Option<String>,
    /// Browser origins allowed besides the server's own (see [`own_origins`]).
    pub allow_origins: Vec<String>,
}

/// Answers a session DELETE as the MCP spec says: 404 for a session the server does not know,
/// 204 once it is terminated (the transport itself answers 202).
async fn terminate_session(
    sessions: Arc<LocalSessionManager>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use rmcp::transport::streamable_http_server::SessionManager;
    if req.method() != axum::http::Method::DELETE {
        return next.run(req).await;
    }
    let id = req
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(std::sync::Arc::<str>::from);
    if let Some(id) = id
        && !sessions.has_session(&id).await.unwrap_or(false)
    {
        return (StatusCode::NOT_FOUND, "no such session\n").into_response();
    }
    let mut resp = next.run(req).await;
    if resp.status() == StatusCode::ACCEPTED {
        *resp.status_mut() = StatusCode::NO_CONTENT;
        *resp.body_mut() = axum::body::Body::empty();
    }
    resp
}

/// Serves streamable HTTP at `/mcp` on `addr`; with `token`, every request must carry
/// `Authorization: Bearer TOKEN` (else 401). Hosts other than loopback are accepted only when
/// `addr` itself is not loopback (the caller asked for it explicitly); browser origins other than
/// the server's own are refused (403).
pub async fn serve_http(
    server: ToolServer,
    addr: SocketAddr,
    token: Option<String>,
) -> std::io::Result<HttpServerHandle> {
    let access = HttpAccess {
        token,
        allow_origins: vec![],
    };
    serve_http_with(server, addr, access).await
}

/// [`serve_http`] with the origins of `access.allow_origins` allowed too.
pub async fn serve_http_with(
    server: ToolServer,
    addr: SocketAddr,
    access: HttpAccess,
) -> std::io::Result<HttpServerHandle> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let ct = CancellationToken::new();
    let token = access.token.map(Arc::new);
    let guard = axum::middleware::from_fn(move |req: axum::extract::Request, next: axum::middleware::Next| {
        let token = token.clone();
        async move {
            match &token {
                Some(t) if !authorized(req.headers(), t) => (
                    StatusCode::UNAUTHORIZED,
                    [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
                    "missing or wrong bearer token\n",
                )
                    .into_response(),
                _ => next.run(req).await,
            }
        }
    });
    let app = mcp_router(server, addr, &ct, access.allow_origins)
        .layer(guard)
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found; the MCP endpoint is /mcp\n").into_response() });
    let task = spawn_serve(listener, app, &ct);
    Ok(HttpServerHandle { addr, ct, task })
}

/// The streamable HTTP service at `/mcp` of a server bound to `addr`: browser origins other than
/// its own and `allow_origins` refused, hosts other than loopback accepted only when `addr` is
/// not loopback, sessions ended by DELETE as the spec says; it stops with `ct`.
pub fn mcp_router(
    server: ToolServer,
    addr: SocketAddr,
    ct: &CancellationToken,
    allow_origins: Vec<String>,
) -> axum::Router {
    let origins = own_origins(addr).into_iter().chain(allow_origins);
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(ct.child_token())
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    if !addr.ip().is_loopback() {
        config = config.disable_allowed_hosts();
    }
    let sessions = Arc::new(LocalSessionManager::default());
    let service: StreamableHttpService<ToolServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), config);
    let deletes = axum::middleware::from_fn(move |req, next| terminate_session(sessions.clone(), req, next));
    axum::Router::new().nest_service("/mcp", service).layer(deletes)
}

/// Serves `app` on `listener` until `ct` is cancelled.
pub fn spawn_serve(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    ct: &CancellationToken,
) -> tokio::task::JoinHandle<()> {
    let stop = ct.clone();
    tokio::spawn(async move {
        // Answers stream as several small writes: without TCP_NODELAY, Nagle's algorithm and
        // the client's delayed ACK add ~40 ms to every call.
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await;
    })
}
