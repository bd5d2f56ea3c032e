//! The schedule of a deployment (UpdateEndpoint with deployment guardrails): the steps a green
//! fleet goes through beside the blue one — launch, traffic shifted by the policy, bakes, the
//! old fleet terminated — and the steps of a rollback. Plain records and arithmetic; the control
//! plane walks them (`sagemaker/deploy/`).

/// A variant status as AWS spells it (`ProductionVariantStatus.Status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepStatus {
    /// Creating inference resources.
    Creating,
    /// Updating capacity.
    Updating,
    /// Terminating inference resources.
    Deleting,
    /// Turning on traffic.
    ActivatingTraffic,
    /// Waiting while the rollback alarms are watched.
    Baking,
}

impl StepStatus {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Creating => "Creating",
            StepStatus::Updating => "Updating",
            StepStatus::Deleting => "Deleting",
            StepStatus::ActivatingTraffic => "ActivatingTraffic",
            StepStatus::Baking => "Baking",
        }
    }
}

/// A number of a variant's instances: a count, or a percentage of the variant's instances.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Capacity {
    /// This many instances (at most all of them).
    Instances(i32),
    /// This percentage of the instances, rounded up.
    Percent(f64),
}

impl Capacity {
    /// Every instance.
    pub const ALL: Capacity = Capacity::Percent(100.0);
    /// No instance.
    pub const NONE: Capacity = Capacity::Instances(0);

    /// The instances this capacity is out of `total`.
    pub fn of(self, total: i32) -> i32 {
        let n = match self {
            Capacity::Instances(n) => n,
            Capacity::Percent(p) => (p / 100.0 * total as f64 - 1e-9).ceil() as i32,
        };
        n.clamp(0, total.max(0))
    }
}

/// What a step's StatusMessage says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// `Launching N instance(s).`
    Launch,
    /// `Launching N instance(s) (batch I of M).` (a rolling batch)
    LaunchBatch(i32, i32, i32),
    /// `Terminating N instance(s) of the old fleet (batch I of M).`
    TerminateBatch(i32, i32, i32),
    /// `Activating traffic on canary capacity of N instance(s).`
    ActivateCanary,
    /// `Activating traffic on N instance(s) of M (linear step).`
    ActivateStep,
    /// `Activating traffic on full capacity of N instance(s).`
    ActivateFull,
    /// `Baking for S seconds (WaitIntervalInSeconds) with traffic enabled on canary capacity …`
    BakeCanary,
    /// `Baking for S seconds (WaitIntervalInSeconds) with traffic enabled on N instance(s) …`
    BakeStep,
    /// `Baking for S seconds (TerminationWaitInSeconds) with traffic enabled on full capacity …`
    BakeFull,
    /// `Terminating N instance(s) of the old fleet.`
    TerminateOld,
    /// `Rolling back traffic to the old fleet of N instance(s).`
    RollbackTraffic,
    /// `Launching N instance(s) of the old fleet.` (a rolling rollback's batch)
    RollbackLaunch,
    /// `Launching N instance(s) of the old fleet.` (a rolling rollback's batch of N)
    RollbackBatch(i32),
    /// `Terminating N instance(s) of the new fleet.`
    TerminateNew,
    /// `Terminating N instance(s) of the new fleet.` (a rolling rollback's batch of N)
    TerminateNewBatch(i32),
}

/// One step of a deployment or of its rollback, for every variant alike.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The variant status while it runs.
    pub status: StepStatus,
    /// What its StatusMessage says.
    pub message: Message,
    /// How long it lasts, in seconds (scaled).
    pub secs: f64,
    /// The wait as the policy gave it (shown in bake messages).
    pub shown_secs: u32,
    /// Green instances up (launching ones not yet counted).
    pub green: Capacity,
    /// Green instances taking traffic.
    pub green_serving: Capacity,
    /// Blue instances up.
    pub blue: Capacity,
    /// Whether the rollback alarms are evaluated during it.
    pub bake: bool,
}

