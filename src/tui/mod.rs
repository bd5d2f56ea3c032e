//! The full-screen console: ratatui + crossterm + tokio. Background tasks call the fleet layer and
//! send typed events; the UI task only applies events to state and draws when something changed
//! (or once a second for the header's ages). The terminal is restored on every exit path: normal
//! quit, error, panic (ratatui's hook), Ctrl-C and SIGTERM.

pub mod app;
pub mod config;
pub mod data;
pub mod described;
pub mod event;
pub mod filter;
pub mod panes;
pub mod refresh;
pub mod regions;
pub mod render;
pub mod theme;
pub mod widgets;
pub mod worker;

use std::time::Duration;

use crossterm::event::{Event, EventStream, KeyEventKind, MouseEventKind};
use futures_util::StreamExt;
use tokio::sync::mpsc::unbounded_channel;

use crate::aws::{AwsOptions, Fleet};
use app::{App, Effect, Intervals};
use data::{ContextInfo, Data};
use theme::Theme;

/// How the console starts.
#[derive(Debug, Clone, Default)]
pub struct ConsoleOptions {
    /// Where AWS is.
    pub aws: AwsOptions,
    /// Header label of the endpoint (`aws`, `sandbox`, or the URL).
    pub endpoint_label: String,
    /// Refuse mutations.
    pub read_only: bool,
    /// How long a promotion step waits after its bake before reading its gate (None: 120 s
    /// against AWS, whose CloudWatch publishes a minute or two late; none on the sandbox).
    pub metrics_delay: Option<Duration>,
    /// Theme name.
    pub theme: Option<String>,
    /// User themes directory.
    pub theme_dir: Option<std::path::PathBuf>,
    /// Refresh intervals.
    pub inventory_interval: Option<Duration>,
    /// The refresh's control-plane budget, sweep and metrics budget (`[refresh]`, flags).
    pub refresh: worker::RefreshSettings,
    /// Metrics refresh interval.
    pub metrics_interval: Option<Duration>,
    /// Capture the mouse (click tabs and rows, scroll).
    pub mouse: bool,
    /// Key remapping from the config file.
    pub keys: std::collections::BTreeMap<String, String>,
    /// Thresholds of the figures' colours (`[thresholds]` in the config file).
    pub thresholds: config::Thresholds,
    /// Problems found in the config file, shown at start.
    pub config_problems: Vec<String>,
    /// The config file could not be read: read-only for the session, with a lasting badge.
    pub config_error: Option<String>,
    /// MCP servers of the Tools tab (connected in the background at start).
    pub mcp: crate::mcp::Registry,
    /// Where the Tools tab remembers arguments (None: the XDG state directory's tool_args.json).
    pub tool_args_path: Option<std::path::PathBuf>,
    /// The audit log of mutations (None: the XDG state directory's audit.jsonl).
    pub audit_file: Option<std::path::PathBuf>,
    /// The warm set the Models pane marks (None: the XDG config directory's warmset.toml).
    pub warmset_file: Option<std::path::PathBuf>,
    /// The session's audit reason at start (`--reason`; `:reason` changes it).
    pub reason: Option<String>,
    /// The Agent pane's defaults (`[agent]` of config.toml, per profile).
    pub agent: config::AgentDefaults,
    /// Where the Agent pane saves and finds transcripts (None: the XDG state directory's agent/).
    pub agent_runs_dir: Option<std::path::PathBuf>,
    /// The variant log of the console's invocations and tool calls (None: not kept).
    pub invocation_log: Option<std::path::PathBuf>,
    /// The team's audit trail (`--audit-log-group`, `audit_log_group`): a CloudWatch Logs group.
    pub audit_log_group: Option<String>,
    /// Keep each input in the variant log, not only its hash.
    pub log_inputs: bool,
    /// Profile × region pairs of a multi-region view (`--regions`, `--profiles`, `--fleet`;
    /// empty: the one profile and region of `aws`).
    pub targets: Vec<crate::aws::endpoints::multi::FleetTarget>,
    /// Profiles whose configuration asks for read-only, in a multi-region view.
    pub read_only_profiles: Vec<String>,
    /// How servers' sampling requests are answered (`[mcp]`: the LLM, its shape, approval).
    pub sampling: config::McpDefaults,
    /// The Invoke pane's defaults (`[invoke]` of `config.toml`).
    pub invoke: config::InvokeDefaults,
}

