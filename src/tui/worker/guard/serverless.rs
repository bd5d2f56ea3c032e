//! The guard runner's change of a serverless variant's concurrency (the Variants pane's `c`):
//! through the fleet layer's guarded path (compare-and-swap against the variant as seen, the
//! intent audited first, the desired settings read back), then followed to InService as a
//! weight change is (the pane shows Updating → InService meanwhile).

use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::{Guard, JobLimits, notice, send_activity};
use crate::aws::Fleet;
use crate::aws::change::serverless::ServerlessPlan;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::tui::event::AppEvent;

/// What the audit log calls the change (the CLI's `sagedeck serverless` writes the same).
const ACTION: &str = "serverless.set";

/// Sends `plan` guarded and audited, then follows the endpoint to InService.
pub(super) async fn set(
    g: &Guard,
    f: &Fleet,
    plan: &ServerlessPlan,
    reason: Option<String>,
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
) -> Result<Box<EndpointInfo>, String> {
    let audited = g.audited(f).await?;
    let applied = f.apply_serverless_guarded(plan, &audited, ACTION, reason).await;
    // Sent or refused, the log has its lines now.
    send_activity(g, events);
    let applied = applied.map_err(|e| e.to_string())?;
    if let Some(w) = applied.audit_warning {
        notice(events, true, w);
    }
    let progress = events.clone();
    f.wait_in_service(&plan.endpoint, limits.weights, Duration::from_secs(1), |i| {
        let _ = progress.send(AppEvent::WeightsProgress(i.clone()));
    })
    .await
    .map(Box::new)
    .map_err(|e| e.to_string())
}
