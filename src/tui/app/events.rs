//! Background events into state: the app keeps the shared [`Data`] (inventory, metrics, the
//! console's own latencies, catalogs) and the jobs in flight; then every pane sees the event
//! and takes what is its own.

use std::time::Instant;

use super::App;
use crate::tui::data::Data;
use crate::tui::event::AppEvent;
use crate::tui::widgets::Overlay;
use crate::tui::widgets::toasts::Level;

impl App {
    /// Applies a background event.
    pub fn on_event(&mut self, mut ev: AppEvent) {
        self.dirty = true;
        if let AppEvent::SamplingAsked(ask) = ev {
            self.asks.push_back(ask);
            self.show_ask();
            return;
        }
        if self.of_old_region(&ev) {
            return;
        }
        if let AppEvent::Inventory(Ok(inv)) = &mut ev {
            // The rows move into the shared data (10,000 rows are not copied); the panes see
            // the event without them.
            let endpoints = std::mem::take(&mut inv.endpoints);
            self.on_inventory(inv, endpoints);
            // The rows it replaced are freed now, on this thread.
            crate::tui::refresh::release_freed_memory();
        }
        if let AppEvent::Metrics {
            detail: false,
            result: Ok(m),
        } = &mut ev
        {
            // The fleet's figures move into the shared data too, series and all.
            let snapshot = crate::aws::observe::metrics::MetricsSnapshot {
                variants: std::mem::take(&mut m.variants),
                components: std::mem::take(&mut m.components),
                warnings: m.warnings.clone(),
                ..*m
            };
            self.data.take_fleet_metrics(snapshot, &self.metrics_focus);
            crate::tui::refresh::release_freed_memory();
        }
        self.apply_shared(&ev);
        if let AppEvent::Finished { id, cancelled } = ev {
            self.stale_jobs.retain(|x| *x != id);
            let kind = self.inflight.remove(&id).map(|(k, _)| k);
            self.each_pane(|p, _, out, _| p.on_finished(id, kind, cancelled, out));
            return;
        }
        let ended_plan = matches!(ev, AppEvent::PromotionEnded { .. });
        self.each_pane(|p, data, out, visible| p.on_event(&ev, data, out, visible));
        if ended_plan {
            self.refresh_inventory();
        }
    }

    /// Whether `ev` is a refresh result that may be of the region left by `:region`: while a
    /// refresh started before the switch is in flight (for at most 30 s), inventories and
    /// metrics are dropped; the next refresh brings the new region's.
    fn of_old_region(&mut self, ev: &AppEvent) -> bool {
        if self
            .stale_since
            .is_some_and(|t| t.elapsed() > std::time::Duration::from_secs(30))
        {
            self.stale_jobs.clear();
        }
        if self.stale_jobs.is_empty() {
            self.stale_since = None;
            return false;
        }
        matches!(
            ev,
            AppEvent::Inventory(_) | AppEvent::InventoryProgress { .. } | AppEvent::Metrics { .. }
        )
    }

    /// The part of an event that belongs to the shared data and the app's own bookkeeping.
    fn apply_shared(&mut self, ev: &AppEvent) {
        match ev {
            AppEvent::Started { id, kind, label } => {
                self.inflight.insert(*id, (*kind, label.clone()));
            }
            AppEvent::InventoryProgress { origin, progress } => self.data.apply_progress(*origin, progress),
            AppEvent::Alarms(Ok(alarms)) => self.data.alarms = alarms.clone(),
            AppEvent::Regions { regions, origins } => {
                self.data.context.region = crate::tui::regions::header_text(regions);
                self.data.regions = regions.clone();
                self.data.origins = origins.clone();
            }
            AppEvent::Inventory(Err(e)) => {
                let first = !self.data.refresh_failed;
                self.data.refresh_failed = true;
                self.data.refresh_error = Some(e.to_string());
                if first {
                    self.toasts.push(Level::Error, format!("refresh failed: {e}"));
                }
            }
            AppEvent::Metrics {
                detail: true,
                result: Ok(m),
            } => self.data.detail_metrics = Some(m.clone()),
            AppEvent::Metrics { result: Err(e), .. } => self.toasts.push(Level::Warn, format!("metrics: {e}")),
            AppEvent::Notice { error, text } => self
                .toasts
                .push(if *error { Level::Error } else { Level::Info }, text.clone()),
            _ => self.apply_results(ev),
        }
    }

