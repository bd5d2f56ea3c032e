//! Draws the whole screen: context bar, tabs, the visible pane, footer, command line, overlays
//! and toasts.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::app::App;
use super::widgets::{Overlay, centered, footer, header, help};

/// Draws one frame.
pub fn draw(f: &mut Frame, app: &mut App) {
    let area = f.area();
    f.render_widget(Block::default().style(app.theme.base()), area);
    let [ctx, tabs, body, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    let busy = app.inflight.values().next_back().map(|(_, label)| label.clone());
    header::render_context(f, ctx, &app.data, &app.theme, busy.as_deref());
    let titles: Vec<&str> = super::panes::Tab::ALL.iter().map(|t| t.title()).collect();
    header::render_tabs(f, tabs, &titles, app.tab.index(), &app.theme);
    let theme = app.theme.clone();
    // Toasts take a band of their own above the footer (not while a dialog is open: what they
    // say is in the log, `e`), so that they never cover the pane.
    let band = match app.overlay {
        None => app.toasts.band_lines(app.tab.title(), body.width, &theme),
        Some(_) => Vec::new(),
    };
    let band_h = super::widgets::toasts::Toasts::band_height(&band, body.height);
    let [pane, toasts] = Layout::vertical([Constraint::Min(1), Constraint::Length(band_h)]).areas(body);
    app.panes.get_mut(app.tab).render(f, pane, &app.data, &theme);
    let hints = app.hints();
    if app.command_line.open {
        app.command_line.render(f, foot, &theme);
    } else {
        footer::render(f, foot, &hints, &theme);
    }
    match app.overlay.as_mut() {
        Some(Overlay::Help { scroll }) => {
            let pane = app.panes.get(app.tab);
            let mut keys = pane.keys(&app.data);
            keys.extend(pane.help());
            let tabs: Vec<String> = super::panes::Tab::ALL
                .iter()
                .map(|t| format!(":{}", t.command()))
                .collect();
            help::render(f, body, (app.tab.title(), &tabs.join(" ")), &keys, scroll, &theme)
        }
        Some(Overlay::ErrorLog { scroll }) => render_error_log(f, body, app_log(&app.toasts), scroll, &theme),
        Some(Overlay::Describe(view)) => view.render(f, body, &theme),
        Some(Overlay::Confirm(c)) => c.render(f, body, &theme),
        Some(Overlay::Sampling(a)) => a.render(f, body, &theme),
        None => {}
    }
    super::widgets::toasts::Toasts::render(band, f, toasts, &theme);
}

fn app_log(t: &super::widgets::toasts::Toasts) -> &[super::widgets::toasts::LogEntry] {
    &t.log
}

fn render_error_log(
    f: &mut Frame,
    area: Rect,
    log: &[super::widgets::toasts::LogEntry],
    scroll: &mut u16,
    theme: &super::theme::Theme,
) {
    let rect = centered(area, 90, 80, 40, 8);
    let lines: Vec<Line> = if log.is_empty() {
        vec![Line::from(Span::styled("no messages yet", theme.fg(Role::Muted)))]
    } else {
        log.iter()
            .rev()
            .map(|e| {
                let role = match e.level {
                    super::widgets::toasts::Level::Info => Role::ToastInfo,
                    super::widgets::toasts::Level::Warn => Role::ToastWarn,
                    super::widgets::toasts::Level::Error => Role::ToastError,
                };
                Line::from(vec![
                    Span::styled(format!("{} ", crate::format::time_text(e.at)), theme.fg(Role::Muted)),
                    Span::styled(
                        format!("{:<5} ", e.level.label()),
                        theme.fg(role).add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(e.text.clone(), theme.fg(Role::Fg)),
                ])
            })
            .collect()
    };
    let heading = Span::styled(" Messages, newest first — Esc closes ", theme.fg(Role::Title));
    // The offset stops where the last message is on the last row (End asks for the most).
    let rows = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    *scroll = (*scroll).min(rows.saturating_sub(rect.height.saturating_sub(2)));
    let body = Paragraph::new(lines).scroll((*scroll, 0));
    super::widgets::modal(f, rect, theme.border(true), heading, body, theme);
}
