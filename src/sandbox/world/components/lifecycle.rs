//! How components and their hosts move with time: copies placed first-fit on the instances by
//! their reservation, started after the component's copy time, stopped at once when fewer are
//! wanted; a managed variant's instance count following what the copies need within
//! MinInstanceCount..=MaxInstanceCount (instances take the host's instance time to come up);
//! Creating → InService (or Failed), Updating → InService, Deleting → gone.

use std::collections::HashMap;

use crate::sandbox::world::components::Components;
use crate::sandbox::world::components::records::{ComponentStatus, Host, InferenceComponent, Resources};

impl Components {
    /// Completes every step whose time has come: deadlines, rolling updates, placement.
    pub fn advance(&mut self, now: f64) {
        self.finish_deadlines(now);
        self.advance_rollouts(now);
        self.place_on_hosts(now);
        self.follow_bases(now);
    }

    /// Every host: its components found in one pass over them, then placed. (One pass per host
    /// made every control-plane call on 200 IC endpoints × 4 components cost ~15 ms in the dev
    /// profile, `benches/components_inventory.rs`: the sandbox advances on every call.)
    fn place_on_hosts(&mut self, now: f64) {
        let Components { items, hosts } = self;
        let mut buckets: Vec<Vec<&mut InferenceComponent>> = Vec::new();
        buckets.resize_with(hosts.len(), Vec::new);
        {
            let index: HashMap<(&str, &str), usize> = hosts
                .keys()
                .enumerate()
                .map(|(i, (e, v))| ((e.as_str(), v.as_str()), i))
                .collect();
            for c in items.values_mut().filter(|c| c.spec.base.is_none()) {
                if let Some(&i) = index.get(&(c.endpoint.as_str(), c.variant.as_str())) {
                    buckets[i].push(c);
                }
            }
        }
        for (host, placed) in hosts.values_mut().zip(buckets) {
            place_on_host(host, placed, now);
        }
    }

    /// Creating components that fail, adapters that come up, deleted components that go.
    fn finish_deadlines(&mut self, now: f64) {
        let due: Vec<String> = self
            .items
            .values()
            .filter(|c| c.deadline.is_some_and(|d| d <= now))
            .map(|c| c.name.clone())
            .collect();
        for name in due {
            let Some(ic) = self.items.get_mut(&name) else {
                continue;
            };
            let at = ic.deadline.take().unwrap_or(now);
            match ic.status {
                ComponentStatus::Deleting => {
                    self.items.remove(&name);
                }
                ComponentStatus::Creating if ic.spec.base.is_none() => {
                    let reason = ic.fail_reason.take().unwrap_or_else(|| {
                        format!(
                            "Unable to place {} copies of inference component {name}: the variant's instances (within its MaxInstanceCount) have no room for their compute resource requirements.",
                            ic.desired_copies
                        )
                    });
                    ic.status = ComponentStatus::Failed;
                    ic.failure_reason = Some(reason);
                    ic.current_copies = 0;
                    ic.last_modified = at;
                }
                _ => {}
            }
        }
    }

    /// Adapters: InService once their base serves, Failed when it is gone or failed.
    fn follow_bases(&mut self, now: f64) {
        let adapters: Vec<(String, String)> = self
            .items
            .values()
            .filter(|c| c.status == ComponentStatus::Creating)
            .filter_map(|c| Some((c.name.clone(), c.spec.base.clone()?)))
            .collect();
        for (name, base) in adapters {
            let base_state = self.items.get(&base).map(|b| (b.status, b.current_copies));
            let Some(ic) = self.items.get_mut(&name) else {
                continue;
            };
            match base_state {
                Some((ComponentStatus::InService | ComponentStatus::Updating, _)) => {
                    ic.status = ComponentStatus::InService;
                    ic.last_modified = now;
                }
                Some((ComponentStatus::Creating, _)) => {}
                _ => {
                    ic.status = ComponentStatus::Failed;
                    ic.failure_reason = Some(format!("Base inference component {base} is not in service."));
                    ic.last_modified = now;
                }
            }
        }
    }

    /// The copies of each component on a host per instance type: `(instance type, copies)`.
    pub fn placement(&self, ic: &InferenceComponent) -> Vec<(String, i32)> {
        let base = ic.spec.base.as_deref().and_then(|b| self.items.get(b)).unwrap_or(ic);
        match self.host_of(base) {
            Some(h) if base.current_copies > 0 => vec![(h.instance_type.clone(), base.current_copies)],
            _ => Vec::new(),
        }
    }
}

/// One host: its instance count towards what the copies of `placed` (its components) need, then
/// each component's copies towards what fits on the instances running now.
fn place_on_host(host: &mut Host, mut placed: Vec<&mut InferenceComponent>, now: f64) {
    placed.sort_by(|a, b| a.creation_time.total_cmp(&b.creation_time).then(a.name.cmp(&b.name)));
    let wanted: Vec<(Resources, i32)> = placed.iter().map(|c| (reservation(c), wanted_copies(c))).collect();
    follow_instances(host, instances_needed(host.capacity, &wanted), now);
    let fits = copies_that_fit(host.capacity, host.current_instances, &wanted);
    for (ic, fit) in placed.into_iter().zip(fits) {
        follow_copies(ic, fit, now);
    }
}

