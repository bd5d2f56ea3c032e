//! How `sagedeck promote` shows a plan: its state line, timeline table and progress lines.

use crate::aws::promote::events::PromotionEvent;
use crate::aws::promote::plan::{Phase, PlanState};
use crate::cli::exit::CmdResult;
use crate::cli::output::{opt_f, outln, print_table, weight};

/// Prints a plan's timeline: per step the share, weights, gate figures and verdict.
pub fn print_timeline(state: &PlanState) -> CmdResult {
    let total = state.spec.steps.len();
    let rows = state
        .timeline
        .iter()
        .map(|r| {
            let g = r.gate.as_ref();
            let check = |name: &str| {
                g.and_then(|g| g.checks.iter().find(|c| c.name == name))
                    .and_then(|c| c.value)
            };
            vec![
                format!("{}/{total}", r.index + 1),
                format!("{}%", weight(r.share)),
                r.weights
                    .iter()
                    .map(|(v, w)| format!("{v}={}", weight(*w)))
                    .collect::<Vec<_>>()
                    .join(","),
                g.map(|g| format!("{:.0}/{:.0}", g.canary.invocations, g.baseline.invocations))
                    .unwrap_or_else(|| "-".into()),
                g.map(|g| {
                    format!(
                        "{}/{}",
                        opt_f(g.canary.p99_ms, 1),
                        opt_f(g.reference.as_ref().and_then(|f| f.p99_ms), 1)
                    )
                })
                .unwrap_or_else(|| "-".into()),
                opt_f(check("p99_ratio"), 2),
                check("5xx_rate")
                    .map(|v| format!("{:.2}%", v * 100.0))
                    .unwrap_or_else(|| "-".into()),
                check("4xx_rate")
                    .map(|v| format!("{:.2}%", v * 100.0))
                    .unwrap_or_else(|| "-".into()),
                g.map(|g| g.verdict.as_str().to_string()).unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    print_table(
        &[
            "STEP",
            "CANARY",
            "WEIGHTS",
            "INVOCATIONS C/B",
            "P99_MS C/B",
            "RATIO",
            "5XX",
            "4XX",
            "VERDICT",
        ],
        rows,
    )
}

/// A phase in words (`baking`, `rolled back`).
pub fn phase_text(p: Phase) -> &'static str {
    p.text()
}

/// Prints a plan: endpoint, id, variants, phase and step, last message, timeline.
pub fn print_state(state: &PlanState) -> CmdResult {
    outln!(
        "{}  plan {}  canary {} vs {}  {} at step {}/{}",
        state.spec.endpoint,
        state.id,
        state.spec.canary,
        state.baseline,
        phase_text(state.phase),
        state.step + 1,
        state.spec.steps.len()
    )?;
    if let Some(m) = &state.message {
        outln!("{m}")?;
    }
    print_timeline(state)
}

/// The progress line of an event (None: nothing to show).
pub fn event_line(e: &PromotionEvent, total: usize) -> Option<String> {
    Some(match e {
        PromotionEvent::Applied {
            step,
            weights,
            request_id,
        } => format!(
            "step {}/{total}: weights {} sent{}",
            step + 1,
            weights
                .iter()
                .map(|(v, w)| format!("{v}={}", weight(*w)))
                .collect::<Vec<_>>()
                .join(","),
            request_id
                .as_ref()
                .map(|r| format!(" (request id {r})"))
                .unwrap_or_default()
        ),
        PromotionEvent::Baking { step, until } => {
            let left = until - crate::format::now_epoch();
            format!("step {}/{total}: InService; baking {:.0}s", step + 1, left.max(0.0))
        }
        PromotionEvent::Gate { step, report } => format!(
            "step {}/{total}: {} — canary {:.0} invocations, p99 {} ms vs {} ms, 5XX {}{}",
            step + 1,
            report.verdict.as_str(),
            report.canary.invocations,
            opt_f(report.canary.p99_ms, 1),
            opt_f(report.reference.as_ref().and_then(|f| f.p99_ms), 1),
            report
                .canary
                .rate_5xx()
                .map(|r| format!("{:.2}%", r * 100.0))
                .unwrap_or_else(|| "-".into()),
            if report.reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", report.reasons.join("; "))
            }
        ),
        PromotionEvent::Saved { state }
            if state.phase.is_final() || matches!(state.phase, Phase::Held | Phase::Consolidating) =>
        {
            format!(
                "plan {}: {}",
                phase_text(state.phase),
                state.message.as_deref().unwrap_or("")
            )
        }
        _ => return None,
    })
}

/// `promote --status --json`'s `announced`: a plan another machine announced in the team's
/// trail — who, host, pid, step i/n, state, since, last heard, whether it still runs, and the
/// line the text output prints.
pub fn announced_json(a: &crate::aws::promote::announce::Announced, now: f64) -> serde_json::Value {
    let at = |epoch: f64| {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(epoch.max(0.0));
        humantime::format_rfc3339_seconds(t).to_string()
    };
    serde_json::json!({
        "plan": a.plan,
        "who": a.who,
        "host": a.host,
        "pid": a.pid,
        "step": a.step.0,
        "steps": a.step.1,
        "state": a.phase,
        "since": at(a.since),
        "last_heard": at(a.epoch),
        "last_heard_secs_ago": (now - a.epoch).max(0.0).round(),
        "heartbeat_secs": a.heartbeat_secs,
        "liveness": a.liveness,
        "blocks": a.blocks(),
        "line": a.line(now),
    })
}