impl ConsoleOptions {
    /// The worker's guardrail files: the audit log and the plan directory.
    pub fn guard(&self) -> worker::GuardOptions {
        let mut g = worker::GuardOptions::default();
        if self.audit_file.is_some() {
            g.audit_path = self.audit_file.clone();
        }
        g.invocation_log = self.invocation_log.clone();
        g.audit_log_group = self.audit_log_group.clone();
        g.log_inputs = self.log_inputs;
        // Real CloudWatch publishes a minute or two late: read a step's gate after that (the
        // sandbox publishes at once), unless told otherwise.
        g.runner.metrics_delay = match self.metrics_delay {
            Some(d) => d,
            None if self.endpoint_label.starts_with("sandbox") => Duration::ZERO,
            None => Duration::from_secs(120),
        };
        g
    }
}

/// Loads the warm set and the unfinished promotion plans into a starting console.
pub fn load_guardrails(app: &mut App, opts: &ConsoleOptions) {
    let path = opts
        .warmset_file
        .clone()
        .or_else(crate::aws::endpoints::warmset::default_warmset_path);
    if let Some(p) = path.filter(|p| p.exists()) {
        match crate::aws::endpoints::warmset::WarmSet::load(&p) {
            Ok(w) => app.data.warm_set = w,
            Err(e) => app.toasts.push(widgets::toasts::Level::Error, e),
        }
    }
    app.panes.activity.path = opts.guard().audit_path;
    if let Some(dir) = opts.guard().plan_dir {
        let plans = crate::aws::promote::plan::unfinished_plans(&dir);
        if !plans.is_empty() {
            app.on_event(event::AppEvent::UnfinishedPlans(plans));
        }
    }
}

/// Builds the initial state (themes resolved, context filled).
pub fn initial_app(opts: &ConsoleOptions, fleet: Option<&Fleet>) -> (App, Option<String>) {
    let mut warning = None;
    let theme = match opts.theme.as_deref() {
        Some(name) => match Theme::load(name, opts.theme_dir.as_deref()) {
            Ok(t) => t,
            Err(e) => {
                warning = Some(format!("{e}; using the default theme"));
                Theme::default_theme()
            }
        },
        None => Theme::default_theme(),
    };
    let intervals = Intervals {
        inventory: opts
            .inventory_interval
            .unwrap_or(Duration::from_secs(10))
            .max(Duration::from_secs(2)),
        metrics: opts
            .metrics_interval
            .unwrap_or(Duration::from_secs(15))
            .max(Duration::from_secs(2)),
        metrics_calls_per_minute: opts.refresh.metrics_calls_per_minute,
    };
    let data = Data {
        context: ContextInfo {
            profile: fleet
                .map(|f| f.profile.clone())
                .or(opts.aws.profile.clone())
                .unwrap_or_else(|| std::env::var("AWS_PROFILE").unwrap_or_else(|_| "default".into())),
            region: fleet
                .map(|f| f.region.clone())
                .or(opts.aws.region.clone())
                .or_else(|| std::env::var("AWS_REGION").ok())
                .unwrap_or_else(|| "-".into()),
            endpoint: opts.endpoint_label.clone(),
        },
        read_only: opts.read_only || opts.config_error.is_some(),
        read_only_locked: opts.read_only || opts.config_error.is_some(),
        config_error: opts.config_error.clone(),
        reason: opts.reason.clone(),
        team_trail: opts.audit_log_group.clone(),
        refresh_interval: intervals.inventory,
        thresholds: opts.thresholds,
        read_only_profiles: opts.read_only_profiles.clone(),
        ..Default::default()
    };
    let mut app = App::new(data, theme);
    let (keymap, key_problems) = config::Keymap::from_config(&opts.keys);
    app.keymap = keymap;
    for p in opts
        .config_error
        .iter()
        .chain(&opts.config_problems)
        .chain(&key_problems)
    {
        app.toasts.push(widgets::toasts::Level::Error, p.clone());
    }
    app.intervals = intervals;
    app.theme_dir = opts.theme_dir.clone();
    app.theme_names = Theme::available(opts.theme_dir.as_deref());
    app.panes.tools.set_args_path(
        opts.tool_args_path
            .clone()
            .or_else(panes::tools::ArgsStore::default_path),
    );
    app.panes
        .invoke
        .set_input_prefix_default(opts.invoke.async_input_prefix.clone());
    app.panes.agent.configure(
        opts.agent.clone(),
        opts.agent_runs_dir
            .clone()
            .or_else(|| crate::local::dirs::state_dir().map(|d| d.join("agent"))),
    );
    (app, warning)
}

/// Shows the hub's servers on the Tools tab and queues their connection (in the background;
/// they show "connecting" meanwhile). The worker must have been given the same hub.
pub fn attach_mcp(app: &mut App, hub: &crate::mcp::McpHub) {
    let servers = hub.servers();
    if !servers.is_empty() {
        app.panes.tools.set_servers(servers);
        app.submit(event::McpJob::Connect { server: None });
    }
}

