//! Drives a promotion plan: apply a step (compare-and-swap, audited), wait for InService, bake,
//! gate, then advance, hold, or roll back to the starting weights. The state is saved after every
//! transition, so a plan survives its process: [`PromotionRunner::run`] on a loaded state resumes
//! it. Progress goes out as [`PromotionEvent`]s; decisions come in as [`Control`]s (the manual
//! mode's answers, and hold / roll back at any time during a wait).

use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::aws::change::guard::{Audited, GuardError};
use crate::aws::config::Fleet;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::error::AwsError;
use crate::aws::promote::bake_load::{LoadReport, client_verdicts};
use crate::aws::promote::events::{Control, PromoteError, PromotionEvent, Question, RunnerOptions};
use crate::aws::promote::gate::{apply_alarms, apply_judgement, evaluate};
use crate::aws::promote::plan::{
    Mode, Phase, PlanState, PromotionSpec, StepRecord, pick_baseline, save_state_with, step_weights,
};
use crate::aws::promote::report::{GateReport, Verdict};

/// Runs one plan.
pub struct PromotionRunner {
    pub(super) fleet: Fleet,
    pub(super) audited: Audited,
    pub(super) state: PlanState,
    pub(super) path: PathBuf,
    pub(super) opts: RunnerOptions,
    events: Option<UnboundedSender<PromotionEvent>>,
    control: Option<UnboundedReceiver<Control>>,
    pub(super) confirmed: Option<usize>,
    beat: crate::aws::promote::announce::Beat,
}

pub(super) fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

pub(super) fn weights_of(info: &EndpointInfo) -> Vec<(String, f64)> {
    info.variants
        .iter()
        .map(|v| (v.name.clone(), v.current_weight))
        .collect()
}

pub(super) fn at_weights(info: &EndpointInfo, w: &[(String, f64)]) -> bool {
    w.iter().all(|(n, x)| {
        info.variant(n)
            .is_some_and(|v| (v.current_weight - x).abs() < 1e-3 && (v.desired_weight - x).abs() < 1e-3)
    })
}

impl PromotionRunner {
    /// Validates a new plan against the endpoint (InService, variants exist), records the
    /// starting weights and saves the state at `path`. Returns the runner and its control sender.
    pub async fn begin(
        fleet: Fleet,
        audited: Audited,
        spec: PromotionSpec,
        reason: Option<String>,
        path: PathBuf,
        opts: RunnerOptions,
    ) -> Result<(PromotionRunner, UnboundedSender<Control>), PromoteError> {
        let info = fleet
            .describe_endpoint_info(&spec.endpoint, &AtomicUsize::new(0))
            .await?;
        if info.status != "InService" {
            return Err(PromoteError::Guard(GuardError::NotInService {
                endpoint: info.name.clone(),
                status: info.status.clone(),
            }));
        }
        let baseline = pick_baseline(&info, &spec.canary, spec.baseline.as_deref()).map_err(PromoteError::Invalid)?;
        let start = now();
        let state = PlanState {
            id: format!("{}-{}", spec.endpoint, (start * 1000.0) as u64),
            baseline,
            start_weights: weights_of(&info),
            phase: Phase::Applying,
            step: 0,
            timeline: Vec::new(),
            message: None,
            updated: start,
            pid: std::process::id(),
            reason,
            spec,
            consolidation_started: false,
        };
        let (runner, tx) = PromotionRunner::from_state(fleet, audited, state, path, opts);
        runner.save()?;
        Ok((runner, tx))
    }

    /// A runner for a saved state (`run` resumes it, `rollback` rolls it back).
    pub fn from_state(
        fleet: Fleet,
        audited: Audited,
        state: PlanState,
        path: PathBuf,
        opts: RunnerOptions,
    ) -> (PromotionRunner, UnboundedSender<Control>) {
        let (tx, rx) = unbounded_channel();
        let runner = PromotionRunner {
            fleet,
            audited,
            state,
            path,
            opts,
            events: None,
            control: Some(rx),
            confirmed: None,
            beat: Default::default(),
        };
        (runner, tx)
    }

    /// Sends progress to `tx`.
    pub fn with_events(mut self, tx: UnboundedSender<PromotionEvent>) -> Self {
        self.events = Some(tx);
        self
    }

    /// The plan's state.
    pub fn state(&self) -> &PlanState {
        &self.state
    }

