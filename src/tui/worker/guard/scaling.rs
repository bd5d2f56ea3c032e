//! A change to an inference component's autoscaling from the Scaling view: sent through the
//! fleet layer's guarded, audited scaling path, bounded by the invoke limit, or by the endpoint
//! update's when the scale-to-zero plan moves the endpoint onto a new configuration.

use tokio::sync::mpsc::UnboundedSender;

use super::{Guard, send_activity};
use crate::aws::Fleet;
use crate::aws::scaling::change::{ScalingChange, ScalingSnapshot};
use crate::aws::scaling::scope::ScalingScope;
use crate::tui::event::AppEvent;
use crate::tui::worker::{JobLimits, timeout_error};

/// How long a scale-to-zero plan may take: its UpdateEndpoint is followed to InService.
const ENDPOINT_UPDATE_LIMIT: std::time::Duration = std::time::Duration::from_secs(3600);

/// A change to a component's autoscaling, compare-and-swapped and audited by the fleet layer;
/// bounded by the invoke limit, or the endpoint update's when it moves the endpoint's config.
/// Sends the change of `component`'s autoscaling, then the Activity tab's refresh and
/// [`AppEvent::ScalingChanged`] (the component as its variant).
pub(super) async fn run(
    g: &Guard,
    f: &Fleet,
    (endpoint, component): (String, String),
    (changes, seen): (&[ScalingChange], &ScalingSnapshot),
    reason: Option<String>,
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
) {
    let scope = ScalingScope::Component {
        endpoint: endpoint.clone(),
        component: component.clone(),
    };
    let result = change_scoped(g, f, &scope, changes, seen, reason, limits).await;
    send_activity(g, events);
    let _ = events.send(AppEvent::ScalingChanged {
        endpoint,
        variant: component,
        result,
    });
}

async fn change_scoped(
    g: &Guard,
    f: &Fleet,
    scope: &ScalingScope,
    changes: &[ScalingChange],
    seen: &ScalingSnapshot,
    reason: Option<String>,
    limits: JobLimits,
) -> Result<Vec<Option<String>>, String> {
    let audited = g.audited(f).await?;
    let moves_config = changes.iter().any(|c| matches!(c, ScalingChange::ZeroInstances { .. }));
    let limit = if moves_config {
        ENDPOINT_UPDATE_LIMIT
    } else {
        limits.invoke
    };
    let sent = f.apply_scaling_scoped(scope, changes, seen, &audited, reason);
    match tokio::time::timeout(limit, sent).await {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(_) => Err(timeout_error("the autoscaling change", limit).to_string()),
    }
}
