//! The command line: the console (default), `demo`, `sandbox`, and the headless commands.

pub mod sandbox_cmd;

use clap::{Parser, Subcommand};

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: usage error or invalid input.
pub const EXIT_USAGE: i32 = 2;
/// Exit code: AWS or API error.
pub const EXIT_AWS: i32 = 3;
/// Exit code: the model container answered non-2xx.
pub const EXIT_MODEL: i32 = 4;

/// sagedeck: an operations console for SageMaker real-time endpoints behind MCP tools.
#[derive(Debug, Parser)]
#[command(name = "sagedeck", version, about, long_about = None)]
pub struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the embedded sandbox with its demo fleet and traffic, and show how to reach it.
    Demo(sandbox_cmd::SandboxArgs),
    /// Run the local SageMaker-compatible emulator (SageMaker, Runtime, CloudWatch,
    /// Application Auto Scaling, S3 listing) on loopback.
    Sandbox(sandbox_cmd::SandboxArgs),
    /// Inject, list or clear faults in a running sandbox.
    Fault(sandbox_cmd::FaultArgs),
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
    runtime.block_on(async move {
        match cli.command {
            Some(Command::Demo(args)) => sandbox_cmd::run_sandbox(args, true).await,
            Some(Command::Sandbox(args)) => sandbox_cmd::run_sandbox(args, false).await,
            Some(Command::Fault(args)) => sandbox_cmd::run_fault(args).await,
            None => {
                eprintln!("sagedeck: the console is not built yet; try `sagedeck demo` or `sagedeck --help`");
                EXIT_USAGE
            }
        }
    })
}
