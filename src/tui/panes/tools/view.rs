//! Drawing the Tools tab: servers and their tools on the left; on the right the selected tool
//! (annotations, description, the endpoint behind it with its status and live p99), its
//! arguments (form or raw JSON) beside the result, log or history.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Padding, Paragraph, Wrap};

use super::keys::truncate;
use super::result::{history_lines, log_lines, result_lines};
use super::catalog::View;
use super::{Focus, Panel, ToolsPane};
use crate::mcp::ServerStatus;
use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};
use crate::format::escape_line;
use crate::tui::widgets::outside::escaped;
use crate::tui::widgets::title;

fn block(text: String, focused: bool, theme: &Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(title(text, theme))
}

/// Draws the pane.
pub(super) fn render(p: &mut ToolsPane, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
    if p.servers.is_empty() {
        let text = vec![
            Line::from(Span::styled("no MCP servers configured", theme.fg(Role::Fg))),
            Line::from(Span::styled(
                "pass --mcp-config FILE or create ~/.config/sagedeck/mcp.json (the mcpServers format of Claude \
                 Desktop, Cursor and the MCP Inspector); `sagedeck demo` registers its own demo server",
                theme.fg(Role::Muted),
            )),
        ];
        f.render_widget(
            Paragraph::new(text)
                .style(theme.base())
                .wrap(Wrap { trim: false })
                .block(block(" Tools ".into(), true, theme)),
            area,
        );
        return;
    }
    // A narrow terminal gives the form and the result the columns the lists can spare.
    let list_w = if area.width >= 110 { 34 } else { 24 };
    let [left, right] = Layout::horizontal([Constraint::Length(list_w), Constraint::Min(40)]).areas(area);
    let server_h = ((p.servers.len() * 2 + 2) as u16).min(left.height / 2).max(4);
    let [srv, tools] = Layout::vertical([Constraint::Length(server_h), Constraint::Min(3)]).areas(left);
    render_servers(p, f, srv, theme);
    if p.catalog.view != View::Tools {
        super::catalog::view::render_list(p, f, tools, theme);
        super::catalog::view::render_right(p, f, right, theme);
        p.catalog.eliciting.render(f, area, theme);
        return;
    }
    render_tools(p, f, tools, theme);
    // The tool's box grows with its description and endpoint line (shown whole), up to a third
    // of the height: the form and the result keep the rest.
    let max_rows = (right.height / 3).max(5) - 2;
    let head_lines = header_lines(p, data, theme, right.width.saturating_sub(4) as usize, max_rows as usize);
    let head_h = (head_lines.len() as u16 + 2).max(5);
    let [head, rest] = Layout::vertical([Constraint::Length(head_h), Constraint::Min(5)]).areas(right);
    let b = block(format!(" Tool{} ", p.protocol_text()), false, theme).padding(Padding::horizontal(1));
    f.render_widget(Paragraph::new(escaped(head_lines)).style(theme.base()).block(b), head);
    let [form_area, out_area] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(rest);
    render_form(p, f, form_area, theme);
    render_output(p, f, out_area, theme);
    p.catalog.eliciting.render(f, area, theme);
}

fn render_servers(p: &ToolsPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let w = area.width.saturating_sub(4) as usize;
    let mut lines = Vec::new();
    for (i, s) in p.servers.iter().enumerate() {
        let (glyph, role, detail) = match &s.status {
            ServerStatus::Connected {
                protocol_version,
                connect_ms,
            } => (
                "●",
                Role::StatusOk,
                format!("{protocol_version} · {} tools · {connect_ms:.0}ms", s.tools.len()),
            ),
            ServerStatus::Connecting => ("◌", Role::StatusWarn, "connecting…".to_string()),
            ServerStatus::Failed { reason, .. } => ("✗", Role::StatusError, reason.clone()),
            ServerStatus::Idle => ("○", Role::StatusUnknown, "not connected".to_string()),
            ServerStatus::Disconnected => ("○", Role::StatusUnknown, "disconnected".to_string()),
        };
        let mut head = Line::from(vec![
            Span::styled(format!("{glyph} "), theme.fg(role)),
            Span::styled(
                format!("{} ({})", s.name, s.transport),
                theme.fg(Role::Fg).add_modifier(Modifier::BOLD),
            ),
        ]);
        if i == p.server_cursor {
            head = head.style(theme.selection());
        }
        lines.push(head);
        let detail = match s.auth.short_label() {
            Some(auth) => format!("{auth} · {detail}"),
            None => detail,
        };
        let detail_role = if role == Role::StatusOk { Role::Muted } else { role };
        lines.push(Line::from(Span::styled(
            format!("  {}", truncate(&detail, w.saturating_sub(2))),
            theme.fg(detail_role),
        )));
    }
    f.render_widget(
        Paragraph::new(escaped(lines)).style(theme.base()).block(block(
            format!(" MCP servers ({}) ", p.servers.len()),
            p.focus == Focus::Servers,
            theme,
        )),
        area,
    );
}

