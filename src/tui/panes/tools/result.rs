//! The Tools tab's lower right panel: a call's result (progress bar while it runs; text, pretty
//! JSON, structured content, images, resource links, `isError` highlighted; a repeat's
//! percentiles), the server's log, or the tool's history.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use super::{ToolCall, ToolCallState, ToolsPane};
use crate::format::bar;
use crate::mcp::CallError;
use crate::mcp::events::LogSource;
use crate::tui::theme::{Role, Theme};

fn ms(d: std::time::Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn progress_lines(c: &ToolCall, theme: &Theme, lines: &mut Vec<Line<'static>>) {
    let what = if c.repeat > 1 {
        format!("calling {} · {}/{} answered", c.tool, c.done, c.repeat)
    } else {
        format!("calling {}…  (Esc cancels)", c.tool)
    };
    lines.push(Line::from(Span::styled(what, theme.fg(Role::StatusWarn))));
    if let Some(p) = &c.progress {
        let (bar, count) = match (p.fraction(), p.total, &p.task) {
            (_, _, Some(task)) => (String::new(), format!("task {task} · {} poll(s)", p.progress)),
            (Some(f), Some(t), _) => (bar(f, 24), format!(" {}/{} ({:.0}%)", p.progress, t, f * 100.0)),
            _ => (bar(0.0, 24), format!(" {} so far", p.progress)),
        };
        lines.push(Line::from(vec![
            Span::styled(bar, theme.fg(Role::Accent)),
            Span::styled(count, theme.fg(Role::Fg)),
        ]));
        if let Some(m) = &p.message {
            lines.push(Line::from(Span::styled(m.clone(), theme.fg(Role::Muted))));
        }
    }
}

fn answer_lines(c: &ToolCall, theme: &Theme, lines: &mut Vec<Line<'static>>) {
    match &c.last {
        Some(Ok(o)) => {
            let (head, role) = if o.result.is_error {
                ("✗ the tool reported an error (isError)".to_string(), Role::StatusError)
            } else {
                ("✓ ok".to_string(), Role::StatusOk)
            };
            let mut spans = vec![
                Span::styled(head, theme.fg(role).add_modifier(Modifier::BOLD)),
                Span::styled(format!(" · {}", ms(o.duration)), theme.fg(Role::Fg)),
            ];
            if o.progress > 0 {
                spans.push(Span::styled(
                    format!(" · {} progress notifications", o.progress),
                    theme.fg(Role::Muted),
                ));
            }
            if let Some(t) = &o.task {
                spans.push(Span::styled(
                    format!(" · task {} {}", t.task_id, t.status),
                    theme.fg(Role::Muted),
                ));
            }
            lines.push(Line::from(spans));
            let text_role = if o.result.is_error { Role::StatusError } else { Role::Fg };
            for l in c.last_text.lines() {
                let role = if l.starts_with("structured content") || l.starts_with('[') {
                    Role::Title
                } else if l.starts_with("ERROR") {
                    Role::StatusError
                } else {
                    text_role
                };
                lines.push(Line::from(Span::styled(l.to_string(), theme.fg(role))));
            }
        }
        Some(Err(CallError::Cancelled)) => lines.push(Line::from(Span::styled(
            "cancelled: notifications/cancelled was sent",
            theme.fg(Role::StatusWarn),
        ))),
        Some(Err(e)) => {
            let class = match e {
                CallError::JsonRpc { .. } => "JSON-RPC error",
                CallError::Timeout { .. } => "timeout",
                CallError::Disconnected(_) => "disconnected",
                _ => "failed",
            };
            lines.push(Line::from(Span::styled(
                format!("✗ {class}"),
                theme.fg(Role::StatusError).add_modifier(Modifier::BOLD),
            )));
            lines.push(Line::from(Span::styled(e.to_string(), theme.fg(Role::StatusError))));
        }
        None => {}
    }
}

/// The lines of the result panel for `call`.
pub(super) fn result_lines(call: Option<&ToolCall>, theme: &Theme) -> Vec<Line<'static>> {
    let Some(c) = call else {
        return vec![Line::from(Span::styled(
            "no call yet: fill the arguments, then Ctrl-S or F5",
            theme.fg(Role::Muted),
        ))];
    };
    let mut lines = Vec::new();
    if c.repeat > 1 {
        lines.push(Line::from(Span::styled(
            format!(
                "{} calls · {} ok · {} isError · {} failed",
                c.done, c.ok, c.tool_errors, c.failed
            ),
            theme.fg(Role::Fg),
        )));
        if let Some(p) = c.stats.percentiles() {
            lines.push(Line::from(Span::styled(
                format!("p50 {:.1}  p95 {:.1}  p99 {:.1} ms", p.p50_ms, p.p95_ms, p.p99_ms),
                theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
            )));
            lines.push(Line::from(Span::styled(
                format!("min {:.1}  max {:.1}  mean {:.1} ms", p.min_ms, p.max_ms, p.mean_ms),
                theme.fg(Role::Muted),
            )));
        }
        lines.push(Line::from(""));
    }
    match c.state {
        ToolCallState::Running => {
            progress_lines(c, theme, &mut lines);
            if c.repeat > 1 && c.last.is_some() {
                lines.push(Line::from(""));
                lines.push(Line::from(Span::styled("Last answer", theme.fg(Role::Title))));
                answer_lines(c, theme, &mut lines);
            }
        }
        ToolCallState::Cancelled if c.last.is_none() => lines.push(Line::from(Span::styled(
            "cancelled: notifications/cancelled was sent",
            theme.fg(Role::StatusWarn),
        ))),
        _ => {
            if c.repeat > 1 {
                lines.push(Line::from(Span::styled("Last answer", theme.fg(Role::Title))));
            }
            answer_lines(c, theme, &mut lines);
        }
    }
    lines
}

