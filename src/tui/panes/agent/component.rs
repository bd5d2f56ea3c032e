//! `:agent-component`: the inference component serving the Agent's LLM, chosen from the LLM
//! endpoint's components when they have been read (the Components pane reads them): without an
//! argument it steps to the next one; a name it does not host is refused; `none` clears it. An
//! `:agent-llm` naming an endpoint that hosts components picks its first when none of its is set.

use super::AgentPane;
use crate::tui::data::Data;
use crate::tui::panes::Outbox;
use crate::tui::widgets::toasts::Level;

impl AgentPane {
    /// The components of the LLM endpoint, when they have been read.
    fn llm_components(&self, data: &Data) -> Option<Vec<String>> {
        let llm = self.settings.llm.as_ref()?;
        let read = data.components.get(llm)?;
        Some(read.components.iter().map(|c| c.name.clone()).collect())
    }

    /// Runs `:agent-component [IC | none]`.
    pub(super) fn choose_component(&mut self, arg: Option<&str>, data: &Data, out: &mut Outbox) {
        let llm = self.settings.llm.clone().unwrap_or_else(|| "the LLM endpoint".into());
        let known = self.llm_components(data);
        let chosen = match (arg, &known) {
            (Some("none"), _) => None,
            (Some(ic), Some(names)) if !names.iter().any(|n| n == ic) => {
                let one_of = if names.is_empty() { "none".into() } else { names.join(", ") };
                out.toast(Level::Warn, format!("{llm} hosts no component {ic} (it hosts: {one_of})"));
                return;
            }
            (Some(ic), _) => Some(ic.to_string()),
            (None, Some(names)) if !names.is_empty() => {
                let at = self.settings.inference_component.as_ref().and_then(|c| names.iter().position(|n| n == c));
                Some(names[at.map_or(0, |i| (i + 1) % names.len())].clone())
            }
            (None, _) => {
                let why = format!("{llm}'s components are not read (see the Components pane): :agent-component IC names one");
                out.toast(Level::Warn, why);
                return;
            }
        };
        match &chosen {
            Some(ic) => out.toast(Level::Info, format!("Agent: new runs ask {llm} through component {ic}")),
            None => out.toast(Level::Info, format!("Agent: new runs ask {llm} without a component")),
        }
        self.settings.inference_component = chosen;
    }

    /// After `:agent-llm`: on an endpoint whose components are read, keeps the component when it
    /// hosts it, else picks its first (or none when it hosts none).
    pub(super) fn follow_llm_components(&mut self, data: &Data, out: &mut Outbox) {
        let Some(names) = self.llm_components(data) else {
            return;
        };
        let current = self.settings.inference_component.clone();
        if current.as_ref().is_some_and(|c| names.contains(c)) {
            return;
        }
        self.settings.inference_component = names.first().cloned();
        if let Some(ic) = &self.settings.inference_component {
            out.toast(Level::Info, format!("Agent: through component {ic} (:agent-component changes it)"));
        }
    }
}
