//! The inventory as it comes: each ListEndpoints page is reported at once (name, status, creation
//! and last-modified times), its describes start while the next page is read, and they are
//! reported in batches as they land. The end result is the same [`Inventory`] as
//! [`Fleet::inventory`] gives; the reports only let a reader show the rows earlier.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::aws::config::Fleet;
use crate::aws::endpoints::autoscaling::{ScalingInfo, fleet_scaling};
use crate::aws::endpoints::inventory::{EndpointInfo, Inventory, InventoryFailure, InventoryOptions};
use crate::aws::error::AwsError;

/// What a progressive inventory reports while it runs.
#[derive(Debug, Clone)]
pub enum InventoryProgress {
    /// One ListEndpoints page: rows with name, ARN, status and times only (no variants,
    /// configuration or autoscaling yet).
    Listed(Vec<EndpointInfo>),
    /// Endpoints described since the last report, with their autoscaling.
    Described(Vec<EndpointInfo>),
    /// Endpoints whose description failed since the last report.
    Failed(Vec<InventoryFailure>),
}

/// A listed row: what ListEndpoints says of an endpoint, nothing more.
fn listed_row(s: &aws_sdk_sagemaker::types::EndpointSummary) -> Option<EndpointInfo> {
    let epoch = |t: Option<&aws_smithy_types::DateTime>| t.map(|t| t.as_secs_f64()).unwrap_or(0.0);
    Some(EndpointInfo {
        name: s.endpoint_name()?.to_string(),
        arn: s.endpoint_arn().unwrap_or_default().to_string(),
        status: s.endpoint_status().map(|s| s.as_str().to_string()).unwrap_or_default(),
        failure_reason: None,
        created: epoch(s.creation_time()),
        modified: epoch(s.last_modified_time()),
        config_name: None,
        variants: Vec::new(),
        multi_model: false,
        kind: Default::default(),
        shape: Default::default(),
        autoscaling: Vec::new(),
        deploying: false,
    })
}

type Described = (usize, String, Result<EndpointInfo, AwsError>);

/// The describes of one inventory: in flight, and what landed.
struct Describes {
    tasks: JoinSet<Described>,
    sem: Arc<Semaphore>,
    calls: Arc<AtomicUsize>,
    found: Vec<(usize, EndpointInfo)>,
    failures: Vec<InventoryFailure>,
    scaling: Option<BTreeMap<String, Vec<ScalingInfo>>>,
}

impl Describes {
    fn spawn(&mut self, fleet: &Fleet, index: usize, name: String, deadline: Duration) {
        let (fleet, sem, calls) = (fleet.clone(), self.sem.clone(), self.calls.clone());
        self.tasks.spawn(async move {
            let _permit = sem.acquire_owned().await;
            let call = fleet.describe_endpoint_info(&name, &calls);
            let r = tokio::time::timeout(deadline, call)
                .await
                .unwrap_or_else(|_| Err(AwsError::Timeout(format!("no answer within {deadline:?}"))));
            (index, name, r)
        });
    }

    /// Takes what has landed (waiting for one when `wait`), and reports it in one batch each of
    /// described and failed endpoints.
    async fn drain(&mut self, wait: bool, report: &(dyn Fn(InventoryProgress) + Send + Sync)) {
        let mut landed = Vec::new();
        if wait && let Some(Ok(d)) = self.tasks.join_next().await {
            landed.push(d);
        }
        while let Some(Ok(d)) = self.tasks.try_join_next() {
            landed.push(d);
        }
        let (mut described, mut failed) = (Vec::new(), Vec::new());
        for (i, name, r) in landed {
            match r {
                Ok(mut info) => {
                    let scaling = self.scaling.as_ref().and_then(|s| s.get(&name));
                    info.autoscaling = scaling.cloned().unwrap_or_default();
                    described.push(info.clone());
                    self.found.push((i, info));
                }
                // Deleted between the list and the describe: simply gone.
                Err(AwsError::NotFound(_)) => {}
                Err(error) => failed.push(InventoryFailure { endpoint: name, error }),
            }
        }
        if !described.is_empty() {
            report(InventoryProgress::Described(described));
        }
        if !failed.is_empty() {
            self.failures.extend(failed.iter().cloned());
            report(InventoryProgress::Failed(failed));
        }
    }
}

impl Fleet {
    /// [`Fleet::inventory`], reporting each ListEndpoints page and each batch of describes to
    /// `report` as they come; the describes of a page start before the next page is read.
    pub async fn inventory_progressive(
        &self,
        opts: InventoryOptions,
        report: &(dyn Fn(InventoryProgress) + Send + Sync),
    ) -> Result<Inventory, AwsError> {
        let start = Instant::now();
        let calls = Arc::new(AtomicUsize::new(0));
        let scaling = opts.autoscaling.then(|| {
            let (fleet, calls) = (self.clone(), calls.clone());
            tokio::spawn(async move { fleet_scaling(&fleet, None, &calls).await.unwrap_or_default() })
        });
        let mut d = Describes {
            tasks: JoinSet::new(),
            sem: Arc::new(Semaphore::new(opts.concurrency.max(1))),
            calls: calls.clone(),
            found: Vec::new(),
            failures: Vec::new(),
            scaling: None,
        };
        let mut listed = 0usize;
        let mut token = None;
        loop {
            calls.fetch_add(1, Ordering::Relaxed);
            let page = self
                .sagemaker
                .list_endpoints()
                .max_results(100)
                .set_next_token(token)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            let rows: Vec<EndpointInfo> = page.endpoints().iter().filter_map(listed_row).collect();
            for row in &rows {
                d.spawn(self, listed, row.name.clone(), opts.call_deadline);
                listed += 1;
            }
            report(InventoryProgress::Listed(rows));
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                break;
            }
        }
        // Autoscaling is a handful of calls begun with the list: wait for it before the first
        // describes are reported, so that every described row carries its own.
        d.scaling = Some(match scaling {
            Some(task) => task.await.unwrap_or_default(),
            None => BTreeMap::new(),
        });
        while !d.tasks.is_empty() {
            d.drain(true, report).await;
        }
        d.found.sort_by_key(|(i, _)| *i);
        d.failures.sort_by(|a, b| a.endpoint.cmp(&b.endpoint));
        Ok(Inventory {
            endpoints: d.found.into_iter().map(|(_, e)| e).collect(),
            failures: d.failures,
            api_calls: calls.load(Ordering::Relaxed),
            elapsed_ms: start.elapsed().as_millis() as u64,
        })
    }
}
