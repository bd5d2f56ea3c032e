//! Calling an inference component at zero copies: `--wait-for-capacity` wakes it (unless
//! read-only: then it only waits for the scaling alarm to), shows its progress on standard error
//! and calls again, all within `--deadline`. The wake's own line (`components --wake`) uses the
//! same progress printer.

use std::future::Future;
use std::time::{Duration, Instant};

use crate::aws::AwsError;
use crate::aws::Fleet;
use crate::aws::components::wake::{FollowOptions, WakeError, WakeProgress, Waker};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{EXIT_AWS, Exit};

/// A component is woken and followed at most this many times for one call: a component that
/// serves and still answers "no capacity" is not waited for forever.
const MAX_WAKES: u32 = 3;

/// How often a waking component is looked at.
pub const WAKE_POLL: Duration = Duration::from_secs(2);

/// Prints a look at a waking component on standard error when it says something new (its
/// phase, copies or instances), so a long wait shows a handful of lines, not one per poll.
pub fn progress_printer() -> impl FnMut(&WakeProgress) + Send {
    let mut said: Option<(String, i32, i32, Option<i32>)> = None;
    move |p: &WakeProgress| {
        let now = (
            p.phase.text().to_string(),
            p.copies.desired,
            p.copies.current,
            p.instances,
        );
        if said.as_ref() != Some(&now) {
            eprintln!("sagedeck: {}", crate::format::escape_text(&p.line()));
            said = Some(now);
        }
    }
}

/// The exit of a wake or a wait that did not end serving: refusals as the guard's (exit 6),
/// AWS errors as theirs, a failure or the deadline exit 3.
pub fn wake_exit(e: WakeError) -> Exit {
    match e {
        WakeError::Guard(g) => g.into(),
        other => Exit::new(EXIT_AWS, other),
    }
}

/// Runs `call`; while it fails on a component at zero copies and `wait` (the deadline) is given,
/// wakes the component when allowed, follows it until it serves and calls again. Without `wait`,
/// or for any other outcome, `call`'s result is returned as it is.
pub async fn retry_at_zero<T, E, F, Fut>(
    g: &GlobalArgs,
    fleet: &Fleet,
    wait: Option<Duration>,
    error_of: fn(&E) -> &AwsError,
    mut call: F,
) -> Result<Result<T, E>, Exit>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let start = Instant::now();
    let mut audited = None;
    let mut wakes = 0;
    loop {
        let result = call().await;
        let Err(e) = &result else { return Ok(result) };
        let (
            Some(deadline),
            AwsError::NoCapacity {
                component: Some(component),
                ..
            },
        ) = (wait, error_of(e))
        else {
            return Ok(result);
        };
        let left = deadline.saturating_sub(start.elapsed());
        if wakes >= MAX_WAKES || left.is_zero() {
            return Ok(result);
        }
        wakes += 1;
        if audited.is_none() && !g.read_only {
            audited = Some(g.audited(fleet).await?);
        }
        let waker = audited.as_ref().map(|a| Waker {
            audited: a,
            reason: g.reason.clone(),
        });
        match &waker {
            Some(_) => eprintln!(
                "sagedeck: {component} is at zero copies: waking it (up to {:.0}s)",
                left.as_secs_f64()
            ),
            None => eprintln!(
                "sagedeck: {component} is at zero copies; read-only: not waking it, waiting up to {:.0}s for its scaling to",
                left.as_secs_f64()
            ),
        }
        let opts = FollowOptions {
            deadline: left,
            poll: WAKE_POLL,
        };
        let mut show = progress_printer();
        let report = fleet
            .ensure_capacity(component, waker.as_ref(), opts, &mut show)
            .await
            .map_err(wake_exit)?;
        if let Some(w) = report.audit_warning {
            eprintln!("sagedeck: warning: {w}");
        }
    }
}
