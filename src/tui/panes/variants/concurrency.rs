//! The Variants pane's `c` on a serverless variant: an editor of its max and provisioned
//! concurrency (`MAX [PROVISIONED]`, prefilled with the desired settings), checked by the fleet
//! layer's plan (1–200, provisioned at most max), then a before → after confirmation whose yes
//! queues one guarded, audited job ([`GuardJob::SetServerless`]) through the one read-only gate.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::super::{KeyHint, Outbox};
use crate::aws::change::serverless::plan_serverless;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::tui::event::{GuardJob, Job};
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::toasts::Level;
use crate::tui::widgets::confirm::Confirm;
use crate::tui::widgets::{Overlay, centered, modal, title};

/// The concurrency of one serverless variant being typed.
#[derive(Debug, Clone, PartialEq)]
pub struct ConcurrencyEditor {
    /// The endpoint as the operator saw it (the plan's compare-and-swap starts from it).
    pub seen: Box<EndpointInfo>,
    /// Variant.
    pub variant: String,
    /// What was typed: `MAX [PROVISIONED]`.
    pub input: String,
    /// Why the input cannot be sent (shown under it).
    pub error: Option<String>,
}

impl ConcurrencyEditor {
    /// The editor of the variant under the cursor, or why it cannot open (not serverless, not
    /// InService).
    pub fn open(e: &EndpointInfo, cursor: usize) -> Result<ConcurrencyEditor, String> {
        let v = e.variants.get(cursor).ok_or_else(|| format!("{} has no variants", e.name))?;
        let Some(s) = &v.serverless else {
            return Err(format!(
                "{} is instance-backed: w edits its weights and instances",
                v.name
            ));
        };
        if e.status != "InService" {
            return Err(format!(
                "{} is {}; its concurrency can change only when it is InService",
                e.name, e.status
            ));
        }
        let input = match s.desired_provisioned {
            Some(p) => format!("{} {p}", s.desired_max_concurrency),
            None => s.desired_max_concurrency.to_string(),
        };
        Ok(ConcurrencyEditor {
            seen: Box::new(e.clone()),
            variant: v.name.clone(),
            input,
            error: None,
        })
    }

    /// The confirmation (before → after, the job on yes), or why it cannot be sent.
    pub fn confirm(&self) -> Result<Confirm, String> {
        let words: Vec<&str> = self.input.split_whitespace().collect();
        let int = |w: &str| w.parse::<i32>().map_err(|_| format!("{w:?} is not a whole number"));
        let (max, provisioned) = match words.as_slice() {
            [m] => (Some(int(m)?), None),
            [m, p] => (Some(int(m)?), Some(int(p)?)),
            _ => return Err("type MAX, or MAX PROVISIONED".into()),
        };
        let plan = plan_serverless(&self.seen, Some(&self.variant), max, provisioned)
            .map_err(|e| e.replace("--max-concurrency", "max").replace("--provisioned", "provisioned"))?;
        let unchanged = plan.max_concurrency == plan.before.desired_max_concurrency
            && plan.provisioned.is_none_or(|p| Some(p) == plan.before.desired_provisioned);
        if unchanged {
            return Err("nothing to change".into());
        }
        Ok(Confirm {
            title: format!("Change the concurrency of {} {}", plan.endpoint, plan.variant),
            lines: vec![
                plan.text(),
                String::new(),
                "In place (ServerlessUpdateConfig). Audited first; refused if changed since read.".into(),
            ],
            jobs: vec![Job::Guard(GuardJob::SetServerless {
                plan: Box::new(plan),
                reason: None,
            })],
            danger: false,
            force: Vec::new(),
        })
    }

    /// Handles a key; false when the editor closes (cancelled, or the confirmation is shown).
    pub fn handle_key(&mut self, key: KeyEvent, out: &mut Outbox) -> bool {
        match key.code {
            KeyCode::Esc => {
                out.toast(Level::Info, format!("concurrency of {} not changed", self.seen.name));
                return false;
            }
            KeyCode::Enter => match self.confirm() {
                Ok(c) => {
                    out.overlay = Some(Overlay::Confirm(c));
                    return false;
                }
                Err(why) => self.error = Some(why),
            },
            KeyCode::Backspace => {
                self.input.pop();
            }
            KeyCode::Char(c) if c.is_ascii_digit() || c == ' ' => self.input.push(c),
            _ => {}
        }
        true
    }

    /// The footer while typing.
    pub fn keys(&self) -> Vec<KeyHint> {
        vec![
            KeyHint::new("0-9 ␣ ⌫", "type"),
            KeyHint::new("Enter", "review before → after"),
            KeyHint::new("Esc", "cancel"),
        ]
    }

    /// Draws the editor as a dialog.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let muted = |t: String| Span::styled(t, theme.fg(Role::Muted));
        let now = self.seen.variant(&self.variant).and_then(|v| v.serverless.as_ref());
        let mut lines = vec![Line::from(vec![muted("variant ".into()), Span::raw(self.variant.clone())])];
        if let Some(s) = now {
            let provisioned = s.desired_provisioned.map_or("none".to_string(), |p| p.to_string());
            lines.push(Line::from(muted(format!(
                "now: max {} · provisioned {provisioned} · memory {} MB",
                s.desired_max_concurrency, s.memory_mb
            ))));
        }
        lines.push(Line::from(vec![
            muted("max [provisioned]: ".into()),
            Span::styled(
                format!("{}▏", self.input),
                theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
            ),
        ]));
        if let Some(err) = &self.error {
            lines.push(Line::from(Span::styled(err.clone(), theme.fg(Role::StatusError))));
        }
        lines.push(Line::from(muted("1 to 200, provisioned at most max.".into())));
        lines.push(Line::from(muted("Enter shows before → after; nothing is sent yet.".into())));
        let rect = centered(area, 70, 10, 60, lines.len() as u16 + 2);
        let heading = title(format!(" Concurrency of {} ", self.seen.name), theme);
        let body = Paragraph::new(lines).wrap(Wrap { trim: false });
        modal(f, rect, theme.border(true), heading, body, theme);
    }
}
