//! Walks every deployment in flight: steps end on time; a bake with an AutoRollbackConfiguration
//! alarm in ALARM, a green fleet that fails its launch, or the MaximumExecutionTimeoutInSeconds
//! passing turns the deployment into its rollback (RollingBack); the last step of a deployment
//! puts the green fleet in service on the new configuration, the last of a rollback leaves the
//! blue one in service on the old configuration with FailureReason set; a rollback that fails
//! leaves both (UpdateRollbackFailed). Called on every tick and before every control-plane call.

use crate::sandbox::cloudwatch::alarms::state_value::StateValue;
use crate::sandbox::sagemaker::components::hosts;
use crate::sandbox::sagemaker::deploy::pace;
use crate::sandbox::world::deployment::{self as schedule, Capacity, Pace, StepStatus};
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{DeployPhase, Deployment, Endpoint, EndpointStatus, Transition, World};

/// What the FailureReason of an UpdateRollbackFailed endpoint says.
pub const ROLLBACK_FAILED: &str = "Both the deployment and auto-rollback failed. The endpoint has instances of both the old and the new endpoint configuration; update the endpoint to recover.";

/// Advances every deployment to `now`.
pub fn advance(sb: &Sandbox, now: f64) {
    let (walking, watched): (Vec<String>, Vec<String>) = {
        let world = sb.world.read();
        let deployments = || {
            world.in_flight.iter().filter_map(|n| {
                let d = world.endpoints.get(n)?.deployment()?;
                (d.phase != DeployPhase::RollbackFailed).then_some((n, d))
            })
        };
        let walking = deployments().map(|(n, _)| n.clone()).collect();
        let watched = deployments().flat_map(|(_, d)| d.alarms.iter().cloned()).collect();
        (walking, watched)
    };
    if walking.is_empty() {
        return;
    }
    let firing: Vec<String> = watched
        .into_iter()
        .filter(|name| sb.alarms.state(name).is_some_and(|s| s.value == StateValue::Alarm))
        .collect();
    let pace = pace(sb);
    let mut world = sb.world.write();
    let mut deployed = Vec::new();
    for name in walking {
        let Some(ep) = world.endpoints.get_mut(&name) else {
            continue;
        };
        if ep.deployment().is_some_and(|d| d.phase != DeployPhase::RollbackFailed) && walk(ep, &firing, &pace, now) {
            deployed.push(name);
        }
    }
    world.settle();
    let instance_seconds = sb.config.timing.create.as_secs_f64();
    for name in deployed {
        rehost(&mut world, &name, instance_seconds);
    }
}

/// An endpoint now on a new configuration: its inference component hosts registered again from
/// it (the components stay on the endpoint's variants).
fn rehost(world: &mut World, endpoint: &str, instance_seconds: f64) {
    let World {
        endpoints,
        configs,
        components,
        ..
    } = world;
    let Some(ep) = endpoints.get(endpoint) else {
        return;
    };
    let Some(config) = configs.get(&ep.config_name) else {
        return;
    };
    if !hosts::hosts_components(config) && !components.is_ic_endpoint(endpoint) {
        return;
    }
    let desired = |v: &str| ep.variant(v).map(|v| v.desired_instances);
    hosts::reconfigure(components, (endpoint, config), &desired, instance_seconds);
}

