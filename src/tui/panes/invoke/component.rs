//! The Invoke pane on an endpoint that hosts inference components: its components (read once
//! with [`FleetJob::Components`] when the Components pane has not read them yet) fill the form's
//! component field, which a call must name.

use super::InvokePane;
use crate::aws::AwsError;
use crate::tui::data::Data;
use crate::tui::event::FleetJob;
use crate::tui::panes::Outbox;

impl InvokePane {
    /// Keeps the form's components current with the last read, and asks for that read once when
    /// there is none and `out` is given.
    pub(super) fn sync_components(&mut self, data: &Data, out: Option<&mut Outbox>) {
        let Some(form) = self.form.as_mut().filter(|f| f.hosts_components) else {
            return;
        };
        match data.components.get(&form.endpoint) {
            Some(read) => {
                let names: Vec<String> = read.components.iter().map(|c| c.name.clone()).collect();
                if names != form.components {
                    form.set_components(names);
                }
            }
            None => {
                if let Some(out) = out
                    && self.components_requested.insert(form.endpoint.clone())
                {
                    out.job(FleetJob::Components {
                        endpoint: form.endpoint.clone(),
                    });
                }
            }
        }
    }
}

/// An invocation error as the console says it: the two inference-component classes name the
/// console's keys instead of the CLI's flags, on one line; others as they are.
pub fn error_text(e: &AwsError) -> String {
    match e {
        AwsError::ComponentRequired { components, .. } if components.is_empty() => {
            "this endpoint hosts inference components: pick one (m) and send again".into()
        }
        AwsError::ComponentRequired { components, .. } => format!(
            "this endpoint hosts inference components: pick one (m; one of: {}) and send again",
            components.join(", ")
        ),
        AwsError::NoCapacity { component, .. } => format!(
            "inference component {} has no copies (scaled to zero): wake it on the Components pane (w), then send again",
            component.as_deref().unwrap_or("?")
        ),
        AwsError::AsyncOnly { endpoint, .. } => format!(
            "{endpoint} is an asynchronous endpoint: the Invoke pane sends synchronous calls; use `sagedeck invoke-async {endpoint}`"
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_errors_name_the_console_keys() {
        let zero = AwsError::NoCapacity {
            message: "m".into(),
            endpoint: Some("ep".into()),
            component: Some("llm".into()),
        };
        let text = error_text(&zero);
        assert!(text.contains("llm") && text.contains("Components pane (w)") && !text.contains("--"), "{text}");
        let missing = AwsError::ComponentRequired {
            message: "m".into(),
            components: vec!["llm".into()],
        };
        assert!(error_text(&missing).contains("one of: llm"));
        let queued = AwsError::AsyncOnly {
            message: "m".into(),
            endpoint: "summarize".into(),
        };
        let text = error_text(&queued);
        assert!(text.contains("sagedeck invoke-async summarize") && !text.contains('\n'), "{text}");
    }
}
