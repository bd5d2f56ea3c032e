//! The command line's shape: [`Cli`] and its [`Command`]s, and the options each runs with.

use clap::{Parser, Subcommand};

use super::agent::AgentArgs;
use super::args::{AuditFileArgs, CommandArgs, GlobalArgs, Local, LocalArgs, On};
use super::change::autoscaling::args::AutoscalingArgs;
use super::change::serverless::ServerlessArgs;
use super::change::weights::WeightsArgs;
use super::components::args::ComponentsArgs;
use super::console::sandbox::{FaultArgs, SandboxArgs};
use super::console::{ConsoleArgs, DemoArgs};
use super::deploy::args::DeployArgs;
use super::exit::EXIT_CODES;
use super::fleet::alarms::AlarmsArgs;
use super::fleet::asynchronous::InvokeAsyncArgs;
use super::fleet::audit::AuditArgs;
use super::fleet::endpoints::DescribeArgs;
use super::fleet::inventory::EndpointsArgs;
use super::fleet::invoke::InvokeArgs;
use super::fleet::logs::LogsArgs;
use super::fleet::metrics::MetricsArgs;
use super::fleet::models::{ModelsArgs, PrewarmArgs};
use super::fleet::openai_env::OpenAiEnvArgs;
use super::fleet::timeline::TimelineArgs;
use super::mcp::serve::McpArgs;
use super::mcp::tools::ToolsArgs;
use super::promote::args::PromoteArgs;
use super::promote::shadow::ShadowArgs;
use super::promote::variants_report::VariantsReportArgs;

