//! The command line: the console (default), `demo`, `sandbox`, and the headless commands, each
//! with human output by default and `--json` everywhere.

pub mod agent_cmd;
pub mod agent_view;
pub mod alarms_cmd;
pub mod audit_cmd;
pub mod autoscaling_change;
pub mod autoscaling_cmd;
pub mod console_cmd;
pub mod consolidate_cmd;
pub mod endpoints_cmd;
pub mod fleets_cmd;
pub mod invoke_cmd;
pub mod logs_cmd;
pub mod mcp_cmd;
pub mod metrics_cmd;
pub mod models_cmd;
pub mod output;
pub mod promote_cmd;
pub mod promote_view;
pub mod sandbox_cmd;
pub mod serve_cmd;
pub mod timeline_cmd;
pub mod tool_audit;
pub mod variants_report_cmd;
pub mod weights_cmd;

mod aws_args;
mod gate;

pub use aws_args::{CommandArgs, DemoGuardArgs, GlobalArgs, On};
pub use gate::{gate, mutation_of, refuse_read_only};

use clap::{Parser, Subcommand};

use crate::aws::AwsError;

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: usage error or invalid input.
pub const EXIT_USAGE: i32 = 2;
/// Exit code: AWS or API error.
pub const EXIT_AWS: i32 = 3;
/// Exit code: the model container answered non-2xx.
pub const EXIT_MODEL: i32 = 4;
/// Exit code: refused because read-only is on (`--read-only` or the profile's `read_only`).
pub const EXIT_READ_ONLY: i32 = 5;
/// Exit code: a guardrail refused the mutation (the endpoint changed since it was read, or the
/// audit log cannot be written); nothing was sent.
pub const EXIT_REFUSED: i32 = 6;
/// Exit code: a promotion did not complete (a gate failed and it rolled back, no verdict, or held).
pub const EXIT_PROMOTION: i32 = 7;
/// Exit code: `autoscaling --check` / `--check-request` found something wrong.
pub const EXIT_CHECK_FAILED: i32 = 8;

/// Exit code: an agent run stopped without a final answer (max steps, token budget, deadline,
/// retries, denied, LLM error, cancelled).
pub const EXIT_NO_ANSWER: i32 = 9;

const EXIT_CODES: &str = "Exit codes: 0 ok, 2 usage or invalid input, 3 AWS/API error, 4 model error (the container answered non-2xx), 5 refused: read-only, 6 refused by a guardrail (endpoint not InService or changed since read, audit log unwritable: nothing sent; or a lost race with a concurrent change), 7 promotion not completed (rolled back, no verdict or held), 8 autoscaling --check/--check-request found problems, 9 agent stopped without a final answer.";

/// sagedeck: an operations console for SageMaker real-time endpoints behind MCP tools.
#[derive(Debug, Parser)]
#[command(name = "sagedeck", version, about, long_about = None, after_help = EXIT_CODES)]
pub struct Cli {
    /// Where to reach AWS, and how to print.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Console options.
    #[command(flatten)]
    pub console: console_cmd::ConsoleArgs,
    /// The console on a `[fleets.NAME]` set of profiles × regions from config.toml.
    #[arg(long = "fleet", value_name = "NAME")]
    pub fleet_set: Option<String>,
    /// What to run (nothing: the console against AWS).
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The AWS options the command runs with: those given before the subcommand, overridden
    /// by those given after it.
    pub fn options(&self) -> GlobalArgs {
        let outer = self.global.clone();
        match &self.command {
            Some(Command::Demo(d)) => outer.with_demo(&d.guard),
            Some(c) => match c.aws() {
                Some(inner) => outer.with(inner),
                None => outer,
            },
            None => outer,
        }
    }
}

