//! What `sagedeck deploy` prints: the plan before sending, one line per change of the stepper
//! while it runs (outside text escaped), and the outcome.

use crate::aws::deploy::gate_alarms::GateAlarm;
use crate::aws::deploy::schedule::{Schedule, span};
use crate::aws::deploy::stepper::{Outcome, ROLLBACK_FAILED_ADVICE, Stepper};
pub use crate::aws::deploy::stepper::{policy_text, times};
use crate::cli::exit::{CmdResult, EXIT_AWS, EXIT_PROMOTION, Exit};
use crate::cli::output::outln;
use crate::format::escape_text;

/// The plan: where from and to, the schedule, the gate alarms, and what is said before asking.
pub fn print_plan(
    endpoint: &str,
    from: &str,
    to: &str,
    schedule: &Schedule,
    gates: &[GateAlarm],
    notes: &[String],
) -> CmdResult {
    outln!("{endpoint}: {from} → {to}")?;
    outln!("schedule: {}", schedule.text())?;
    for g in gates {
        outln!("gate alarm: {}", g.text())?;
    }
    for n in notes {
        outln!("note: {n}")?;
    }
    Ok(())
}

/// One line of a stepper: status, each variant's steps, blue and green counts, alarms, times.
pub fn stepper_line(s: &Stepper) -> String {
    let mut parts = vec![s.status.clone()];
    if let Some(c) = &s.pending_config {
        parts.push(format!("→ {}", escape_text(c)));
    }
    for g in &s.green {
        let steps: Vec<String> = g
            .steps
            .iter()
            .map(|st| {
                let left = st
                    .bake_left_secs
                    .map(|l| format!(" ({} left)", span(l)))
                    .unwrap_or_default();
                format!("{} \"{}\"{left}", st.status, escape_text(&st.message))
            })
            .collect();
        parts.push(format!(
            "{}: {} · weight {}→{} · green {}/{}",
            escape_text(&g.name),
            if steps.is_empty() {
                "-".to_string()
            } else {
                steps.join(", ")
            },
            g.weights.0,
            g.weights.1,
            g.instances.0,
            g.instances.1
        ));
    }
    let blue: Vec<String> = s.blue.iter().map(|(v, n)| format!("{} {n}", escape_text(v))).collect();
    parts.push(format!("blue {}", blue.join(", ")));
    if !s.alarms.is_empty() {
        let alarms: Vec<String> = s
            .alarms
            .iter()
            .map(|a| format!("{} {}", escape_text(&a.name), a.state))
            .collect();
        parts.push(format!("alarms {}", alarms.join(", ")));
    }
    parts.join(" · ")
}

/// The outcome as the command's end: Ok for success (or nothing in flight), exit 7 rolled back,
/// exit 3 for UpdateRollbackFailed (with what to do) and Failed; `quiet` (JSON) says nothing on
/// success.
pub fn outcome_exit(endpoint: &str, o: &Outcome, quiet: bool) -> CmdResult {
    match o {
        Outcome::Succeeded { .. } | Outcome::Idle { .. } | Outcome::InFlight if quiet => Ok(()),
        Outcome::Succeeded { config } => outln!("{endpoint} is InService on {} (deployed)", escape_text(config)),
        Outcome::Idle { config } => outln!(
            "{endpoint} has no deployment in flight; it is on {}",
            escape_text(config)
        ),
        Outcome::InFlight => outln!("{endpoint}: still in flight"),
        Outcome::RolledBack { config, reason } => Err(Exit::new(
            EXIT_PROMOTION,
            format!("{endpoint} rolled back: it is InService on {config}; {reason}"),
        )),
        Outcome::RollbackFailed { reason } => Err(Exit::new(
            EXIT_AWS,
            format!("EMERGENCY: {endpoint} is UpdateRollbackFailed ({reason}); {ROLLBACK_FAILED_ADVICE}"),
        )),
        Outcome::Failed { reason } => Err(Exit::new(
            EXIT_AWS,
            format!("{endpoint} is Failed ({reason}); only DeleteEndpoint is allowed now"),
        )),
    }
}

/// The last deployment's policy and rollback alarms, said when nothing is in flight.
pub fn print_last_deployment(s: &Stepper) -> CmdResult {
    let Some(p) = &s.policy else {
        return Ok(());
    };
    let alarms = if s.alarm_names.is_empty() {
        "no rollback alarms".to_string()
    } else {
        format!("rollback alarms {}", escape_text(&s.alarm_names.join(", ")))
    };
    outln!("last deployment: {}; {alarms}", policy_text(p))
}
