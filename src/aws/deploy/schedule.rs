//! The schedule of a deployment, from the live instance counts, before anything is sent: what
//! launches, how traffic moves, each bake, when the old fleet is terminated (≈: launching takes
//! as long as AWS takes), and which alarms roll it back.

use serde::Serialize;

use crate::aws::deploy::policy::{Capacity, DeployFacts, DeploySpec, Policy, Shift, capacity_text};

/// How long launching a fleet is taken to last when the schedule estimates its end.
pub const LAUNCH_ESTIMATE_SECS: i64 = 600;

/// One step of a schedule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// What happens.
    pub text: String,
    /// How long it lasts (0 for a shift), in seconds.
    pub secs: i64,
}

/// A deployment's schedule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Schedule {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// When the old fleet is terminated, in seconds after the start (an estimate).
    pub end_secs: i64,
    /// The alarms that roll it back.
    pub alarms: Vec<String>,
}

/// `10m`, `1h30m`, `45s`, `0s`.
pub fn span(secs: i64) -> String {
    let (h, m, s) = (secs / 3600, secs % 3600 / 60, secs % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 || out.is_empty() {
        out.push_str(&format!("{s}s"));
    }
    out
}

fn step(text: impl Into<String>, secs: i64) -> Step {
    Step {
        text: text.into(),
        secs,
    }
}

/// The schedule of `spec` on `facts`, launching taken as `launch_secs`.
pub fn schedule(spec: &DeploySpec, facts: &DeployFacts, launch_secs: i64) -> Schedule {
    let fleet = facts
        .new
        .iter()
        .map(|v| match (&v.instance_type, v.serverless) {
            (_, true) => format!("{} serverless", v.name),
            (Some(t), _) => format!("{} × {t}", v.instances),
            (None, _) => format!("{} instance(s)", v.instances),
        })
        .collect::<Vec<_>>()
        .join(" + ");
    let most = facts.new.iter().map(|v| v.instances).max().unwrap_or(1);
    let mut steps = Vec::new();
    match spec.policy {
        Policy::BlueGreen {
            shift,
            bake_secs,
            final_bake_secs,
        } => {
            steps.push(step(format!("t+0 launch {fleet} (new fleet)"), launch_secs));
            let bake = i64::from(bake_secs);
            match shift {
                Shift::AllAtOnce => steps.push(step("shift all traffic", 0)),
                Shift::Canary(size) => {
                    steps.push(step(
                        format!("canary {}", capacity_text(size, size.instances_of(most))),
                        0,
                    ));
                    steps.push(step(format!("bake {}", span(bake)), bake));
                    steps.push(step("shift the rest", 0));
                }
                Shift::Linear(p) => {
                    let n = (100 + p - 1) / p;
                    let each = Capacity::Percent(p).instances_of(most);
                    steps.push(step(
                        format!(
                            "shift {} then bake {} × {}",
                            capacity_text(Capacity::Percent(p), each),
                            span(bake),
                            n - 1
                        ),
                        bake * i64::from(n - 1),
                    ));
                    steps.push(step("shift the rest", 0));
                }
            }
            let fin = i64::from(final_bake_secs);
            steps.push(step(format!("final bake {}", span(fin)), fin));
        }
        Policy::Rolling {
            batch_percent,
            bake_secs,
            rollback_percent,
        } => {
            let batch = Capacity::Percent(batch_percent).instances_of(most);
            let batches = i64::from((most + batch - 1) / batch);
            let bake = i64::from(bake_secs);
            steps.push(step(
                format!(
                    "t+0 in batches of {}: launch the batch on the new configuration, shift its traffic, bake {}, terminate an old batch; × {batches}",
                    capacity_text(Capacity::Percent(batch_percent), batch),
                    span(bake)
                ),
                batches * (launch_secs + bake),
            ));
            let back = rollback_percent.map_or("all at once".to_string(), |p| {
                format!(
                    "in batches of {}",
                    capacity_text(Capacity::Percent(p), Capacity::Percent(p).instances_of(most))
                )
            });
            steps.push(step(format!("a rollback relaunches the old configuration {back}"), 0));
        }
    }
    let end_secs = steps.iter().map(|s| s.secs).sum();
    Schedule {
        steps,
        end_secs,
        alarms: spec.alarms.clone(),
    }
}

impl Schedule {
    /// One line: `t+0 launch 4 × ml.g5.2xlarge (new fleet); canary 1 instance; bake 10m; …;
    /// old fleet terminated at ≈ t+42m; rolls back if any of: A, B`.
    pub fn text(&self) -> String {
        let mut parts: Vec<String> = self.steps.iter().map(|s| s.text.clone()).collect();
        parts.push(format!("old fleet terminated at ≈ t+{}", span(self.end_secs)));
        if self.alarms.is_empty() {
            parts.push("no rollback alarms: nothing rolls it back on its own".into());
        } else {
            parts.push(format!("rolls back if any of: {}", self.alarms.join(", ")));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aws::deploy::policy::VariantFacts;

    fn facts(instances: i32) -> DeployFacts {
        let v = VariantFacts {
            name: "AllTraffic".into(),
            instance_type: Some("ml.g5.2xlarge".into()),
            instances,
            serverless: false,
            marketplace: false,
        };
        DeployFacts {
            endpoint: "ep".into(),
            current_config: "old".into(),
            new_config: "new".into(),
            current: vec![v.clone()],
            new: vec![v],
        }
    }

    #[test]
    fn a_canary_schedule_reads_as_the_issue_shows_it() {
        let spec = DeploySpec {
            policy: Policy::BlueGreen {
                shift: Shift::Canary(Capacity::Instances(1)),
                bake_secs: 600,
                final_bake_secs: 600,
            },
            max_time_secs: 3600,
            alarms: vec!["sagedeck-ep-5xx-rate".into()],
            retain_all: false,
            retain_deployment: false,
        };
        assert_eq!(
            schedule(&spec, &facts(4), 1320).text(),
            "t+0 launch 4 × ml.g5.2xlarge (new fleet); canary 1 instance; bake 10m; shift the rest; final bake 10m; old fleet terminated at ≈ t+42m; rolls back if any of: sagedeck-ep-5xx-rate"
        );
    }

    #[test]
    fn spans_read_as_durations() {
        assert_eq!(span(0), "0s");
        assert_eq!(span(5400), "1h30m");
        assert_eq!(span(61), "1m1s");
    }
}
