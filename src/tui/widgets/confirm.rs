//! A confirmation dialog: states exactly what will be sent, then starts its jobs on `y`/Enter.

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::centered;
use crate::tui::event::Job;
use crate::tui::theme::{Role, Theme};

/// A pending confirmation.
#[derive(Debug, Clone)]
pub struct Confirm {
    /// Title.
    pub title: String,
    /// What will happen, line by line.
    pub lines: Vec<String>,
    /// Jobs to start on yes.
    pub jobs: Vec<Job>,
    /// Whether the action is dangerous (red border).
    pub danger: bool,
    /// Jobs that only `F` starts, when the default must be not to act (another live plan holds
    /// the endpoint): `y`/Enter then starts `jobs` (none: it cancels). Empty: no force key.
    pub force: Vec<Job>,
}

impl Confirm {
    /// What `code` does: None keeps the dialog open; else it closes, starting the jobs given
    /// and saying the note when there is one. `y`/Enter start `jobs` (with none but a force key,
    /// nothing: "not started"), `F` the forced jobs, `n`/Esc/`q` nothing ("not applied").
    pub fn answer(&mut self, code: KeyCode) -> Option<(Vec<Job>, Option<&'static str>)> {
        match code {
            KeyCode::Char('F') if !self.force.is_empty() => Some((std::mem::take(&mut self.force), None)),
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter
                if self.jobs.is_empty() && !self.force.is_empty() =>
            {
                Some((Vec::new(), Some("not started")))
            }
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => Some((std::mem::take(&mut self.jobs), None)),
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc | KeyCode::Char('q') => {
                Some((Vec::new(), Some("not applied")))
            }
            _ => None,
        }
    }

    /// The dialog's keys: `y`/Enter applies and `n`/Esc cancels; with a force key and nothing
    /// for `y`, `F` starts anyway and every other key cancels.
    fn keys(&self, theme: &Theme) -> Line<'static> {
        let key = |k: &'static str| Span::styled(k, theme.fg(Role::Accent).add_modifier(Modifier::BOLD));
        let said = |t: &'static str| Span::styled(t, theme.fg(Role::Muted));
        if !self.force.is_empty() && self.jobs.is_empty() {
            return Line::from(vec![
                key(" F "),
                said("start anyway   "),
                key(" n / Esc / Enter "),
                said("do not start"),
            ]);
        }
        Line::from(vec![
            key(" y / Enter "),
            said("apply   "),
            key(" n / Esc "),
            said("cancel"),
        ])
    }

    /// Draws the dialog.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        // Wrapped lines take more rows: the dialog grows with them, and its keys are drawn on
        // its last row whatever happens, so that they are never cut off.
        let width = centered(area, 60, 10, 50, 1).width.saturating_sub(2).max(1) as usize;
        let wrapped: Vec<String> = self
            .lines
            .iter()
            .flat_map(|l| super::describe::wrap(l, width))
            .collect();
        let rows = wrapped.len();
        let h = (rows as u16 + 5).min(area.height);
        let rect = centered(area, 60, 10, 50, h);
        let border = if self.danger {
            theme.fg(Role::Danger)
        } else {
            theme.border(true)
        };
        let keys = self.keys(theme);
        let mut lines: Vec<Line> = wrapped.into_iter().map(Line::from).collect();
        lines.push(Line::from(""));
        lines.push(keys.clone());
        super::modal(
            f,
            rect,
            border,
            super::title(format!(" {} ", self.title), theme),
            Paragraph::new(lines).wrap(Wrap { trim: false }),
            theme,
        );
        if rows + 3 > rect.height.saturating_sub(2) as usize && rect.height > 2 {
            let row = Rect {
                x: rect.x + 1,
                y: rect.y + rect.height - 2,
                width: rect.width.saturating_sub(2),
                height: 1,
            };
            f.render_widget(ratatui::widgets::Clear, row);
            f.render_widget(Paragraph::new(keys).style(theme.fg(Role::Fg)), row);
        }
    }
}
