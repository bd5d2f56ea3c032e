//! The Agent pane's keys: the question line, the approval dialog (approve, deny, edit the
//! arguments), the conversation's step cursor, the step detail, the runs list, `g`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{AgentPane, Focus};
use crate::mcp::agent::Decision;
use crate::tui::data::Data;
use crate::tui::event::Job;
use crate::tui::widgets::scroll;
use crate::tui::panes::{KeyHint, Outbox, Tab, ctrl};
use crate::tui::widgets::toasts::Level;

/// A printable character typed (no Ctrl or Alt).
fn typed(key: &KeyEvent) -> Option<char> {
    match key.code {
        KeyCode::Char(c) if !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => Some(c),
        _ => None,
    }
}

/// Edits a text line; true when the key was an edit.
fn edit_line(text: &mut String, key: &KeyEvent) -> bool {
    if let Some(c) = typed(key) {
        text.push(c);
    } else if key.code == KeyCode::Backspace {
        text.pop();
    } else if ctrl(key, 'u') {
        text.clear();
    } else {
        return false;
    }
    true
}

impl AgentPane {
    /// Answers a key (the pane's entry point).
    pub(super) fn on_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        if self.approval.is_some() {
            return self.approval_key(key, out);
        }
        match self.focus {
            Focus::Input => {
                match key.code {
                    KeyCode::Enter => self.ask(data, out),
                    KeyCode::Esc => self.focus = Focus::Conversation,
                    _ => return edit_line(&mut self.input, &key),
                }
                true
            }
            Focus::EditStep => {
                match key.code {
                    KeyCode::Enter => self.rerun_edited(data, out),
                    KeyCode::Esc => self.focus = Focus::Conversation,
                    _ => return edit_line(&mut self.edit, &key),
                }
                true
            }
            Focus::Detail => self.detail_key(key, data, out),
            Focus::Runs => self.runs_key(key),
            Focus::Conversation => self.conversation_key(key, data, out),
        }
    }

    fn approval_key(&mut self, key: KeyEvent, out: &mut Outbox) -> bool {
        let Some(a) = self.approval.as_mut() else { return false };
        if let Some(text) = a.editing.as_mut() {
            match key.code {
                KeyCode::Enter => match serde_json::from_str::<serde_json::Value>(text) {
                    Ok(v) if v.is_object() => self.decide(Decision::Edit(v)),
                    Ok(_) => out.toast(Level::Warn, "the arguments must be a JSON object"),
                    Err(e) => out.toast(Level::Warn, format!("not JSON: {e}")),
                },
                KeyCode::Esc => a.editing = None,
                _ => return edit_line(text, &key),
            }
            return true;
        }
        match key.code {
            KeyCode::Char('y') | KeyCode::Enter => self.decide(Decision::Approve),
            KeyCode::Char('n') | KeyCode::Esc => self.decide(Decision::Deny),
            KeyCode::Char('e') => a.editing = Some(a.request.arguments.to_string()),
            _ => return false,
        }
        true
    }

    fn conversation_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        let steps = self.shown_run().map(|r| r.steps.len()).unwrap_or(0);
        match key.code {
            KeyCode::Char('a') | KeyCode::Char('i') => self.focus = Focus::Input,
            KeyCode::Enter if steps > 0 => {
                self.focus = Focus::Detail;
                self.scroll = 0;
            }
            KeyCode::Enter => self.focus = Focus::Input,
            KeyCode::Char('h') => self.open_runs(),
            KeyCode::Char('R') => self.rerun(data, out, None),
            KeyCode::Char('E') => self.start_edit(out),
            KeyCode::Char('g') => self.jump(data, out, Tab::Variants),
            KeyCode::Char('G') => self.jump(data, out, Tab::Endpoints),
            KeyCode::Esc => match self.shown_run().filter(|r| r.running).and_then(|r| r.job) {
                Some(job) => {
                    out.job(Job::Cancel(job));
                    out.toast(Level::Warn, "cancelling the agent run");
                }
                None => return false,
            },
            _ => return scroll::cursor_key(&mut self.cursor, &key, steps, scroll::PAGE),
        }
        true
    }

    fn detail_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        let steps = self.shown_run().map(|r| r.steps.len()).unwrap_or(0);
        match key.code {
            KeyCode::Esc | KeyCode::Enter | KeyCode::Backspace => self.focus = Focus::Conversation,
            KeyCode::Left => {
                self.cursor = self.cursor.saturating_sub(1);
                self.scroll = 0;
            }
            KeyCode::Right => {
                self.cursor = (self.cursor + 1).min(steps.saturating_sub(1));
                self.scroll = 0;
            }
            KeyCode::Char('g') => self.jump(data, out, Tab::Variants),
            KeyCode::Char('G') => self.jump(data, out, Tab::Endpoints),
            KeyCode::Char('R') => self.rerun(data, out, None),
            KeyCode::Char('E') => self.start_edit(out),
            _ => return scroll::offset_key(&mut self.scroll, &key, scroll::PAGE as u16),
        }
        true
    }

    fn runs_key(&mut self, key: KeyEvent) -> bool {
        match key.code {
            KeyCode::Enter => self.show_listed(),
            KeyCode::Esc | KeyCode::Char('h') => self.focus = Focus::Conversation,
            _ => return scroll::cursor_key(&mut self.list_cursor, &key, self.runs.len(), scroll::PAGE),
        }
        true
    }

    /// The endpoint `g` goes to: the selected step's tool's endpoint where the tool names one,
    /// else the LLM endpoint of the run (or of the settings).
    pub fn jump_target(&self) -> Option<(String, &'static str)> {
        let tool = self.selected_step().and_then(|s| s.tool.as_ref());
        let linked = tool.and_then(|t| {
            let (_, tool) = self.tools.iter().find(|(s, x)| *s == t.server && x.name == t.tool)?;
            crate::mcp::endpoint_link(Some(tool), None)
        });
        if let Some(l) = linked {
            return Some((l.endpoint, "the tool's endpoint"));
        }
        let llm = self
            .shown_run()
            .and_then(|r| r.header.as_ref())
            .map(|h| h.llm.clone())
            .filter(|l| !l.is_empty())
            .or_else(|| self.settings.llm.clone())?;
        Some((llm, "the LLM endpoint"))
    }

    fn jump(&mut self, data: &mut Data, out: &mut Outbox, tab: Tab) {
        match self.jump_target() {
            Some((e, _)) if data.endpoint(&e).is_some() => {
                data.selected = Some(e);
                out.switch_to = Some(tab);
            }
            Some((e, what)) => out.toast(Level::Warn, format!("{what} {e} is not in the inventory")),
            None => out.toast(Level::Info, "no LLM endpoint: set [agent] llm in config.toml"),
        }
    }

    /// The footer's keys now.
    pub(super) fn hints(&self, data: &Data) -> Vec<KeyHint> {
        if let Some(a) = &self.approval {
            return match a.editing {
                Some(_) => vec![KeyHint::new("Enter", "send edited"), KeyHint::new("Esc", "back")],
                None => vec![
                    KeyHint::new("y", "approve"),
                    KeyHint::new("n", "deny"),
                    KeyHint::new("e", "edit arguments"),
                ],
            };
        }
        let running = self.shown_run().is_some_and(|r| r.running);
        match self.focus {
            Focus::EditStep => vec![
                KeyHint::when("Enter", "re-run with it", data.read_only),
                KeyHint::new("Esc", "leave"),
                KeyHint::new("^U", "clear"),
            ],
            Focus::Input => vec![
                KeyHint::when("Enter", "ask", data.read_only),
                KeyHint::new("Esc", "leave"),
                KeyHint::new("^U", "clear"),
            ],
            Focus::Detail => vec![
                KeyHint::new("↑↓", "scroll"),
                KeyHint::new("←→", "step"),
                KeyHint::new("g", "go to endpoint"),
                KeyHint::new("Esc", "back"),
            ],
            Focus::Runs => vec![
                KeyHint::new("↑↓", "move"),
                KeyHint::new("Enter", "show"),
                KeyHint::new("Esc", "close"),
            ],
            Focus::Conversation => vec![
                KeyHint::when("a", "ask", data.read_only),
                KeyHint::new("↑↓", "step"),
                KeyHint::new("Enter", "detail"),
                KeyHint::when("Esc", "cancel", !running),
                KeyHint::new("h", "runs"),
                KeyHint::when("R", "re-run", data.read_only || running),
                KeyHint::new("g", "go to endpoint"),
            ],
        }
    }
}
