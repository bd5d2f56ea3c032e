//! The one way the fleet layer lists endpoints: each ListEndpoints page is reported at once
//! (name, status, creation and last-modified times), the describes it needs start while the
//! next page is read, and they are reported in batches as they land. What a refresh lists and
//! describes is chosen by [`RefreshMemory`] (`refresh.rs`): between full listings only what moved
//! is listed, and the endpoints not listed keep their place and last description; with an empty
//! memory every endpoint is listed and described ([`Fleet::inventory`]). An endpoint whose
//! describe says it no longer exists leaves at once. Every call waits on the fleet's
//! control-plane budget.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::aws::config::Fleet;
use crate::aws::endpoints::autoscaling::{ScalingInfo, fleet_scaling};
use crate::aws::endpoints::inventory::{EndpointInfo, Inventory, InventoryFailure};
use crate::aws::endpoints::refresh::{Listing, RefreshMemory, RefreshPlan, SweepWindow};
use crate::aws::error::AwsError;

/// What a progressive inventory reports while it runs.
#[derive(Debug, Clone)]
pub enum InventoryProgress {
    /// One ListEndpoints page: rows with name, ARN, status and times only (no variants,
    /// configuration or autoscaling yet).
    Listed(Vec<EndpointInfo>),
    /// Endpoints described since the last report, with their autoscaling (each description
    /// shared with the refresh's result).
    Described(Vec<Arc<EndpointInfo>>),
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

type Described = (String, Result<EndpointInfo, AwsError>);

/// The rounds of describes a one-off inventory makes at most while the control plane throttles.
pub const INVENTORY_ROUNDS: usize = 8;

/// The describes of one refresh: a queue of names, a pool of `concurrency` workers taking
/// them in order, and what landed. Only the workers' futures exist at once (a describe's future
/// is some 20 KB: ten thousand spawned together held 200 MB at the first load of a large fleet).
struct Describes {
    queue: Option<mpsc::UnboundedSender<String>>,
    results: mpsc::UnboundedReceiver<Described>,
    workers: JoinSet<()>,
    asked: HashSet<String>,
    found: HashMap<String, Arc<EndpointInfo>>,
    failures: Vec<InventoryFailure>,
    /// Described as not found: deleted since they were listed.
    gone: HashSet<String>,
    /// The fleet's budget, and its throttles when the refresh began.
    budget: (Arc<crate::aws::budget::CallBudget>, u64),
    scaling: Option<BTreeMap<String, Vec<ScalingInfo>>>,
}

impl Describes {
    /// Starts `concurrency` workers describing with `fleet`, each call within `deadline`;
    /// `throttles`: the budget's count of throttles when the refresh began.
    fn start(
        fleet: &Fleet,
        (concurrency, deadline): (usize, Duration),
        calls: &Arc<AtomicUsize>,
        throttles: u64,
    ) -> Describes {
        let (queue, names) = mpsc::unbounded_channel::<String>();
        let (landed, results) = mpsc::unbounded_channel();
        let names = Arc::new(tokio::sync::Mutex::new(names));
        let mut workers = JoinSet::new();
        for _ in 0..concurrency.max(1) {
            let (fleet, names, landed, calls) = (fleet.clone(), names.clone(), landed.clone(), calls.clone());
            workers.spawn(async move {
                loop {
                    let Some(name) = names.lock().await.recv().await else {
                        return;
                    };
                    let call = fleet.describe_endpoint_info(&name, &calls);
                    let r = tokio::time::timeout(deadline, call)
                        .await
                        .unwrap_or_else(|_| Err(AwsError::Timeout(format!("no answer within {deadline:?}"))));
                    if landed.send((name, r)).is_err() {
                        return;
                    }
                }
            });
        }
        Describes {
            queue: Some(queue),
            results,
            workers,
            asked: HashSet::new(),
            found: HashMap::new(),
            failures: Vec::new(),
            gone: HashSet::new(),
            budget: (fleet.budget.clone(), throttles),
            scaling: None,
        }
    }