fn render_tools(p: &ToolsPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let Some(s) = p.selected_server() else { return };
    let mut lines = Vec::new();
    if s.tools.is_empty() {
        let (text, role) = match &s.status {
            ServerStatus::Connected { .. } => ("this server offers no tools".to_string(), Role::Muted),
            ServerStatus::Connecting => ("connecting…".to_string(), Role::StatusWarn),
            ServerStatus::Failed { reason, .. } => (format!("failed: {reason}"), Role::StatusError),
            _ => ("not connected: c connects".to_string(), Role::Muted),
        };
        lines.push(Line::from(Span::styled(text, theme.fg(role))));
    }
    let h = area.height.saturating_sub(2) as usize;
    let top = p.tool_cursor.saturating_sub(h.saturating_sub(1));
    for (i, t) in s.tools.iter().enumerate().skip(top).take(h.max(1)) {
        let a = t.annotations.as_ref();
        let mut spans = vec![Span::styled(t.name.to_string(), theme.fg(Role::Fg))];
        if a.and_then(|a| a.read_only_hint) == Some(true) {
            spans.push(Span::styled(" ro", theme.fg(Role::StatusOk)));
        } else if a.and_then(|a| a.destructive_hint) == Some(true) {
            spans.push(Span::styled(" ⚠ destructive", theme.fg(Role::Danger)));
        }
        let mut line = Line::from(spans);
        if i == p.tool_cursor {
            line = line.style(theme.selection());
        }
        lines.push(line);
    }
    f.render_widget(
        Paragraph::new(escaped(lines))
            .style(theme.base())
            .wrap(Wrap { trim: false })
            .block(block(format!(" Tools · {} ", escape_line(&s.name)), p.focus == Focus::Tools, theme)),
        area,
    );
}

/// The Tool box: name, title and annotations; the description wrapped; the endpoint behind the
/// tool, its status and p99 (packed into `w` columns). A description longer than `max_rows`
/// leaves room for it ends with where to read it whole (`d`).
fn header_lines(p: &ToolsPane, data: &Data, theme: &Theme, w: usize, max_rows: usize) -> Vec<Line<'static>> {
    let Some(t) = p.selected_tool() else {
        return vec![Line::from(Span::styled("select a server, then a tool", theme.fg(Role::Muted)))];
    };
    let mut first = vec![Span::styled(
        t.name.to_string(),
        theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
    )];
    if let Some(title) = &t.title {
        first.push(Span::styled(format!(" — {title}"), theme.fg(Role::Fg)));
    }
    if let Some(a) = &t.annotations {
        let flag = |v: Option<bool>, text: &'static str, role: Role| {
            (v == Some(true)).then(|| Span::styled(format!("  [{text}]"), theme.fg(role)))
        };
        first.extend(flag(a.read_only_hint, "read-only", Role::StatusOk));
        first.extend(flag(a.destructive_hint, "destructive", Role::Danger));
        first.extend(flag(a.idempotent_hint, "idempotent", Role::Muted));
        first.extend(flag(a.open_world_hint, "open-world", Role::Muted));
    }
    let description = t.description.as_deref().unwrap_or("(no description)");
    let mut lines = crate::tui::widgets::pack::pack_line(Line::from(first), w);
    let link = crate::tui::widgets::pack::pack_line(endpoint_line(p, data, theme), w);
    let room = max_rows.saturating_sub(lines.len() + link.len()).max(1);
    let mut rows = crate::tui::widgets::describe::wrap(description, w.max(8));
    if rows.len() > room {
        rows.truncate(room);
        let more = "… d: the whole tool";
        if let Some(last) = rows.last_mut() {
            let keep = w.saturating_sub(more.chars().count() + 1);
            *last = format!("{} {more}", last.chars().take(keep).collect::<String>().trim_end());
        }
    }
    lines.extend(rows.into_iter().map(|r| Line::from(Span::styled(r, theme.fg(Role::Muted)))));
    lines.extend(link);
    lines
}

/// The endpoint behind the selected tool: its status, p99, the variant and model the last call
/// reached, and the keys that jump to it.
fn endpoint_line(p: &ToolsPane, data: &Data, theme: &Theme) -> Line<'static> {
    match p.endpoint_link() {
        None => Line::from(Span::styled(
            "no SageMaker endpoint named by this tool",
            theme.fg(Role::Muted),
        )),
        Some(l) => {
            let mut spans = vec![
                Span::styled("⇄ endpoint ", theme.fg(Role::Muted)),
                Span::styled(l.endpoint.clone(), theme.fg(Role::Fg).add_modifier(Modifier::BOLD)),
            ];
            match data.endpoint(&l.endpoint) {
                Some(e) => {
                    spans.push(Span::styled(format!(" · {}", e.status), theme.status(&e.status)));
                    let p99 = data.p99_text(e).unwrap_or_else(|| "—".into());
                    spans.push(Span::styled(format!(" · p99 {p99}"), theme.fg(Role::Fg)));
                }
                None if data.loaded => spans.push(Span::styled(" · not in the inventory", theme.fg(Role::StatusWarn))),
                None => spans.push(Span::styled(" · loading…", theme.fg(Role::Muted))),
            }
            if let Some(v) = &l.invoked_variant {
                spans.push(Span::styled(format!(" · variant {v}"), theme.fg(Role::Fg)));
            }
            if let Some(m) = &l.target_model {
                spans.push(Span::styled(format!(" · model {m}"), theme.fg(Role::Fg)));
            }
            if let Some(n) = l.attempts {
                spans.push(Span::styled(
                    format!(" · {n} attempt{}", if n == 1 { "" } else { "s" }),
                    theme.fg(Role::Fg),
                ));
            }
            spans.push(Span::styled("  g/G jumps", theme.fg(Role::Muted)));
            Line::from(spans)
        }
    }
}

