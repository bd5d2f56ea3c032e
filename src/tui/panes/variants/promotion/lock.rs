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
