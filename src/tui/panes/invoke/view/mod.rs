//! Drawing the Invoke pane: the request form and body editor on the left; the response (or a
//! repeat's statistics) on the right, under the history list when it is open.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Padding, Paragraph, Row, Table, Wrap};

use super::InvokePane;
use super::calls::{Call, CallState};
use crate::aws::AwsError;
use crate::format::body_text;
use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::title;

mod request;

fn ms(d: std::time::Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn plural(n: u32, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// Draws the pane.
pub(super) fn render(p: &mut InvokePane, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
    let Some(form) = p.form.as_mut() else {
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .title(title(" Invoke ", theme));
        let msg = if data.loaded {
            "no endpoint selected: pick one on the Endpoints tab (1), then come back (5)"
        } else {
            "loading endpoints…"
        };
        f.render_widget(
            Paragraph::new(Span::styled(msg, theme.fg(Role::Muted)))
                .style(theme.base())
                .block(block),
            area,
        );
        return;
    };
    let [left, right] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    request::render(form, (p.focus, p.notice.as_deref()), f, left, data, theme);
    let response_area = if p.history_open {
        let [h, r] = Layout::vertical([Constraint::Length(10), Constraint::Min(3)]).areas(right);
        render_history(p, f, h, theme);
        r
    } else {
        right
    };
    let call = p.shown.and_then(|i| p.history.get(i));
    let chat = p.chat.as_ref().filter(|_| p.openai);
    let asynchronous = p.form.as_ref().filter(|f| f.asynchronous && !p.openai).map(|f| f.endpoint.clone());
    let lines = match (chat, &asynchronous) {
        (Some(c), _) => c.lines(theme),
        (None, Some(endpoint)) => p.async_lines(endpoint, theme),
        (None, None) => response_lines(call, theme),
    };
    let max = lines.len().saturating_sub(1).min(u16::MAX as usize) as u16;
    p.scroll = p.scroll.min(max);
    let heading = match call {
        _ if p.openai => " Response · OpenAI chat ".to_string(),
        _ if asynchronous.is_some() => " Requests · asynchronous ".to_string(),
        Some(c) => format!(" Response · call #{} ", c.number),
        None => " Response ".to_string(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(false))
        .padding(Padding::horizontal(1))
        .title(title(heading, theme));
    f.render_widget(
        Paragraph::new(lines)
            .style(theme.base())
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((p.scroll, 0)),
        response_area,
    );
}

fn render_history(p: &InvokePane, f: &mut Frame, area: Rect, theme: &Theme) {
    let visible = area.height.saturating_sub(3).max(1) as usize;
    let offset = p.history_cursor.saturating_sub(visible - 1);
    let rows: Vec<Row> = p
        .history
        .iter()
        .enumerate()
        .skip(offset)
        .take(visible)
        .map(|(i, c)| {
            let target = c
                .spec
                .target_variant
                .clone()
                .or(c.spec.target_model.clone())
                .unwrap_or_else(|| "-".into());
            let row = Row::new(vec![
                format!("#{}", c.number),
                c.spec.endpoint.clone(),
                format!("×{}", c.repeat),
                target,
                c.summary(),
            ]);
            if i == p.history_cursor {
                row.style(theme.selection())
            } else {
                row.style(theme.fg(Role::Fg))
            }
        })
        .collect();
    let header =
        Row::new(vec!["#", "ENDPOINT", "N", "TARGET", "RESULT"]).style(theme.fg(Role::Title).add_modifier(Modifier::BOLD));
    let widths = [
        Constraint::Length(4),
        Constraint::Min(12),
        Constraint::Length(5),
        Constraint::Length(10),
        Constraint::Length(22),
    ];
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(title(
            format!(" History ({}) — Enter re-runs, l loads ", p.history.len()),
            theme,
        ));
    f.render_widget(
        Table::new(rows, widths).header(header).style(theme.base()).block(block),
        area,
    );
}

/// The response panel's lines for a call.
fn response_lines(call: Option<&Call>, theme: &Theme) -> Vec<Line<'static>> {
    let muted = theme.fg(Role::Muted);
    let Some(c) = call else {
        return vec![Line::from(Span::styled(
            "nothing sent yet: Ctrl-S or F5 sends the request",
            muted,
        ))];
    };
    let mut lines = Vec::new();
    let mut target = String::new();
    if let Some(v) = &c.spec.target_variant {
        target.push_str(&format!(" → variant {v}"));
    }
    if let Some(m) = &c.spec.target_model {
        target.push_str(&format!(" → model {m}"));
    }
    lines.push(Line::from(Span::styled(format!("{}{target}", c.spec.endpoint), muted)));
    match c.state {
        CallState::Waiting => lines.push(Line::from(Span::styled(
            "⟳ invoking… (Esc cancels)",
            theme.fg(Role::Accent),
        ))),
        CallState::Running => lines.push(Line::from(Span::styled(
            format!("⟳ {} of {} answered… (Esc cancels)", c.received, c.repeat),
            theme.fg(Role::Accent),
        ))),
        CallState::Cancelled => lines.push(Line::from(Span::styled(
            format!("cancelled after {} of {} answers", c.received, c.repeat),
            theme.fg(Role::StatusWarn),
        ))),
        CallState::Done => {}
    }
    if c.repeat > 1 {
        repeat_lines(c, theme, &mut lines);
        if c.received == 0 {
            return lines;
        }
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled(
            "Last answer",
            theme.fg(Role::Title).add_modifier(Modifier::BOLD),
        )));
    }
    if c.last_failed {
        if let Some(e) = &c.last_err {
            failure_lines(e, theme, &mut lines);
        }
    } else if let Some(r) = &c.last_ok {
        let mut head = vec![
            Span::styled("✓ ", theme.fg(Role::StatusOk).add_modifier(Modifier::BOLD)),
            Span::styled("variant ", muted),
            Span::styled(r.invoked_variant.clone().unwrap_or_else(|| "?".into()), theme.fg(Role::Fg)),
            Span::styled(" · ", muted),
            Span::styled(ms(r.latency), theme.fg(Role::Fg)),
            Span::styled(" · ", muted),
            Span::styled(plural(r.attempts, "attempt"), theme.fg(Role::Fg)),
        ];
        if !r.retried.is_empty() {
            head.push(Span::styled(
                format!(" (retried: {})", r.retried.join(", ")),
                theme.fg(Role::StatusWarn),
            ));
        }
        if let Some(instance) = &r.instance {
            head.push(Span::styled(" · instance ", muted));
            head.push(Span::styled(crate::format::escape_line(instance).into_owned(), theme.fg(Role::Fg)));
        }
        if let Some(session) = r.session.line() {
            head.push(Span::styled(" · ", muted));
            head.push(Span::styled(crate::format::escape_line(&session).into_owned(), theme.fg(Role::Fg)));
        }
        lines.push(Line::from(head));
        lines.push(Line::from(Span::styled(
            format!(
                "{} · {} bytes",
                r.content_type.as_deref().unwrap_or("no content type"),
                r.body.len()
            ),
            muted,
        )));
        lines.push(Line::from(""));
        for l in c.last_ok_text.lines() {
            lines.push(Line::from(Span::styled(l.to_string(), theme.fg(Role::Fg))));
        }
    }
    lines
}

