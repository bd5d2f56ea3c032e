//! `sagedeck deploy`'s options and the deployment spec they make, parsed before any request.

use std::time::Duration;

use clap::Args;

use crate::aws::deploy::new_config::ModelSwap;
use crate::aws::deploy::policy::{Capacity, Policy, Shift};
use crate::format::parse_duration;

/// `sagedeck deploy`.
#[derive(Debug, Args)]
pub struct DeployArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// The endpoint configuration to deploy.
    #[arg(long, value_name = "CONFIG", conflicts_with_all = ["model", "watch"])]
    pub config: Option<String>,
    /// Deploy a new model to a variant: the live configuration copied whole with that variant's
    /// model replaced, written as a new configuration named from the old one and the time.
    #[arg(long, value_name = "VARIANT=MODEL", conflicts_with = "watch")]
    pub model: Option<String>,
    /// Canary of this percentage of the variant's instances (at most 50 %), then the rest.
    #[arg(long, value_name = "N%", group = "policy")]
    pub canary: Option<String>,
    /// Canary of this many instances (at most half the variant's), then the rest.
    #[arg(long, value_name = "N", group = "policy")]
    pub canary_instances: Option<i32>,
    /// Linear steps of this percentage (10–50 %), a bake after each.
    #[arg(long, value_name = "N%", group = "policy")]
    pub linear: Option<String>,
    /// All traffic at once, then the final bake (the default).
    #[arg(long, group = "policy")]
    pub all_at_once: bool,
    /// Rolling batches of this percentage of the instances (5–50 %), a bake after each.
    #[arg(long, value_name = "N%", group = "policy")]
    pub rolling: Option<String>,
    /// Bake after each step but the last (WaitIntervalInSeconds, 0s–1h).
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    pub bake: String,
    /// Final bake before the old fleet is terminated (TerminationWaitInSeconds, 0s–1h; default:
    /// the bake).
    #[arg(long, value_name = "DURATION")]
    pub termination_wait: Option<String>,
    /// The deployment's timeout (MaximumExecutionTimeoutInSeconds, 10m–8h; default: its waits
    /// and 30 minutes).
    #[arg(long, value_name = "DURATION")]
    pub max_time: Option<String>,
    /// Rolling: roll back in batches of this percentage (default: all at once).
    #[arg(long, value_name = "N%", requires = "rolling")]
    pub rollback_batch: Option<String>,
    /// A CloudWatch alarm that rolls the deployment back (repeatable, at most 10).
    #[arg(long = "alarm", value_name = "NAME")]
    pub alarms: Vec<String>,
    /// Create alarms encoding sagedeck's gates (p99 latency ceiling from the last 24 h, 5XX and
    /// 4XX rates), named sagedeck-ENDPOINT-…, deleted after the deployment.
    #[arg(long)]
    pub gate_alarms: bool,
    /// Keep the gate alarms after the deployment.
    #[arg(long, requires = "gate_alarms")]
    pub keep_alarms: bool,
    /// RetainAllVariantProperties: keep the live instance counts and weights (autoscaled counts
    /// are not reset to the configuration's).
    #[arg(long)]
    pub retain_variant_properties: bool,
    /// RetainDeploymentConfig: deploy by the endpoint's LastDeploymentConfig (its policy, timeout
    /// and alarms; the schedule is drawn from it), refused when it has none.
    #[arg(long, conflicts_with_all = [
        "policy", "bake", "termination_wait", "max_time", "rollback_batch", "alarms", "gate_alarms", "watch",
    ])]
    pub retain_deployment_config: bool,
    /// The configuration you saw the endpoint on: refuse, sending nothing, unless it still is
    /// (default: as read at the start).
    #[arg(long, value_name = "CONFIG")]
    pub expect_config: Option<String>,
    /// Print the schedule and send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Start without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Follow the deployment in flight on ENDPOINT (started by anyone) to its end.
    #[arg(long)]
    pub watch: bool,
    /// How often the deployment is read, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5000, hide = true)]
    pub poll_ms: u64,
}

/// `25%` or `25` as a percentage.
fn percent(flag: &str, text: &str) -> Result<i32, String> {
    text.trim()
        .trim_end_matches('%')
        .trim()
        .parse()
        .map_err(|_| format!("--{flag} `{text}` is not a percentage like 25%"))
}

/// A duration flag in whole seconds.
fn seconds(flag: &str, text: &str) -> Result<i32, String> {
    let d: Duration = parse_duration(text).map_err(|e| format!("--{flag}: {e}"))?;
    i32::try_from(d.as_secs()).map_err(|_| format!("--{flag} {text} is too long"))
}

impl DeployArgs {
    /// The policy the flags ask for.
    pub fn policy(&self) -> Result<Policy, String> {
        let bake_secs = seconds("bake", &self.bake)?;
        if let Some(r) = &self.rolling {
            let rollback_percent = match &self.rollback_batch {
                Some(b) => Some(percent("rollback-batch", b)?),
                None => None,
            };
            return Ok(Policy::Rolling {
                batch_percent: percent("rolling", r)?,
                bake_secs,
                rollback_percent,
            });
        }
        let shift = if let Some(c) = &self.canary {
            Shift::Canary(Capacity::Percent(percent("canary", c)?))
        } else if let Some(n) = self.canary_instances {
            Shift::Canary(Capacity::Instances(n))
        } else if let Some(l) = &self.linear {
            Shift::Linear(percent("linear", l)?)
        } else {
            Shift::AllAtOnce
        };
        let final_bake_secs = match &self.termination_wait {
            Some(t) => seconds("termination-wait", t)?,
            None => bake_secs,
        };
        Ok(Policy::BlueGreen {
            shift,
            bake_secs,
            final_bake_secs,
        })
    }

    /// `--max-time` in seconds, when given.
    pub fn max_time(&self) -> Result<Option<i32>, String> {
        self.max_time.as_deref().map(|t| seconds("max-time", t)).transpose()
    }

    /// `--model`, parsed.
    pub fn swap(&self) -> Result<Option<ModelSwap>, String> {
        self.model.as_deref().map(ModelSwap::parse).transpose()
    }

    /// Checks the flags that go together: a configuration or a model unless watching.
    pub fn check(&self) -> Result<(), String> {
        if !self.watch && self.config.is_none() && self.model.is_none() {
            return Err(
                "deploy needs --config CONFIG or --model VARIANT=MODEL (or --watch to follow one in flight)".into(),
            );
        }
        if self.poll_ms < 100 {
            return Err("--poll-ms must be at least 100".into());
        }
        self.policy()?;
        self.max_time()?;
        self.swap()?;
        Ok(())
    }
}