fn render_form(p: &mut ToolsPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let focus = p.focus;
    let repeat = p.repeat.clone();
    let notice = p.notice.clone();
    let Some(tf) = p.key_of().and_then(|k| p.forms.get_mut(&k)) else {
        f.render_widget(block(" Arguments ".into(), false, theme), area);
        return;
    };
    let (state, role) = if focus == Focus::Raw && tf.raw_error.is_some() {
        ("✗ not JSON".to_string(), Role::StatusError)
    } else if tf.form.is_valid() {
        ("✓ valid".to_string(), Role::StatusOk)
    } else {
        let n = tf.form.errors.len();
        (
            format!("✗ {n} problem{}", if n == 1 { "" } else { "s" }),
            Role::StatusError,
        )
    };
    let mode = if focus == Focus::Raw { "raw JSON" } else { "form" };
    let mut heading = vec![
        title(format!(" Arguments · {mode} · "), theme),
        Span::styled(format!("{state} "), theme.fg(role).add_modifier(Modifier::BOLD)),
    ];
    if focus == Focus::Repeat {
        heading.push(Span::styled(format!("· repeat ×{repeat}▏ "), theme.fg(Role::Accent)));
    } else if !repeat.is_empty() && repeat != "1" {
        heading.push(Span::styled(format!("· repeat ×{repeat} "), theme.fg(Role::Accent)));
    }
    let bottom = match (&notice, focus) {
        (Some(n), _) => Span::styled(format!(" {n} "), theme.fg(Role::StatusError).add_modifier(Modifier::BOLD)),
        (None, Focus::Raw) => match &tf.raw_error {
            Some(e) => Span::styled(format!(" {e} "), theme.fg(Role::StatusError)),
            None => Span::styled(" Esc returns to the form ", theme.fg(Role::Muted)),
        },
        (None, _) => Span::styled(
            format!(" {} ", tf.form.help_line().unwrap_or_default()),
            theme.fg(Role::Muted),
        ),
    };
    let focused = matches!(focus, Focus::Form | Focus::Raw | Focus::Repeat);
    let b = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(Line::from(heading))
        .title_bottom(bottom);
    if focus == Focus::Raw {
        tf.raw.set_block(b);
        tf.raw.set_style(theme.base());
        tf.raw.set_cursor_line_style(Style::default());
        tf.raw
            .set_cursor_style(Style::default().add_modifier(Modifier::REVERSED));
        f.render_widget(&tf.raw, area);
    } else {
        let inner = b.inner(area);
        f.render_widget(b.style(theme.base()), area);
        tf.form.render(f, inner, theme, focus == Focus::Form);
    }
}

fn render_output(p: &mut ToolsPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let h = area.height.saturating_sub(2) as usize;
    let (heading, lines) = match p.panel {
        Panel::Log => (
            format!(
                " Log · {} ",
                escape_line(p.selected_server().map(|s| s.name.as_str()).unwrap_or("-"))
            ),
            escaped(log_lines(p, theme, h.max(1))),
        ),
        Panel::History => (
            format!(" History · {} ({}) ", tool_name(p), p.tool_calls().len()),
            escaped(history_lines(p, theme)),
        ),
        Panel::Result => {
            let call = p.shown_call();
            let heading = match call {
                Some(c) => format!(" Result · call #{} ", c.number),
                None => " Result ".into(),
            };
            // Wrapped here at token boundaries (the paragraph would cut a long JSON token).
            let width = area.width.saturating_sub(4) as usize;
            (heading, rewrap(escaped(result_lines(call, theme)), width))
        }
    };
    let max = lines.len().saturating_sub(1).min(u16::MAX as usize) as u16;
    p.scroll = p.scroll.min(max);
    let scroll = if p.panel == Panel::Result { p.scroll } else { 0 };
    f.render_widget(
        Paragraph::new(lines)
            .style(theme.base())
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0))
            .block(block(heading, p.focus == Focus::History, theme).padding(Padding::horizontal(1))),
        area,
    );
}

/// One-span lines wider than `width` as several, cut between JSON tokens (other lines are left
/// to the paragraph's wrapping).
fn rewrap(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line.spans.len() != 1 || line.width() <= width {
            out.push(line);
            continue;
        }
        let style = line.spans[0].style;
        for row in crate::format::wrap_tokens(&line.spans[0].content, width) {
            out.push(Line::from(Span::styled(row, style)));
        }
    }
    out
}

fn tool_name(p: &ToolsPane) -> String {
    p.selected_tool().map(|t| t.name.to_string()).unwrap_or_default()
}
