//! The console's panes. Each pane keeps its own UI state, reads the shared [`Data`], and answers
//! keys by changing its state and putting requests in the [`Outbox`]; it never touches the network.

pub mod activity;
pub mod endpoints;
pub mod invoke;
pub mod latency;
pub mod models;
pub mod tools;
pub mod variants;

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::data::Data;
use super::event::Job;
use super::theme::Theme;
use super::widgets::Overlay;
use super::widgets::toasts::Level;

/// The tabs, in their number-key order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    /// Every endpoint.
    Endpoints,
    /// The selected endpoint's variants and weights.
    Variants,
    /// The selected MME's models.
    Models,
    /// Live latency charts.
    Latency,
    /// Test-invoke.
    Invoke,
    /// MCP tools: call them by hand.
    Tools,
    /// The audit log: every mutation, newest first.
    Activity,
}

impl Tab {
    /// All tabs in order.
    pub const ALL: [Tab; 7] = [
        Tab::Endpoints,
        Tab::Variants,
        Tab::Models,
        Tab::Latency,
        Tab::Invoke,
        Tab::Tools,
        Tab::Activity,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Endpoints => "Endpoints",
            Tab::Variants => "Variants",
            Tab::Models => "Models",
            Tab::Latency => "Latency",
            Tab::Invoke => "Invoke",
            Tab::Tools => "Tools",
            Tab::Activity => "Activity",
        }
    }

    /// The `:` command that opens it.
    pub fn command(self) -> &'static str {
        match self {
            Tab::Endpoints => "endpoints",
            Tab::Variants => "variants",
            Tab::Models => "models",
            Tab::Latency => "latency",
            Tab::Invoke => "invoke",
            Tab::Tools => "tools",
            Tab::Activity => "activity",
        }
    }

    /// Position (0-based).
    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }
}

/// What a pane asks of the app while handling a key.
#[derive(Default)]
pub struct Outbox {
    /// Background jobs to start.
    pub jobs: Vec<Job>,
    /// Toasts to show.
    pub toasts: Vec<(Level, String)>,
    /// An overlay to open.
    pub overlay: Option<Overlay>,
    /// A tab to switch to.
    pub switch_to: Option<Tab>,
}

impl Outbox {
    /// Queues a job.
    pub fn job(&mut self, job: Job) {
        self.jobs.push(job);
    }

    /// Queues a toast.
    pub fn toast(&mut self, level: Level, text: impl Into<String>) {
        self.toasts.push((level, text.into()));
    }

    /// A refusal because the console is read-only.
    pub fn refuse_read_only(&mut self, what: &str) {
        self.toast(
            Level::Warn,
            format!("read-only: {what} is disabled (start without --read-only, or `:readonly` to toggle)"),
        );
    }
}

/// A key and what it does, for the footer and the help overlay.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyHint {
    /// The key as shown.
    pub key: &'static str,
    /// What it does.
    pub action: &'static str,
    /// Whether it is disabled now (read-only, nothing selected ...).
    pub disabled: bool,
}

impl KeyHint {
    /// An enabled hint.
    pub const fn new(key: &'static str, action: &'static str) -> KeyHint {
        KeyHint {
            key,
            action,
            disabled: false,
        }
    }

    /// A hint disabled when `off`.
    pub const fn when(key: &'static str, action: &'static str, off: bool) -> KeyHint {
        KeyHint {
            key,
            action,
            disabled: off,
        }
    }
}

/// Whether `key` is Ctrl-`c`.
pub fn ctrl(key: &KeyEvent, c: char) -> bool {
    key.modifiers.contains(crossterm::event::KeyModifiers::CONTROL) && key.code == crossterm::event::KeyCode::Char(c)
}

/// The interface every pane implements.
pub trait Pane {
    /// Answers a key; returns false when the key is not the pane's (the app handles it).
    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool;
    /// Draws the pane.
    fn render(&mut self, frame: &mut Frame, area: Rect, data: &Data, theme: &Theme);
    /// The pane's keys, for the footer and help.
    fn keys(&self, data: &Data) -> Vec<KeyHint>;
    /// Whether the pane is capturing text (so global single-letter keys go to it).
    fn capturing_text(&self) -> bool {
        false
    }
    /// Called when the pane becomes visible.
    fn on_show(&mut self, _data: &mut Data, _out: &mut Outbox) {}
}