/// Walks one endpoint's deployment as far as `now` takes it; true when it ended on the new
/// configuration.
fn walk(ep: &mut Endpoint, firing: &[String], pace: &Pace, now: f64) -> bool {
    for _ in 0..256 {
        let Some(Transition::Deploy(d)) = &mut ep.transition else {
            return false;
        };
        if d.phase == DeployPhase::Deploying
            && let Some(reason) = trouble(d, firing, now)
        {
            roll_back(ep, reason, pace, now);
            continue;
        }
        let Some(step) = d.step() else {
            return finish(ep);
        };
        let ends = d.step_started + step.secs;
        if ends > now {
            return false;
        }
        let launched = step.status == StepStatus::Creating && d.phase == DeployPhase::Deploying;
        if launched && let Some(reason) = d.launch_failure.clone() {
            roll_back(ep, reason, pace, ends);
            continue;
        }
        if d.phase == DeployPhase::RollingBack && d.rollback_fails {
            // The step stays: both fleets keep serving as they stood.
            d.phase = DeployPhase::RollbackFailed;
            ep.status = EndpointStatus::UpdateRollbackFailed;
            ep.failure_reason = Some(ROLLBACK_FAILED.to_string());
            ep.last_modified = ends;
            return false;
        }
        d.at += 1;
        d.step_started = ends;
        // Each step shows in DescribeEndpoint (VariantStatus, counts): a change of the endpoint.
        ep.last_modified = ends;
    }
    false
}

/// Why a deployment must roll back now: an alarm in ALARM during a bake, the injected rollback
/// failure's first bake, or the timeout.
fn trouble(d: &Deployment, firing: &[String], now: f64) -> Option<String> {
    let step = d.step()?;
    if step.bake {
        let fired: Vec<&String> = d.alarms.iter().filter(|a| firing.contains(a)).collect();
        if !fired.is_empty() {
            let names: Vec<&str> = fired.iter().map(|s| s.as_str()).collect();
            return Some(format!(
                "Deployment was rolled back: CloudWatch alarm(s) [{}] went into ALARM state during the baking period.",
                names.join(", ")
            ));
        }
        if d.rollback_fails {
            return Some(ROLLBACK_FAILED.to_string());
        }
    }
    (now > d.deadline)
        .then(|| "Deployment was rolled back: it did not complete within MaximumExecutionTimeoutInSeconds.".to_string())
}

/// Turns the deployment into its rollback from where it stands.
fn roll_back(ep: &mut Endpoint, reason: String, pace: &Pace, now: f64) {
    let Some(Transition::Deploy(d)) = &mut ep.transition else {
        return;
    };
    let current = d.step().cloned();
    d.steps = if d.rollback_fails {
        // The rollback's first move fails: both fleets stay as they stand.
        current
            .map(|s| schedule::Step {
                status: StepStatus::Updating,
                message: schedule::Message::RollbackTraffic,
                secs: pace.shift,
                bake: false,
                ..s
            })
            .into_iter()
            .collect()
    } else if d.rolling {
        let total = d.green.first().map_or(1, |g| g.desired_instances);
        let green = current.map_or(0, |s| s.green.of(total));
        let batch = d.rollback_batch.unwrap_or(Capacity::ALL).of(total).max(1);
        schedule::rolling_rollback(total, green, batch, pace)
    } else {
        let blue_up = current.is_none_or(|s| s.blue.of(1) > 0);
        schedule::blue_green_rollback(blue_up, pace)
    };
    d.at = 0;
    d.step_started = now;
    d.phase = DeployPhase::RollingBack;
    d.failure = Some(reason);
    ep.status = EndpointStatus::RollingBack;
    ep.last_modified = now;
}

/// The last step is done: the green fleet in service on the new configuration, or (after a
/// rollback) the blue fleet on the old one with the failure's reason. True for the first.
fn finish(ep: &mut Endpoint) -> bool {
    let Some(Transition::Deploy(d)) = ep.transition.take() else {
        return false;
    };
    let deployed = d.phase == DeployPhase::Deploying;
    let ended = d.step_started;
    ep.status = EndpointStatus::InService;
    ep.last_modified = ended;
    if deployed {
        ep.failure_reason = None;
        ep.config_name = d.config_name;
        ep.variants = d.green;
    } else {
        ep.failure_reason = d.failure;
    }
    for v in &mut ep.variants {
        v.statuses.clear();
        v.current_weight = v.desired_weight;
        v.current_instances = v.desired_instances;
        v.sim.set_instances(v.current_instances.max(0) as usize);
    }
    deployed
}
