//! The command line: the console (default), `demo`, `sandbox`, and the headless commands, each
//! with human output by default and `--json` everywhere.
//!
//! Files import downwards only, never in a circle (floors, bottom first): `exit.rs` (exit
//! codes, [`Exit`], [`CmdResult`]); `output.rs` (every print to stdout, tables, JSON, the
//! confirmation question); `args.rs` (the AWS options, the `connect` helper, the audit log,
//! `--since`, Ctrl-C); the feature folders — `fleet/` (reads: endpoints, inventory across
//! regions, models and prewarm, metrics, logs, alarms, timeline, audit, invoke; `view.rs` holds
//! the endpoint tables others show), `change/` (weights, autoscaling; above `fleet/`), `components/` (inference components: the
//! listing, copies, rolling updates; above `fleet/`),
//! `promote/` (promotion, consolidation, the variants report), `mcp/` (tools, serve, the tool
//! calls' audit), `agent/` (above `mcp/`), `console/` (console, demo, sandbox, faults; above
//! `fleet/`); `command.rs` (the clap tree); `gate.rs` (the read-only gate); this file (dispatch).

pub mod agent;
pub mod args;
pub mod change;
pub mod command;
pub mod components;
pub mod console;
pub mod deploy;
pub mod exit;
pub mod fleet;
mod gate;
pub mod mcp;
pub mod output;
pub mod promote;

pub use args::{CommandArgs, DemoGuardArgs, GlobalArgs, On, interrupts};
pub use command::{Cli, Command};
pub use exit::{
    CmdResult, EXIT_AWS, EXIT_CHECK_FAILED, EXIT_MODEL, EXIT_NO_ANSWER, EXIT_OK, EXIT_OUTPUT_CLOSED, EXIT_PROMOTION,
    EXIT_READ_ONLY, EXIT_REFUSED, EXIT_USAGE, Exit, exit_code,
};
pub use gate::{gate, mutation_of, refuse_read_only};

use command::Command as C;

/// Runs the parsed command line and returns the process exit code: the one place where a
/// command's result becomes the exit code and its message is printed.
pub fn run(cli: Cli) -> i32 {
    let result = run_command(cli);
    let result = match result {
        // The reader went away while a command that does not look at every write went on.
        Ok(()) if output::closed() => Err(Exit::output_closed()),
        other => other,
    };
    match result {
        Ok(()) => EXIT_OK,
        Err(e) => e.report(),
    }
}

