//! A server's request for input (`elicitation/create`) in the console: a dialog over the Tools
//! pane with the server's message and either the form built from its requested schema (the
//! schema form the Tools view has) or the URL to visit. Ctrl-S / F5 accepts (a form only when
//! it fits the schema), Ctrl-D declines, Esc cancels; each is answered as the specification
//! says. Requests arriving meanwhile wait their turn.

use std::collections::VecDeque;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::format::escape_line;
use crate::mcp::elicit::{self, ElicitAnswer, ElicitAsk, Elicitation};
use crate::tui::panes::{KeyHint, ctrl};
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::schema_form::SchemaForm;
use crate::tui::widgets::title;

/// One request waiting for its answer.
#[derive(Debug)]
pub struct Pending {
    /// The request (answered once).
    pub ask: ElicitAsk,
    /// Its form (form mode).
    pub form: Option<SchemaForm>,
    /// Why the last accept was not sent.
    pub notice: Option<String>,
}

/// The requests, the first shown.
#[derive(Debug, Default)]
pub struct Queue(VecDeque<Pending>);

impl Queue {
    /// Queues a request.
    pub fn push(&mut self, ask: ElicitAsk) {
        let form = match &ask.request {
            Elicitation::Form { schema, .. } => Some(SchemaForm::new(schema)),
            Elicitation::Url { .. } => None,
        };
        self.0.push_back(Pending {
            ask,
            form,
            notice: None,
        });
    }

    /// The request shown.
    pub fn current(&self) -> Option<&Pending> {
        self.0.front()
    }

    /// Whether a request waits.
    pub fn active(&self) -> bool {
        !self.0.is_empty()
    }

    /// Whether a form field is being edited (every key goes to it).
    pub fn editing(&self) -> bool {
        self.current().and_then(|p| p.form.as_ref()).is_some_and(|f| f.editing)
    }

    /// Answers the request shown; the next one (if any) is shown. Returns what was answered.
    fn answer(&mut self, answer: ElicitAnswer) -> Option<&'static str> {
        let p = self.0.pop_front()?;
        let verb = answer.verb();
        p.ask.answer(answer);
        Some(verb)
    }

    /// Accepts with the form's values (when they fit its schema) or, for a URL, at once.
    fn accept(&mut self) -> Option<&'static str> {
        let p = self.0.front_mut()?;
        let answer = ElicitAnswer::Accept {
            content: p.form.as_ref().map(SchemaForm::value),
        };
        let problems = elicit::problems(&p.ask.request, &answer);
        if !problems.is_empty() {
            p.notice = Some(format!("not sent: {}", problems.join("; ")));
            return None;
        }
        self.answer(answer)
    }

    /// A key while a request waits (every key is taken); what was answered, if anything.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<&'static str> {
        if ctrl(&key, 's') || key.code == KeyCode::F(5) {
            return self.accept();
        }
        if ctrl(&key, 'd') {
            return self.answer(ElicitAnswer::Decline);
        }
        let p = self.0.front_mut()?;
        match &mut p.form {
            Some(form) => {
                let editing = form.editing;
                let (used, changed) = form.handle_key(key);
                if changed {
                    p.notice = None;
                }
                if !used && !editing && key.code == KeyCode::Esc {
                    return self.answer(ElicitAnswer::Cancel);
                }
                None
            }
            None => match key.code {
                KeyCode::Enter => self.accept(),
                KeyCode::Esc => self.answer(ElicitAnswer::Cancel),
                _ => None,
            },
        }
    }

    /// The footer's keys while a request waits.
    pub fn hints(&self) -> Vec<KeyHint> {
        let url = self.current().is_some_and(|p| p.form.is_none());
        let mut keys = vec![
            KeyHint::new(if url { "⏎/^S" } else { "^S/F5" }, "accept"),
            KeyHint::new("^D", "decline"),
            KeyHint::new("Esc", "cancel"),
        ];
        if !url {
            keys.extend([KeyHint::new("↑↓", "field"), KeyHint::new("⏎/i", "edit")]);
        }
        keys
    }

    /// Draws the request shown as a dialog over `area`.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let Some(p) = self.current() else { return };
        let w = area.width.saturating_sub(8).clamp(20, 90);
        let rows = p.form.as_ref().map(|f| f.rows.len() as u16).unwrap_or(2);
        let h = (rows + 8).min(area.height.saturating_sub(2)).max(7);
        let x = area.x + (area.width.saturating_sub(w)) / 2;
        let y = area.y + (area.height.saturating_sub(h)) / 2;
        let dialog = Rect::new(x, y, w, h);
        f.render_widget(Clear, dialog);
        let waiting = if self.0.len() > 1 {
            format!(" (+{} waiting)", self.0.len() - 1)
        } else {
            String::new()
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .title(title(format!(" {} asks for input{waiting} ", escape_line(&p.ask.server)), theme));
        let inner = block.inner(dialog);
        f.render_widget(block.style(theme.base()), dialog);
        let [msg, body, foot] =
            Layout::vertical([Constraint::Length(2), Constraint::Min(1), Constraint::Length(1)]).areas(inner);
        let message = Line::from(Span::styled(
            escape_line(p.ask.request.message()).into_owned(),
            theme.fg(Role::Fg),
        ));
        f.render_widget(Paragraph::new(message).wrap(Wrap { trim: false }).style(theme.base()), msg);
        match (&p.form, &p.ask.request) {
            (Some(form), _) => form.render(f, body, theme, true),
            (None, Elicitation::Url { url, .. }) => {
                let lines = vec![
                    Line::from(Span::styled("open this page yourself (sagedeck does not):", theme.fg(Role::Muted))),
                    Line::from(Span::styled(escape_line(url).into_owned(), theme.fg(Role::Accent))),
                ];
                f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).style(theme.base()), body);
            }
            (None, _) => {}
        }
        let (text, role) = match &p.notice {
            Some(n) => (n.clone(), Role::StatusError),
            None => ("accept ^S · decline ^D · cancel Esc".to_string(), Role::Muted),
        };
        f.render_widget(Paragraph::new(Span::styled(text, theme.fg(role))).style(theme.base()), foot);
    }
}