fn failure_lines(e: &crate::aws::invoke::call::InvokeFailure, theme: &Theme, lines: &mut Vec<Line<'static>>) {
    let muted = theme.fg(Role::Muted);
    let err = theme.fg(Role::StatusError).add_modifier(Modifier::BOLD);
    lines.push(Line::from(vec![
        Span::styled(format!("✗ {}", e.error.class()), err),
        Span::styled(
            format!(
                " · after {} · {}{}",
                plural(e.attempts, "attempt"),
                ms(e.total),
                if e.error.retryable() { " · retryable" } else { "" }
            ),
            muted,
        ),
    ]));
    let text = crate::tui::panes::invoke::component::error_text(&e.error);
    lines.push(Line::from(Span::styled(text, theme.fg(Role::StatusError))));
    if let AwsError::ModelError {
        original_status,
        original_message,
        log_stream_arn,
        ..
    } = &e.error
    {
        lines.push(Line::from(""));
        let field = |name: &str, value: String| {
            Line::from(vec![
                Span::styled(format!("{name:<20}"), muted),
                Span::styled(value, theme.fg(Role::Fg)),
            ])
        };
        lines.push(field(
            "OriginalStatusCode",
            original_status.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
        ));
        lines.push(field("OriginalMessage", String::new()));
        let body = original_message.as_deref().unwrap_or("-");
        for l in body_text(None, body.as_bytes()).lines() {
            lines.push(Line::from(Span::styled(format!("  {l}"), theme.fg(Role::Fg))));
        }
        if let Some(arn) = log_stream_arn {
            lines.push(field("LogStreamArn", arn.clone()));
        }
    }
}

fn repeat_lines(c: &Call, theme: &Theme, lines: &mut Vec<Line<'static>>) {
    let muted = theme.fg(Role::Muted);
    let head = theme.fg(Role::Title).add_modifier(Modifier::BOLD);
    lines.push(Line::from(vec![
        Span::styled(format!("{} invocations", c.repeat), head),
        Span::styled(
            format!(
                " · {} ok · {} failed · {}{}",
                c.ok,
                c.failed,
                plural(c.attempts, "attempt"),
                if c.retried > 0 {
                    format!(" · {} retried", c.retried)
                } else {
                    String::new()
                }
            ),
            muted,
        ),
    ]));
    if let Some(p) = c.stats.percentiles() {
        let stat = |name: &str, v: f64| {
            vec![
                Span::styled(format!("{name} "), muted),
                Span::styled(format!("{v:<8.1}"), theme.fg(Role::Fg).add_modifier(Modifier::BOLD)),
            ]
        };
        let mut a = vec![Span::styled("latency ms  ", muted)];
        a.extend(stat("p50", p.p50_ms));
        a.extend(stat("p95", p.p95_ms));
        a.extend(stat("p99", p.p99_ms));
        lines.push(Line::from(a));
        let mut b = vec![Span::styled("            ", muted)];
        b.extend(stat("min", p.min_ms));
        b.extend(stat("max", p.max_ms));
        b.extend(stat("mean", p.mean_ms));
        lines.push(Line::from(b));
    }
    if !c.variants.is_empty() {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled("Variant split", head)));
        let total = c.ok.max(1) as f64;
        let width = c.variants.keys().map(|k| k.len()).max().unwrap_or(0).max(8);
        let series = [Role::Chart1, Role::Chart2, Role::Chart3, Role::Chart4];
        for (i, (v, n)) in c.variants.iter().enumerate() {
            let share = *n as f64 / total;
            let bar = "█".repeat((share * 20.0).round() as usize);
            lines.push(Line::from(vec![
                Span::styled(format!("  {v:<width$} "), theme.fg(Role::Fg)),
                Span::styled(format!("{n:>4}  {:>5.1}%  ", share * 100.0), muted),
                Span::styled(bar, theme.fg(series[i % series.len()])),
            ]));
        }
    }
    if !c.errors.is_empty() {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled("Errors", head)));
        for (class, n) in &c.errors {
            lines.push(Line::from(vec![
                Span::styled(format!("  {class:<20}"), theme.fg(Role::StatusError)),
                Span::styled(format!("{n:>4}"), muted),
            ]));
        }
    }
}
