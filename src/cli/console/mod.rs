//! The console: `sagedeck` against AWS, `sagedeck demo` on the embedded sandbox; and
//! `sagedeck sandbox` and `sagedeck fault` (`sandbox.rs`).

pub mod sandbox;

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::aws::Fleet;
use crate::cli::args::{DemoGuardArgs, GlobalArgs};
use crate::cli::exit::{CmdResult, EXIT_AWS, EXIT_USAGE, Exit};
use crate::cli::fleet::inventory::{self, EndpointsArgs};
use crate::local::dirs::{config_dir, state_dir};
use crate::mcp::oauth::demo::DemoOAuthServer;
use crate::mcp::oauth::demo::grants::ACCESS_TTL;
use crate::sandbox::start;
use crate::tui::config::ConfigFile;
use crate::tui::worker::RefreshSettings;
use crate::tui::{ConsoleOptions, run};
use sandbox::SandboxArgs;

/// Options of the console (`sagedeck` and `sagedeck demo`; no other command shows them).
#[derive(Debug, Args, Clone, Default)]
pub struct ConsoleArgs {
    /// Theme name (built-in: dark, light, ansi, mono, colorblind, prod-red; or a file in the
    /// config directory's themes/).
    #[arg(long, env = "SAGEDECK_THEME")]
    pub theme: Option<String>,
    /// Inventory refresh interval in seconds (default 10, at least 2).
    #[arg(long)]
    pub refresh: Option<u64>,
    /// Metrics refresh interval in seconds (default 15).
    #[arg(long)]
    pub metrics_refresh: Option<u64>,
    /// Control-plane calls per second per account and region the refresh may make (default 10
    /// against AWS, 100 on the embedded sandbox; config `[refresh]
    /// control_plane_calls_per_second`).
    #[arg(long, value_name = "CALLS_PER_SEC", value_parser = crate::cli::args::positive_rate)]
    pub control_plane_budget: Option<f64>,
    /// Capture the mouse: click tabs, scroll lists.
    #[arg(long)]
    pub mouse: bool,
    /// Seconds a promotion step waits after its bake before reading its gate ("judging"):
    /// CloudWatch publishes a minute or two late (default 120 against AWS, 0 on the sandbox;
    /// config key `metrics_delay_seconds`).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(0..=900))]
    pub metrics_delay: Option<u64>,
    /// Write logs here (default: the XDG state directory's sagedeck.log).
    #[arg(long)]
    pub log_file: Option<PathBuf>,
    /// MCP servers of the Tools tab, in the mcpServers JSON format (default:
    /// ~/.config/sagedeck/mcp.json when it exists).
    #[arg(long, value_name = "FILE")]
    pub mcp_config: Option<PathBuf>,
    /// Append one JSON line per invocation and tool call to FILE (the variant log; config key
    /// `invocation_log`; the demo's default: the state directory's invocations.jsonl); compare
    /// the variants with `sagedeck variants-report FILE`.
    #[arg(long, value_name = "FILE")]
    pub invocation_log: Option<PathBuf>,
    /// Also write each input itself into the variant log (default: only its hash).
    #[arg(long)]
    pub log_inputs: bool,
    /// Show these regions as one merged Endpoints table (ACCOUNT and REGION columns); every
    /// other pane acts on the selected endpoint's own profile and region.
    #[arg(long, value_delimiter = ',')]
    pub regions: Vec<String>,
    /// Show these profiles (accounts) as one merged table, each in `--regions`.
    #[arg(long, value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// A `[fleets.NAME]` set of profiles × regions from config.toml (`sagedeck --fleet NAME`,
    /// parsed by the top-level command: `demo --fleet N` adds generated endpoints).
    #[arg(skip)]
    pub fleet: Option<String>,
}

/// Sends tracing output to a file, never to the screen.
fn init_logging(path: Option<PathBuf>) {
    let path = path.or_else(|| state_dir().map(|d| d.join("sagedeck.log")));
    let Some(path) = path else { return };
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let Ok(file) = std::fs::OpenOptions::new().create(true).append(true).open(&path) else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("SAGEDECK_LOG").unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
}

