//! The guard runner's copy-count changes of inference components (the Components pane's `c`
//! and `w`): through the fleet layer's guarded paths, the result described again.

use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::{Guard, JobLimits, send_activity, timeout_error};
use crate::aws::Fleet;
use crate::aws::components::{ComponentChange, ComponentSnapshot, RollingUpdate};
use crate::tui::event::{AppEvent, UpdateProgress};

/// How long a rolling update is followed (AWS's longest execution timeout is 8 h; the console
/// follows the first hour, then `r` shows where it is).
const FOLLOW_ROLLOUT: Duration = Duration::from_secs(3600);

/// A component's copy count set through the fleet layer's guarded path: compare-and-swapped
/// against the desired count the operator saw, audited before it is sent; the component as
/// described after.
/// A wake is the fleet layer's own (`components/wake.rs`): one copy asked, guarded the same way;
/// the pane follows it by reading the component again.
pub(super) async fn set_copies(
    g: &Guard,
    f: &Fleet,
    seen: &crate::aws::components::ComponentSnapshot,
    (copies, wake): (i32, bool),
    reason: Option<String>,
    limits: JobLimits,
) -> Result<crate::aws::components::Component, String> {
    use crate::aws::components::ComponentChange;
    use crate::aws::components::wake::Waker;
    if copies == 0 {
        // AWS takes a component to zero only on a variant that may run no instance.
        let c = f.describe_component(&seen.component).await.map_err(|e| e.to_string())?;
        let zero = f.zero_copies_rule(&c).await.map_err(|e| e.to_string())?;
        crate::aws::components::change::check_copies(&c, 0, zero)?;
    }
    let audited = g.audited(f).await?;
    let sent = async {
        if wake && copies == 1 {
            let waker = Waker {
                audited: &audited,
                reason,
            };
            f.wake_component(&seen.component, seen.desired_copies, &waker)
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        } else {
            let change = ComponentChange::Copies { count: copies };
            f.apply_component_change(&change, seen, &audited, reason)
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    };
    match tokio::time::timeout(limits.invoke, sent).await {
        Ok(r) => r?,
        Err(_) => return Err(timeout_error("the copy-count change", limits.invoke).to_string()),
    }
    f.describe_component(&seen.component).await.map_err(|e| e.to_string())
}

/// A rolling update of a component to another model through the fleet layer's guarded change,
/// then followed to its outcome: every state it passes through and the end go to the pane.
pub(super) async fn update_component(
    g: &Guard,
    f: &Fleet,
    (endpoint, seen): (String, &ComponentSnapshot),
    update: &RollingUpdate,
    reason: Option<String>,
    events: &UnboundedSender<AppEvent>,
) {
    let component = seen.component.clone();
    let send = |progress: UpdateProgress| {
        let _ = events.send(AppEvent::ComponentUpdate {
            endpoint: endpoint.clone(),
            component: component.clone(),
            progress,
        });
    };
    let applied = match g.audited(f).await {
        Ok(audited) => {
            let change = ComponentChange::Update(Box::new(update.clone()));
            f.apply_component_change(&change, seen, &audited, reason)
                .await
                .map_err(|e| e.to_string())
        }
        Err(e) => Err(e),
    };
    send_activity(g, events);
    let before = match applied {
        Ok(applied) => applied.before,
        Err(why) => return send(UpdateProgress::Done(Err(why))),
    };
    let every = Duration::from_secs(2);
    let followed = f
        .follow_rollout(&component, &update.model, before.modified, FOLLOW_ROLLOUT, every, |c| {
            send(UpdateProgress::State(Box::new(c.clone())))
        })
        .await;
    send(UpdateProgress::Done(followed.map(Box::new).map_err(|e| e.to_string())));
}
