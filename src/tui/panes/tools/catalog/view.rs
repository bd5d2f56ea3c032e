//! Drawing the Resources and Prompts views: the rows of the selected server on the left (a
//! resource's title or name, `◉` subscribed with its updates counted, templates after the
//! resources; a prompt's title and arguments), and on the right the selected row whole (URI,
//! MIME type, size, description, icon), its arguments form beside what was read last (or the
//! server's log).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Padding, Paragraph, Wrap};

use super::{Item, View};
use crate::format::escape_line;
use crate::mcp::result::icon_sources;
use crate::tui::panes::tools::result::log_lines;
use crate::tui::panes::tools::{Focus, Panel, ToolsPane};
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::outside::escaped;
use crate::tui::widgets::title;

fn block(text: String, focused: bool, theme: &Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(title(text, theme))
}

fn named(name: &str, title: Option<&str>) -> String {
    match title {
        Some(t) if t != name => format!("{t} ({name})"),
        _ => name.to_string(),
    }
}

/// The selected server's rows in the current view.
pub fn render_list(p: &ToolsPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let Some(s) = p.selected_server() else { return };
    let c = &p.catalog;
    let items = c.items(&s.name);
    let mut lines = Vec::new();
    match c.catalogs.get(&s.name) {
        None => lines.push(Line::from(Span::styled("not listed yet (c connects)", theme.fg(Role::Muted)))),
        Some(Err(e)) => lines.push(Line::from(Span::styled(format!("failed: {e}"), theme.fg(Role::StatusError)))),
        Some(Ok(_)) if items.is_empty() => {
            let what = if c.view == View::Prompts { "prompts" } else { "resources" };
            lines.push(Line::from(Span::styled(format!("this server offers no {what}"), theme.fg(Role::Muted))));
        }
        Some(Ok(_)) => {}
    }
    let h = area.height.saturating_sub(2) as usize;
    let top = c.cursor.saturating_sub(h.saturating_sub(1));
    for (i, item) in items.iter().enumerate().skip(top).take(h.max(1)) {
        let mut spans = match item {
            Item::Resource(r) => {
                let key = (s.name.clone(), r.uri.clone());
                let mut spans = vec![Span::styled(named(&r.name, r.title.as_deref()), theme.fg(Role::Fg))];
                if c.subscribed.contains(&key) {
                    let n = c.updates.get(&key).copied().unwrap_or(0);
                    spans.push(Span::styled(format!(" ◉ {n}"), theme.fg(Role::Accent)));
                }
                spans
            }
            Item::Template(t) => vec![
                Span::styled("⧉ ", theme.fg(Role::Muted)),
                Span::styled(named(&t.name, t.title.as_deref()), theme.fg(Role::Fg)),
            ],
            Item::Prompt(pr) => vec![Span::styled(named(&pr.name, pr.title.as_deref()), theme.fg(Role::Fg))],
        };
        if i == c.cursor && p.focus == Focus::Tools {
            spans = spans.into_iter().map(|sp| sp.patch_style(theme.selection())).collect();
        }
        lines.push(Line::from(spans));
    }
    let heading = format!(" {} · {} ({}) ", c.view.label(), escape_line(&s.name), items.len());
    f.render_widget(
        Paragraph::new(escaped(lines))
            .style(theme.base())
            .block(block(heading, p.focus == Focus::Tools && !c.form_focus, theme)),
        area,
    );
}

