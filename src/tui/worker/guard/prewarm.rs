//! An audited prewarm: its intent written to the audit log before anything is sent, its
//! progress forwarded to the console, its result recorded after.

use serde_json::json;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::reads::send_activity;
use super::{Guard, notice};
use crate::aws::change::audit::Mutation;
use crate::aws::invoke::prewarm::PrewarmOptions;
use crate::aws::{AwsError, Fleet};
use crate::tui::event::AppEvent;
use crate::tui::worker::{JobLimits, timeout_error};

/// A prewarm with its intent audited before anything is sent and its result after.
pub(super) async fn prewarm(
    g: &Guard,
    f: &Fleet,
    endpoint: &str,
    models: &[String],
    reason: Option<String>,
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
) -> Result<Vec<crate::aws::invoke::prewarm::PrewarmResult>, AwsError> {
    let audited = g.audited(f).await.map_err(AwsError::Config)?;
    let pending = audited
        .intent(Mutation {
            action: "prewarm".into(),
            target: endpoint.to_string(),
            before: serde_json::Value::Null,
            after: json!({ "models": models }),
            reason,
        })
        .await
        .map_err(|e| AwsError::Config(e.to_string()))?;
    send_activity(g, events);
    let (ptx, mut prx) = unbounded_channel();
    let forward = {
        let events = events.clone();
        let endpoint = endpoint.to_string();
        tokio::spawn(async move {
            while let Some(event) = prx.recv().await {
                let _ = events.send(AppEvent::Prewarm {
                    endpoint: endpoint.clone(),
                    event,
                });
            }
        })
    };
    let r = tokio::time::timeout(
        limits.prewarm,
        f.prewarm(endpoint, models, &PrewarmOptions::default(), Some(&ptx)),
    )
    .await
    .unwrap_or_else(|_| Err(timeout_error("the prewarm", limits.prewarm)))
    .map(|report| report.results);
    drop(ptx);
    let _ = forward.await;
    let outcome = match &r {
        Ok(results) => {
            let failed: Vec<&str> = results.iter().filter(|x| !x.loaded).map(|x| x.model.as_str()).collect();
            if failed.is_empty() {
                Ok(None)
            } else {
                Err(format!(
                    "{} of {} models not loaded: {}",
                    failed.len(),
                    results.len(),
                    failed.join(", ")
                ))
            }
        }
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = audited.finish(&pending, outcome) {
        notice(events, true, e.to_string());
    }
    r
}
