//! The AWS options of the command line (profile, region, endpoint URL, JSON output, the audit
//! log, read-only, the reason), given before a subcommand or after it, and what they open: the
//! fleet layer (the one `connect` helper) and the audit log; the options of the commands that
//! read only a local file; the `--since` windows; Ctrl-C as a channel.

use std::path::PathBuf;
use std::sync::Arc;

use std::time::Duration;

use clap::Args;

use super::exit::Exit;
use crate::aws::change::audit::{Audit, AuditContext, default_audit_path};
use crate::aws::change::guard::Audited;
use crate::aws::change::team::{Notify, TeamTrail};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::{AwsOptions, Fleet};
use crate::format::parse_duration;

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
            /// The team's audit trail: a CloudWatch Logs group every audit record also goes to,
            /// before the change is sent (default: the profile's `audit_log_group` in
            /// config.toml).
            #[arg(long, global = $global, value_name = "GROUP")]
            pub audit_log_group: Option<String>,
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

/// Declares the options a command that reads only a local file takes after its name: those it
/// uses show in its help, the other AWS options are still accepted (scripts that pass them keep
/// working) but hidden, as they do not act on it.
macro_rules! local_args {
    ($(#[$meta:meta])* $name:ident, audit_file_hidden = $hidden:literal) => {
        $(#[$meta])*
        #[derive(Debug, Args, Clone, Default)]
        pub struct $name {
            /// Print JSON instead of tables.
            #[arg(long, global = true)]
            pub json: bool,
            /// Audit log of mutations (default: $XDG_STATE_HOME/sagedeck/audit.jsonl, else
            /// ~/.local/state/sagedeck/audit.jsonl).
            #[arg(long, global = true, value_name = "PATH", hide = $hidden)]
            pub audit_file: Option<PathBuf>,
            /// Not used by this command.
            #[arg(long, global = true, hide = true)]
            pub profile: Option<String>,
            /// Not used by this command.
            #[arg(long, global = true, hide = true)]
            pub region: Option<String>,
            /// Not used by this command.
            #[arg(long, global = true, hide = true)]
            pub endpoint_url: Option<String>,
            /// Not used by this command (it changes nothing).
            #[arg(long, global = true, hide = true)]
            pub read_only: bool,
            /// Not used by this command (it changes nothing).
            #[arg(long, global = true, hide = true)]
            pub reason: Option<String>,
        }

        impl $name {
            /// These options as the AWS options given after a subcommand.
            pub fn as_command_args(&self) -> CommandArgs {
                CommandArgs {
                    profile: self.profile.clone(),
                    region: self.region.clone(),
                    endpoint_url: self.endpoint_url.clone(),
                    json: self.json,
                    audit_file: self.audit_file.clone(),
                    audit_log_group: None,
                    read_only: self.read_only,
                    reason: self.reason.clone(),
                }
            }
        }
    };
}

local_args!(
    /// The options of `variants-report`, which reads only its log: `--json` shows.
    LocalArgs,
    audit_file_hidden = true
);

local_args!(
    /// The options of `audit`, which reads only the audit log: `--json` and `--audit-file` show.
    AuditFileArgs,
    audit_file_hidden = false
);

/// A local-file subcommand's own arguments with the few options after its name that act on it.
#[derive(Debug, Args)]
pub struct Local<T: Args, O: Args> {
    /// The options given after the subcommand's name.
    #[command(flatten)]
    pub opts: O,
    /// The subcommand's own arguments.
    #[command(flatten)]
    pub args: T,
}

impl<T: Args, O: Args> std::ops::Deref for Local<T, O> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.args
    }
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
            audit_log_group: inner.audit_log_group.clone().or(self.audit_log_group),
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

    /// config.toml's settings for the selected profile (the defaults when there is no file or
    /// it cannot be read).
    pub fn settings(&self) -> crate::tui::config::Settings {
        crate::local::dirs::config_dir()
            .map(|d| d.join("config.toml"))
            .and_then(|p| crate::tui::config::ConfigFile::load(&p).ok())
            .map(|f| f.for_profile(&self.profile_name()))
            .unwrap_or_default()
    }

    /// Connects the fleet layer.
    pub async fn connect(&self) -> Result<Fleet, Exit> {
        Ok(Fleet::connect(&self.aws_options()).await?)
    }

    /// Connects the fleet layer and describes `endpoint` (with its autoscaling).
    pub async fn connect_to(&self, endpoint: &str) -> Result<(Fleet, EndpointInfo), Exit> {
        let fleet = self.connect().await?;
        let info = fleet.endpoint(endpoint).await?;
        Ok((fleet, info))
    }

    /// The audit file: `--audit-file`, else the XDG default.
    pub fn audit_path(&self) -> Option<PathBuf> {
        self.audit_file.clone().or_else(default_audit_path)
    }

    /// Opens the audit log; exit 6 when it cannot be.
    pub fn open_audit(&self) -> Result<Arc<Audit>, Exit> {
        let Some(path) = self.audit_path() else {
            return Err(Exit::refused(
                "no audit log location (HOME is not set); pass --audit-file PATH; nothing was sent",
            ));
        };
        Audit::open(&path).map(Arc::new).map_err(Exit::refused)
    }

    /// Opens the audit log and names the principal (STS); exit 6 when the log cannot be opened.
    /// With a team trail (`--audit-log-group`, or the profile's `audit_log_group`), every line
    /// also goes to that CloudWatch Logs group; a group that cannot be written is said once on
    /// stderr.
    pub async fn audited(&self, fleet: &Fleet) -> Result<Audited, Exit> {
        let audited = Audited {
            audit: self.open_audit()?,
            ctx: AuditContext::from_fleet(fleet).await,
        };
        self.attach_team(&audited.audit, fleet, audited.ctx.principal.as_deref());
        Ok(audited)
    }

    /// Attaches the team's audit trail (when one is configured) to `audit`, written by
    /// `principal` with `fleet`'s CloudWatch Logs; a group that cannot be written is said once
    /// on stderr.
    pub fn attach_team(&self, audit: &Audit, fleet: &Fleet, principal: Option<&str>) {
        if let Some(group) = self.audit_log_group() {
            let notify: Notify = std::sync::Arc::new(|m: String| eprintln!("sagedeck: warning: {m}"));
            audit.attach_team(TeamTrail::new(fleet, &group, principal, notify));
        }
    }

    /// The team's audit trail group: `--audit-log-group`, else the profile's `audit_log_group`
    /// in config.toml (an unreadable file names none).
    pub fn audit_log_group(&self) -> Option<String> {
        self.audit_log_group.clone().or_else(|| {
            let dir = crate::local::dirs::config_dir()?;
            let file = crate::tui::config::ConfigFile::load(&dir.join("config.toml")).ok()?;
            file.for_profile(&self.profile_name()).audit_log_group
        })
    }

    /// Whether read-only is on (the flag or the profile's `read_only`; an unreadable config
    /// file counts as on, as at the gate): for the clean-up a read command makes on the way
    /// (`deploy --watch` deleting the gate alarms a stopped deployment left).
    pub fn read_only_on(&self) -> bool {
        let config = match crate::local::dirs::config_dir() {
            Some(d) => crate::tui::config::ConfigFile::load(&d.join("config.toml")),
            None => Ok(Default::default()),
        };
        self.read_only || config.map_or(true, |f| f.for_profile(&self.profile_name()).read_only == Some(true))
    }
}

