//! The fleet runner: plain fleet-layer jobs (reads, invocations), each within its time limit.

use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::{JobLimits, guard, timeout_error, varlog};
use crate::aws::endpoints::refresh::RefreshMemory;
use crate::aws::observe::metrics::MetricsPlan;
use crate::aws::{AwsError, Fleet, RetryPolicy};
use crate::tui::event::{AppEvent, FleetJob};

/// Answers a fleet job with the connection error.
pub(super) fn fail(events: &UnboundedSender<AppEvent>, id: u64, job: FleetJob, e: AwsError) {
    let ev = match job {
        FleetJob::Inventory { .. } => AppEvent::Inventory(Err(e)),
        FleetJob::Metrics { detail, .. } => AppEvent::Metrics { detail, result: Err(e) },
        FleetJob::Describe { endpoint } => AppEvent::Described {
            endpoint,
            result: Err(e),
        },
        FleetJob::Invoke { .. } => AppEvent::Invoked {
            id,
            index: 0,
            result: Err(crate::aws::invoke::call::InvokeFailure {
                error: e,
                attempts: 0,
                total: Duration::ZERO,
            }),
        },
        FleetJob::Catalog { endpoint, .. } => AppEvent::Catalog {
            endpoint,
            result: Err(e),
        },
        FleetJob::Chat { .. } => AppEvent::Chatted { id, result: Err(e) },
        FleetJob::InvokeAsync { .. } => AppEvent::AsyncAccepted { id, result: Err(e) },
        FleetJob::ShadowJudge { endpoint } => AppEvent::ShadowJudged {
            endpoint,
            result: Err(e),
        },
        FleetJob::AsyncFollow { accepted, .. } => AppEvent::AsyncSettled {
            inference_id: accepted.inference_id,
            result: Err(e),
        },
        FleetJob::Logs { query, follow, .. } => AppEvent::Logs {
            endpoint: query.endpoint,
            follow,
            result: Err(e),
        },
        FleetJob::Components { endpoint } => AppEvent::Components {
            endpoint,
            result: Err(e),
        },
        FleetJob::Alarms => AppEvent::Alarms(Err(e.to_string())),
        FleetJob::ScalingView { endpoint } => AppEvent::Scaling {
            endpoint,
            result: Err(e),
        },
    };
    let _ = events.send(ev);
}

/// An endpoint with its autoscaling and its last ten scaling activities (the `d` overlay).
async fn describe(
    f: &Fleet,
    endpoint: &str,
) -> Result<
    (
        crate::aws::endpoints::inventory::EndpointInfo,
        Vec<crate::aws::endpoints::autoscaling::ActivityInfo>,
    ),
    AwsError,
> {
    let info = f.endpoint(endpoint).await?;
    let variants: Vec<String> = info.variants.iter().map(|v| v.name.clone()).collect();
    let acts = f.scaling_activities(endpoint, &variants, 10).await.unwrap_or_default();
    Ok((info, acts))
}

/// An inference-components endpoint's components, described, and their metrics: one plan of
/// every component's queries (a failed metrics read keeps the components, with its error).
async fn components(f: &Fleet, endpoint: &str) -> Result<crate::tui::data::ComponentsRead, AwsError> {
    use crate::tui::data::ComponentsRead;
    let components = f.list_components(Some(endpoint)).await?;
    let names: Vec<(String, String)> = components
        .iter()
        .map(|c| (endpoint.to_string(), c.name.clone()))
        .collect();
    let window = ComponentsRead::WINDOW;
    let plan = MetricsPlan::for_endpoints(&[], window, MetricsPlan::period_for(window)).with_components(&names);
    let end = std::time::SystemTime::now();
    let (metrics, metrics_error) = match f.fetch_metrics(&plan, end).await {
        Ok(m) => (Some(m), None),
        Err(e) => (None, Some(e.to_string())),
    };
    Ok(ComponentsRead {
        components,
        metrics,
        metrics_error,
        at: end
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0),
    })
}