    /// Asks for `name`'s description (once per refresh), after those asked before.
    fn ask(&mut self, name: String) {
        if self.asked.insert(name.clone())
            && let Some(queue) = &self.queue
        {
            _ = queue.send(name);
        }
    }

    /// Takes what has landed (waiting for one when `wait`), and reports it in one batch each of
    /// described and failed endpoints; false once every worker is done and all is taken. A
    /// throttled describe is neither: its row keeps what it had, and the next refresh asks again.
    async fn drain(&mut self, wait: bool, report: &(dyn Fn(InventoryProgress) + Send + Sync)) -> bool {
        let mut landed = Vec::new();
        let mut open = true;
        if wait {
            match self.results.recv().await {
                Some(d) => landed.push(d),
                None => open = false,
            }
        }
        loop {
            match self.results.try_recv() {
                Ok(d) => landed.push(d),
                Err(mpsc::error::TryRecvError::Empty) => break,
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    open = false;
                    break;
                }
            }
        }
        let (mut described, mut failed) = (Vec::new(), Vec::new());
        for (name, r) in landed {
            match r {
                Ok(mut info) => {
                    let scaling = self.scaling.as_ref().and_then(|s| s.get(&name));
                    info.autoscaling = scaling.cloned().unwrap_or_default();
                    let info = Arc::new(info);
                    described.push(info.clone());
                    self.found.insert(name, info);
                }
                // Deleted since it was listed: gone from the table and the memory.
                Err(AwsError::NotFound(_)) => _ = self.gone.insert(name),
                Err(AwsError::Throttling(_)) => {}
                // Out of time while the control plane throttles (waiting on the lowered
                // budget): throttled too, asked again next time.
                Err(AwsError::Timeout(_)) if self.budget.0.throttles() > self.budget.1 => {}
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
        open
    }

    /// Waits for every describe, or until `deadline` (from `start`): those not landed by then
    /// are dropped and their rows left for the next refresh.
    async fn finish(
        &mut self,
        start: Instant,
        deadline: Option<Duration>,
        report: &(dyn Fn(InventoryProgress) + Send + Sync),
    ) {
        // Nothing more is asked: the workers end once the queue is empty.
        self.queue = None;
        loop {
            let left = deadline.map(|d| d.saturating_sub(start.elapsed()));
            if left.is_some_and(|l| l.is_zero()) {
                self.workers.abort_all();
                break;
            }
            let open = match left {
                Some(l) => tokio::time::timeout(l, self.drain(true, report)).await.unwrap_or(true),
                None => self.drain(true, report).await,
            };
            if !open {
                break;
            }
        }
    }
}

impl Fleet {
    /// One ListEndpoints page (of what moved after a time, for an incremental listing), within
    /// the budget; a page still throttled after the SDK's own retries is asked once more after
    /// 1 s (then the region's listing fails, saying so).
    async fn list_page(
        &self,
        (listing, token): (Listing, Option<String>),
        calls: &AtomicUsize,
    ) -> Result<aws_sdk_sagemaker::operation::list_endpoints::ListEndpointsOutput, AwsError> {
        let after = match listing {
            Listing::Full => None,
            Listing::ModifiedAfter(t) => Some(aws_smithy_types::DateTime::from_secs_f64(t)),
        };
        let mut backoff = Duration::from_secs(1);
        loop {
            calls.fetch_add(1, Ordering::Relaxed);
            let call = self
                .sagemaker
                .list_endpoints()
                .max_results(100)
                .set_last_modified_time_after(after)
                .set_next_token(token.clone());
            match self
                .budget
                .metered(async { call.send().await.map_err(AwsError::from_sdk) })
                .await
            {
                Err(AwsError::Throttling(_)) if backoff <= Duration::from_secs(1) => {
                    tokio::time::sleep(backoff).await;
                    backoff *= 2;
                }
                r => return r,
            }
        }
    }

