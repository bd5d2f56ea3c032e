//! The `:` command line of the console: its keys, the commands it runs, and the profile names it
//! completes.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent};

use super::{App, Effect};
use crate::tui::event::{FleetKind, JobKind};
use crate::tui::panes::Tab;
use crate::tui::theme::Theme;
use crate::tui::widgets::Overlay;
use crate::tui::widgets::command_line::Command;
use crate::tui::widgets::toasts::Level;

impl App {
    pub(super) fn on_command_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Esc => self.command_line.open = false,
            KeyCode::Enter => match self.command_line.submit() {
                Ok(cmd) => self.run_command(cmd),
                Err(e) => self.toasts.push(Level::Warn, e),
            },
            KeyCode::Tab => {
                let profiles = known_profiles();
                let themes = self.theme_names.clone();
                let inventory = &self.data.inventory;
                let names = || inventory.iter().map(|e| e.name.clone()).collect();
                self.command_line.complete(&themes, &profiles, names);
            }
            KeyCode::Up => self.command_line.browse(true),
            KeyCode::Down => self.command_line.browse(false),
            KeyCode::Backspace if self.command_line.input.pop().is_none() => {
                self.command_line.open = false;
            }
            KeyCode::Char(c) => {
                self.command_line.input.push(c);
                self.command_line.candidates.clear();
            }
            _ => {}
        }
    }

    /// Runs a `:` command.
    pub fn run_command(&mut self, cmd: Command) {
        match cmd {
            Command::Pane { name, arg } => {
                if let Some(t) = Tab::ALL.iter().find(|t| t.command() == name) {
                    self.switch(*t);
                    return;
                }
                let mut ran = false;
                self.each_pane_with(
                    |p, data, out, _| ran = ran || p.run_command(&name, arg.as_deref(), data, out),
                    false,
                );
                if !ran {
                    self.toasts.push(Level::Warn, format!(":{name} is not available here"));
                }
            }
            Command::Region(r) => self.switch_region(&r),
            Command::Profile(p) => {
                self.data.context.profile = p.clone();
                self.effects.push(Effect::Reconnect {
                    profile: Some(p.clone()),
                    region: None,
                });
                self.toasts.push(Level::Info, format!("switching to profile {p}"));
            }
            Command::Theme(t) => match Theme::load(&t, self.theme_dir.as_deref()) {
                Ok(th) => {
                    self.theme = th;
                    self.toasts.push(Level::Info, format!("theme {t}"));
                }
                Err(e) => self.toasts.push(Level::Error, e.to_string()),
            },
            Command::Refresh(s) => {
                self.intervals.inventory = Duration::from_secs(s);
                self.data.refresh_interval = self.intervals.inventory;
                self.toasts.push(Level::Info, format!("refreshing every {s}s"));
            }
            Command::ReadOnly if self.data.read_only_locked => self.toasts.push(
                Level::Warn,
                "read-only was set by --read-only or this profile's config: restart without it to make changes",
            ),
            Command::ReadOnly => {
                self.data.read_only = !self.data.read_only;
                let state = if self.data.read_only { "on" } else { "off" };
                self.toasts.push(Level::Info, format!("read-only {state}"));
            }
            Command::Reason(r) => {
                let text = match &r {
                    Some(r) => format!("changes from now on are audited with the reason: {r}"),
                    None => "audit reason cleared".into(),
                };
                self.data.reason = r;
                self.toasts.push(Level::Info, text);
            }
            Command::Errors => self.overlay = Some(Overlay::ErrorLog { scroll: 0 }),
            Command::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Command::Quit => self.quit = !self.hold_quit(),
        }
    }
}

impl App {
    /// `:region R`: forgets the old region's data at once (nothing of it shows under the new
    /// name), closes a description of it, ignores refreshes of it still in flight, reconnects,
    /// and says what changed; panes show loading until the new region's inventory is in.
    pub fn switch_region(&mut self, region: &str) {
        let old = self.data.context.region.clone();
        self.data.switch_region(region);
        if matches!(self.overlay, Some(Overlay::Describe(_))) {
            self.overlay = None;
        }
        self.stale_jobs = self
            .inflight
            .iter()
            .filter(|(_, (k, _))| matches!(k, JobKind::Fleet(FleetKind::Inventory | FleetKind::Metrics)))
            .map(|(id, _)| *id)
            .collect();
        self.stale_since = Some(std::time::Instant::now());
        self.effects.push(Effect::Reconnect {
            profile: None,
            region: Some(region.to_string()),
        });
        self.toasts.push(
            Level::Info,
            format!("region {old} → {region}: loading its endpoints (nothing of {old} is shown)"),
        );
    }
}

/// Profile names from ~/.aws/config and ~/.aws/credentials, for completion.
pub fn known_profiles() -> Vec<String> {
    let home = std::env::var("HOME").unwrap_or_default();
    let mut out = Vec::new();
    for (file, prefix) in [(".aws/config", "profile "), (".aws/credentials", "")] {
        let Ok(text) = std::fs::read_to_string(std::path::Path::new(&home).join(file)) else {
            continue;
        };
        for line in text.lines() {
            let l = line.trim();
            if let Some(name) = l.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
                let name = name.strip_prefix(prefix).unwrap_or(name).trim();
                if !out.iter().any(|x| x == name) {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}
