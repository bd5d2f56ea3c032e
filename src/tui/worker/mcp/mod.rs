//! The worker's MCP jobs: connecting the hub's servers (status reported as it changes, tool-list
//! changes and disconnects forwarded, the catalog listed) and tool calls, repeated, with progress
//! forwarded and a cancellation token that makes the client send `notifications/cancelled`;
//! resources, prompts and subscriptions in `catalog.rs`.

mod catalog;

pub use catalog::elicitor;

use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio_util::sync::CancellationToken;

use crate::mcp::events::ServerEvent;
use crate::mcp::oauth::{self, LoginOptions, LoginStep, PendingLogin};
use crate::mcp::{CallError, CallOptions, McpHub};
use crate::tui::event::{AppEvent, McpJob};

/// Every server's status and the logs of the connected ones.
pub(super) fn snapshot(hub: &McpHub) -> AppEvent {
    let servers = hub.servers();
    let logs = servers
        .iter()
        .filter_map(|s| hub.connection(&s.name).map(|c| (s.name.clone(), c.log())))
        .collect();
    AppEvent::McpServers { servers, logs }
}

/// The audit log and the fleet (for the principal) a tool call is written with.
pub(super) type Audited<'a> = (
    &'a super::guard::Guard,
    &'a Result<crate::aws::Fleet, crate::aws::AwsError>,
);

/// One tool call job: which tool, with what, how many times.
struct ToolCall {
    server: String,
    tool: String,
    arguments: Option<rmcp::model::JsonObject>,
    repeat: u32,
    reason: Option<String>,
}

/// Runs one MCP job.
pub(super) async fn run(
    hub: Option<&McpHub>,
    id: u64,
    job: McpJob,
    cancel: CancellationToken,
    events: &UnboundedSender<AppEvent>,
    audited: Audited<'_>,
) {
    match (job, hub) {
        (McpJob::Connect { server }, Some(hub)) => connect(hub, server, events).await,
        (McpJob::Login { server }, Some(hub)) => login(hub, server, events).await,
        (McpJob::Logout { server }, Some(hub)) => logout(hub, server, events).await,
        (McpJob::Connect { .. } | McpJob::Login { .. } | McpJob::Logout { .. }, None) => {}
        (
            McpJob::ToolCall {
                server,
                tool,
                arguments,
                repeat,
                reason,
            },
            Some(hub),
        ) => {
            let call = ToolCall {
                server,
                tool,
                arguments,
                repeat,
                reason,
            };
            call_tool(hub, id, call, cancel, events, audited).await
        }
        (McpJob::ToolCall { .. }, None) => {
            let _ = events.send(AppEvent::ToolResult {
                id,
                index: 0,
                result: Err(CallError::Disconnected("no MCP servers are configured".into())),
            });
        }
        (McpJob::Catalog { server }, Some(hub)) => catalog::catalog(hub, server, events).await,
        (McpJob::Read { server, target }, Some(hub)) => catalog::read(hub, server, target, events).await,
        (McpJob::Subscribe { server, uri, on }, Some(hub)) => catalog::subscribe(hub, server, uri, on, events).await,
        (McpJob::Catalog { .. } | McpJob::Read { .. } | McpJob::Subscribe { .. }, None) => {}
    }
}

/// Connects one server (or all), reporting the status as it changes; tool-list changes and
/// disconnects are forwarded for as long as the connection lives.
async fn connect(hub: &McpHub, server: Option<String>, events: &UnboundedSender<AppEvent>) {
    let names = match server {
        Some(s) => vec![s],
        None => hub.servers().into_iter().map(|v| v.name).collect(),
    };
    let connect = |name: String| {
        let (hub, events) = (hub.clone(), events.clone());
        async move {
            let conn = hub.connect(&name).await;
            let _ = events.send(snapshot(&hub));
            if let Ok(conn) = conn {
                let mut rx = conn.subscribe();
                let offers = conn.info().has_resources || conn.info().has_prompts;
                drop(conn);
                if offers {
                    catalog::catalog(&hub, name.clone(), &events).await;
                }
                tokio::spawn(async move {
                    loop {
                        let alive = match rx.recv().await {
                            Ok(ServerEvent::ToolsChanged { .. } | ServerEvent::Disconnected { .. }) => {
                                events.send(snapshot(&hub)).is_ok()
                            }
                            Ok(ev) => catalog::forward(&hub, &name, &ev, &events).await,
                            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => true,
                            Err(_) => false,
                        };
                        if !alive {
                            break;
                        }
                    }
                });
            }
        }
    };
    futures_util::future::join_all(names.into_iter().map(connect)).await;
}