/// Runs the parsed command line: the read-only gate, then the command.
fn run_command(cli: Cli) -> CmdResult {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Exit::new(EXIT_AWS, format!("cannot start the async runtime: {e}")))?;
    let g = cli.options();
    let console = console::ConsoleArgs {
        fleet: cli.fleet_set.clone(),
        ..cli.console
    };
    // The console and the demo read the config themselves (an unreadable file makes them
    // read-only with a lasting error).
    if !matches!(cli.command, None | Some(C::Demo(_))) {
        gate(cli.command.as_ref(), g.read_only, &g)?;
    }
    runtime.block_on(async move {
        let result = match cli.command {
            Some(C::Demo(args)) => console::run_demo(&g, &console, args).await,
            Some(C::Sandbox(args)) => console::sandbox::run_sandbox(args, false).await,
            Some(C::Fault(args)) => console::sandbox::run_fault(args).await,
            Some(C::Endpoints(On { args, .. })) => fleet::endpoints::run_endpoints(&g, args).await,
            Some(C::Describe(On { args, .. })) => fleet::endpoints::run_describe(&g, args).await,
            Some(C::Autoscaling(On { args, .. })) => change::autoscaling::run(&g, args).await,
            Some(C::Weights(On { args, .. })) => change::weights::run(&g, args).await,
            Some(C::Serverless(On { args, .. })) => change::serverless::run(&g, args).await,
            Some(C::Components(On { args, .. })) => components::run(&g, args).await,
            Some(C::Invoke(On { args, .. })) => fleet::invoke::run(&g, args).await,
            Some(C::InvokeAsync(On { args, .. })) => fleet::asynchronous::run(&g, args).await,
            Some(C::OpenaiEnv(On { args, .. })) => fleet::openai_env::run(&g, args).await,
            Some(C::Models(On { args, .. })) => fleet::models::run_models(&g, args).await,
            Some(C::Prewarm(On { args, .. })) => fleet::models::run_prewarm(&g, args).await,
            Some(C::Metrics(On { args, .. })) => fleet::metrics::run(&g, args).await,
            Some(C::Logs(On { args, .. })) => fleet::logs::run(&g, args).await,
            Some(C::Timeline(On { args, .. })) => fleet::timeline::run(&g, args).await,
            Some(C::Promote(On { args, .. })) => promote::run(&g, args).await,
            Some(C::Shadow(On { args, .. })) => promote::shadow::run(&g, args).await,
            Some(C::Deploy(On { args, .. })) => deploy::run(&g, args).await,
            Some(C::Audit(a)) => fleet::audit::run(&g, a.args).await,
            Some(C::Alarms(On { args, .. })) => fleet::alarms::run(&g, args).await,
            Some(C::Tools(On { args, .. })) => match args.command {
                mcp::tools::ToolsCommand::List(a) => mcp::tools::run_list(&g, a).await,
                mcp::tools::ToolsCommand::Call(a) => mcp::tools::run_call(&g, a).await,
                mcp::tools::ToolsCommand::Login(a) => mcp::login::run_login(&g, a).await,
                mcp::tools::ToolsCommand::Logout(a) => mcp::login::run_logout(&g, a).await,
                mcp::tools::ToolsCommand::Resources(a) => mcp::resources::run_resources(&g, a).await,
                mcp::tools::ToolsCommand::Read(a) => mcp::resources::run_read(&g, a).await,
                mcp::tools::ToolsCommand::Prompts(a) => mcp::resources::run_prompts(&g, a).await,
                mcp::tools::ToolsCommand::Prompt(a) => mcp::resources::run_prompt(&g, a).await,
                mcp::tools::ToolsCommand::Tasks(a) => mcp::tasks::run_tasks(&g, a).await,
            },
            Some(C::Mcp(On { args, .. })) => mcp::serve::run_mcp(&g, args).await,
            Some(C::Agent(On { args, .. })) => agent::run(&g, args).await,
            Some(C::VariantsReport(a)) => promote::variants_report::run(&g, a.args).await,
            None => console::run_console(&g, &console).await,
        };
        // The team's audit trail takes result lines in the background: write them before the
        // process ends.
        crate::aws::change::team::flush_all(std::time::Duration::from_secs(10)).await;
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

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
        ("serverless e", false),
        ("serverless e --max-concurrency 5", true),
        ("serverless e --provisioned 2", true),
        ("components", false),
        ("components e", false),
        ("components e --set-copies ic=2", true),
        ("components e --update ic --model m2", true),
        ("components e --wake ic", true),
        ("invoke e --body {} --inference-component ic --wait-for-capacity", true),
        ("invoke e --body {}", true),
        ("invoke-async e --body {} --wait", true),
        ("openai-env e --inference-component ic --expires 15m", true),
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
        ("shadow e --since 30m", false),
        ("shadow e --promote --yes", true),
        ("deploy e --model A=m --dry-run", false),
        ("deploy e --watch", false),
        ("deploy e --config c --canary 10%", true),
        ("agent --llm e --server s question", true),
        ("agent --replay run.jsonl", false),
        ("agent --replay run.jsonl --from-step 2", true),
        ("audit", false),
        ("autoscaling e", false),
        ("autoscaling e --check", false),
        ("autoscaling e --variant V --min 1 --max 4", true),
        ("autoscaling e --variant V --instances 2", true),
        ("autoscaling e --variant V --remove-policy p", true),
        ("autoscaling e --inference-component ic --check", false),
        ("autoscaling e --inference-component ic --scale-to-zero", true),
        ("autoscaling e --inference-component ic --min 0 --max 2", true),
        ("tools list", false),
        ("tools call s t", true),
        ("tools list --lint", false),
        ("tools resources s", false),
        ("tools read s x://r --out f", false),
        ("tools prompts s", false),
        ("tools prompt s p --arg k=v", false),
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
                assert_eq!(
                    r.err().map(|e| e.exit_code()),
                    mutates.then_some(EXIT_READ_ONLY),
                    "{argv}"
                );
            }
        }
    }

    /// Whether a sample's subcommand takes the AWS options after its name.
    fn takes_aws_flags(line: &str) -> bool {
        !(line.starts_with("sandbox") || line.starts_with("fault"))
    }

    /// The commands that read only a local file, with the options they take after their name.
    const LOCAL: &[(&str, &[&str])] = &[("audit", &["json", "audit-file"]), ("variants-report", &["json"])];

    #[test]
    fn aws_flags_show_only_where_they_act() {
        let mut cli = Cli::command();
        cli.build();
        let has = |c: &clap::Command, flag: &str| c.get_arguments().any(|a| a.get_long() == Some(flag));
        let shows = |c: &clap::Command, flag: &str| {
            c.get_arguments()
                .any(|a| a.get_long() == Some(flag) && !a.is_hide_set())
        };
        let aws = ["profile", "region", "endpoint-url", "json"];
        let guard = ["audit-file", "read-only", "reason"];
        for flag in aws.iter().chain(&guard) {
            assert!(has(&cli, flag), "sagedeck --{flag}");
        }
        for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
            let name = sub.get_name();
            if let Some((_, takes)) = LOCAL.iter().find(|(c, _)| *c == name) {
                for flag in aws.iter().chain(&guard) {
                    assert!(has(sub, flag), "{name} accepts --{flag}");
                    assert_eq!(shows(sub, flag), takes.contains(flag), "{name} --help lists --{flag}");
                }
                continue;
            }
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
    fn local_file_commands_take_their_own_options_after_their_name() {
        let g = parse("--json --audit-file a.jsonl audit --since 1h").options();
        assert!(g.json);
        assert_eq!(g.audit_file.as_deref(), Some(std::path::Path::new("a.jsonl")));
        let g = parse("audit --json --audit-file b.jsonl").options();
        assert!(g.json);
        assert_eq!(g.audit_file.as_deref(), Some(std::path::Path::new("b.jsonl")));
        assert!(parse("variants-report f.jsonl --json").options().json);
        // The options that do not act on them are still accepted, as before.
        let g = parse("audit --read-only --profile p").options();
        assert!(g.read_only);
        assert_eq!(g.profile.as_deref(), Some("p"));
        let g = parse("variants-report f.jsonl --region r").options();
        assert_eq!(g.region.as_deref(), Some("r"));
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

    #[test]
    fn the_console_takes_regions_profiles_and_a_fleet_and_the_demo_keeps_its_fleet_size() {
        let cli = Cli::try_parse_from([
            "sagedeck",
            "--regions",
            "us-east-1,eu-west-1",
            "--profiles",
            "a,b",
            "--fleet",
            "f",
        ])
        .unwrap();
        assert_eq!(cli.console.regions, ["us-east-1", "eu-west-1"]);
        assert_eq!(cli.console.profiles, ["a", "b"]);
        assert_eq!(cli.fleet_set.as_deref(), Some("f"));
        let demo = Cli::try_parse_from(["sagedeck", "demo", "--fleet", "3", "--regions", "us-east-1"]).unwrap();
        let Some(Command::Demo(d)) = demo.command else {
            panic!("not the demo")
        };
        assert_eq!((d.sandbox.fleet, d.console.regions), (3, vec!["us-east-1".to_string()]));
    }
}
