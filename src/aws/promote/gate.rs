//! A promotion step's gate: the canary's and the baseline's figures over the bake window from
//! CloudWatch (ModelLatency p99 — the worst period of the window —, Invocations, 4XX and 5//! sums), and the verdict. Too few invocations give "no verdict", never a pass. When the baseline
//! had no traffic in the window (the last step sends it none), the latest baseline figures with
//! enough invocations from an earlier step are the reference.

use std::time::{Duration, UNIX_EPOCH};

use crate::aws::config::Fleet;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::error::AwsError;
use crate::aws::judge::compare::{JudgeConfig, MetricVerdict, Outcome, combine, judge_variants};
use crate::aws::observe::alarms::AlarmStatus;
use crate::aws::observe::metrics::{MetricsPlan, MetricsSnapshot, VariantMetrics};
use crate::aws::promote::report::{Figures, GateCheck, GateReport, Gates, Verdict};

/// The verdict of `canary` against `reference` (the baseline; None when none is known).
pub fn evaluate(
    window: (f64, f64),
    canary: Figures,
    baseline: Figures,
    earlier: Option<(Figures, String)>,
    gates: &Gates,
) -> GateReport {
    let (reference, reference_from) = reference_figures(&baseline, earlier, gates);
    let mut list = CheckList::default();
    let enough = list.invocations(&canary, gates);
    list.p99_ratio(&canary, reference.as_ref(), enough, gates);
    list.error_rate("5xx_rate", "5XX", canary.rate_5xx(), gates.max_5xx_rate, enough);
    if let Some(max4) = gates.max_4xx_rate {
        list.error_rate("4xx_rate", "4XX", canary.rate_4xx(), max4, enough);
    }
    let verdict = list.verdict();
    GateReport {
        start: window.0,
        end: window.1,
        canary,
        baseline,
        reference,
        reference_from,
        checks: list.checks,
        verdict,
        reasons: list.reasons,
        judge: Vec::new(),
    }
}

/// The baseline figures to compare with, and where they come from: this window's when the
/// baseline had enough invocations and a p99, an earlier step's otherwise (if any).
fn reference_figures(
    baseline: &Figures,
    earlier: Option<(Figures, String)>,
    gates: &Gates,
) -> (Option<Figures>, Option<String>) {
    if baseline.invocations >= gates.min_invocations as f64 && baseline.p99_ms.is_some() {
        (Some(baseline.clone()), Some("this step".to_string()))
    } else {
        match earlier {
            Some((f, from)) => (Some(f), Some(from)),
            None => (None, None),
        }
    }
}

/// A gate's checks in the order they are made, and the reasons of those that fail or cannot
/// be judged.
#[derive(Default)]
struct CheckList {
    checks: Vec<GateCheck>,
    reasons: Vec<String>,
}

impl CheckList {
    /// Whether the canary had enough invocations for a verdict.
    fn invocations(&mut self, canary: &Figures, gates: &Gates) -> bool {
        let min = gates.min_invocations as f64;
        let enough = canary.invocations >= min;
        self.checks.push(GateCheck {
            name: "invocations".into(),
            value: Some(canary.invocations),
            limit: min,
            ok: Some(enough),
        });
        if !enough {
            self.reasons.push(format!(
                "the canary had {} invocations, {} needed for a verdict",
                canary.invocations, gates.min_invocations
            ));
        }
        enough
    }

    /// The canary's p99 over the reference's, judged only with `enough` invocations.
    fn p99_ratio(&mut self, canary: &Figures, reference: Option<&Figures>, enough: bool, gates: &Gates) {
        let ratio = match (canary.p99_ms, reference.and_then(|r| r.p99_ms)) {
            (Some(c), Some(b)) if b > 0.0 => Some(c / b),
            _ => None,
        };
        if ratio.is_none() && enough {
            self.reasons
                .push("no baseline p99 to compare with (the baseline had too few invocations)".into());
        }
        let ratio_ok = if enough {
            ratio.map(|r| r <= gates.max_p99_ratio)
        } else {
            None
        };
        if ratio_ok == Some(false) {
            self.reasons.push(format!(
                "p99 ratio {:.2} is above {:.2}",
                ratio.unwrap_or_default(),
                gates.max_p99_ratio
            ));
        }
        self.checks.push(GateCheck {
            name: "p99_ratio".into(),
            value: ratio,
            limit: gates.max_p99_ratio,
            ok: ratio_ok,
        });
    }

