//! The dialog of a server's sampling request: which server asks which model, its model
//! preferences and token limit, and every message (escaped: they come from a server), before
//! anything is sent; `y` sends it to the SageMaker LLM, `n` declines.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::centered;
use crate::format::escape_line;
use crate::mcp::sampling::SamplingRequest;
use crate::tui::theme::{Role, Theme};

/// A sampling request waiting for the operator.
#[derive(Debug, Clone)]
pub struct SamplingAsk {
    /// What the server asked.
    pub request: SamplingRequest,
    /// Where the decision goes (dropping it declines).
    pub answer: std::sync::mpsc::Sender<bool>,
}

impl SamplingAsk {
    /// Answers (true sends the request to the model).
    pub fn decide(&self, send: bool) {
        let _ = self.answer.send(send);
    }

    /// The dialog's lines, before wrapping.
    pub fn lines(&self) -> Vec<String> {
        let r = &self.request;
        let mut out = vec![
            escape_line(&format!("{} asks for a completion from {}", r.server, r.model)).into_owned(),
            format!(
                "preferences: {}   up to {} tokens",
                escape_line(&r.preferences),
                r.max_tokens
            ),
            String::new(),
        ];
        if !r.tools.is_empty() {
            out.insert(2, escape_line(&format!("tools offered: {}", r.tools)).into_owned());
        }
        for m in &r.messages {
            let text: String = m.content.chars().take(600).collect();
            out.push(escape_line(&format!("{}: {}", m.role, text)).into_owned());
        }
        out
    }

    /// Draws the dialog.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let width = centered(area, 70, 10, 50, 1).width.saturating_sub(2).max(1) as usize;
        let wrapped: Vec<String> = (self.lines().iter())
            .flat_map(|l| super::describe::wrap(l, width))
            .collect();
        let h = (wrapped.len() as u16 + 4).min(area.height);
        let rect = centered(area, 70, 10, 50, h);
        let keys = Line::from(vec![
            Span::styled(" y ", theme.fg(Role::Accent).add_modifier(Modifier::BOLD)),
            Span::styled("send to the model   ", theme.fg(Role::Muted)),
            Span::styled(" n / Esc ", theme.fg(Role::Accent).add_modifier(Modifier::BOLD)),
            Span::styled("decline", theme.fg(Role::Muted)),
        ]);
        // The keys keep the last row whatever the messages' length.
        let room = (rect.height as usize).saturating_sub(4);
        let mut lines: Vec<Line> = wrapped.into_iter().take(room).map(Line::from).collect();
        lines.push(Line::from(""));
        lines.push(keys);
        super::modal(
            f,
            rect,
            theme.border(true),
            super::title(" sampling request ", theme),
            Paragraph::new(lines).wrap(Wrap { trim: false }),
            theme,
        );
    }
}
