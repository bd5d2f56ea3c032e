//! Following a deployment to its end (`deploy` after sending, and `deploy --watch` from any
//! terminal): a line on stderr each time the stepper changes; Ctrl-C stops following only (the
//! deployment runs on SageMaker) and says how to re-attach.

use std::time::Duration;

use crate::aws::Fleet;
use crate::aws::deploy::watch::Watched;
use crate::cli::args::interrupts;
use crate::cli::deploy::view::{stepper_line, times};
use crate::cli::exit::{EXIT_OK, Exit};
use crate::cli::output::eprint_line;

/// Follows `endpoint`'s deployment onto `target` (None: the one in flight) until it ends.
/// Err(exit 0 with the re-attach line) on Ctrl-C.
pub async fn follow(
    fleet: &Fleet,
    endpoint: &str,
    target: Option<String>,
    poll: Duration,
    quiet: bool,
) -> Result<Watched, Exit> {
    let mut ctrl_c = interrupts();
    let mut last = String::new();
    let watch = fleet.watch_deployment(endpoint, target, poll, |s| {
        let line = stepper_line(s);
        if !quiet && line != last {
            let at = times(s).map(|t| format!("{t} ")).unwrap_or_default();
            eprint_line(format_args!("  {at}{line}"));
            last = line;
        }
    });
    tokio::select! {
        watched = watch => Ok(watched?),
        _ = ctrl_c.recv() => Err(Exit::new(
            EXIT_OK,
            format!(
                "stopped following; the deployment goes on (it runs on SageMaker). Re-attach from any terminal: sagedeck deploy {endpoint} --watch"
            ),
        )),
    }
}