/// One variant's instance counts during a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counts {
    /// The variant's instances in the new configuration.
    pub total: i32,
    /// Green instances up.
    pub green: i32,
    /// Green instances taking traffic.
    pub green_serving: i32,
    /// Blue instances up.
    pub blue: i32,
    /// The fraction of the variant's requests the green fleet answers.
    pub green_share: f64,
}

impl Step {
    /// The counts of a variant of `total` instances; `rolling` when blue instances leave as green
    /// ones arrive (traffic then splits by instances up, not by capacity shifted).
    pub fn counts(&self, total: i32, rolling: bool) -> Counts {
        let green = self.green.of(total);
        let green_serving = self.green_serving.of(total).min(green);
        let blue = self.blue.of(total);
        let green_share = if rolling {
            let all = green_serving + blue;
            if all == 0 {
                1.0
            } else {
                green_serving as f64 / all as f64
            }
        } else if total == 0 {
            0.0
        } else {
            green_serving as f64 / total as f64
        };
        Counts {
            total,
            green,
            green_serving,
            blue,
            green_share,
        }
    }

    /// The StatusMessage for a variant with these counts.
    pub fn status_message(&self, c: &Counts) -> String {
        let s = self.shown_secs;
        match self.message {
            Message::Launch => format!("Launching {} instance(s).", c.total),
            Message::LaunchBatch(k, i, n) => format!("Launching {k} instance(s) (batch {i} of {n})."),
            Message::TerminateBatch(k, i, n) => {
                format!("Terminating {k} instance(s) of the old fleet (batch {i} of {n}).")
            }
            Message::ActivateCanary => {
                format!(
                    "Activating traffic on canary capacity of {} instance(s).",
                    c.green_serving
                )
            }
            Message::ActivateStep => format!(
                "Activating traffic on {} instance(s) of {} (linear step).",
                c.green_serving, c.total
            ),
            Message::ActivateFull => format!("Activating traffic on full capacity of {} instance(s).", c.total),
            Message::BakeCanary => format!(
                "Baking for {s} seconds (WaitIntervalInSeconds) with traffic enabled on canary capacity of {} instance(s).",
                c.green_serving
            ),
            Message::BakeStep => format!(
                "Baking for {s} seconds (WaitIntervalInSeconds) with traffic enabled on {} instance(s) of {}.",
                c.green_serving, c.total
            ),
            Message::BakeFull => format!(
                "Baking for {s} seconds (TerminationWaitInSeconds) with traffic enabled on full capacity of {} instance(s).",
                c.green_serving
            ),
            Message::TerminateOld => format!("Terminating {} instance(s) of the old fleet.", c.total),
            Message::RollbackTraffic => format!("Rolling back traffic to the old fleet of {} instance(s).", c.blue),
            Message::RollbackLaunch => format!("Launching {} instance(s) of the old fleet.", c.total),
            Message::RollbackBatch(k) => format!("Launching {k} instance(s) of the old fleet."),
            Message::TerminateNew => format!("Terminating {} instance(s) of the new fleet.", c.total),
            Message::TerminateNewBatch(k) => format!("Terminating {k} instance(s) of the new fleet."),
        }
    }
}

/// How traffic moves to the green fleet in a blue/green deployment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Routing {
    /// Everything in one step.
    AllAtOnce,
    /// A canary, a bake, then the rest.
    Canary(Capacity),
    /// Steps of this size with a bake after each but the last.
    Linear(Capacity),
}

/// How long the mechanical parts of a deployment take, and the factor on the policy's waits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    /// Launching a fleet or a batch (seconds).
    pub launch: f64,
    /// Turning traffic on or off (seconds).
    pub shift: f64,
    /// Terminating a fleet or a batch (seconds).
    pub terminate: f64,
    /// The factor on WaitIntervalInSeconds and TerminationWaitInSeconds.
    pub wait_scale: f64,
}

impl Pace {
    fn wait(&self, secs: u32) -> f64 {
        secs as f64 * self.wait_scale
    }
}

fn step(status: StepStatus, message: Message, secs: f64, fleets: (Capacity, Capacity, Capacity)) -> Step {
    Step {
        status,
        message,
        secs,
        shown_secs: 0,
        green: fleets.0,
        green_serving: fleets.1,
        blue: fleets.2,
        bake: status == StepStatus::Baking,
    }
}

