//! The console: `sagedeck` against AWS, `sagedeck demo` on the embedded sandbox.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::sandbox_cmd::SandboxArgs;
use super::{EXIT_AWS, EXIT_OK, EXIT_USAGE, GlobalArgs};
use crate::aws::Fleet;
use crate::sandbox::start;
use crate::tui::config::ConfigFile;
use crate::tui::{ConsoleOptions, run};

/// Options of the console.
#[derive(Debug, Args, Clone, Default)]
pub struct ConsoleArgs {
    /// Refuse every mutation (weights, promotion, prewarm, invoke, tool calls) in the console and the CLI.
    #[arg(long, global = true)]
    pub read_only: bool,
    /// Theme name (built-in: dark, light, ansi, mono, colorblind, prod-red; or a file in the
    /// config directory's themes/).
    #[arg(long, global = true, env = "SAGEDECK_THEME")]
    pub theme: Option<String>,
    /// Inventory refresh interval in seconds (default 10, at least 2).
    #[arg(long, global = true)]
    pub refresh: Option<u64>,
    /// Metrics refresh interval in seconds (default 15).
    #[arg(long, global = true)]
    pub metrics_refresh: Option<u64>,
    /// Capture the mouse: click tabs, scroll lists.
    #[arg(long, global = true)]
    pub mouse: bool,
    /// Write logs here (default: the XDG state directory's sagedeck.log).
    #[arg(long, global = true)]
    pub log_file: Option<PathBuf>,
    /// MCP servers of the Tools tab, in the mcpServers JSON format (default:
    /// ~/.config/sagedeck/mcp.json when it exists).
    #[arg(long, value_name = "FILE")]
    pub mcp_config: Option<PathBuf>,
}

/// The config directory (`~/.config/sagedeck` on Linux, XDG).
pub fn config_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "sagedeck").map(|d| d.config_dir().to_path_buf())
}

/// The state directory (`~/.local/state/sagedeck` on Linux, XDG).
pub fn state_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "sagedeck").and_then(|d| {
        d.state_dir()
            .map(|p| p.to_path_buf())
            .or_else(|| Some(d.data_local_dir().to_path_buf()))
    })
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

fn options(g: &GlobalArgs, c: &ConsoleArgs, label: String, profile: &str) -> ConsoleOptions {
    let mut problems = Vec::new();
    let file = match config_dir().map(|d| d.join("config.toml")) {
        Some(path) => ConfigFile::load(&path).unwrap_or_else(|e| {
            problems.push(e);
            ConfigFile::default()
        }),
        None => ConfigFile::default(),
    };
    let s = file.for_profile(profile);
    ConsoleOptions {
        aws: g.aws_options(),
        endpoint_label: label,
        read_only: c.read_only || s.read_only.unwrap_or(false),
        theme: c.theme.clone().or(s.theme),
        theme_dir: config_dir().map(|d| d.join("themes")),
        inventory_interval: c.refresh.or(s.refresh_seconds).map(Duration::from_secs),
        metrics_interval: c.metrics_refresh.or(s.metrics_refresh_seconds).map(Duration::from_secs),
        mouse: c.mouse || s.mouse.unwrap_or(false),
        keys: file.keys,
        mcp: match crate::mcp::Registry::load_default(c.mcp_config.as_deref()) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("MCP servers: {e}"));
                crate::mcp::Registry::default()
            }
        },
        config_problems: problems,
        tool_args_path: None,
        audit_file: g.audit_path(),
        warmset_file: None,
        reason: g.reason.clone(),
    }
}

fn finish(r: Result<(), String>) -> i32 {
    match r {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("sagedeck: {e}");
            EXIT_AWS
        }
    }
}

/// `sagedeck` with no subcommand: the console against AWS.
pub async fn run_console(g: &GlobalArgs, c: &ConsoleArgs) -> i32 {
    init_logging(c.log_file.clone());
    let label = g
        .endpoint_url
        .clone()
        .or_else(|| std::env::var("AWS_ENDPOINT_URL").ok())
        .unwrap_or_else(|| "aws".into());
    finish(run(options(g, c, label, &g.profile_name()), None).await)
}

/// The fleet layer on an embedded sandbox at `url` (static demo credentials, us-east-1).
pub async fn sandbox_fleet(url: &str) -> Fleet {
    let conf = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(aws_credential_types::Credentials::new(
            "sandbox",
            "sandbox",
            None,
            None,
            "sagedeck-demo",
        ))
        .endpoint_url(url)
        .timeout_config(
            aws_config::timeout::TimeoutConfig::builder()
                .connect_timeout(Duration::from_secs(3))
                .build(),
        )
        .load()
        .await;
    Fleet::from_sdk_config(&conf, "sandbox".into(), Some(url.to_string()))
}

/// `sagedeck demo`: the embedded sandbox in-process, and the console on it.
pub async fn run_demo(g: &GlobalArgs, c: &ConsoleArgs, s: SandboxArgs) -> i32 {
    init_logging(c.log_file.clone());
    let config = match s.config(0) {
        Ok(c) => c,
        Err(e) => return super::usage(e),
    };
    let handle = match start(config).await {
        Ok(h) => h,
        Err(e) => {
            eprintln!("sagedeck: cannot start the sandbox: {e}");
            return EXIT_USAGE;
        }
    };
    let url = handle.endpoint_url();
    let fleet = sandbox_fleet(&url).await;
    let mut opts = options(g, c, format!("sandbox {url}"), "sandbox");
    // The demo's own MCP server: `sagedeck mcp serve --demo-tools` over this sandbox.
    match std::env::current_exe() {
        Ok(exe) => opts.mcp.servers.insert(0, crate::mcp::registry::demo_entry(&exe, &url)),
        Err(e) => opts
            .config_problems
            .push(format!("the demo MCP server is not registered: {e}")),
    }
    let r = run(opts, Some(fleet)).await;
    handle.shutdown().await;
    finish(r)
}