    /// The whole fleet, every endpoint described. Describes throttled (after the budget's and
    /// the SDK's own backoff) are asked again by further rounds, each listing only what moved,
    /// after a pause that doubles (1 s, up to 16 s), [`INVENTORY_ROUNDS`] rounds at most; rows
    /// still waiting then are named in `pending`. The counts (calls, described, throttled,
    /// elapsed) are of every round.
    pub async fn inventory(
        &self,
        opts: crate::aws::endpoints::inventory::InventoryOptions,
    ) -> Result<Inventory, AwsError> {
        let start = Instant::now();
        let plan = RefreshPlan::full(opts);
        let mut memory = RefreshMemory::default();
        let mut inv = self.refresh(&mut memory, &plan, &|_| {}).await?;
        let mut pause = Duration::from_secs(1);
        for _ in 1..INVENTORY_ROUNDS {
            if inv.pending.is_empty() || inv.throttled == 0 {
                break;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(16));
            let next = self.refresh(&mut memory, &plan, &|_| {}).await?;
            let (calls, described, throttled) = (inv.api_calls, inv.described, inv.throttled);
            inv = Inventory {
                api_calls: calls + next.api_calls,
                described: described + next.described,
                throttled: throttled + next.throttled,
                ..next
            };
        }
        inv.elapsed_ms = start.elapsed().as_millis() as u64;
        Ok(inv)
    }

    /// A refresh: the ListEndpoints pages `memory` asks for (every page on a full listing, else
    /// what moved), each reported to `report` as it comes, and the describes `memory` asks for
    /// (all of them with an empty memory), started before the next page is read and reported as
    /// they land. The result holds every endpoint listed or remembered (in the last order, new
    /// ones first): freshly described, else as last described, else as listed (named in
    /// `pending`).
    pub async fn refresh(
        &self,
        memory: &mut RefreshMemory,
        plan: &RefreshPlan,
        report: &(dyn Fn(InventoryProgress) + Send + Sync),
    ) -> Result<Inventory, AwsError> {
        let start = Instant::now();
        let throttles = self.budget.throttles();
        let opts = plan.options;
        let calls = Arc::new(AtomicUsize::new(0));
        let scaling = opts.autoscaling.then(|| {
            let (fleet, calls) = (self.clone(), calls.clone());
            tokio::spawn(async move { fleet_scaling(&fleet, None, &calls).await.unwrap_or_default() })
        });
        let mut d = Describes::start(self, (opts.concurrency, opts.call_deadline), &calls, throttles);
        // The selected endpoint first, before any page.
        if let Some(name) = plan.selected.clone().filter(|n| memory.known(n).is_some()) {
            d.ask(name);
        }
        let sweep = memory.begin(plan.sweep);
        let listing = memory.listing(plan.full_listing);
        let mut listed = self
            .list_all(memory, (plan, listing, &sweep), &mut d, report, &calls)
            .await?;
        if let Listing::ModifiedAfter(_) = listing {
            listed = self.unlisted(memory, (plan, &sweep), listed, &mut d);
        }
        // Autoscaling is a handful of calls begun with the list: wait for it before the first
        // describes are reported, so that every described row carries its own.
        d.scaling = Some(match scaling {
            Some(task) => task.await.unwrap_or_default(),
            None => BTreeMap::new(),
        });
        d.finish(start, plan.deadline, report).await;
        let mut inv = assemble(memory, listed, &mut d);
        if listing == Listing::Full {
            memory.listed_fully();
        }
        inv.api_calls = calls.load(Ordering::Relaxed);
        inv.throttled = (self.budget.throttles() - throttles) as usize;
        inv.elapsed_ms = start.elapsed().as_millis() as u64;
        Ok(inv)
    }

