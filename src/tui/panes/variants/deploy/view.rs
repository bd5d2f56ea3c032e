//! Drawing of the deploy form (fields, the schedule or the refusals in one line), the
//! confirmation it opens, and the stepper of a deployment in flight (phase steps, blue/green
//! counts, rollback alarms and states, elapsed and expected end, the outcome; UpdateRollbackFailed
//! as an emergency). Text from SageMaker and CloudWatch is shown escaped.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{DeployForm, DeployWatch, FormField, PolicyKind};
use crate::aws::deploy::plan::DeployPlan;
use crate::aws::deploy::schedule::{LAUNCH_ESTIMATE_SECS, schedule, span};
use crate::aws::deploy::stepper::{Outcome, ROLLBACK_FAILED_ADVICE, Stepper, policy_text, times};
use crate::format::escape_text;
use crate::tui::event::GuardJob;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::confirm::Confirm;
use crate::tui::widgets::toasts::Level;
use crate::tui::widgets::{centered, modal, title};

/// The confirmation of a planned deployment: from → to, the policy, the schedule, the alarms.
pub fn confirm(plan: &DeployPlan) -> Confirm {
    let sched = schedule(&plan.spec, &plan.facts, LAUNCH_ESTIMATE_SECS);
    let mut lines = vec![
        format!(
            "UpdateEndpoint {}: {} → {}",
            plan.info.name, plan.facts.current_config, plan.target.name
        ),
        format!("  DeploymentConfig: {}", policy_text(&plan.spec.policy)),
    ];
    if plan.target.derived_from.is_some() {
        lines.push(format!("  CreateEndpointConfig {} first (the live one, model replaced)", plan.target.name));
    }
    if plan.spec.retain_deployment {
        lines.push("  RetainDeploymentConfig: the endpoint's last DeploymentConfig, sent again".into());
    }
    if plan.spec.retain_all {
        lines.push("  RetainAllVariantProperties: the live weights and instance counts are kept".into());
    }
    for g in &plan.gates {
        let after = if plan.keep_alarms { "kept after" } else { "deleted after" };
        lines.push(format!("  gate alarm {} ({after})", g.text()));
    }
    lines.push(format!("  schedule: {}", sched.text()));
    lines.push(String::new());
    lines.push("SageMaker runs it; the console follows it in the stepper (Esc leaves".into());
    lines.push("the stepper, not the deployment). Refused if the endpoint changed; audited.".into());
    Confirm {
        title: format!("Deploy {}", plan.info.name),
        lines,
        jobs: vec![
            GuardJob::Deploy {
                plan: Box::new(plan.clone()),
                reason: None,
            }
            .into(),
        ],
        danger: false,
        force: Vec::new(),
    }
}

/// The toast saying how a deployment ended.
pub fn outcome_toast(endpoint: &str, result: &Result<Outcome, String>) -> (Level, String) {
    match result {
        Ok(Outcome::Succeeded { config }) => (Level::Info, format!("{endpoint} is InService on {} (deployed)", escape_text(config))),
        Ok(o) => (Level::Error, format!("{endpoint}: {}", outcome_text(o))),
        Err(e) => (Level::Error, format!("deployment of {endpoint}: {}", escape_text(e))),
    }
}

/// An outcome in a line.
fn outcome_text(o: &Outcome) -> String {
    match o {
        Outcome::InFlight => "in flight".into(),
        Outcome::Succeeded { config } => format!("succeeded: InService on {}", escape_text(config)),
        Outcome::Idle { config } => format!("nothing in flight; on {}", escape_text(config)),
        Outcome::RolledBack { config, reason } => {
            format!("rolled back: InService on {}; {}", escape_text(config), escape_text(reason))
        }
        Outcome::RollbackFailed { reason } => format!(
            "EMERGENCY: UpdateRollbackFailed ({}); {ROLLBACK_FAILED_ADVICE}",
            escape_text(reason)
        ),
        Outcome::Failed { reason } => format!("Failed ({}); only DeleteEndpoint is allowed now", escape_text(reason)),
    }
}

