//! The copies form (`c`): the new copy count typed over the one read, checked, then a
//! confirmation that states before → after and what will be sent; and the wake's confirmation
//! (`w`, 0 → 1). Both start one [`GuardJob::SetCopies`] carrying the desired count read, so the
//! change is refused if the component changed since.

use crossterm::event::KeyCode;

use crate::aws::components::{Component, ComponentSnapshot};
use crate::tui::event::{GuardJob, Job};
use crate::tui::widgets::confirm::Confirm;

/// Copies a form accepts at most (AWS's own limit is the account's instance quota; this keeps a
/// typo of an extra digit from asking for hundreds).
pub const MAX_COPIES: i32 = 100;

/// The form: the component it was opened on, its desired count then, and the count typed.
#[derive(Debug, Clone, PartialEq)]
pub struct CopiesForm {
    /// Endpoint.
    pub endpoint: String,
    /// Component.
    pub component: String,
    /// DesiredCopyCount when the form opened.
    pub seen: i32,
    /// The count typed.
    pub text: String,
    /// Why the count was not accepted.
    pub error: Option<String>,
}

impl CopiesForm {
    /// The form on `c`, its current desired count typed in.
    pub fn new(c: &Component) -> CopiesForm {
        CopiesForm {
            endpoint: c.endpoint.clone(),
            component: c.name.clone(),
            seen: c.copies.desired,
            text: c.copies.desired.to_string(),
            error: None,
        }
    }

    /// A key typed into the count: digits, Backspace.
    pub fn type_key(&mut self, code: KeyCode) {
        match code {
            KeyCode::Char(c) if c.is_ascii_digit() && self.text.len() < 4 => self.text.push(c),
            KeyCode::Backspace => {
                self.text.pop();
            }
            KeyCode::Up => self.step(1),
            KeyCode::Down => self.step(-1),
            _ => return,
        }
        self.error = None;
    }

    fn step(&mut self, by: i32) {
        let n = self.text.parse::<i32>().unwrap_or(self.seen);
        self.text = (n + by).clamp(0, MAX_COPIES).to_string();
    }

    /// The count typed, checked: a number from 0 to [`MAX_COPIES`] that changes something; 0 is
    /// allowed only for a component that can come back (AWS scales to zero only by scaling in,
    /// and a component at zero answers every call with a 400 until it is woken).
    pub fn count(&self) -> Result<i32, String> {
        let n: i32 = self
            .text
            .parse()
            .map_err(|_| format!("a copy count from 0 to {MAX_COPIES}"))?;
        if !(0..=MAX_COPIES).contains(&n) {
            return Err(format!("a copy count from 0 to {MAX_COPIES}"));
        }
        if n == self.seen {
            return Err(format!("{} already asks for {n} copies: nothing to change", self.component));
        }
        Ok(n)
    }

    /// The confirmation of the typed count against `c` as it is now.
    pub fn confirm(&self, c: &Component) -> Result<Confirm, String> {
        let n = self.count()?;
        // Adapters have no copies of their own; zero is checked against the endpoint when sent.
        crate::aws::components::change::check_copies(c, n, Ok(()))?;
        if c.copies.desired != self.seen {
            return Err(format!(
                "{} changed while the form was open: desired copies {} → {}; Esc and start again",
                c.name, self.seen, c.copies.desired
            ));
        }
        Ok(confirm(c, n, false))
    }
}

/// The confirmation of setting `c` to `n` copies (`wake`: from zero), with its job.
pub fn confirm(c: &Component, n: i32, wake: bool) -> Confirm {
    let name = crate::format::escape_line(&c.name).into_owned();
    let before = c.copies.desired;
    let mut lines = vec![
        format!(
            "Copies of {name} on {}: {before} → {n} (now {} serving).",
            crate::format::escape_line(&c.endpoint),
            c.copies.current
        ),
        format!("Sends UpdateInferenceComponentRuntimeConfig DesiredRuntimeConfig.CopyCount = {n}."),
        format!("Refused, nothing sent, if its desired copies are no longer {before}; written to the audit log first."),
    ];
    if wake {
        lines.push("Then followed: WAKING with the time since, until a copy serves.".into());
    }
    if n == 0 {
        lines.push(format!("At zero copies every call to {name} is answered 400 until it is woken."));
    }
    Confirm {
        title: if wake {
            format!("Wake {name}?")
        } else {
            format!("Set {name} to {n} copies?")
        },
        lines,
        jobs: vec![Job::Guard(GuardJob::SetCopies {
            endpoint: c.endpoint.clone(),
            seen: ComponentSnapshot::of(c),
            copies: n,
            wake,
            reason: None,
        })],
        danger: n == 0,
        force: Vec::new(),
    }
}