    /// The part of an event that answers a read or a change of one endpoint: its row in the
    /// shared data, the describe overlay, a toast.
    fn apply_results(&mut self, ev: &AppEvent) {
        match ev {
            AppEvent::Described { endpoint, result } => {
                // A fresher read of the endpoint than the last refresh: the tables show it too.
                if let Ok((info, _)) = result {
                    replace_endpoint(&mut self.data, info.clone());
                }
                if let Some(Overlay::Describe(view)) = self.overlay.as_mut() {
                    match result {
                        Ok((info, acts)) => {
                            view.set(&serde_json::json!({ "endpoint": info, "scaling_activities": acts }))
                        }
                        Err(e) => view.error = Some(format!("describe {endpoint}: {e}")),
                    }
                }
            }
            AppEvent::WeightsProgress(info) => {
                self.data.weights_progress = Some(info.clone());
                replace_endpoint(&mut self.data, info.clone());
            }
            AppEvent::WeightsDone { endpoint, result } => {
                self.data.weights_progress = None;
                match result {
                    Ok(info) => {
                        self.toasts.push(
                            Level::Info,
                            format!("weights of {endpoint}: InService with the new weights"),
                        );
                        replace_endpoint(&mut self.data, info.clone());
                    }
                    Err(e) => self.toasts.push(Level::Error, format!("weights of {endpoint}: {e}")),
                }
            }
            AppEvent::ServerlessSet { endpoint, result } => {
                self.data.weights_progress = None;
                match result {
                    Ok(info) => {
                        let text = format!("concurrency of {endpoint}: InService with the new settings");
                        self.toasts.push(Level::Info, text);
                        replace_endpoint(&mut self.data, (**info).clone());
                    }
                    Err(e) => self
                        .toasts
                        .push(Level::Error, format!("concurrency of {endpoint}: {e}")),
                }
            }
            AppEvent::Invoked { result: Ok(r), .. } => self.data.own_latency.record(r.latency),
            AppEvent::Catalog { endpoint, result } => match result {
                Ok(c) => {
                    self.data.catalog_errors.remove(endpoint);
                    self.data.catalogs.insert(endpoint.clone(), c.clone());
                }
                Err(e) => {
                    self.data.catalog_errors.insert(endpoint.clone(), e.to_string());
                    self.toasts.push(Level::Error, format!("models of {endpoint}: {e}"));
                }
            },
            _ => {}
        }
    }

    fn on_inventory(
        &mut self,
        inv: &crate::aws::endpoints::inventory::Inventory,
        endpoints: Vec<std::sync::Arc<crate::aws::endpoints::inventory::EndpointInfo>>,
    ) {
        self.data.replace_inventory(inv, endpoints);
        self.data.failures = inv.failures.clone();
        self.data.loaded = true;
        self.data.last_ok = Some(Instant::now());
        if self.data.refresh_failed {
            self.toasts.push(Level::Info, "endpoints refreshed again");
        }
        self.data.refresh_failed = false;
        self.data.refresh_error = None;
        let was = self.data.throttled_interval;
        self.data.note_throttling(inv.throttled > 0);
        if let Some(slower) = self.data.throttled_interval.filter(|_| was.is_none()) {
            let text = format!(
                "AWS throttled {} calls of the refresh: refreshing every {}s until it stops",
                inv.throttled,
                slower.as_secs()
            );
            self.toasts.push(Level::Warn, text);
        }
        for f in &self.data.failures {
            self.toasts
                .push(Level::Warn, format!("could not describe {}: {}", f.endpoint, f.error));
        }
        if self.data.selected.is_none() {
            self.data.selected = self.data.inventory.first().map(|e| e.name.clone());
        }
        if self.last_metrics.is_none() {
            self.request_metrics();
        }
    }

    /// A slow tick: expires toasts, schedules refreshes, lets the panes refresh what they show;
    /// marks dirty because the header's ages change every second.
    pub fn on_tick(&mut self) {
        self.toasts.expire();
        self.schedule_refreshes();
        self.each_pane(|p, data, out, visible| p.on_tick(visible, data, out));
        self.dirty = true;
    }
}

/// Puts a freshly described endpoint in place of the inventory's (keeping its autoscaling
/// summary when the new one has none).
fn replace_endpoint(data: &mut Data, info: crate::aws::endpoints::inventory::EndpointInfo) {
    if let Some(slot) = data.inventory.iter_mut().find(|e| e.name == info.name) {
        let mut info = info;
        if info.autoscaling.is_empty() {
            info.autoscaling = slot.autoscaling.clone();
        }
        *slot = std::sync::Arc::new(info);
    }
}
