//! Promotion plans: a canary's share raised step by step (`10,25,50,100` percent), each step baked
//! and gated on CloudWatch (canary vs baseline: p99 ModelLatency ratio, 5XX and 4XX rates, and a
//! minimum of invocations for any verdict). This module holds the plan's description, its
//! persisted state (one JSON file per endpoint in the state directory, replaced atomically after
//! every transition) and the weight arithmetic; [`crate::aws::promote::gate`] computes verdicts and
//! [`crate::aws::promote::run`] drives a plan.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::judge::compare::JudgeConfig;
use crate::aws::promote::report::{GateReport, Gates};

/// Whether the plan goes on by itself or asks before each step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Steps follow each other; a failed gate rolls back.
    Auto,
    /// Asks before each step; a failed gate stops and asks.
    Manual,
}

/// What to promote, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromotionSpec {
    /// Endpoint.
    pub endpoint: String,
    /// The variant being promoted.
    pub canary: String,
    /// The variant compared against (default: the other variant with the most weight).
    pub baseline: Option<String>,
    /// Canary shares in percent, increasing, each in (0, 100].
    pub steps: Vec<f64>,
    /// Bake time of each step.
    #[serde(with = "secs")]
    pub bake: Duration,
    /// Gate thresholds.
    pub gates: Gates,
    /// Auto or manual.
    pub mode: Mode,
    /// The plan's last step: after the canary holds 100 % and bakes clean, a new endpoint
    /// config with only the canary, UpdateEndpoint, followed to InService (the old config kept
    /// for rollback). Absent in plans saved before it existed: off.
    #[serde(default)]
    pub consolidate: bool,
}

mod secs {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_secs_f64(f64::deserialize(d)?.max(0.0)))
    }
}

/// Parses `10,25,50,100` (percent): increasing, each in (0, 100].
pub fn parse_steps(text: &str) -> Result<Vec<f64>, String> {
    let mut out: Vec<f64> = Vec::new();
    for p in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let v: f64 = p
            .trim_end_matches('%')
            .parse()
            .map_err(|_| format!("step `{p}` is not a percentage"))?;
        if !(v > 0.0 && v <= 100.0) {
            return Err(format!("step {p} must be above 0 and at most 100 (percent)"));
        }
        if out.last().is_some_and(|l| v <= *l) {
            return Err(format!(
                "steps must increase ({p} follows {})",
                out.last().unwrap_or(&0.0)
            ));
        }
        out.push(v);
    }
    if out.is_empty() {
        return Err("give at least one step, like --steps 10,25,50,100".into());
    }
    Ok(out)
}

/// Where a plan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Sending the current step's weights (they may or may not have been sent).
    Applying,
    /// Waiting for InService after the step's change.
    Updating,
    /// Baking the current step.
    Baking,
    /// Stopped; resume or roll back.
    Held,
    /// The last step: keeping only the canary in a new endpoint config (UpdateEndpoint and its
    /// deployment; progress in the `.consolidation` file beside the plan).
    Consolidating,
    /// Restoring the starting weights (first going back to the kept config when the plan
    /// consolidated).
    RollingBack,
    /// Back at the starting weights.
    RolledBack,
    /// Every step passed.
    Completed,
}

impl Phase {
    /// The phase in words (`baking`, `rolled back`).
    pub fn text(self) -> &'static str {
        match self {
            Phase::Applying => "applying",
            Phase::Updating => "updating",
            Phase::Baking => "baking",
            Phase::Held => "held",
            Phase::Consolidating => "consolidating",
            Phase::RollingBack => "rolling back",
            Phase::RolledBack => "rolled back",
            Phase::Completed => "completed",
        }
    }

    /// Whether the plan is over.
    pub fn is_final(self) -> bool {
        matches!(self, Phase::RolledBack | Phase::Completed)
    }
}

/// One step of the timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// 0-based index into the steps.
    pub index: usize,
    /// Canary share in percent.
    pub share: f64,
    /// Weights sent, per variant.
    pub weights: Vec<(String, f64)>,
    /// AWS request id of the change.
    pub request_id: Option<String>,
    /// When the change was sent (or found already made), epoch seconds.
    pub applied_at: Option<f64>,
    /// Bake window start (epoch seconds).
    pub bake_start: Option<f64>,
    /// Bake window end (epoch seconds).
    pub bake_end: Option<f64>,
    /// The gate's figures and verdict.
    pub gate: Option<GateReport>,
}

