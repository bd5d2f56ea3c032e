//! The Resources and Prompts views' keys: moving between servers and rows, reading a resource,
//! the arguments form of a template or prompt and sending it (Ctrl-S / F5), subscribing (`s`),
//! the log (`L`), reconnecting (`c`) and the view switch (`v`).

use crossterm::event::{KeyCode, KeyEvent};
use serde_json::Value;

use super::{Item, View};
use crate::mcp::ServerStatus;
use crate::mcp::resources::fill_template;
use crate::tui::event::{McpJob, ReadTarget};
use crate::tui::panes::tools::{Focus, Panel, ToolsPane};
use crate::tui::panes::{KeyHint, Outbox, ctrl};
use crate::tui::widgets::scroll::{Move, PAGE};
use crate::tui::widgets::toasts::Level;

impl ToolsPane {
    /// `v`: the next view; its rows start at the top.
    pub(in crate::tui::panes::tools) fn switch_view(&mut self) {
        self.catalog.view = self.catalog.view.next();
        self.catalog.cursor = 0;
        self.catalog.form_focus = false;
        if matches!(self.focus, Focus::Form | Focus::Raw | Focus::Repeat | Focus::History) {
            self.focus = Focus::Tools;
        }
        if let Some(s) = self.selected_server().map(|s| s.name.clone()) {
            self.catalog.sync_form(&s);
        }
    }

    /// The views' keys (every key while the arguments form has them).
    pub(in crate::tui::panes::tools) fn on_catalog_key(&mut self, key: KeyEvent, out: &mut Outbox) -> bool {
        let Some(server) = self.selected_server().map(|s| s.name.clone()) else {
            if key.code != KeyCode::Char('v') {
                return false;
            }
            self.switch_view();
            return true;
        };
        if ctrl(&key, 's') || key.code == KeyCode::F(5) {
            self.catalog_send(&server, out);
            return true;
        }
        if self.catalog.form_focus
            && let Some((_, form)) = &mut self.catalog.form
        {
            let editing = form.editing;
            let (used, changed) = form.handle_key(key);
            if changed {
                self.notice = None;
            }
            if used || editing {
                return true;
            }
            if matches!(key.code, KeyCode::Esc | KeyCode::Left) {
                self.catalog.form_focus = false;
                return true;
            }
        }
        self.on_catalog_list_key(key, &server, out)
    }

    fn on_catalog_list_key(&mut self, key: KeyEvent, server: &str, out: &mut Outbox) -> bool {
        match key.code {
            KeyCode::Char('v') => self.switch_view(),
            KeyCode::Enter | KeyCode::Right if self.focus == Focus::Servers => self.focus = Focus::Tools,
            KeyCode::Enter | KeyCode::Right => self.catalog_open(server, out),
            KeyCode::Left | KeyCode::Backspace | KeyCode::Esc if self.focus != Focus::Servers => {
                self.focus = Focus::Servers
            }
            KeyCode::Esc => return false,
            KeyCode::Char('s') => self.toggle_subscription(server, out),
            KeyCode::Char('c') => out.job(McpJob::Connect {
                server: Some(server.to_string()),
            }),
            KeyCode::Char('L') => {
                self.panel = if self.panel == Panel::Log { Panel::Result } else { Panel::Log };
                self.scroll = 0;
            }
            _ => match Move::of_key(&key) {
                Some(m @ (Move::PageUp | Move::PageDown)) => self.scroll = m.offset(self.scroll, PAGE as u16),
                Some(m) if self.focus == Focus::Servers => {
                    self.move_list(m);
                    self.catalog.cursor = 0;
                    if let Some(s) = self.selected_server().map(|s| s.name.clone()) {
                        self.catalog.sync_form(&s);
                    }
                }
                Some(m) => {
                    let n = self.catalog.items(server).len();
                    self.catalog.cursor = m.cursor(self.catalog.cursor, n, PAGE);
                    self.catalog.sync_form(server);
                }
                None => return false,
            },
        }
        true
    }

