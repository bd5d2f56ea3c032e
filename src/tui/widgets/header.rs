//! The context bar: profile, region, endpoint URL, refresh age, STALE and READ-ONLY badges, the
//! session's audit reason, the job in flight; and the tab bar under it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs};

use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};

/// Formats an age: `4s`, `3m12s`, `2h05m`.
pub fn age(d: std::time::Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    }
}

/// Draws the context line.
pub fn render_context(f: &mut Frame, area: Rect, data: &Data, theme: &Theme, busy: Option<&str>) {
    let muted = theme.fg(Role::Muted);
    let head = theme.fg(Role::Header).add_modifier(Modifier::BOLD);
    let mut spans = vec![
        Span::styled(" sagedeck ", head),
        Span::styled("profile ", muted),
        Span::styled(data.context.profile.clone(), theme.fg(Role::Fg)),
        Span::styled("  region ", muted),
        Span::styled(data.context.region.clone(), theme.fg(Role::Fg)),
        Span::styled("  endpoint ", muted),
        Span::styled(data.context.endpoint.clone(), theme.fg(Role::Fg)),
        Span::styled("  refreshed ", muted),
        Span::styled(
            match data.last_ok {
                Some(t) => format!("{} ago", age(t.elapsed())),
                None if data.refresh_failed => "never".into(),
                None => "loading…".into(),
            },
            theme.fg(Role::Fg),
        ),
    ];
    if data.stale() {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            " STALE ",
            theme.fg(Role::Stale).add_modifier(Modifier::REVERSED | Modifier::BOLD),
        ));
    }
    if data.read_only {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            " READ-ONLY ",
            theme
                .fg(Role::Readonly)
                .add_modifier(Modifier::REVERSED | Modifier::BOLD),
        ));
    }
    if data.config_error.is_some() {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            " CONFIG ERROR: e shows it ",
            theme.fg(Role::Danger).add_modifier(Modifier::REVERSED | Modifier::BOLD),
        ));
    }
    if let Some(r) = &data.reason {
        spans.push(Span::styled("  reason ", muted));
        spans.push(Span::styled(r.clone(), theme.fg(Role::Accent)));
    }
    if let Some(b) = busy {
        spans.push(Span::styled(format!("  ⟳ {b} (Esc cancels)"), theme.fg(Role::Accent)));
    }
    f.render_widget(Paragraph::new(Line::from(spans)).style(theme.base()), area);
}

/// Draws the tab bar: `titles` in order, `current` (0-based) highlighted.
pub fn render_tabs(f: &mut Frame, area: Rect, titles: &[&str], current: usize, theme: &Theme) {
    let titles: Vec<Line> = titles
        .iter()
        .enumerate()
        .map(|(i, t)| Line::from(format!("{} {t}", i + 1)))
        .collect();
    let tabs = Tabs::new(titles)
        .select(current)
        .style(theme.fg(Role::Muted))
        .highlight_style(
            theme
                .fg(Role::Accent)
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
        .divider(Span::styled("│", theme.fg(Role::Border)));
    f.render_widget(tabs, area);
}