    /// An error-rate check, judged only with `enough` invocations.
    fn error_rate(&mut self, name: &str, label: &str, rate: Option<f64>, limit: f64, enough: bool) {
        let ok = if enough { rate.map(|r| r <= limit) } else { None };
        if ok == Some(false) {
            self.reasons.push(format!(
                "{label} rate {:.2}% is above {:.2}%",
                rate.unwrap_or_default() * 100.0,
                limit * 100.0
            ));
        }
        self.checks.push(GateCheck {
            name: name.into(),
            value: rate,
            limit,
            ok,
        });
    }

    /// Fail when a judged check failed, pass when every check held, no verdict otherwise.
    fn verdict(&self) -> Verdict {
        if self
            .checks
            .iter()
            .any(|c| c.ok == Some(false) && c.name != "invocations")
        {
            // Only judged checks can fail: with too few invocations none is judged.
            Verdict::Fail
        } else if self.checks.iter().all(|c| c.ok == Some(true)) {
            Verdict::Pass
        } else {
            Verdict::NoVerdict
        }
    }
}

/// The GetMetricData window and period for a bake `[start, end)`: 60 s periods from a minute on
/// (10, 20 or 30 s — CloudWatch's high-resolution periods — below), the window shrunk to whole
/// periods so that no traffic from before the bake counts; a bake shorter than one whole period
/// keeps its own bounds (the first period then also holds some traffic from before it).
pub fn gate_window(start: f64, end: f64) -> (f64, f64, i32) {
    let len = end - start;
    let period: i32 = match len.ceil() as i64 {
        i64::MIN..=10 => 10,
        11..=20 => 20,
        21..=59 => 30,
        _ => 60,
    };
    let p = f64::from(period);
    let (a, b) = ((start / p).ceil() * p, (end / p).floor() * p);
    if b - a >= p {
        (a, b, period)
    } else {
        (start, end, period)
    }
}

/// Adds the judge's per-metric verdicts to a gate report: one `judge_<metric>` check each
/// (value: the p-value, limit: alpha; not judged when inconclusive), a reason line per metric
/// that did not pass (with its p-value, shift and the data's size and medians); a failing metric
/// fails the gate, an inconclusive one turns a pass into no verdict.
pub fn apply_judgement(report: &mut GateReport, verdicts: &[MetricVerdict], cfg: &JudgeConfig) {
    for v in verdicts {
        report.checks.push(GateCheck {
            name: format!("judge_{}", v.metric),
            value: v.p_value,
            limit: cfg.alpha,
            ok: match v.outcome {
                Outcome::Pass => Some(true),
                Outcome::Fail => Some(false),
                Outcome::Inconclusive => None,
            },
        });
        if v.outcome != Outcome::Pass {
            report.reasons.push(format!("judge: {}", v.summary()));
        }
    }
    report.judge.extend(verdicts.iter().cloned());
    match combine(verdicts) {
        Outcome::Fail => report.verdict = Verdict::Fail,
        Outcome::Inconclusive if report.verdict == Verdict::Pass => report.verdict = Verdict::NoVerdict,
        _ => {}
    }
}

/// Adds the gate alarms to a report: one `alarm_<name>` check each; one that fired during the
/// bake (or is in ALARM now) fails the gate, with its reason.
pub fn apply_alarms(report: &mut GateReport, names: &[String], fired: &[AlarmStatus]) {
    for name in names {
        let hit = fired.iter().find(|a| &a.name == name);
        report.checks.push(GateCheck {
            name: format!("alarm_{name}"),
            value: None,
            limit: 0.0,
            ok: Some(hit.is_none()),
        });
        if let Some(a) = hit {
            report
                .reasons
                .push(format!("alarm {name} entered ALARM during the bake: {}", a.reason));
            report.verdict = Verdict::Fail;
        }
    }
}

impl Fleet {
    async fn window_snapshot(
        &self,
        info: &EndpointInfo,
        (start, end): (f64, f64),
        period: Option<i32>,
    ) -> Result<(MetricsSnapshot, (f64, f64)), AwsError> {
        let (start, end, period) = match period {
            // Whole periods inside the bake.
            Some(p) => {
                let pf = f64::from(p);
                let (a, b) = ((start / pf).ceil() * pf, (end / pf).floor() * pf);
                if b > a { (a, b, p) } else { (start, end, p) }
            }
            None => gate_window(start, end),
        };
        let window = Duration::from_secs_f64((end - start).max(1.0));
        let mut plan = MetricsPlan::for_endpoints(std::slice::from_ref(info), window, 60);
        plan.period = period;
        let end_t = UNIX_EPOCH + Duration::from_secs_f64(end.max(0.0));
        Ok((self.fetch_metrics(&plan, end_t).await?, (start, end)))
    }