/// The refresh's pacing: the flag, else `[refresh]`, else the defaults (a higher budget on the
/// embedded sandbox, which has no AWS limits to respect).
fn refresh_settings(
    c: &ConsoleArgs,
    file: Option<crate::tui::config::RefreshConfig>,
    sandbox: bool,
) -> RefreshSettings {
    let file = file.unwrap_or_default();
    let default_rate = if sandbox {
        100.0
    } else {
        crate::aws::budget::DEFAULT_CALLS_PER_SECOND
    };
    let d = RefreshSettings::default();
    RefreshSettings {
        calls_per_second: Some(
            c.control_plane_budget
                .or(file.control_plane_calls_per_second)
                .unwrap_or(default_rate),
        ),
        sweep: file.sweep_seconds.map(Duration::from_secs).unwrap_or(d.sweep),
        full_listing: file
            .full_listing_seconds
            .map(Duration::from_secs)
            .unwrap_or(d.full_listing),
        metrics_calls_per_minute: file.metrics_calls_per_minute.unwrap_or(d.metrics_calls_per_minute),
    }
}

fn options(g: &GlobalArgs, c: &ConsoleArgs, label: String, profile: &str) -> ConsoleOptions {
    let mut problems = Vec::new();
    let mut config_error = None;
    let file = match config_dir().map(|d| d.join("config.toml")) {
        Some(path) => ConfigFile::load(&path).unwrap_or_else(|e| {
            config_error = Some(format!(
                "{e}; read-only for this session (the file may ask for it): fix it and restart"
            ));
            ConfigFile::default()
        }),
        None => ConfigFile::default(),
    };
    let s = file.for_profile(profile);
    let refresh = refresh_settings(c, s.refresh, label.starts_with("sandbox"));
    ConsoleOptions {
        aws: g.aws_options(),
        endpoint_label: label,
        read_only: g.read_only || s.read_only.unwrap_or(false),
        metrics_delay: c.metrics_delay.or(s.metrics_delay_seconds).map(Duration::from_secs),
        theme: c.theme.clone().or(s.theme),
        theme_dir: config_dir().map(|d| d.join("themes")),
        inventory_interval: c.refresh.or(s.refresh_seconds).map(Duration::from_secs),
        metrics_interval: c.metrics_refresh.or(s.metrics_refresh_seconds).map(Duration::from_secs),
        refresh,
        mouse: c.mouse || s.mouse.unwrap_or(false),
        keys: file.keys,
        thresholds: s.thresholds.unwrap_or_default(),
        mcp: match crate::mcp::Registry::load_default(c.mcp_config.as_deref()) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("MCP servers: {e}"));
                crate::mcp::Registry::default()
            }
        },
        config_problems: problems,
        config_error,
        tool_args_path: None,
        audit_file: g.audit_path(),
        warmset_file: None,
        reason: g.reason.clone(),
        agent: s.agent.unwrap_or_default(),
        sampling: s.mcp.unwrap_or_default(),
        invoke: s.invoke.unwrap_or_default(),
        agent_runs_dir: None,
        invocation_log: c.invocation_log.clone().or(s.invocation_log.map(PathBuf::from)),
        log_inputs: c.log_inputs || s.log_inputs.unwrap_or(false),
        audit_log_group: g.audit_log_group.clone().or(s.audit_log_group),
        targets: Vec::new(),
        read_only_profiles: Vec::new(),
    }
}

/// A multi-region view's pairs (`--regions`, `--profiles`, `--fleet`; None when none is
/// given) and the profiles among them whose configuration asks for read-only. The session's
/// own read-only setting then comes from `--read-only` only: each endpoint follows its profile.
fn multi_view(g: &GlobalArgs, c: &ConsoleArgs, opts: &mut ConsoleOptions) -> Result<(), String> {
    if c.regions.is_empty() && c.profiles.is_empty() && c.fleet.is_none() {
        return Ok(());
    }
    let conf = inventory::config();
    let args = EndpointsArgs {
        concurrency: 8,
        name_contains: None,
        kind: None,
        regions: c.regions.clone(),
        profiles: c.profiles.clone(),
        fleet: c.fleet.clone(),
        control_plane_budget: None,
    };
    let (profiles, regions) = inventory::resolve(g, &args, &conf)?;
    let ro = |p: &str| conf.for_profile(p).read_only.unwrap_or(false);
    let mut read_only: Vec<String> = profiles.iter().filter(|p| ro(p)).cloned().collect();
    if profiles.is_empty() && ro(&g.profile_name()) {
        read_only.push("default".into());
    }
    opts.targets = crate::aws::endpoints::multi::targets(&profiles, &regions);
    opts.read_only_profiles = read_only;
    opts.read_only = g.read_only || opts.config_error.is_some();
    Ok(())
}

/// The console's end: its own exit code, or why it could not run (exit 3).
fn finish(r: Result<i32, String>) -> CmdResult {
    match r {
        Ok(0) => Ok(()),
        Ok(code) => Err(Exit::code(code)),
        Err(e) => Err(Exit::new(EXIT_AWS, e)),
    }
}