/// A component's reservation (none counts as nothing).
fn reservation(ic: &InferenceComponent) -> Resources {
    ic.spec.reservation.unwrap_or_default()
}

/// The copies a component asks to have placed now (none when failed or going).
fn wanted_copies(ic: &InferenceComponent) -> i32 {
    match ic.status {
        ComponentStatus::Failed | ComponentStatus::Deleting => 0,
        _ if ic.fail_reason.is_some() => 0,
        _ => ic.desired_copies.max(0) + ic.rollout.as_ref().map_or(0, |r| r.extra_copies()),
    }
}

/// First-fit on as many instances as needed: how many instances all the copies take.
pub fn instances_needed(capacity: Resources, wanted: &[(Resources, i32)]) -> i32 {
    let mut free: Vec<Resources> = Vec::new();
    for (need, copies) in wanted {
        for _ in 0..*copies {
            if !capacity.holds(need) {
                break;
            }
            match free.iter_mut().find(|f| f.holds(need)) {
                Some(f) => *f = f.minus(need),
                None => free.push(capacity.minus(need)),
            }
        }
    }
    free.len() as i32
}

/// First-fit on `instances` instances: how many copies of each component fit.
pub fn copies_that_fit(capacity: Resources, instances: i32, wanted: &[(Resources, i32)]) -> Vec<i32> {
    let mut free = vec![capacity; instances.max(0) as usize];
    wanted
        .iter()
        .map(|(need, copies)| {
            let mut fit = 0;
            for _ in 0..*copies {
                match free.iter_mut().find(|f| f.holds(need)) {
                    Some(f) => {
                        *f = f.minus(need);
                        fit += 1;
                    }
                    None => break,
                }
            }
            fit
        })
        .collect()
}

/// A managed host's instance count towards `needed` within min/max: instances come up after the
/// host's instance time, and are released after a quarter of it.
fn follow_instances(host: &mut Host, needed: i32, now: f64) {
    if host.managed {
        let target = needed.clamp(host.min_instances, host.max_instances.max(host.min_instances));
        if target != host.desired_instances {
            host.desired_instances = target;
            let wait = if target > host.current_instances {
                host.instance_seconds
            } else {
                host.instance_seconds / 4.0
            };
            host.instances_ready_at = Some(now + wait);
        }
    }
    if host.current_instances != host.desired_instances {
        let ready = host.instances_ready_at.get_or_insert(now + host.instance_seconds);
        if *ready <= now {
            host.current_instances = host.desired_instances;
            host.instances_ready_at = None;
        }
    } else {
        host.instances_ready_at = None;
    }
}

/// A component's copies towards what fits: fewer at once, more after its copy time; its status
/// InService once its copies are all there.
fn follow_copies(ic: &mut InferenceComponent, fit: i32, now: f64) {
    let target = fit.min(ic.desired_copies.max(0));
    if ic.current_copies > target {
        ic.current_copies = target;
        ic.copies_ready_at = None;
    } else if ic.current_copies < target {
        let ready = *ic.copies_ready_at.get_or_insert(now + ic.copy_seconds);
        if ready <= now {
            ic.current_copies = target;
            ic.copies_ready_at = None;
        }
    } else {
        ic.copies_ready_at = None;
    }
    ic.sim.set_instances(ic.current_copies.max(1) as usize);
    let settled = ic.current_copies == ic.desired_copies && ic.rollout.is_none();
    match ic.status {
        ComponentStatus::Creating if settled && ic.fail_reason.is_none() => {
            ic.status = ComponentStatus::InService;
            ic.deadline = None;
            ic.last_modified = now;
        }
        ComponentStatus::Updating if settled => {
            ic.status = ComponentStatus::InService;
            ic.last_modified = now;
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GPU4: Resources = Resources {
        cpus: 48.0,
        accelerators: 4.0,
        memory_mb: 196_608.0,
    };

    #[test]
    fn copies_are_packed_by_their_reservation() {
        let one_gpu = Resources {
            cpus: 4.0,
            accelerators: 1.0,
            memory_mb: 16_384.0,
        };
        assert_eq!(instances_needed(GPU4, &[(one_gpu, 4)]), 1);
        assert_eq!(instances_needed(GPU4, &[(one_gpu, 5)]), 2);
        assert_eq!(copies_that_fit(GPU4, 1, &[(one_gpu, 3), (one_gpu, 3)]), vec![3, 1]);
        let too_big = Resources {
            accelerators: 8.0,
            ..one_gpu
        };
        assert_eq!(instances_needed(GPU4, &[(too_big, 2)]), 0);
    }
}