    /// Enter on a row: a resource (or a prompt without arguments) is read at once; a template or
    /// a prompt with arguments opens its form.
    fn catalog_open(&mut self, server: &str, out: &mut Outbox) {
        self.catalog.sync_form(server);
        if self.catalog.form.is_some() {
            self.catalog.form_focus = true;
        } else {
            self.catalog_send(server, out);
        }
    }

    /// Reads the selected resource or filled template, or gets the selected prompt.
    fn catalog_send(&mut self, server: &str, out: &mut Outbox) {
        if !matches!(
            self.selected_server().map(|s| &s.status),
            Some(ServerStatus::Connected { .. })
        ) {
            self.notice = Some(format!("not sent: {server} is not connected (c reconnects)"));
            return;
        }
        self.catalog.sync_form(server);
        let args = match &self.catalog.form {
            Some((_, form)) if !form.errors.is_empty() => {
                self.notice = Some(format!("not sent: {}", form.errors.join("; ")));
                self.catalog.form_focus = true;
                return;
            }
            Some((_, form)) => form.value().as_object().cloned().unwrap_or_default(),
            None => serde_json::Map::new(),
        };
        let args: serde_json::Map<String, Value> = args
            .into_iter()
            .filter(|(_, v)| v.as_str().is_none_or(|s| !s.is_empty()))
            .collect();
        let target = match self.catalog.selected(server) {
            None => return,
            Some(Item::Resource(r)) => ReadTarget::Resource(r.uri.clone()),
            Some(Item::Template(t)) => match fill_template(&t.uri_template, &args) {
                Ok(uri) => ReadTarget::Resource(uri),
                Err(e) => {
                    self.notice = Some(format!("not sent: {e}"));
                    return;
                }
            },
            Some(Item::Prompt(p)) => ReadTarget::Prompt {
                name: p.name.clone(),
                arguments: args,
            },
        };
        self.notice = None;
        self.panel = Panel::Result;
        self.scroll = 0;
        out.job(McpJob::Read {
            server: server.to_string(),
            target,
        });
    }

    /// `s`: subscribes to the selected resource, or ends its subscription.
    fn toggle_subscription(&mut self, server: &str, out: &mut Outbox) {
        let Some(Item::Resource(r)) = self.catalog.selected(server) else {
            out.toast(Level::Info, "s subscribes to a resource (not a template or prompt)");
            return;
        };
        let offers = self
            .catalog
            .catalogs
            .get(server)
            .is_some_and(|c| c.is_ok());
        if !offers {
            return;
        }
        let uri = r.uri.clone();
        let on = !self.catalog.subscribed.contains(&(server.to_string(), uri.clone()));
        out.job(McpJob::Subscribe {
            server: server.to_string(),
            uri,
            on,
        });
    }

    /// The footer's keys in the Resources and Prompts views.
    pub(in crate::tui::panes::tools) fn catalog_hints(&self) -> Vec<KeyHint> {
        let server = self.selected_server().map(|s| s.name.as_str()).unwrap_or("");
        let item = self.catalog.selected(server);
        if self.catalog.form_focus {
            return vec![
                KeyHint::new("^S/F5", "send"),
                KeyHint::new("↑↓", "field"),
                KeyHint::new("⏎/i", "edit"),
                KeyHint::new("Esc", "back"),
            ];
        }
        let verb = match (self.catalog.view, item) {
            (View::Prompts, _) => "get",
            _ => "read",
        };
        vec![
            KeyHint::new("↑↓", "move"),
            KeyHint::when("⏎", verb, item.is_none()),
            KeyHint::when("s", "subscribe", !matches!(item, Some(Item::Resource(_)))),
            KeyHint::new("v", "view"),
            KeyHint::new("L", "log"),
            KeyHint::when("c", "reconnect", self.servers.is_empty()),
        ]
    }
}