/// Longest `--since`: CloudWatch keeps 1-minute data for 15 days.
const MAX_SINCE: Duration = Duration::from_secs(15 * 86_400);

/// A `--since` window: a duration between 1 minute and 15 days.
pub fn parse_since(text: &str) -> Result<Duration, String> {
    let d = parse_duration(text)?;
    if d < Duration::from_secs(60) || d > MAX_SINCE {
        return Err(format!("--since must be between 1m and 15d (got {text})"));
    }
    Ok(d)
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

/// A budget of calls per second: a number from 0.1 to 10,000.
pub fn positive_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if (0.1..=10_000.0).contains(&r) => Ok(r),
        _ => Err(format!("`{s}` is not a rate from 0.1 to 10000 calls per second")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_accepts_units_and_sums() {
        let s = |t: &str| parse_since(t).map(|d| d.as_secs());
        assert_eq!(s("90s"), Ok(90));
        assert_eq!(s("15m"), Ok(900));
        assert_eq!(s("1h"), Ok(3600));
        assert_eq!(s("24h"), Ok(86_400));
        assert_eq!(s("2d"), Ok(172_800));
        assert_eq!(s("1h30m"), Ok(5400));
        for bad in ["", "1", "h", "1x", "-1h", "1.5h", "30s", "16d", "99999999999999999999d"] {
            assert!(parse_since(bad).is_err(), "{bad}");
        }
    }
}