/// `sagedeck` with no subcommand: the console against AWS.
pub async fn run_console(g: &GlobalArgs, c: &ConsoleArgs) -> CmdResult {
    init_logging(c.log_file.clone());
    let label = g
        .endpoint_url
        .clone()
        .or_else(|| std::env::var("AWS_ENDPOINT_URL").ok())
        .unwrap_or_else(|| "aws".into());
    let mut opts = options(g, c, label, &g.profile_name());
    multi_view(g, c, &mut opts).map_err(Exit::usage)?;
    finish(run(opts, None).await)
}

/// `sagedeck demo`: the sandbox's options and the console's.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// What acts on the demo of the AWS options.
    #[command(flatten)]
    pub guard: DemoGuardArgs,
    /// The embedded sandbox.
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    /// The console.
    #[command(flatten)]
    pub console: ConsoleArgs,
}

impl ConsoleArgs {
    /// These options, each one not given taken from `outer` (`sagedeck --theme x demo`).
    pub fn or(self, outer: &ConsoleArgs) -> ConsoleArgs {
        ConsoleArgs {
            theme: self.theme.or(outer.theme.clone()),
            refresh: self.refresh.or(outer.refresh),
            metrics_refresh: self.metrics_refresh.or(outer.metrics_refresh),
            control_plane_budget: self.control_plane_budget.or(outer.control_plane_budget),
            mouse: self.mouse || outer.mouse,
            metrics_delay: self.metrics_delay.or(outer.metrics_delay),
            log_file: self.log_file.or(outer.log_file.clone()),
            mcp_config: self.mcp_config.or(outer.mcp_config.clone()),
            invocation_log: self.invocation_log.or(outer.invocation_log.clone()),
            log_inputs: self.log_inputs || outer.log_inputs,
            regions: if self.regions.is_empty() {
                outer.regions.clone()
            } else {
                self.regions
            },
            profiles: if self.profiles.is_empty() {
                outer.profiles.clone()
            } else {
                self.profiles
            },
            fleet: self.fleet.or(outer.fleet.clone()),
        }
    }
}

/// CloudWatch alarms on the demo's A/B endpoint, so that its alarm badges (Variants pane,
/// Endpoints table) and the plan's alarm gates have something to show.
fn demo_alarms(handle: &crate::sandbox::SandboxHandle) {
    use crate::sandbox::cloudwatch::alarms::MetricAlarmSpec;
    let ep = "mcp-intent-classifier-prod";
    let mut errors = MetricAlarmSpec::new("mcp-intent-classifier-5xx", "AWS/SageMaker", "Invocation5XXErrors");
    errors.statistic = Some("Sum".into());
    errors.threshold = 50.0;
    let mut latency = MetricAlarmSpec::new("mcp-intent-classifier-p99", "AWS/SageMaker", "ModelLatency");
    latency.extended_statistic = Some("p99".into());
    latency.threshold = 2_000_000.0;
    for mut spec in [errors, latency] {
        spec.dimensions = vec![("EndpointName".into(), ep.into())];
        if let Err(e) = handle
            .sandbox
            .alarms
            .put_metric_alarm(spec, crate::sandbox::now_epoch())
        {
            tracing::warn!("demo alarm not created: {e:?}");
        }
    }
}

/// The demo's second region: five generated endpoints in eu-west-1.
const DEMO_REGION: &str = "eu-west-1=5";
/// How often the demo's teammate, bob, changes `mcp-intent-classifier-prod`'s weights.
const DEMO_TEAMMATE_EVERY: std::time::Duration = std::time::Duration::from_secs(150);
/// The demo's CloudTrail delivery delay: events reach LookupEvents this late (AWS: up to ~5 min).
const DEMO_TRAIL_DELAY: std::time::Duration = std::time::Duration::from_secs(15);

/// The demo's team audit trail (every audit record also goes there; the Activity pane reads it).
const DEMO_AUDIT_GROUP: &str = crate::sandbox::world::teammate::trail::AUDIT_GROUP;