fn bake(message: Message, shown: u32, pace: &Pace, serving: Capacity, blue: Capacity) -> Step {
    Step {
        shown_secs: shown,
        ..step(
            StepStatus::Baking,
            message,
            pace.wait(shown),
            (Capacity::ALL, serving, blue),
        )
    }
}

/// A blue/green deployment: launch the green fleet, shift traffic by `routing` with a bake of
/// `wait` seconds after each shift but the last, the final bake of `termination_wait`, then the
/// blue fleet terminated. `largest` (the most instances of any variant) bounds the linear steps.
pub fn blue_green(routing: Routing, (wait, termination_wait): (u32, u32), largest: i32, pace: &Pace) -> Vec<Step> {
    use StepStatus::*;
    let all = Capacity::ALL;
    let none = Capacity::NONE;
    let mut steps = vec![step(Creating, Message::Launch, pace.launch, (none, none, all))];
    match routing {
        Routing::AllAtOnce => {}
        Routing::Canary(size) => {
            steps.push(step(
                ActivatingTraffic,
                Message::ActivateCanary,
                pace.shift,
                (all, size, all),
            ));
            steps.push(bake(Message::BakeCanary, wait, pace, size, all));
        }
        Routing::Linear(size) => {
            let n = linear_steps(size, largest);
            for i in 1..n {
                let serving = match size {
                    Capacity::Instances(k) => Capacity::Instances(k * i),
                    Capacity::Percent(p) => Capacity::Percent(p * i as f64),
                };
                steps.push(step(
                    ActivatingTraffic,
                    Message::ActivateStep,
                    pace.shift,
                    (all, serving, all),
                ));
                steps.push(bake(Message::BakeStep, wait, pace, serving, all));
            }
        }
    }
    steps.push(step(
        ActivatingTraffic,
        Message::ActivateFull,
        pace.shift,
        (all, all, all),
    ));
    steps.push(bake(Message::BakeFull, termination_wait, pace, all, all));
    steps.push(step(
        Deleting,
        Message::TerminateOld,
        pace.terminate,
        (all, all, Capacity::NONE),
    ));
    steps
}

/// How many shifts a linear policy of `size` takes to reach every one of `total` instances.
pub fn linear_steps(size: Capacity, total: i32) -> i32 {
    match size {
        Capacity::Instances(k) if k > 0 => (total.max(1) + k - 1) / k,
        Capacity::Percent(p) if p > 0.0 => (100.0 / p - 1e-9).ceil() as i32,
        _ => 1,
    }
    .max(1)
}

/// A rolling deployment of a single variant of `total` instances in batches of `batch`: each
/// batch launched, given traffic, baked for `wait` seconds, and as many old instances terminated.
pub fn rolling(total: i32, batch: i32, wait: u32, pace: &Pace) -> Vec<Step> {
    use StepStatus::*;
    let batch = batch.clamp(1, total.max(1));
    let mut steps = Vec::new();
    let mut done = 0;
    let batches = (total.max(1) + batch - 1) / batch;
    let mut i = 0;
    while done < total {
        i += 1;
        let next = (done + batch).min(total);
        let (before, after) = (Capacity::Instances(done), Capacity::Instances(next));
        let blue = Capacity::Instances(total - done);
        steps.push(step(
            Creating,
            Message::LaunchBatch(next - done, i, batches),
            pace.launch,
            (before, before, blue),
        ));
        steps.push(step(
            ActivatingTraffic,
            Message::ActivateStep,
            pace.shift,
            (after, after, blue),
        ));
        steps.push(Step {
            shown_secs: wait,
            message: Message::BakeStep,
            ..step(Baking, Message::BakeStep, pace.wait(wait), (after, after, blue))
        });
        let left = Capacity::Instances(total - next);
        steps.push(step(
            Deleting,
            Message::TerminateBatch(next - done, i, batches),
            pace.terminate,
            (after, after, left),
        ));
        done = next;
    }
    steps
}

