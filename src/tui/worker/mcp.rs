//! The worker's MCP jobs: connecting the hub's servers (status reported as it changes, tool-list
//! changes and disconnects forwarded) and tool calls, repeated, with progress forwarded and a
//! cancellation token that makes the client send `notifications/cancelled`.

use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio_util::sync::CancellationToken;

use crate::mcp::events::ServerEvent;
use crate::mcp::{CallError, CallOptions, McpHub};
use crate::tui::event::{AppEvent, Job};

/// Every server's status and the logs of the connected ones.
pub(super) fn snapshot(hub: &McpHub) -> AppEvent {
    let servers = hub.servers();
    let logs = servers
        .iter()
        .filter_map(|s| hub.connection(&s.name).map(|c| (s.name.clone(), c.log())))
        .collect();
    AppEvent::McpServers { servers, logs }
}

/// Runs one MCP job.
pub(super) async fn run(
    hub: Option<McpHub>,
    id: u64,
    job: Job,
    cancel: CancellationToken,
    events: &UnboundedSender<AppEvent>,
    (guard, fleet): (&super::guard::Guard, &Result<crate::aws::Fleet, crate::aws::AwsError>),
) {
    let Some(hub) = hub else {
        if let Job::ToolCall { .. } = job {
            let _ = events.send(AppEvent::ToolResult {
                id,
                index: 0,
                result: Err(CallError::Disconnected("no MCP servers are configured".into())),
            });
        }
        return;
    };
    match job {
        Job::McpConnect { server } => {
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
                        drop(conn);
                        tokio::spawn(async move {
                            loop {
                                match rx.recv().await {
                                    Ok(ServerEvent::ToolsChanged { .. } | ServerEvent::Disconnected { .. }) => {
                                        if events.send(snapshot(&hub)).is_err() {
                                            break;
                                        }
                                    }
                                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                                    Err(_) => break,
                                }
                            }
                        });
                    }
                }
            };
            futures_util::future::join_all(names.into_iter().map(connect)).await;
        }
        Job::ToolCall {
            server,
            tool,
            arguments,
            repeat,
            reason,
        } => {
            let audit = match super::guard::tool_call_intent(
                guard,
                fleet,
                &format!("{server}/{tool}"),
                &serde_json::json!(arguments),
                repeat,
                reason,
                events,
            )
            .await
            {
                Ok(a) => a,
                Err(e) => {
                    let refusal = CallError::Other(e);
                    let _ = events.send(AppEvent::ToolResult {
                        id,
                        index: 0,
                        result: Err(refusal),
                    });
                    return;
                }
            };
            let (mut ok, mut failed, mut last_error) = (0u32, 0u32, None::<String>);
            for index in 0..repeat.max(1) {
                if cancel.is_cancelled() {
                    break;
                }
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
                    cancel: cancel.clone(),
                    progress: Some(ptx),
                    ..CallOptions::default()
                };
                let result = hub.call(&server, &tool, arguments.clone(), opts).await;
                let _ = forward.await;
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
        // Not MCP jobs: run by the worker's other parts (`JobKind::runner`).
        Job::Inventory
        | Job::Metrics { .. }
        | Job::Describe { .. }
        | Job::ApplyWeights { .. }
        | Job::Activity
        | Job::Promote { .. }
        | Job::PromoteResume { .. }
        | Job::PromoteControl { .. }
        | Job::Invoke { .. }
        | Job::Catalog { .. }
        | Job::Prewarm { .. }
        | Job::Cancel(_) => {}
    }
}