    pub(super) fn emit(&self, e: PromotionEvent) {
        if let Some(tx) = &self.events {
            let _ = tx.send(e);
        }
    }

    fn save(&self) -> Result<(), PromoteError> {
        save_state_with(&self.path, &self.state, self.opts.judge.as_ref(), &self.opts.alarms)
            .map_err(|e| PromoteError::State(format!("{}: {e}", self.path.display())))
    }

    pub(super) fn transition(&mut self, phase: Phase, message: Option<String>) -> Result<(), PromoteError> {
        self.state.phase = phase;
        if message.is_some() {
            self.state.message = message;
        }
        self.state.updated = now();
        self.state.pid = std::process::id();
        self.save()?;
        self.beat.announce(&self.audited, &self.state, self.opts.heartbeat);
        self.emit(PromotionEvent::Saved {
            state: Box::new(self.state.clone()),
        });
        Ok(())
    }

    /// Waits for a control; None when the sender is gone.
    pub(super) async fn ask(&mut self, q: Question) -> Option<Control> {
        self.emit(PromotionEvent::Ask { question: q });
        match self.control.as_mut() {
            Some(rx) => rx.recv().await,
            None => None,
        }
    }

    /// Runs `fut` unless a Hold or Rollback arrives first (`Err(control)` then).
    async fn interruptible<T>(&mut self, fut: impl std::future::Future<Output = T>) -> Result<T, Control> {
        tokio::pin!(fut);
        loop {
            let Some(rx) = self.control.as_mut() else {
                return Ok(fut.await);
            };
            tokio::select! {
                v = &mut fut => return Ok(v),
                c = rx.recv() => match c {
                    Some(Control::Proceed) => {}
                    Some(c) => return Err(c),
                    None => self.control = None,
                },
            }
        }
    }

    pub(super) fn held_text(&self, why: &str) -> String {
        format!(
            "{why}; resume with `sagedeck promote {ep} --resume`, or roll back with `sagedeck promote {ep} --rollback`",
            ep = self.state.spec.endpoint
        )
    }

    /// The operator's latest decision that arrived while the plan was not listening (reading
    /// a gate, sending a change, following a deployment): a rollback outweighs a hold; a
    /// proceed is not a decision here. None when nothing is waiting.
    pub(super) fn pending_control(&mut self) -> Option<Control> {
        let rx = self.control.as_mut()?;
        let mut got = None;
        loop {
            match rx.try_recv() {
                Ok(Control::Rollback) => got = Some(Control::Rollback),
                Ok(Control::Hold) => got = got.or(Some(Control::Hold)),
                Ok(Control::Proceed) => {}
                Err(tokio::sync::mpsc::error::TryRecvError::Empty) => return got,
                Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => {
                    self.control = None;
                    return got;
                }
            }
        }
    }

    pub(super) async fn on_control(&mut self, c: Control, during: &str) -> Result<(), PromoteError> {
        match c {
            Control::Rollback => self.transition(Phase::RollingBack, Some(format!("rollback asked during {during}"))),
            _ => {
                let m = self.held_text(&format!("held by the operator during {during}"));
                self.transition(Phase::Held, Some(m))
            }
        }
    }

    /// Drives the plan until it completes, rolls back or is held; resumes a held or interrupted
    /// plan (a held plan whose step passed goes to the next step; otherwise the step bakes again).
    pub async fn run(mut self) -> Result<PlanState, PromoteError> {
        if self.state.phase == Phase::Held {
            let passed = self.state.current().and_then(|r| r.gate.as_ref()).map(|g| g.verdict) == Some(Verdict::Pass);
            let applied = self.state.current().is_some_and(|r| r.applied_at.is_some());
            if passed {
                self.advance()?;
            } else if applied {
                self.transition(Phase::Updating, Some("resumed: baking the step again".into()))?;
            } else {
                self.transition(Phase::Applying, Some("resumed".into()))?;
            }
        }
        loop {
            match self.state.phase {
                Phase::Completed | Phase::RolledBack | Phase::Held => return Ok(self.state),
                Phase::Applying => self.apply_step().await?,
                Phase::Updating => self.wait_step().await?,
                Phase::Baking => self.bake_step().await?,
                Phase::Consolidating => self.consolidate_step().await?,
                Phase::RollingBack => self.do_rollback().await?,
            }
        }
    }

