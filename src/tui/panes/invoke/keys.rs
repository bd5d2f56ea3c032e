//! The Invoke pane's keys while a field has focus (every key is the field's), while the
//! history list is open, and `L` (the Logs pane around the shown call's error).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::form::{CONTENT_TYPES, Field, Form, completions};
use super::{InvokePane, ctrl};
use crate::tui::data::Data;
use crate::tui::panes::Outbox;
use crate::tui::widgets::scroll;
use crate::tui::widgets::toasts::Level;

impl InvokePane {
    pub(super) fn focus_field(&mut self, field: Field, out: &mut Outbox) {
        match &self.form {
            None => out.toast(Level::Warn, "select an endpoint first (1 Endpoints)"),
            Some(f) if field == Field::Model && f.hosts_components => self.focus = Some(Field::Component),
            Some(f) if field == Field::Model && !f.multi_model => {
                out.toast(Level::Info, format!("{} is not a multi-model endpoint", f.endpoint))
            }
            Some(_) => self.focus = Some(field),
        }
    }

    /// Keys while a field has focus (every key is the field's).
    pub(super) fn field_key(&mut self, field: Field, key: KeyEvent, data: &Data) {
        let Some(form) = self.form.as_mut() else {
            self.focus = None;
            return;
        };
        match key.code {
            KeyCode::Esc => self.focus = None,
            KeyCode::Tab => self.focus = Some(form.next_field(field, false)),
            KeyCode::BackTab => self.focus = Some(form.next_field(field, true)),
            _ => match field {
                Field::Body => {
                    if form.body.input(key) {
                        form.recheck();
                        self.notice = None;
                    }
                }
                Field::Variant => match key.code {
                    KeyCode::Left | KeyCode::Up => form.cycle_variant(true),
                    KeyCode::Right | KeyCode::Down | KeyCode::Char(' ') => form.cycle_variant(false),
                    KeyCode::Enter => self.focus = None,
                    _ => {}
                },
                Field::Component => match key.code {
                    KeyCode::Left | KeyCode::Up => form.cycle_component(true),
                    KeyCode::Right | KeyCode::Down | KeyCode::Char(' ') => form.cycle_component(false),
                    KeyCode::Enter => self.focus = None,
                    _ => {}
                },
                Field::ContentType | Field::Accept => {
                    let value = if field == Field::ContentType {
                        &mut form.content_type
                    } else {
                        &mut form.accept
                    };
                    match key.code {
                        KeyCode::Up | KeyCode::Down => {
                            let i = CONTENT_TYPES.iter().position(|t| t == value);
                            let n = CONTENT_TYPES.len();
                            let next = match (i, key.code == KeyCode::Up) {
                                (None, _) => 0,
                                (Some(i), true) => (i + n - 1) % n,
                                (Some(i), false) => (i + 1) % n,
                            };
                            *value = CONTENT_TYPES[next].to_string();
                        }
                        _ => edit_line(value, key, |c| !c.is_control()),
                    }
                    if key.code == KeyCode::Enter {
                        self.focus = None;
                    }
                    form.recheck();
                }
                Field::Repeat => {
                    edit_line(&mut form.repeat, key, |c| c.is_ascii_digit());
                    if key.code == KeyCode::Enter {
                        self.focus = None;
                    }
                }
                Field::Model => {
                    let found = model_completions(data, form);
                    match key.code {
                        KeyCode::Down => form.model_pick = (form.model_pick + 1).min(found.len().saturating_sub(1)),
                        KeyCode::Up => form.model_pick = form.model_pick.saturating_sub(1),
                        KeyCode::Enter => {
                            if let Some(m) = found.get(form.model_pick) {
                                form.model = m.clone();
                            }
                            self.focus = None;
                        }
                        _ => {
                            edit_line(&mut form.model, key, |c| !c.is_control());
                            form.model_pick = 0;
                            form.model_pending = false;
                        }
                    }
                }
            },
        }
    }

    pub(super) fn history_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        let last = self.history.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('h') => self.history_open = false,
            KeyCode::Enter => self.rerun(data, out),
            KeyCode::Char('l') => self.load(data, out),
            _ if scroll::cursor_key(&mut self.history_cursor, &key, self.history.len(), scroll::PAGE) => {}
            _ => return false,
        }
        if !self.history.is_empty() {
            self.shown = Some(self.history_cursor.min(last));
            self.scroll = 0;
        }
        true
    }
}

impl InvokePane {
    /// `L`: the Logs pane around the shown call's latest error.
    pub(super) fn logs_at_error(&self, data: &mut Data, out: &mut Outbox) {
        match self.shown_call().and_then(|c| Some((c, c.failed_at?))) {
            Some((c, at)) => {
                data.logs_jump = Some(crate::tui::data::LogsJump {
                    endpoint: c.spec.endpoint.clone(),
                    variant: c.spec.target_variant.clone(),
                    at,
                });
                out.switch_to = Some(crate::tui::panes::Tab::Logs);
            }
            None => out.toast(crate::tui::widgets::toasts::Level::Info, "the call shown has no error to look up in the logs"),
        }
    }
}

/// Edits a one-line value: printable characters (that `allow` accepts), Backspace, Ctrl-U clears.
fn edit_line(value: &mut String, key: KeyEvent, allow: impl Fn(char) -> bool) {
    if ctrl(&key, 'u') {
        value.clear();
        return;
    }
    match key.code {
        KeyCode::Backspace => {
            value.pop();
        }
        KeyCode::Char(c) if allow(c) && !key.modifiers.contains(KeyModifiers::CONTROL) => value.push(c),
        _ => {}
    }
}

/// The catalog keys matching the model field (empty when no catalog is loaded).
pub(super) fn model_completions(data: &Data, form: &Form) -> Vec<String> {
    data.catalogs
        .get(&form.endpoint)
        .map(|c| {
            completions(c.models.iter().map(|m| m.key.as_str()), &form.model)
                .into_iter()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}
