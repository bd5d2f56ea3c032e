//! The rolling-update form (`u`): the new model, the batch (`1` copy or `25%`) and the bake after
//! each batch, checked as the CLI checks them, then a confirmation that states from → to and the
//! policy sent; it starts one [`GuardJob::UpdateComponent`] carrying what was read.

use crossterm::event::KeyCode;

use crate::aws::components::change::check_update;
use crate::aws::components::{BatchSize, Component, ComponentSnapshot, RollingUpdate};
use crate::format::escape_line;
use crate::tui::event::{GuardJob, Job};
use crate::tui::widgets::confirm::Confirm;

/// The form's fields, in Tab order.
pub const FIELDS: [&str; 3] = ["model", "batch", "bake"];

/// The form: the component it was opened on and the three fields typed.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateForm {
    /// Endpoint.
    pub endpoint: String,
    /// Component.
    pub component: String,
    /// The new model, the batch and the bake, as typed.
    pub values: [String; 3],
    /// The field being typed (index into [`FIELDS`]).
    pub focus: usize,
    /// Why the form was not accepted.
    pub error: Option<String>,
}

impl UpdateForm {
    /// The form on `c`: one copy at a time, a minute's bake.
    pub fn new(c: &Component) -> UpdateForm {
        UpdateForm {
            endpoint: c.endpoint.clone(),
            component: c.name.clone(),
            values: [String::new(), "1".into(), "60s".into()],
            focus: 0,
            error: None,
        }
    }

    /// A key typed into the form: text into the field, Tab/↓ and BackTab/↑ between fields.
    pub fn type_key(&mut self, code: KeyCode) {
        match code {
            KeyCode::Tab | KeyCode::Down => self.focus = (self.focus + 1) % FIELDS.len(),
            KeyCode::BackTab | KeyCode::Up => self.focus = (self.focus + FIELDS.len() - 1) % FIELDS.len(),
            KeyCode::Backspace => {
                self.values[self.focus].pop();
            }
            KeyCode::Char(c) if !c.is_control() && self.values[self.focus].len() < 63 => {
                self.values[self.focus].push(c);
            }
            _ => return,
        }
        self.error = None;
    }

    /// The update typed, checked against `c` as it is now.
    pub fn update(&self, c: &Component) -> Result<RollingUpdate, String> {
        let batch = BatchSize::parse(&self.values[1])?;
        let bake = crate::format::parse_bake(&self.values[2])?;
        let update = RollingUpdate {
            model: self.values[0].trim().to_string(),
            batch,
            bake_secs: i32::try_from(bake.as_secs()).unwrap_or(i32::MAX),
            rollback_batch: None,
            timeout_secs: None,
            alarms: Vec::new(),
        };
        check_update(c, &update)?;
        Ok(update)
    }

    /// The confirmation of the typed update on `c`.
    pub fn confirm(&self, c: &Component) -> Result<Confirm, String> {
        let update = self.update(c)?;
        let name = escape_line(&c.name).into_owned();
        let from = escape_line(&c.model_text()).into_owned();
        let to = escape_line(&update.model).into_owned();
        let lines = vec![
            format!("Model of {name}: {from} → {to}, {} copies rolled over.", c.copies.desired),
            format!(
                "Sends UpdateInferenceComponent with RollingUpdatePolicy MaximumBatchSize {}, WaitIntervalInSeconds {}.",
                update.batch, update.bake_secs
            ),
            "Refused, nothing sent, if its model or copies changed since; written to the audit log first.".into(),
            "Then followed until it serves the new model, or rolls back (with AWS's reason).".into(),
        ];
        Ok(Confirm {
            title: format!("Roll {name} over to {to}?"),
            lines,
            jobs: vec![Job::Guard(GuardJob::UpdateComponent {
                endpoint: c.endpoint.clone(),
                seen: ComponentSnapshot::of(c),
                update: Box::new(update),
                reason: None,
            })],
            danger: false,
            force: Vec::new(),
        })
    }
}
