//! Shared fixtures for the console's tests: drawing an `App` into a test terminal and feeding
//! it keys.
#![allow(dead_code)]

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sagedeck::tui::app::App;
use sagedeck::tui::data::ContextInfo;

/// The screen `app` draws on a `w`×`h` test terminal, as text.
pub fn render(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| sagedeck::tui::render::draw(f, app)).unwrap();
    t.backend().to_string()
}

/// A key without modifiers.
pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Ctrl + a character.
pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// Sends one key without modifiers to `app`.
pub fn tap(app: &mut App, code: KeyCode) {
    app.on_key(key(code));
}

/// Types `keys`, one character at a time.
pub fn press(app: &mut App, keys: &str) {
    for c in keys.chars() {
        tap(app, KeyCode::Char(c));
    }
}

/// The console's context line in the tests: profile demo, us-east-1, the sandbox.
pub fn context() -> ContextInfo {
    ContextInfo {
        profile: "demo".into(),
        region: "us-east-1".into(),
        endpoint: "sandbox".into(),
    }
}

/// Feeds the worker's events to `app` until `pick` takes one (30 s deadline).
pub async fn feed_until<T>(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<sagedeck::tui::event::AppEvent>,
    app: &mut App,
    mut pick: impl FnMut(&sagedeck::tui::event::AppEvent) -> Option<T>,
) -> T {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let ev = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("event in time")
            .expect("worker alive");
        let got = pick(&ev);
        app.on_event(ev);
        if let Some(v) = got {
            return v;
        }
    }
}

/// Hands every job the console queued to the worker.
pub fn submit_all(jobs: &sagedeck::tui::worker::Jobs, app: &mut App) {
    for (id, job) in app.take_jobs() {
        jobs.submit(id, job);
    }
}

/// Drives `app` against the real worker until `done` holds: its jobs to the worker, the
/// worker's events back, and `between` after each wait (ticks, refreshes). Fails after
/// `deadline`, showing the screen.
pub async fn pump_until(
    app: &mut App,
    jobs: &sagedeck::tui::worker::Jobs,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<sagedeck::tui::event::AppEvent>,
    (what, deadline): (&str, std::time::Duration),
    done: impl Fn(&App) -> bool,
    mut between: impl FnMut(&mut App),
) {
    let start = std::time::Instant::now();
    loop {
        submit_all(jobs, app);
        while let Ok(ev) = rx.try_recv() {
            app.on_event(ev);
        }
        if done(app) {
            return;
        }
        assert!(
            start.elapsed() < deadline,
            "timed out waiting for {what}; screen:\n{}",
            render(app, 140, 40)
        );
        let wait = std::time::Duration::from_millis(100);
        if let Ok(Some(ev)) = tokio::time::timeout(wait, rx.recv()).await {
            app.on_event(ev);
        }
        between(app);
    }
}

/// A console on `jobs`' worker with its first inventory in (pumped until it lands), on the
/// Endpoints tab.
pub async fn loaded_app(
    jobs: &sagedeck::tui::worker::Jobs,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<sagedeck::tui::event::AppEvent>,
) -> App {
    use sagedeck::tui::event::{FleetJob, Job};
    let data = sagedeck::tui::data::Data {
        context: context(),
        ..Default::default()
    };
    let mut app = App::new(data, sagedeck::tui::theme::Theme::default_theme());
    app.submit(Job::Fleet(FleetJob::Inventory { selected: None }));
    let deadline = ("the inventory", std::time::Duration::from_secs(120));
    pump_until(&mut app, jobs, rx, deadline, |a| a.data.loaded, |_| {}).await;
    app
}

/// A console with no data yet: the test context, a 10 s refresh interval.
pub fn new_app() -> App {
    let data = sagedeck::tui::data::Data {
        context: context(),
        refresh_interval: std::time::Duration::from_secs(10),
        ..Default::default()
    };
    App::new(data, sagedeck::tui::theme::Theme::default_theme())
}

/// A worker on the sandbox `sb` (default limits), and the channel its events come on.
pub async fn worker_on(
    sb: &sagedeck::sandbox::SandboxHandle,
) -> (
    sagedeck::tui::worker::Jobs,
    tokio::sync::mpsc::UnboundedReceiver<sagedeck::tui::event::AppEvent>,
) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let fleet = Some(super::fleet(sb).await);
    let jobs = sagedeck::tui::worker::spawn(Default::default(), fleet, Default::default(), tx);
    (jobs, rx)
}

/// A guarded worker on the sandbox `sb` (default limits) with `hub`'s MCP servers, writing its
/// audit log to `dir`/audit.jsonl and its plans under `dir`/plans, and the channel its events
/// come on.
pub async fn guarded_worker_on(
    sb: &sagedeck::sandbox::SandboxHandle,
    dir: &std::path::Path,
    hub: Option<sagedeck::mcp::McpHub>,
) -> (
    sagedeck::tui::worker::Jobs,
    tokio::sync::mpsc::UnboundedReceiver<sagedeck::tui::event::AppEvent>,
) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let guard = sagedeck::tui::worker::GuardOptions {
        audit_path: Some(dir.join("audit.jsonl")),
        plan_dir: Some(dir.join("plans")),
        ..Default::default()
    };
    let fleet = Some(super::fleet(sb).await);
    let jobs = sagedeck::tui::worker::spawn_guarded(Default::default(), fleet, Default::default(), tx, hub, guard);
    (jobs, rx)
}