/// `sagedeck demo`: the embedded sandbox in-process, and the console on it.
pub async fn run_demo(g: &GlobalArgs, outer: &ConsoleArgs, args: DemoArgs) -> CmdResult {
    let (c, mut s) = (&args.console.or(outer), args.sandbox);
    init_logging(c.log_file.clone());
    // A newcomer meets the multi-region view here: a second region unless one is named.
    if s.extra_regions.is_empty() && !s.empty {
        s.extra_regions
            .push(crate::sandbox::RegionFleet::parse(DEMO_REGION).expect("a valid region"));
    }
    let mut config = s.config(0).map_err(Exit::usage)?;
    // A second person changes weights now and then, seen in CloudTrail a little late.
    if s.teammate_every.is_none() {
        config.teammate_every = Some(DEMO_TEAMMATE_EVERY);
    }
    if s.trail_delay.is_none() {
        config.trail.delivery_delay = DEMO_TRAIL_DELAY;
    }
    let mut regions = c.regions.clone();
    if regions.is_empty() {
        regions.push(config.region.clone());
        regions.extend(config.extra_regions.iter().map(|r| r.region.clone()));
        regions.dedup();
    }
    let handle = (start(config).await).map_err(|e| Exit::new(EXIT_USAGE, format!("cannot start the sandbox: {e}")))?;
    demo_alarms(&handle);
    let url = handle.endpoint_url();
    let fleet = Fleet::for_url(&url).await;
    let mut opts = options(g, c, format!("sandbox {url}"), "sandbox");
    // The demo keeps a variant log by default: `sagedeck variants-report` reads it.
    if opts.invocation_log.is_none() {
        opts.invocation_log = crate::aws::invoke::log::default_invocation_log_path();
    }
    // The demo shares its audit trail with the team, on the sandbox's CloudWatch Logs.
    if opts.audit_log_group.is_none() {
        opts.audit_log_group = Some(DEMO_AUDIT_GROUP.into());
    }
    if regions.len() > 1 || !c.profiles.is_empty() {
        opts.targets = crate::aws::endpoints::multi::targets(&c.profiles, &regions);
        let conf = inventory::config();
        opts.read_only_profiles = (c.profiles.iter())
            .filter(|p| conf.for_profile(p).read_only.unwrap_or(false))
            .cloned()
            .collect();
    }
    // The demo's own MCP server: `sagedeck mcp serve --demo-tools` over this sandbox.
    match std::env::current_exe() {
        Ok(exe) => opts.mcp.servers.insert(0, crate::mcp::registry::demo_entry(&exe, &url)),
        Err(e) => opts
            .config_problems
            .push(format!("the demo MCP server is not registered: {e}")),
    }
    let oauth_demo = demo_oauth_server(&fleet, &mut opts).await;
    // The Agent pane opens ready to ask: the sandbox's LLM and the demo server (an endpoint of
    // config.toml's `[agent]` would not be in the sandbox; `:agent-llm` changes it), streamed
    // unless the file says otherwise.
    opts.agent.llm = Some("llm-tgi-chat".into());
    opts.agent.servers = vec!["sagedeck-demo".into()];
    opts.agent.stream.get_or_insert(true);
    // Servers' sampling requests (the demo server's `explain_intent`) go to the same LLM, asked
    // about in a dialog first, unless `[mcp]` says otherwise.
    opts.sampling.sampling_llm.get_or_insert("llm-tgi-chat".into());
    // A body too large to send inline to the demo's asynchronous endpoint is uploaded to the
    // sandbox's S3 (a bucket of config.toml's `[invoke]` would not be in the sandbox).
    let bucket = crate::sandbox::world::fleet::ASYNC_BUCKET;
    opts.invoke.async_input_prefix = Some(format!("s3://{bucket}/uploads/"));
    let r = run(opts, Some(fleet)).await;
    if let Some(s) = oauth_demo {
        s.shutdown().await;
    }
    handle.shutdown().await;
    finish(r)
}

/// The demo's OAuth-protected MCP server (`sagedeck-demo-oauth`): the demo tools over streamable
/// HTTP behind the demo's own authorization server, registered after `sagedeck-demo`. Tokens of
/// an earlier demo (another authorization server, gone) are forgotten first, so that the Tools
/// tab says `needs login`.
pub async fn demo_oauth_server(fleet: &Fleet, opts: &mut ConsoleOptions) -> Option<DemoOAuthServer> {
    let tools = crate::mcp::server::ToolServer::new(fleet.clone(), crate::mcp::tools_config::ToolsConfig::demo());
    match DemoOAuthServer::start(tools, ACCESS_TTL).await {
        Ok(s) => {
            let entry = s.entry();
            if let Some(cache) = crate::mcp::oauth::cache_of(&entry) {
                let _ = cache.remove();
            }
            let at = opts.mcp.servers.len().min(1);
            opts.mcp.servers.insert(at, entry);
            Some(s)
        }
        Err(e) => {
            (opts.config_problems).push(format!("the demo's OAuth MCP server is not started: {e}"));
            None
        }
    }
}
