//! The arguments of `sagedeck components`: the listing's filters, and the changes (`--set-copies`,
//! `--update` with its rolling update policy), parsed before any request is made.

use std::time::Duration;

use clap::Args;

use crate::aws::components::policy::{BatchSize, RollingUpdate};
use crate::format::parse_duration;

/// `sagedeck components [ENDPOINT]`.
#[derive(Debug, Args)]
pub struct ComponentsArgs {
    /// Endpoint whose components to list or change (every endpoint's when omitted).
    pub endpoint: Option<String>,
    /// Only components whose name contains this (ListInferenceComponents' NameContains).
    #[arg(long)]
    pub name_contains: Option<String>,
    /// Only components in this status (InService, Creating, Updating, Failed, Deleting).
    #[arg(long)]
    pub status: Option<String>,
    /// List the components of these regions as one listing (with profile and region columns).
    #[arg(long, value_delimiter = ',')]
    pub regions: Vec<String>,
    /// List the components of these profiles (accounts), each in `--regions` (or its own region).
    #[arg(long, value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// A `[fleets.NAME]` set of profiles × regions from config.toml.
    #[arg(long)]
    pub fleet: Option<String>,
    /// Set a component's copies now: `IC=N` (UpdateInferenceComponentRuntimeConfig).
    #[arg(long, value_name = "IC=N", conflicts_with = "update")]
    pub set_copies: Option<String>,
    /// Roll a component's specification over to `--model` (UpdateInferenceComponent with a
    /// rolling update policy), followed to its end.
    #[arg(long, value_name = "IC", requires = "model")]
    pub update: Option<String>,
    /// The model `--update` rolls to.
    #[arg(long, requires = "update")]
    pub model: Option<String>,
    /// Copies per batch of the rolling update: `N` copies or `NN%` of the capacity.
    #[arg(long, default_value = "1", requires = "update")]
    pub batch: String,
    /// Bake after each batch (WaitIntervalInSeconds, 0s to 1h).
    #[arg(long, default_value = "2m", requires = "update")]
    pub bake: String,
    /// Copies per batch when rolling back: `N` or `NN%` (AWS's default: every copy at once).
    #[arg(long, requires = "update")]
    pub rollback_batch: Option<String>,
    /// MaximumExecutionTimeoutInSeconds of the update (10m to 8h; AWS's default when omitted).
    #[arg(long, requires = "update")]
    pub update_timeout: Option<String>,
    /// A CloudWatch alarm that rolls the update back when it fires (repeatable, at most 10).
    #[arg(long = "alarm", value_name = "ALARM", requires = "update")]
    pub alarms: Vec<String>,
    /// Apply without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// After `--set-copies`, follow the component until its copies are placed.
    #[arg(long)]
    pub wait: bool,
    /// Give up following (`--wait`, `--update`) after this long.
    #[arg(long, default_value = "30m")]
    pub wait_timeout: String,
    /// Wake a component at zero copies (copies 0 → 1, audited); `--wait` follows it until it
    /// serves.
    #[arg(long, value_name = "IC", conflicts_with_all = ["set_copies", "update"])]
    pub wake: Option<String>,
}

impl ComponentsArgs {
    /// Whether the command changes something (the read-only gate refuses it).
    pub fn is_change(&self) -> bool {
        self.set_copies.is_some() || self.update.is_some() || self.wake.is_some()
    }

    /// `--set-copies IC=N` as `(IC, N)`.
    pub fn copies_request(&self) -> Result<Option<(String, i32)>, String> {
        let Some(text) = &self.set_copies else {
            return Ok(None);
        };
        let (ic, n) = text
            .split_once('=')
            .ok_or_else(|| format!("--set-copies `{text}` is not IC=N"))?;
        let n: i32 = n
            .trim()
            .parse()
            .map_err(|_| format!("--set-copies count `{n}` of {ic} is not a whole number"))?;
        if ic.trim().is_empty() {
            return Err(format!("--set-copies `{text}` names no component"));
        }
        Ok(Some((ic.trim().to_string(), n)))
    }

    /// `--update IC --model M ...` as the component and its rolling update.
    pub fn update_request(&self) -> Result<Option<(String, RollingUpdate)>, String> {
        let (Some(ic), Some(model)) = (&self.update, &self.model) else {
            return Ok(None);
        };
        let seconds = |flag: &str, text: &str| -> Result<i32, String> {
            let d = if text.trim() == "0" || text.trim() == "0s" {
                Duration::ZERO
            } else {
                parse_duration(text).map_err(|e| format!("--{flag}: {e}"))?
            };
            i32::try_from(d.as_secs()).map_err(|_| format!("--{flag} {text} is too long"))
        };
        let update = RollingUpdate {
            model: model.clone(),
            batch: BatchSize::parse(&self.batch).map_err(|e| format!("--batch: {e}"))?,
            bake_secs: seconds("bake", &self.bake)?,
            rollback_batch: self
                .rollback_batch
                .as_deref()
                .map(BatchSize::parse)
                .transpose()
                .map_err(|e| format!("--rollback-batch: {e}"))?,
            timeout_secs: self
                .update_timeout
                .as_deref()
                .map(|t| seconds("update-timeout", t))
                .transpose()?,
            alarms: self.alarms.clone(),
        };
        update.validate()?;
        Ok(Some((ic.clone(), update)))
    }

    /// `--wait-timeout`.
    pub fn follow_deadline(&self) -> Result<Duration, String> {
        parse_duration(&self.wait_timeout).map_err(|e| format!("--wait-timeout: {e}"))
    }
}