/// An OAuth login: the URL reported (and opened in a browser when there is one), the redirect
/// awaited (cancelling the job closes the loopback port), the server reconnected once logged in.
async fn login(hub: &McpHub, server: String, events: &UnboundedSender<AppEvent>) {
    let step = |step: LoginStep| {
        let _ = events.send(AppEvent::McpLogin {
            server: server.clone(),
            step,
        });
    };
    let Some(entry) = hub.entry(&server) else {
        return step(LoginStep::Failed(format!("no server `{server}`")));
    };
    let pending = match PendingLogin::begin(&entry, &LoginOptions::default()).await {
        Ok(p) => p,
        Err(e) => return step(LoginStep::Failed(e.to_string())),
    };
    let opened = oauth::login::hand_over(&entry, pending.url(), true);
    step(LoginStep::Open {
        url: pending.url().to_string(),
        opened,
    });
    match pending.finish(oauth::login::DEFAULT_LOGIN_TIMEOUT).await {
        Ok(done) => {
            step(LoginStep::Done(done.state.label()));
            connect(hub, Some(server.clone()), events).await;
        }
        Err(e) => step(LoginStep::Failed(e.to_string())),
    }
}

/// Deletes a server's token cache and reconnects it (it then asks for a login again).
async fn logout(hub: &McpHub, server: String, events: &UnboundedSender<AppEvent>) {
    let removed = hub.entry(&server).and_then(|e| oauth::cache_of(&e)).map(|c| c.remove());
    let step = match removed {
        Some(Ok(true)) => LoginStep::LoggedOut,
        Some(Ok(false)) | None => LoginStep::Failed(format!("{server} was not logged in")),
        Some(Err(e)) => LoginStep::Failed(format!("cannot delete the token cache: {e}")),
    };
    let _ = events.send(AppEvent::McpLogin {
        server: server.clone(),
        step,
    });
    connect(hub, Some(server), events).await;
}

/// A tool call, `repeat` times: audited first (refused when the log cannot be written), progress
/// forwarded, stopped by cancel or a lost server; the audit's result line sums it up.
async fn call_tool(
    hub: &McpHub,
    id: u64,
    call: ToolCall,
    cancel: CancellationToken,
    events: &UnboundedSender<AppEvent>,
    (guard, fleet): Audited<'_>,
) {
    let target = format!("{}/{}", call.server, call.tool);
    let args = serde_json::json!(call.arguments);
    let audit =
        match super::guard::tool_call_intent(guard, fleet, &target, &args, call.repeat, call.reason.clone(), events)
            .await
        {
            Ok(a) => a,
            Err(e) => {
                let result = Err(CallError::Other(e));
                let _ = events.send(AppEvent::ToolResult { id, index: 0, result });
                return;
            }
        };
    let (mut ok, mut failed, mut last_error) = (0u32, 0u32, None::<String>);
    for index in 0..call.repeat.max(1) {
        if cancel.is_cancelled() {
            break;
        }
        let result = call_once(hub, id, &call, cancel.clone(), events).await;
        let (record, input) = super::varlog::tool_record(&target, &call.arguments, &result);
        super::varlog::append(guard, record, &input, events);
        match &result {
            Ok(r) if !r.result.is_error => ok += 1,
            Ok(_) => {
                failed += 1;
                last_error = Some("the tool answered isError".into());
            }
            Err(e) => {
                failed += 1;
                last_error = Some(e.to_string());
            }
        }
        let stop = matches!(result, Err(CallError::Cancelled | CallError::Disconnected(_)));
        let _ = events.send(AppEvent::ToolResult { id, index, result });
        if stop {
            break;
        }
    }
    let outcome = match last_error {
        None => Ok(None),
        Some(e) => Err(format!("{ok} ok, {failed} failed; last: {e}")),
    };
    super::guard::tool_call_finish(guard, audit, outcome, events);
}

/// One call, its progress notifications forwarded as [`AppEvent::ToolProgress`].
async fn call_once(
    hub: &McpHub,
    id: u64,
    call: &ToolCall,
    cancel: CancellationToken,
    events: &UnboundedSender<AppEvent>,
) -> Result<crate::mcp::CallOutcome, CallError> {
    let (ptx, mut prx) = unbounded_channel();
    let forward = {
        let events = events.clone();
        tokio::spawn(async move {
            while let Some(progress) = prx.recv().await {
                let _ = events.send(AppEvent::ToolProgress { id, progress });
            }
        })
    };
    let opts = CallOptions {
        cancel,
        progress: Some(ptx),
        ..CallOptions::default()
    };
    let result = hub.call(&call.server, &call.tool, call.arguments.clone(), opts).await;
    let _ = forward.await;
    result
}