/// The rollback of a blue/green deployment: traffic back to the whole blue fleet (relaunched
/// first when it was already terminated), then the green fleet terminated.
pub fn blue_green_rollback(blue_up: bool, pace: &Pace) -> Vec<Step> {
    use StepStatus::*;
    let all = Capacity::ALL;
    let mut steps = Vec::new();
    if !blue_up {
        steps.push(step(Creating, Message::RollbackLaunch, pace.launch, (all, all, all)));
    }
    steps.push(step(
        ActivatingTraffic,
        Message::RollbackTraffic,
        pace.shift,
        (all, Capacity::NONE, all),
    ));
    steps.push(step(
        Deleting,
        Message::TerminateNew,
        pace.terminate,
        (Capacity::NONE, Capacity::NONE, all),
    ));
    steps
}

/// The rollback of a rolling deployment that reached `green` new instances out of `total`, in
/// batches of `batch` old instances relaunched while as many new ones are terminated.
pub fn rolling_rollback(total: i32, green: i32, batch: i32, pace: &Pace) -> Vec<Step> {
    use StepStatus::*;
    let batch = batch.clamp(1, total.max(1));
    let mut steps = Vec::new();
    let mut green_left = green.clamp(0, total);
    let mut blue = total - green_left;
    if green_left == 0 {
        return vec![step(
            Deleting,
            Message::TerminateNew,
            pace.terminate,
            (Capacity::NONE, Capacity::NONE, Capacity::ALL),
        )];
    }
    while green_left > 0 {
        let moved = batch.min(green_left);
        let g = Capacity::Instances(green_left);
        steps.push(step(
            Creating,
            Message::RollbackBatch(moved),
            pace.launch,
            (g, g, Capacity::Instances(blue + moved)),
        ));
        green_left -= moved;
        blue += moved;
        let after = Capacity::Instances(green_left);
        steps.push(step(
            Deleting,
            Message::TerminateNewBatch(moved),
            pace.terminate,
            (after, after, Capacity::Instances(blue)),
        ));
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACE: Pace = Pace {
        launch: 4.0,
        shift: 1.0,
        terminate: 1.0,
        wait_scale: 1.0,
    };

    #[test]
    fn a_canary_shifts_its_capacity_bakes_then_shifts_the_rest() {
        let steps = blue_green(Routing::Canary(Capacity::Instances(1)), (600, 300), 4, &PACE);
        let statuses: Vec<&str> = steps.iter().map(|s| s.status.as_str()).collect();
        assert_eq!(
            statuses,
            [
                "Creating",
                "ActivatingTraffic",
                "Baking",
                "ActivatingTraffic",
                "Baking",
                "Deleting"
            ]
        );
        let canary = steps[2].counts(4, false);
        assert_eq!((canary.green_serving, canary.green_share), (1, 0.25));
        assert_eq!(steps[2].secs, 600.0);
        assert_eq!(
            steps[4].status_message(&steps[4].counts(4, false)),
            "Baking for 300 seconds (TerminationWaitInSeconds) with traffic enabled on full capacity of 4 instance(s)."
        );
    }

    #[test]
    fn linear_steps_cover_every_instance_and_rolling_batches_trade_instances() {
        assert_eq!(linear_steps(Capacity::Percent(30.0), 10), 4);
        assert_eq!(linear_steps(Capacity::Instances(2), 5), 3);
        let steps = blue_green(Routing::Linear(Capacity::Percent(50.0)), (60, 0), 4, &PACE);
        assert_eq!(
            steps.iter().filter(|s| s.bake).count(),
            2,
            "one step bake, the final bake"
        );
        let steps = rolling(4, 2, 30, &PACE);
        assert_eq!(steps.len(), 8);
        let mid = steps[3].counts(4, true);
        assert_eq!((mid.green, mid.blue), (2, 2));
        let back = rolling_rollback(4, 2, 1, &PACE);
        assert_eq!(back.len(), 4);
        let end = back[3].counts(4, true);
        assert_eq!((end.green, end.blue), (0, 4));
    }
}