/// sagedeck: an operations console for SageMaker real-time endpoints behind MCP tools.
#[derive(Debug, Parser)]
#[command(name = "sagedeck", version, about, long_about = None, after_help = EXIT_CODES)]
pub struct Cli {
    /// Where to reach AWS, and how to print.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Console options.
    #[command(flatten)]
    pub console: ConsoleArgs,
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
            Some(Command::Audit(a)) => outer.with(&a.opts.as_command_args()),
            Some(Command::VariantsReport(v)) => outer.with(&v.opts.as_command_args()),
            Some(c) => match c.aws() {
                Some(inner) => outer.with(inner),
                None => outer,
            },
            None => outer,
        }
    }
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The console on the embedded sandbox: demo fleet, live traffic, faults — all offline.
    Demo(DemoArgs),
    /// Run the local SageMaker-compatible emulator (SageMaker, Runtime, CloudWatch,
    /// Application Auto Scaling, S3 listing) on loopback.
    Sandbox(SandboxArgs),
    /// Inject, list or clear faults in a running sandbox.
    Fault(FaultArgs),
    /// List every endpoint with its variants, instances, autoscaling and status.
    Endpoints(On<EndpointsArgs>),
    /// Describe one endpoint: endpoint, config, models, autoscaling policies and activities.
    Describe(On<DescribeArgs>),
    /// Show an endpoint's variant weights, or change them (`--set VARIANT=WEIGHT`).
    Weights(On<WeightsArgs>),
    /// A serverless variant's memory and concurrency; `--max-concurrency N`, `--provisioned N`
    /// change them in place.
    Serverless(On<ServerlessArgs>),
    /// Inference components of an endpoint (of every endpoint without one): status, model,
    /// copies, placement, reservation; `--set-copies IC=N`, `--update IC --model M`.
    Components(On<ComponentsArgs>),
    /// Invoke an endpoint once, or `--repeat N` times with percentiles.
    Invoke(On<InvokeArgs>),
    /// Send one request to an asynchronous endpoint (inline, uploaded to S3 first, or from S3);
    /// `--wait` follows it to its output or failure object.
    InvokeAsync(On<InvokeAsyncArgs>),
    /// `OPENAI_BASE_URL` and a fresh bearer token (`OPENAI_API_KEY`) for any OpenAI client of
    /// an endpoint's OpenAI-compatible API (`eval "$(sagedeck openai-env EP)"`).
    OpenaiEnv(On<OpenAiEnvArgs>),
    /// List a multi-model endpoint's model catalog (its S3 prefix).
    Models(On<ModelsArgs>),
    /// Prewarm multi-model endpoint models with one warm-up invocation each.
    Prewarm(On<PrewarmArgs>),
    /// Latency, invocations and errors of an endpoint's variants from CloudWatch.
    Metrics(On<MetricsArgs>),
    /// Container logs of an endpoint from CloudWatch Logs (`--follow`, `--filter PATTERN`).
    Logs(On<LogsArgs>),
    /// What changed on an endpoint, merged by time: status and deployments, audited changes,
    /// scaling activities (`--since 6h`).
    Timeline(On<TimelineArgs>),
    /// Deploy a configuration or a new model with SageMaker's deployment guardrails (canary,
    /// linear, rolling; rollback alarms), its schedule shown first; `--watch` follows one in
    /// flight from any terminal.
    Deploy(On<DeployArgs>),
    /// Promote a canary step by step, gated on CloudWatch (p99 ratio, 5XX/4XX rates), with
    /// rollback, persisted state, `--status`, `--resume`, `--rollback`.
    Promote(On<PromoteArgs>),
    /// Judge an endpoint's shadow variant against production (`--since 1h`); `--promote` makes
    /// the shadow the production variant through a new endpoint configuration.
    Shadow(On<ShadowArgs>),
    /// The audit log of mutations (`--since 1h`, `--json`).
    Audit(Local<AuditArgs, AuditFileArgs>),
    /// The CloudWatch alarms that watch an endpoint (by its EndpointName dimension, and
    /// composite alarms over them), with their states.
    Alarms(On<AlarmsArgs>),
    /// Scalable targets, policies and recent scaling activities of an endpoint; `--check` lints
    /// them, `--check-request FILE.json` lints a PutScalingPolicy request before it is sent.
    Autoscaling(On<AutoscalingArgs>),
    /// List and call the tools of MCP servers (mcpServers registry).
    Tools(On<ToolsArgs>),
    /// Serve SageMaker endpoints as MCP tools (`mcp serve`).
    Mcp(On<McpArgs>),
    /// An LLM on a SageMaker endpoint answering a question with the tools of MCP servers.
    Agent(On<AgentArgs>),
    /// Compare an endpoint's variants over an invocation log (`--invocation-log`): calls, error
    /// rate, latency percentiles and the judge's test of each variant against the baseline.
    VariantsReport(Local<VariantsReportArgs, LocalArgs>),
}

impl Command {
    /// The AWS options given after the subcommand's name, for the commands that take them.
    pub fn aws(&self) -> Option<&CommandArgs> {
        match self {
            Command::Endpoints(c) => Some(&c.aws),
            Command::Describe(c) => Some(&c.aws),
            Command::Weights(c) => Some(&c.aws),
            Command::Serverless(c) => Some(&c.aws),
            Command::Components(c) => Some(&c.aws),
            Command::Invoke(c) => Some(&c.aws),
            Command::InvokeAsync(c) => Some(&c.aws),
            Command::OpenaiEnv(c) => Some(&c.aws),
            Command::Models(c) => Some(&c.aws),
            Command::Prewarm(c) => Some(&c.aws),
            Command::Metrics(c) => Some(&c.aws),
            Command::Logs(c) => Some(&c.aws),
            Command::Timeline(c) => Some(&c.aws),
            Command::Promote(c) => Some(&c.aws),
            Command::Shadow(c) => Some(&c.aws),
            Command::Deploy(c) => Some(&c.aws),
            Command::Alarms(c) => Some(&c.aws),
            Command::Autoscaling(c) => Some(&c.aws),
            Command::Tools(c) => Some(&c.aws),
            Command::Mcp(c) => Some(&c.aws),
            Command::Agent(c) => Some(&c.aws),
            Command::Demo(_)
            | Command::Sandbox(_)
            | Command::Fault(_)
            | Command::Audit(_)
            | Command::VariantsReport(_) => None,
        }
    }
}