    /// Every page of `listing`, each reported and its describes started before the next is read.
    async fn list_all(
        &self,
        memory: &RefreshMemory,
        (plan, listing, sweep): (&RefreshPlan, Listing, &SweepWindow),
        d: &mut Describes,
        report: &(dyn Fn(InventoryProgress) + Send + Sync),
        calls: &AtomicUsize,
    ) -> Result<Vec<Arc<EndpointInfo>>, AwsError> {
        let mut listed: Vec<Arc<EndpointInfo>> = Vec::new();
        let mut token = None;
        loop {
            let page = self.list_page((listing, token), calls).await?;
            let rows: Vec<EndpointInfo> = page.endpoints().iter().filter_map(listed_row).collect();
            for row in &rows {
                if memory.why(row, plan, sweep).is_some() {
                    d.ask(row.name.clone());
                }
            }
            listed.extend(rows.iter().cloned().map(Arc::new));
            report(InventoryProgress::Listed(rows));
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                return Ok(listed);
            }
        }
    }

    /// After an incremental listing: the endpoints it did not list (unmoved) in their last
    /// order after the new ones, as last described (or listed, when never described: those are
    /// described now), those in a transitional status or whose sweep turn came described again.
    fn unlisted(
        &self,
        memory: &RefreshMemory,
        (plan, sweep): (&RefreshPlan, &SweepWindow),
        moved: Vec<Arc<EndpointInfo>>,
        d: &mut Describes,
    ) -> Vec<Arc<EndpointInfo>> {
        let mut moved: HashMap<String, Arc<EndpointInfo>> = moved.into_iter().map(|r| (r.name.clone(), r)).collect();
        let mut rows: Vec<Arc<EndpointInfo>> = Vec::with_capacity(memory.len() + moved.len());
        let new = moved
            .values()
            .filter(|r| memory.known(&r.name).is_none() && memory.undescribed(&r.name).is_none());
        let mut new: Vec<Arc<EndpointInfo>> = new.cloned().collect();
        new.sort_by(|a, b| b.created.total_cmp(&a.created).then_with(|| b.name.cmp(&a.name)));
        rows.extend(new);
        for name in memory.order() {
            if let Some(row) = moved.remove(name) {
                rows.push(row);
            } else if let Some(row) = memory.known(name).or_else(|| memory.undescribed(name)) {
                if memory.why(row, plan, sweep).is_some() {
                    d.ask(name.clone());
                }
                rows.push(row.clone());
            }
        }
        rows
    }
}

/// The refresh's inventory in ListEndpoints order: each listed endpoint as freshly described,
/// else as last described (its autoscaling and listed status brought up to date), else as
/// listed (pending). The memory keeps the fresh descriptions and forgets what was not listed.
/// An unchanged endpoint's description is shared with the memory, not copied: an idle refresh
/// of ten thousand endpoints allocates a list of pointers.
fn assemble(memory: &mut RefreshMemory, listed: Vec<Arc<EndpointInfo>>, d: &mut Describes) -> Inventory {
    let scaling = d.scaling.take().unwrap_or_default();
    let failed: HashSet<String> = d.failures.iter().map(|f| f.endpoint.clone()).collect();
    let mut inv = Inventory {
        described: d.found.len(),
        ..Inventory::default()
    };
    let mut undescribed = Vec::new();
    for row in listed {
        if d.gone.contains(&row.name) {
            continue;
        }
        if let Some(info) = d.found.remove(&row.name) {
            memory.keep(&info);
            inv.endpoints.push(info);
        } else if let Some(known) = memory.known(&row.name) {
            let scaling = scaling.get(&known.name).map(Vec::as_slice).unwrap_or_default();
            if known.status == row.status && known.autoscaling == scaling {
                inv.endpoints.push(known.clone());
            } else {
                let mut info = EndpointInfo::clone(known);
                info.status = row.status.clone();
                info.autoscaling = scaling.to_vec();
                inv.endpoints.push(Arc::new(info));
            }
        } else if !failed.contains(&row.name) {
            inv.pending.push(row.name.clone());
            undescribed.push(row.clone());
            inv.endpoints.push(row);
        } else {
            undescribed.push(row);
        }
    }
    memory.settle(&inv.endpoints, undescribed);
    inv.failures = std::mem::take(&mut d.failures);
    inv.failures.sort_by(|a, b| a.endpoint.cmp(&b.endpoint));
    inv
}
