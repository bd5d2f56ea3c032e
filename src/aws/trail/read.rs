//! Reading CloudTrail for one endpoint: LookupEvents by resource name (the endpoint), keeping
//! the writes of [`SOURCES`], bounded by the window, newest first, 50 events a page.
//!
//! LookupEvents is throttled at 2 calls per second per account and region, and CloudTrail
//! delivers events minutes late, so a [`TrailCache`] keeps what was read per endpoint and window
//! and every refresh ([`Fleet::trail_refresh`]) costs at most one page: the newest events since
//! the newest one seen (less the delivery delay, so late events are caught), or, every other
//! refresh, one older page still to read. Calls are spaced 500 ms apart in the process; a
//! throttled call backs off (doubling, up to a minute) and says so in [`TrailStatus`].

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use aws_sdk_cloudtrail::types::{LookupAttribute, LookupAttributeKey};
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use serde::Serialize;

use super::event::{SOURCES, TrailEvent};
use crate::aws::{AwsError, Fleet};

/// CloudTrail's delivery delay, as the timeline states it.
pub const DELIVERY_NOTE: &str = "CloudTrail events arrive up to ~5 min late";

/// How far back a refresh of the newest events reaches before the newest event seen.
pub const DELIVERY_DELAY: f64 = 300.0;

/// Events per LookupEvents page (AWS's most).
pub const PAGE: i32 = 50;

/// LookupEvents calls per second per account and region (AWS's limit).
const RATE: Duration = Duration::from_millis(500);

/// The longest back-off after a throttled call.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Where the reading of one endpoint's window stands.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TrailStatus {
    /// Events kept (writes of the window).
    pub events: usize,
    /// LookupEvents pages read so far.
    pub pages: usize,
    /// Older pages still to read (0: the window is read to its start).
    pub pending: usize,
    /// Set while LookupEvents is throttled: what to tell the operator.
    pub throttled: Option<String>,
    /// The last failure other than throttling.
    pub error: Option<String>,
}

impl TrailStatus {
    /// One line for the operator: what was read, what is pending, throttling, the delay.
    pub fn line(&self) -> String {
        let mut out = format!("CloudTrail: {} read", plural(self.events, "change"));
        if self.pending > 0 {
            out.push_str(" (older pages come with each refresh)");
        }
        if let Some(t) = &self.throttled {
            out.push_str(&format!("; {t}"));
        } else if let Some(e) = &self.error {
            out.push_str(&format!("; not read: {e}"));
        }
        out.push_str(&format!(" · {DELIVERY_NOTE}"));
        out
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A page still to read: the query it continues and its token.
#[derive(Debug, Clone)]
struct Cursor {
    start: f64,
    end: f64,
    token: String,
}

/// What is known of one endpoint's window.
#[derive(Debug, Default)]
struct Entry {
    events: HashMap<String, TrailEvent>,
    newest: Option<f64>,
    pending: VecDeque<Cursor>,
    last_was_head: bool,
    pages: usize,
    backoff: Duration,
    retry_at: Option<Instant>,
    throttled: Option<String>,
    error: Option<String>,
}

/// Pages, events and pacing of CloudTrail reads, shared by every refresh of a process.
#[derive(Debug, Default)]
pub struct TrailCache {
    entries: parking_lot::Mutex<HashMap<(String, String, u64), Entry>>,
    last_call: tokio::sync::Mutex<Option<Instant>>,
    calls: AtomicUsize,
}

/// The read of one refresh: the window's writes, oldest first, and where reading stands.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TrailRead {
    /// Writes to the endpoint in the window, oldest first.
    pub events: Vec<TrailEvent>,
    /// Where reading stands.
    pub status: TrailStatus,
}

/// How one page went.
enum Paged {
    Read { next: Option<String>, got: Vec<TrailEvent> },
    Throttled,
    Failed(String),
}

impl TrailCache {
    /// LookupEvents calls made so far.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }

    /// Waits for this process's turn (calls 500 ms apart).
    async fn turn(&self) {
        let mut last = self.last_call.lock().await;
        if let Some(at) = *last {
            let wait = RATE.saturating_sub(at.elapsed());
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
        }
        *last = Some(Instant::now());
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    fn read_of(&self, key: &(String, String, u64), since: f64) -> TrailRead {
        let entries = self.entries.lock();
        let Some(e) = entries.get(key) else {
            return TrailRead::default();
        };
        let mut events: Vec<TrailEvent> = e.events.values().filter(|x| x.epoch >= since).cloned().collect();
        events.sort_by(|a, b| a.epoch.total_cmp(&b.epoch).then_with(|| a.id.cmp(&b.id)));
        TrailRead {
            status: TrailStatus {
                events: events.len(),
                pages: e.pages,
                pending: e.pending.len(),
                throttled: e.throttled.clone(),
                error: e.error.clone(),
            },
            events,
        }
    }
}

fn is_throttle(code: Option<&str>) -> bool {
    matches!(
        code,
        Some("ThrottlingException" | "Throttling" | "TooManyRequestsException" | "RequestLimitExceeded")
    )
}

fn when(epoch: f64) -> aws_smithy_types::DateTime {
    aws_smithy_types::DateTime::from_secs_f64(epoch.max(0.0))
}

impl Fleet {
    /// One LookupEvents page of `endpoint`'s events in `[start, end]`, keeping the writes of
    /// [`SOURCES`].
    async fn trail_page(&self, endpoint: &str, start: f64, end: f64, token: Option<String>) -> Paged {
        let attr = LookupAttribute::builder()
            .attribute_key(LookupAttributeKey::ResourceName)
            .attribute_value(endpoint)
            .build();
        let attr = match attr {
            Ok(a) => a,
            Err(e) => return Paged::Failed(e.to_string()),
        };
        let sent = self
            .cloudtrail
            .lookup_events()
            .lookup_attributes(attr)
            .start_time(when(start))
            .end_time(when(end))
            .max_results(PAGE)
            .set_next_token(token)
            .send()
            .await;
        match sent {
            Ok(out) => Paged::Read {
                next: out.next_token().filter(|t| !t.is_empty()).map(str::to_string),
                got: out
                    .events()
                    .iter()
                    .filter_map(|e| TrailEvent::parse(e.cloud_trail_event()?))
                    .filter(|e| !e.read_only && SOURCES.contains(&e.source.as_str()))
                    .collect(),
            },
            Err(e) if is_throttle(e.code()) => Paged::Throttled,
            Err(e) => Paged::Failed(AwsError::from_sdk(e).to_string()),
        }
    }