/// The value typed, or what an empty field means.
fn or_default(text: &str, empty: &str) -> String {
    if text.trim().is_empty() {
        format!("({empty})")
    } else {
        text.to_string()
    }
}

fn size_label(kind: PolicyKind) -> &'static str {
    match kind {
        PolicyKind::Canary => "canary (N or N%)",
        PolicyKind::Linear => "linear step %",
        PolicyKind::AllAtOnce => "size (unused)",
        PolicyKind::Rolling => "batch %",
    }
}

impl DeployForm {
    fn field_line(&self, field: FormField, label: &str, value: String, theme: &Theme) -> Line<'static> {
        let focused = self.field == field;
        let mark = if focused { "› " } else { "  " };
        let style = if focused {
            theme.fg(Role::Accent).add_modifier(Modifier::BOLD)
        } else {
            theme.fg(Role::Fg)
        };
        Line::from(vec![
            Span::styled(format!("{mark}{label:<18}"), theme.fg(Role::Muted)),
            Span::styled(value, style),
        ])
    }

    /// The lines of the fields shown, in order.
    fn field_lines(&self, theme: &Theme) -> Vec<Line<'static>> {
        let switch = |on: bool| if on { "[x]" } else { "[ ]" }.to_string();
        let retained = if self.retain_deployment {
            "[x] the last DeploymentConfig"
        } else {
            "[ ]"
        };
        let all = [
            (FormField::Config, "config or V=MODEL", format!("{}▏", self.config)),
            (FormField::Policy, "policy", format!("‹ {} ›", self.kind.name())),
            (FormField::Size, size_label(self.kind), self.size.clone()),
            (FormField::Bake, "bake (s)", self.bake.clone()),
            (FormField::FinalBake, "final bake (s)", self.final_bake.clone()),
            (FormField::MaxTime, "max time (s)", or_default(&self.max_time, "waits + 30m")),
            (FormField::RollbackBatch, "rollback batch %", or_default(&self.rollback_batch, "all at once")),
            (FormField::Alarms, "rollback alarms", self.alarms.clone()),
            (FormField::GateAlarms, "gate alarms", switch(self.gate_alarms)),
            (FormField::KeepAlarms, "keep gate alarms", switch(self.keep_alarms)),
            (FormField::RetainDeployment, "retain deployment", retained.to_string()),
            (FormField::RetainAll, "retain all props", switch(self.retain_all)),
        ];
        all.into_iter()
            .filter(|(f, _, _)| self.shows(*f))
            .map(|(f, label, value)| self.field_line(f, label, value, theme))
            .collect()
    }

    fn plan_lines(&self, theme: &Theme) -> Vec<Line<'static>> {
        let muted = theme.fg(Role::Muted);
        let mut out = Vec::new();
        match &self.planned {
            _ if self.planning => out.push(Line::styled("planning… (reads only, nothing is sent)", muted)),
            None => out.push(Line::styled("Enter plans it: the schedule, or why it is refused", muted)),
            Some(Err(e)) => out.push(Line::styled(escape_text(e).into_owned(), theme.fg(Role::Danger))),
            Some(Ok(p)) => {
                let sched = schedule(&p.spec, &p.facts, LAUNCH_ESTIMATE_SECS);
                out.push(Line::from(format!("{} → {}", p.facts.current_config, p.target.name)));
                for s in &sched.steps {
                    out.push(Line::from(format!("  {}", s.text)));
                }
                out.push(Line::from(format!("  old fleet terminated at ≈ t+{}", span(sched.end_secs))));
                out.push(Line::styled("Enter: confirm and start", theme.fg(Role::Accent)));
            }
        }
        if let Some(m) = &self.message {
            out.push(Line::styled(escape_text(m).into_owned(), theme.fg(Role::StatusWarn)));
        }
        out
    }

    /// Draws the form over `area`.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let e = &self.seen;
        let mut lines = vec![
            Line::styled(
                format!(
                    "{} on {} ({})",
                    e.name,
                    e.config_name.as_deref().unwrap_or("-"),
                    e.status
                ),
                theme.fg(Role::Muted),
            ),
        ];
        lines.extend(self.field_lines(theme));
        lines.push(Line::from(""));
        lines.extend(self.plan_lines(theme));
        let rect = centered(area, 90, 10, 60, (lines.len() as u16 + 4).min(area.height));
        modal(
            f,
            rect,
            theme.border(true),
            title(format!(" Deploy {} ", e.name), theme),
            Paragraph::new(lines).wrap(Wrap { trim: false }),
            theme,
        );
    }
}

