//! The Tools pane's Resources and Prompts views (`v` switches Tools → Resources → Prompts): a
//! server's resources and resource templates, or its prompts, listed with their titles; Enter
//! reads a resource, and opens the arguments form (the schema form the Tools view has, one
//! string field per argument) of a template or a prompt, which Ctrl-S / F5 reads or gets; `s`
//! subscribes to a resource (`resources/subscribe`) and the updates it brings are counted on
//! its row and read again when shown; list changes list the catalog again. Reads only: nothing
//! here is audited. A server's elicitation is answered in `elicit.rs`.

pub mod elicit;
mod keys;
pub mod view;

use std::collections::{HashMap, HashSet};

use rmcp::model::{Prompt, Resource, ResourceTemplate};
use serde_json::{Value, json};

use crate::mcp::resources::{Catalog, template_variables};
use crate::tui::event::{AppEvent, ReadTarget};
use crate::tui::panes::Outbox;
use crate::tui::widgets::schema_form::SchemaForm;
use crate::tui::widgets::toasts::Level;

/// What the pane lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// Tools (the form, the result).
    #[default]
    Tools,
    /// Resources and resource templates.
    Resources,
    /// Prompts.
    Prompts,
}

impl View {
    /// The next view (`v`).
    pub fn next(self) -> View {
        match self {
            View::Tools => View::Resources,
            View::Resources => View::Prompts,
            View::Prompts => View::Tools,
        }
    }

    /// Its name.
    pub fn label(self) -> &'static str {
        match self {
            View::Tools => "Tools",
            View::Resources => "Resources",
            View::Prompts => "Prompts",
        }
    }
}

/// One row of the Resources or Prompts view.
#[derive(Debug, Clone, Copy)]
pub enum Item<'a> {
    /// A resource.
    Resource(&'a Resource),
    /// A resource template.
    Template(&'a ResourceTemplate),
    /// A prompt.
    Prompt(&'a Prompt),
}

impl Item<'_> {
    /// The form key (`server`, `r:URI` or `p:NAME`) and its arguments' schema, when it takes
    /// arguments.
    pub fn arguments(&self) -> Option<(String, Value)> {
        let (key, fields): (String, Vec<(String, Option<String>, bool)>) = match self {
            Item::Resource(_) => return None,
            Item::Template(t) => (
                format!("t:{}", t.uri_template),
                template_variables(&t.uri_template)
                    .into_iter()
                    .map(|v| (v, None, true))
                    .collect(),
            ),
            Item::Prompt(p) => (
                format!("p:{}", p.name),
                p.arguments
                    .iter()
                    .flatten()
                    .map(|a| (a.name.clone(), a.description.clone(), a.required == Some(true)))
                    .collect(),
            ),
        };
        if fields.is_empty() {
            return None;
        }
        let mut props = serde_json::Map::new();
        for (name, desc, _) in &fields {
            let mut p = json!({"type": "string"});
            if let Some(d) = desc {
                p["description"] = json!(d);
            }
            props.insert(name.clone(), p);
        }
        let required: Vec<&String> = fields.iter().filter(|f| f.2).map(|f| &f.0).collect();
        Some((key, json!({"type": "object", "properties": props, "required": required})))
    }
}

/// What was read last: the server, what (`URI`, `prompt NAME`) and its lines or the failure.
pub type Content = (String, String, Result<Vec<String>, String>);

/// The Resources and Prompts views' state.
#[derive(Debug, Default)]
pub struct CatalogState {
    /// The view shown.
    pub view: View,
    /// Each server's catalog as last listed, or why it could not be.
    pub catalogs: HashMap<String, Result<Catalog, String>>,
    /// The selected row.
    pub cursor: usize,
    /// The arguments form of the selected template or prompt (its key, the form).
    pub form: Option<(String, SchemaForm)>,
    /// Whether the form has the keys.
    pub form_focus: bool,
    /// What was read last.
    pub content: Option<Content>,
    /// Subscribed resources (server, URI).
    pub subscribed: HashSet<(String, String)>,
    /// Updates received per subscribed resource.
    pub updates: HashMap<(String, String), u32>,
    /// Requests for input waiting for an answer, the first shown.
    pub eliciting: elicit::Queue,
}

impl CatalogState {
    /// The rows of `server` in the current view.
    pub fn items(&self, server: &str) -> Vec<Item<'_>> {
        let Some(Ok(c)) = self.catalogs.get(server) else {
            return Vec::new();
        };
        match self.view {
            View::Resources => c
                .resources
                .iter()
                .map(Item::Resource)
                .chain(c.templates.iter().map(Item::Template))
                .collect(),
            View::Prompts => c.prompts.iter().map(Item::Prompt).collect(),
            View::Tools => Vec::new(),
        }
    }

    /// The selected row of `server`.
    pub fn selected(&self, server: &str) -> Option<Item<'_>> {
        self.items(server).get(self.cursor).copied()
    }

    /// Keeps the arguments form in step with the selected row (a new one for another row).
    pub fn sync_form(&mut self, server: &str) {
        let want = self.selected(server).and_then(|i| i.arguments());
        match (&self.form, want) {
            (Some((k, _)), Some((key, _))) if *k == key => {}
            (_, Some((key, schema))) => self.form = Some((key, SchemaForm::new(&schema))),
            (_, None) => {
                self.form = None;
                self.form_focus = false;
            }
        }
    }

    /// Applies a catalog, content, subscription or update event of the worker; the job to run
    /// in answer (a shown resource that changed is read again).
    pub fn apply(&mut self, ev: &AppEvent, out: &mut Outbox) {
        match ev {
            AppEvent::McpCatalog { server, catalog } => {
                if let Err(e) = catalog {
                    out.toast(Level::Warn, format!("{server}: resources and prompts: {e}"));
                }
                self.catalogs.insert(server.clone(), catalog.clone());
            }
            AppEvent::McpContent { server, what, lines } => {
                self.content = Some((server.clone(), what.clone(), lines.clone()));
            }
            AppEvent::McpSubscribed {
                server,
                uri,
                on,
                result,
            } => match result {
                Ok(()) if *on => {
                    self.subscribed.insert((server.clone(), uri.clone()));
                    out.toast(Level::Info, format!("subscribed to {uri}"));
                }
                Ok(()) => {
                    self.subscribed.remove(&(server.clone(), uri.clone()));
                    out.toast(Level::Info, format!("unsubscribed from {uri}"));
                }
                Err(e) => out.toast(Level::Error, format!("{uri}: {e}")),
            },
            AppEvent::McpUpdated { server, uri } => {
                *self.updates.entry((server.clone(), uri.clone())).or_default() += 1;
                let shown = self
                    .content
                    .as_ref()
                    .is_some_and(|(s, what, _)| s == server && what == uri);
                if shown {
                    out.job(crate::tui::event::McpJob::Read {
                        server: server.clone(),
                        target: ReadTarget::Resource(uri.clone()),
                    });
                }
            }
            _ => {}
        }
    }
}