/// The persisted state of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanState {
    /// Plan id (also in the audit log's reasons).
    pub id: String,
    /// The plan.
    pub spec: PromotionSpec,
    /// The baseline used.
    pub baseline: String,
    /// Weights before the plan (restored on rollback).
    pub start_weights: Vec<(String, f64)>,
    /// Where it is.
    pub phase: Phase,
    /// Current step (index into `spec.steps`).
    pub step: usize,
    /// Steps done or under way.
    pub timeline: Vec<StepRecord>,
    /// Why it is held / rolled back / what happened last.
    pub message: Option<String>,
    /// Last update (epoch seconds).
    pub updated: f64,
    /// Process that last wrote it.
    pub pid: u32,
    /// The operator's reason (written with every step to the audit log).
    #[serde(default)]
    pub reason: Option<String>,
    /// Whether the plan entered its consolidation step (the `.consolidation` file beside the
    /// plan is then its own: a rollback goes back to the config it kept).
    #[serde(default)]
    pub consolidation_started: bool,
}

impl PlanState {
    /// The record of the current step.
    pub fn current(&self) -> Option<&StepRecord> {
        self.timeline.iter().rev().find(|r| r.index == self.step)
    }

    /// Mutable record of the current step.
    pub fn current_mut(&mut self) -> Option<&mut StepRecord> {
        let step = self.step;
        self.timeline.iter_mut().rev().find(|r| r.index == step)
    }

    /// The weights the endpoint should have now: the last step's that was sent, else the start.
    pub fn expected_weights(&self) -> Vec<(String, f64)> {
        self.timeline
            .iter()
            .rev()
            .find(|r| r.applied_at.is_some())
            .map(|r| r.weights.clone())
            .unwrap_or_else(|| self.start_weights.clone())
    }
}

/// The weights giving the canary `share` percent of `total`: the rest shared among the other
/// variants in proportion to their starting weights (all to the baseline when they had none).
pub fn step_weights(start: &[(String, f64)], canary: &str, baseline: &str, share: f64) -> Vec<(String, f64)> {
    let total: f64 = start.iter().map(|(_, w)| w).sum();
    let total = if total > 0.0 { total } else { 1.0 };
    let canary_w = total * share / 100.0;
    let rest = total - canary_w;
    let others: f64 = start.iter().filter(|(v, _)| v != canary).map(|(_, w)| w).sum();
    start
        .iter()
        .map(|(v, w)| {
            let nw = if v == canary {
                canary_w
            } else if others > 0.0 {
                rest * w / others
            } else if v == baseline {
                rest
            } else {
                0.0
            };
            (v.clone(), (nw * 1000.0).round() / 1000.0)
        })
        .collect()
}

/// The baseline: the one given, else the non-canary variant with the most current weight.
pub fn pick_baseline(info: &EndpointInfo, canary: &str, given: Option<&str>) -> Result<String, String> {
    if info.variant(canary).is_none() {
        return Err(format!("endpoint {} has no variant {canary}", info.name));
    }
    if let Some(b) = given {
        if info.variant(b).is_none() {
            return Err(format!("endpoint {} has no variant {b}", info.name));
        }
        if b == canary {
            return Err("the baseline must differ from the canary".into());
        }
        return Ok(b.to_string());
    }
    info.variants
        .iter()
        .filter(|v| v.name != canary)
        .max_by(|a, b| a.current_weight.total_cmp(&b.current_weight))
        .map(|v| v.name.clone())
        .ok_or_else(|| format!("endpoint {} has no variant besides {canary} to compare with", info.name))
}

/// The consolidation progress file of the plan saved at `plan` (`<endpoint>.consolidation`,
/// the same file `promote --consolidate` uses).
pub fn consolidation_path(plan: &Path) -> PathBuf {
    plan.with_extension("consolidation")
}

/// Where plan states live: `<state dir>/promotions/`.
pub fn default_plan_dir() -> Option<PathBuf> {
    crate::local::dirs::state_dir().map(|d| d.join("promotions"))
}

/// The state file of an endpoint's plan.
pub fn plan_path(dir: &Path, endpoint: &str) -> PathBuf {
    let safe: String = endpoint
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{safe}.json"))
}

/// Writes a state: a temporary file, fsync, rename over the old one, fsync of the directory.
pub fn save_state(path: &Path, state: &PlanState) -> std::io::Result<()> {
    save_state_with(path, state, None, &[])
}