/// The server log's last lines.
pub(super) fn log_lines(p: &ToolsPane, theme: &Theme, n: usize) -> Vec<Line<'static>> {
    let Some(log) = p.log() else {
        return vec![Line::from(Span::styled(
            "no log: the server is not connected",
            theme.fg(Role::Muted),
        ))];
    };
    let tail = log.tail(n);
    if tail.is_empty() {
        return vec![Line::from(Span::styled("the log is empty", theme.fg(Role::Muted)))];
    }
    tail.into_iter()
        .map(|l| {
            let (src, role) = match &l.source {
                LogSource::Stderr => ("stderr".to_string(), Role::StatusWarn),
                LogSource::Notification(level) => (level.clone(), Role::Accent),
                LogSource::Client => ("client".to_string(), Role::Muted),
            };
            Line::from(vec![
                Span::styled(format!("{src:<7} "), theme.fg(role)),
                Span::styled(l.text, theme.fg(Role::Fg)),
            ])
        })
        .collect()
}

/// The selected tool's calls, newest last, the cursor's highlighted.
pub(super) fn history_lines(p: &ToolsPane, theme: &Theme) -> Vec<Line<'static>> {
    let calls = p.tool_calls();
    let mut lines = vec![Line::from(Span::styled(
        format!("{:<5} {:<6} {:<10} RESULT", "#", "N", "DURATION"),
        theme.fg(Role::Header).add_modifier(Modifier::BOLD),
    ))];
    for (row, &i) in calls.iter().enumerate() {
        let c = &p.history[i];
        let duration = c.last_duration().map(ms).unwrap_or_else(|| "-".into());
        let role = match (&c.last, c.state) {
            (_, ToolCallState::Running) => Role::StatusWarn,
            (Some(Ok(o)), _) if !o.result.is_error && c.failed == 0 && c.tool_errors == 0 => Role::StatusOk,
            _ => Role::StatusError,
        };
        let mut line = Line::from(vec![
            Span::styled(
                format!("#{:<4} ×{:<5} {:<10} ", c.number, c.repeat, duration),
                theme.fg(Role::Fg),
            ),
            Span::styled(c.summary(), theme.fg(role)),
        ]);
        if row == p.history_cursor {
            line = line.style(theme.selection());
        }
        lines.push(line);
    }
    lines
}