/// SIGINT (Ctrl-C) as a channel, registered now: a signal arriving at any later moment is
/// delivered (listening with `tokio::signal::ctrl_c()` in a loop loses the ones that arrive
/// between two listeners, and after the first one the process no longer dies of it).
pub fn interrupts() -> tokio::sync::mpsc::UnboundedReceiver<()> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut s) = signal(SignalKind::interrupt()) {
            tokio::spawn(async move {
                while s.recv().await.is_some() {
                    if tx.send(()).is_err() {
                        break;
                    }
                }
            });
        }
    }
    #[cfg(not(unix))]
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            if tx.send(()).is_err() {
                break;
            }
        }
    });
    rx
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The console on the embedded sandbox: demo fleet, live traffic, faults — all offline.
    Demo(console_cmd::DemoArgs),
    /// Run the local SageMaker-compatible emulator (SageMaker, Runtime, CloudWatch,
    /// Application Auto Scaling, S3 listing) on loopback.
    Sandbox(sandbox_cmd::SandboxArgs),
    /// Inject, list or clear faults in a running sandbox.
    Fault(sandbox_cmd::FaultArgs),
    /// List every endpoint with its variants, instances, autoscaling and status.
    Endpoints(On<endpoints_cmd::EndpointsArgs>),
    /// Describe one endpoint: endpoint, config, models, autoscaling policies and activities.
    Describe(On<endpoints_cmd::DescribeArgs>),
    /// Show an endpoint's variant weights, or change them (`--set VARIANT=WEIGHT`).
    Weights(On<weights_cmd::WeightsArgs>),
    /// Invoke an endpoint once, or `--repeat N` times with percentiles.
    Invoke(On<invoke_cmd::InvokeArgs>),
    /// List a multi-model endpoint's model catalog (its S3 prefix).
    Models(On<models_cmd::ModelsArgs>),
    /// Prewarm multi-model endpoint models with one warm-up invocation each.
    Prewarm(On<models_cmd::PrewarmArgs>),
    /// Latency, invocations and errors of an endpoint's variants from CloudWatch.
    Metrics(On<metrics_cmd::MetricsArgs>),
    /// Container logs of an endpoint from CloudWatch Logs (`--follow`, `--filter PATTERN`).
    Logs(On<logs_cmd::LogsArgs>),
    /// What changed on an endpoint, merged by time: status and deployments, audited changes,
    /// scaling activities (`--since 6h`).
    Timeline(On<timeline_cmd::TimelineArgs>),
    /// Promote a canary step by step, gated on CloudWatch (p99 ratio, 5XX/4XX rates), with
    /// rollback, persisted state, `--status`, `--resume`, `--rollback`.
    Promote(On<promote_cmd::PromoteArgs>),
    /// The audit log of mutations (`--since 1h`, `--json`).
    Audit(On<audit_cmd::AuditArgs>),
    /// The CloudWatch alarms that watch an endpoint (by its EndpointName dimension, and
    /// composite alarms over them), with their states.
    Alarms(On<alarms_cmd::AlarmsArgs>),
    /// Scalable targets, policies and recent scaling activities of an endpoint; `--check` lints
    /// them, `--check-request FILE.json` lints a PutScalingPolicy request before it is sent.
    Autoscaling(On<autoscaling_cmd::AutoscalingArgs>),
    /// List and call the tools of MCP servers (mcpServers registry).
    Tools(On<mcp_cmd::ToolsArgs>),
    /// Serve SageMaker endpoints as MCP tools (`mcp serve`).
    Mcp(On<serve_cmd::McpArgs>),
    /// An LLM on a SageMaker endpoint answering a question with the tools of MCP servers.
    Agent(On<agent_cmd::AgentArgs>),
    /// Compare an endpoint's variants over an invocation log (`--invocation-log`): calls, error
    /// rate, latency percentiles and the judge's test of each variant against the baseline.
    VariantsReport(On<variants_report_cmd::VariantsReportArgs>),
}

impl Command {
    /// The AWS options given after the subcommand's name, for the commands that take them.
    pub fn aws(&self) -> Option<&CommandArgs> {
        match self {
            Command::Endpoints(c) => Some(&c.aws),
            Command::Describe(c) => Some(&c.aws),
            Command::Weights(c) => Some(&c.aws),
            Command::Invoke(c) => Some(&c.aws),
            Command::Models(c) => Some(&c.aws),
            Command::Prewarm(c) => Some(&c.aws),
            Command::Metrics(c) => Some(&c.aws),
            Command::Logs(c) => Some(&c.aws),
            Command::Timeline(c) => Some(&c.aws),
            Command::Promote(c) => Some(&c.aws),
            Command::Audit(c) => Some(&c.aws),
            Command::Alarms(c) => Some(&c.aws),
            Command::Autoscaling(c) => Some(&c.aws),
            Command::Tools(c) => Some(&c.aws),
            Command::Mcp(c) => Some(&c.aws),
            Command::Agent(c) => Some(&c.aws),
            Command::VariantsReport(c) => Some(&c.aws),
            Command::Demo(_) | Command::Sandbox(_) | Command::Fault(_) => None,
        }
    }
}

/// Prints a classified error on one line and returns its exit code.
pub fn report(e: &AwsError) -> i32 {
    output::say_err(format!("sagedeck: {e}"));
    exit_code(e)
}