/// [`save_state`] with the judge's thresholds (`"judge"`) and the gate alarms (`"alarms"`)
/// saved beside the plan.
pub fn save_state_with(
    path: &Path,
    state: &PlanState,
    judge: Option<&JudgeConfig>,
    alarms: &[String],
) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    crate::local::private::create_private_dir(dir)?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("plan"),
        std::process::id()
    ));
    let mut doc = serde_json::to_value(state).map_err(std::io::Error::other)?;
    if let Some(map) = doc.as_object_mut() {
        if let Some(j) = judge {
            map.insert("judge".into(), serde_json::to_value(j).map_err(std::io::Error::other)?);
        }
        if !alarms.is_empty() {
            map.insert("alarms".into(), alarms.into());
        }
    }
    let body = serde_json::to_vec_pretty(&doc).map_err(std::io::Error::other)?;
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&body)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Every plan in `dir` that is not over (held, interrupted mid-step, rolling back): what a
/// console shows at start, offering resume or roll back. Unreadable files are skipped.
pub fn unfinished_plans(dir: &Path) -> Vec<PlanState> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PlanState> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| load_state(&p).ok().flatten())
        .filter(|s| !s.phase.is_final())
        .collect();
    out.sort_by(|a, b| a.spec.endpoint.cmp(&b.spec.endpoint));
    out
}

/// The judge's thresholds saved with the plan at `path`, if any.
pub fn load_judge(path: &Path) -> Option<JudgeConfig> {
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    serde_json::from_value(doc.get("judge")?.clone()).ok()
}

/// The gate alarms saved with the plan at `path` (empty when none).
pub fn load_alarms(path: &Path) -> Vec<String> {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|d| serde_json::from_value(d.get("alarms")?.clone()).ok())
        .unwrap_or_default()
}

/// Reads a state; `Ok(None)` when there is none.
pub fn load_state(path: &Path) -> Result<Option<PlanState>, String> {
    match std::fs::read(path) {
        Ok(b) => serde_json::from_slice(&b)
            .map(Some)
            .map_err(|e| format!("the plan state {} is unreadable: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read the plan state {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_parse_and_weights_keep_the_total() {
        assert_eq!(parse_steps("10,25,50,100").unwrap(), vec![10.0, 25.0, 50.0, 100.0]);
        assert!(parse_steps("10,5").is_err());
        assert!(parse_steps("0").is_err());
        assert!(parse_steps("150").is_err());
        assert!(parse_steps("").is_err());
        let start = vec![("Stable".to_string(), 9.0), ("Canary".to_string(), 1.0)];
        let w = step_weights(&start, "Canary", "Stable", 25.0);
        assert_eq!(w, vec![("Stable".into(), 7.5), ("Canary".into(), 2.5)]);
        let w = step_weights(&start, "Canary", "Stable", 100.0);
        assert_eq!(w, vec![("Stable".into(), 0.0), ("Canary".into(), 10.0)]);
        let only = vec![("Stable".to_string(), 0.0), ("Canary".to_string(), 5.0)];
        assert_eq!(step_weights(&only, "Canary", "Stable", 50.0)[0].1, 2.5);
    }

    #[test]
    fn states_round_trip_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let path = plan_path(dir.path(), "ep/x");
        assert!(path.ends_with("ep_x.json"));
        assert_eq!(load_state(&path).unwrap(), None);
        let st = PlanState {
            id: "p1".into(),
            spec: PromotionSpec {
                endpoint: "ep".into(),
                canary: "Canary".into(),
                baseline: None,
                steps: vec![50.0, 100.0],
                bake: Duration::from_secs(10),
                gates: Gates::default(),
                mode: Mode::Auto,
                consolidate: true,
            },
            baseline: "Stable".into(),
            start_weights: vec![("Stable".into(), 9.0), ("Canary".into(), 1.0)],
            phase: Phase::Baking,
            step: 0,
            timeline: vec![],
            message: None,
            updated: 0.0,
            pid: 1,
            reason: None,
            consolidation_started: false,
        };
        save_state(&path, &st).unwrap();
        assert_eq!(load_state(&path).unwrap(), Some(st.clone()));
        assert_eq!(unfinished_plans(dir.path()), vec![st.clone()]);
        let done = PlanState {
            phase: Phase::Completed,
            ..st
        };
        save_state(&path, &done).unwrap();
        assert!(unfinished_plans(dir.path()).is_empty());
    }
}