    /// Rolls the plan back to its starting weights (whatever its phase, unless it is over).
    pub async fn rollback(mut self) -> Result<PlanState, PromoteError> {
        if !self.state.phase.is_final() {
            self.transition(Phase::RollingBack, Some("rollback asked".into()))?;
            self.do_rollback().await?;
        }
        Ok(self.state)
    }

    fn advance(&mut self) -> Result<(), PromoteError> {
        if self.state.step + 1 >= self.state.spec.steps.len() {
            // Consolidation keeps only the canary: only once it holds all the traffic.
            let at_full = self.state.spec.steps.last().is_some_and(|s| *s >= 100.0);
            if self.state.spec.consolidate && at_full {
                return self.begin_consolidation();
            }
            let msg = format!("the canary {} has every step's traffic", self.state.spec.canary);
            return self.transition(Phase::Completed, Some(msg));
        }
        self.state.step += 1;
        self.transition(Phase::Applying, None)
    }

    async fn apply_step(&mut self) -> Result<(), PromoteError> {
        let i = self.state.step;
        let share = self.state.spec.steps[i];
        if let Some(c) = self.pending_control() {
            return self.on_control(c, &format!("the change of step {}", i + 1)).await;
        }
        if self.state.spec.mode == Mode::Manual && self.confirmed != Some(i) {
            match self.ask(Question::NextStep { step: i, share }).await {
                Some(Control::Proceed) => self.confirmed = Some(i),
                Some(Control::Rollback) => return self.transition(Phase::RollingBack, Some("rollback asked".into())),
                _ => {
                    let m = self.held_text(&format!("held before step {} ({share}%)", i + 1));
                    return self.transition(Phase::Held, Some(m));
                }
            }
        }
        let target = step_weights(
            &self.state.start_weights,
            &self.state.spec.canary,
            &self.state.baseline,
            share,
        );
        if self.state.current().is_none() {
            self.state.timeline.push(StepRecord {
                index: i,
                share,
                weights: target.clone(),
                request_id: None,
                applied_at: None,
                bake_start: None,
                bake_end: None,
                gate: None,
            });
        }
        let why = format!(
            "plan {} step {}/{}: canary {} to {share}%{}",
            self.state.id,
            i + 1,
            self.state.spec.steps.len(),
            self.state.spec.canary,
            self.state
                .reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        );
        let request_id = match self.send(&target, "promote.step", why).await {
            Ok(id) => id,
            Err(PromoteError::Guard(
                e @ (GuardError::Changed { .. }
                | GuardError::NotInService { .. }
                | GuardError::LostRace { .. }
                | GuardError::Audit(_)),
            )) => {
                let m = self.held_text(&format!("held: {e}"));
                self.transition(Phase::Held, Some(m))?;
                return Err(e.into());
            }
            Err(e) => return Err(e),
        };
        if let Some(r) = self.state.current_mut() {
            r.request_id = request_id.clone();
            r.applied_at = Some(now());
        }
        self.emit(PromotionEvent::Applied {
            step: i,
            weights: target,
            request_id,
        });
        self.transition(Phase::Updating, None)
    }

    async fn wait_in_service(&mut self) -> Result<Result<EndpointInfo, AwsError>, Control> {
        let fleet = self.fleet.clone();
        let (ep, timeout, every) = (
            self.state.spec.endpoint.clone(),
            self.opts.update_timeout,
            self.opts.poll_interval,
        );
        self.interruptible(async move { fleet.wait_in_service(&ep, timeout, every, |_| {}).await })
            .await
    }

    async fn wait_step(&mut self) -> Result<(), PromoteError> {
        match self.wait_in_service().await {
            Err(c) => return self.on_control(c, "the update").await,
            Ok(r) => r?,
        };
        let start = now();
        let end = start + self.state.spec.bake.as_secs_f64();
        if let Some(r) = self.state.current_mut() {
            r.bake_start = Some(start);
            r.bake_end = Some(end);
            r.gate = None;
        }
        self.transition(Phase::Baking, None)
    }