    /// The judge's verdicts for `canary` against `baseline` of `info` over the bake
    /// `[start, end)`, from their per-period series (see `judge/compare.rs`).
    pub async fn window_judgement(
        &self,
        info: &EndpointInfo,
        canary: &str,
        baseline: &str,
        start: f64,
        end: f64,
        cfg: &JudgeConfig,
    ) -> Result<Vec<MetricVerdict>, AwsError> {
        let (snap, _) = self.window_snapshot(info, (start, end), Some(cfg.period)).await?;
        let empty = |v: &str| VariantMetrics {
            endpoint: info.name.clone(),
            variant: v.to_string(),
            multi_model: false,
            summary: Default::default(),
            series: Default::default(),
        };
        let c = snap
            .variant(&info.name, canary)
            .cloned()
            .unwrap_or_else(|| empty(canary));
        let b = snap
            .variant(&info.name, baseline)
            .cloned()
            .unwrap_or_else(|| empty(baseline));
        Ok(judge_variants(&c, &b, cfg))
    }

    /// The figures of `variants` of `info` over the bake `[start, end)` (epoch seconds), and the
    /// window actually queried ([`gate_window`]).
    pub async fn window_figures(
        &self,
        info: &EndpointInfo,
        variants: &[&str],
        start: f64,
        end: f64,
    ) -> Result<(Vec<Figures>, (f64, f64)), AwsError> {
        let (snap, (start, end)) = self.window_snapshot(info, (start, end), None).await?;
        let figures = variants
            .iter()
            .map(|v| {
                snap.variant(&info.name, v)
                    // `+ 0.0`: an empty sum is -0.0.
                    .map(|m| Figures {
                        invocations: m.summary.invocations + 0.0,
                        p99_ms: m.summary.model_latency_p99_max_ms,
                        errors_5xx: m.summary.errors_5xx + 0.0,
                        errors_4xx: m.summary.errors_4xx + 0.0,
                    })
                    .unwrap_or_default()
            })
            .collect();
        Ok((figures, (start, end)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(n: f64, p99: f64, e5: f64) -> Figures {
        Figures {
            invocations: n,
            p99_ms: Some(p99),
            errors_5xx: e5,
            errors_4xx: 0.0,
        }
    }

    #[test]
    fn verdicts() {
        let g = Gates {
            min_invocations: 50,
            ..Gates::default()
        };
        let pass = evaluate((0.0, 1.0), f(100.0, 10.0, 0.0), f(900.0, 10.0, 0.0), None, &g);
        assert_eq!(pass.verdict, Verdict::Pass);
        let slow = evaluate((0.0, 1.0), f(100.0, 20.0, 0.0), f(900.0, 10.0, 0.0), None, &g);
        assert_eq!(slow.verdict, Verdict::Fail);
        assert!(slow.reasons[0].contains("p99 ratio 2.00"));
        let errors = evaluate((0.0, 1.0), f(100.0, 10.0, 5.0), f(900.0, 10.0, 0.0), None, &g);
        assert_eq!(errors.verdict, Verdict::Fail);
        let few = evaluate((0.0, 1.0), f(10.0, 10.0, 0.0), f(900.0, 10.0, 0.0), None, &g);
        assert_eq!(few.verdict, Verdict::NoVerdict);
        let no_base = evaluate((0.0, 1.0), f(100.0, 10.0, 0.0), f(0.0, 0.0, 0.0), None, &g);
        assert_eq!(no_base.verdict, Verdict::NoVerdict);
        let earlier = Some((f(500.0, 10.0, 0.0), "step 2".to_string()));
        let last = evaluate((0.0, 1.0), f(100.0, 11.0, 0.0), Figures::default(), earlier, &g);
        assert_eq!(last.verdict, Verdict::Pass);
        assert_eq!(last.reference_from.as_deref(), Some("step 2"));
        assert_eq!(gate_window(1005.0, 1009.0), (1005.0, 1009.0, 10));
        assert_eq!(gate_window(1005.0, 1305.0), (1020.0, 1260.0, 60));
        assert_eq!(gate_window(1000.0, 1030.0), (1000.0, 1030.0, 30));
    }
}