/// The exit code of a classified error.
pub fn exit_code(e: &AwsError) -> i32 {
    match e {
        AwsError::ModelError { .. } => EXIT_MODEL,
        AwsError::Config(_) => EXIT_USAGE,
        _ => EXIT_AWS,
    }
}

/// Prints a usage problem and returns exit code 2.
pub fn usage(message: impl std::fmt::Display) -> i32 {
    output::say_err(format!("sagedeck: {message}"));
    EXIT_USAGE
}

/// Runs the parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sagedeck: cannot start the async runtime: {e}");
            return EXIT_AWS;
        }
    };
    let g = cli.options();
    let console = console_cmd::ConsoleArgs {
        fleet: cli.fleet_set.clone(),
        ..cli.console
    };
    // The console and the demo read the config themselves (an unreadable file makes them
    // read-only with a lasting error).
    if !matches!(cli.command, None | Some(Command::Demo(_)))
        && let Err(code) = gate(cli.command.as_ref(), g.read_only, &g)
    {
        return code;
    }
    runtime.block_on(async move {
        match cli.command {
            Some(Command::Demo(args)) => console_cmd::run_demo(&g, &console, args).await,
            Some(Command::Sandbox(args)) => sandbox_cmd::run_sandbox(args, false).await,
            Some(Command::Fault(args)) => sandbox_cmd::run_fault(args).await,
            Some(Command::Endpoints(On { args, .. })) => endpoints_cmd::run_endpoints(&g, args).await,
            Some(Command::Describe(On { args, .. })) => endpoints_cmd::run_describe(&g, args).await,
            Some(Command::Autoscaling(On { args, .. })) => autoscaling_cmd::run(&g, args).await,
            Some(Command::Weights(On { args, .. })) => weights_cmd::run(&g, args).await,
            Some(Command::Invoke(On { args, .. })) => invoke_cmd::run(&g, args).await,
            Some(Command::Models(On { args, .. })) => models_cmd::run_models(&g, args).await,
            Some(Command::Prewarm(On { args, .. })) => models_cmd::run_prewarm(&g, args).await,
            Some(Command::Metrics(On { args, .. })) => metrics_cmd::run(&g, args).await,
            Some(Command::Logs(On { args, .. })) => logs_cmd::run(&g, args).await,
            Some(Command::Timeline(On { args, .. })) => timeline_cmd::run(&g, args).await,
            Some(Command::Promote(On { args, .. })) => promote_cmd::run(&g, args).await,
            Some(Command::Audit(On { args, .. })) => audit_cmd::run(&g, args).await,
            Some(Command::Alarms(On { args, .. })) => alarms_cmd::run(&g, args).await,
            Some(Command::Tools(On { args, .. })) => match args.command {
                mcp_cmd::ToolsCommand::List(a) => mcp_cmd::run_list(&g, a).await,
                mcp_cmd::ToolsCommand::Call(a) => mcp_cmd::run_call(&g, a).await,
            },
            Some(Command::Mcp(On { args, .. })) => serve_cmd::run_mcp(&g, args).await,
            Some(Command::Agent(On { args, .. })) => agent_cmd::run(&g, args).await,
            Some(Command::VariantsReport(On { args, .. })) => variants_report_cmd::run(&g, args).await,
            None => console_cmd::run_console(&g, &console).await,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every command line sagedeck takes, with whether it changes something. A new subcommand
    /// fails `every_subcommand_is_classified` until it has a line here.
    const SAMPLES: &[(&str, bool)] = &[
        ("demo", false),
        ("sandbox", false),
        ("fault list", false),
        ("endpoints", false),
        ("describe e", false),
        ("weights e", false),
        ("weights e --set A=1", true),
        ("weights e --instances A=2", true),
        ("invoke e --body {}", true),
        ("models e", false),
        ("prewarm e --all", true),
        ("metrics e", false),
        ("logs e --since 10m", false),
        ("timeline e", false),
        ("promote e --status", false),
        ("promote e --canary C", true),
        ("promote e --resume", true),
        ("promote e --rollback", true),
        ("promote e --abandon", true),
        ("promote e --consolidate --canary C", true),
        ("alarms e", false),
        ("agent --llm e --server s question", true),
        ("agent --replay run.jsonl", false),
        ("agent --replay run.jsonl --from-step 2", true),
        ("audit", false),
        ("autoscaling e", false),
        ("autoscaling e --check", false),
        ("autoscaling e --variant V --min 1 --max 4", true),
        ("autoscaling e --variant V --instances 2", true),
        ("autoscaling e --variant V --remove-policy p", true),
        ("tools list", false),
        ("tools call s t", true),
        ("mcp serve --demo-tools", true),
        ("variants-report invocations.jsonl", false),
    ];

    fn parse(line: &str) -> Cli {
        let argv = std::iter::once("sagedeck").chain(line.split_whitespace());
        Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    #[test]
    fn the_gate_knows_every_mutating_command() {
        for (line, mutates) in SAMPLES {
            let cli = parse(line);
            let what = cli.command.as_ref().and_then(mutation_of);
            assert_eq!(what.is_some(), *mutates, "{line}: {what:?}");
        }
    }

    #[test]
    fn every_subcommand_is_classified() {
        let covered: std::collections::BTreeSet<&str> = SAMPLES
            .iter()
            .filter_map(|(l, _)| l.split_whitespace().next())
            .collect();
        for sub in Cli::command().get_subcommands() {
            let name = sub.get_name();
            assert!(covered.contains(name), "subcommand {name} has no sample in SAMPLES");
        }
    }

    #[test]
    fn console_flags_show_only_on_the_console_and_the_demo() {
        let mut cli = Cli::command();
        cli.build();
        let has = |c: &clap::Command, flag: &str| c.get_arguments().any(|a| a.get_long() == Some(flag));
        for flag in ["theme", "refresh", "metrics-refresh", "mouse", "log-file"] {
            assert!(has(&cli, flag), "sagedeck --{flag}");
            let demo = cli.find_subcommand("demo").unwrap();
            assert!(has(demo, flag), "demo --{flag}");
            for sub in cli
                .get_subcommands()
                .filter(|s| !["demo", "help"].contains(&s.get_name()))
            {
                assert!(!has(sub, flag), "{} shows --{flag}", sub.get_name());
            }
        }
    }

    #[test]
    fn read_only_refuses_each_mutation_at_dispatch() {
        // No config file is read from the machine: point XDG at an empty directory.
        let dir = tempfile::tempdir().unwrap();
        // SAFETY: this test module's only environment change; the other tests here do not read it.
        unsafe { std::env::set_var("XDG_CONFIG_HOME", dir.path()) };
        for (line, mutates) in SAMPLES {
            let before = format!("--read-only {line}");
            let after = format!("{line} --read-only");
            let placements = if takes_aws_flags(line) {
                vec![before, after]
            } else {
                vec![before]
            };
            for argv in placements {
                let cli = parse(&argv);
                let g = cli.options();
                let r = gate(cli.command.as_ref(), g.read_only, &g);
                assert_eq!(r.err(), mutates.then_some(EXIT_READ_ONLY), "{argv}");
            }
        }
    }

    /// Whether a sample's subcommand takes the AWS options after its name.
    fn takes_aws_flags(line: &str) -> bool {
        !(line.starts_with("sandbox") || line.starts_with("fault"))
    }

    #[test]
    fn aws_flags_show_only_where_they_act() {
        let mut cli = Cli::command();
        cli.build();
        let has = |c: &clap::Command, flag: &str| c.get_arguments().any(|a| a.get_long() == Some(flag));
        let aws = ["profile", "region", "endpoint-url", "json"];
        for flag in aws.iter().chain(&["audit-file", "read-only", "reason"]) {
            assert!(has(&cli, flag), "sagedeck --{flag}");
        }
        for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
            let name = sub.get_name();
            for flag in aws {
                let acts = takes_aws_flags(name) && name != "demo";
                assert_eq!(has(sub, flag), acts, "{name} --{flag}");
            }
            assert_eq!(has(sub, "read-only"), takes_aws_flags(name), "{name} --read-only");
        }
        let tools = cli.find_subcommand("tools").unwrap();
        let call = tools.find_subcommand("call").unwrap();
        assert!(has(call, "profile"), "tools call --profile is inherited");
    }

    #[test]
    fn aws_flags_after_the_subcommand_win_over_those_before_it() {
        let g = parse("--profile outer --region r1 tools call s t --profile inner").options();
        assert_eq!(g.profile.as_deref(), Some("inner"));
        assert_eq!(g.region.as_deref(), Some("r1"));
        let g = parse("demo --read-only --reason drill").options();
        assert!(g.read_only);
        assert_eq!(g.reason.as_deref(), Some("drill"));
        assert!(Cli::try_parse_from(["sagedeck", "sandbox", "--profile", "p"]).is_err());
    }
}
