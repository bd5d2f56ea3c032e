//! A running promotion plan announces itself in the team's audit trail (`promote.plan` lines:
//! its id, phase, step and host, at start, at each step and at its end), so that `promote
//! --status` on another machine says who runs a plan on the endpoint and where it is, and a
//! second plan there is refused unless forced. The lock is advisory: nothing stops a caller
//! that does not read the trail.

use serde::Deserialize;
use serde_json::json;

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::Audited;
use crate::aws::promote::plan::{Phase, PlanState};
use crate::aws::trail::event::shorten;
use crate::aws::{AwsError, Fleet};

/// The action of an announcement.
pub const ACTION: &str = "promote.plan";

/// How far back announcements are looked for.
const LOOK_BACK: f64 = 86_400.0;

/// Announces `state` in the team's trail of `audited` (when one is attached).
pub fn announce(audited: &Audited, state: &PlanState) {
    let m = Mutation {
        action: ACTION.into(),
        target: state.spec.endpoint.clone(),
        before: serde_json::Value::Null,
        after: json!({
            "plan": state.id,
            "phase": state.phase,
            "step": state.step + 1,
            "steps": state.spec.steps.len(),
            "host": crate::local::host::host_name(),
        }),
        reason: state.reason.clone(),
    };
    audited.audit.announce(&audited.ctx, m, "announced");
}

/// What an announcement says.
#[derive(Debug, Deserialize)]
struct Said {
    plan: String,
    phase: Phase,
    step: usize,
    steps: usize,
    host: String,
}

/// A plan another sagedeck announced on an endpoint, as last heard.
#[derive(Debug, Clone, PartialEq)]
pub struct Announced {
    /// The plan's id.
    pub plan: String,
    /// Who runs it (the principal shortened).
    pub who: String,
    /// The host it runs on.
    pub host: String,
    /// Where it is.
    pub phase: Phase,
    /// Its step (1-based) and how many there are.
    pub step: (usize, usize),
    /// When it was last heard of (epoch seconds).
    pub epoch: f64,
}

impl Announced {
    /// `a plan by bob on host-x is at step 2/4, baking (last heard 40s ago)`.
    pub fn line(&self, now: f64) -> String {
        format!(
            "a plan by {} on {} is at step {}/{}, {} (last heard {}s ago)",
            self.who,
            self.host,
            self.step.0,
            self.step.1,
            self.phase.text(),
            (now - self.epoch).max(0.0).round()
        )
    }
}

impl Fleet {
    /// The last plan announced on `endpoint` in the team's trail `group` within a day, when it
    /// has not ended.
    pub async fn announced_plan(&self, group: &str, endpoint: &str, now: f64) -> Result<Option<Announced>, AwsError> {
        let records = self.read_team_trail(group, now - LOOK_BACK, 50).await?;
        let last = records
            .iter()
            .rev()
            .filter(|t| t.record.action == ACTION && t.record.target == endpoint)
            .find_map(|t| Some((t, serde_json::from_value::<Said>(t.record.after.clone()).ok()?)));
        Ok(last.filter(|(_, s)| !s.phase.is_final()).map(|(t, s)| Announced {
            plan: s.plan,
            who: t.record.principal.as_deref().map_or_else(|| "someone".into(), shorten),
            host: s.host,
            phase: s.phase,
            step: (s.step, s.steps),
            epoch: t.record.epoch,
        }))
    }
}
