//! The console: its state machine driven by keys and background events through the real `App`
//! (no terminal), insta snapshots of every pane on a `TestBackend`, the background worker against
//! the sandbox over the wire, and the real binary in tmux end to end.

#[path = "../common/mod.rs"]
mod common;

mod app;
mod e2e;
mod gate;
mod guardrails;
mod invoke;
mod models_latency;
mod regions;
mod schema_form_props;
mod tools;
mod variants;
mod worker;