    async fn bake_step(&mut self) -> Result<(), PromoteError> {
        let i = self.state.step;
        let (start, end) = match self.state.current() {
            Some(StepRecord {
                bake_start: Some(s),
                bake_end: Some(e),
                ..
            }) => (*s, *e),
            _ => return self.transition(Phase::Updating, None),
        };
        self.emit(PromotionEvent::Baking { step: i, until: end });
        let left = Duration::from_secs_f64((end - now()).max(0.0));
        let load = self.opts.load.as_ref().map(|cfg| {
            let period = self.opts.judge.map_or(10, |j| j.period.max(1)) as u64;
            self.fleet.start_bake_load(
                &self.state.spec.endpoint,
                [self.state.spec.canary.as_str(), self.state.baseline.as_str()],
                cfg,
                Duration::from_secs(period),
            )
        });
        if let Err(c) = self.interruptible(tokio::time::sleep(left)).await {
            drop(load);
            return self.on_control(c, &format!("the bake of step {}", i + 1)).await;
        }
        let measured = match load {
            Some(h) => Some(h.stop().await),
            None => None,
        };
        self.emit(PromotionEvent::Judging { step: i });
        // Judging: CloudWatch publishes late; then the gate is read. A choice that arrives
        // while it is read is carried out as soon as it is read.
        if let Err(c) = self.interruptible(tokio::time::sleep(self.opts.metrics_delay)).await {
            return self.on_control(c, &format!("the judging of step {}", i + 1)).await;
        }
        let report = self.gate(start, end, measured.as_ref()).await?;
        let verdict = report.verdict;
        if let Some(r) = self.state.current_mut() {
            r.gate = Some(report.clone());
        }
        self.emit(PromotionEvent::Gate {
            step: i,
            report: Box::new(report.clone()),
        });
        if let Some(c) = self.pending_control() {
            return self.on_control(c, &format!("the judging of step {}", i + 1)).await;
        }
        let why = report.reasons.join("; ");
        let manual = self.state.spec.mode == Mode::Manual;
        match (verdict, manual) {
            (Verdict::Pass, _) => self.advance(),
            (Verdict::Fail, false) => self.transition(
                Phase::RollingBack,
                Some(format!("step {} failed its gate: {why}", i + 1)),
            ),
            (Verdict::NoVerdict, false) => {
                let m = self.held_text(&format!("no verdict at step {}: {why}", i + 1));
                self.transition(Phase::Held, Some(m))
            }
            (v, true) => match self.ask(Question::AfterGate { step: i, verdict: v }).await {
                Some(Control::Rollback) => self.transition(Phase::RollingBack, Some(format!("step {}: {why}", i + 1))),
                Some(Control::Proceed) if v == Verdict::NoVerdict => {
                    self.transition(Phase::Updating, Some("baking the step again".into()))
                }
                _ => {
                    let m = self.held_text(&format!("step {} {}: {why}", i + 1, v.as_str()));
                    self.transition(Phase::Held, Some(m))
                }
            },
        }
    }

    async fn gate(&self, start: f64, end: f64, load: Option<&LoadReport>) -> Result<GateReport, PromoteError> {
        let calls = AtomicUsize::new(0);
        let info = self
            .fleet
            .describe_endpoint_info(&self.state.spec.endpoint, &calls)
            .await?;
        let (canary, baseline) = (&self.state.spec.canary, &self.state.baseline);
        let (figs, window) = self
            .fleet
            .window_figures(&info, &[canary.as_str(), baseline.as_str()], start, end)
            .await?;
        let min = self.state.spec.gates.min_invocations as f64;
        let earlier = self.state.timeline.iter().rev().find_map(|r| {
            let g = r.gate.as_ref()?;
            (g.baseline.invocations >= min && g.baseline.p99_ms.is_some())
                .then(|| (g.baseline.clone(), format!("step {}", r.index + 1)))
        });
        let mut report = evaluate(
            window,
            figs[0].clone(),
            figs[1].clone(),
            earlier,
            &self.state.spec.gates,
        );
        if let Some(cfg) = &self.opts.judge {
            let mut verdicts = self
                .fleet
                .window_judgement(&info, canary, baseline, start, end, cfg)
                .await?;
            if let Some(l) = load {
                verdicts.extend(client_verdicts(l, cfg));
            }
            apply_judgement(&mut report, &verdicts, cfg);
        }
        if !self.opts.alarms.is_empty() {
            let fired = self.fleet.alarms_fired_since(&self.opts.alarms, start).await?;
            apply_alarms(&mut report, &self.opts.alarms, &fired);
        }
        Ok(report)
    }
}