/// The selected row whole.
fn detail_lines(p: &ToolsPane, theme: &Theme) -> Vec<Line<'static>> {
    let server = p.selected_server().map(|s| s.name.as_str()).unwrap_or("");
    let muted = |t: String| Line::from(Span::styled(t, theme.fg(Role::Muted)));
    let bold = |t: String| Line::from(Span::styled(t, theme.fg(Role::Accent).add_modifier(Modifier::BOLD)));
    let Some(item) = p.catalog.selected(server) else {
        return vec![muted("select a server, then a row (v switches Tools · Resources · Prompts)".into())];
    };
    let (head, mut rest, description, icons) = match item {
        Item::Resource(r) => {
            let mut facts = vec![r.uri.clone()];
            facts.extend(r.mime_type.clone());
            facts.extend(r.size.map(|s| format!("{s} bytes")));
            (named(&r.name, r.title.as_deref()), facts.join(" · "), &r.description, icon_sources(r.icons.as_ref()))
        }
        Item::Template(t) => (
            named(&t.name, t.title.as_deref()),
            format!("template {} (⏎ fills it)", t.uri_template),
            &t.description,
            icon_sources(t.icons.as_ref()),
        ),
        Item::Prompt(pr) => {
            let args: Vec<String> = pr
                .arguments
                .iter()
                .flatten()
                .map(|a| format!("{}{}", a.name, if a.required == Some(true) { "*" } else { "" }))
                .collect();
            let args = if args.is_empty() { "no arguments".into() } else { format!("arguments {}", args.join(", ")) };
            (named(&pr.name, pr.title.as_deref()), args, &pr.description, icon_sources(pr.icons.as_ref()))
        }
    };
    if let Some(first) = icons.first() {
        rest.push_str(&format!(" · icon {first}"));
    }
    let mut lines = vec![bold(head), muted(rest)];
    lines.extend(description.iter().map(|d| Line::from(Span::styled(d.clone(), theme.fg(Role::Fg)))));
    lines
}

/// The right side: the row whole, its form (when it takes arguments) and what was read.
pub fn render_right(p: &mut ToolsPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let head = escaped(detail_lines(p, theme));
    let head_h = (head.len() as u16 + 2).clamp(4, area.height / 3 + 2);
    let [top, rest] = Layout::vertical([Constraint::Length(head_h), Constraint::Min(3)]).areas(area);
    let protocol = p.protocol_text();
    let b = block(format!(" {}{protocol} ", p.catalog.view.label()), false, theme).padding(Padding::horizontal(1));
    f.render_widget(Paragraph::new(head).style(theme.base()).wrap(Wrap { trim: false }).block(b), top);
    let out_area = match &p.catalog.form {
        Some((_, form)) => {
            let [form_area, out_area] =
                Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(rest);
            let focused = p.catalog.form_focus;
            let bottom = match &p.notice {
                Some(n) => Span::styled(format!(" {n} "), theme.fg(Role::StatusError)),
                None => Span::styled(" ^S/F5 sends ", theme.fg(Role::Muted)),
            };
            let b = block(" Arguments ".into(), focused, theme).title_bottom(bottom);
            let inner = b.inner(form_area);
            f.render_widget(b.style(theme.base()), form_area);
            form.render(f, inner, theme, focused);
            out_area
        }
        None => rest,
    };
    render_content(p, f, out_area, theme);
}

fn render_content(p: &mut ToolsPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let h = area.height.saturating_sub(2) as usize;
    let server = p.selected_server().map(|s| s.name.clone()).unwrap_or_default();
    let (heading, lines) = if p.panel == Panel::Log {
        (format!(" Log · {} ", escape_line(&server)), escaped(log_lines(p, theme, h.max(1))))
    } else {
        match &p.catalog.content {
            Some((s, what, Ok(lines))) if *s == server => (
                format!(" {} ", escape_line(what)),
                escaped(lines.iter().map(|l| Line::from(Span::styled(l.clone(), theme.fg(Role::Fg)))).collect()),
            ),
            Some((s, what, Err(e))) if *s == server => (
                format!(" {} ", escape_line(what)),
                escaped(vec![Line::from(Span::styled(e.clone(), theme.fg(Role::StatusError)))]),
            ),
            _ => (
                " Content ".to_string(),
                vec![Line::from(Span::styled("⏎ reads the selected row", theme.fg(Role::Muted)))],
            ),
        }
    };
    let max = lines.len().saturating_sub(1).min(u16::MAX as usize) as u16;
    p.scroll = p.scroll.min(max);
    f.render_widget(
        Paragraph::new(lines)
            .style(theme.base())
            .wrap(Wrap { trim: false })
            .scroll((p.scroll, 0))
            .block(block(heading, false, theme).padding(Padding::horizontal(1))),
        area,
    );
}