/// Restores the terminal when dropped (scope guard for every exit path).
struct TerminalGuard {
    mouse: bool,
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        if self.mouse {
            let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture);
        }
        ratatui::restore();
    }
}

/// Copies text to the clipboard through the terminal (OSC 52; works over ssh).
fn osc52(text: &str) {
    let copy = crossterm::clipboard::CopyToClipboard::to_clipboard_from(text);
    let _ = crossterm::execute!(std::io::stdout(), copy);
}

/// The signals that end the console (the terminal is restored first): SIGHUP, SIGINT, SIGQUIT
/// and SIGTERM, each ending the process with 128 + its number, as shells expect.
#[cfg(unix)]
struct Signals(Vec<(i32, tokio::signal::unix::Signal)>);

#[cfg(unix)]
impl Signals {
    fn watch() -> Result<Signals, String> {
        use tokio::signal::unix::{SignalKind, signal};
        let kinds = [
            (libc::SIGHUP, SignalKind::hangup()),
            (libc::SIGINT, SignalKind::interrupt()),
            (libc::SIGQUIT, SignalKind::quit()),
            (libc::SIGTERM, SignalKind::terminate()),
        ];
        kinds
            .into_iter()
            .map(|(n, k)| {
                signal(k)
                    .map(|s| (n, s))
                    .map_err(|e| format!("cannot watch signal {n}: {e}"))
            })
            .collect::<Result<_, _>>()
            .map(Signals)
    }

    /// The next signal's number.
    async fn next(&mut self) -> i32 {
        let waits = self.0.iter_mut().map(|(n, s)| {
            let n = *n;
            Box::pin(async move {
                s.recv().await;
                n
            })
        });
        futures_util::future::select_all(waits).await.0
    }
}

/// After `:region` / `:profile`: a new worker on the new profile and region (the demo keeps its
/// prebuilt fleet, which only knows the sandbox), the old pair's data forgotten, a refresh asked.
/// A multi-region view is left for that one pair.
fn reconnect(
    app: &mut App,
    aws: &AwsOptions,
    fleet: Option<&Fleet>,
    (tx, hub): (
        &tokio::sync::mpsc::UnboundedSender<event::AppEvent>,
        &crate::mcp::McpHub,
    ),
    opts: &ConsoleOptions,
) -> worker::Jobs {
    let limits = worker::JobLimits {
        refresh: opts.refresh,
        ..Default::default()
    };
    let jobs = worker::spawn_guarded(
        aws.clone(),
        fleet.cloned(),
        limits,
        tx.clone(),
        Some(hub.clone()),
        opts.guard(),
    );
    app.data.inventory.clear();
    app.data.regions.clear();
    app.data.origins.clear();
    app.data.loaded = false;
    app.data.fleet_metrics = None;
    app.data.fleet_summaries = Default::default();
    app.data.throttled_interval = None;
    app.data.detail_metrics = None;
    app.data.selected = None;
    app.submit(event::FleetJob::Inventory { selected: None });
    jobs
}

/// Runs the console until the user quits (exit code 0) or a signal ends it (128 + its number;
/// a running promotion plan stays saved as it was, to resume). `fleet` is given when the caller
/// already built one (the demo's sandbox); otherwise the worker connects in the background.
pub async fn run(opts: ConsoleOptions, fleet: Option<Fleet>) -> Result<i32, String> {
    let (mut app, warning) = initial_app(&opts, fleet.as_ref());
    if let Some(w) = warning {
        app.toasts.push(widgets::toasts::Level::Error, w);
    }
    let mut terminal = ratatui::try_init().map_err(|e| format!("cannot start the terminal UI: {e}"))?;
    let _guard = TerminalGuard { mouse: opts.mouse };
    if opts.mouse {
        let _ = crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture);
    }
    let (tx, mut rx) = unbounded_channel();
    let sampling = worker::sampling::console_sampler(
        &opts.sampling,
        &opts.aws,
        fleet.as_ref(),
        (opts.audit_file.as_deref(), opts.audit_log_group.as_deref()),
        (tx.clone(), opts.reason.clone()),
    );
    let sampling = sampling.unwrap_or_else(|e| {
        app.toasts.push(widgets::toasts::Level::Error, e);
        None
    });
    let connect = crate::mcp::ConnectOptions {
        elicitor: Some(worker::elicitor(tx.clone())),
        sampling,
        ..Default::default()
    };
    let hub = crate::mcp::McpHub::new(&opts.mcp, connect);
    load_guardrails(&mut app, &opts);
    let limits = worker::JobLimits {
        refresh: opts.refresh,
        ..Default::default()
    };
    let jobs = worker::spawn_regions(
        opts.aws.clone(),
        fleet.clone(),
        limits,
        tx.clone(),
        Some(hub.clone()),
        opts.guard(),
        opts.targets.clone(),
    );
    attach_mcp(&mut app, &hub);
    let mut link = WorkerLink {
        jobs,
        aws: opts.aws.clone(),
        fleet: fleet.as_ref(),
        tx: &tx,
        hub: &hub,
        opts: &opts,
    };
    let exit_code = event_loop(&mut app, &mut terminal, &mut link, &mut rx).await?;
    drop(_guard);
    // Stdio servers are told to exit, then reaped (killed after a grace period).
    hub.shutdown().await;
    Ok(exit_code)
}

