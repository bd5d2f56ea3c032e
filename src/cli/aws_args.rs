//! The AWS options of the command line (profile, region, endpoint URL, JSON output, the audit
//! log, read-only, the reason), given before a subcommand or after it, and what they open: the
//! fleet layer and the audit log.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::{EXIT_REFUSED, report};
use crate::aws::change::audit::{Audit, AuditContext, default_audit_path};
use crate::aws::change::guard::Audited;
use crate::aws::{AwsOptions, Fleet};

/// Declares the options the AWS-facing commands take (the AWS CLI's names), twice from one
/// list: [`GlobalArgs`], given before any subcommand (`sagedeck --profile p endpoints`), and
/// [`CommandArgs`], given after one and inherited by its own subcommands (`sagedeck tools call
/// --profile p`). Commands they do not act on (`sandbox`, `fault`) do not show them.
macro_rules! aws_args {
    ($(#[$meta:meta])* $name:ident, global = $global:literal) => {
        $(#[$meta])*
        #[derive(Debug, Args, Clone, Default)]
        pub struct $name {
            /// Named AWS profile (default: AWS_PROFILE, then `default`).
            #[arg(long, global = $global)]
            pub profile: Option<String>,
            /// AWS region (default: AWS_REGION, then the profile's).
            #[arg(long, global = $global)]
            pub region: Option<String>,
            /// Endpoint URL for every service (default: AWS_ENDPOINT_URL).
            #[arg(long, global = $global)]
            pub endpoint_url: Option<String>,
            /// Print JSON instead of tables.
            #[arg(long, global = $global)]
            pub json: bool,
            /// Audit log of mutations (default: $XDG_STATE_HOME/sagedeck/audit.jsonl, else
            /// ~/.local/state/sagedeck/audit.jsonl).
            #[arg(long, global = $global, value_name = "PATH")]
            pub audit_file: Option<PathBuf>,
            /// Refuse every mutation (weights, promotion, prewarm, invoke, tool calls, autoscaling
            /// changes, mcp serve) in the console and the CLI.
            #[arg(long, global = $global)]
            pub read_only: bool,
            /// Why: written to the audit log with the mutation (in the console, with every change
            /// of the session; `:reason` changes it).
            #[arg(long, global = $global)]
            pub reason: Option<String>,
        }
    };
}

aws_args!(
    /// Options of the console and of every AWS-facing command, given before the subcommand;
    /// also the merged options a command runs with ([`GlobalArgs::with`]).
    GlobalArgs,
    global = false
);

aws_args!(
    /// The same options given after an AWS-facing subcommand (see [`On`]).
    CommandArgs,
    global = true
);

/// An AWS-facing subcommand's own arguments with the AWS options after its name.
#[derive(Debug, Args)]
pub struct On<T: Args> {
    /// The AWS options given after the subcommand's name.
    #[command(flatten)]
    pub aws: CommandArgs,
    /// The subcommand's own arguments.
    #[command(flatten)]
    pub args: T,
}

impl<T: Args> std::ops::Deref for On<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.args
    }
}

/// What acts on the demo of the AWS options: the audit log, read-only and the reason (the
/// demo's AWS is its embedded sandbox).
#[derive(Debug, Args, Clone, Default)]
pub struct DemoGuardArgs {
    /// Audit log of mutations (default: $XDG_STATE_HOME/sagedeck/audit.jsonl, else
    /// ~/.local/state/sagedeck/audit.jsonl).
    #[arg(long, value_name = "PATH")]
    pub audit_file: Option<PathBuf>,
    /// Refuse every mutation in the demo's console.
    #[arg(long)]
    pub read_only: bool,
    /// Why: written to the audit log with every change of the session.
    #[arg(long)]
    pub reason: Option<String>,
}

impl GlobalArgs {
    /// These options, each one given after the subcommand (`inner`) taking the place of the
    /// one given before it.
    pub fn with(self, inner: &CommandArgs) -> GlobalArgs {
        GlobalArgs {
            profile: inner.profile.clone().or(self.profile),
            region: inner.region.clone().or(self.region),
            endpoint_url: inner.endpoint_url.clone().or(self.endpoint_url),
            json: inner.json || self.json,
            audit_file: inner.audit_file.clone().or(self.audit_file),
            read_only: inner.read_only || self.read_only,
            reason: inner.reason.clone().or(self.reason),
        }
    }

    /// These options with the demo's own (`sagedeck demo --read-only`).
    pub fn with_demo(self, demo: &DemoGuardArgs) -> GlobalArgs {
        GlobalArgs {
            audit_file: demo.audit_file.clone().or(self.audit_file),
            read_only: demo.read_only || self.read_only,
            reason: demo.reason.clone().or(self.reason),
            ..self
        }
    }

    /// The fleet-layer options these arguments describe.
    pub fn aws_options(&self) -> AwsOptions {
        AwsOptions {
            profile: self.profile.clone(),
            region: self.region.clone(),
            endpoint_url: self.endpoint_url.clone(),
            ..Default::default()
        }
    }

    /// The profile in use: `--profile`, else AWS_PROFILE, else `default`.
    pub fn profile_name(&self) -> String {
        self.profile
            .clone()
            .or_else(|| std::env::var("AWS_PROFILE").ok())
            .unwrap_or_else(|| "default".into())
    }

    /// Connects the fleet layer, or prints why not.
    pub async fn connect(&self) -> Result<Fleet, i32> {
        Fleet::connect(&self.aws_options()).await.map_err(|e| report(&e))
    }

    /// The audit file: `--audit-file`, else the XDG default.
    pub fn audit_path(&self) -> Option<PathBuf> {
        self.audit_file.clone().or_else(default_audit_path)
    }

    /// Opens the audit log; prints why not and returns exit 6.
    pub fn open_audit(&self) -> Result<Arc<Audit>, i32> {
        let Some(path) = self.audit_path() else {
            eprintln!("sagedeck: no audit log location (HOME is not set); pass --audit-file PATH; nothing was sent");
            return Err(EXIT_REFUSED);
        };
        Audit::open(&path).map(Arc::new).map_err(|e| {
            eprintln!("sagedeck: {e}");
            EXIT_REFUSED
        })
    }

    /// Opens the audit log and names the principal (STS); prints why not and returns exit 6.
    pub async fn audited(&self, fleet: &Fleet) -> Result<Audited, i32> {
        Ok(Audited {
            audit: self.open_audit()?,
            ctx: AuditContext::from_fleet(fleet).await,
        })
    }
}