/// Invokes `spec` `repeat` times (at least once), each with its retries and time limit, each
/// recorded in the variant log and sent as it ends.
async fn invoke(
    f: &Fleet,
    id: u64,
    (spec, repeat): (&crate::aws::invoke::call::InvokeSpec, u32),
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
    guard: &guard::Guard,
) {
    let policy = RetryPolicy::default();
    for index in 0..repeat.max(1) {
        let r = tokio::time::timeout(limits.invoke, f.invoke(spec, &policy))
            .await
            .unwrap_or_else(|_| {
                Err(crate::aws::invoke::call::InvokeFailure {
                    error: timeout_error("the invocation", limits.invoke),
                    attempts: 1,
                    total: limits.invoke,
                })
            });
        let record = crate::aws::invoke::log::InvocationRecord::of_invoke("console-invoke", None, spec, &r);
        varlog::append(guard, record, &spec.body, events);
        let _ = events.send(AppEvent::Invoked { id, index, result: r });
    }
}

/// What a chat job sends: endpoint, component, body, session, the operator's reason.
type ChatParts = (String, Option<String>, Vec<u8>, Option<String>, Option<String>);

/// One streamed Chat Completions call: each part of the answer as an event, then how it ended.
/// The token is minted and used here only, its mint recorded in the audit log first as the
/// CLI's `openai-env` and the agent record theirs (no audit log: no token).
async fn chat(
    f: &Fleet,
    id: u64,
    job: ChatParts,
    limits: JobLimits,
    (events, guard): (&UnboundedSender<AppEvent>, &guard::Guard),
) {
    let (endpoint, component, body, session_id, reason) = job;
    let life = crate::aws::invoke::openai::MAX_TOKEN_LIFE.min(Duration::from_secs(900));
    let run = async {
        let audited = guard.audited(f).await.map_err(AwsError::Config)?;
        let client = crate::aws::invoke::openai::OpenAiClient::new(f, &endpoint, component.as_deref(), life)
            .await?
            .with_mint_gate(audited.token_gate(reason));
        let call = crate::aws::invoke::openai::ChatCall {
            body,
            session_id,
            prefix_aware_id: None,
        };
        let (_, session) = client
            .chat_stream(&call, |part| {
                let _ = events.send(AppEvent::ChatPart {
                    id,
                    bytes: part.to_vec(),
                });
            })
            .await?;
        Ok(session)
    };
    let result = tokio::time::timeout(limits.invoke, run)
        .await
        .unwrap_or_else(|_| Err(timeout_error("the chat call", limits.invoke)));
    let _ = events.send(AppEvent::Chatted { id, result });
}