/// The lines of a stepper: where from and to, the policy, each variant's steps, blue/green
/// counts, the alarms, the times, the outcome.
pub fn stepper_lines(w: &DeployWatch, theme: &Theme) -> Vec<Line<'static>> {
    let muted = theme.fg(Role::Muted);
    let target = if w.target.is_empty() { "(reading…)" } else { &w.target };
    let policy = w.policy.as_ref().map_or("policy not read yet".into(), policy_text);
    let mut out = vec![Line::from(format!("→ {} · {policy}", escape_text(target)))];
    if let Some(s) = &w.stepper {
        out.extend(read_lines(s, theme));
    } else {
        out.push(Line::styled("starting…", muted));
    }
    match &w.outcome {
        None => out.push(Line::styled("in flight: Esc leaves this view, not the deployment", muted)),
        Some(Ok(o)) => out.push(Line::styled(outcome_text(o), outcome_style(o, theme))),
        Some(Err(e)) => out.push(Line::styled(escape_text(e).into_owned(), theme.fg(Role::StatusError))),
    }
    out
}

fn outcome_style(o: &Outcome, theme: &Theme) -> Style {
    match o {
        Outcome::Succeeded { .. } | Outcome::Idle { .. } => theme.fg(Role::StatusOk),
        Outcome::InFlight => theme.fg(Role::Fg),
        Outcome::RolledBack { .. } => theme.fg(Role::StatusWarn),
        Outcome::RollbackFailed { .. } | Outcome::Failed { .. } => {
            theme.fg(Role::Danger).add_modifier(Modifier::BOLD)
        }
    }
}

fn read_lines(s: &Stepper, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(format!(
        "{} on {}{}",
        escape_text(&s.status),
        escape_text(s.live_config.as_deref().unwrap_or("-")),
        times(s).map(|t| format!(" · {t}")).unwrap_or_default()
    ))];
    for g in &s.green {
        out.push(Line::from(format!(
            "green {}: {}/{} instances · weight {}→{}",
            escape_text(&g.name),
            g.instances.0,
            g.instances.1,
            g.weights.0,
            g.weights.1
        )));
        for st in &g.steps {
            let left = st.bake_left_secs.map(|l| format!(" ({} left)", span(l))).unwrap_or_default();
            out.push(Line::from(format!(
                "  {} {}{left}",
                escape_text(&st.status),
                escape_text(&st.message)
            )));
        }
    }
    let blue: Vec<String> = s.blue.iter().map(|(v, n)| format!("{} {n}", escape_text(v))).collect();
    out.push(Line::from(format!("blue {}", blue.join(", "))));
    for a in &s.alarms {
        let style = if a.firing() {
            theme.fg(Role::StatusError)
        } else {
            theme.fg(Role::Muted)
        };
        out.push(Line::styled(format!("alarm {} {}", escape_text(&a.name), escape_text(&a.state)), style));
    }
    if s.alarms.is_empty() && !s.alarm_names.is_empty() {
        out.push(Line::from(format!("alarms {}", escape_text(&s.alarm_names.join(", ")))));
    }
    out
}

/// Draws the stepper of `w` over `area`.
pub fn render_stepper(f: &mut Frame, area: Rect, w: &DeployWatch, theme: &Theme) {
    let lines = stepper_lines(w, theme);
    let emergency = matches!(w.outcome, Some(Ok(Outcome::RollbackFailed { .. })));
    let border = if emergency { theme.fg(Role::Danger) } else { theme.border(true) };
    let rect = centered(area, 90, 10, 60, (lines.len() as u16 + 4).min(area.height));
    modal(
        f,
        rect,
        border,
        title(format!(" Deployment of {} ", w.endpoint), theme),
        Paragraph::new(lines).wrap(Wrap { trim: false }),
        theme,
    );
}
