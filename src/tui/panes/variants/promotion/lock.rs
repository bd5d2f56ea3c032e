//! The advisory lock a new plan respects, as the CLI's `promote` does: before a plan is
//! confirmed, the team's audit trail is read (in the background) for a plan announced on the
//! endpoint. A live one makes the confirmation say so, with not starting as the default (`F`
//! starts anyway, the override written in the plan's audited reason); a stale or dead one is
//! shown as such and does not block; a trail that could not be read is said.

use crate::aws::promote::announce::Announced;
use crate::tui::event::{GuardJob, Job};
use crate::tui::widgets::confirm::Confirm;

/// What the team's trail said of a plan on an endpoint, or why it was not read.
pub type LockRead = Result<Option<Announced>, String>;

/// `c` (a plan's confirmation on `endpoint`) with what the team's trail says; `session_reason`
/// is the console's `:reason`, kept in a forced plan's reason.
pub fn with_lock(mut c: Confirm, endpoint: &str, read: &LockRead, session_reason: Option<&str>, now: f64) -> Confirm {
    let said = |a: &Announced| crate::format::escape_line(&a.line(now)).into_owned();
    match read {
        Ok(None) => c
            .lines
            .insert(0, format!("Team trail: no other plan announced on {endpoint}.")),
        Ok(Some(a)) if a.blocks() => {
            let line = said(a);
            c.title = format!("Another plan runs on {endpoint}: start a second one?");
            c.lines.insert(0, format!("{line} — the lock is advisory."));
            c.lines.insert(
                1,
                "Not started unless you press F (the override is audited in the plan's reason).".into(),
            );
            let jobs = std::mem::take(&mut c.jobs);
            c.force = jobs.into_iter().map(|j| forced(j, &line, session_reason)).collect();
            c.danger = true;
        }
        Ok(Some(a)) => c.lines.insert(
            0,
            format!("{}: it does not block (the lock holds only while a plan beats).", said(a)),
        ),
        Err(e) => c.lines.insert(
            0,
            format!(
                "The team's audit trail was not read ({}): a plan announced elsewhere would not be seen.",
                crate::format::escape_line(e)
            ),
        ),
    }
    c
}

/// A plan started over `line` (another live plan): the reason says so, after the operator's.
fn forced(j: Job, line: &str, session_reason: Option<&str>) -> Job {
    let Job::Guard(GuardJob::Promote { spec, reason, extras }) = j else {
        return j;
    };
    let note = format!("started over {line} (the lock is advisory)");
    let reason = match reason.as_deref().or(session_reason) {
        Some(r) => format!("{r}; {note}"),
        None => note,
    };
    Job::Guard(GuardJob::Promote {
        spec,
        reason: Some(reason),
        extras,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aws::promote::announce::Liveness;
    use crate::aws::promote::plan::{Mode, Phase, PromotionSpec};
    use crate::aws::promote::report::Gates;

    fn plan_confirm() -> Confirm {
        let spec = PromotionSpec {
            endpoint: "ep".into(),
            canary: "Canary".into(),
            baseline: None,
            steps: vec![50.0, 100.0],
            bake: std::time::Duration::from_secs(60),
            gates: Gates::default(),
            mode: Mode::Auto,
            consolidate: false,
        };
        Confirm {
            title: "Promote Canary on ep?".into(),
            lines: vec!["Canary against baseline Stable".into()],
            jobs: vec![Job::Guard(GuardJob::Promote {
                spec,
                reason: None,
                extras: Default::default(),
            })],
            danger: true,
            force: Vec::new(),
        }
    }

    fn bobs(liveness: Liveness) -> Announced {
        Announced {
            plan: "p".into(),
            who: "bob\u{1b}[31m".into(),
            host: "host-x".into(),
            pid: Some(7),
            phase: Phase::Baking,
            step: (2, 4),
            epoch: 100.0,
            since: 50.0,
            heartbeat_secs: 60.0,
            liveness,
        }
    }

    #[test]
    fn an_unread_trail_or_no_plan_is_said_and_y_still_starts() {
        let c = with_lock(plan_confirm(), "ep", &Err("AccessDenied".into()), None, 140.0);
        assert!(c.lines[0].starts_with("The team's audit trail was not read (AccessDenied)"));
        assert_eq!((c.jobs.len(), c.force.len()), (1, 0));
        let c = with_lock(plan_confirm(), "ep", &Ok(None), None, 140.0);
        assert_eq!(c.lines[0], "Team trail: no other plan announced on ep.");
        assert_eq!(c.title, "Promote Canary on ep?");
    }

    #[test]
    fn a_forced_plan_keeps_the_session_reason_and_outside_text_is_escaped() {
        let c = with_lock(plan_confirm(), "ep", &Ok(Some(bobs(Liveness::Running))), Some("hotfix"), 140.0);
        assert!(c.jobs.is_empty());
        assert!(!c.lines[0].contains('\u{1b}'), "{}", c.lines[0]);
        let [Job::Guard(GuardJob::Promote { reason: Some(r), .. })] = c.force.as_slice() else {
            panic!("{:?}", c.force)
        };
        assert!(r.starts_with("hotfix; started over a plan by bob"), "{r}");
        assert!(r.contains("step 2/4, baking"), "{r}");
    }
}