/// Runs a plain fleet-layer job (a read or an invocation), each within its time limit; a
/// refresh of the inventory describes what `memory` says changed.
pub(super) async fn run(
    f: &Fleet,
    (id, job): (u64, FleetJob),
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
    guard: &guard::Guard,
    memory: &tokio::sync::Mutex<RefreshMemory>,
) {
    let send = |ev: AppEvent| {
        let _ = events.send(ev);
    };
    let now = std::time::SystemTime::now;
    match job {
        FleetJob::Inventory { selected } => {
            let report = |progress| {
                let _ = events.send(AppEvent::InventoryProgress { origin: None, progress });
            };
            let plan = limits.refresh.plan(selected, &limits);
            let mut memory = memory.lock().await;
            let r = within(
                limits.inventory,
                "the inventory",
                f.refresh(&mut memory, &plan, &report),
            )
            .await;
            send(AppEvent::Inventory(r));
            crate::tui::refresh::release_freed_memory();
        }
        FleetJob::Metrics {
            endpoints,
            window,
            detail,
        } => {
            let plan = MetricsPlan::for_endpoints(&endpoints, window, MetricsPlan::period_for(window));
            let r = within(limits.metrics, "the metrics refresh", f.fetch_metrics(&plan, now())).await;
            send(AppEvent::Metrics { detail, result: r });
        }
        FleetJob::Describe { endpoint } => {
            let r = within(limits.metrics, "describe", describe(f, &endpoint)).await;
            send(AppEvent::Described { endpoint, result: r });
        }
        FleetJob::Invoke { spec, repeat } => invoke(f, id, (&spec, repeat), limits, events, guard).await,
        FleetJob::Chat {
            endpoint,
            component,
            body,
            session_id,
            reason,
        } => {
            let parts = (endpoint, component, body, session_id, reason);
            chat(f, id, parts, limits, (events, guard)).await
        }
        FleetJob::InvokeAsync { spec } => {
            let r = within(limits.invoke, "the asynchronous request", f.invoke_async(&spec)).await;
            send(AppEvent::AsyncAccepted { id, result: r });
        }
        FleetJob::AsyncFollow { accepted, deadline } => {
            let now = crate::format::now_epoch();
            let left = Duration::from_secs_f64((deadline - now).max(0.0));
            let result = f.wait_async(&accepted, left, |_| {}).await;
            send(AppEvent::AsyncSettled {
                inference_id: accepted.inference_id,
                result,
            });
        }
        FleetJob::ShadowJudge { endpoint } => {
            // `sagedeck shadow`'s defaults: the last hour in one-minute periods, five at least.
            let cfg = crate::aws::judge::compare::JudgeConfig {
                period: 60,
                min_points: 5,
                ..Default::default()
            };
            let judged = f.judge_shadow(&endpoint, Duration::from_secs(3600), &cfg);
            let r = within(limits.metrics, "the shadow's judgement", judged).await;
            send(AppEvent::ShadowJudged {
                endpoint,
                result: r.map(Box::new),
            });
        }
        FleetJob::Catalog { endpoint, prefix } => {
            let r = within(limits.metrics, "the catalog listing", f.list_catalog(&prefix, None)).await;
            send(AppEvent::Catalog { endpoint, result: r });
        }
        FleetJob::ScalingView { endpoint } => {
            let r = within(limits.metrics, "the autoscaling view", f.scaling_view(&endpoint, now())).await;
            send(AppEvent::Scaling {
                endpoint,
                result: r.map(Box::new),
            });
        }
        FleetJob::Components { endpoint } => {
            let r = within(limits.metrics, "reading the components", components(f, &endpoint)).await;
            send(AppEvent::Components {
                endpoint,
                result: r.map(Box::new),
            });
        }
        FleetJob::Alarms => {
            let r = within(limits.metrics, "the alarm states", f.alarms_by_endpoint()).await;
            send(AppEvent::Alarms(r.map_err(|e| e.to_string())));
        }
        FleetJob::Logs { query, streams, follow } => {
            let r = within(limits.metrics, "reading the logs", read_logs(f, query.clone(), streams)).await;
            send(AppEvent::Logs {
                endpoint: query.endpoint,
                follow,
                result: r,
            });
        }
    }
}

/// `call`'s result, or a timeout error naming `what` when it takes longer than `limit`.
async fn within<T>(
    limit: Duration,
    what: &str,
    call: impl std::future::Future<Output = Result<T, AwsError>>,
) -> Result<T, AwsError> {
    tokio::time::timeout(limit, call)
        .await
        .unwrap_or_else(|_| Err(timeout_error(what, limit)))
}

/// The logs of a [`FleetJob::Logs`]: the streams when asked, then every page of lines.
async fn read_logs(
    f: &Fleet,
    query: crate::aws::observe::logs::LogQuery,
    streams: bool,
) -> Result<
    (
        Option<Vec<crate::aws::observe::logs::StreamInfo>>,
        crate::aws::observe::logs::LogRead,
    ),
    AwsError,
> {
    let streams = match streams {
        true => Some(f.log_streams(&query.endpoint, query.variant.as_deref()).await?),
        false => None,
    };
    let calls = std::sync::atomic::AtomicUsize::new(0);
    Ok((streams, f.log_lines(&query, &calls).await?))
}