/// Draws when something changed and answers the terminal, the worker's events, the clock and
/// the signals until the user quits (0) or a signal ends the console (128 + its number).
async fn event_loop(
    app: &mut App,
    terminal: &mut ratatui::DefaultTerminal,
    link: &mut WorkerLink<'_>,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<event::AppEvent>,
) -> Result<i32, String> {
    let mut input = EventStream::new();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    #[cfg(unix)]
    let mut signals = Signals::watch()?;
    app.schedule_refreshes();
    loop {
        link.dispatch(app);
        if app.quit {
            return Ok(0);
        }
        if app.dirty {
            terminal
                .draw(|f| render::draw(f, app))
                .map_err(|e| format!("drawing failed: {e}"))?;
            app.dirty = false;
        }
        #[cfg(unix)]
        let term = signals.next();
        #[cfg(not(unix))]
        let term = std::future::pending::<i32>();
        tokio::select! {
            ev = input.next() => match ev {
                Some(Ok(Event::Key(k))) if k.kind == KeyEventKind::Press || k.kind == KeyEventKind::Repeat => app.on_key(k),
                Some(Ok(Event::Resize(_, _))) => app.dirty = true,
                Some(Ok(Event::Mouse(m))) => on_mouse(app, m),
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(format!("reading the terminal failed: {e}")),
                None => return Ok(0),
            },
            Some(ev) = rx.recv() => {
                app.on_event(ev);
                // Apply everything already queued before drawing once.
                while let Ok(ev) = rx.try_recv() {
                    app.on_event(ev);
                }
            }
            _ = tick.tick() => app.on_tick(),
            signal = term => return Ok(128 + signal),
        }
    }
}

/// The console's side of the worker: where jobs go, and what a reconnect after `:region` /
/// `:profile` needs to start a new worker.
struct WorkerLink<'a> {
    jobs: worker::Jobs,
    aws: AwsOptions,
    fleet: Option<&'a Fleet>,
    tx: &'a tokio::sync::mpsc::UnboundedSender<event::AppEvent>,
    hub: &'a crate::mcp::McpHub,
    opts: &'a ConsoleOptions,
}

impl WorkerLink<'_> {
    /// Sends the app's queued jobs to the worker and carries out its effects: a copy to the
    /// clipboard, a reconnect (whose refresh is sent too).
    fn dispatch(&mut self, app: &mut App) {
        self.submit_jobs(app);
        for effect in app.take_effects() {
            match effect {
                Effect::Copy(text) => osc52(&text),
                Effect::Reconnect { profile, region } => {
                    if profile.is_some() {
                        self.aws.profile = profile;
                    }
                    if region.is_some() {
                        self.aws.region = region;
                    }
                    self.jobs = reconnect(app, &self.aws, self.fleet, (self.tx, self.hub), self.opts);
                }
            }
        }
        self.submit_jobs(app);
    }

    fn submit_jobs(&self, app: &mut App) {
        for (id, job) in app.take_jobs() {
            self.jobs.submit_to(id, job, app.take_target(id));
        }
    }
}

/// Mouse: click a tab, scroll the list.
fn on_mouse(app: &mut App, m: crossterm::event::MouseEvent) {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    match m.kind {
        MouseEventKind::Down(_) if m.row == 1 => {
            // Tab titles are "N Title" separated by a divider.
            let mut x = 0u16;
            for (i, t) in panes::Tab::ALL.iter().enumerate() {
                let w = format!(" {} {} ", i + 1, t.title()).len() as u16 + 1;
                if m.column >= x && m.column < x + w {
                    app.switch(*t);
                    app.dirty = true;
                    return;
                }
                x += w;
            }
        }
        // The wheel is ↑/↓ for whatever has the keys (every scroller answers them).
        kind => match widgets::scroll::Move::of_mouse(kind) {
            Some(widgets::scroll::Move::Up) => app.on_key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE)),
            Some(_) => app.on_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)),
            None => {}
        },
    }
}