    /// One refresh of `endpoint`'s CloudTrail window (`since` to now, epoch seconds): at most
    /// one LookupEvents page, none while a throttled call backs off. Returns everything read
    /// so far for that window.
    pub async fn trail_refresh(&self, cache: &TrailCache, endpoint: &str, since: f64, now: f64) -> TrailRead {
        self.trail_step(cache, endpoint, since, now, false).await
    }

    /// One page: the newest events, or an older page (always when `older_first` and one is
    /// pending, else every other step).
    async fn trail_step(
        &self,
        cache: &TrailCache,
        endpoint: &str,
        since: f64,
        now: f64,
        older_first: bool,
    ) -> TrailRead {
        let window = (now - since).max(0.0).round() as u64;
        let key = (self.region.clone(), endpoint.to_string(), window);
        let query = {
            let mut entries = cache.entries.lock();
            let e = entries.entry(key.clone()).or_default();
            if e.retry_at.is_some_and(|at| Instant::now() < at) {
                None
            } else if (older_first || e.last_was_head) && !e.pending.is_empty() {
                e.last_was_head = false;
                e.pending.pop_front()
            } else {
                e.last_was_head = true;
                let start = e.newest.map_or(since, |n| (n - DELIVERY_DELAY).max(since));
                Some(Cursor {
                    start,
                    end: now,
                    token: String::new(),
                })
            }
        };
        if let Some(q) = query {
            cache.turn().await;
            let token = (!q.token.is_empty()).then(|| q.token.clone());
            let paged = self.trail_page(endpoint, q.start, q.end, token).await;
            apply(cache, &key, q, paged, since);
        }
        cache.read_of(&key, since)
    }

    /// Every page of `endpoint`'s window (the CLI's one-shot read), at most `max_pages`,
    /// backing off when throttled (`on_throttle` is told each wait). The status says what was
    /// left unread.
    pub async fn trail_all(
        &self,
        cache: &TrailCache,
        endpoint: &str,
        since: f64,
        now: f64,
        max_pages: usize,
        on_throttle: impl Fn(Duration),
    ) -> TrailRead {
        let mut read = TrailRead::default();
        let mut throttles = 0;
        for _ in 0..max_pages.saturating_mul(2) {
            read = self.trail_step(cache, endpoint, since, now, true).await;
            let wait = {
                let entries = cache.entries.lock();
                let window = (now - since).max(0.0).round() as u64;
                let e = entries.get(&(self.region.clone(), endpoint.to_string(), window));
                e.and_then(|e| e.retry_at)
                    .map(|at| at.saturating_duration_since(Instant::now()))
            };
            if let Some(w) = wait.filter(|w| !w.is_zero()) {
                throttles += 1;
                if throttles > 5 {
                    break;
                }
                on_throttle(w);
                tokio::time::sleep(w).await;
                continue;
            }
            let done = read.status.pending == 0 && read.status.pages > 0;
            if done || read.status.error.is_some() || read.status.pages >= max_pages {
                break;
            }
        }
        read
    }
}

/// Records a page's outcome in the cache entry.
fn apply(cache: &TrailCache, key: &(String, String, u64), q: Cursor, paged: Paged, since: f64) {
    let mut entries = cache.entries.lock();
    let e = entries.entry(key.clone()).or_default();
    match paged {
        Paged::Read { next, got } => {
            e.pages += 1;
            e.backoff = Duration::ZERO;
            e.retry_at = None;
            e.throttled = None;
            e.error = None;
            for ev in got {
                e.newest = Some(e.newest.map_or(ev.epoch, |n| n.max(ev.epoch)));
                e.events.insert(ev.id.clone(), ev);
            }
            if let Some(token) = next {
                e.pending.push_back(Cursor { token, ..q });
            }
            e.events.retain(|_, ev| ev.epoch >= since);
        }
        Paged::Throttled => {
            e.backoff = (e.backoff * 2).clamp(Duration::from_secs(1), MAX_BACKOFF);
            e.retry_at = Some(Instant::now() + e.backoff);
            e.throttled = Some(format!(
                "throttled (LookupEvents allows 2 calls/s per account and region): backing off {}s",
                e.backoff.as_secs()
            ));
            if !q.token.is_empty() {
                e.pending.push_front(q);
            }
            e.last_was_head = !e.last_was_head;
        }
        Paged::Failed(why) => {
            e.error = Some(why);
            if !q.token.is_empty() {
                e.pending.push_front(q);
            }
        }
    }
}
