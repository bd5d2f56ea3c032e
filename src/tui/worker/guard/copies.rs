//! The guard runner's copy-count changes of inference components (the Components pane's `c`
//! and `w`): through the fleet layer's guarded paths, the result described again.

use super::{Guard, JobLimits, timeout_error};
use crate::aws::Fleet;

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
